// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the measurement engine (overhead_int.h). For each method the run alternates phases
 * of exactly P pulses: reference, method, reference, ..., reference. A phase's figure is the
 * median of its batches' ns per set after the first WARMUP batches; repetition i's overhead is
 * method_i - (ref_i + ref_i+1) / 2 (loader/modes/overhead/ov_stats.c makes the row's figures of
 * them).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"
#include "core/engine.h"
#include "core/run.h"
#include "core/sys.h"
#include "providers/kopt.h"

_Static_assert(MAX_REPS == PROBE_MAX_PHASES, "a row keeps every phase a provider counts");

static bool wait_idle(struct ov *ov)
{
	while (toggle_enabled() == 1)
		if (!run_nap(ov->run, POLL_MS))
			return false;
	return true;
}

/* one phase of o.pulses pulses: the median ns per set over its batches after the warm-up */
int ov_phase(struct ov *ov, double *med, __u64 *nb, __u64 *np)
{
	struct toggle_batch *b = ov->batch;
	double *v = ov->batch_ns;
	__s64 seq0 = toggle_last_seq();
	int i, n, m = 0;

	if (toggle_start_pulses(ov->o.pulses))
		return -1;
	if (!wait_idle(ov)) {
		toggle_stop();
		return -1;
	}
	n = toggle_batches(seq0, b, MAX_PHASE_BATCHES);
	ov->phase_pulses = 0;
	for (i = 0; i < n; i++)
		ov->phase_pulses += b[i].pulses;
	for (i = WARMUP; i < n; i++) {
		v[m++] = (double)b[i].ns / (2.0 * b[i].pulses);
		*np += b[i].pulses;
	}
	if (!m)
		return -1;
	*nb += m;
	*med = median(v, m);
	return 0;
}

/* one method's alternation: its row, its reference method, the phases' running figures */
struct ov_alt {
	struct ov *ov;
	const struct method *m, *ref;
	struct probe pm, pref; /* the method's provider at work, its reference's */
	struct row *r;
	struct stat_acc refs;
	/* the method's count before its phase (provider.h count), and whether it was withheld */
	bool withheld;
	int count0_rc; /* probe_count()'s before the phase */
	__u64 count0;
};

/* the run's watch of the kprobe optimizer for a switch of the method (WITH_REF: and of its
 * reference), or none where neither registers kprobes (the table's kprobes mark: no other
 * switch can change the kernel's optimized probes, each kprobe row's teardown waits for its own),
 * so that a run without a kprobe row makes no instance for it (providers/kopt.h); every switch
 * once a wait gave up (its work may still come) */
static struct kopt_watch *kwatch(struct ov_alt *a, bool with_ref)
{
	bool kp = a->m->kprobes || (with_ref && a->ref && a->ref->kprobes);

	return kp || a->ov->kopt.unsettled ? &a->ov->kopt : NULL;
}

/* a phase of the method's pulse source: the toggle module, or utoggle for the user rows */
static int alt_phase(void *ctx, double *fig)
{
	struct ov_alt *a = ctx;

	if (a->m->kind == KIND_USER)
		return ov_utoggle_phase(a->ov, fig, &a->r->batches, &a->r->pulses);
	return ov_phase(a->ov, fig, &a->r->batches, &a->r->pulses);
}

/* the method's count before its phase: after its on, never inside the phase */
static void count_before(struct ov_alt *a)
{
	unsigned int per = 0;

	a->count0_rc =
		probe_count(&a->pm, &a->count0, &per, a->r->fired_why, sizeof(a->r->fired_why));
}

/*
 * ... and after it (after its off): the sets the phase's count covers (at most its sets);
 * a phase without a count leaves the row not counted (fired_why says why), one whose count
 * could not be read leaves it without proof (count_lost: not measured)
 */
static void count_after(struct ov_alt *a)
{
	struct row *r = a->r;
	unsigned int per = 0;
	__u64 n = 0, sets = 2 * a->ov->phase_pulses, fired;
	int rc;

	if (r->fphases >= MAX_REPS)
		return;
	rc = a->count0_rc ? a->count0_rc :
			    probe_count(&a->pm, &n, &per, r->fired_why, sizeof(r->fired_why));
	if (rc || !per) {
		r->count_lost |= rc < 0;
		r->counted = false;
		return;
	}
	fired = n >= a->count0 ? (n - a->count0) * 2 / per : 0;
	if (fired > sets)
		fired = sets;
	r->phase_sets[r->fphases] = sets;
	r->phase_fired[r->fphases++] = fired;
	r->sets += sets;
	r->fired_sets += fired;
}

static int alt_on(void *ctx, int rep)
{
	struct ov_alt *a = ctx;
	struct kopt k;

	a->r->why[0] = '\0';
	/* a test's method made not to fire in this repetition: not switched on at all */
	a->withheld = ov_rep_listed(getenv("GPIOLAT_WITHHOLD"), a->m->name, rep);
	if (a->withheld) {
		count_before(a);
		return 0;
	}
	kopt_begin(&k, kwatch(a, false), &a->ov->run->undo);
	if (!probe_on(&a->pm, a->r->why, WHY)) {
		if (kopt_end(&k, &a->ov->run->stop, a->r->why, WHY))
			return -1;
		/* a test's look inside a phase of a few ms (tests/target/93): the run stops
		 * itself (SIGSTOP) with the method's change in place, until the test kills it
		 * or continues it */
		if (ov_rep_listed(getenv("GPIOLAT_STOP_IN"), a->m->name, rep))
			raise(SIGSTOP);
		count_before(a);
		return 0;
	}
	kopt_end(&k, &a->ov->run->stop, NULL, 0);
	if (!a->r->why[0])
		snprintf(a->r->why, WHY, "switching %s on failed: %s", a->m->name,
			 strerror(errno ?: EIO));
	return -1;
}

