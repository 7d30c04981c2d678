// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the measurement: baseline run, method run, baseline run, ... for one
 * method (syscall_cost_int.h).
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
#include "core/engine.h"

/* the p-quantile of sorted values, linear between closest ranks */
double sc_quantile(const double *v, int n, double p)
{
	double rank;
	int i;

	if (!n)
		return NAN;
	rank = p * (n - 1);
	i = (int)rank;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (v[i + 1] - v[i]) * (rank - i);
}

/*
 * A run's figure: the median of its batches. On shared CPUs a batch that was preempted costs
 * 10x the others; one in a baseline run would shift every difference of two rounds.
 */
static double run_figure(const double *v, int n)
{
	double *c = malloc(n * sizeof(*c)), m;

	if (!c || !n) {
		free(c);
		return NAN;
	}
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = sc_quantile(c, n, 0.5);
	free(c);
	return m;
}

/* ---- the measurement --------------------------------------------------------------------- */

/* one method's alternation: the runs' batches, and where they go */
struct sc_alt {
	struct state *s;
	const struct sc_env *env;
	const struct sc_method *m;
	struct result *r;
	struct stat_acc *untraced;
	struct probe pm; /* the method's provider at work */
	double *base, *meth;
	char why[WHY_SIZE];
};

/* an untraced run: its figure, its batches into the untraced figures */
static int alt_reference(void *ctx, double *fig)
{
	struct sc_alt *a = ctx;
	long i;

	if (sc_worker_run(a->s, a->env, a->base, a->why, sizeof(a->why)))
		return -1;
	*fig = run_figure(a->base, a->env->batches);
	for (i = 0; i < a->env->batches; i++)
		stat_add(a->untraced, a->base[i]);
	return 0;
}

static int alt_attach(void *ctx, int rep)
{
	struct sc_alt *a = ctx;

	a->why[0] = '\0';
	if (!probe_on(&a->pm, a->why, sizeof(a->why)))
		return 0;
	if (!a->why[0])
		snprintf(a->why, sizeof(a->why), "switching %s on failed: %s", a->m->name,
			 strerror(errno ?: EIO));
	return -1;
}

static int alt_run(void *ctx, double *fig)
{
	struct sc_alt *a = ctx;

	if (sc_worker_run(a->s, a->env, a->meth, a->why, sizeof(a->why)))
		return -1;
	*fig = run_figure(a->meth, a->env->batches);
	return 0;
}

static int alt_detach(void *ctx)
{
	struct sc_alt *a = ctx;

	probe_off(&a->pm);
	return 0;
}

static void alt_round(void *ctx, int rep, double bprev, double fig, double bnext)
{
	struct sc_alt *a = ctx;
	struct result *r = a->r;
	double b = (bprev + bnext) / 2;
	long i;

	for (i = 0; i < a->env->batches; i++) {
		stat_add(&r->traced, a->meth[i]);
		r->added[r->nadded++] = a->meth[i] - b;
	}
	if (r->rounds.d.n < MAX_ROUNDS)
		r->round_added[r->rounds.d.n] = fig - b;
	alt_stat_add(&r->rounds, rep, bprev, fig, bnext);
}

/* the method's programs' figures, then its provider torn down */
static void teardown(struct sc_alt *a)
{
	probe_figures(&a->pm, &a->r->fig);
	probe_off(&a->pm);
	probe_teardown(&a->pm);
}

/* the alternation for one method (loader/core/engine.c) */
int sc_measure(struct state *s, const struct sc_env *env, int mi, struct result *r,
	       struct stat_acc *untraced)
{
	struct sc_alt a = {
		.s = s,
		.env = env,
		.m = &sc_methods[mi],
		.r = r,
		.untraced = untraced,
	};
	struct alternation alt = {
		.reps = env->rounds,
		.stop = s->stop,
		.ctx = &a,
		.reference = alt_reference,
		.on = alt_attach,
		.phase = alt_run,
		.off = alt_detach,
		.repetition = alt_round,
	};
	int err = -1, rd;

	a.base = calloc(env->batches, sizeof(*a.base));
	a.meth = calloc(env->batches, sizeof(*a.meth));
	r->added = calloc(env->rounds * env->batches, sizeof(*r->added));
	if (!a.base || !a.meth || !r->added) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		goto out;
	}
	probe_init(&a.pm, a.m->prov, &a.m->a, &s->t);
	if (probe_setup(&a.pm, a.why, sizeof(a.why))) {
		snprintf(r->why, sizeof(r->why), "not available: %s", a.why);
		teardown(&a);
		err = 0;
		goto out;
	}
	switch (alternate(&alt, &rd)) {
	case ALT_DONE:
		break;
	case ALT_FAILED_ON:
		if (rd == 0 && !*s->stop) {
			/* the first attach failing: the kernel lacks it */
			snprintf(r->why, sizeof(r->why), "not available: %s", a.why);
			teardown(&a);
			memset(&r->rounds, 0, sizeof(r->rounds));
			err = 0;
			goto out;
		}
		goto fail;
	case ALT_STOPPED:
		snprintf(a.why, sizeof(a.why), "interrupted");
		goto fail;
	default:
		goto fail;
	}
	teardown(&a);
	qsort(r->added, r->nadded, sizeof(*r->added), cmp_double);
	r->stats = s->t.run->stats_fd >= 0;
	r->done = true;
	err = 0;
	goto out;
fail:
	snprintf(r->why, sizeof(r->why), "failed: %s", a.why);
	teardown(&a);
out:
	free(a.base);
	free(a.meth);
	return err;
}
