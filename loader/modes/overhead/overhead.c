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
 * and restored on every way out. Every name we create starts with "gpiolat", so a run after a
 * SIGKILL (or gpiolat --cleanup) finds the leftovers and removes them.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
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
#include <tracefs.h>
#include "core/btf_find.h"
#include "modes/overhead/ov.h"
#include "core/cli.h"
#include "core/parse.h"
#include "core/kmod_reload.h"
#include "core/leftovers.h"
#include "modes/overhead/overhead.h"
#include "core/statedir.h"
#include "core/sys.h"

struct run ov_run;
struct opts ov;
struct target ov_target = { .run = &ov_run, .instance = INSTANCE, .group = KP_SYSTEM };

static void say(const char *fmt, ...)
{
	va_list ap;

	if (ov.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

bool nap(int ms)
{
	poll(NULL, 0, ms);
	return !ov_run.stop;
}

#define SEE "gpiolat --overhead --help"

enum {
	OPT_OVERHEAD = 0x200,
	OPT_CLEANUP,
	OPT_QUICK,
	OPT_JSON,
	OPT_REPS,
	OPT_PULSES,
	OPT_ONLY,
	OPT_BTF,
	OPT_LIST,
	OPT_KMOD,
	OPT_BASELINE,
	OPT_BPF_STATS,
};

static const struct argp_option opts[] = {
	{ "overhead", OPT_OVERHEAD, NULL, 0, "measure what each tracing method adds to a set", 1 },
	{ "cleanup", OPT_CLEANUP, NULL, 0,
	  "remove what an interrupted run left (instance, kprobes, synthetic event, top-level "
	  "tracer) and exit",
	  1 },
	{ "quick", OPT_QUICK, NULL, 0, "3 repetitions of 50-pulse phases (for tests)", 2 },
	{ "reps", OPT_REPS, "N", 0, "repetitions per method (default 5; 2 to 100)", 2 },
	{ "pulses", OPT_PULSES, "N", 0, "pulses per phase (default 100; 20 to 20000)", 2 },
	{ "only", OPT_ONLY, "LIST", 0,
	  "only these methods, comma-separated; NAME* for a prefix (see --list)", 2 },
	{ "list", OPT_LIST, NULL, 0, "list the methods and exit", 2 },
	{ "bpf-stats", OPT_BPF_STATS, NULL, 0,
	  "BPF run time per run of the BPF rows (BPF_ENABLE_STATS, on for the whole run: it adds "
	  "two clock reads to every run, and so to every shift; off by default)",
	  2 },
	{ "baseline", OPT_BASELINE, "FILE.csv", 0,
	  "your own scope figures beside the talk's (the columns of "
	  "data/baseline-klinger-elce2023.csv)",
	  2 },
	{ "json", OPT_JSON, NULL, 0, "JSON output (docs/overhead.md)", 3 },
	{ "btf", OPT_BTF, "FILE", 0, "BTF for CO-RE (as gpiolat --btf)", 3 },
	{ "kmod", OPT_KMOD, "FILE", 0,
	  "the toggle.ko to reload for the trace_printk row (default $GPIOLAT_KMOD)", 3 },
	{ "verbose", 'v', NULL, 0, "libbpf's messages", 3 },
	{ "help", 'h', NULL, 0, "show this help", 3 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long long v;
	int i;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat --overhead");
		exit(EXIT_OK);
	case OPT_OVERHEAD:
		ov.overhead = true;
		break;
	case OPT_CLEANUP:
		ov.cleanup = true;
		break;
	case OPT_QUICK:
		ov.quick = true;
		break;
	case OPT_JSON:
		ov.json = true;
		break;
	case 'v':
		ov.verbose = true;
		break;
	case OPT_BTF:
		ov.btf_path = arg;
		break;
	case OPT_ONLY:
		ov.only = arg;
		break;
	case OPT_BPF_STATS:
		ov.bpf_stats = true;
		break;
	case OPT_BASELINE: {
		char why[WHY + PATH_MAX];

		if (baseline_load(arg, why, sizeof(why))) {
			cli_usage(SEE, &ov.usage_printed, "%s", why);
			return EINVAL;
		}
		break;
	}
	case OPT_KMOD: {
		struct stat st;

		if (access(arg, R_OK) || stat(arg, &st)) {
			cli_usage(SEE, &ov.usage_printed, "cannot read the module '%s': %s", arg,
				  strerror(errno));
			return EINVAL;
		}
		if (!S_ISREG(st.st_mode)) {
			cli_usage(SEE, &ov.usage_printed, "the module '%s' is not a file", arg);
			return EINVAL;
		}
		if (kmod_set_file(arg))
			return ENOMEM;
		break;
	}
	case OPT_LIST:
		for (i = 0; i < ov_nmethods; i++)
			printf("%-26s %-8s %s%s\n", ov_methods[i].name,
			       kind_name(ov_methods[i].kind), ref_label(&ov_methods[i]),
			       ov_methods[i].a.part ? " (a part: only when --only names it)" : "");
		exit(EXIT_OK);
	case OPT_REPS:
		if (parse_count(arg, 2, MAX_REPS, &v)) {
			cli_usage(SEE, &ov.usage_printed, "bad repetition count '%s': want 2 to %d",
				  arg, MAX_REPS);
			return EINVAL;
		}
		ov.reps = v;
		break;
	case OPT_PULSES:
		if (parse_count(arg, 20, 20000, &v)) {
			cli_usage(SEE, &ov.usage_printed,
				  "bad pulses per phase '%s': want 20 to 20000", arg);
			return EINVAL;
		}
		ov.pulses = v;
		break;
	case ARGP_KEY_ARG:
		cli_usage(SEE, &ov.usage_printed, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (ov.overhead && ov.cleanup) {
			cli_usage(SEE, &ov.usage_printed,
				  "--overhead and --cleanup exclude each other");
			return EINVAL;
		}
		if (ov.only) {
			char bad[80];

			if (only_check(ov.only, bad, sizeof(bad))) {
				cli_usage(SEE, &ov.usage_printed,
					  "--only: '%s' selects no method (--list shows them; a "
					  "part is named whole, never by a prefix)",
					  bad);
				return EINVAL;
			}
		}
		break;
	case ARGP_KEY_ERROR:
		cli_key_error(state, SEE, &ov.usage_printed);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool overhead_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--overhead") || cli_wanted(argc, argv, "--cleanup");
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
static int module_state_check(char *why)
{
	char *mode = file_slurp("/sys/module/toggle/parameters/mode");
	char *depth = file_slurp("/sys/kernel/debug/toggle/depth");
	bool chain = false;
	int i, err = 0;

	for (i = 0; i < ov_nmethods; i++)
		if (ov_methods[i].series && !strcmp(ov_methods[i].series, "kprobes") &&
		    only_selected(ov.only, &ov_methods[i]))
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

int overhead_main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg };
	struct context cx = {};
	struct row *rows = NULL;
	struct stat_acc fl = {};
	struct timespec t0, t1;
	bool found, kfound = false;
	char why[WHY];
	int i, n = 0, err = EXIT_ERROR;

	run_init(&ov_run, "overhead");
	ov.reps = -1;
	ov.pulses = -1;
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		return EXIT_USAGE;
	ov.btf_path = btf_find(ov.btf_path);
	ov_target.btf_path = ov.btf_path;
	/* ns to 0.1 ns and R^2 to 4 digits alike */
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	if (ov.reps < 0)
		ov.reps = ov.quick ? 3 : 5;
	if (ov.pulses < 0)
		ov.pulses = ov.quick ? 50 : 100;
	ov_run.verbose = ov.verbose;
	run_libbpf_print(&ov_run);
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root\n");
		return EXIT_ERROR;
	}
	if (!sys_tracefs_dir()) {
		fprintf(stderr, "gpiolat: tracefs is not available (not mounted and cannot be)\n");
		return EXIT_ERROR;
	}
	if (ov.cleanup) {
		bool other = false;

		/* every mode's: --overhead's, --syscall-cost's, study/microbench.sh's */
		i = cleanup_others(&other, why, sizeof(why));
		if (cleanup_all(&found, why, sizeof(why)) || i) {
			fprintf(stderr, "gpiolat: --cleanup: could not remove %s\n", why);
			return EXIT_ERROR;
		}
		printf("gpiolat: %s%s\n",
		       found || other ? "removed the leftovers of an earlier run" :
					"nothing to clean up",
		       tracefs_file_exists(NULL, "kprobe_events") ?
			       "" :
			       " (this kernel has no kprobe events: none to look for)");
		return EXIT_OK;
	}
	/* a run killed in its trace_printk row may have left the module unloaded or changed */
	i = state_dir_open(false, why, sizeof(why));
	if (i < 0) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (i > 0 && kmod_restore_saved(&kfound))
		return EXIT_ERROR;
	if (!toggle_present() || toggle_gpio(&ov_target.gpio)) {
		fprintf(stderr, "gpiolat: --overhead needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
		return EXIT_ERROR;
	}
	if (toggle_enabled() != 0) {
		/* a SIGKILLed run's last pulses end by themselves */
		for (i = 0; i < 100 && toggle_enabled() == 1; i++)
			nap(50);
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: the toggle module is toggling (echo 0 > "
					"/sys/kernel/debug/toggle/enable first)\n");
			return EXIT_ERROR;
		}
	}
	if (module_state_check(why)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	run_signals(&ov_run);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cleanup_all(&found, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: leftovers of an earlier run: could not remove %s\n", why);
		return EXIT_ERROR;
	}
	if ((found || kfound) && !ov.json)
		printf("gpiolat: removed the leftovers of an earlier run\n");
	ov_target.inst = tracefs_instance_create(INSTANCE);
	ov_target.tep = tracefs_local_events_system(NULL, (const char *[]){ "gpio", NULL });
	if (ov.bpf_stats)
		run_bpf_stats(&ov_run);
	read_clock(&cx);
	cx.emulated = sys_emulated();
	cx.bpf_stats = ov_run.stats_fd >= 0;
	rows = calloc(ov_nmethods, sizeof(*rows));
	if (!rows)
		goto out;
	/* warm-up phases, not kept: the first phases after start settle (seen under emulation) */
	for (i = 0; i < WARMUP_PHASES; i++) {
		double d;
		__u64 a = 0, b = 0;

		if (ov_phase(&d, &a, &b)) {
			fprintf(stderr, "gpiolat: the toggle module's warm-up phase failed\n");
			goto out;
		}
		untraced_guess = d;
	}
	for (i = 0; i < ov_nmethods && !ov_run.stop; i++) {
		if (!only_selected(ov.only, &ov_methods[i]))
			continue;
		say("  %-26s ", ov_methods[i].name);
		ov_measure(&ov_methods[i], &rows[n]);
		if (rows[n].measured)
			say("%+9.1f ns per set (95 %% CI +-%.1f, %d reps)\n", rows[n].mean,
			    rows[n].ci, rows[n].reps);
		else
			say("not available: %s\n", rows[n].why);
		n++;
	}
	if (ov_run.stop) {
		fprintf(stderr, "gpiolat: interrupted: everything put back as found\n");
		goto out;
	}
	for (i = 0; i < nbase_phase; i++)
		stat_add(&fl, base_phase[i]);
	cx.untraced_mean = fl.mean;
	cx.floor_sd = stat_sd(&fl);
	cx.floor_n = fl.n;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cx.duration_s = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (ov.json)
		ov_print_json(rows, n, &cx);
	else
		ov_print_text(rows, n, &cx);
	err = EXIT_OK;
out:
	if (toggle_enabled() == 1)
		toggle_stop();
	child_stop(&ov_target.child);
	utoggle_stop();
	run_finish(&ov_run);
	tep_free(ov_target.tep);
	ov_target.tep = NULL;
	tracefs_instance_free(ov_target.inst);
	ov_target.inst = NULL;
	if (cleanup_all(&found, why, sizeof(why))) {
		fprintf(stderr,
			"gpiolat: could not put tracefs back as found (gpiolat --cleanup)\n");
		err = EXIT_ERROR;
	}
	free(rows);
	return err;
}
