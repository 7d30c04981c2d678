// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: what each tracing method adds to one GPIO set, in-system.
 *
 * The toggle module toggles in the talk's burst mode and times its own batches
 * (/sys/kernel/debug/toggle/batches: ns per set = ns / (2 * pulses)). For each method the run
 * alternates phases of exactly P pulses: reference, method, reference, ..., reference (the
 * reference is "nothing attached", or the talk's own reference for that row, e.g. the bare
 * event under a filter). A phase's figure is the median of its batches' ns per set after the
 * first WARMUP batches (emulated batches have outliers of hundreds of us: a median, not a
 * mean). Repetition i's overhead is method_i - (ref_i + ref_i+1) / 2; the report gives their
 * mean and t-based 95 % confidence interval over the repetitions.
 *
 * Everything goes through libtracefs, in a tracefs instance of our own ("gpiolat") where the
 * kernel allows; what only the top level has (function_graph) is saved to a state file first
 * and restored on every way out. Everything taken is pushed on the run's undo stack first
 * (core/undo.h), whose journal on disk lets a run after a SIGKILL (or gpiolat --cleanup) put
 * it back.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "core/btf_find.h"
#include "modes/overhead/overhead_int.h"
#include "core/cli.h"
#include "core/files.h"
#include "core/parse.h"
#include "core/kmod_reload.h"
#include "modes/overhead/overhead.h"
#include "core/statedir.h"
#include "core/sys.h"
#include "core/gpio_bpf.h"

