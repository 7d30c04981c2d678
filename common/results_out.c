// SPDX-License-Identifier: GPL-2.0
/* Results on stdout never lost silently: results_out.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results_out.h"

bool results_out_open(const char *prog)
{
	char *buf;

	if (fcntl(1, F_GETFD) < 0 && errno == EBADF) {
		fprintf(stderr, "%s: stdout is closed: the results would be lost\n", prog);
		return false;
	}
	/*
	 * a terminal stays line-buffered; the buffer is stdout's until results_out_done()'s
	 * fclose, just before the exit (never freed: stdio keeps no way back to it). Without
	 * it (no memory), stdio's own: the same results, a failure's reason maybe lost.
	 */
	if (!isatty(1)) {
		buf = malloc(RESULTS_OUT_BUF);
		if (buf && setvbuf(stdout, buf, _IOFBF, RESULTS_OUT_BUF))
			free(buf);
	}
	return true;
}

int results_out_done(const char *prog, int rc)
{
	int err = 0;
	bool bad;

	errno = 0;
	bad = fflush(stdout) != 0;
	if (bad)
		err = errno;
	bad |= ferror(stdout) != 0;
	/* a close can fail too (NFS, a full disk reported late) */
	errno = 0;
	if (fclose(stdout) && !bad) {
		bad = true;
		err = errno;
	}
	if (!bad)
		return rc;
	/* a write that failed before the flush kept no errno */
	fprintf(stderr, "%s: writing the results to stdout failed%s%s\n", prog, err ? ": " : "",
		err ? strerror(err) : "");
	return rc ? rc : 1;
}
