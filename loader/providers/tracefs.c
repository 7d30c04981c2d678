// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the tracefs event family (provider.h), in the target's tracefs instance: events
 * switched on (a system and its named events, or the first k of them), and on the first of
 * them a filter, a trigger, a hist trigger, the synthetic event of the talk's set-up; and the
 * trace_marker writes of the user-space toggler. Also the target's instance itself, made,
 * set and removed for the mode (target_instance_*): no mode writes tracefs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include "core/run.h"
#include "core/sys.h"
#include "core/undo.h"
#include "providers/provider.h"

/* how many of the method's events are on: the first k, or all of them */
static int nevents(const struct probe *p)
{
	const struct events_args *ea = probe_ev(p);
	int n = 0;

	while (n < (int)(sizeof(ea->events) / sizeof(ea->events[0])) && ea->events[n])
		n++;
	return ea->k && ea->k < n ? ea->k : n;
}

static int events_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	int i, n = nevents(p);

	if (probe_need_instance(p, why, size))
		return -1;
	for (i = 0; i < n; i++) {
		if (tracefs_event_file_exists(p->t->inst, ea->system, ea->events[i], "enable"))
			continue;
		snprintf(why, size, "no %s:%s event%s%s%s", ea->system, ea->events[i],
			 p->a->needs ? " (" : "", p->a->needs ?: "", p->a->needs ? ")" : "");
		return -1;
	}
	return 0;
}

static int events_on(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	int i, n = nevents(p);

	for (i = 0; i < n; i++) {
		if (ea->filter && tracefs_event_file_write(p->t->inst, ea->system, ea->events[i],
							   "filter", ea->filter) < 0) {
			snprintf(why, size, "cannot set the filter of %s:%s: %s", ea->system,
				 ea->events[i], strerror(errno ?: EINVAL));
			return -1;
		}
		if (!probe_event_switch(p->t->inst, ea->system, ea->events[i], true))
			continue;
		snprintf(why, size, "cannot enable %s:%s in tracefs: %s", ea->system, ea->events[i],
			 strerror(errno ?: ENOENT));
		return -1;
	}
	return 0;
}

static int events_off(struct probe *p)
{
	const struct events_args *ea = probe_ev(p);
	int i, n = nevents(p), err = 0;

	for (i = 0; i < n; i++) {
		err |= probe_event_switch(p->t->inst, ea->system, ea->events[i], false);
		if (ea->filter)
			err |= tracefs_event_file_write(p->t->inst, ea->system, ea->events[i],
							"filter", "0") < 0;
	}
	return err ? -1 : 0;
}

/* the instance's trace, open to read (struct trace_read), on or off */
static int events_read(struct probe *p, void *out, char *why, size_t size)
{
	struct trace_read *r = out;
	char *f = p->t->inst ? tracefs_instance_get_file(p->t->inst, "trace") : NULL;

	r->f = f ? fopen(f, "r") : NULL;
	if (!r->f)
		snprintf(why, size, "cannot read %.200s: %s", f ?: "the instance's trace",
			 strerror(errno ?: ENOENT));
	tracefs_put_tracing_file(f);
	return r->f ? 0 : -1;
}

/* ---- the target's instance ------------------------------------------------------------- */

/*
 * A tep with the formats of SYSTEMS' events, all a hist needs (its event and field names), or
 * NULL. Not tracefs_local_events_system(): it also parses the whole of /proc/kallsyms,
 * saved_cmdlines and printk_formats into the tep, to print raw records, which no mode reads;
 * under emulation that was seconds of the guest's time a run (a perf profile of an x86_64
 * icount target: the kernel writing kallsyms and libtraceevent parsing it).
 */
static struct tep_handle *target_tep(const char **systems)
{
	struct tep_handle *tep = tep_alloc();
	int i, j, n = 0;

	for (i = 0; tep && systems[i]; i++) {
		char **events = tracefs_system_events(NULL, systems[i]);

		for (j = 0; events && events[j]; j++) {
			int size = 0;
			char *fmt = tracefs_event_file_read(NULL, systems[i], events[j], "format",
							    &size);

			if (fmt && size > 0 && !tep_parse_event(tep, fmt, size, systems[i]))
				n++;
			free(fmt);
		}
		tracefs_list_free(events);
	}
	if (tep && !n) {
		tep_free(tep);
		tep = NULL;
	}
	return tep;
}

