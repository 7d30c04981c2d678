// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the state directory (statedir.h): what a run saves to put the system back, kept
 * where only root can write, read back only when it is root's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "core/statedir.h"

/* the whole of an open file, NUL-terminated; fd closed; NULL (errno set) on failure: a read
 * error is an error, never the end of the file */
char *fd_slurp(int fd)
{
	char *buf = NULL, *nb;
	size_t len = 0;
	char tmp[4096];
	ssize_t n;
	int err = 0;

	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		if (len + n > SLURP_MAX) {
			/* /dev/zero, or a file that is not ours to read whole */
			err = EFBIG;
			break;
		}
		nb = realloc(buf, len + n + 1);
		if (!nb) {
			err = ENOMEM;
			break;
		}
		buf = nb;
		memcpy(buf + len, tmp, n);
		len += n;
	}
	close(fd);
	if (err) {
		free(buf);
		errno = err;
		return NULL;
	}
	if (!buf)
		return strdup("");
	buf[len] = '\0';
	return buf;
}

char *file_slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? NULL : fd_slurp(fd);
}

/* not a link, root's, writable by nobody else */
bool root_only(const struct stat *st)
{
	return !S_ISLNK(st->st_mode) && st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Is STATE_DIR ours? lstat: a directory (not a link) of root's with mode 0700; else nothing in
 * it is used. With create, make it when missing (in a /run of root's). 1 ours, 0 missing
 * (!create), -1 and why.
 */
int state_dir_open(bool create, char *why, size_t size)
{
	struct stat st;

	if (lstat(STATE_DIR, &st)) {
		if (errno != ENOENT) {
			snprintf(why, size, "cannot stat %s: %s", STATE_DIR, strerror(errno));
			return -1;
		}
		if (!create)
			return 0;
		/* root's, and where others may write, sticky: nobody else can move ours */
		if (stat("/run", &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			snprintf(why, size,
				 "no /run of root's to save the state in (%s; never in a "
				 "world-writable place)",
				 errno == ENOENT ? "missing" : "not root's");
			return -1;
		}
		if (mkdir(STATE_DIR, 0700) || lstat(STATE_DIR, &st)) {
			snprintf(why, size, "cannot create %s to save the state in: %s", STATE_DIR,
				 strerror(errno));
			return -1;
		}
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 07777) != 0700) {
		snprintf(why, size,
			 "%s is not a directory of root's with mode 0700 (%s, owner uid %u, mode "
			 "%04o): nothing in it is used; remove it",
			 STATE_DIR,
			 S_ISLNK(st.st_mode) ? "a link" :
			 S_ISDIR(st.st_mode) ? "a directory" :
					       "not a directory",
			 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 1;
}

int state_path(char *buf, size_t size, const char *name)
{
	return snprintf(buf, size, STATE_DIR "/%s", name) >= (int)size ? -1 : 0;
}

/* a state file, when it is a regular file of root's (not followed when a link); else NULL */
char *state_read(const char *name, bool *bad)
{
	struct stat st;
	char p[128], *text;
	int fd;

	if (state_path(p, sizeof(p), name))
		return NULL;
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "gpiolat: %s not used: %s\n", p, strerror(errno));
			*bad = true;
		}
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !root_only(&st)) {
		fprintf(stderr, "gpiolat: %s not used: not a regular file of root's\n", p);
		*bad = true;
		close(fd);
		return NULL;
	}
	text = fd_slurp(fd);
	if (!text) {
		fprintf(stderr, "gpiolat: %s not used: cannot read it: %s\n", p, strerror(errno));
		*bad = true;
	}
	return text;
}

/* save VALUE as NAME in the state directory; the first saved value is the one to restore */
int state_save(const char *name, const char *value)
{
	bool bad = false;
	char p[128], *v;
	size_t len = strlen(value);
	int fd;

	if (state_path(p, sizeof(p), name))
		return -1;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno != EEXIST)
			return -1;
		/* saved before in this run: kept only when it is ours */
		v = state_read(name, &bad);
		free(v);
		return v ? 0 : -1;
	}
	if (write(fd, value, len) != (ssize_t)len) {
		close(fd);
		unlink(p);
		return -1;
	}
	return close(fd);
}
