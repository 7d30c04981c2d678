// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the statistics of repeated figures (mean and sd, Student t intervals, the
 * alternating design's standard error, the median). Pure functions (see hist.h).
 */
#include <math.h>
#include <stdlib.h>
#include "core/hist.h"

void stat_add(struct stat_acc *s, double x)
{
	double d = x - s->mean;

	if (!s->n || x < s->min)
		s->min = x;
	if (!s->n || x > s->max)
		s->max = x;
	s->n++;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

double stat_sd(const struct stat_acc *s)
{
	return s->n > 1 ? sqrt(s->m2 / (s->n - 1)) : 0;
}

__u64 gpiolat_reciprocal(__u64 d)
{
	return ((1ULL << 32) + d - 1) / d;
}

/*
 * Two-sided Student t quantiles, never below the exact ones: df 1..30 tabulated (exact, rounded
 * up to 3 decimals), above that z + b / df. df (t(df) - z) falls with df towards (z^3 + z) / 4
 * (Cornish-Fisher), so its value at df 31, rounded up, bounds every df above 30; z and b are
 * rounded up too. Above df 30 wide by at most 0.05 % (95 %) and 0.3 % (99.9 %).
 * tests/host/test_loader_hist.py checks every df 1..1000 (and some up to 100000) against the
 * exact t distribution.
 */
static double student_t(long df, const double *t, long nt, double z, double b)
{
	if (df < 1)
		return NAN;
	return df < nt ? t[df] : z + b / df;
}

double student_t95(long df)
{
	static const double t[] = { NAN,   12.707, 4.303, 3.183, 2.777, 2.571, 2.447, 2.365,
				    2.307, 2.263,  2.229, 2.201, 2.179, 2.161, 2.145, 2.132,
				    2.120, 2.110,  2.101, 2.094, 2.086, 2.080, 2.074, 2.069,
				    2.064, 2.060,  2.056, 2.052, 2.049, 2.046, 2.043 };

	/* z = 1.959964; 31 (t(31) - z) = 2.46603 */
	return student_t(df, t, sizeof(t) / sizeof(t[0]), 1.96, 2.467);
}

double student_t999(long df)
{
	static const double t[] = { NAN,   636.620, 31.600, 12.924, 8.611, 6.869, 5.959, 5.408,
				    5.042, 4.781,   4.587,  4.437,  4.318, 4.221, 4.141, 4.073,
				    4.015, 3.966,   3.922,  3.884,  3.850, 3.820, 3.793, 3.768,
				    3.746, 3.726,   3.707,  3.690,  3.674, 3.660, 3.646 };

	/* z = 3.290527; 31 (t(31) - z) = 10.63082 */
	return student_t(df, t, sizeof(t) / sizeof(t[0]), 3.2906, 10.631);
}

double stat_ci95(const struct stat_acc *s)
{
	return s->n > 1 ? student_t95(s->n - 1) * stat_sd(s) / sqrt(s->n) : NAN;
}

double stat_ci999(const struct stat_acc *s)
{
	return s->n > 1 ? student_t999(s->n - 1) * stat_sd(s) / sqrt(s->n) : NAN;
}

void alt_stat_add(struct alt_stat *s, int rep, double before, double fig, double after)
{
	if (rep == 0)
		stat_add(&s->b, before);
	stat_add(&s->b, after);
	stat_add(&s->t, fig);
	stat_add(&s->d, fig - (before + after) / 2);
}

/* the mean difference's standard error as sampled (hist.h), and its degrees of freedom */
double alt_se(const struct alt_stat *s, long *df)
{
	double n = s->t.n, vt, vb, v, q;

	if (s->t.n < 2 || s->b.n < 2)
		return NAN;
	vt = s->t.m2 / (s->t.n - 1) / n;
	vb = s->b.m2 / (s->b.n - 1) * (n - 0.5) / (n * n);
	v = vt + vb;
	q = vt * vt / (s->t.n - 1) + vb * vb / (s->b.n - 1);
	*df = q > 0 ? (long)floor(v * v / q) : (long)s->t.n - 1;
	if (*df < 1)
		*df = 1;
	return sqrt(v);
}

double alt_ci95(const struct alt_stat *s)
{
	long df;
	double se = alt_se(s, &df);

	return isnan(se) ? NAN : student_t95(df) * se;
}

double alt_ci999(const struct alt_stat *s)
{
	long df;
	double se = alt_se(s, &df);

	return isnan(se) ? NAN : student_t999(df) * se;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