int target_instance_make(struct target *t, struct undo *u, const char *name, const char **tep,
			 char *why, size_t size)
{
	t->instance = name;
	if (!sys_tracefs_dir()) {
		snprintf(why, size, "tracefs is not available (not mounted and cannot be)");
		return -1;
	}
	if (undo_instance(u, name)) {
		snprintf(why, size, "cannot record the instance %s for undo", name);
		return -1;
	}
	t->inst = tracefs_instance_create(name);
	/* not ours (no journal named it): used, left as found */
	if (!t->inst || !tracefs_instance_is_new(t->inst))
		undo_instance_done(u, name);
	if (t->inst && tep)
		t->tep = target_tep(tep);
	if (!t->inst)
		snprintf(why, size, "cannot make the tracefs instance %s: %s", name,
			 strerror(errno ?: ENOENT));
	return t->inst ? 0 : -1;
}

int target_instance_set(const struct target *t, const char *clock, unsigned int buffer_kb)
{
	char kb[16];

	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	return t->inst && tracefs_instance_file_write(t->inst, "trace_clock", clock) >= 0 &&
			       tracefs_instance_file_write(t->inst, "buffer_size_kb", kb) >= 0 ?
		       0 :
		       -1;
}

char *target_marker_file(const struct target *t)
{
	char *f = t->inst ? tracefs_instance_get_file(t->inst, "trace_marker") : NULL;
	char *copy = f ? strdup(f) : NULL;

	tracefs_put_tracing_file(f);
	return copy;
}

void target_instance_free(struct target *t, bool remove)
{
	tep_free(t->tep);
	t->tep = NULL;
	if (t->inst && remove)
		tracefs_instance_destroy(t->inst);
	tracefs_instance_free(t->inst);
	t->inst = NULL;
}

/*
 * The count of the events, the filter, the trigger and trace_marker: the events written to the
 * instance's ring buffer (its per-CPU stats), the method's events and its reference's: each of
 * them once a set (the filter's and the trigger's event runs them at each)
 */
static int ring_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	if (p->t->inst && !probe_ring_events(p->t->inst, n))
		return 0;
	snprintf(why, size, "cannot read the instance's per_cpu stats");
	return -1;
}

static int events_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 2 * nevents(p);
	return ring_count(p, n, per_pulse, why, size);
}

static int one_event_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why,
			   size_t size)
{
	*per_pulse = 2;
	return ring_count(p, n, per_pulse, why, size);
}

/* the hits of the hist on SYSTEM:EVENT in the instance ("Totals: Hits: N") */
static int hist_hits(struct probe *p, const char *system, const char *event, __u64 *n)
{
	char file[128], *t, *h;

	snprintf(file, sizeof(file), "events/%s/%s/hist", system, event);
	t = tracefs_instance_file_read(p->t->inst, file, NULL);
	if (!t)
		return -1;
	h = strstr(t, "Totals:");
	h = h ? strstr(h, "Hits: ") : NULL;
	*n = h ? strtoull(h + 6, NULL, 10) : 0;
	free(t);
	return h ? 0 : -1;
}

/* the first event's files */
#define EV(p) (p)->t->inst, probe_ev(p)->system, probe_ev(p)->events[0]

static int filter_on(struct probe *p, char *why, size_t size)
{
	char filter[64];

	snprintf(filter, sizeof(filter), "gpio == %u", p->t->gpio);
	return tracefs_event_file_write(EV(p), "filter", filter) < 0;
}

static int filter_off(struct probe *p)
{
	return tracefs_event_file_write(EV(p), "filter", "0") < 0;
}

static int trigger_on(struct probe *p, char *why, size_t size)
{
	return tracefs_event_file_append(EV(p), "trigger", "traceon") < 0;
}

static int trigger_off(struct probe *p)
{
	return tracefs_event_file_append(EV(p), "trigger", "!traceon") < 0;
}

/* the hist trigger's and the synthetic event's own (p->priv) */
struct tfs {
	struct tracefs_hist *hist;
	char clock[32]; /* the instance's trace clock before the method (the synthetic event's) */
	struct kept_count kept; /* its hist's hits, counted from its on, kept by its off */
};

/* the family's kept count, or NULL (nothing set up) */
static struct kept_count *kept(const struct probe *p)
{
	struct tfs *f = p->priv;

	return f ? &f->kept : NULL;
}

/* the hits of the hist trigger's hist */
static int event_hits(struct probe *p, __u64 *n)
{
	return hist_hits(p, probe_ev(p)->system, probe_ev(p)->events[0], n);
}

/* the hits (READ) of the hist on SYSTEM:EVENT, live while on, kept by its off (the hist goes
 * with it) */
static int hits_count(struct probe *p, kept_reader read, const char *system, const char *event,
		      __u64 *n, char *why, size_t size)
{
	if (!kept_count_read(p, kept(p), read, n))
		return 0;
	snprintf(why, size, "cannot read the hits of the hist on %s:%s", system, event);
	return -1;
}

static struct tfs *tfs_alloc(struct probe *p, char *why, size_t size)
{
	struct tfs *f = probe_priv(p, sizeof(*f));

	if (!f)
		snprintf(why, size, "out of memory");
	return f;
}

