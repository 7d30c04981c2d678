// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the run context and the one run sequence (run.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core/cli.h"
#include "core/parse.h"
#include "core/run.h"
#include "core/sys.h"
#include "core/undo.h"

/*
 * The one run of this process, for the two callbacks that get no argument to find it by: the
 * signal handler (which only sets its stop flag) and libbpf's print callback.
 */
static struct run *the_run;

void run_init(struct run *r, const char *mode)
{
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->stats_fd = -1;
	the_run = r;
}

static void on_signal(int sig)
{
	(void)sig;
	if (the_run)
		the_run->stop = 1;
}

__u64 run_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

bool run_nap(const struct run *r, int ms)
{
	/* with no fds, poll() fails only when a signal cut the sleep short: r->stop says why */
	poll(NULL, 0, ms);
	return !r || !r->stop;
}

void run_signals(struct run *r)
{
	the_run = r;
	cli_signals(on_signal);
}

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	(void)level;
	return the_run && the_run->verbose ? vfprintf(stderr, fmt, args) : 0;
}

void run_libbpf_print(struct run *r)
{
	the_run = r;
	libbpf_set_print(print_fn);
}

int run_bpf_stats(struct run *r)
{
	if (r->stats_fd >= 0)
		return 0;
	r->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	return r->stats_fd < 0 ? -1 : 0;
}

struct btf *run_btf(struct run *r, const char *custom, char *why, size_t size)
{
	if (custom || !r)
		return sys_load_btf(custom, why, size);
	/* (none: looked for again, which costs a few failed opens, for its why) */
	if (!r->kernel_btf)
		r->kernel_btf = sys_load_btf(NULL, why, size);
	return r->kernel_btf;
}

void run_btf_put(const struct run *r, struct btf *btf)
{
	if (!r || btf != r->kernel_btf)
		btf__free(btf);
}

void run_finish(struct run *r)
{
	if (r->stats_fd >= 0) {
		close(r->stats_fd);
		r->stats_fd = -1;
	}
	btf__free(r->kernel_btf);
	r->kernel_btf = NULL;
}

/*
 * what a killed run left, put back before the mode takes anything (as root: nobody else can
 * have taken anything); a journal whose run still runs is left to it
 */
static int run_replay(struct run *r, bool replay_only)
{
	char why[WHY_SIZE];
	bool busy = false;

	if (geteuid())
		return 0;
	if (undo_replay(&r->undone, &busy, why, sizeof(why)) && (!busy || replay_only)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (r->undone && !replay_only)
		fprintf(stderr, "gpiolat: removed the leftovers of an earlier run (its undo "
				"journal)\n");
	return 0;
}

/* a step's status: 0 goes on; anything else ends the run with it */
#define STEP(s) ((s) ? (s)(r, ctx) : 0)

int run_mode(struct run *r, const struct mode_ops *ops, void *ctx, int argc, char **argv)
{
	int err;

	run_init(r, ops->name);
	err = ops->parse ? ops->parse(r, ctx, argc, argv) : EXIT_OK;
	if (err < 0)
		return EXIT_OK; /* --help, --version: said, nothing to run */
	if (err)
		return err;
	run_libbpf_print(r);
	run_signals(r);
	err = run_replay(r, ops->replay_only);
	if (!err)
		err = STEP(ops->prepare);
	if (!err)
		err = STEP(ops->enable);
	if (!err)
		err = STEP(ops->go);
	if (!err)
		err = STEP(ops->collect);
	if (!err)
		err = STEP(ops->print);
	if (ops->undo)
		ops->undo(r, ctx);
	if (undo_all(&r->undo) && (!err || err == RUN_DONE))
		err = EXIT_ERROR; /* measured, but the system is not as found */
	run_finish(r);
	the_run = NULL;
	return err == RUN_DONE ? EXIT_OK : err;
}
