// SPDX-License-Identifier: GPL-2.0
/* Results on stdout never lost silently: results_out.h */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "results_out.h"

bool results_out_open(const char *prog)
{
	if (fcntl(1, F_GETFD) >= 0 || errno != EBADF)
		return true;
	fprintf(stderr, "%s: stdout is closed: the results would be lost\n", prog);
	return false;
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
