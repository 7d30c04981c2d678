// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat's histogram mode: its report (histo_int.h): the lines' histograms per interval and in
 * total, the toggle module's edge counts, what the probe costs beside the talk's figures; text,
 * CSV or JSON (docs/output-format.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include "core/baseline.h"
#include "core/jit.h"
#include <linux/types.h>
#include "gpiolat.h"
#include "modes/histogram/histo_int.h"
#include "core/jsonout.h"
#include "core/parse.h"
#include "core/sys.h"

void histo_print_lines(const struct histo_env *env, struct line_result *lr, int n, FILE *f)
{
	int i;

	for (i = 0; i < n; i++) {
		if (env->out == OUT_CSV)
			print_line_csv(f, &lr[i], env->lin_width, env->unit);
		else
			print_line_text(f, &lr[i], env->lin_width, env->unit);
	}
	if (!n && env->out == OUT_TEXT)
		fprintf(f, "no sets of %s seen\n", env->nspecs ? "the selected lines" : "any line");
}

/* the histograms of one interval: now minus the previous snapshot */
void histo_print_interval(const struct histo_env *env, int idx, __u64 t0, __u64 t1,
			  struct line_result *now, int n, struct line_result *prev, int nprev)
{
	struct line_result *d;
	struct json_object *o, *a;
	int i, j;

	d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return;
	for (i = 0; i < n; i++) {
		static const struct gpiolat_hist zero;
		const struct gpiolat_hist *before = &zero;

		for (j = 0; j < nprev; j++)
			if (prev[j].gpio == now[i].gpio)
				before = &prev[j].h;
		d[i] = now[i];
		d[i].minmax = false;
		hist_delta(&d[i].h, &now[i].h, before);
	}
	if (env->out == OUT_JSON) {
		o = json_object_new_object();
		json_object_object_add(o, "interval", json_object_new_int(idx));
		json_object_object_add(o, "start_ns", json_object_new_uint64(t0));
		json_object_object_add(o, "end_ns", json_object_new_uint64(t1));
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a, line_json(&d[i], env->lin_width));
		json_object_object_add(o, "lines", a);
		json_print_put(o, JSON_C_TO_STRING_PLAIN);
	} else {
		printf("%s interval %d: %.3f s to %.3f s after attach (min and max: see the "
		       "totals)\n",
		       env->out == OUT_CSV ? "#" : "---", idx, t0 / 1e9, t1 / 1e9);
		histo_print_lines(env, d, n, stdout);
	}
	fflush(stdout);
	free(d);
}

/*
 * The shift as --overhead figures it (hist.h, alt_stat): the traced phase against the mean of
 * the untraced phases before and after it, its interval from the phases as sampled (batches
 * within a phase are not independent samples of the shift). One traced phase gives no interval
 * (NAN). With one untraced phase only (interrupted): against it. false: no shift.
 */
static bool shift_alt(const struct run_info *ri, double *shift, double *ci)
{
	struct alt_stat a = {};

	if (!ri->traced.n || !ri->untraced.n)
		return false;
	*ci = NAN;
	if (ri->nphases < 2 || !ri->phase[0].n || !ri->phase[1].n) {
		*shift = ri->traced.mean - ri->untraced.mean;
		return true;
	}
	alt_stat_add(&a, 0, ri->phase[0].mean, ri->traced.mean, ri->phase[1].mean);
	*shift = a.d.mean;
	*ci = alt_ci95(&a);
	return true;
}

/* the talk's row measured the same way as our hook (a BPF program on it; its "kprobe" row is a
 * kprobe event, another kind), and the reference our shift has (nothing attached) */
#define OUR_REF "untraced"

static const char *talk_method(enum gpio_hook m)
{
	return gpio_hooks[m].talk;
}

static const char *talk_name(const char *method)
{
	return !strcmp(method, "bpf-ply-tracepoint") ? "ply histogram" :
	       !strcmp(method, "kprobe")	     ? "kprobe event" :
						       method;
}

