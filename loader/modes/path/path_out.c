// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --path: the talk's two tables filled in, with the BeagleBone post's logic-analyser
 * rates beside (data/baseline-bbb-gpio-toggle-post.csv, embedded); text, JSON or CSV.
 *
 * Every figure: mean of the independent repetitions, 95 % interval from Student's t (and 99.9 %
 * in JSON and CSV). The rate is the square wave's frequency from the same estimate as the ns
 * column, 1 / (2 x mean ns per set) (each repetition runs the same number of sets: total sets
 * over total time); its interval is the ns interval's ends mapped through the same function
 * (exact for a monotone transform), [1 / (2 (mean + h)), 1 / (2 (mean - h))], unbounded above
 * when the ns interval reaches 0. A mean of per-repetition rates would be biased upward (the
 * mean of reciprocals). A difference's interval is Welch's (Welch-Satterthwaite degrees of
 * freedom).
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes/path/path_int.h"
#include "core/baseline.h"
#include "core/hist.h"
#include "core/jsonout.h"

extern const char bbb_post_csv[];

static const struct {
	enum path_row a, b; /* a - b */
	const char *what;
} diffs[] = {
	{ P_SUBSYS, P_RAW, "gpio subsystem" }, { P_IOCTL, P_SUBSYS, "syscall and vfs" },
	{ P_LIBGPIOD, P_IOCTL, "libgpiod" },   { P_SYSFS, P_IOCTL, "sysfs" },
	{ P_BASH, P_SYSFS, "bash" },
};

/* the post's toggler names for our rows */
static const char
	*const post_key[P_NROWS] = { [P_SYSFS] = "sysfs", [P_MMAP] = "mmap", [P_BASH] = "bash" };

/* mean, variance (n - 1) and count of x[0..n) */
static struct stat_acc acc_of(const double *x, int n)
{
	struct stat_acc s = { 0 };
	int i;

	for (i = 0; i < n; i++)
		stat_add(&s, x[i]);
	return s;
}

/* the post's rate for a row, kHz, or NAN (its CSV: toggler,rate,unit,note) */
static double post_khz(enum path_row row)
{
	const char *key = post_key[row];
	char f[8][128];
	int i;

	for (i = 0; key && !baseline_nth(bbb_post_csv, i, f); i++)
		if (!strcmp(f[0], key) && !strcmp(f[2], "kHz"))
			return strtod(f[1], NULL);
	return NAN;
}

struct fig {
	double ns, ns_ci, ns_med, ns_ci999;
	double khz, khz_lo, khz_hi; /* khz_hi INFINITY: the ns interval reaches 0 */
};

/* the square wave's frequency in kHz for ns per set (NAN for none) */
static double khz_of(double ns)
{
	return ns > 0 ? 1e6 / (2 * ns) : ns == 0 ? INFINITY : NAN;
}

static struct fig row_fig(const struct path_row_res *x)
{
	double v[PATH_MAX_REPS];
	struct stat_acc ns;
	struct fig f;

	ns = acc_of(x->ns, x->n);
	f.ns = x->n ? ns.mean : NAN;
	f.ns_ci = stat_ci95(&ns);
	f.ns_ci999 = stat_ci999(&ns);
	f.khz = khz_of(f.ns);
	f.khz_lo = isnan(f.ns_ci) ? NAN : khz_of(f.ns + f.ns_ci);
	f.khz_hi = isnan(f.ns_ci) ? NAN : f.ns - f.ns_ci > 0 ? khz_of(f.ns - f.ns_ci) : INFINITY;
	memcpy(v, x->ns, x->n * sizeof(double));
	f.ns_med = median(v, x->n);
	return f;
}

/* "[lo, hi]" of a rate's interval, "-" without one */
static const char *khz_range(const struct fig *f, char *buf, size_t size)
{
	if (isnan(f->khz_lo))
		snprintf(buf, size, "-");
	else if (isinf(f->khz_hi))
		snprintf(buf, size, "[%.2f, unbounded]", f->khz_lo);
	else
		snprintf(buf, size, "[%.2f, %.2f]", f->khz_lo, f->khz_hi);
	return buf;
}

/*
 * a - b, Welch: the two rows' repetitions are independent runs; half-widths of the 95 % and
 * 99.9 % intervals with Welch-Satterthwaite degrees of freedom (rounded down); false when a
 * row is missing
 */
static bool diff_fig(const struct path_run *r, int d, double *mean, double *half, double *half999)
{
	const struct path_row_res *a = &r->row[diffs[d].a], *b = &r->row[diffs[d].b];
	struct stat_acc sa, sb;
	double va, vb, q;
	long df;

	if (diffs[d].a == P_BASH && !a->avail)
		a = &r->row[P_SH];
	if (!a->avail || !b->avail || a->n < 2 || b->n < 2)
		return false;
	sa = acc_of(a->ns, a->n);
	sb = acc_of(b->ns, b->n);
	va = sa.m2 / (sa.n - 1) / sa.n;
	vb = sb.m2 / (sb.n - 1) / sb.n;
	q = va * va / (sa.n - 1) + vb * vb / (sb.n - 1);
	df = q > 0 ? (long)floor((va + vb) * (va + vb) / q) : (long)(sa.n + sb.n - 2);
	if (df < 1)
		df = 1;
	*mean = sa.mean - sb.mean;
	*half = student_t95(df) * sqrt(va + vb);
	*half999 = student_t999(df) * sqrt(va + vb);
	return true;
}

