// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: --syscall-hist (the syscall-latency histogram alone) and
 * --empty-raw-tp (an empty BPF program held on a raw tracepoint, for the toggle module's
 * micro-benchmark) (syscall_cost_int.h), each with its provider (loader/providers/provider.h).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
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
#include "core/run.h"
#include "modes/syscall/syscall_cost_int.h"
#include "core/jsonout.h"

/* the histogram's totals so far (the provider's read); 0, or -1 */
static int hist_read(struct probe *p, struct gpiolat_hist *out, __u64 *unmatched)
{
	struct schist_read rd = { .hist = out };
	char why[WHY_SIZE];

	if (probe_read(p, &rd, why, sizeof(why)))
		return -1;
	*unmatched = rd.unmatched;
	return 0;
}

/* our peak resident set (VmHWM: this program's, not the parent's before exec), KiB; -1 */
static long peak_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void hist_print(const struct sc_env *env, const struct gpiolat_hist *h, __u64 unmatched,
		       const struct probe_figures *f, __u64 since_start_ns, double span_s)
{
	struct bucket b[GPIOLAT_LOG2_SLOTS];
	struct json_object *o, *a, *x;
	double mean = h->pairs ? (double)h->sum_ns / h->pairs : NAN;
	int n = hist_log2_buckets(h, b, GPIOLAT_LOG2_SLOTS), i;
	char m[32], p50[32], p90[32], p99[32];

	if (env->json) {
		o = json_object_new_object();
		json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
		json_object_object_add(o, "mode", json_object_new_string("syscall-hist"));
		json_object_object_add(o, "hook", json_object_new_string(f->hook));
		json_object_object_add(o, "start", json_object_new_string(f->start));
		json_object_object_add(o, "span_s", json_object_new_double(span_s));
		json_object_object_add(o, "count", json_object_new_uint64(h->pairs));
		json_object_object_add(o, "unmatched", json_object_new_uint64(unmatched));
		json_object_object_add(o, "sum_ns", json_object_new_uint64(h->sum_ns));
		json_object_object_add(o, "mean_ns", json_num(mean));
		json_object_object_add(o, "p50_ns", json_num(buckets_quantile(b, n, 0.5)));
		json_object_object_add(o, "p90_ns", json_num(buckets_quantile(b, n, 0.9)));
		json_object_object_add(o, "p99_ns", json_num(buckets_quantile(b, n, 0.99)));
		json_object_object_add(o, "since_start_ns", json_object_new_uint64(since_start_ns));
		json_object_object_add(o, "peak_rss_kib", json_object_new_int64(peak_rss_kib()));
		a = json_object_new_array();
		for (i = 0; i < n; i++) {
			if (!b[i].count)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "low_ns", json_object_new_uint64(b[i].low));
			json_object_object_add(
				x, "high_ns",
				b[i].high == UINT64_MAX ? NULL : json_object_new_uint64(b[i].high));
			json_object_object_add(x, "count", json_object_new_uint64(b[i].count));
			json_object_array_add(a, x);
		}
		json_object_object_add(o, "log2", a);
		json_print_put(o, JSON_C_TO_STRING_PLAIN);
	} else {
		printf("syscall latency, all threads (%s/sys_enter -> sys_exit, start in %s), log2 "
		       "buckets, %.3f s\n",
		       f->hook, f->start, span_s);
		print_buckets(stdout, b, n, UNIT_NS);
		printf("syscalls: count %llu, mean %s, p50 %s, p90 %s, p99 %s (bucket "
		       "estimates); %llu exits without a stored entry; %.1f ms after start; peak RSS "
		       "%ld KiB\n",
		       (unsigned long long)h->pairs, fmt_time(m, sizeof(m), mean, UNIT_NS),
		       fmt_time(p50, sizeof(p50), buckets_quantile(b, n, 0.5), UNIT_NS),
		       fmt_time(p90, sizeof(p90), buckets_quantile(b, n, 0.9), UNIT_NS),
		       fmt_time(p99, sizeof(p99), buckets_quantile(b, n, 0.99), UNIT_NS),
		       (unsigned long long)unmatched, since_start_ns / 1e6, peak_rss_kib());
	}
	fflush(stdout);
}

/* ---- --syscall-hist: the steps (CTX: struct sc_ctx) -------------------------------------- */

