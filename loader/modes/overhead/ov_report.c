// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the report (overhead_int.h), for people and as JSON (docs/overhead.md), each row
 * beside the talk's figure for it and, with --baseline, the user's own, where the one rule
 * (baseline_beside) lets them stand.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include "core/jit.h"
#include "modes/overhead/overhead_int.h"
#include "core/jsonout.h"

/*
 * The talk's figure for row R (its row measured the same way: the method table's talk row)
 * under the one rule (baseline_beside): 1 it stands beside R, 0 it is against another
 * reference (*v and against say what it is), -1 the talk has none.
 */
static int talk_figure(const struct row *r, double *v, char *against, size_t size)
{
	return baseline_beside(baseline_csv, r->talk, r->against, v, against, size);
}

/*
 * --baseline: the user's own figure for row R, by our method's name, else the talk's row it
 * stands for; under the same rule. Its row (NULL: none) and, in *beside, whether it stands.
 */
static const char *user_figure(const char *user_csv, const struct row *r, double *v, char *against,
			       size_t size, bool *beside)
{
	int b = baseline_beside(user_csv, r->name, r->against, v, against, size);
	const char *row = r->name;

	if (b < 0) {
		b = baseline_beside(user_csv, r->talk, r->against, v, against, size);
		row = r->talk;
	}
	*beside = b == 1;
	return b < 0 ? NULL : row;
}

/*
 * The user's rows printed beside none of ours, and why, in why ("" when every row stands
 * somewhere): a pulse row, no measured row of ours by that name (or talk row), or another
 * reference than our row's.
 */
static void user_left_out(const char *user_csv, const struct row *rows, int n, char *why,
			  size_t size)
{
	char f[8][128], against[64];
	const struct row *mine;
	const char *urow;
	size_t len = 0;
	bool beside, stood;
	double v;
	int u, i;

	why[0] = '\0';
	for (u = 0; user_csv && !baseline_nth(user_csv, u, f); u++) {
		stood = false;
		mine = NULL;
		for (i = 0; i < n; i++) {
			if (!rows[i].measured)
				continue;
			urow = user_figure(user_csv, &rows[i], &v, against, sizeof(against),
					   &beside);
			if (urow && !strcmp(urow, f[0])) {
				mine = &rows[i];
				stood |= beside;
			}
		}
		if (stood)
			continue;
		if (strcmp(f[1], "overhead"))
			len += snprintf(why + len, len < size ? size - len : 0,
					"%s%s (a %s figure, not an overhead)", len ? "; " : "",
					f[0], f[1]);
		else if (!mine)
			len += snprintf(why + len, len < size ? size - len : 0,
					"%s%s (no measured row of ours by that name)",
					len ? "; " : "", f[0]);
		else
			len += snprintf(why + len, len < size ? size - len : 0,
					"%s%s (against %s; our %s against %s)", len ? "; " : "",
					f[0], *f[6] ? f[6] : "nothing", mine->name, mine->against);
	}
}

/* a series' fit, beside the talk's slope (data/baseline-klinger-elce2023.csv, row TALK) */
static void print_fit(struct row *rows, int n, const char *series, const char *what,
		      const char *unit, const char *talk)
{
	double slope, r2, v;
	int npts;

	if (ov_series_fit(rows, n, series, &slope, &r2, &npts)) {
		printf("  %s: too few points (%d)\n", what, npts);
		return;
	}
	printf("  %s: %.1f ns per additional %s, R^2 %.3f (%d points); talk ", what, slope, unit,
	       r2, npts);
	if (!baseline_find(baseline_csv, talk, "overhead", &v, NULL, NULL, 0))
		printf("%.0f ns (row %s)\n", v, talk);
	else
		printf("-\n");
}