void histo_print_overhead(const struct histo_env *env, const struct probe_figures *fig,
			  const struct run_info *ri)
{
	enum gpio_hook m = env->method;
	char a[32], b[32], c[32], d[32], e[32];
	const char *talk;
	char ag[64], sp[128];
	double ev, ev_sd;
	double shift, ci;
	int beside;

	if (!env->bpf_stats) {
		printf("overhead: BPF run-time stats off (--bpf-stats: the program's run time, at "
		       "the price of two more clock reads per run)\n");
	} else if (ri->stats_fd < 0) {
		printf("overhead: BPF run-time stats unavailable (BPF_ENABLE_STATS failed)\n");
	} else if (fig->nprogs) {
		printf("overhead: %s (%s) ran %llu times, mean %s per run (BPF run-time stats: "
		       "the program alone, not the hook's dispatch); %llu runs missed (recursion)\n",
		       fig->prog ? fig->prog : gpio_hooks[m].prog, gpio_hooks[m].hook,
		       (unsigned long long)fig->run_cnt,
		       fig->run_cnt ? fmt_time(a, sizeof(a),
					       (double)fig->run_time_ns / fig->run_cnt, UNIT_NS) :
				      "-",
		       (unsigned long long)fig->recursion_misses);
	}
	if (shift_alt(ri, &shift, &ci)) {
		if (isnan(ci))
			snprintf(sp, sizeof(sp),
				 "no spread: one traced phase between untraced ones, "
				 "an interval needs two a side (gpiolat --overhead)");
		else
			snprintf(sp, sizeof(sp), "95 %% interval +-%.1f ns", ci);
		printf("overhead: pulse-width shift %+.1f ns per set (%s): "
		       "traced %s per set (sd %s, %llu batches, %llu pulses), untraced %s per set "
		       "(sd %s, %llu batches, %llu pulses), from the toggle module's batch times\n",
		       shift, sp, fmt_time(a, sizeof(a), ri->traced.mean, UNIT_NS),
		       fmt_time(b, sizeof(b), stat_sd(&ri->traced), UNIT_NS),
		       (unsigned long long)ri->traced.n, (unsigned long long)ri->traced_pulses,
		       fmt_time(c, sizeof(c), ri->untraced.mean, UNIT_NS),
		       fmt_time(d, sizeof(d), stat_sd(&ri->untraced), UNIT_NS),
		       (unsigned long long)ri->untraced.n, (unsigned long long)ri->untraced_pulses);
	} else if (ri->toggle) {
		printf("overhead: no pulse-width shift: %s\n",
		       ri->shift_wanted ? "no batches timed in one of the phases" :
					  "the toggle module was idle (use --pulses N)");
	}
	/* the talk's figure only under the one rule (baseline_beside): same kind, same reference */
	talk = talk_method(m);
	beside = talk ? baseline_beside(baseline_csv, talk, OUR_REF, &ev, ag, sizeof(ag)) : -1;
	if (beside == 1)
		printf("reference: the talk (Klinger, ELCE 2023; oscilloscope, BeagleBone Black, "
		       "6.1.26-rt8), against the untraced pulse as the shift above: %s %s per set",
		       talk_name(talk), fmt_time(c, sizeof(c), ev, UNIT_NS));
	else if (beside == 0)
		printf("reference: none beside this shift (the talk's %s is against %s, not the "
		       "untraced pulse)",
		       talk_name(talk), ag);
	else
		printf("reference: the talk has no figure for a BPF program on %s",
		       gpio_hooks[m].hook);
	if (!baseline_find(baseline_csv, "tracing-configured-rt", "pulse", &ev, &ev_sd, NULL, 0))
		printf("; the talk's own untraced pulse (tracing configured, off; not this run's) "
		       "%s (sd %s)\n",
		       fmt_time(d, sizeof(d), ev, UNIT_NS), fmt_time(e, sizeof(e), ev_sd, UNIT_NS));
	else
		printf("\n");
	printf("BPF JIT: %s\n", jit_state());
	if (sys_emulated())
		printf("note: these timings are emulated (qemu), not real hardware: compare them "
		       "with each other, not with the talk's nanoseconds\n");
}

static struct json_object *stat_json(const struct stat_acc *s, __u64 pulses)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "batches", json_object_new_uint64(s->n));
	json_object_object_add(o, "pulses", json_object_new_uint64(pulses));
	json_object_object_add(o, "mean_ns_per_set", s->n ? json_object_new_double(s->mean) : NULL);
	json_object_object_add(o, "sd_ns_per_set",
			       s->n ? json_object_new_double(stat_sd(s)) : NULL);
	return o;
}