static int hist_enable(struct run *r, void *ctx)
{
	static const struct bpf_args full_bpf = { .variant = SCH_FULL };
	static const struct probe_args full = { .bpf = &full_bpf };
	struct sc_ctx *c = ctx;
	char why[WHY_SIZE];

	(void)r;
	probe_init(&c->hold.p, &prov_bpf_schist, &full, &c->s.t);
	c->s.t.hook = c->env.hook;
	if (probe_setup(&c->hold.p, why, sizeof(why)) || probe_on(&c->hold.p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	/* the hook and the start it chose */
	probe_figures(&c->hold.p, &c->hold.fig);
	return EXIT_OK;
}

/* until -d or a signal; every -i, the interval's histogram */
static int hist_go(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct sc_hold *h = &c->hold;
	const struct sc_env *env = &c->env;
	__u64 now, deadline, next;

	h->t0 = run_now_ns();
	deadline = env->duration_ns ? h->t0 + env->duration_ns : 0;
	next = env->interval_ns ? h->t0 + env->interval_ns : 0;
	if (!env->json && !deadline && !next)
		printf("Tracing syscalls (%s). Hit Ctrl-C to end.\n", h->fig.hook);
	fflush(stdout);
	while (!r->stop) {
		now = run_now_ns();
		if (deadline && now >= deadline)
			break;
		if (next && now >= next) {
			if (!hist_read(&h->p, &h->h, &h->unmatched)) {
				hist_delta(&h->d, &h->h, &h->prev);
				hist_print(env, &h->d, h->unmatched - h->um_prev, &h->fig,
					   run_now_ns() - c->t_start, env->interval_ns / 1e9);
				h->prev = h->h;
				h->um_prev = h->unmatched;
			}
			next += env->interval_ns;
		}
		run_nap(r, 5);
	}
	return EXIT_OK;
}

/* detach, then read the totals */
static int hist_collect(struct run *r, void *ctx)
{
	struct sc_hold *h = &((struct sc_ctx *)ctx)->hold;

	(void)r;
	probe_off(&h->p);
	if (hist_read(&h->p, &h->h, &h->unmatched)) {
		fprintf(stderr, "gpiolat: reading the histogram failed\n");
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int hist_print_step(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct sc_hold *h = &c->hold;

	(void)r;
	if (c->env.interval_ns)
		printf(c->env.json ? "" : "--- totals\n");
	hist_print(&c->env, &h->h, h->unmatched, &h->fig, run_now_ns() - c->t_start,
		   (run_now_ns() - h->t0) / 1e9);
	return EXIT_OK;
}

/* every way out: detached, the programs unloaded (nothing, when enable never ran) */
static void hold_undo(struct run *r, void *ctx)
{
	struct sc_hold *h = &((struct sc_ctx *)ctx)->hold;

	(void)r;
	probe_off(&h->p);
	probe_teardown(&h->p);
}

const struct mode_ops sc_hist_ops = {
	.name = "syscall-hist",
	.enable = hist_enable,
	.go = hist_go,
	.collect = hist_collect,
	.print = hist_print_step,
	.undo = hold_undo,
};

/* ---- --empty-raw-tp: the steps (CTX: struct sc_ctx) --------------------------------------- */

static int empty_enable(struct run *r, void *ctx)
{
	struct sc_ctx *c = ctx;
	struct sc_hold *h = &c->hold;
	char why[WHY_SIZE];

	(void)r;
	h->bargs = (struct bpf_args){ .progs = { "empty_raw_any" },
				      .attach = ATTACH_RAW_TP,
				      .event = c->env.raw_tp };
	h->args = (struct probe_args){ .bpf = &h->bargs };
	probe_init(&h->p, &prov_bpf_empty, &h->args, &c->s.t);
	if (probe_setup(&h->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (probe_on(&h->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s (is the tracepoint there?)\n", why);
		return EXIT_ERROR;
	}
	printf("attached: an empty BPF program on raw tracepoint %s\n", c->env.raw_tp);
	fflush(stdout);
	return EXIT_OK;
}

/* held until -d or a signal */
static int empty_go(struct run *r, void *ctx)
{
	const struct sc_env *env = &((struct sc_ctx *)ctx)->env;
	__u64 deadline = env->duration_ns ? run_now_ns() + env->duration_ns : 0;

	while (!r->stop && (!deadline || run_now_ns() < deadline))
		run_nap(r, 20);
	return EXIT_OK;
}

/* detach, read its runs, unload */
static int empty_collect(struct run *r, void *ctx)
{
	struct sc_hold *h = &((struct sc_ctx *)ctx)->hold;

	(void)r;
	probe_off(&h->p);
	probe_figures(&h->p, &h->fig);
	probe_teardown(&h->p);
	return EXIT_OK;
}

static int empty_print(struct run *r, void *ctx)
{
	const struct probe_figures *f = &((struct sc_ctx *)ctx)->hold.fig;

	if (r->stats_fd >= 0 && f->run_cnt)
		printf("detached: %llu runs, mean %.1f ns per run (BPF_ENABLE_STATS)\n",
		       (unsigned long long)f->run_cnt, (double)f->run_time_ns / f->run_cnt);
	else
		printf("detached: %llu runs\n", (unsigned long long)f->run_cnt);
	return EXIT_OK;
}

const struct mode_ops sc_empty_ops = {
	.name = "empty-raw-tp",
	.enable = empty_enable,
	.go = empty_go,
	.collect = empty_collect,
	.print = empty_print,
	.undo = hold_undo,
};