/* the probe's hist, or NULL (none set up) */
static struct tracefs_hist *phist(const struct probe *p)
{
	const struct tfs *f = p->priv;

	return f ? f->hist : NULL;
}

static int hist_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	struct tracefs_instance *inst = p->t->inst;
	struct tfs *f;

	if (events_setup(p, why, size) || !(f = tfs_alloc(p, why, size)))
		return -1;
	f->hist = tracefs_hist_alloc(p->t->tep, ea->system, ea->events[0], "value",
				     TRACEFS_HIST_KEY_NORMAL);
	if (!f->hist || tracefs_hist_start(inst, f->hist) || tracefs_hist_destroy(inst, f->hist)) {
		char *log = tracefs_error_last(inst);

		snprintf(why, size, "hist triggers do not work here (CONFIG_HIST_TRIGGERS?)%s%s",
			 log ? ": " : "", log ? log : "");
		free(log);
		tracefs_hist_free(f->hist);
		f->hist = NULL;
		return -1;
	}
	return 0;
}

static int hist_on(struct probe *p, char *why, size_t size)
{
	*kept(p) = (struct kept_count){ .live = true };
	return tracefs_hist_start(p->t->inst, phist(p));
}

static int hist_off(struct probe *p)
{
	kept_count_off(p, kept(p), event_hits);
	return tracefs_hist_destroy(p->t->inst, phist(p));
}

static int hist_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);

	*per_pulse = 2;
	return hits_count(p, event_hits, ea->system, ea->events[0], n, why, size);
}

static void hist_teardown(struct probe *p)
{
	tracefs_hist_free(phist(p));
	probe_priv_free(p);
}

/*
 * The synthetic event gpiolat_pulse(gpio, delta): a hist on gpio_value saves the time of a set
 * to 1, a second one at the set to 0 computes the delta and fires the synthetic event
 * (onmatch().trace()), which has a hist of its own: the talk's set-up. The triggers are written
 * into our instance, not with tracefs_synth_create(), which puts them at the top level where an
 * interrupted run's leftovers could not be told from the user's own triggers.
 */
#define SYNTH_NAME "gpiolat_pulse"
#define SYNTH_DEF SYNTH_NAME " u32 gpio; u64 delta"
#define SYNTH_START "hist:keys=gpio:gpiolat_t0=common_timestamp if value == 1 && get == 0"
#define SYNTH_END                                                                                           \
	"hist:keys=gpio:gpiolat_dt=common_timestamp-$gpiolat_t0:onmatch(gpio.gpio_value).trace(" SYNTH_NAME \
	",gpio,$gpiolat_dt) if value == 0 && get == 0"
static const char *const synth_start = SYNTH_START, *const synth_end = SYNTH_END;

/* the hits of the synthetic event's hist */
static int synth_hits(struct probe *p, __u64 *n)
{
	return hist_hits(p, "synthetic", SYNTH_NAME, n);
}

static int synth_setup(struct probe *p, char *why, size_t size)
{
	struct tracefs_dynevent *d;
	struct tfs *f;
	char *clock;

	if (events_setup(p, why, size) || !(f = tfs_alloc(p, why, size)))
		return -1;
	/*
	 * A hist trigger with common_timestamp sets the instance's trace clock (to its clock=,
	 * global by default) and removing it leaves it set: every later event in the instance
	 * would read the global clock (docs/timing.md). The clock is put back at each off.
	 */
	clock = tracefs_get_clock(p->t->inst);
	snprintf(f->clock, sizeof(f->clock), "%s", clock ? clock : "local");
	free(clock);
	if (!tracefs_file_exists(NULL, "synthetic_events")) {
		snprintf(why, size, "no synthetic_events in tracefs (no CONFIG_SYNTH_EVENTS)");
		return -1;
	}
	if (undo_event(&p->t->run->undo, "synthetic", SYNTH_NAME)) {
		snprintf(why, size, "cannot record " SYNTH_NAME " in the undo journal");
		return -1;
	}
	if (tracefs_instance_file_append(NULL, "synthetic_events", SYNTH_DEF) < 0) {
		char *log = tracefs_error_last(NULL);

		snprintf(why, size, "cannot create the synthetic event '%s'%s%s", SYNTH_DEF,
			 log ? ": " : "", log ? log : "");
		free(log);
		return -1;
	}
	d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);
	tracefs_dynevent_free(d);
	if (!d) {
		snprintf(why, size, "the synthetic event " SYNTH_NAME " did not appear");
		return -1;
	}
	tep_free(p->t->tep);
	p->t->tep = target_tep((const char *[]){ probe_ev(p)->system, "synthetic", NULL });
	f->hist = p->t->tep ? tracefs_hist_alloc(p->t->tep, "synthetic", SYNTH_NAME, "delta",
						 TRACEFS_HIST_KEY_NORMAL) :
			      NULL;
	if (!f->hist) {
		snprintf(why, size, "cannot describe the hist of " SYNTH_NAME);
		return -1;
	}
	return 0;
}

