// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the figures of a row from its repetitions, the linear fit of a series,
 * the BPF trust check (ov.h). Pure functions: unit-tested (loader/test/test-overhead.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ov.h"

void row_stats(struct row *r)
{
	r->mean = r->st.d.mean;
	r->sd = stat_sd(&r->st.d);
	/* the repetitions share their reference phases: the interval of the mean as sampled */
	r->ci = alt_ci95(&r->st);
	r->ci999 = alt_ci999(&r->st);
	if (r->reps > 0) {
		double v[MAX_REPS];

		memcpy(v, r->diff, r->reps * sizeof(v[0]));
		r->med = median(v, r->reps);
		r->low = v[0]; /* median() sorted v */
	}
}

/*
 * least squares y = a + b k over the measured rows of a series; R^2. Each point is the row's
 * own figure, the mean of its repetitions (what the rows report; under emulation a stalled
 * phase lowers R^2, which is reported as it comes out).
 */
int series_fit(struct row *rows, int n, const char *series, double *slope, double *r2, int *npts)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, b, a, ssr = 0, sst = 0, my;
	int i, m = 0;

	for (i = 0; i < n; i++) {
		if (!rows[i].measured || !rows[i].series || strcmp(rows[i].series, series))
			continue;
		sx += rows[i].k;
		sy += rows[i].mean;
		sxx += (double)rows[i].k * rows[i].k;
		sxy += rows[i].k * rows[i].mean;
		m++;
	}
	*npts = m;
	if (m < 3 || m * sxx - sx * sx == 0)
		return -1;
	b = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	a = (sy - b * sx) / m;
	my = sy / m;
	for (i = 0; i < n; i++) {
		double e;

		if (!rows[i].measured || !rows[i].series || strcmp(rows[i].series, series))
			continue;
		e = rows[i].mean - (a + b * rows[i].k);
		ssr += e * e;
		sst += (rows[i].mean - my) * (rows[i].mean - my);
	}
	*slope = b;
	*r2 = sst > 0 ? 1 - ssr / sst : NAN;
	return 0;
}

/* compare like with like: the shift (medians) with the histogram's p50 and the run time */
void trust_check(struct row *r)
{
	double tol = fmax(0.1 * fabs(r->mean), isnan(r->ci) ? 0 : r->ci);
	double h = r->hist_ok ? r->hist_p50 - r->ref_mean : NAN;

	r->disagree[0] = '\0';
	if (!isnan(h) && fabs(h - r->mean) > tol)
		snprintf(r->disagree, sizeof(r->disagree),
			 "hist p50 %.0f ns vs shift %.0f ns (more than %.0f ns apart)", h, r->mean,
			 tol);
	/* the run time is a mean (all BPF_ENABLE_STATS gives): shown, not judged */
}
