// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: histograms and summaries, as text, CSV and JSON. Pure functions (see hist.h).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/hist.h"
#include "core/jsonout.h"

#define BAR_WIDTH 40
#define MAX_BUCKETS GPIOLAT_HDR_SLOTS
_Static_assert(GPIOLAT_HDR_SLOTS >= GPIOLAT_LOG2_SLOTS + GPIOLAT_LINEAR_SLOTS + 1,
	       "MAX_BUCKETS holds every kind");

void hist_sum_cpus(struct gpiolat_hist *out, const struct gpiolat_hist *percpu, int ncpus)
{
	__u64 min_inv = 0;
	int c, i;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < ncpus; c++) {
		const struct gpiolat_hist *h = &percpu[c];

		out->unmatched += h->unmatched;
		out->rising_again += h->rising_again;
		out->start_lost += h->start_lost;
		out->sum_ns += h->sum_ns;
		out->periods += h->periods;
		out->period_sum_ns += h->period_sum_ns;
		/* the BPF side's min_ns is ~min (0: no pair on that CPU) */
		if (h->min_ns > min_inv)
			min_inv = h->min_ns;
		if (h->max_ns > out->max_ns)
			out->max_ns = h->max_ns;
		for (i = 0; i < GPIOLAT_LOG2_SLOTS; i++)
			out->log2[i] += h->log2[i];
		for (i = 0; i <= GPIOLAT_LINEAR_SLOTS; i++)
			out->linear[i] += h->linear[i];
		for (i = 0; i < GPIOLAT_HDR_SLOTS; i++)
			out->fine[i] += h->fine[i];
	}
	/* the counts the BPF side leaves to the loader: every pair is in one fine bucket; a set to
	 * 0 is a pair or unmatched; a set to 1 stored a start (its pair's, or one still stored:
	 * gpio_bpf_read_lines adds that one) or came again */
	for (i = 0; i < GPIOLAT_HDR_SLOTS; i++)
		out->pairs += out->fine[i];
	out->falling = out->pairs + out->unmatched;
	out->rising = out->pairs + out->rising_again;
	out->events = out->rising + out->falling;
	out->min_ns = out->pairs ? ~min_inv : 0;
	/* the log2 slots below 2^HDR_MAX_LOG2, which the BPF side keeps in fine only: a fine
	 * bucket lies in one power of two, its low bound's */
	for (i = 0; i < GPIOLAT_HDR_SLOTS - 1; i++) {
		__u64 low, high;
		int slot = 0;

		hist_fine_bounds(i, &low, &high);
		while (low >> slot)
			slot++;
		out->log2[slot] += out->fine[i];
	}
}

void hist_delta(struct gpiolat_hist *out, const struct gpiolat_hist *now,
		const struct gpiolat_hist *before)
{
	int i;

	out->events = now->events - before->events;
	out->rising = now->rising - before->rising;
	out->falling = now->falling - before->falling;
	out->pairs = now->pairs - before->pairs;
	out->unmatched = now->unmatched - before->unmatched;
	out->rising_again = now->rising_again - before->rising_again;
	out->start_lost = now->start_lost - before->start_lost;
	out->sum_ns = now->sum_ns - before->sum_ns;
	out->min_ns = 0;
	out->max_ns = 0;
	for (i = 0; i < GPIOLAT_LOG2_SLOTS; i++)
		out->log2[i] = now->log2[i] - before->log2[i];
	for (i = 0; i <= GPIOLAT_LINEAR_SLOTS; i++)
		out->linear[i] = now->linear[i] - before->linear[i];
	for (i = 0; i < GPIOLAT_HDR_SLOTS; i++)
		out->fine[i] = now->fine[i] - before->fine[i];
}

