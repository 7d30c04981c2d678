// SPDX-License-Identifier: GPL-2.0
/*
 * test-overhead: --overhead's pure parts for tests/host/test_loader_units.py. Not installed.
 * The providers are stubbed here (empty struct provider): only the table, its lookup and --only are
 * exercised, never a tracing method.
 *
 *   test-overhead stats REF0 M0 REF1 ... REFn   a row's figures from its phases
 *   test-overhead fit K:MEAN...       the least-squares fit of a series ("events")
 *   test-overhead coverage TRIALS REPS SD_REF SD_METHOD SEED   the intervals' coverage
 *   test-overhead trust verdict|text|json REF BURST MOD:PROG ...   the BPF trust check of
 *                                     a row (bpf-gpiolat-tracepoint) whose reference is REF ns
 *                                     per set, BURST pulses a batch, and per method phase the
 *                                     module's and the program's traced ns per set: its verdict
 *                                     line, or the report
 *   test-overhead trust-sim TRIALS PHASES SD OFFSET SEED   the check's false-alarm rate: phases
 *                                     of normal noise SD around the true value, the program's
 *                                     off by OFFSET ns per set (the module's fixed part)
 *   test-overhead baseline FILE       --baseline FILE: "ok ROWS" or the error line
 *   test-overhead only LIST           the methods --only LIST selects, or "bad ITEM"
 *   test-overhead lookup NAME         a method's name, kind, reference and talk row
 *   test-overhead beside ROW OURS [FILE]   the one rule (baseline_beside) for the talk's ROW,
 *                                     or FILE's, beside a row of ours against OURS
 *   test-overhead report text|json FILE|- NAME:MEAN:REF ...   the report (ov_report.c) of
 *                                     measured rows (REF: the mean of their reference phases;
 *                                     the burst-mode untraced mean is 1000), with --baseline FILE
 *   test-overhead fired text|json NAME SETS:FIRED ...   the fired check (ov_fired.c) of a row
 *                                     measured at 500 ns whose method phases ran SETS sets each
 *                                     and whose count covered FIRED of them; its report
 *                                     ("-": a row without a count)
 *   test-overhead withheld LIST NAME REP   GPIOLAT_WITHHOLD=LIST: "yes" when repetition REP
 *                                     (from 1) of NAME is withheld, else "no"
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"
#include "providers/gpio_hooks.h"

/* what the report reads of the run (overhead.c's context): 5 repetitions of 100 pulses */
#define TEST_CX .clock = "test", .untraced_mean = 1000, .floor_n = 3, .pulses = 100, .reps = 5

/* --baseline FILE, as the run holds it */
static struct user_csv user;

const struct provider prov_events, prov_filter, prov_trigger, prov_hist, prov_synth, prov_marker,
	prov_kprobe_events, prov_uprobe_events, prov_function, prov_graph, prov_printk,
	prov_bpf_empty, prov_bpf_gpiolat, prov_strace, prov_bpftrace, prov_ply, prov_self_schist;
/* the hooks' table too (--list --json's "hook": null here) */
const struct gpio_hook_info gpio_hooks[GPIO_HOOK_MAX];

/* a row from its phases as measured: REF0 M0 REF1 M1 ... REFn */
static int stats(int n, char **v)
{
	struct row r = {};
	int i;

	if (n < 3 || n % 2 == 0 || (n - 1) / 2 > MAX_REPS)
		return 2;
	for (i = 0; 2 * i + 2 < n; i++) {
		double b0 = strtod(v[2 * i], NULL), t = strtod(v[2 * i + 1], NULL);
		double b1 = strtod(v[2 * i + 2], NULL);

		r.diff[i] = t - (b0 + b1) / 2;
		alt_stat_add(&r.st, i, b0, t, b1);
	}
	r.reps = i;
	ov_row_stats(&r);
	printf("mean %.6f sd %.6f ci %.6f ci999 %.6f med %.6f low %.6f\n", r.mean, r.sd, r.ci,
	       r.ci999, r.med, r.low);
	return 0;
}

