// SPDX-License-Identifier: GPL-2.0
/* gpiolat: what every mode's command line shares (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core/cli.h"
#include "core/parse.h"
#include "results_out.h"

void cli_usage(const char *see, bool *printed, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpiolat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s)\n", see);
	*printed = true;
}

bool cli_wanted(int argc, char **argv, const char *opt)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], opt))
			return true;
	return false;
}

void cli_key_error(const struct argp_state *state, const char *see, bool *printed)
{
	int i = state->next > 0 ? state->next - 1 : 0;

	if (!*printed)
		cli_usage(see, printed, "unknown option or missing argument: '%s'",
			  i < state->argc ? state->argv[i] : "?");
}

void cli_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int cli_time(const char *what, const char *arg, __u64 *ns, const char *see, bool *printed)
{
	if (!parse_time(arg, NSEC_PER_SEC, ns) && *ns <= CLI_TIME_MAX_NS)
		return 0;
	cli_usage(see, printed,
		  "bad %s '%s': want a positive number with an optional unit (ns, us, ms, s, m), "
		  "at most a year",
		  what, arg);
	return -1;
}

/* FD, when closed, opened on /dev/null; 1 when it was closed, 0 open, -1 failed */
static int fill_closed(int fd)
{
	int n;

	if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
		return 0;
	n = open("/dev/null", O_RDWR | O_NOCTTY);
	if (n < 0)
		return -1;
	if (n != fd) {
		/* a lower fd was closed too and took it: put it where it belongs */
		if (dup2(n, fd) < 0) {
			close(n);
			return -1;
		}
		close(n);
	}
	return 1;
}

int cli_stdio_open(void)
{
	/* a closed stdout is refused (results_out.h), a closed stdin or stderr gets /dev/null */
	if (!results_out_open("gpiolat"))
		return -1;
	return fill_closed(0) < 0 || fill_closed(2) < 0 ? -1 : 0;
}

int cli_output_done(int rc)
{
	return results_out_done("gpiolat", rc);
}