void hist_fine_bounds(int i, __u64 *low, __u64 *high)
{
	int e = i >> GPIOLAT_HDR_SUB_BITS;

	if (i >= GPIOLAT_HDR_SLOTS - 1) {
		*low = 1ULL << GPIOLAT_HDR_MAX_LOG2;
		*high = UINT64_MAX;
	} else if (i < 2 * GPIOLAT_HDR_SUB) {
		*low = i;
		*high = i + 1;
	} else {
		/* bucket e's power of two is 2^(e + SUB_BITS - 1), cut in 2^SUB_BITS */
		*low = (__u64)(GPIOLAT_HDR_SUB + (i & (GPIOLAT_HDR_SUB - 1))) << (e - 1);
		*high = *low + (1ULL << (e - 1));
	}
}

int hist_fine_buckets(const struct gpiolat_hist *h, struct bucket *b, int max)
{
	int i, n = 0;

	for (i = 0; i < GPIOLAT_HDR_SLOTS && n < max; i++, n++) {
		hist_fine_bounds(i, &b[n].low, &b[n].high);
		b[n].count = h->fine[i];
	}
	return n;
}

int hist_log2_buckets(const struct gpiolat_hist *h, struct bucket *b, int max)
{
	int i, n = 0;

	for (i = 0; i < GPIOLAT_LOG2_SLOTS && n < max; i++, n++) {
		b[n].low = i ? 1ULL << (i - 1) : 0;
		b[n].high = i < GPIOLAT_LOG2_SLOTS - 1 ? 1ULL << i : UINT64_MAX;
		b[n].count = h->log2[i];
	}
	return n;
}

int hist_linear_buckets(const struct gpiolat_hist *h, __u64 width, struct bucket *b, int max)
{
	int i, n = 0;

	if (!width)
		return 0;
	for (i = 0; i <= GPIOLAT_LINEAR_SLOTS && n < max; i++, n++) {
		b[n].low = i * width;
		b[n].high = i < GPIOLAT_LINEAR_SLOTS ? (i + 1) * width : UINT64_MAX;
		b[n].count = h->linear[i];
	}
	return n;
}

double buckets_quantile(const struct bucket *b, int n, double p)
{
	__u64 total = 0, cum = 0;
	double rank;
	int i;

	for (i = 0; i < n; i++)
		total += b[i].count;
	if (!total)
		return NAN;
	rank = p * total;
	for (i = 0; i < n; i++) {
		if (!b[i].count)
			continue;
		if (cum + b[i].count >= rank) {
			if (b[i].high == UINT64_MAX)
				return b[i].low;
			return b[i].low + (b[i].high - b[i].low) * (rank - cum) / b[i].count;
		}
		cum += b[i].count;
	}
	return NAN;
}

/* from the linear buckets when the quantile is inside them, else from the log2 slots */
static double line_quantile(const struct gpiolat_hist *h, __u64 lin_width, double p)
{
	struct bucket b[MAX_BUCKETS];
	__u64 total = 0, cum = 0;
	int i, n;

	if (lin_width) {
		n = hist_linear_buckets(h, lin_width, b, MAX_BUCKETS);
		for (i = 0; i < n; i++)
			total += b[i].count;
		for (i = 0; i < n - 1; i++)
			cum += b[i].count;
		if (total && cum >= p * total)
			return buckets_quantile(b, n, p);
	}
	n = hist_log2_buckets(h, b, MAX_BUCKETS);
	return buckets_quantile(b, n, p);
}

static double clamp_minmax(double x, const struct summary *s)
{
	if (!s->minmax || isnan(x))
		return x;
	if (x < s->min)
		return s->min;
	if (x > s->max)
		return s->max;
	return x;
}

void hist_summary(const struct line_result *lr, __u64 lin_width, struct summary *s)
{
	const struct gpiolat_hist *h = &lr->h;

	memset(s, 0, sizeof(*s));
	s->count = h->pairs;
	s->minmax = lr->minmax && h->pairs;
	s->min = h->min_ns;
	s->max = h->max_ns;
	if (!h->pairs) {
		s->mean = s->p50 = s->p90 = s->p99 = NAN;
		return;
	}
	s->mean = (double)h->sum_ns / h->pairs;
	s->p50 = clamp_minmax(line_quantile(h, lin_width, 0.50), s);
	s->p90 = clamp_minmax(line_quantile(h, lin_width, 0.90), s);
	s->p99 = clamp_minmax(line_quantile(h, lin_width, 0.99), s);
}