static int fit(int n, char **v)
{
	struct row rows[32] = {};
	double slope, r2;
	int i, npts;

	for (i = 0; i < n && i < 32; i++) {
		rows[i].measured = true;
		rows[i].series = "events";
		if (sscanf(v[i], "%d:%lf", &rows[i].k, &rows[i].mean) != 2)
			return 2;
	}
	if (ov_series_fit(rows, n, "events", &slope, &r2, &npts)) {
		printf("none %d\n", npts);
		return 0;
	}
	printf("slope %.6f r2 %.6f points %d\n", slope, r2, npts);
	return 0;
}

/* xorshift64*: a fixed sequence per seed, so the simulation's figures are repeatable */
static unsigned long long rng_state;

static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* a standard normal deviate (Box-Muller) */
static double gauss(void)
{
	double u = uniform(), w = uniform();

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * w);
}

/*
 * coverage TRIALS REPS SD_REF SD_METHOD SEED: TRIALS synthetic alternations of REPS
 * repetitions, every phase the true value plus normal noise (the references SD_REF, the
 * method's phases SD_METHOD; true overhead 100), measured as --overhead does. Prints how often
 * the 95 % interval covers the truth, how often the 99.9 % check fails (a control run whose
 * truth is 0 is outside its 99.9 % interval), and the same two for Student's t over the
 * differences (what the rows used before: the repetitions are not independent).
 */
static int coverage(char **v)
{
	long trials = strtol(v[0], NULL, 10), k;
	int reps = atoi(v[1]), i;
	double sdb = strtod(v[2], NULL), sdt = strtod(v[3], NULL);
	long cover = 0, fail999 = 0, naive_cover = 0, naive_fail999 = 0;

	rng_state = strtoull(v[4], NULL, 10) | 1;
	if (trials < 1 || reps < 2 || reps > MAX_REPS)
		return 2;
	for (k = 0; k < trials; k++) {
		struct row r = { .reps = reps };
		double b0 = 1000 + sdb * gauss(), b1, t, se;

		for (i = 0; i < reps; i++) {
			t = 1100 + sdt * gauss();
			b1 = 1000 + sdb * gauss();
			r.diff[i] = t - (b0 + b1) / 2;
			alt_stat_add(&r.st, i, b0, t, b1);
			b0 = b1;
		}
		ov_row_stats(&r);
		cover += fabs(r.mean - 100) <= r.ci;
		fail999 += fabs(r.mean - 100) > r.ci999;
		se = r.sd / sqrt(reps);
		naive_cover += fabs(r.mean - 100) <= student_t95(reps - 1) * se;
		naive_fail999 += fabs(r.mean - 100) > student_t999(reps - 1) * se;
	}
	printf("cover95 %.6f fail999 %.6f naive_cover95 %.6f naive_fail999 %.6f\n",
	       (double)cover / trials, (double)fail999 / trials, (double)naive_cover / trials,
	       (double)naive_fail999 / trials);
	return 0;
}

/* trust FMT REF BURST MOD:PROG...: one BPF row's check, from its phases as measured */
static int trust(int argc, char **argv)
{
	static struct row r;
	struct context cx = { TEST_CX };
	double burst;
	int i;

	if (argc < 3)
		return 2;
	r = (struct row){ .measured = true, .bpf = true, .reps = 5, .ci = 1, .fig.trust.t_scale = 1 };
	snprintf(r.name, sizeof(r.name), "bpf-gpiolat-tracepoint");
	snprintf(r.group, sizeof(r.group), "bpf");
	snprintf(r.against, sizeof(r.against), "untraced");
	r.ref_mean = strtod(argv[1], NULL);
	burst = strtod(argv[2], NULL);
	for (i = 3; i < argc && r.fig.trust.tphases < MAX_REPS; i++, r.fig.trust.tphases++)
		if (sscanf(argv[i], "%lf:%lf", &r.fig.trust.t_mod[r.fig.trust.tphases], &r.fig.trust.t_prog[r.fig.trust.tphases]) == 2)
			r.fig.trust.t_index[r.fig.trust.tphases] = r.fig.trust.tphases;
		else
			return 2;
	r.fig.trust.t_batches = 20 * r.fig.trust.tphases;
	r.fig.trust.t_pulses = (__u64)(burst * r.fig.trust.t_batches + 0.5);
	r.fig.trust.t_periods = r.fig.trust.t_pulses - r.fig.trust.t_batches;
	r.mean = r.fig.trust.tphases ? r.fig.trust.t_mod[0] - r.ref_mean : 0;
	ov_trust_check(&r);
	if (!strcmp(argv[0], "json"))
		ov_print_json(&r, 1, &cx);
	else if (!strcmp(argv[0], "text"))
		ov_print_text(&r, 1, &cx);
	else
		printf("%s %s\n", ov_trust_word(&r), r.tv.why);
	return 0;
}

