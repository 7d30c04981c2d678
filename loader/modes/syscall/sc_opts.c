// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the options (argp) of --syscall-cost, --syscall-hist and --empty-raw-tp
 * (syscall_cost_int.h).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "modes/syscall/syscall_cost_int.h"
#include "core/cli.h"
#include "core/files.h"

#define SEE "gpiolat --syscall-cost --help"

static const char sc_doc[] =
	"gpiolat --syscall-cost: what each tracing method adds to a syscall, on this machine.\n"
	"\n"
	"A worker pinned to one CPU issues 1-byte reads of /dev/zero, 1-byte writes to /dev/null "
	"and ioctls in timed batches; each method's runs alternate with untraced ones. Methods "
	"the kernel lacks are reported 'not available: why'.\n"
	"\n"
	"  gpiolat --syscall-cost                     every method (about a minute)\n"
	"  gpiolat --syscall-cost -m bpf-hist -m bpf-empty-tp-btf --rounds 10\n"
	"  gpiolat --syscall-hist -d 1s               the syscall-latency histogram alone\n"
	"  gpiolat --empty-raw-tp toggle_bench -d 10s  an empty BPF program on a raw tracepoint\n"
	"\n"
	"Methods: control syscall-events raw-syscalls-event bpf-empty-tp bpf-empty-raw-tp "
	"bpf-empty-tp-btf bpf-hist kprobe-event bpf-kprobe uprobe-event bpf-uprobe strace perf-trace "
	"bpftrace (the default: all of these); only with -m: bpf-hist-naive bpf-hist-tp-btf "
	"bpf-hist-clock bpf-hist-start.\n"
	"\n"
	"EXIT STATUS: 0 done, 1 error, 2 bad usage.\n"
	"\n"
	"OPTIONS:";

enum {
	O_COST = 0x200,
	O_HIST,
	O_EMPTY,
	O_ROUNDS,
	O_BATCHES,
	O_ITERS,
	O_CPU,
	O_SCRIPT,
	O_HOOK,
};

static const struct argp_option sc_opts[] = {
	{ "syscall-cost", O_COST, NULL, 0, "measure what each method adds to a syscall", 1 },
	{ "syscall-hist", O_HIST, NULL, 0,
	  "only the syscall-latency histogram of all threads, for -d", 1 },
	{ "empty-raw-tp", O_EMPTY, "TRACEPOINT", 0,
	  "hold an empty BPF program on this raw tracepoint for -d (or until Ctrl-C)", 1 },
	{ "method", 'm', "NAME", 0, "only this method (repeatable)", 2 },
	{ "rounds", O_ROUNDS, "N", 0, "traced runs per method, each between untraced ones (5)", 2 },
	{ "batches", O_BATCHES, "N", 0, "timed batches per run (20)", 2 },
	{ "batch", O_ITERS, "N", 0, "read+write+ioctl triples per batch (200)", 2 },
	{ "cpu", O_CPU, "N", 0, "the worker's CPU (default: the last one allowed)", 2 },
	{ "bpftrace-script", O_SCRIPT, "FILE", 0,
	  "the bpftrace method's script (default: ply/syscall-hist.bt of the project)", 2 },
	{ "hook", O_HOOK, "HOOK", 0,
	  "the histogram's hook: raw_tp, tp_btf or tp (default: the cheapest that loads)", 2 },
	{ "duration", 'd', "TIME", 0, "--syscall-hist, --empty-raw-tp: how long (N[ns|us|ms|s|m])",
	  3 },
	{ "interval", 'i', "TIME", 0, "--syscall-hist: print a histogram every TIME", 3 },
	{ "help", 'h', NULL, 0, "show this help", 3 },
	{},
};

/* a long in [min, max]: parse_count() for the long fields of struct sc_env */
static int parse_long(const char *s, long min, long max, long *out)
{
	long long v;

	if (parse_count(s, min, max, &v))
		return -1;
	*out = v;
	return 0;
}