const char *unit_name(enum unit unit)
{
	return unit == UNIT_US ? "us" : "ns";
}

char *fmt_time(char *buf, size_t size, double ns, enum unit unit)
{
	if (isnan(ns))
		snprintf(buf, size, "-");
	else if (unit == UNIT_US)
		snprintf(buf, size, "%.3f us", ns / 1000);
	else if (ns == floor(ns))
		snprintf(buf, size, "%.0f ns", ns);
	else
		snprintf(buf, size, "%.1f ns", ns);
	return buf;
}

/* a bucket bound without its unit */
static char *fmt_bound(char *buf, size_t size, __u64 ns, enum unit unit)
{
	if (ns == UINT64_MAX)
		snprintf(buf, size, "inf");
	else if (unit == UNIT_US)
		snprintf(buf, size, "%.3f", ns / 1000.0);
	else
		snprintf(buf, size, "%llu", (unsigned long long)ns);
	return buf;
}

void print_buckets(FILE *f, const struct bucket *b, int n, enum unit unit)
{
	char lo[32], hi[32], range[80];
	__u64 max = 0;
	int i, first = -1, last = -1, width = 0, len, stars;

	for (i = 0; i < n; i++) {
		if (!b[i].count)
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (b[i].count > max)
			max = b[i].count;
	}
	if (first < 0) {
		fprintf(f, "  (no pulses)\n");
		return;
	}
	for (i = first; i <= last; i++) {
		len = snprintf(range, sizeof(range), "[%s, %s)",
			       fmt_bound(lo, sizeof(lo), b[i].low, unit),
			       fmt_bound(hi, sizeof(hi), b[i].high, unit));
		if (len > width)
			width = len;
	}
	fprintf(f, "  %*s %-3s : %-10s distribution\n", width, "", unit_name(unit), "count");
	for (i = first; i <= last; i++) {
		snprintf(range, sizeof(range), "[%s, %s)",
			 fmt_bound(lo, sizeof(lo), b[i].low, unit),
			 fmt_bound(hi, sizeof(hi), b[i].high, unit));
		stars = (int)((b[i].count * BAR_WIDTH + max - 1) / max);
		fprintf(f, "  %*s     : %-10llu |%-*.*s|\n", width, range,
			(unsigned long long)b[i].count, BAR_WIDTH, stars,
			"****************************************");
	}
}

static void line_name(char *buf, size_t size, const struct line_result *lr)
{
	if (lr->chip[0] && lr->offset >= 0)
		snprintf(buf, size, "gpio %u (%s:%d)", lr->gpio, lr->chip, lr->offset);
	else
		snprintf(buf, size, "gpio %u", lr->gpio);
}

void print_summary_text(FILE *f, const struct line_result *lr, const struct summary *s,
			enum unit unit)
{
	char name[96], mn[32], mean[32], p50[32], p90[32], p99[32], mx[32];
	const struct gpiolat_hist *h = &lr->h;

	line_name(name, sizeof(name), lr);
	fprintf(f,
		"%s: count %llu pulses, min %s, mean %s, p50 %s, p90 %s, p99 %s, max %s; "
		"unmatched %llu falling edges; %llu sets seen\n",
		name, (unsigned long long)s->count,
		s->minmax ? fmt_time(mn, sizeof(mn), s->min, unit) : "-",
		fmt_time(mean, sizeof(mean), s->mean, unit),
		fmt_time(p50, sizeof(p50), s->p50, unit), fmt_time(p90, sizeof(p90), s->p90, unit),
		fmt_time(p99, sizeof(p99), s->p99, unit),
		s->minmax ? fmt_time(mx, sizeof(mx), s->max, unit) : "-",
		(unsigned long long)h->unmatched, (unsigned long long)h->events);
	/* start_lost cannot happen (the start is a plain array slot): JSON/CSV keep it, as 0 */
	if (h->rising_again)
		fprintf(f, "%s: %llu rising edges while already high (first kept)\n", name,
			(unsigned long long)h->rising_again);
}