void histo_print_json(const struct histo_env *env, const struct probe_figures *fig,
		      const struct run_info *ri, struct line_result *lr, int n)
{
	enum gpio_hook m = env->method;
	struct json_object *o, *a, *t, *ov, *p, *s, *ref;
	const char *talk;
	char ag[64];
	double total, shift, ci;
	int i, b;

	o = json_doc("gpiolat", NULL);
	json_object_object_add(o, "interval", NULL);
	json_object_object_add(o, "method", json_object_new_string(gpio_hooks[m].name));
	json_object_object_add(o, "hook", json_object_new_string(gpio_hooks[m].hook));
	json_object_object_add(o, "emulated", json_object_new_boolean(sys_emulated()));
	json_object_object_add(o, "duration_ns", json_object_new_uint64(ri->end_ns - ri->start_ns));
	json_object_object_add(o, "dropped_no_line_slot", json_object_new_uint64(ri->drops));
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, line_json(&lr[i], env->lin_width));
	json_object_object_add(o, "lines", a);

	t = NULL;
	if (ri->toggle) {
		t = json_object_new_object();
		json_object_object_add(
			t, "gpio",
			ri->toggle_gpio_ok ? json_object_new_uint64(ri->toggle_gpio) : NULL);
		if (ri->edges_ok) {
			__u64 r = ri->rising1 - ri->rising0, f = ri->falling1 - ri->falling0;
			__u64 seen = 0;
			bool found = false;

			for (i = 0; i < n; i++)
				if (ri->toggle_gpio_ok && lr[i].gpio == ri->toggle_gpio) {
					seen = lr[i].h.events;
					found = true;
				}
			json_object_object_add(t, "rising", json_object_new_uint64(r));
			json_object_object_add(t, "falling", json_object_new_uint64(f));
			json_object_object_add(t, "edges", json_object_new_uint64(r + f));
			json_object_object_add(t, "events_seen",
					       found ? json_object_new_uint64(seen) : NULL);
			json_object_object_add(
				t, "events_lost",
				found ? json_object_new_int64((__s64)(r + f - seen)) : NULL);
		}
		json_object_object_add(t, "timed_out", json_object_new_boolean(ri->timed_out));
	}
	json_object_object_add(o, "toggle", t);

	ov = json_object_new_object();
	p = json_object_new_object();
	json_object_object_add(p, "name",
			       json_object_new_string(fig->prog ? fig->prog : gpio_hooks[m].prog));
	json_object_object_add(p, "bpf_stats", json_object_new_boolean(ri->stats_fd >= 0));
	if (ri->stats_fd >= 0 && fig->nprogs) {
		json_object_object_add(p, "run_cnt", json_object_new_uint64(fig->run_cnt));
		json_object_object_add(p, "run_time_ns", json_object_new_uint64(fig->run_time_ns));
		json_object_object_add(
			p, "mean_ns_per_run",
			fig->run_cnt ?
				json_object_new_double((double)fig->run_time_ns / fig->run_cnt) :
				NULL);
		json_object_object_add(p, "recursion_misses",
				       json_object_new_uint64(fig->recursion_misses));
	}
	json_object_object_add(ov, "program", p);
	s = NULL;
	if (shift_alt(ri, &shift, &ci)) {
		s = json_object_new_object();
		json_object_object_add(s, "shift_ns_per_set", json_object_new_double(shift));
		json_object_object_add(s, "ci95_ns", isnan(ci) ? NULL : json_object_new_double(ci));
		json_object_object_add(s, "traced", stat_json(&ri->traced, ri->traced_pulses));
		json_object_object_add(s, "untraced",
				       stat_json(&ri->untraced, ri->untraced_pulses));
		json_object_object_add(
			s, "untraced_before",
			ri->phase[0].n ? stat_json(&ri->phase[0], ri->phase_pulses[0]) : NULL);
		json_object_object_add(
			s, "untraced_after",
			ri->phase[1].n ? stat_json(&ri->phase[1], ri->phase_pulses[1]) : NULL);
	}
	json_object_object_add(ov, "shift", s);
	ref = json_object_new_array();
	/* the talk's row only where it stands beside the shift (baseline_beside) */
	talk = talk_method(m);
	b = talk ? baseline_beside(baseline_csv, talk, OUR_REF, &total, ag, sizeof(ag)) : -1;
	if (b == 1) {
		t = json_reference(baseline_csv, talk, "overhead", REF_NS);
		json_object_object_add(t, "beside", json_object_new_boolean(true));
		json_object_array_add(ref, t);
	}
	json_object_array_add(
		ref, json_reference(baseline_csv, "tracing-configured-rt", "pulse", REF_NS));
	json_object_object_add(ov, "reference", ref);
	json_object_object_add(o, "overhead", ov);

	json_print_put(o, JSON_C_TO_STRING_PLAIN);
}

void histo_print_toggle(const struct histo_env *env, const struct run_info *ri,
			struct line_result *lr, int n)
{
	__u64 r, f;
	int i;

	if (!ri->toggle || !ri->edges_ok || !ri->toggle_gpio_ok)
		return;
	r = ri->rising1 - ri->rising0;
	f = ri->falling1 - ri->falling0;
	for (i = 0; i < n; i++) {
		if (lr[i].gpio != ri->toggle_gpio)
			continue;
		printf("%stoggle module: gpio %u: %llu edges issued while attached (%llu rising, "
		       "%llu falling), %llu sets seen: events lost %lld%s\n",
		       env->out == OUT_CSV ? "# " : "", ri->toggle_gpio,
		       (unsigned long long)(r + f), (unsigned long long)r, (unsigned long long)f,
		       (unsigned long long)lr[i].h.events, (long long)(r + f - lr[i].h.events),
		       env->pulses || ri->drive ?
			       "" :
			       " (a free-running toggler: edges around attach and "
			       "detach blur this)");
		return;
	}
	if (!env->nspecs || r + f)
		printf("%stoggle module: gpio %u: %llu edges issued while attached, none seen%s\n",
		       env->out == OUT_CSV ? "# " : "", ri->toggle_gpio,
		       (unsigned long long)(r + f),
		       env->nspecs ? " (not among the selected lines)" : "");
}
