// SPDX-License-Identifier: GPL-2.0
/* gpiolat: what every mode's command line shares (cli.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/cli.h"
#include "core/parse.h"

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