static int synth_on(struct probe *p, char *why, size_t size)
{
	if (tracefs_event_file_append(EV(p), "trigger", synth_start) < 0 ||
	    tracefs_event_file_append(EV(p), "trigger", synth_end) < 0 ||
	    probe_event_switch(p->t->inst, "synthetic", SYNTH_NAME, true) ||
	    tracefs_hist_start(p->t->inst, phist(p)))
		return -1;
	*kept(p) = (struct kept_count){ .live = true };
	return 0;
}

static int synth_off(struct probe *p)
{
	const struct tfs *f = p->priv;
	char buf[1024];
	int err = 0;

	kept_count_off(p, kept(p), synth_hits);
	err |= tracefs_hist_destroy(p->t->inst, phist(p));
	err |= probe_event_switch(p->t->inst, "synthetic", SYNTH_NAME, false);
	snprintf(buf, sizeof(buf), "!%s", synth_end);
	err |= tracefs_event_file_append(EV(p), "trigger", buf) < 0;
	snprintf(buf, sizeof(buf), "!%s", synth_start);
	err |= tracefs_event_file_append(EV(p), "trigger", buf) < 0;
	err |= !f || tracefs_instance_file_write(p->t->inst, "trace_clock", f->clock) < 0;
	return err ? -1 : 0;
}

/* the synthetic event fires once a pulse, at the set to 0 after a set to 1 */
static int synth_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 1;
	return hits_count(p, synth_hits, "synthetic", SYNTH_NAME, n, why, size);
}

static void synth_teardown(struct probe *p)
{
	struct tracefs_dynevent *d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);

	/* when it stays (busy), the undo at the end tries again */
	if (!d || !tracefs_dynevent_destroy(d, true))
		undo_event_done(&p->t->run->undo, "synthetic", SYNTH_NAME);
	tracefs_dynevent_free(d);
	hist_teardown(p);
}

/* trace_marker: the user-space toggler writes a line to our instance's marker at each set */
static int marker_setup(struct probe *p, char *why, size_t size)
{
	if (probe_need_instance(p, why, size))
		return -1;
	if (!p->t->marker_ok) {
		snprintf(why, size, "no trace_marker in our instance");
		return -1;
	}
	return 0;
}

static int marker_on(struct probe *p, char *why, size_t size)
{
	p->t->marker = true;
	return 0;
}

static int marker_off(struct probe *p)
{
	p->t->marker = false;
	return 0;
}

#define ALL_TARGETS (TGT_GPIO_PULSE | TGT_USER_PULSE | TGT_SYSCALLS)
const struct provider prov_events = { .name = "tracefs events",
				      .lasting = true,
				      .targets = ALL_TARGETS,
				      .setup = events_setup,
				      .on = events_on,
				      .off = events_off,
				      .read = events_read,
				      .count = events_count,
				      .counted_by = "the instance's ring-buffer events" };
const struct provider prov_filter = {
	.name = "tracefs event filter",
	.lasting = true,
	.targets = TGT_GPIO_PULSE,
	.setup = events_setup,
	.on = filter_on,
	.off = filter_off,
	.count = one_event_count,
	.counted_by = "the instance's ring-buffer events (passed its filter)"
};
const struct provider prov_trigger = {
	.name = "tracefs event trigger",
	.lasting = true,
	.targets = ALL_TARGETS,
	.setup = events_setup,
	.on = trigger_on,
	.off = trigger_off,
	.count = one_event_count,
	.counted_by = "the instance's ring-buffer events (its trigger's)"
};
const struct provider prov_hist = { .name = "tracefs hist trigger",
				    .lasting = true,
				    .targets = TGT_GPIO_PULSE,
				    .setup = hist_setup,
				    .on = hist_on,
				    .off = hist_off,
				    .teardown = hist_teardown,
				    .count = hist_count,
				    .counted_by = "its hist's hits" };
const struct provider prov_synth = { .name = "tracefs synthetic event",
				     .lasting = true,
				     .targets = TGT_GPIO_PULSE,
				     .setup = synth_setup,
				     .on = synth_on,
				     .off = synth_off,
				     .teardown = synth_teardown,
				     .count = synth_count,
				     .counted_by = "the synthetic event's hist hits" };
const struct provider prov_marker = {
	.name = "trace_marker",
	.lasting = true,
	.targets = TGT_USER_PULSE,
	.setup = marker_setup,
	.on = marker_on,
	.off = marker_off,
	.count = one_event_count,
	.counted_by = "the instance's ring-buffer events (its marker lines)"
};