static int alt_off(void *ctx)
{
	struct ov_alt *a = ctx;
	struct kopt k;
	int err = 0;

	if (!a->withheld) {
		kopt_begin(&k, kwatch(a, false), &a->ov->run->undo);
		err = probe_off(&a->pm);
		if (kopt_end(&k, &a->ov->run->stop, a->r->why, WHY) && !err) {
			err = -1;
			errno = EBUSY;
		}
	}
	count_after(a);
	return err;
}

static void alt_repetition(void *ctx, int i, double b0, double mv, double b1)
{
	struct ov_alt *a = ctx;

	a->r->diff[i] = mv - (b0 + b1) / 2;
	alt_stat_add(&a->r->st, i, b0, mv, b1);
	stat_add(&a->refs, b0);
	if (a->m->kind == KIND_USER)
		stat_add(&a->ov->user_base, b0);
	else if (!strcmp(a->r->against, "untraced") && a->ov->nbase_phase < MAX_BASE_PHASES)
		a->ov->base_phase[a->ov->nbase_phase++] = b0;
}

/* the BPF rows' figures of their program: run time, histogram, the trust check's phases */
static void row_figures(struct ov *ov, struct row *r, struct probe *p)
{
	memset(&r->fig, 0, sizeof(r->fig));
	if (probe_figures(p, &r->fig))
		return;
	/* the run-time figures only where the stats were on for the whole run */
	if (ov->run->stats_fd < 0)
		r->fig.run_cnt = r->fig.run_time_ns = 0;
	ov_trust_check(r);
}

static void measure(struct ov_alt *a);

/* the alternation for one method (loader/core/engine.c), on its target */
void ov_measure(struct ov *ov, const struct method *m, struct row *r)
{
	const struct method *ref = m->against ? ov_method_by_name(m->against) : NULL;
	struct ov_alt a = { .ov = ov, .m = m, .ref = ref, .r = r };

	ov->target.kind = m->kind == KIND_USER ? TGT_USER_PULSE : TGT_GPIO_PULSE;
	ov->target.untraced_ns = ov->untraced_guess;
	probe_init(&a.pm, m->prov, &m->a, &ov->target);
	probe_init(&a.pref, ref ? ref->prov : NULL, ref ? &ref->a : NULL, &ov->target);
	snprintf(r->name, sizeof(r->name), "%s", m->name);
	snprintf(r->group, sizeof(r->group), "%s", ov_kind_name(m->kind));
	snprintf(r->against, sizeof(r->against), "%s", ref ? ref->name : ov_ref_label(m));
	r->talk = m->talk;
	r->fires = m->fires;
	r->series = m->series;
	r->k = ov_series_k(m);
	r->bpf = m->trust;
	r->counted = true;
	r->count_lost = false;
	r->fired_by = probe_counted_by(&a.pm);
	if (m->kind == KIND_USER && ov_utoggle_start(ov, r->why))
		return;
	measure(&a);
	ov_utoggle_stop(ov);
}

static void measure(struct ov_alt *a)
{
	const struct method *m = a->m, *ref = a->ref;
	struct row *r = a->r;
	struct alternation alt = {
		.reps = a->ov->o.reps,
		.stop = &a->ov->run->stop,
		.ctx = a,
		.reference = alt_phase,
		.on = alt_on,
		.phase = alt_phase,
		.off = alt_off,
		.repetition = alt_repetition,
	};
	struct kopt k;
	int i;

	/* the optimizer's work for the probes set up here, and at the end, outside every phase */
	kopt_begin(&k, kwatch(a, true), &a->ov->run->undo);
	if (ref && probe_setup(&a->pref, r->why, WHY)) {
		kopt_end(&k, &a->ov->run->stop, NULL, 0);
		snprintf(r->why + strlen(r->why), WHY - strlen(r->why), " (its reference %s)",
			 ref->name);
		return;
	}
	if (probe_setup(&a->pm, r->why, WHY)) {
		probe_teardown(&a->pm);
		probe_teardown(&a->pref);
		kopt_end(&k, &a->ov->run->stop, NULL, 0);
		return;
	}
	if (ref && probe_on(&a->pref, r->why, WHY)) {
		snprintf(r->why, WHY, "switching on its reference %s failed: %s", ref->name,
			 strerror(errno));
		kopt_end(&k, &a->ov->run->stop, NULL, 0);
		goto out;
	}
	if (kopt_end(&k, &a->ov->run->stop, r->why, WHY))
		goto out;
	switch (alternate(&alt, &i)) {
	case ALT_DONE:
		break;
	case ALT_FAILED_ON: /* why said */
		goto out;
	case ALT_FAILED_OFF:
		if (!r->why[0]) /* else the optimizer's work, which kopt.c named */
			snprintf(r->why, WHY, "switching %s off failed: %s", m->name,
				 strerror(errno ?: EIO));
		goto out;
	default:
		goto fail;
	}
	r->reps = i;
	r->measured = true;
	r->ref_mean = a->refs.mean;
	ov_row_stats(r);
	ov_fired_check(r, sys_timing() && !strcmp(sys_timing(), "icount"));
	if (r->bpf && r->measured)
		row_figures(a->ov, r, &a->pm);
	goto out;
fail:
	snprintf(r->why, WHY, "%s",
		 a->ov->run->stop ? "interrupted" : "the toggle module's phase failed");
out:
	kopt_begin(&k, kwatch(a, true), &a->ov->run->undo);
	probe_off(&a->pm);
	probe_teardown(&a->pm);
	if (ref) {
		probe_off(&a->pref);
		probe_teardown(&a->pref);
	}
	kopt_end(&k, &a->ov->run->stop, NULL, 0);
}
