// SPDX-License-Identifier: GPL-2.0
/* Results on stdout never lost silently: results_out.h */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_out.h"

/* the errno of the first write (or the close) of stdout that failed; 0: none */
static int out_err;

/* the C library's stdout, given back when ours is closed (no pointer left to a freed stream) */
static FILE *lib_stdout;

/*
 * stdout's writes: all of SIZE to fd 1, or, at the first error, what went out (less than
 * SIZE: stdio sets the stream's error flag) with its errno kept. A signal during a blocked
 * write (the loaders' SIGINT, installed without SA_RESTART) does not lose the report: the
 * write goes on.
 */
static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	size_t done = 0;
	ssize_t n;

	(void)cookie;
	while (done < size) {
		n = write(1, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* 0: the device took nothing and said no error (no why to keep) */
			if (n < 0 && !out_err)
				out_err = errno;
			break;
		}
		done += n;
	}
	return done;
}

/* a close can fail too (NFS, a full disk reported late) */
static int out_close(void *cookie)
{
	(void)cookie;
	if (close(1)) {
		if (!out_err)
			out_err = errno;
		return -1;
	}
	return 0;
}

bool results_out_open(const char *prog)
{
	static const cookie_io_functions_t io = { .write = out_write, .close = out_close };
	FILE *f;
	char *buf;

	if (fcntl(1, F_GETFD) < 0 && errno == EBADF) {
		fprintf(stderr, "%s: stdout is closed: the results would be lost\n", prog);
		return false;
	}
	f = fopencookie(NULL, "w", io);
	if (!f) {
		fprintf(stderr, "%s: stdout: %s\n", prog, strerror(errno));
		return false;
	}
	/*
	 * a terminal stays line-buffered; else the buffer is stdout's until results_out_done()'s
	 * fclose, just before the exit (never freed: stdio keeps no way back to it). Without it
	 * (no memory), stdio's own size.
	 */
	if (isatty(1)) {
		setvbuf(f, NULL, _IOLBF, 0);
	} else {
		buf = malloc(RESULTS_OUT_BUF);
		if (buf && setvbuf(f, buf, _IOFBF, RESULTS_OUT_BUF))
			free(buf);
	}
	/* glibc lets stdout be set (C leaves that to the library: musl's is const) */
	lib_stdout = stdout;
	stdout = f;
	return true;
}

int results_out_done(const char *prog, int rc)
{
	bool bad;

	bad = fflush(stdout) != 0;
	bad |= ferror(stdout) != 0;
	bad |= fclose(stdout) != 0;
	/* the library's own again: a later write fails on the closed fd 1, never on freed memory */
	if (lib_stdout)
		stdout = lib_stdout;
	if (!bad)
		return rc;
	/* out_err is 0 only when a write took nothing without an error */
	fprintf(stderr, "%s: writing the results to stdout failed%s%s\n", prog, out_err ? ": " : "",
		out_err ? strerror(out_err) : "");
	return rc ? rc : 1;
}
