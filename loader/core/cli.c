// SPDX-License-Identifier: GPL-2.0
/* gpiolat: what every mode's command line shares (cli.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core/cli.h"
#include "core/files.h"
#include "core/parse.h"
#include "results_out.h"

/* argp's, for every parser of the program (<argp.h> declares it): --version */
const char *argp_program_version = "gpiolat " GPIOLAT_VERSION;

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

enum { CLI_OPT_JSON = 0x600, CLI_OPT_BTF, CLI_OPT_BPF_STATS };

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct cli_common *c = state->input;

	switch (key) {
	case 'v':
		*c->verbose = true;
		break;
	case CLI_OPT_JSON:
		*c->json = true;
		break;
	case CLI_OPT_BTF: {
		char why[PATH_MAX + 80];

		if (file_arg_check("--btf", arg, why, sizeof(why))) {
			cli_usage(c->see, c->usage_printed, "%s", why);
			return EINVAL;
		}
		*c->btf = arg;
		break;
	}
	case CLI_OPT_BPF_STATS:
		*c->bpf_stats = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp_child *cli_common_children(struct cli_common *c, int group)
{
	struct argp_option *o = c->opts;

	memset(c->opts, 0, sizeof(c->opts));
	if (c->verbose)
		*o++ = (struct argp_option){
			"verbose", 'v', NULL, 0, "libbpf's messages (and the verifier's)", group
		};
	if (c->json) {
		snprintf(c->json_help, sizeof(c->json_help), "JSON output%s%s%s",
			 c->json_doc ? " (" : "", c->json_doc ? c->json_doc : "",
			 c->json_doc ? ")" : "");
		*o++ = (struct argp_option){ "json", CLI_OPT_JSON, NULL, 0, c->json_help, group };
	}
	if (c->btf)
		*o++ = (struct argp_option){
			"btf",
			CLI_OPT_BTF,
			"FILE",
			0,
			"BTF of the kernel, for kernels without /sys/kernel/btf/vmlinux",
			group
		};
	if (c->bpf_stats)
		*o++ = (struct argp_option){
			"bpf-stats",
			CLI_OPT_BPF_STATS,
			NULL,
			0,
			"BPF run time per program run (BPF_ENABLE_STATS, on for the whole run: it "
			"adds two clock reads to every run, and so to what is measured; off by "
			"default)",
			group
		};
	c->argp = (struct argp){ .options = c->opts, .parser = common_parse };
	memset(c->children, 0, sizeof(c->children));
	c->children[0].argp = &c->argp;
	return c->children;
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