/*
 * trust-sim TRIALS PHASES SD OFFSET SEED: TRIALS rows whose module and program phases are the
 * same true figure (2000 ns per set, reference 200, burst 5) plus independent normal noise SD
 * each, the program's off by OFFSET (the module's fixed part, which the allowance covers up to
 * 200 / 5 = 40 ns): how often the check says DISAGREE (its false-alarm rate)
 */
static int trust_sim(char **v)
{
	long trials = strtol(v[0], NULL, 10), k, bad = 0;
	int phases = atoi(v[1]), i;
	double sd = strtod(v[2], NULL), off = strtod(v[3], NULL);

	rng_state = strtoull(v[4], NULL, 10) | 1;
	if (trials < 1 || phases < 2 || phases > MAX_REPS)
		return 2;
	for (k = 0; k < trials; k++) {
		struct row r = { .ref_mean = 200, .fig.trust.tphases = phases, .fig.trust.t_batches = 20 * phases };

		r.fig.trust.t_pulses = 5 * r.fig.trust.t_batches;
		for (i = 0; i < phases; i++) {
			r.fig.trust.t_mod[i] = 2000 + sd * gauss();
			r.fig.trust.t_prog[i] = 2000 + off + sd * gauss();
		}
		ov_trust_check(&r);
		bad += r.tv.v == TRUST_DISAGREE;
	}
	printf("false_alarm %.6f trials %ld\n", (double)bad / trials, trials);
	return 0;
}

/* report FMT FILE|- NAME:MEAN:REF...: rows as the engine fills them (ov_engine.c) */
static int report(int argc, char **argv)
{
	static struct row rows[64];
	struct context cx = { TEST_CX };
	char why[512], name[40];
	const struct method *m;
	int i, n = 0;

	if (argc < 2 || (strcmp(argv[1], "-") && ov_baseline_load(&user, argv[1], why, sizeof(why))))
		return 2;
	cx.user_csv = user.text;
	cx.user_csv_path = user.path;
	for (i = 2; i < argc && n < 64; i++, n++) {
		struct row *r = &rows[n];

		if (sscanf(argv[i], "%39[^:]:%lf:%lf", name, &r->mean, &r->ref_mean) != 3)
			return 2;
		m = ov_method_by_name(name);
		if (!m)
			return 2;
		snprintf(r->name, sizeof(r->name), "%s", m->name);
		snprintf(r->group, sizeof(r->group), "%s", ov_kind_name(m->kind));
		snprintf(r->against, sizeof(r->against), "%s", ov_ref_label(m));
		r->talk = m->talk;
		r->fires = m->fires;
		r->series = m->series;
		r->k = ov_series_k(m);
		r->measured = true;
		r->reps = 5;
		r->ci = 1;
	}
	if (!strcmp(argv[0], "json"))
		ov_print_json(rows, n, &cx);
	else
		ov_print_text(rows, n, &cx);
	return 0;
}

