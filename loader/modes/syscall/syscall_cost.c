// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: what each tracing method adds to a syscall, natively
 * (docs/syscall-cost.md).
 *
 * A worker process, pinned to one CPU, issues 1-byte read()s of /dev/zero, 1-byte write()s to
 * /dev/null and ioctl(FIONBIO)s, each through one out-of-line function (sc_call(), also the
 * uprobe's target), in batches timed with CLOCK_MONOTONIC. For each method: baseline run,
 * method run, baseline run, ... (each method run between two untraced ones, so that drift
 * cancels); the first batch of every run is discarded. Added cost per syscall = method batch -
 * the mean of the two baseline runs around it. Every method is tried, never guessed from the
 * kernel version; one the kernel lacks is reported "not available: why".
 *
 * Also here: --syscall-hist (gpiolat's syscall-latency histogram on its own, for make bench)
 * and --empty-raw-tp (an empty BPF program held on a raw tracepoint, for the toggle module's
 * micro-benchmark).
 *
 * One fixed path: parse, set up, for each method (set up, rounds, tear down), print, and one
 * cleanup that undoes whatever is still set up: tracefs events disabled and our instance
 * removed, kprobe/uprobe events removed, strace/perf/bpftrace and the worker killed, BPF links
 * destroyed, the BPF stats fd closed. Signals only set a flag.
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
#include "modes/syscall/syscall_cost.h"
#include "modes/syscall/sc.h"
#include "core/leftovers.h"

/*
 * The one variable at file scope: what the signal handler sets. A handler is given no argument
 * to find the run by, so it sets this; the run reads it through its pointer (struct state).
 */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

bool syscall_cost_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--syscall-cost") || !strcmp(argv[i], "--syscall-hist") ||
		    !strncmp(argv[i], "--empty-raw-tp", 14))
			return true;
	}
	return false;
}

static void cleanup(struct state *s)
{
	int st;

	sc_events_off(s);
	sc_kprobe_events_remove(s);
	sc_uprobe_event_remove(s);
	child_stop(&s->tool);
	sc_bpf_unload(s);
	if (s->inst) {
		if (s->inst_created)
			tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->worker > 0) {
		kill(s->worker, SIGKILL);
		waitpid(s->worker, &st, 0);
		s->worker = 0;
	}
	if (s->cmd_fd >= 0)
		close(s->cmd_fd);
	if (s->done_fd >= 0)
		close(s->done_fd);
	if (s->shm)
		munmap(s->shm, s->shm_size);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->stats_fd = -1;
}

int syscall_cost_main(int argc, char **argv)
{
	struct env env = { .rounds = 5, .batches = 20, .iters = 200, .cpu = -1, .hook = -1 };
	struct state s = { .cmd_fd = -1, .done_fd = -1, .stats_fd = -1, .stop = &stop_requested };
	struct result res[SC_NMETHODS];
	struct stat_acc untraced = {};
	char why[WHY_SIZE], script[PATH_MAX], cpu_note[64] = "";
	__u64 t_start = sc_mono_ns();
	bool mounted;
	cpu_set_t set;
	ssize_t len;
	int err = EXIT_ERROR, i;

	memset(res, 0, sizeof(res));
	if (argp_parse(&sc_argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &env))
		return EXIT_USAGE;
	sc_libbpf_print(env.verbose);
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	if (env.cpu < 0) {
		env.cpu = sc_default_cpu();
	} else if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(env.cpu, &set)) {
		fprintf(stderr, "gpiolat: CPU %d is not one this process may run on\n", env.cpu);
		return EXIT_ERROR;
	}
	cli_signals(on_signal);

	len = readlink("/proc/self/exe", s.exe, sizeof(s.exe) - 1);
	s.exe[len > 0 ? len : 0] = '\0';
	if (env.bpf_stats)
		s.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (env.mode == MODE_HIST) {
		err = sc_run_hist(&s, &env, t_start);
		goto cleanup;
	}
	if (env.mode == MODE_EMPTY_RAW_TP) {
		err = sc_run_empty_raw_tp(&s, &env);
		goto cleanup;
	}

	if (!env.any_selected)
		for (i = 0; i < SC_NMETHODS; i++)
			env.selected[i] = !sc_methods[i].extra;
	if (!env.bt_script)
		env.bt_script = sc_default_script(s.exe, script, sizeof(script));
	s.sc_call_off = sc_call_offset(s.exe);
	mounted = sc_tracefs_mounted();
	if (!mounted && tracefs_tracing_dir())
		snprintf(cpu_note, sizeof(cpu_note), "; tracefs mounted at %s by gpiolat",
			 tracefs_tracing_dir());
	/* a SIGKILLed run's instance and probe events: ours would not be new, theirs in the way */
	if (tracefs_tracing_dir()) {
		bool found = false;

		if (tracefs_leftovers_remove(INSTANCE, PROBE_GROUP, &found, why, sizeof(why))) {
			fprintf(stderr,
				"gpiolat: leftovers of an earlier run: could not remove %s\n", why);
			goto cleanup;
		}
		if (found && !env.json)
			printf("gpiolat: removed the leftovers of an earlier run\n");
	}
	if (sc_worker_start(&s, &env, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	for (i = 0; i < SC_NMETHODS && !*s.stop; i++) {
		if (!env.selected[i])
			continue;
		if (env.verbose)
			fprintf(stderr, "gpiolat: %s\n", sc_methods[i].name);
		if (sc_measure(&s, &env, i, &res[i], &untraced)) {
			fprintf(stderr, "gpiolat: %s: %s\n", sc_methods[i].name, res[i].why);
			goto cleanup;
		}
	}
	if (*s.stop) {
		fprintf(stderr, "gpiolat: interrupted: nothing of ours is left attached\n");
		goto cleanup;
	}
	if (env.json)
		sc_print_json(&env, res, &untraced);
	else
		sc_print_text(&env, res, &untraced, cpu_note);
	err = EXIT_OK;
cleanup:
	cleanup(&s);
	for (i = 0; i < SC_NMETHODS; i++)
		free(res[i].added);
	return err;
}
