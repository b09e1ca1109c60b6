/* SPDX-License-Identifier: MIT */
/*
 * A hostile program under test: it finds the channel the shim mapped
 * (by /proc/self/maps) and attacks it one way per command.  Each attack
 * must end in a report that says so (or that nothing changed), never in
 * a crash of mockrun, a lost report or a false pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel/channel.h"

static const struct ms_chan_hdr *spec;
static struct ms_state_hdr *st;

static void find_channel(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[512];

	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if (strstr(line, "memfd:mockshim-spec"))
			spec = (const void *)lo;
		else if (strstr(line, "memfd:mockshim-state"))
			st = (void *)lo;
	}
	if (maps)
		fclose(maps);
	if (!spec || !st) {
		fprintf(stderr, "attack: no channel mapped\n");
		exit(2);
	}
}

static struct ms_event *events(void)
{
	return ms_state_at(st, spec->st_events_off);
}

/* The last failure event the shim wrote. */
static struct ms_event *last_failure(void)
{
	struct ms_event *e = events();

	for (uint32_t i = st->events_next < spec->events_cap ? st->events_next : spec->events_cap;
	     i-- > 0;)
		if (e[i].type == MS_EV_FAIL)
			return &e[i];
	fprintf(stderr, "attack: no failure event\n");
	exit(2);
}

static void on_term(int sig)
{
	(void)sig;
	_exit(3);
}