static error_t sc_parse(int key, char *arg, struct argp_state *state)
{
	struct sc_env *env = state->input;
	long v;
	int i;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat");
		/* said: the parse ends here, the run with 0 (sc_parse_args) */
		env->help = true;
		return EINVAL;
	case O_COST:
		env->mode = MODE_COST;
		break;
	case O_HIST:
		env->mode = MODE_HIST;
		break;
	case O_EMPTY:
		env->mode = MODE_EMPTY_RAW_TP;
		env->raw_tp = arg;
		if (!*arg || strlen(arg) > 120) {
			cli_usage(SEE, &env->usage_printed, "bad tracepoint name '%s'", arg);
			return EINVAL;
		}
		break;
	case 'm':
		for (i = 0; i < sc_nmethods; i++)
			if (!strcmp(arg, sc_methods[i].name))
				break;
		if (i == sc_nmethods) {
			cli_usage(SEE, &env->usage_printed, "unknown method '%s'", arg);
			return EINVAL;
		}
		env->selected[i] = true;
		env->any_selected = true;
		break;
	case O_ROUNDS:
		if (parse_long(arg, 1, MAX_ROUNDS, &env->rounds)) {
			cli_usage(SEE, &env->usage_printed, "bad round count '%s': want 1 to %d",
				  arg, MAX_ROUNDS);
			return EINVAL;
		}
		break;
	case O_BATCHES:
		if (parse_long(arg, 2, MAX_BATCHES, &env->batches)) {
			cli_usage(SEE, &env->usage_printed, "bad batch count '%s': want 2 to %d",
				  arg, MAX_BATCHES);
			return EINVAL;
		}
		break;
	case O_ITERS:
		if (parse_long(arg, 1, 1000000, &env->iters)) {
			cli_usage(SEE, &env->usage_printed,
				  "bad batch size '%s': want 1 to 1000000", arg);
			return EINVAL;
		}
		break;
	case O_CPU:
		if (parse_long(arg, 0, CPU_SETSIZE - 1, &v)) {
			cli_usage(SEE, &env->usage_printed, "bad CPU '%s'", arg);
			return EINVAL;
		}
		env->cpu = v;
		break;
	case O_SCRIPT: {
		char why[PATH_MAX + 80];

		/* bpftrace reads it: a FIFO would hold it (and the run) before it is ready */
		if (file_arg_check("--bpftrace-script", arg, why, sizeof(why))) {
			cli_usage(SEE, &env->usage_printed, "%s", why);
			return EINVAL;
		}
		env->bt_script = arg;
		break;
	}
	case O_HOOK:
		for (i = 0; i < SCH_HOOK_MAX; i++)
			if (!strcmp(arg, sch_hook_names[i]))
				break;
		if (i == SCH_HOOK_MAX) {
			cli_usage(SEE, &env->usage_printed,
				  "unknown hook '%s': want tp_btf, raw_tp or tp", arg);
			return EINVAL;
		}
		env->hook = i;
		break;
	case 'd':
		if (cli_time("duration", arg, &env->duration_ns, SEE, &env->usage_printed))
			return EINVAL;
		break;
	case 'i':
		if (cli_time("interval", arg, &env->interval_ns, SEE, &env->usage_printed))
			return EINVAL;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->common;
		break;
	case ARGP_KEY_ARG:
		cli_usage(SEE, &env->usage_printed, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (env->mode == MODE_COST && (env->duration_ns || env->interval_ns)) {
			cli_usage(SEE, &env->usage_printed,
				  "-d and -i are for --syscall-hist and --empty-raw-tp");
			return EINVAL;
		}
		if (env->mode != MODE_COST && env->any_selected) {
			cli_usage(SEE, &env->usage_printed, "-m is for --syscall-cost");
			return EINVAL;
		}
		break;
	case ARGP_KEY_ERROR:
		if (!env->help)
			cli_key_error(state, SEE, &env->usage_printed);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* the project's ply/syscall-hist.bt, found from our executable (out/bin/gpiolat) */
const char *sc_default_script(const char *exe, char *buf, size_t size)
{
	char dir[PATH_MAX - 32], *slash;
	int i;

	snprintf(dir, sizeof(dir), "%.*s", (int)sizeof(dir) - 1, exe);
	for (i = 0; i < 4; i++) {
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(buf, size, "%s/ply/syscall-hist.bt", dir);
		if (!access(buf, R_OK))
			return buf;
	}
	return NULL;
}

/* the worker's CPU: the last one we may run on */
int sc_default_cpu(void)
{
	cpu_set_t set;
	int i, cpu = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	return cpu;
}

bool sc_tracefs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " tracefs ") != NULL;
	fclose(f);
	return found;
}

int sc_parse_args(struct sc_env *env, int argc, char **argv)
{
	struct argp argp = { .options = sc_opts, .parser = sc_parse, .doc = sc_doc };
	int err;

	/* no --btf: the worker's syscalls and the tools need none of gpiolat's CO-RE */
	env->common = (struct cli_common){ .verbose = &env->verbose,
					   .json = &env->json,
					   .bpf_stats = &env->bpf_stats };
	env->common.json_doc = "docs/syscall-cost.md";
	env->common.see = SEE;
	env->common.usage_printed = &env->usage_printed;
	argp.children = cli_common_children(&env->common, 3);
	err = argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, env);

	if (env->help)
		return RUN_DONE;
	return err ? EXIT_USAGE : EXIT_OK;
}