void print_line_text(FILE *f, const struct line_result *lr, __u64 lin_width, enum unit unit)
{
	struct bucket b[MAX_BUCKETS];
	struct summary s;
	char name[96], w[32];
	int n;

	line_name(name, sizeof(name), lr);
	fprintf(f, "%s: pulse width (set to 1 -> set to 0), log2 buckets\n", name);
	n = hist_log2_buckets(&lr->h, b, MAX_BUCKETS);
	print_buckets(f, b, n, unit);
	if (lin_width) {
		fprintf(f, "%s: pulse width, linear buckets of %s (the last one: overflow)\n", name,
			fmt_time(w, sizeof(w), lin_width, unit));
		n = hist_linear_buckets(&lr->h, lin_width, b, MAX_BUCKETS);
		print_buckets(f, b, n, unit);
	}
	hist_summary(lr, lin_width, &s);
	print_summary_text(f, lr, &s, unit);
}

static void csv_block(FILE *f, const struct line_result *lr, const char *kind,
		      const struct bucket *b, int n, enum unit unit)
{
	char lo[32], hi[32];
	int i;

	fprintf(f, "# gpio=%u kind=%s unit=%s\n", lr->gpio, kind, unit_name(unit));
	fprintf(f, "# low_%s high_%s count\n", unit_name(unit), unit_name(unit));
	for (i = 0; i < n; i++) {
		if (b[i].high == UINT64_MAX) {
			/* not a row: gnuplot cannot plot an unbounded bucket */
			fprintf(f, "# overflow low_%s=%s count=%llu\n", unit_name(unit),
				fmt_bound(lo, sizeof(lo), b[i].low, unit),
				(unsigned long long)b[i].count);
			continue;
		}
		fprintf(f, "%s %s %llu\n", fmt_bound(lo, sizeof(lo), b[i].low, unit),
			fmt_bound(hi, sizeof(hi), b[i].high, unit), (unsigned long long)b[i].count);
	}
	fprintf(f, "\n\n");
}

void print_line_csv(FILE *f, const struct line_result *lr, __u64 lin_width, enum unit unit)
{
	struct bucket b[MAX_BUCKETS];
	const struct gpiolat_hist *h = &lr->h;
	struct summary s;
	int n, first, last;

	hist_summary(lr, lin_width, &s);
	fprintf(f,
		"# summary gpio=%u chip=%s offset=%d count=%llu events=%llu rising=%llu "
		"falling=%llu unmatched=%llu rising_again=%llu start_lost=%llu sum_ns=%llu",
		lr->gpio, lr->chip[0] ? lr->chip : "-", lr->offset, (unsigned long long)s.count,
		(unsigned long long)h->events, (unsigned long long)h->rising,
		(unsigned long long)h->falling, (unsigned long long)h->unmatched,
		(unsigned long long)h->rising_again, (unsigned long long)h->start_lost,
		(unsigned long long)h->sum_ns);
	if (s.minmax)
		fprintf(f, " min_ns=%llu max_ns=%llu", (unsigned long long)s.min,
			(unsigned long long)s.max);
	if (s.count)
		fprintf(f, " mean_ns=%.1f p50_ns=%.1f p90_ns=%.1f p99_ns=%.1f", s.mean, s.p50,
			s.p90, s.p99);
	fprintf(f, "\n");
	n = hist_log2_buckets(h, b, MAX_BUCKETS);
	/* all 64 slots but the unbounded last one would be noise: keep up to the last non-empty */
	while (n > 1 && !b[n - 1].count)
		n--;
	csv_block(f, lr, "log2", b, n, unit);
	if (lin_width) {
		n = hist_linear_buckets(h, lin_width, b, MAX_BUCKETS);
		csv_block(f, lr, "linear", b, n, unit);
	}
	/* last, so the blocks before keep their gnuplot index: the fine buckets from the first
	 * to the last non-empty one, then the overflow */
	n = hist_fine_buckets(h, b, MAX_BUCKETS);
	for (first = 0; first < n - 1 && !b[first].count; first++)
		;
	for (last = n - 2; last > first && !b[last].count; last--)
		;
	if (first < n - 1) {
		memmove(b, b + first, (last - first + 1) * sizeof(*b));
		b[last - first + 1] = b[n - 1];
		n = last - first + 2;
	} else {
		b[0] = b[n - 1];
		n = 1;
	}
	csv_block(f, lr, "fine", b, n, unit);
}

