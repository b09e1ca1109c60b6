/* SPDX-License-Identifier: MIT */
/*
 * getaddrinfo's *res output: a list the program owns and frees with
 * freeaddrinfo, so it is built with the program's (real) malloc, one block
 * per entry holding the addrinfo and its sockaddr, as glibc lays it out
 * (freeaddrinfo frees ai_canonname and the entry, nothing else).
 */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "channel/channel.h"
#include "shim.h"

struct entry {
	struct addrinfo ai;
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} sa;
};

/* A numeric service, as getaddrinfo reads it; anything else is port 0. */
static uint16_t service_port(const char *service)
{
	unsigned long port = 0;

	if (!service || !*service)
		return 0;
	for (const char *p = service; *p; p++) {
		if (*p < '0' || *p > '9' || port > 65535)
			return 0;
		port = port * 10 + (unsigned long)(*p - '0');
	}
	return port > 65535 ? 0 : (uint16_t)port;
}

static void free_list(struct addrinfo *ai)
{
	while (ai) {
		struct addrinfo *next = ai->ai_next;

		ms_real.free.fn(ai->ai_canonname);
		ms_real.free.fn(ai);
		ai = next;
	}
}

int ms_build_addrinfo(const void *data, uint32_t len, const char *node, const char *service,
		      const struct addrinfo *hints, struct addrinfo **res)
{
	static const int socktypes[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW };
	static const int protocols[] = { IPPROTO_TCP, IPPROTO_UDP, 0 };
	int family = hints ? hints->ai_family : AF_UNSPEC;
	int socktype = hints ? hints->ai_socktype : 0;
	int flags = hints ? hints->ai_flags : 0;
	uint16_t port = service_port(service);
	struct addrinfo *head = NULL, **tail = &head;

	for (uint32_t off = 0; off + sizeof(struct ms_addr) <= len; off += sizeof(struct ms_addr)) {
		struct ms_addr a;

		memcpy(&a, (const char *)data + off, sizeof(a));
		if (family != AF_UNSPEC && family != a.family)
			continue;
		for (unsigned k = 0; k < 3; k++) {
			struct entry *e;

			/* no socktype asked: one entry per type, as glibc gives */
			if (socktype && socktype != socktypes[k])
				continue;
			e = ms_real.calloc.fn(1, sizeof(*e));
			if (!e) {
				free_list(head);
				return EAI_MEMORY;
			}
			e->ai.ai_family = a.family;
			e->ai.ai_socktype = socktypes[k];
			e->ai.ai_protocol = hints && hints->ai_protocol ? hints->ai_protocol : protocols[k];
			e->ai.ai_addr = (struct sockaddr *)&e->sa;
			if (a.family == AF_INET) {
				e->sa.in.sin_family = AF_INET;
				e->sa.in.sin_port = htons(a.port ? a.port : port);
				memcpy(&e->sa.in.sin_addr, a.addr, 4);
				e->ai.ai_addrlen = sizeof(e->sa.in);
			} else {
				e->sa.in6.sin6_family = AF_INET6;
				e->sa.in6.sin6_port = htons(a.port ? a.port : port);
				memcpy(&e->sa.in6.sin6_addr, a.addr, 16);
				e->ai.ai_addrlen = sizeof(e->sa.in6);
			}
			if (!head && (flags & AI_CANONNAME) && node) {
				size_t n = strlen(node) + 1;

				e->ai.ai_canonname = ms_real.malloc.fn(n);
				if (!e->ai.ai_canonname) {
					ms_real.free.fn(e);
					free_list(head);
					return EAI_MEMORY;
				}
				memcpy(e->ai.ai_canonname, node, n);
			}
			*tail = &e->ai;
			tail = &e->ai.ai_next;
		}
	}
	*res = head;
	/* every address filtered out by the hints: what glibc says then */
	return head ? 0 : family != AF_UNSPEC ? EAI_ADDRFAMILY : EAI_NONAME;
}
