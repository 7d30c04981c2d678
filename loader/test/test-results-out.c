// SPDX-License-Identifier: GPL-2.0
/*
 * test-results-out: a report written through common/results_out.c as gpiolat and the togglers
 * write theirs, for tests/host/test_results_out.py. Not installed.
 *
 *   test-results-out BYTES end|flush|fork
 *
 * BYTES of lines of 'x' (99 and a newline) by printf, then results_out_done()'s status:
 *   end    nothing flushed before the end (over RESULTS_OUT_BUF: printf flushes inside)
 *   flush  fflush(stdout) after every 2000 bytes and at the end (an interval's histograms)
 *   fork   after the first 2000 bytes (or all, when fewer) fflush(NULL) and a fork whose
 *          child exits at once (gpiolat's flush before it starts a worker or a command)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "results_out.h"

#define PROG "test-results-out"

int main(int argc, char **argv)
{
	bool forked = false;
	long bytes, i, n;
	char line[101];
	pid_t pid;
	char *end;

	if (argc != 3 ||
	    (strcmp(argv[2], "end") && strcmp(argv[2], "flush") && strcmp(argv[2], "fork"))) {
		fprintf(stderr, "usage: " PROG " BYTES end|flush|fork\n");
		return 2;
	}
	bytes = strtol(argv[1], &end, 10);
	if (*end || bytes < 0) {
		fprintf(stderr, PROG ": bad BYTES '%s'\n", argv[1]);
		return 2;
	}
	if (!results_out_open(PROG))
		return 1;
	memset(line, 'x', 99);
	line[99] = '\n';
	line[100] = '\0';
	/* a flush point every 2000 bytes and at the end */
	for (i = 0; i < bytes; i += n) {
		n = bytes - i < 100 ? bytes - i : 100;
		printf("%.*s", (int)n, line + 100 - n);
		if ((i + n) % 2000 && i + n != bytes)
			continue;
		if (!strcmp(argv[2], "flush")) {
			fflush(stdout);
		} else if (!strcmp(argv[2], "fork") && !forked) {
			fflush(NULL);
			pid = fork();
			if (pid < 0) {
				perror(PROG ": fork");
				return 1;
			}
			if (!pid)
				_exit(0);
			waitpid(pid, NULL, 0);
			forked = true;
		}
	}
	return results_out_done(PROG, 0);
}