static const char *diff_name(const struct path_run *r, int d, char *buf, size_t size)
{
	const char *a = diffs[d].a == P_BASH ? r->bash_row : r->row[diffs[d].a].var;

	snprintf(buf, size, "%s - %s", a, r->row[diffs[d].b].var);
	return buf;
}

static void print_text(const struct path_run *r)
{
	char name[64], range[64];
	double m, h, h999, ref;
	int i, d;

	printf("gpiolat --path: the GPIO path, toggler by toggler (the talk's 'Measuring gpio "
	       "latencies')\n");
	if (r->emulated)
		printf("# EMULATED target: timings are not hardware timings (compare orderings, not "
		       "values)\n");
	printf("# chip %s: the module's line %d (gpio %u), the user-space togglers' line %d "
	       "(gpio %u); tracing off\n",
	       r->chip, r->kline, r->kgpio, r->uline, r->ugpio);
	printf("# %d independent repetitions of each toggler, in turn; mean and 95 %% interval "
	       "(Student t); rate = 1 / (2 x mean ns per set), its interval from the ns "
	       "interval's ends\n",
	       r->reps);
	printf("# post kHz: logic analyser, BeagleBone Black (data/baseline-bbb-gpio-toggle-post."
	       "csv); the talk's tables have no values\n\n");
	printf("Toggle of gpio at max. frequency I\n");
	printf("%-11s %22s %10s %-24s %9s %3s %9s  %s\n", "variable", "ns per set (95 % CI)",
	       "rate kHz", "[95 % CI]", "post kHz", "n", "sets/rep", "toggler; clock");
	for (i = 0; i < P_NROWS; i++) {
		const struct path_row_res *x = &r->row[i];
		struct fig f;

		if (!x->avail)
			continue;
		f = row_fig(x);
		ref = post_khz(i);
		printf("%-11s %11.1f ± %-8.1f %10.2f %-24s ", x->var, f.ns, f.ns_ci, f.khz,
		       khz_range(&f, range, sizeof(range)));
		if (isnan(ref))
			printf("%9s", "-");
		else
			printf("%9.2f", ref);
		printf(" %3d %9lld  %s; %s\n", x->n, x->sets, x->what, x->clock);
	}
	printf("\nToggle of gpio at max. frequency II\n");
	printf("%-22s %-16s %22s\n", "difference", "runtime (overhead)", "ns per set (95 % CI)");
	for (d = 0; d < (int)(sizeof(diffs) / sizeof(diffs[0])); d++) {
		diff_name(r, d, name, sizeof(name));
		if (diff_fig(r, d, &m, &h, &h999))
			printf("%-22s %-18s %11.1f ± %-8.1f\n", name, diffs[d].what, m, h);
		else
			printf("%-22s %-18s %22s\n", name, diffs[d].what, "(a row is missing)");
	}
	printf("\nNot available here:\n");
	for (i = 0; i < P_NROWS; i++)
		if (!r->row[i].avail)
			printf("  %-9s %s: %s\n", r->row[i].var, r->row[i].what, r->row[i].why);
	printf("\nCross-check (one phase each, gpio:gpio_value on, filtered on the line, trace "
	       "clock mono; both clocks see the event's cost):\n");
	for (i = 0; i < P_NROWS; i++) {
		const struct path_row_res *x = &r->row[i];

		if (!x->avail)
			continue;
		if (x->xc)
			printf("  %-9s own clock %10.1f ns per set, event timestamps %10.1f ns per "
			       "set, own/events %.3f\n",
			       x->var, x->xc_own, x->xc_trace, x->xc_own / x->xc_trace);
		else
			printf("  %-9s no cross-check: %s\n", x->var,
			       *x->xc_why ? x->xc_why : "skipped");
	}
}

/* a rate in JSON with 6 significant digits (the global format has one decimal: 0.7 kHz for the
 * shell rows); null when unknown or unbounded */
static json_object *json_rate(double v)
{
	char buf[32];

	if (!isfinite(v))
		return NULL;
	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_object_new_double_s(v, buf);
}

/* the repetitions' own figures, so that every figure can be recomputed from the JSON */
static json_object *reps_json(const struct path_row_res *x)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < x->n; i++)
		json_object_array_add(a, json_num(x->ns[i]));
	return a;
}