static void say(const struct ov *ov, const char *fmt, ...)
{
	va_list ap;

	if (ov->o.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

#define SEE "gpiolat --overhead --help"

enum {
	OPT_OVERHEAD = 0x200,
	OPT_QUICK,
	OPT_REPS,
	OPT_PULSES,
	OPT_ONLY,
	OPT_LIST,
	OPT_KMOD,
	OPT_BASELINE,
	OPT_USER_LINE,
};

static const struct argp_option opts[] = {
	{ "overhead", OPT_OVERHEAD, NULL, 0, "measure what each tracing method adds to a set", 1 },
	{ "quick", OPT_QUICK, NULL, 0, "3 repetitions of 50-pulse phases (for tests)", 2 },
	{ "reps", OPT_REPS, "N", 0, "repetitions per method (default 5; 2 to 100)", 2 },
	{ "pulses", OPT_PULSES, "N", 0, "pulses per phase (default 100; 20 to 20000)", 2 },
	{ "only", OPT_ONLY, "LIST", 0,
	  "only these methods, comma-separated; NAME* for a prefix (see --list)", 2 },
	{ "list", OPT_LIST, NULL, 0, "list the methods and exit (with --json: one method a line)",
	  2 },
	{ "user-line", OPT_USER_LINE, "OFFSET|module", 0,
	  "the line the user-space rows' utoggle toggles: OFFSET, a free output line of the "
	  "module's chip (default on toggle-vchip: its first free line; on a real controller none: "
	  "name one), or 'module': the module's own line, the module unloaded for each user row "
	  "and loaded back after it (needs --kmod)",
	  2 },
	{ "baseline", OPT_BASELINE, "FILE.csv", 0,
	  "your own scope figures beside the talk's (the columns of "
	  "data/baseline-klinger-elce2023.csv)",
	  2 },
	{ "kmod", OPT_KMOD, "FILE", 0,
	  "the toggle.ko to reload for the trace_printk row (default $GPIOLAT_KMOD)", 3 },
	{ "help", 'h', NULL, 0, "show this help", 3 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct ov *ctx = state->input;
	struct opts *o = &ctx->o;
	long long v;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat --overhead");
		/* said: the parse ends here, the run with 0 (overhead_parse) */
		ctx->done = true;
		return EINVAL;
	case OPT_OVERHEAD:
		o->overhead = true;
		break;
	case OPT_QUICK:
		o->quick = true;
		break;
	case OPT_ONLY:
		o->only = arg;
		break;
	case OPT_USER_LINE:
		if (strcmp(arg, "module") && parse_count(arg, 0, 1023, &v)) {
			cli_usage(
				SEE, &o->usage_printed,
				"bad --user-line '%s': want a line's offset (0 to 1023) or 'module'",
				arg);
			return EINVAL;
		}
		o->user_line = arg;
		break;
	case OPT_BASELINE: {
		char why[WHY + PATH_MAX];

		if (ov_baseline_load(&ctx->user, arg, why, sizeof(why))) {
			cli_usage(SEE, &o->usage_printed, "%s", why);
			return EINVAL;
		}
		break;
	}
	case OPT_KMOD: {
		char why[PATH_MAX + 80];

		if (file_arg_check("--kmod", arg, why, sizeof(why))) {
			cli_usage(SEE, &o->usage_printed, "%s", why);
			return EINVAL;
		}
		if (kmod_set_file(arg))
			return ENOMEM;
		break;
	}
	case OPT_LIST:
		o->list = true; /* said at the end: --json may follow */
		break;
	case OPT_REPS:
		if (parse_count(arg, 2, MAX_REPS, &v)) {
			cli_usage(SEE, &o->usage_printed, "bad repetition count '%s': want 2 to %d",
				  arg, MAX_REPS);
			return EINVAL;
		}
		o->reps = v;
		break;
	case OPT_PULSES:
		if (parse_count(arg, 20, 20000, &v)) {
			cli_usage(SEE, &o->usage_printed,
				  "bad pulses per phase '%s': want 20 to 20000", arg);
			return EINVAL;
		}
		o->pulses = v;
		break;
	case ARGP_KEY_ARG:
		cli_usage(SEE, &o->usage_printed, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->common;
		break;
	case ARGP_KEY_END:
		if (o->list) {
			ov_list_print(stdout, o->json);
			ctx->done = true; /* said, as --help */
			return EINVAL;
		}
		if (o->only) {
			char bad[80];

			if (ov_only_check(o->only, bad, sizeof(bad))) {
				cli_usage(SEE, &o->usage_printed,
					  "--only: '%s' selects no method (--list shows them; a "
					  "part is named whole, never by a prefix)",
					  bad);
				return EINVAL;
			}
		}
		break;
	case ARGP_KEY_ERROR:
		if (!ctx->done)
			cli_key_error(state, SEE, &o->usage_printed);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool overhead_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--overhead");
}

/* ---- main ----------------------------------------------------------------------------------- */

static void read_clock(struct context *cx)
{
	char *s = file_slurp("/sys/kernel/debug/toggle/clock"), *p;
	unsigned long long res = 0;

	snprintf(cx->clock, sizeof(cx->clock), "%s", s ? strtok(s, "\n") ?: "" : "unknown");
	p = strstr(cx->clock, "resolution_ns=");
	if (p) {
		errno = 0;
		res = strtoull(p + 14, NULL, 10);
		if (errno)
			res = 0;
	}
	cx->resolution_ns = res;
	free(s);
}

/*
 * The module as the rows need it: the talk's burst mode (the phases are its timed bursts; the
 * trace_printk row reloads it itself), and depth 10 for the kprobes series (kprobes-k probes
 * toggle_chain_1..k, which a set only enters at depth 10). 0, or -1 and why.
 */
static int module_state_check(const struct ov *ov, char *why)
{
	char *mode = file_slurp("/sys/module/toggle/parameters/mode");
	char *depth = file_slurp("/sys/kernel/debug/toggle/depth");
	bool chain = false;
	int i, err = 0;

	for (i = 0; i < ov_nmethods; i++)
		if (ov_methods[i].series && !strcmp(ov_methods[i].series, "kprobes") &&
		    ov_only_selected(ov->o.only, &ov_methods[i]))
			chain = true;
	if (!mode || !depth) {
		snprintf(why, WHY, "cannot read the toggle module's mode and depth");
		err = -1;
	} else if (strcmp(mode, "burst\n")) {
		snprintf(
			why, WHY,
			"--overhead measures the toggle module's burst mode, and it is loaded with "
			"mode=%.*s (load it with mode=burst)",
			(int)strcspn(mode, "\n"), mode);
		err = -1;
	} else if (chain && strcmp(depth, "10\n")) {
		snprintf(
			why, WHY,
			"the kprobes rows probe toggle_chain_1..10, which a set enters only at the "
			"toggle module's depth 10, and it is %.*s (echo 10 > /sys/kernel/debug/toggle/depth)",
			(int)strcspn(depth, "\n"), depth);
		err = -1;
	}
	free(mode);
	free(depth);
	return err;
}

/* ---- the run: parse, prepare, go, collect, print, undo (core/run.h) -------------------------- */

static int overhead_parse(struct run *r, void *c, int argc, char **argv)
{
	struct ov *ov = c;
	struct opts *o = &ov->o;
	struct argp argp = { .options = opts, .parser = parse_arg };
	int err;

	o->common =
		(struct cli_common){ &o->verbose,	 &o->json, &o->btf_path,     &o->bpf_stats,
				     "docs/overhead.md", SEE,	   &o->usage_printed };
	argp.children = cli_common_children(&o->common, 3);

	ov->run = r;
	ov->target.run = r;
	ov->o.reps = -1;
	ov->o.pulses = -1;
	err = argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, ov);
	if (ov->done)
		return RUN_DONE; /* --help, --list: said, exit 0 */
	if (err)
		return EXIT_USAGE;
	ov->o.btf_path = btf_find(ov->o.btf_path);
	ov->target.btf_path = ov->o.btf_path;
	/* none at all (Raspberry Pi OS): gpiolat's programs without CO-RE, said in one line */
	if (gpio_bpf_no_btf(r, ov->o.btf_path))
		gpio_bpf_no_btf_say();
	/* ns to 0.1 ns and R^2 to 4 digits alike */
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	if (ov->o.reps < 0)
		ov->o.reps = ov->o.quick ? 3 : 5;
	if (ov->o.pulses < 0)
		ov->o.pulses = ov->o.quick ? 50 : 100;
	r->verbose = ov->o.verbose;
	return EXIT_OK;
}

/*
 * root and tracefs (a killed run's leftovers were put back before: run_mode()), the module
 * checked (idle, burst mode, depth), our instance made (its removal pushed first), the clock read
 */
static int overhead_prepare(struct run *r, void *c)
{
	struct ov *ov = c;
	char why[WHY];
	int i;

	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root\n");
		return EXIT_ERROR;
	}
	if (!sys_tracefs_dir()) {
		fprintf(stderr, "gpiolat: tracefs is not available (not mounted and cannot be)\n");
		return EXIT_ERROR;
	}
	if (!toggle_present() || toggle_gpio(&ov->target.gpio)) {
		fprintf(stderr, "gpiolat: --overhead needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
		return EXIT_ERROR;
	}
	if (toggle_enabled() != 0) {
		/* a SIGKILLed run's last pulses end by themselves */
		for (i = 0; i < 100 && toggle_enabled() == 1 && run_nap(ov->run, 50); i++)
			;
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: the toggle module is toggling (echo 0 > "
					"/sys/kernel/debug/toggle/enable first)\n");
			return EXIT_ERROR;
		}
	}
	if (module_state_check(ov, why) || ov_utoggle_lines(ov, why)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	ov->t0 = run_now_ns();
	ov->started = true; /* from here on, undo stops what it started */
	/* our instance, for the methods on tracefs events (they say why when there is none) */
	if (target_instance_make(&ov->target, &r->undo, INSTANCE, (const char *[]){ "gpio", NULL },
				 why, sizeof(why)) &&
	    r->verbose)
		fprintf(stderr, "gpiolat: %s\n", why);
	if (ov->o.bpf_stats)
		run_bpf_stats(r);
	read_clock(&ov->cx);
	ov->cx.emulated = sys_emulated();
	ov->cx.bpf_stats = r->stats_fd >= 0;
	ov->rows = calloc(ov_nmethods, sizeof(*ov->rows));
	return ov->rows ? EXIT_OK : EXIT_ERROR;
}

/* the warm-up phases, then each method selected, in the table's order */
static int overhead_go(struct run *r, void *c)
{
	struct ov *ov = c;
	struct row *row;
	int i;

	/* warm-up phases, not kept: the first phases after start settle (seen under emulation) */
	for (i = 0; i < WARMUP_PHASES; i++) {
		double d;
		__u64 a = 0, b = 0;

		if (ov_phase(ov, &d, &a, &b)) {
			fprintf(stderr, "gpiolat: the toggle module's warm-up phase failed\n");
			return EXIT_ERROR;
		}
		ov->untraced_guess = d;
	}
	for (i = 0; i < ov_nmethods && !r->stop; i++) {
		if (!ov_only_selected(ov->o.only, &ov_methods[i]))
			continue;
		row = &ov->rows[ov->nrows++];
		say(ov, "  %-26s ", ov_methods[i].name);
		ov_measure(ov, &ov_methods[i], row);
		if (row->measured)
			say(ov, "%+9.1f ns per set (95 %% CI +-%.1f, %d reps)\n", row->mean,
			    row->ci, row->reps);
		else
			say(ov, "not %s: %s\n", row->not_fired ? "measured" : "available",
			    row->why);
	}
	if (r->stop) {
		fprintf(stderr, "gpiolat: interrupted: everything put back as found\n");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* the noise floor, the duration, and what the report says of the run */
static int overhead_collect(struct run *r, void *c)
{
	struct ov *ov = c;
	struct stat_acc fl = {};
	int i;

	(void)r;
	for (i = 0; i < ov->nbase_phase; i++)
		stat_add(&fl, ov->base_phase[i]);
	ov->cx.untraced_mean = fl.mean;
	ov->cx.floor_sd = stat_sd(&fl);
	ov->cx.floor_n = fl.n;
	ov->cx.duration_s = (run_now_ns() - ov->t0) / 1e9;
	ov->cx.pulses = ov->o.pulses;
	ov->cx.reps = ov->o.reps;
	ov->cx.user_base = ov->user_base;
	ov->cx.user_csv = ov->user.text;
	ov->cx.user_csv_path = ov->user.path;
	return EXIT_OK;
}

static int overhead_print(struct run *r, void *c)
{
	struct ov *ov = c;

	(void)r;
	if (ov->o.json)
		ov_print_json(ov->rows, ov->nrows, &ov->cx);
	else
		ov_print_text(ov->rows, ov->nrows, &ov->cx);
	return EXIT_OK;
}

/* every way out: the module stopped, utoggle gone (then run_mode() replays r->undo: the
 * instance, the events, the module, the top-level tracer) */
static void overhead_undo(struct run *r, void *c)
{
	struct ov *ov = c;

	if (!ov->started)
		return;
	if (toggle_enabled() == 1)
		toggle_stop();
	child_stop(&ov->target.child);
	ov_utoggle_stop(ov);
	run_finish(r);
	target_instance_free(&ov->target, false);
	kopt_close(&ov->kopt);
}

static const struct mode_ops overhead_ops = {
	.name = "overhead",
	.parse = overhead_parse,
	.prepare = overhead_prepare,
	.go = overhead_go,
	.collect = overhead_collect,
	.print = overhead_print,
	.undo = overhead_undo,
};

int overhead_main(int argc, char **argv)
{
	struct ov *ov = calloc(1, sizeof(*ov));
	struct run run;
	int err;

	if (!ov) {
		fprintf(stderr, "gpiolat: out of memory\n");
		return EXIT_ERROR;
	}
	ov->target.instance = INSTANCE;
	ov->target.group = KP_SYSTEM;
	ov->ut.pid = -1;
	err = run_mode(&run, &overhead_ops, ov, argc, argv);
	free(ov->rows);
	free(ov->user.text);
	free(ov);
	return err;
}
