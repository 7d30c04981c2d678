// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the log-linear histograms of bpf/rt.h, for --wakeup and --gaps
 * (loader/modes/rt/rt_int.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "core/hist.h"
#include "modes/rt/rt_int.h"

/* ---- histograms ----------------------------------------------------------------------------- */

__u64 rt_slot_low(int s)
{
	if (s < RT_SUB)
		return s;
	return (__u64)(RT_SUB + s % RT_SUB) << (s / RT_SUB - 1);
}

__u64 rt_slot_high(int s)
{
	if (s < RT_SUB)
		return s + 1;
	if (s == RT_SLOTS - 1)
		return UINT64_MAX;
	return rt_slot_low(s) + (1ULL << (s / RT_SUB - 1));
}

static int to_buckets(const struct rt_hist *h, struct bucket *b)
{
	int s, n = 0;

	for (s = 0; s < RT_SLOTS; s++) {
		if (!h->slots[s])
			continue;
		b[n].low = rt_slot_low(s);
		b[n].high = rt_slot_high(s);
		b[n].count = h->slots[s];
		n++;
	}
	return n;
}

void rt_hist_summary(const struct rt_hist *h, struct rt_summary *s)
{
	struct bucket b[RT_SLOTS];
	int n = to_buckets(h, b);

	s->count = h->count;
	s->min = h->min_ns;
	s->max = h->max_ns;
	s->mean = h->count ? (double)h->sum_ns / h->count : NAN;
	/* the estimates stay inside what was seen */
	s->p50 = fmin(buckets_quantile(b, n, 0.50), h->max_ns);
	s->p90 = fmin(buckets_quantile(b, n, 0.90), h->max_ns);
	s->p99 = fmin(buckets_quantile(b, n, 0.99), h->max_ns);
}

static struct json_object *num_or_null(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

struct json_object *rt_hist_json(const struct rt_hist *h)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	struct bucket b[RT_SLOTS];
	struct rt_summary s;
	int i, n = to_buckets(h, b);

	rt_hist_summary(h, &s);
	json_object_object_add(o, "count", json_object_new_uint64(s.count));
	json_object_object_add(o, "min_ns", s.count ? json_object_new_uint64(s.min) : NULL);
	json_object_object_add(o, "mean_ns", num_or_null(s.mean));
	json_object_object_add(o, "p50_ns", num_or_null(s.p50));
	json_object_object_add(o, "p90_ns", num_or_null(s.p90));
	json_object_object_add(o, "p99_ns", num_or_null(s.p99));
	json_object_object_add(o, "max_ns", s.count ? json_object_new_uint64(s.max) : NULL);
	for (i = 0; i < n; i++) {
		struct json_object *r = json_object_new_array();

		json_object_array_add(r, json_object_new_uint64(b[i].low));
		json_object_array_add(
			r, b[i].high == UINT64_MAX ? NULL : json_object_new_uint64(b[i].high));
		json_object_array_add(r, json_object_new_uint64(b[i].count));
		json_object_array_add(a, r);
	}
	json_object_object_add(o, "buckets", a);
	return o;
}

void rt_summary_text(FILE *f, const struct rt_summary *s)
{
	if (!s->count) {
		fprintf(f, "count 0");
		return;
	}
	fprintf(f, "count %llu, min %.1f us, mean %.1f us, p50 %.1f us, p99 %.1f us, max %.1f us",
		(unsigned long long)s->count, s->min / 1e3, s->mean / 1e3, s->p50 / 1e3,
		s->p99 / 1e3, s->max / 1e3);
}

/* log2 rows (the slots of each power of two merged) for people; JSON has the fine slots */
void rt_hist_text(FILE *f, const struct rt_hist *h, const char *indent)
{
	__u64 rows[64] = {}, most = 0;
	int s, k, first = -1, last = -1;

	for (s = 0; s < RT_SLOTS; s++) {
		k = 64 - __builtin_clzll(rt_slot_low(s) | 1);
		rows[k] += h->slots[s];
	}
	for (k = 0; k < 64; k++) {
		if (!rows[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (rows[k] > most)
			most = rows[k];
	}
	for (k = first; k >= 0 && k <= last; k++) {
		int bar = most ? (int)(rows[k] * 40 / most) : 0;

		fprintf(f, "%s%10.1f -> %10.1f us : %-10llu |%.*s%*s|\n", indent,
			(k ? 1ULL << (k - 1) : 0) / 1e3, (1ULL << k) / 1e3,
			(unsigned long long)rows[k], bar,
			"****************************************", 40 - bar, "");
	}
}
