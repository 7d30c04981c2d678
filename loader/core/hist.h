/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: histograms and summaries for people (text), gnuplot (CSV) and machines (JSON).
 * Pure functions of their arguments: no BPF, no files but the FILE * given; unit-tested by
 * out/build/test-hist (loader/test/test-hist.c, tests/host/test_loader_hist.py).
 */
#ifndef GPIOLAT_HIST_H
#define GPIOLAT_HIST_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "gpiolat.h"

enum unit {
	UNIT_NS,
	UNIT_US,
};

struct bucket {
	__u64 low; /* ns, inclusive */
	__u64 high; /* ns, exclusive; UINT64_MAX: the overflow bucket (no upper bound) */
	__u64 count;
};

/* one line's results, summed over the CPUs */
struct line_result {
	__u32 gpio;
	char chip[64]; /* label of its chip, "" when unknown */
	int offset; /* offset on that chip, -1 when unknown */
	struct gpiolat_hist h;
	bool minmax; /* h.min_ns / h.max_ns are valid (not for interval deltas) */
};

/* the figures of one line's summary; percentiles are bucket-resolution estimates */
struct summary {
	__u64 count;
	double mean, p50, p90, p99; /* ns; NAN when count is 0 */
	__u64 min, max; /* ns; valid when minmax */
	bool minmax;
};

/* running mean and spread (Welford) */
struct stat_acc {
	__u64 n;
	double mean, m2, min, max;
};

/* ceil(2^32 / d): the BPF side's divide-free x / d is (x * r) >> 32 (bpf/gpiolat.bpf.c) */
__u64 gpiolat_reciprocal(__u64 d);

void stat_add(struct stat_acc *s, double x);
double stat_sd(const struct stat_acc *s);
/* two-sided 95 % and 99.9 % quantiles of Student's t with df degrees of freedom (NAN: df < 1;
 * never below the exact quantile, above df 30 wide by at most 0.3 %) */
double student_t95(long df);
double student_t999(long df);
/* half-widths of the 95 % and 99.9 % confidence intervals of s's mean (NAN: n < 2) */
double stat_ci95(const struct stat_acc *s);
double stat_ci999(const struct stat_acc *s);
/*
 * An alternation's figures (engine.h): phases b_0 t_0 b_1 t_1 ... t_n-1 b_n, repetition i's
 * difference d_i = t_i - (b_i + b_i+1) / 2. Neighbours d_i, d_i+1 share the reference b_i+1
 * (covariance var(b) / 4), so t sd(d) / sqrt(n) is too narrow (a 95 % interval covers about
 * 91 % when the phases' noise is alike). The interval here is that of the mean as sampled,
 * mean(t) - sum_j w_j b_j with w = 1/2n at both ends and 1/n between: its variance
 * s_t^2 / n + s_b^2 (n - 1/2) / n^2, with Welch-Satterthwaite degrees of freedom (rounded
 * down). Phases with a common slow drift make it wider, never narrower.
 */
struct alt_stat {
	struct stat_acc t; /* the method's phases */
	struct stat_acc b; /* the reference phases, each once (n + 1 of them) */
	struct stat_acc d; /* the differences d_i */
};

/* repetition REP (0, 1, ... in order): its reference before, its phase, its reference after */
void alt_stat_add(struct alt_stat *s, int rep, double before, double fig, double after);
/* the mean difference's standard error as sampled and its Welch-Satterthwaite degrees of
 * freedom (NAN: n < 2); what the intervals below are made of (JSON se_ns and df: two runs'
 * rows compared combine them, host/compare.py) */
double alt_se(const struct alt_stat *s, long *df);
/* half-widths of the 95 % and 99.9 % intervals of the mean difference (NAN: n < 2) */
double alt_ci95(const struct alt_stat *s);
double alt_ci999(const struct alt_stat *s);

/* the median of v[0..n) (n > 0); sorts v */
double median(double *v, int n);
/* qsort comparison of doubles */
int cmp_double(const void *a, const void *b);

/* sum per-CPU copies of the BPF map, as the BPF side writes them (gpiolat.h): min/max over the
 * copies that saw pairs; pairs, falling, rising and events counted from what it keeps; the log2
 * slots below 2^GPIOLAT_HDR_MAX_LOG2 summed from the fine buckets (the BPF side counts them there
 * only) */
void hist_sum_cpus(struct gpiolat_hist *out, const struct gpiolat_hist *percpu, int ncpus);
/* out = now - before, counter by counter (an interval); min/max are not carried */
void hist_delta(struct gpiolat_hist *out, const struct gpiolat_hist *now,
		const struct gpiolat_hist *before);

/* the log2 slots and linear buckets as [low, high) buckets; return how many were written */
int hist_log2_buckets(const struct gpiolat_hist *h, struct bucket *b, int max);
int hist_linear_buckets(const struct gpiolat_hist *h, __u64 width, struct bucket *b, int max);
/* the fine (log-linear) buckets, gpiolat.h: bucket i's [low, high), and all of them */
void hist_fine_bounds(int i, __u64 *low, __u64 *high);
int hist_fine_buckets(const struct gpiolat_hist *h, struct bucket *b, int max);
/* the p-quantile (0 < p < 1) estimated from buckets: linear interpolation in its bucket */
double buckets_quantile(const struct bucket *b, int n, double p);
void hist_summary(const struct line_result *lr, __u64 lin_width, struct summary *s);

/* "1234 ns", "1.234 us": a time in ns, in the unit given, with the unit */
char *fmt_time(char *buf, size_t size, double ns, enum unit unit);
const char *unit_name(enum unit unit);

/* [low, high) count |bar| rows from the first to the last non-empty bucket */
void print_buckets(FILE *f, const struct bucket *b, int n, enum unit unit);
/* one line's histograms (log2, and linear when width > 0) and its summary line */
void print_line_text(FILE *f, const struct line_result *lr, __u64 lin_width, enum unit unit);
void print_summary_text(FILE *f, const struct line_result *lr, const struct summary *s,
			enum unit unit);
/* CSV: #-commented blocks (gnuplot "index"), one per line and kind */
void print_line_csv(FILE *f, const struct line_result *lr, __u64 lin_width, enum unit unit);
/* JSON (docs/output-format.md): one object per line */
struct json_object *line_json(const struct line_result *lr, __u64 lin_width);

/* the reference figures printed beside ours (core/baseline.h): the measuring modes' reports
 * still reach them through this header */
#include "core/baseline.h"

#endif /* GPIOLAT_HIST_H */
