/* SPDX-License-Identifier: MIT */
/*
 * Update protocols for mockrun explore --power-loss (power.sh): db/data
 * holds "old\n"; each protocol makes it "new\n" (append: "old\nnew\n"),
 * then writes the file ack outside db/ (the program's "done").
 *   rename    write db/tmp, rename over db/data (no fsync): wrong
 *   nodirsync write db/tmp, fsync it, rename, no fsync of db/: wrong
 *   append    append to db/data, no fsync: wrong
 *   safe      write db/tmp, fsync, rename, fsync(db/): right
 *   inplace   overwrite db/data in place, fsync: right
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int put(const char *name, int flags, const char *s, int sync)
{
	int fd = open(name, flags, 0644);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s) || (sync && fsync(fd)) || close(fd))
		return 1;
	return 0;
}

static int dirsync(const char *name)
{
	int fd = open(name, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || fsync(fd) || close(fd))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *p = argc > 1 ? argv[1] : "";
	int bad;

	if (!strcmp(p, "rename"))
		bad = put("db/tmp", O_WRONLY | O_CREAT | O_TRUNC, "new\n", 0) || rename("db/tmp", "db/data");
	else if (!strcmp(p, "nodirsync"))
		bad = put("db/tmp", O_WRONLY | O_CREAT | O_TRUNC, "new\n", 1) || rename("db/tmp", "db/data");
	else if (!strcmp(p, "append"))
		bad = put("db/data", O_WRONLY | O_APPEND, "new\n", 0);
	else if (!strcmp(p, "safe"))
		bad = put("db/tmp", O_WRONLY | O_CREAT | O_TRUNC, "new\n", 1) || rename("db/tmp", "db/data") ||
		      dirsync("db");
	else if (!strcmp(p, "inplace"))
		bad = put("db/data", O_WRONLY, "new\n", 1);
	else
		return 2;
	if (bad) {
		perror(p);
		return 1;
	}
	{
		int fd = open("ack", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || write(fd, "done\n", 5) != 5 || close(fd))
			return 1;
	}
	return 0;
}
