// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the figures of a row from its repetitions, the linear fit of a series,
 * the BPF trust check (overhead_int.h). Pure functions: unit-tested (loader/test/test-overhead.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"

void ov_row_stats(struct row *r)
{
	r->mean = r->st.d.mean;
	r->sd = stat_sd(&r->st.d);
	/* the repetitions share their reference phases: the interval of the mean as sampled */
	r->ci = alt_ci95(&r->st);
	r->ci999 = alt_ci999(&r->st);
	r->df = 0;
	r->se = alt_se(&r->st, &r->df);
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
int ov_series_fit(struct row *rows, int n, const char *series, double *slope, double *r2, int *npts)
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

/*
 * The trust check (docs/overhead.md, "Trust"): one quantity, the traced ns per set of a method
 * phase, from two clocks read at different points. d_i = program_i - module_i per phase. The
 * module's batch also times its fixed part c (the tail and head of its two clock reads, the
 * loop's entry), which no period of the program contains: d = -c / (2 burst) exactly, and c is
 * bounded by two untraced sets (a clock read against a whole gpiod_set_value() call), so
 * |d| <= allow = reference / burst. Agreement: |mean d| <= allow + t999(n - 1) sd(d) / sqrt(n),
 * a false alarm at most 1 in 1000 for normal phase noise (measured: test-overhead trust-sim).
 * Agreement is claimed only where the check could have seen a clock off by half (the program's
 * clock read 1.5 times too long, as tests/target/21-trust-icount.sh breaks it): a limit of half
 * the module's figure or more is "too noisy"; a difference beyond the limit is DISAGREE still.
 */
void ov_trust_check(struct row *r)
{
	struct trust_verdict *t = &r->tv;
	struct stat_acc d = {}, m = {}, p = {};
	int i;

	memset(t, 0, sizeof(*t));
	t->v = TRUST_NONE;
	for (i = 0; i < r->fig.trust.tphases; i++) {
		stat_add(&m, r->fig.trust.t_mod[i]);
		if (isnan(r->fig.trust.t_prog[i]))
			continue;
		stat_add(&d, r->fig.trust.t_prog[i] - r->fig.trust.t_mod[i]);
		stat_add(&p, r->fig.trust.t_prog[i]);
	}
	/* the module's figures stand whatever the program keeps (the outside observer's) */
	t->mod = m.mean;
	t->mod_sd = stat_sd(&m);
	t->burst = r->fig.trust.t_batches ? (double)r->fig.trust.t_pulses / r->fig.trust.t_batches :
					    NAN;
	t->allow = r->ref_mean / t->burst;
	t->prog = p.n ? p.mean : NAN;
	t->prog_sd = stat_sd(&p);
	if (!p.n && !r->fig.trust.tdropped) {
		snprintf(t->why, sizeof(t->why),
			 "one clock only: the program keeps no periods of its own");
		return;
	}
	if (p.n < 2) {
		snprintf(t->why, sizeof(t->why),
			 "%d phases compared, %d left out (a period inside a batch the program did "
			 "not count): 2 needed",
			 (int)p.n, r->fig.trust.tdropped);
		return;
	}
	if (!(r->ref_mean > 0)) {
		snprintf(t->why, sizeof(t->why), "no reference");
		return;
	}
	t->diff = d.mean;
	t->sd = stat_sd(&d);
	t->limit = t->allow + student_t999(d.n - 1) * t->sd / sqrt(d.n);
	t->v = fabs(t->diff) > t->limit	      ? TRUST_DISAGREE :
	       t->limit >= 0.5 * fabs(t->mod) ? TRUST_NOISY :
						TRUST_AGREE;
	snprintf(t->why, sizeof(t->why),
		 "program - module %+.1f ns per set (sd %.1f, %d phases), limit %.1f ns (%.1f "
		 "allowed + 99.9 %% of the noise)",
		 t->diff, t->sd, (int)d.n, t->limit, t->allow);
}

const char *ov_trust_word(const struct row *r)
{
	static const char *const w[] = { [TRUST_NONE] = "not judged",
					 [TRUST_AGREE] = "agree",
					 [TRUST_DISAGREE] = "DISAGREE",
					 [TRUST_NOISY] = "too-noisy" };

	return w[r->tv.v];
}