static struct json_object *json_u64(__u64 v)
{
	return json_object_new_uint64(v);
}

static struct json_object *buckets_json(const struct bucket *b, int n)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n; i++) {
		struct json_object *o;

		if (!b[i].count)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "low_ns", json_u64(b[i].low));
		json_object_object_add(o, "high_ns",
				       b[i].high == UINT64_MAX ? NULL : json_u64(b[i].high));
		json_object_object_add(o, "count", json_u64(b[i].count));
		json_object_array_add(a, o);
	}
	return a;
}

struct json_object *line_json(const struct line_result *lr, __u64 lin_width)
{
	const struct gpiolat_hist *h = &lr->h;
	struct bucket b[MAX_BUCKETS];
	struct json_object *o, *lin;
	struct summary s;
	int n;

	hist_summary(lr, lin_width, &s);
	o = json_object_new_object();
	json_object_object_add(o, "gpio", json_u64(lr->gpio));
	json_object_object_add(o, "chip", lr->chip[0] ? json_object_new_string(lr->chip) : NULL);
	json_object_object_add(o, "offset",
			       lr->offset >= 0 ? json_object_new_int(lr->offset) : NULL);
	json_object_object_add(o, "events", json_u64(h->events));
	json_object_object_add(o, "rising", json_u64(h->rising));
	json_object_object_add(o, "falling", json_u64(h->falling));
	json_object_object_add(o, "count", json_u64(h->pairs));
	json_object_object_add(o, "unmatched", json_u64(h->unmatched));
	json_object_object_add(o, "rising_again", json_u64(h->rising_again));
	json_object_object_add(o, "start_lost", json_u64(h->start_lost));
	json_object_object_add(o, "sum_ns", json_u64(h->sum_ns));
	json_object_object_add(o, "min_ns", s.minmax ? json_u64(s.min) : NULL);
	json_object_object_add(o, "max_ns", s.minmax ? json_u64(s.max) : NULL);
	json_object_object_add(o, "mean_ns", json_num(s.mean));
	json_object_object_add(o, "p50_ns", json_num(s.p50));
	json_object_object_add(o, "p90_ns", json_num(s.p90));
	json_object_object_add(o, "p99_ns", json_num(s.p99));
	n = hist_log2_buckets(h, b, MAX_BUCKETS);
	json_object_object_add(o, "log2", buckets_json(b, n));
	n = hist_fine_buckets(h, b, MAX_BUCKETS);
	json_object_object_add(o, "fine", buckets_json(b, n));
	if (lin_width) {
		lin = json_object_new_object();
		json_object_object_add(lin, "width_ns", json_u64(lin_width));
		n = hist_linear_buckets(h, lin_width, b, MAX_BUCKETS);
		json_object_object_add(lin, "buckets", buckets_json(b, n - 1));
		json_object_object_add(lin, "overflow_low_ns", json_u64(b[n - 1].low));
		json_object_object_add(lin, "overflow", json_u64(b[n - 1].count));
		json_object_object_add(o, "linear", lin);
	} else {
		json_object_object_add(o, "linear", NULL);
	}
	return o;
}
