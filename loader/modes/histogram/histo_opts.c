// SPDX-License-Identifier: GPL-2.0
/* gpiolat's histogram mode: its options (histo_int.h), checked together at the end. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/run.h"
#include "core/cli.h"
#include "core/files.h"
#include "modes/histogram/histo_int.h"
#include "providers/gpio_hooks.h"
#include "gpiolat.h"
#include "core/parse.h"

static const char doc[] =
	"gpiolat: pulse widths of GPIO lines, histogrammed in the kernel with eBPF, and what "
	"the tracing costs.\n"
	"\n"
	"A set to 1 of a line starts a pulse, the next set to 0 ends it; the time between goes "
	"into a log2 histogram (and a linear one with --linear) of that line.\n"
	"\n"
	"EXAMPLES:\n"
	"  gpiolat -d 10s                 all lines, 10 seconds, via gpio:gpio_value\n"
	"  gpiolat --kprobe -l toggle-vchip:0 -i 1s   one line, per-second histograms\n"
	"  gpiolat --pulses 1000 --json   drive the toggle module: exactly 1000 pulses\n"
	"  gpiolat --self-test            which hooks work here, and why not\n"
	"\n"
	"TIME is a number with an optional unit: ns, us, ms, s (the default for -d/-i), m. "
	"WIDTH likewise, in ns by default.\n"
	"\n"
	"EXIT STATUS: 0 done (--self-test: the default method can run), 1 error (the kernel "
	"lacks what is needed, loading or attaching failed, not root), 2 bad usage.\n"
	"\n"
	"OPTIONS:";

#define SEE "gpiolat --help"

/* each hook's option (--tracepoint, ...): OPT_HOOK + its enum gpio_hook, from gpio_hooks[] */
#define OPT_HOOK 0x180

enum {
	OPT_LINEAR = 0x100,
	OPT_LIST,
	OPT_CSV,
	OPT_SELF_TEST,
	OPT_NO_TOGGLE,
	OPT_UNTRACED,
	OPT_USAGE,
	OPT_SYSCALL_COST,
	OPT_MODE_PATH,
	OPT_MODE_WAKEUP,
	OPT_MODE_GAPS,
	OPT_MODE_SYSCALL_HIST,
	OPT_MODE_EMPTY_RAW_TP,
};

/* after the hooks' options (histo_parse: one per row of gpio_hooks[]) */
static const struct argp_option opts[] = {
	{ NULL, 0, NULL, 0, "What and how long:", 2 },
	{ "line", 'l', "LINE", 0,
	  "only this line: a GPIO number, CHIPLABEL:OFFSET or gpiochipN:OFFSET (repeatable; "
	  "default: all lines)",
	  2 },
	{ "duration", 'd', "TIME", 0, "stop after TIME (default: Ctrl-C, or the end of --pulses)",
	  2 },
	{ "interval", 'i', "TIME", 0, "print the histograms of each interval of TIME", 2 },
	{ "pulses", 'p', "N", 0,
	  "with the toggle module: issue exactly N pulses after attaching, wait for them, stop",
	  2 },
	{ "no-toggle", OPT_NO_TOGGLE, NULL, 0,
	  "do not let an idle toggle module toggle for the run (only watch the lines)", 2 },
	{ "untraced", OPT_UNTRACED, "N", 0,
	  "pulses of each untraced phase before attach and after detach (default: --pulses, at "
	  "most 2000; 0: none)",
	  2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "linear", OPT_LINEAR, "WIDTH", 0,
	  "also linear buckets of WIDTH (100 buckets and an overflow bucket)", 3 },
	{ "nanoseconds", 'n', NULL, 0, "print times in ns (default)", 3 },
	{ "microseconds", 'u', NULL, 0, "print times in us", 3 },
	{ "csv", OPT_CSV, NULL, 0, "#-commented blocks that gnuplot reads", 3 },
	{ NULL, 0, NULL, 0, "Other:", 4 },
	{ "self-test", OPT_SELF_TEST, NULL, 0, "report which hooks and facilities work here", 4 },
	{ "list", OPT_LIST, NULL, 0,
	  "list the hooks (name, family, section; with --json: all of their table) and exit", 4 },
	{ "help", 'h', NULL, 0, "show this help", 4 },
	{ "usage", OPT_USAGE, NULL, 0, "show a short usage message", 4 },
	{ "version", 'V', NULL, 0, "show the version", 4 },
	{ NULL, 0, NULL, 0, "Other modes (each has its own options: gpiolat --MODE --help):", 5 },
	{ "overhead", 0x1ff, NULL, 0, "what each tracing method adds to a GPIO set", 5 },
	{ "cleanup", 0x200, NULL, 0, "put back what a killed run's undo journal says it took", 5 },
	{ "path", OPT_MODE_PATH, NULL, 0,
	  "the GPIO path decomposed: one set by each toggler, from a register write to bash", 5 },
	{ "wakeup", OPT_MODE_WAKEUP, NULL, 0,
	  "how long traced tasks wait from their wakeup to running", 5 },
	{ "gaps", OPT_MODE_GAPS, NULL, 0,
	  "the gaps between a line's sets, each long one attributed to what ran instead", 5 },
	{ "syscall-cost", OPT_SYSCALL_COST, NULL, 0,
	  "what each tracing method adds to a syscall, natively", 5 },
	{ "syscall-hist", OPT_MODE_SYSCALL_HIST, NULL, 0,
	  "only the syscall-latency histogram of all threads (--syscall-cost --help)", 5 },
	{ "empty-raw-tp", OPT_MODE_EMPTY_RAW_TP, "TRACEPOINT", 0,
	  "hold an empty BPF program on a raw tracepoint (--syscall-cost --help)", 5 },
	{},
};