void ov_print_text(struct row *rows, int n, const struct context *cx)
{
	double v, uv, tv, tsd;
	char against[64], uagainst[64], left[1024];
	const char *urow;
	bool ubeside;
	int i, t;

	printf("gpiolat --overhead: what each tracing method adds to one GPIO set (ns per set)\n");
	if (cx->emulated)
		printf("TIMINGS ARE EMULATED (qemu TCG): compare the rows with each other, not with "
		       "the talk's oscilloscope nanoseconds\n");
	printf("BPF JIT: %s\n", jit_state());
	printf("clock: %s (resolution %llu ns)\n", cx->clock,
	       (unsigned long long)cx->resolution_ns);
	printf("method: alternating phases of %lld pulses (reference, method, reference, ...), "
	       "%d repetitions; a phase = median ns per set of its batches after %d warm-up "
	       "batches; overhead = method - mean of the adjacent references; 95 %% CI of "
	       "that mean as sampled (neighbouring repetitions share a reference phase)\n",
	       cx->pulses, cx->reps, WARMUP);
	printf("BPF run-time stats: %s\n",
	       cx->bpf_stats ? "ON for the whole run (--bpf-stats): every BPF row's shift includes "
			       "their two clock reads per run" :
			       "off (every shift without them; --bpf-stats for the run time)");
	if (cx->floor_n)
		printf("untraced: %.1f ns per set (mean of %d untraced phases); noise floor: sd "
		       "%.1f ns between untraced phases\n",
		       cx->untraced_mean, cx->floor_n, cx->floor_sd);
	else
		printf("untraced: no untraced phases in this selection (no noise floor)\n");
	if (cx->user_base.n)
		printf("untraced ioctl toggler (utoggle, GPIO_V2_LINE_SET_VALUES_IOCTL, "
		       "clock_gettime CLOCK_MONOTONIC) on %s: %.1f ns per set (mean of %llu phases, "
		       "sd %.1f ns); the user rows' reference\n",
		       cx->user_line, cx->user_base.mean, (unsigned long long)cx->user_base.n,
		       stat_sd(&cx->user_base));
	if (!baseline_find(baseline_csv, "tracing-configured-rt", "pulse", &tv, &tsd, NULL, 0))
		printf("talk: untraced pulse %.1f ns (sd %.1f ns), row tracing-configured-rt\n", tv,
		       tsd);
	if (cx->user_csv)
		printf("yours (--baseline %s): your scope's figures, by our method's name or the "
		       "talk's row\n",
		       cx->user_csv_path);
	printf("%%ref: the overhead as %% of the row's own reference (its 'against' phases' mean "
	       "ns per set); talk: its figure only where it measured the same kind of method "
	       "against the same reference, and for a method that fires once a pulse ours per "
	       "pulse beside it (the talk measured pulse+: docs/overhead.md)\n");
	printf("\n%-26s %-22s %12s %12s %8s %5s %8s  %s\n", "method", "against", "overhead_ns",
	       "ci95_ns", "%ref", "reps", "batches", "talk (row, against)");
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];

		if (!r->measured) {
			printf("%-26s not %s: %s\n", r->name,
			       r->not_fired ? "measured" : "available", r->why);
			continue;
		}
		printf("%-26s %-22s %12.1f %12.1f ", r->name, r->against, r->mean, r->ci);
		if (r->ref_mean > 0)
			printf("%7.0f%% ", 100 * r->mean / r->ref_mean);
		else
			printf("%8s ", "-");
		printf("%5d %8llu  ", r->reps, (unsigned long long)r->batches);
		t = talk_figure(r, &v, against, sizeof(against));
		if (t == 1 && r->fires == FIRES_PULSE)
			/* the talk's pulse+ held one entry and one return: ours per pulse */
			printf("%.0f ns per pulse+ (%s, against %s); ours per pulse %.1f +- %.1f",
			       v, r->talk, against, 2 * r->mean, 2 * r->ci);
		else if (t == 1)
			printf("%.0f ns (%s, against %s)", v, r->talk, against);
		else if (t == 0)
			printf("- (its %s is against %s)", r->talk, *against ? against : "nothing");
		else
			printf("-");
		urow = user_figure(cx->user_csv, r, &uv, uagainst, sizeof(uagainst), &ubeside);
		if (urow && ubeside)
			printf("  yours: %.0f ns (%s, against %s)", uv, urow, uagainst);
		printf("\n");
	}
	user_left_out(cx->user_csv, rows, n, left, sizeof(left));
	if (*left)
		printf("yours left out (a figure stands beside a row only when measured against the "
		       "same reference): %s\n",
		       left);
	printf("\nfired (each method phase's own count of its method, read before and after the "
	       "phase; a row whose count falls short prints no figure):\n");
	for (i = 0; i < n; i++)
		if (rows[i].measured)
			printf("  %-24s %s\n", rows[i].name,
			       ov_fired_text(&rows[i], left, sizeof(left)));
	printf("\nlinear cost model (least squares over k = 1..10, on the rows' means):\n");
	print_fit(rows, n, "events", "module events", "event", "event-per-extra");
	print_fit(rows, n, "kprobes", "kprobes on the chain", "kprobe", "kprobe-per-extra");
	for (i = 0; i < n && !(rows[i].measured && rows[i].bpf); i++)
		;
	if (i < n)
		printf("\ntrust (BPF): the traced ns per set of each method phase by two clocks, the "
		       "module's batches (mean over the phase) and the program's own (its "
		       "fall-to-fall periods / 2, its own cost inside); agree when |program - "
		       "module| <= reference / burst (the module's clock reads, no period of the "
		       "program has them) + t(99.9 %%) sd / sqrt(phases): 1 false alarm in 1000; "
		       "too-noisy when that limit is half the module's figure or more (a clock off "
		       "by half would pass) (docs/overhead.md); the gpiolat program's rows pay for "
		       "the period count this check needs (a few instructions per falling set, "
		       "counted only under --overhead: the measurement inside, named)\n"
		       "  shown, not judged: run (BPF run time per run, --bpf-stats; a mean); hist "
		       "(the program's pulse width minus the reference: its high phase only, most "
		       "of the program's cost is in the low phase)\n");
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		double run = r->fig.run_cnt ? (double)r->fig.run_time_ns / r->fig.run_cnt : NAN;
		const struct trust_verdict *t = &r->tv;

		if (!r->measured || !r->bpf)
			continue;
		printf("  %-24s %-10s ", r->name, ov_trust_word(r));
		if (t->v == TRUST_NONE && r->fig.trust.tphases)
			printf("(%s): module %.1f ns per set (sd %.1f, %llu batches, %d phases)",
			       t->why, t->mod, t->mod_sd,
			       (unsigned long long)r->fig.trust.t_batches, r->fig.trust.tphases);
		else if (t->v == TRUST_NONE)
			printf("(%s)", *t->why ? t->why : "one clock only: a tool's program");
		else
			printf("traced ns per set: module %.1f (sd %.1f, %llu batches), program %.1f "
			       "(sd %.1f, %llu periods), %d phases; program - module %+.1f (sd %.1f), "
			       "limit %.1f",
			       t->mod, t->mod_sd, (unsigned long long)r->fig.trust.t_batches,
			       t->prog, t->prog_sd, (unsigned long long)r->fig.trust.t_periods,
			       r->fig.trust.tphases, t->diff, t->sd, t->limit);
		if (t->v != TRUST_NONE && t->prog > 0 && r->fig.trust.t_scale != 1)
			printf(" [the program's clock scaled x%g ON PURPOSE: GPIOLAT_TRUST_SCALE]",
			       r->fig.trust.t_scale);
		if (r->fig.run_cnt)
			printf(" | run %.1f (%llu runs)", run, (unsigned long long)r->fig.run_cnt);
		if (r->fig.hist_ok)
			printf(" | hist p50 %.1f, mean %.1f (%llu pulses)",
			       r->fig.hist_p50 - r->ref_mean, r->fig.hist_mean - r->ref_mean,
			       (unsigned long long)r->fig.hist_pairs);
		printf("\n");
	}
	printf("run time: %.0f s\n", cx->duration_s);
}