static int fd_of(int which)
{
	const char *v = getenv("MOCKSHIM_CHANNEL_FD");

	if (!v || (which && !strchr(v, ',')))
		return -1;
	return atoi(which ? strchr(v, ',') + 1 : v);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	/* the shim attached in its constructor; a failed check first, where
	 * the attack needs one (the spec expects open("expected")) */
	if (strncmp(cmd, "fail-", 5) == 0)
		close(open("actual", O_RDONLY));
	find_channel();
	if (strcmp(cmd, "truncate") == 0) {
		/* neither memfd can shrink: no SIGBUS, in us or in mockrun */
		int a = ftruncate(fd_of(0), 0), ea = errno, b = ftruncate(fd_of(1), 0), eb = errno;
		pid_t pid;

		printf("spec: %s, state: %s\n", a ? strerrorname_np(ea) : "truncated",
		       b ? strerrorname_np(eb) : "truncated");
		pid = fork();
		if (pid == 0)
			_exit(getpid() == 5 ? 0 : 1); /* a child of the tree still mocked */
		waitpid(pid, &a, 0);
		printf("child: %s\n", WIFEXITED(a) && WEXITSTATUS(a) == 0 ? "mocked" : "not mocked");
	} else if (strcmp(cmd, "fail-zero-count") == 0) {
		st->failures = 0;
	} else if (strcmp(cmd, "fail-count") == 0) {
		/* failures "not logged" while the log has room */
		st->failures = 5;
	} else if (strcmp(cmd, "fail-erase") == 0) {
		/* the failure event made into a consume event: the count stays */
		last_failure()->type = MS_EV_CONSUME;
	} else if (strcmp(cmd, "fail-memset") == 0) {
		/* issue 41: the one failure event zeroed, nothing else */
		memset(last_failure(), 0, sizeof(struct ms_event));
	} else if (strcmp(cmd, "fail-memset-count") == 0) {
		/* ... and its statement's failure count */
		struct ms_event *e = last_failure();
		struct ms_count_state *x = ms_state_at(st, spec->st_expects_off);

		x[e->rule].failed = 0;
		memset(e, 0, sizeof(*e));
	} else if (strcmp(cmd, "fail-memset-orphan") == 0) {
		/* ... and a process of the tree killed by a signal, which
		 * mockrun reaps (an orphan): a lost failure, still no pass */
		pid_t parent = getpid();

		memset(last_failure(), 0, sizeof(struct ms_event));
		if (fork() == 0) {
			while (getppid() == parent)
				usleep(1000);
			raise(SIGKILL);
		}
	} else if (strcmp(cmd, "fail-attach") == 0 || strcmp(cmd, "fail-warn") == 0) {
		/* the failure event made into an attach (and the count of them
		 * raised to match) or an escape warning: every field of it
		 * one a shim writes */
		struct ms_event *e = last_failure();

		if (cmd[5] == 'a') {
			e->type = MS_EV_ATTACH;
			st->attached++;
		} else {
			e->type = MS_EV_WARN;
			e->kind = MS_ESC_STATIC;
		}
	} else if (strcmp(cmd, "fail-consume") == 0) {
		/* the failure event made into a turn of a rule of the same
		 * function (rule 0: the spec's will_return_maybe(open)) */
		struct ms_event *e = last_failure();

		e->type = MS_EV_CONSUME;
		e->rule = 0;
	} else if (strcmp(cmd, "order-break") == 0) {
		/* the call order marked broken before any call: the shims then
		 * check none of it, and the report lists no entry not called */
		st->order_cursor = MS_ORDER_BROKEN;
		printf("getppid: %d\n", getppid() > 0);
	} else if (strcmp(cmd, "fail-rule") == 0) {
		last_failure()->rule = 0x7fffffff;
	} else if (strcmp(cmd, "fail-at") == 0) {
		struct ms_event *e = last_failure();

		e->at = 0xffffff00u;
		e->len = 0xffffffffu;
	} else if (strcmp(cmd, "fail-kind") == 0) {
		last_failure()->kind = 0x7777;
	} else if (strcmp(cmd, "consumed") == 0) {
		struct ms_rule_state *r = ms_state_at(st, spec->st_rules_off);
		struct ms_count_state *x = ms_state_at(st, spec->st_expects_off);

		for (uint32_t i = 0; i < spec->nrules; i++)
			r[i].consumed = 1000;
		for (uint32_t i = 0; i < spec->nexpects; i++)
			x[i].consumed = 1000;
	} else if (strcmp(cmd, "wipe") == 0) {
		memset(st, 0, spec->state_size);
	} else if (strcmp(cmd, "past-end") == 0) {
		struct ms_event *e = &events()[spec->events_cap - 1];

		e->type = MS_EV_FAIL;
		e->state = 1;
	} else if (strcmp(cmd, "past-end-split") == 0) {
		/* the same in an event across two pages, the second never
		 * written (the last event where the layout has none such) */
		uint32_t i = spec->events_cap - 1;
		struct ms_event *e;

		for (uint32_t k = st->events_next + 1; k < spec->events_cap; k++) {
			uint64_t off = spec->st_events_off + (uint64_t)k * sizeof(*e);

			if (off / 4096 != (off + sizeof(*e) - 1) / 4096) {
				i = k;
				break;
			}
		}
		e = &events()[i];
		e->type = MS_EV_FAIL;
		e->state = 1;
	} else if (strcmp(cmd, "lane-more") == 0 || strcmp(cmd, "lane-orphan") == 0) {
		/* a lane (channel.h) that answered more turns than its rule
		 * claimed for lanes, or a lane no rule has, used; a block count
		 * past the end */
		uint64_t *lanes = ms_state_at(st, ms_lanes_off(spec));

		if (!spec->lanes_cap) {
			fprintf(stderr, "attack: no lanes\n");
			exit(2);
		}
		lanes[cmd[5] == 'm' ? 0 : MS_LANES - 1] = 1000000;	/* answered */
		st->lanes_next = 0xffffffffu;
	} else if (strcmp(cmd, "sites-slot") == 0 || strcmp(cmd, "sites-torn") == 0) {
		/* --sites: a slot naming a function past the table, or a slot
		 * left half-written (a process that died in its note) */
		struct ms_site_slot *t;

		if (!spec->sites_cap) {
			fprintf(stderr, "attack: no sites table\n");
			exit(2);
		}
		t = ms_state_at(st, ms_sites_off(spec));
		getpid(); /* a named function's call: one slot used */
		t[spec->sites_cap - 1].state = cmd[6] == 's' ? 2 : 1;
		t[spec->sites_cap - 1].fn = cmd[6] == 's' ? 0xfffffff0u : 0;
		t[spec->sites_cap - 1].calls = 5;
	} else if (strcmp(cmd, "fail-events-next") == 0) {
		st->events_next = 0xffffffffu;
	} else if (strcmp(cmd, "cursor") == 0) {
		st->order_cursor = 0xfffffff0u;
		st->npids = 0xffffffffu;
	} else if (strcmp(cmd, "fail-strings") == 0) {
		/* unterminated strings in every event: the report bounds them */
		struct ms_event *e = events();

		for (uint32_t i = 0; i < st->events_next && i < spec->events_cap; i++) {
			memset(e[i].caller, 'c', sizeof(e[i].caller));
			memset(e[i].sym, 's', sizeof(e[i].sym));
			memset(e[i].text, 't', sizeof(e[i].text));
		}
	} else if (strcmp(cmd, "trap-term") == 0) {
		/* exits 3 on SIGTERM: the status mockrun must keep */
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, NULL);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	} else if (strcmp(cmd, "spec-write") == 0) {
		/* every way to write the spec: write(2), a writable mapping of
		 * the inherited descriptor or of mockrun's /proc path, and
		 * mprotect of the shim's own mapping.  Whichever works (a kernel
		 * before 6.7 allows the last) makes the queue of 2 a queue of 1,
		 * which the one getpid below would use up: a forged pass. */
		char path[64], c = 0;
		int fd = fd_of(0), pfd;
		void *m;
		size_t len = (size_t)spec->size;
		struct ms_rule *r = NULL;
		int w = (int)pwrite(fd, &c, 1, 0), ew = errno, em, ep, eo;

		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		em = errno;
		if (m != MAP_FAILED)
			r = (struct ms_rule *)((char *)m + spec->rules_off);
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getppid(), fd);
		pfd = open(path, O_RDWR);
		eo = errno;
		if (!r && pfd >= 0 &&
		    (m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0)) != MAP_FAILED)
			r = (struct ms_rule *)((char *)m + spec->rules_off);
		else if (pfd >= 0)
			eo = errno;
		if (mprotect((void *)spec, len, PROT_READ | PROT_WRITE) == 0) {
			ep = 0;
			if (!r)
				r = (struct ms_rule *)((char *)spec + spec->rules_off);
		} else {
			ep = errno;
		}
		printf("write: %s, mmap: %s, /proc: %s, mprotect: %s\n", w < 0 ? strerrorname_np(ew) : "written",
		       m == MAP_FAILED ? strerrorname_np(em) : "mapped",
		       pfd < 0 || !r ? strerrorname_np(eo) : "mapped", ep ? strerrorname_np(ep) : "writable");
		if (r)
			r[0].stmt.count = 1;
		printf("getpid: %d\n", getpid() == 5);
	} else if (strcmp(cmd, "spec-write-mem") == 0) {
		/* --control: mockrun's own writable mapping of the spec,
		 * written through /proc/PPID/mem (root, or ptrace allowed) */
		char path[64], line[512];
		unsigned long lo = 0, hi;
		int32_t one = 1;
		FILE *maps;
		int mem;

		snprintf(path, sizeof(path), "/proc/%d/maps", (int)getppid());
		maps = fopen(path, "r");
		while (maps && fgets(line, sizeof(line), maps))
			if (strstr(line, "memfd:mockshim-spec") && strstr(line, "rw-s") &&
			    sscanf(line, "%lx-%lx", &lo, &hi) == 2)
				break;
		if (maps)
			fclose(maps);
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)getppid());
		mem = open(path, O_RDWR);
		if (!lo || mem < 0 ||
		    pwrite(mem, &one, sizeof(one),
			   (off_t)(lo + spec->rules_off + offsetof(struct ms_rule, stmt.count))) != sizeof(one))
			printf("mem: %s\n", !lo ? "no writable mapping" : strerrorname_np(errno));
		else
			printf("mem: written\n");
		printf("getpid: %d\n", getpid() == 5);
	} else if (strcmp(cmd, "getpid") == 0) {
		printf("getpid: %d\n", getpid() == 5);
	} else {
		fprintf(stderr, "attack: unknown command %s\n", cmd);
		return 2;
	}
	return 0;
}