/* N, or NAME:N with a non-empty NAME */
static bool line_spec_ok(const char *s)
{
	const char *c = strrchr(s, ':'), *d = c ? c + 1 : s;
	long long n;

	if (c == s || !*d)
		return false;
	return strspn(d, "0123456789") == strlen(d) && !parse_count(d, 0, INT_MAX, &n);
}

/* one hook per run: a second, different hook option is a usage error */
static error_t set_hook(struct histo_env *env, enum gpio_hook h)
{
	if (env->hook_opt && strcmp(env->hook_opt, gpio_hooks[h].name)) {
		cli_usage(SEE, &env->usage_printed, "--%s and --%s exclude each other",
			  env->hook_opt, gpio_hooks[h].name);
		return EINVAL;
	}
	env->hook_opt = gpio_hooks[h].name;
	env->method = h;
	return 0;
}

/* --help, --usage, --version said: the parse ends here, the run with 0 (histo_parse) */
static error_t said(struct histo_env *env)
{
	env->help = true;
	env->usage_printed = true; /* no "unknown option" line after it */
	return EINVAL;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct histo_env *env = state->input;
	long long n;

	switch (key) {
	case 'h':
		/* ARGP_NO_ERRS silences argp's own --help too: ours, with ARGP_NO_HELP */
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat");
		return said(env);
	case OPT_USAGE:
		argp_help(state->root_argp, stdout, ARGP_HELP_USAGE, "gpiolat");
		return said(env);
	case 'V':
		printf("%s\n", argp_program_version);
		return said(env);
	case OPT_LIST:
		env->list = true;
		break;
	case 'l':
		if (env->nspecs == MAX_SPECS) {
			cli_usage(SEE, &env->usage_printed, "too many lines (at most %d)",
				  MAX_SPECS);
			return EINVAL;
		}
		if (!line_spec_ok(arg)) {
			cli_usage(SEE, &env->usage_printed,
				  "bad line '%s': want a number, CHIPLABEL:OFFSET or "
				  "gpiochipN:OFFSET",
				  arg);
			return EINVAL;
		}
		env->specs[env->nspecs++] = arg;
		break;
	case 'd':
		if (cli_time("duration", arg, &env->duration_ns, SEE, &env->usage_printed))
			return EINVAL;
		break;
	case 'i':
		if (cli_time("interval", arg, &env->interval_ns, SEE, &env->usage_printed))
			return EINVAL;
		if (env->interval_ns < MIN_INTERVAL_NS) {
			cli_usage(SEE, &env->usage_printed,
				  "interval '%s' too short: want at least 100ms", arg);
			return EINVAL;
		}
		break;
	case OPT_LINEAR:
		/*
		 * 100 buckets must stay below 2^32 ns for the BPF side's divide-free index;
		 * divided, not multiplied, so that a huge WIDTH cannot wrap past the check
		 */
		if (parse_time(arg, 1, &env->lin_width) ||
		    env->lin_width > GPIOLAT_LINEAR_WIDTH_MAX) {
			cli_usage(SEE, &env->usage_printed,
				  "bad linear bucket width '%s': want 1ns to 42ms", arg);
			return EINVAL;
		}
		break;
	case 'n':
		env->unit = UNIT_NS;
		break;
	case 'u':
		env->unit = UNIT_US;
		break;
	case OPT_CSV:
		/* the last of --csv and --json wins */
		env->out = OUT_CSV;
		env->json = false;
		break;
	case OPT_SELF_TEST:
		env->self_test = true;
		break;
	case OPT_NO_TOGGLE:
		env->no_toggle = true;
		break;
	case 'p':
		if (parse_count(arg, 1, 1000000000LL, &n)) {
			cli_usage(SEE, &env->usage_printed,
				  "bad pulse count '%s': want 1 to 1000000000", arg);
			return EINVAL;
		}
		env->pulses = n;
		break;
	case OPT_UNTRACED:
		if (parse_count(arg, 0, 1000000000LL, &n)) {
			cli_usage(SEE, &env->usage_printed,
				  "bad untraced pulse count '%s': want 0 to 1000000000", arg);
			return EINVAL;
		}
		env->untraced = n;
		break;
	case ARGP_KEY_ARG:
		cli_usage(SEE, &env->usage_printed, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->common;
		break;
	case ARGP_KEY_END:
		if (env->json)
			env->out = OUT_JSON;
		if (env->list) {
			gpio_hooks_print(stdout, env->out == OUT_JSON);
			return said(env);
		}
		if (env->interval_ns && env->duration_ns && env->interval_ns > env->duration_ns) {
			cli_usage(SEE, &env->usage_printed,
				  "the interval is longer than the duration");
			return EINVAL;
		}
		if (env->untraced > 0 && !env->pulses) {
			cli_usage(SEE, &env->usage_printed, "--untraced needs --pulses");
			return EINVAL;
		}
		break;
	case ARGP_KEY_ERROR:
		/* ARGP_NO_ERRS: getopt said nothing; say it once, in one line */
		cli_key_error(state, SEE, &env->usage_printed);
		break;
	default:
		if (key >= OPT_HOOK && key < OPT_HOOK + GPIO_HOOK_MAX)
			return set_hook(env, key - OPT_HOOK);
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int histo_parse(int argc, char **argv, struct histo_env *env)
{
	/* the "Hook:" group: a header, one option a hook of the table, then the others */
	struct argp_option all[1 + GPIO_HOOK_MAX + sizeof(opts) / sizeof(opts[0])] = {
		{ NULL, 0, NULL, 0, "Hook:", 1 },
	};
	struct cli_common *c = &env->common;
	struct argp argp = { .options = all, .parser = parse_arg, .doc = doc };
	int i;

	*c = (struct cli_common){ .verbose = &env->verbose, .json = &env->json };
	c->btf = &env->btf_path;
	c->bpf_stats = &env->bpf_stats;
	c->json_doc = "docs/output-format.md";
	c->see = SEE;
	c->usage_printed = &env->usage_printed;
	argp.children = cli_common_children(c, 4);

	for (i = 0; i < GPIO_HOOK_MAX; i++)
		all[1 + i] = (struct argp_option){
			gpio_hooks[i].name, OPT_HOOK + i, NULL, 0, gpio_hooks[i].help, 1
		};
	memcpy(&all[1 + GPIO_HOOK_MAX], opts, sizeof(opts));

	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, env))
		return env->help ? RUN_DONE : EXIT_USAGE;
	return 0;
}
