// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the files a user names on the command line (files.h). A FIFO given as --btf or
 * --baseline made the run wait for a writer forever; a directory or a device made it fail
 * later with a confusing error. Each file argument is checked where it is parsed, in one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/files.h"

static const char *kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "of an unknown kind";
}

int file_arg_open(const char *opt, const char *path, char *why, size_t size)
{
	struct stat st;
	int fd;

	/* stat opens nothing: a FIFO without a writer, a tape or a tty is never touched */
	if (stat(path, &st)) {
		snprintf(why, size, "%s: cannot read %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		goto not_regular;
	/* O_NONBLOCK: if PATH became a FIFO since the stat, the open returns at once */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "%s: cannot read %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(why, size, "%s: cannot read %s: %s", opt, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return fd;
	close(fd);
not_regular:
	snprintf(why, size, "%s: %s is %s, not a regular file", opt, path, kind(st.st_mode));
	return -1;
}

int file_arg_check(const char *opt, const char *path, char *why, size_t size)
{
	int fd = file_arg_open(opt, path, why, size);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}