void ov_print_json(struct row *rows, int n, const struct context *cx)
{
	struct json_object *top = json_doc("gpiolat --overhead", NULL),
			   *a = json_object_new_array(), *f;
	double v, slope, r2;
	char against[64], left[1024];
	const char *urow;
	bool ubeside;
	int i, npts, tb;
	static const char *const series[] = { "events", "kprobes" };

	json_object_object_add(top, "emulated", json_object_new_boolean(cx->emulated));
	json_object_object_add(top, "clock", json_object_new_string(cx->clock));
	json_object_object_add(top, "resolution_ns", json_object_new_uint64(cx->resolution_ns));
	json_object_object_add(top, "pulses_per_phase", json_object_new_int64(cx->pulses));
	json_object_object_add(top, "repetitions", json_object_new_int(cx->reps));
	json_object_object_add(top, "bpf_stats", json_object_new_boolean(cx->bpf_stats));
	json_object_object_add(top, "warmup_batches", json_object_new_int(WARMUP));
	json_object_object_add(
		top, "phase_statistic",
		json_object_new_string("median ns per set over the phase's batches"));
	json_object_object_add(top, "untraced_ns_per_set", json_num(cx->untraced_mean));
	json_object_object_add(top, "noise_floor_sd_ns", json_num(cx->floor_sd));
	json_object_object_add(top, "noise_floor_phases", json_object_new_int(cx->floor_n));
	if (cx->user_base.n) {
		json_object_object_add(top, "user_untraced_ns_per_set",
				       json_num(cx->user_base.mean));
		json_object_object_add(top, "user_noise_floor_sd_ns",
				       json_num(stat_sd(&cx->user_base)));
		json_object_object_add(top, "user_untraced_phases",
				       json_object_new_uint64(cx->user_base.n));
		json_object_object_add(top, "user_line", json_object_new_string(cx->user_line));
	}
	json_object_object_add(top, "duration_s", json_object_new_double(cx->duration_s));
	if (cx->user_csv_path)
		json_object_object_add(top, "user_baseline",
				       json_object_new_string(cx->user_csv_path));
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		struct json_object *j = json_object_new_object(), *d;
		int k;

		json_object_object_add(j, "method", json_object_new_string(r->name));
		json_object_object_add(j, "group", json_object_new_string(r->group));
		json_object_object_add(j, "measured", json_object_new_boolean(r->measured));
		if (!r->measured) {
			json_object_object_add(j, r->not_fired ? "not_measured" : "not_available",
					       json_object_new_string(r->why));
			if (r->not_fired)
				json_object_object_add(j, "fired", ov_fired_json(r));
			json_object_array_add(a, j);
			continue;
		}
		json_object_object_add(j, "fired", ov_fired_json(r));
		json_object_object_add(j, "against", json_object_new_string(r->against));
		if (r->series) {
			json_object_object_add(j, "series", json_object_new_string(r->series));
			json_object_object_add(j, "k", json_object_new_int(r->k));
		}
		json_object_object_add(j, "overhead_ns", json_num(r->mean));
		json_object_object_add(j, "median_ns", json_num(r->med));
		json_object_object_add(j, "lowest_ns", json_num(r->low));
		json_object_object_add(j, "ci95_ns", json_num(r->ci));
		json_object_object_add(j, "ci999_ns", json_num(r->ci999));
		json_object_object_add(j, "sd_ns", json_num(r->sd));
		/* what ci95_ns is made of: t95(df) se_ns (two runs compared: host/compare.py) */
		json_object_object_add(j, "se_ns", json_num(r->se));
		json_object_object_add(j, "df", isnan(r->se) ? NULL : json_object_new_int64(r->df));
		/* every figure of a row against its one reference: the % too */
		json_object_object_add(j, "percent_of_reference",
				       r->ref_mean > 0 ? json_num(100 * r->mean / r->ref_mean) :
							 NULL);
		json_object_object_add(j, "percent_of", json_object_new_string(r->against));
		json_object_object_add(j, "reference_ns_per_set", json_num(r->ref_mean));
		/* per set or per pulse: how the row stands to the talk's pulse+ (overhead_int.h) */
		json_object_object_add(j, "fires", json_object_new_string(ov_fires_name(r->fires)));
		json_object_object_add(j, "repetitions", json_object_new_int(r->reps));
		json_object_object_add(j, "batches", json_object_new_uint64(r->batches));
		json_object_object_add(j, "pulses", json_object_new_uint64(r->pulses));
		d = json_object_new_array();
		for (k = 0; k < r->reps; k++)
			json_object_array_add(d, json_object_new_double(r->diff[k]));
		json_object_object_add(j, "differences_ns", d);
		urow = user_figure(cx->user_csv, r, &v, against, sizeof(against), &ubeside);
		if (urow && ubeside) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "row", json_object_new_string(urow));
			json_object_object_add(t, "overhead_ns", json_object_new_double(v));
			json_object_object_add(t, "against", json_object_new_string(against));
			json_object_object_add(j, "yours", t);
		}
		/* the talk's row for the method, beside it only under the rule (same_reference) */
		tb = talk_figure(r, &v, against, sizeof(against));
		if (tb >= 0) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "row", json_object_new_string(r->talk));
			json_object_object_add(t, "overhead_ns", json_object_new_double(v));
			json_object_object_add(t, "against", json_object_new_string(against));
			json_object_object_add(t, "same_reference", json_object_new_boolean(tb));
			/* ours in the talk's quantity: per pulse for a method that fires once a pulse */
			k = r->fires == FIRES_PULSE ? 2 : 1;
			json_object_object_add(t, "ours_per",
					       json_object_new_string(k == 2 ? "pulse" : "set"));
			json_object_object_add(t, "ours_ns", json_num(k * r->mean));
			json_object_object_add(t, "ours_ci95_ns", json_num(k * r->ci));
			json_object_object_add(j, "talk", t);
		}
		if (r->bpf) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "shift_ns", json_num(r->mean));
			json_object_object_add(t, "run_cnt",
					       json_object_new_uint64(r->fig.run_cnt));
			json_object_object_add(
				t, "run_time_ns_per_run",
				r->fig.run_cnt ? json_object_new_double((double)r->fig.run_time_ns /
									r->fig.run_cnt) :
						 NULL);
			json_object_object_add(t, "hist_pulses",
					       json_object_new_uint64(r->fig.hist_pairs));
			json_object_object_add(
				t, "hist_mean_pulse_ns",
				r->fig.hist_ok ? json_object_new_double(r->fig.hist_mean) : NULL);
			json_object_object_add(
				t, "hist_p50_pulse_ns",
				r->fig.hist_ok ? json_object_new_double(r->fig.hist_p50) : NULL);
			json_object_object_add(
				t, "hist_minus_untraced_ns",
				r->fig.hist_ok ?
					json_object_new_double(r->fig.hist_p50 - r->ref_mean) :
					NULL);
			json_object_object_add(
				t, "hist_mean_minus_untraced_ns",
				r->fig.hist_ok ?
					json_object_new_double(r->fig.hist_mean - r->ref_mean) :
					NULL);
			/* the check (docs/output-format.md): disagree true only on a verdict */
			json_object_object_add(t, "verdict",
					       json_object_new_string(ov_trust_word(r)));
			json_object_object_add(t, "disagree",
					       json_object_new_boolean(r->tv.v == TRUST_DISAGREE));
			if (r->tv.v == TRUST_DISAGREE)
				json_object_object_add(t, "disagree_why",
						       json_object_new_string(r->tv.why));
			if (r->tv.v == TRUST_NONE)
				json_object_object_add(
					t, "not_judged",
					json_object_new_string(
						*r->tv.why ? r->tv.why :
							     "one clock only: a tool's program"));
			/* the module's figures also without the program's (the observer's) */
			if (r->fig.trust.tphases) {
				struct json_object *c = json_object_new_object(), *pm, *pp, *pk;

				pm = json_object_new_array();
				pp = json_object_new_array();
				pk = json_object_new_array();
				for (k = 0; k < r->fig.trust.tphases; k++) {
					json_object_array_add(pm, json_num(r->fig.trust.t_mod[k]));
					json_object_array_add(pp, json_num(r->fig.trust.t_prog[k]));
					json_object_array_add(
						pk, json_object_new_int(r->fig.trust.t_index[k]));
				}
				json_object_object_add(c, "quantity",
						       json_object_new_string("traced ns per set"));
				json_object_object_add(c, "phases",
						       json_object_new_int(r->fig.trust.tphases));
				json_object_object_add(c, "phases_left_out",
						       json_object_new_int(r->fig.trust.tdropped));
				/* which of the row's method phases (0: the first) */
				json_object_object_add(c, "phase_numbers", pk);
				json_object_object_add(c, "module_ns_per_set", json_num(r->tv.mod));
				json_object_object_add(c, "module_sd_ns", json_num(r->tv.mod_sd));
				json_object_object_add(
					c, "module_batches",
					json_object_new_uint64(r->fig.trust.t_batches));
				json_object_object_add(c, "module_phases_ns", pm);
				json_object_object_add(c, "program_ns_per_set",
						       json_num(r->tv.prog));
				json_object_object_add(c, "program_sd_ns", json_num(r->tv.prog_sd));
				json_object_object_add(
					c, "program_periods",
					json_object_new_uint64(r->fig.trust.t_periods));
				json_object_object_add(c, "program_phases_ns", pp);
				json_object_object_add(c, "program_clock_scale",
						       json_num(r->fig.trust.t_scale));
				json_object_object_add(c, "difference_ns", json_num(r->tv.diff));
				json_object_object_add(c, "difference_sd_ns", json_num(r->tv.sd));
				json_object_object_add(c, "burst", json_num(r->tv.burst));
				json_object_object_add(c, "allowance_ns", json_num(r->tv.allow));
				json_object_object_add(c, "limit_ns", json_num(r->tv.limit));
				json_object_object_add(t, "clocks", c);
			}
			json_object_object_add(j, "trust", t);
		}
		json_object_array_add(a, j);
	}
	json_object_object_add(top, "methods", a);
	user_left_out(cx->user_csv, rows, n, left, sizeof(left));
	if (cx->user_csv_path)
		json_object_object_add(top, "user_baseline_left_out",
				       *left ? json_object_new_string(left) : NULL);
	f = json_object_new_object();
	for (i = 0; i < 2; i++) {
		struct json_object *s = json_object_new_object();

		if (!ov_series_fit(rows, n, series[i], &slope, &r2, &npts)) {
			json_object_object_add(s, "slope_ns", json_object_new_double(slope));
			json_object_object_add(s, "r2", json_num(r2));
		}
		json_object_object_add(s, "points", json_object_new_int(npts));
		json_object_object_add(
			s, "talk_row",
			json_object_new_string(i ? "kprobe-per-extra" : "event-per-extra"));
		if (!baseline_find(baseline_csv, i ? "kprobe-per-extra" : "event-per-extra",
				   "overhead", &v, NULL, NULL, 0))
			json_object_object_add(s, "talk_slope_ns", json_object_new_double(v));
		json_object_object_add(f, series[i], s);
	}
	json_object_object_add(top, "linear_fits", f);
	json_print_put(top, JSON_C_TO_STRING_PRETTY);
}