static void print_json(const struct path_run *r)
{
	json_object *root = json_doc("gpiolat", "path"), *rows = json_object_new_array();
	json_object *ds = json_object_new_array(), *o;
	char name[64];
	double m, h, h999;
	int i, d;

	json_object_object_add(root, "emulated", json_object_new_boolean(r->emulated));
	json_object_object_add(root, "chip", json_object_new_string(r->chip));
	json_object_object_add(root, "repetitions", json_object_new_int(r->reps));
	json_object_object_add(root, "reference",
			       json_object_new_string("data/baseline-bbb-gpio-toggle-post.csv"));
	for (i = 0; i < P_NROWS; i++) {
		const struct path_row_res *x = &r->row[i];

		o = json_object_new_object();
		json_object_object_add(o, "variable", json_object_new_string(x->var));
		json_object_object_add(o, "toggler", json_object_new_string(x->what));
		json_object_object_add(o, "available", json_object_new_boolean(x->avail));
		if (!x->avail) {
			json_object_object_add(o, "why", json_object_new_string(x->why));
		} else {
			struct fig f = row_fig(x);

			json_object_object_add(o, "clock", json_object_new_string(x->clock));
			json_object_object_add(o, "n", json_object_new_int(x->n));
			json_object_object_add(o, "sets_per_rep", json_object_new_int64(x->sets));
			json_object_object_add(o, "ns_per_set", json_num(f.ns));
			json_object_object_add(o, "ns_per_set_ci95", json_num(f.ns_ci));
			json_object_object_add(o, "ns_per_set_ci999", json_num(f.ns_ci999));
			json_object_object_add(o, "ns_per_set_median", json_num(f.ns_med));
			json_object_object_add(o, "ns_per_set_reps", reps_json(x));
			json_object_object_add(o, "rate_khz", json_rate(f.khz));
			json_object_object_add(o, "rate_khz_lo95", json_rate(f.khz_lo));
			json_object_object_add(o, "rate_khz_hi95", json_rate(f.khz_hi));
			json_object_object_add(o, "post_rate_khz", json_num(post_khz(i)));
			if (x->xc) {
				json_object_object_add(o, "xcheck_own_ns", json_num(x->xc_own));
				json_object_object_add(o, "xcheck_events_ns",
						       json_num(x->xc_trace));
			} else {
				json_object_object_add(
					o, "xcheck_why",
					json_object_new_string(*x->xc_why ? x->xc_why : "skipped"));
			}
		}
		json_object_array_add(rows, o);
	}
	for (d = 0; d < (int)(sizeof(diffs) / sizeof(diffs[0])); d++) {
		o = json_object_new_object();
		json_object_object_add(o, "difference",
				       json_object_new_string(diff_name(r, d, name, sizeof(name))));
		json_object_object_add(o, "what", json_object_new_string(diffs[d].what));
		if (diff_fig(r, d, &m, &h, &h999)) {
			json_object_object_add(o, "ns_per_set", json_num(m));
			json_object_object_add(o, "ns_per_set_ci95", json_num(h));
			json_object_object_add(o, "ns_per_set_ci999", json_num(h999));
		}
		json_object_array_add(ds, o);
	}
	json_object_object_add(root, "rows", rows);
	json_object_object_add(root, "differences", ds);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
}

/* a CSV field (6 significant digits) and its comma; empty when unknown or unbounded */
static void csv_num(double v)
{
	if (isfinite(v))
		printf("%.6g", v);
	printf(",");
}

static void print_csv(const struct path_run *r)
{
	char name[64];
	double m, h, h999, ref;
	int i, d;

	printf("# gpiolat --path%s; mean, 95 %% and 99.9 %% intervals of %d repetitions; post_khz: "
	       "data/baseline-bbb-gpio-toggle-post.csv\n",
	       r->emulated ? " (EMULATED: not hardware timings)" : "", r->reps);
	printf("kind,name,what,n,ns_per_set,ns_ci95,rate_khz,rate_khz_lo95,rate_khz_hi95,post_khz,"
	       "ns_median,ns_ci999\n");
	for (i = 0; i < P_NROWS; i++) {
		const struct path_row_res *x = &r->row[i];
		struct fig f;

		if (!x->avail) {
			printf("unavailable,%s,\"%s\",0,,,,,,,,\n", x->var, x->why);
			continue;
		}
		f = row_fig(x);
		ref = post_khz(i);
		printf("toggler,%s,\"%s\",%d,%.1f,%.1f,%.6g,", x->var, x->what, x->n, f.ns, f.ns_ci,
		       f.khz);
		csv_num(f.khz_lo);
		csv_num(f.khz_hi);
		if (!isnan(ref))
			printf("%.2f", ref);
		printf(",%.1f,%.1f\n", f.ns_med, f.ns_ci999);
	}
	for (d = 0; d < (int)(sizeof(diffs) / sizeof(diffs[0])); d++)
		if (diff_fig(r, d, &m, &h, &h999))
			printf("difference,%s,%s,,%.1f,%.1f,,,,,,%.1f\n",
			       diff_name(r, d, name, sizeof(name)), diffs[d].what, m, h, h999);
}

void path_print(const struct path_run *r, enum path_fmt fmt)
{
	if (fmt == PATH_JSON)
		print_json(r);
	else if (fmt == PATH_CSV)
		print_csv(r);
	else
		print_text(r);
}
