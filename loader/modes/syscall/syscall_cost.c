// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: what each tracing method adds to a syscall, natively
 * (docs/syscall-cost.md).
 *
 * A worker process, pinned to one CPU, issues 1-byte read()s of /dev/zero, 1-byte write()s to
 * /dev/null and ioctl(FIONBIO)s, each through one out-of-line function (gpiolat_sc_call(), also
 * the uprobe's target), in batches timed with CLOCK_MONOTONIC. For each method: baseline run,
 * method run, baseline run, ... (each method run between two untraced ones, so that drift
 * cancels); the first batch of every run is discarded. Added cost per syscall = method batch -
 * the mean of the two baseline runs around it. Every method is tried, never guessed from the
 * kernel version; one the kernel lacks is reported "not available: why".
 *
 * Also here: --syscall-hist (gpiolat's syscall-latency histogram on its own, for make bench)
 * and --empty-raw-tp (an empty BPF program held on a raw tracepoint, for the toggle module's
 * micro-benchmark).
 *
 * A table of steps (struct mode_ops) driven by run_mode() (core/run.h): parse; prepare (root,
 * the worker's CPU, the BPF stats; for --syscall-cost the leftovers of a killed run, the worker,
 * our instance); go (for each method: set up, rounds, tear down); print; and the undo step on
 * every way out, which undoes whatever is still set up: tracefs events disabled and our instance
 * removed, kprobe/uprobe events removed, strace/perf/bpftrace and the worker killed, BPF links
 * destroyed (run_mode() closes the BPF stats fd). Each of the three entries is a table of steps
 * of its own (sc_cost_ops here, sc_hist_ops and sc_empty_ops in sc_hist.c), chosen by parse;
 * the mode's steps do what the three share and then call the entry's. Signals only set a flag.
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
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "modes/syscall/syscall_cost.h"
#include "modes/syscall/syscall_cost_int.h"

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

/* ---- --syscall-cost: the steps (CTX: struct sc_ctx) -------------------------------------- */

/* the methods, the worker, our instance (each pushed on r->undo first) */
static int cost_prepare(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct sc_env *env = &c->env;
	struct state *s = &c->s;
	char why[WHY_SIZE];
	bool mounted;
	int i;

	if (!env->any_selected)
		for (i = 0; i < sc_nmethods; i++)
			env->selected[i] = !sc_methods[i].extra;
	if (!env->bt_script)
		env->bt_script = sc_default_script(s->exe, c->script, sizeof(c->script));
	s->t.off = sc_call_offset(s->exe);
	s->t.script = env->bt_script;
	mounted = sc_tracefs_mounted();
	if (!mounted && sys_tracefs_dir())
		snprintf(c->cpu_note, sizeof(c->cpu_note), "; tracefs mounted at %s by gpiolat",
			 sys_tracefs_dir());
	/* a SIGKILLed run's instance and probe events were put back before (run_mode()) */
	if (sc_worker_start(s, &r->undo, env, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	s->t.pid = s->worker;
	s->t.hook = env->hook;
	/* our instance, for the methods on tracefs events (they say why when there is none) */
	if (sys_tracefs_dir() &&
	    target_instance_make(&s->t, &r->undo, INSTANCE, NULL, why, sizeof(why)) && r->verbose)
		fprintf(stderr, "gpiolat: %s\n", why);
	return EXIT_OK;
}

/* each method asked for, in the table's order: set up, its rounds, torn down */
static int cost_go(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	int i;

	for (i = 0; i < sc_nmethods && !r->stop; i++) {
		if (!c->env.selected[i])
			continue;
		if (c->env.verbose)
			fprintf(stderr, "gpiolat: %s\n", sc_methods[i].name);
		if (sc_measure(&c->s, &c->env, i, &c->res[i], &c->untraced)) {
			fprintf(stderr, "gpiolat: %s: %s\n", sc_methods[i].name, c->res[i].why);
			return EXIT_ERROR;
		}
	}
	if (r->stop) {
		fprintf(stderr, "gpiolat: interrupted: nothing of ours is left attached\n");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int cost_print(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;

	(void)r;
	if (c->env.json)
		sc_print_json(&c->env, c->res, &c->untraced);
	else
		sc_print_text(&c->env, c->res, &c->untraced, c->cpu_note);
	return EXIT_OK;
}

static const struct mode_ops sc_cost_ops = {
	.name = "syscall-cost",
	.prepare = cost_prepare,
	.go = cost_go,
	.print = cost_print,
};

/* ---- the mode: what the three entries share, then the entry's own step ------------------- */

static int sc_parse_step(struct run *r, void *ctx, int argc, char **argv)
{
	struct sc_ctx *c = ctx;
	int err = sc_parse_args(&c->env, argc, argv);

	if (err)
		return err;
	r->verbose = c->env.verbose;
	c->sub = c->env.mode == MODE_HIST	  ? &sc_hist_ops :
		 c->env.mode == MODE_EMPTY_RAW_TP ? &sc_empty_ops :
						    &sc_cost_ops;
	return EXIT_OK;
}

/* the entry's step STEP, when it has one */
static int sub_step(int (*step)(struct run *, void *), struct run *r, void *ctx)
{
	return step ? step(r, ctx) : EXIT_OK;
}

/* root, the worker's CPU, our executable, the BPF stats; then the entry's preparation */
static int sc_prepare(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct sc_env *env = &c->env;
	struct state *s = &c->s;
	cpu_set_t set;
	ssize_t len;

	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	if (env->cpu < 0) {
		env->cpu = sc_default_cpu();
	} else if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(env->cpu, &set)) {
		fprintf(stderr, "gpiolat: CPU %d is not one this process may run on\n", env->cpu);
		return EXIT_ERROR;
	}
	len = readlink("/proc/self/exe", s->exe, sizeof(s->exe) - 1);
	s->exe[len > 0 ? len : 0] = '\0';
	s->t.exe = s->exe;
	/* a kernel without BPF_ENABLE_STATS: the figures say that they have no run time */
	if (env->bpf_stats)
		run_bpf_stats(r);
	return sub_step(c->sub->prepare, r, ctx);
}

static int sc_enable(struct run *r, void *ctx)
{
	return sub_step(((struct sc_ctx *)ctx)->sub->enable, r, ctx);
}

static int sc_go(struct run *r, void *ctx)
{
	return sub_step(((struct sc_ctx *)ctx)->sub->go, r, ctx);
}

static int sc_collect(struct run *r, void *ctx)
{
	return sub_step(((struct sc_ctx *)ctx)->sub->collect, r, ctx);
}

static int sc_print(struct run *r, void *ctx)
{
	return sub_step(((struct sc_ctx *)ctx)->sub->print, r, ctx);
}

/* every way out, also after a failed step: the entry's undo, then what all three may hold */
static void sc_undo(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct state *s = &c->s;
	int st, i;

	if (c->sub && c->sub->undo)
		c->sub->undo(r, ctx);
	child_stop(&s->t.child);
	/* the instance itself goes with r->undo (run_mode()) */
	target_instance_free(&s->t, false);
	if (s->worker > 0) {
		kill(s->worker, SIGKILL);
		waitpid(s->worker, &st, 0);
		undo_child_done(&r->undo, s->worker);
		s->worker = 0;
	}
	if (s->cmd_fd >= 0)
		close(s->cmd_fd);
	if (s->done_fd >= 0)
		close(s->done_fd);
	s->cmd_fd = s->done_fd = -1;
	if (s->shm)
		munmap(s->shm, s->shm_size);
	s->shm = NULL;
	for (i = 0; i < sc_nmethods; i++) {
		free(c->res[i].added);
		c->res[i].added = NULL;
	}
}

static const struct mode_ops sc_ops = {
	.name = "syscall-cost",
	.parse = sc_parse_step,
	.prepare = sc_prepare,
	.enable = sc_enable,
	.go = sc_go,
	.collect = sc_collect,
	.print = sc_print,
	.undo = sc_undo,
};

int syscall_cost_main(int argc, char **argv)
{
	struct sc_ctx *c = calloc(1, sizeof(*c));
	struct run run;
	int err;

	if (!c) {
		fprintf(stderr, "gpiolat: out of memory\n");
		return EXIT_ERROR;
	}
	c->t_start = run_now_ns();
	c->env = (struct sc_env){ .rounds = 5, .batches = 20, .iters = 200, .cpu = -1, .hook = -1 };
	c->s.cmd_fd = c->s.done_fd = -1;
	c->s.stop = &run.stop;
	c->s.t = (struct target){ .kind = TGT_SYSCALLS,
				  .run = &run,
				  .instance = INSTANCE,
				  .group = PROBE_GROUP,
				  .fn = "gpiolat_sc_call",
				  .hook = -1 };
	err = run_mode(&run, &sc_ops, c, argc, argv);
	free(c);
	return err;
}