static int fired(int argc, char **argv)
{
	static struct row r;
	struct context cx = { TEST_CX };
	const struct method *m = argc >= 2 ? ov_method_by_name(argv[1]) : NULL;
	unsigned long long sets, f;
	bool icount = false;
	int i;

	if (!m)
		return 2;
	snprintf(r.name, sizeof(r.name), "%s", m->name);
	snprintf(r.group, sizeof(r.group), "%s", ov_kind_name(m->kind));
	snprintf(r.against, sizeof(r.against), "%s", ov_ref_label(m));
	r.measured = true;
	r.reps = argc - 2;
	r.mean = 500;
	r.ci = 1;
	r.ref_mean = 1000;
	r.counted = true;
	r.fired_by = "the test's count";
	for (i = 2; i < argc && r.fphases < MAX_REPS; i++) {
		if (!strncmp(argv[i], "icount-sd=", 10)) {
			/* the run in TIMING=icount, its repetitions' sd this */
			icount = true;
			r.sd = strtod(argv[i] + 10, NULL);
			continue;
		}
		if (!strcmp(argv[i], "-")) {
			r.counted = false;
			snprintf(r.fired_why, sizeof(r.fired_why), "the test's row keeps no count");
			continue;
		}
		if (sscanf(argv[i], "%llu:%llu", &sets, &f) != 2)
			return 2;
		r.phase_sets[r.fphases] = sets;
		r.phase_fired[r.fphases++] = f;
		r.sets += sets;
		r.fired_sets += f;
	}
	ov_fired_check(&r, icount);
	if (!strcmp(argv[0], "json"))
		ov_print_json(&r, 1, &cx);
	else
		ov_print_text(&r, 1, &cx);
	return 0;
}

int main(int argc, char **argv)
{
	char why[512];
	int i;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "stats"))
		return stats(argc - 2, argv + 2);
	if (!strcmp(argv[1], "fit"))
		return fit(argc - 2, argv + 2);
	if (!strcmp(argv[1], "coverage") && argc == 7)
		return coverage(argv + 2);
	if (!strcmp(argv[1], "trust"))
		return trust(argc - 2, argv + 2);
	if (!strcmp(argv[1], "fired") && argc >= 4)
		return fired(argc - 2, argv + 2);
	if (!strcmp(argv[1], "withheld") && argc == 5) {
		printf("%s\n", ov_rep_listed(argv[2], argv[3], atoi(argv[4]) - 1) ? "yes" : "no");
		return 0;
	}
	if (!strcmp(argv[1], "trust-sim") && argc == 7)
		return trust_sim(argv + 2);
	if (!strcmp(argv[1], "baseline") && argc == 3) {
		if (ov_baseline_load(&user, argv[2], why, sizeof(why))) {
			printf("%s\n", why);
			return 1;
		}
		printf("ok %s\n", user.path);
		return 0;
	}
	if (!strcmp(argv[1], "only") && argc == 3) {
		if (ov_only_check(argv[2], why, sizeof(why))) {
			printf("bad %s\n", why);
			return 1;
		}
		for (i = 0; i < ov_nmethods; i++)
			if (ov_only_selected(argv[2], &ov_methods[i]))
				printf("%s\n", ov_methods[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "against") && argc == 4) {
		char against[128];
		double v;

		if (ov_baseline_load(&user, argv[2], why, sizeof(why))) {
			printf("%s\n", why);
			return 1;
		}
		if (baseline_find(user.text, argv[3], "overhead", &v, NULL, NULL, 0) ||
		    baseline_against(user.text, argv[3], "overhead", against, sizeof(against)))
			return 1;
		printf("%.1f %s\n", v, against);
		return 0;
	}
	if (!strcmp(argv[1], "beside") && (argc == 4 || argc == 5)) {
		char against[128];
		double v;
		int b;

		if (argc == 5 && ov_baseline_load(&user, argv[4], why, sizeof(why))) {
			printf("%s\n", why);
			return 1;
		}
		b = baseline_beside(argc == 5 ? user.text : baseline_csv, argv[2], argv[3], &v,
				    against, sizeof(against));
		if (b < 0)
			return 1;
		printf("%s %.2f %s\n", b ? "beside" : "not", v, *against ? against : "-");
		return 0;
	}
	if (!strcmp(argv[1], "report"))
		return report(argc - 2, argv + 2);
	if (!strcmp(argv[1], "lookup") && argc == 3) {
		const struct method *m = ov_method_by_name(argv[2]);

		if (!m)
			return 1;
		printf("%s %s %s %s\n", m->name, ov_kind_name(m->kind), ov_ref_label(m),
		       m->talk ? m->talk : "-");
		return 0;
	}
	return 2;
}
