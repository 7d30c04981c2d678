// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: --syscall-hist (the syscall-latency histogram alone) and --empty-raw-tp (an empty
 * BPF program held on a raw tracepoint, for the toggle module's micro-benchmark) (sc.h).
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
#include "modes/syscall/sc.h"
#include "core/jsonout.h"

static int hist_read(struct state *s, struct gpiolat_hist *out, __u64 *unmatched)
{
	int ncpus = libbpf_num_possible_cpus(), c, i;
	struct sc_hist *h;
	__u32 zero = 0;

	h = calloc(ncpus, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->hist->maps.sc_hists), &zero, h)) {
		free(h);
		return -errno;
	}
	memset(out, 0, sizeof(*out));
	*unmatched = 0;
	for (c = 0; c < ncpus; c++) {
		out->sum_ns += h[c].sum_ns;
		*unmatched += h[c].unmatched;
		/* the count is the sum of the slots (the program keeps no count of its own) */
		for (i = 0; i < SC_LOG2_SLOTS && i < GPIOLAT_LOG2_SLOTS; i++) {
			out->log2[i] += h[c].slots[i];
			out->pairs += h[c].slots[i];
		}
	}
	free(h);
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

static void hist_print(const struct env *env, const struct gpiolat_hist *h, __u64 unmatched,
		       enum hook hook, const char *start, __u64 since_start_ns, double span_s)
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
		json_object_object_add(o, "hook", json_object_new_string(sc_hook_names[hook]));
		json_object_object_add(o, "start", json_object_new_string(start));
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
		       sc_hook_names[hook], start, span_s);
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

int sc_run_hist(struct state *s, const struct env *env, __u64 t_start)
{
	struct gpiolat_hist *h = calloc(1, sizeof(*h)), *prev = calloc(1, sizeof(*prev));
	struct gpiolat_hist *d = calloc(1, sizeof(*d));
	__u64 t0, now, deadline, next, um, um_prev = 0;
	const char *start;
	enum hook hook;
	char why[WHY_SIZE];
	int err = EXIT_ERROR;

	if (!h || !prev || !d) {
		fprintf(stderr, "gpiolat: out of memory\n");
		goto out;
	}
	if (sc_hist_setup(s, HV_FULL, env->hook, &hook, &start, why, sizeof(why)) ||
	    sc_hist_attach(s, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto out;
	}
	t0 = sc_mono_ns();
	deadline = env->duration_ns ? t0 + env->duration_ns : 0;
	next = env->interval_ns ? t0 + env->interval_ns : 0;
	if (!env->json && !deadline && !next)
		printf("Tracing syscalls (%s). Hit Ctrl-C to end.\n", sc_hook_names[hook]);
	fflush(stdout);
	while (!*s->stop) {
		now = sc_mono_ns();
		if (deadline && now >= deadline)
			break;
		if (next && now >= next) {
			if (!hist_read(s, h, &um)) {
				hist_delta(d, h, prev);
				hist_print(env, d, um - um_prev, hook, start,
					   sc_mono_ns() - t_start, env->interval_ns / 1e9);
				*prev = *h;
				um_prev = um;
			}
			next += env->interval_ns;
		}
		poll(NULL, 0, 5);
	}
	sc_links_destroy(s);
	if (hist_read(s, h, &um)) {
		fprintf(stderr, "gpiolat: reading the histogram failed\n");
		goto out;
	}
	if (env->interval_ns)
		printf(env->json ? "" : "--- totals\n");
	hist_print(env, h, um, hook, start, sc_mono_ns() - t_start, (sc_mono_ns() - t0) / 1e9);
	err = EXIT_OK;
out:
	free(h);
	free(prev);
	free(d);
	return err;
}

/* ---- --empty-raw-tp ---------------------------------------------------------------------- */

int sc_run_empty_raw_tp(struct state *s, const struct env *env)
{
	struct result r = {};
	char why[WHY_SIZE];
	__u64 deadline;

	if (sc_empty_load(s, (const char *[]){ "empty_raw_any" }, 1, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (sc_link_add(
		    s,
		    bpf_program__attach_raw_tracepoint(s->empty->progs.empty_raw_any, env->raw_tp),
		    env->raw_tp, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s (is the tracepoint there?)\n", why);
		return EXIT_ERROR;
	}
	printf("attached: an empty BPF program on raw tracepoint %s\n", env->raw_tp);
	fflush(stdout);
	deadline = env->duration_ns ? sc_mono_ns() + env->duration_ns : 0;
	while (!*s->stop && (!deadline || sc_mono_ns() < deadline))
		poll(NULL, 0, 20);
	sc_links_destroy(s);
	sc_prog_stats_obj(s->empty->obj, &r);
	if (s->stats_fd >= 0 && r.run_cnt)
		printf("detached: %llu runs, mean %.1f ns per run (BPF_ENABLE_STATS)\n",
		       (unsigned long long)r.run_cnt, (double)r.run_time_ns / r.run_cnt);
	else
		printf("detached: %llu runs\n", (unsigned long long)r.run_cnt);
	return EXIT_OK;
}

/* ---- main ------------------------------------------------------------------------------- */
