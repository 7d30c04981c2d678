// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the dynamic event family (provider.h): kprobe events on kernel functions (the
 * method's, or the kernel functions of its syscalls), and uprobe events (with a uretprobe when
 * asked) on the target's user function; made with libtracefs in the target's group, switched on
 * in its instance.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "core/run.h"
#include "core/sys.h"
#include "core/undo.h"
#include "providers/provider.h"

int syscall_function(const char *sc, char *out, size_t size)
{
	static const char *const prefixes[] = { "__x64_sys_", "__arm64_sys_", "__riscv_sys_",
						"__s390x_sys_", "sys_" };
	char want[5][64];
	const char *names[5];
	int i;

	for (i = 0; i < 5; i++) {
		snprintf(want[i], sizeof(want[i]), "%s%s", prefixes[i], sc);
		names[i] = want[i];
	}
	i = sys_kallsyms_find(names, 5);
	if (i < 0)
		return -1;
	snprintf(out, size, "%s", want[i]);
	return 0;
}

bool kprobe_pmu(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK);
}

/* the kernel function of FUNC (a syscall's looked up); 0, or -1 and why */
int probe_func(const char *func, bool syscalls, char *fn, size_t fsize, char *why, size_t size)
{
	if (!syscalls) {
		snprintf(fn, fsize, "%s", func);
		return 0;
	}
	if (!syscall_function(func, fn, fsize))
		return 0;
	snprintf(why, size, "no kernel function for the %s syscall in /proc/kallsyms", func);
	return -1;
}

/* the family's own (p->priv): our dynamic events, one per function or uprobe */
struct dyn {
	struct tracefs_dynevent *ev[PROBE_MAX_DYN];
};

/* the probe's events (allocated by dyn_alloc() in setup; NULL p->priv: none) */
static struct tracefs_dynevent **dyn(const struct probe *p)
{
	return ((struct dyn *)p->priv)->ev;
}

static int dyn_alloc(struct probe *p, char *why, size_t size)
{
	if (probe_priv(p, sizeof(struct dyn)))
		return 0;
	snprintf(why, size, "out of memory");
	return -1;
}

static int dyn_create(struct probe *p, int i, struct tracefs_dynevent *d, const char *where,
		      char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	char *log;

	dyn(p)[i] = d;
	/* its removal pushed first (dropped again when it was not made) */
	if (d && undo_event(&p->t->run->undo, p->t->group, ea->names[i])) {
		snprintf(why, size, "cannot record the event %s/%s in the undo journal",
			 p->t->group, ea->names[i]);
		tracefs_dynevent_free(d);
		dyn(p)[i] = NULL;
		return -1;
	}
	if (d && !tracefs_dynevent_create(d))
		return 0;
	if (d)
		undo_event_done(&p->t->run->undo, p->t->group, ea->names[i]);
	log = tracefs_error_last(NULL);
	snprintf(why, size, "cannot create the %s event %s/%s on %.150s: %s%s%s",
		 i && ea->ret	 ? "uretprobe" :
		 where[0] == '/' ? "uprobe" :
				   "kprobe",
		 p->t->group, ea->names[i], where, strerror(errno ?: EINVAL), log ? ": " : "",
		 log ?: "");
	free(log);
	tracefs_dynevent_free(d);
	dyn(p)[i] = NULL;
	return -1;
}

static void dyn_destroy_all(struct probe *p)
{
	const struct events_args *ea = probe_ev(p);
	char en[96];
	int i;

	/* the group's own enable file: every event of it off */
	snprintf(en, sizeof(en), "events/%s/enable", p->t->group);
	if (p->t->inst)
		tracefs_instance_file_write(p->t->inst, en, "0");
	for (i = 0; p->priv && i < PROBE_MAX_DYN; i++) {
		if (!dyn(p)[i])
			continue;
		if (tracefs_dynevent_destroy(dyn(p)[i], true))
			fprintf(stderr, "gpiolat: cannot remove the probe event %s/%s: %s\n",
				p->t->group, ea->names[i], strerror(errno));
		else /* else kept: the undo at the end tries again */
			undo_event_done(&p->t->run->undo, p->t->group, ea->names[i]);
		tracefs_dynevent_free(dyn(p)[i]);
		dyn(p)[i] = NULL;
	}
	probe_priv_free(p);
}

/* the events named, the first k of them when k */
static int names_on(struct probe *p, bool on, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	int i, err = 0;

	for (i = 0; p->priv && i < PROBE_MAX_DYN && dyn(p)[i] && (!ea->k || i < ea->k); i++) {
		if (!on) {
			err |= probe_event_switch(p->t->inst, p->t->group, ea->names[i], false);
			continue;
		}
		if (probe_event_switch(p->t->inst, p->t->group, ea->names[i], true)) {
			snprintf(why, size, "cannot enable %s:%s in tracefs: %s", p->t->group,
				 ea->names[i], strerror(errno ?: ENOENT));
			return -1;
		}
	}
	return err ? -1 : 0;
}

static int kprobes_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	char fn[64];
	int i;

	if (probe_need_instance(p, why, size) || dyn_alloc(p, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, size,
			 "this kernel has no kprobes: no kprobe_events in tracefs%s "
			 "(CONFIG_KPROBES / CONFIG_KPROBE_EVENTS off)",
			 kprobe_pmu() ? "" : " and no kprobe PMU");
		return -1;
	}
	for (i = 0; i < PROBE_MAX_DYN && ea->funcs[i]; i++) {
		if (probe_func(ea->funcs[i], ea->syscalls, fn, sizeof(fn), why, size) ||
		    dyn_create(p, i, tracefs_kprobe_alloc(p->t->group, ea->names[i], fn, NULL), fn,
			       why, size))
			return -1;
	}
	return 0;
}

static int probes_on(struct probe *p, char *why, size_t size)
{
	return names_on(p, true, why, size);
}

static int probes_off(struct probe *p)
{
	return names_on(p, false, NULL, 0);
}

static int uprobes_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	char where[PATH_MAX + 32];
	int i;

	if (probe_need_instance(p, why, size) || dyn_alloc(p, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "uprobe_events")) {
		snprintf(why, size,
			 "this kernel has no uprobe events: no uprobe_events in tracefs "
			 "(CONFIG_UPROBE_EVENTS off)");
		return -1;
	}
	if (!p->t->off) {
		snprintf(why, size, "cannot find %s() in %.150s", p->t->fn, p->t->exe);
		return -1;
	}
	snprintf(where, sizeof(where), "%s:0x%lx", p->t->exe, p->t->off);
	for (i = 0; i < (ea->ret ? 2 : 1); i++)
		if (dyn_create(p, i,
			       (i ? tracefs_uretprobe_alloc : tracefs_uprobe_alloc)(
				       p->t->group, ea->names[i], p->t->exe, p->t->off, NULL),
			       where, why, size))
			return -1;
	return 0;
}

/* how many of the method's dynamic events are switched on: the first k, or all */
static int ndyn(const struct probe *p)
{
	const struct events_args *ea = probe_ev(p);
	int n = 0;

	while (p->priv && n < PROBE_MAX_DYN && dyn(p)[n] && (!ea->k || n < ea->k))
		n++;
	return n;
}

/*
 * The hits of the switched-on events in FILE (kprobe_profile: "NAME HITS MISSES", uprobe_profile:
 * "FILE NAME HITS"), a running total; a kprobe's misses (its handler not run) subtracted
 */
static int profile_count(struct probe *p, const char *file, __u64 *n, char *why, size_t size)
{
	char *t = tracefs_instance_file_read(NULL, file, NULL), *line, *save = NULL;
	bool kp = !strcmp(file, "kprobe_profile");
	int i, found = 0, want = ndyn(p);

	*n = 0;
	for (line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char a[PATH_MAX], b[128];
		unsigned long long x, y;

		if (kp ? sscanf(line, "%127s %llu %llu", b, &x, &y) != 3 :
			 sscanf(line, "%4095s %127s %llu", a, b, &x) != 3)
			continue;
		for (i = 0; i < want && strcmp(b, probe_ev(p)->names[i]); i++)
			;
		if (i == want)
			continue;
		*n += kp ? x - (y < x ? y : x) : x;
		found++;
	}
	free(t);
	if (found == want && want)
		return 0;
	snprintf(why, size, "%s has %d of the method's %d events", file, found, want);
	return -1;
}

/* each kprobe once a set (the chain's functions: each once a set, entered at toggle_chain_1) */
static int kprobes_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 2 * ndyn(p);
	return profile_count(p, "kprobe_profile", n, why, size);
}

/* the uprobe (and its uretprobe) once a pulse: the traced function sets 1, then 0 */
static int uprobes_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = ndyn(p);
	return profile_count(p, "uprobe_profile", n, why, size);
}

const struct provider prov_kprobe_events = { .name = "kprobe events",
					     .lasting = true,
					     .targets = TGT_GPIO_PULSE | TGT_SYSCALLS,
					     .setup = kprobes_setup,
					     .on = probes_on,
					     .off = probes_off,
					     .teardown = dyn_destroy_all,
					     .count = kprobes_count,
					     .counted_by = "kprobe_profile hits" };
const struct provider prov_uprobe_events = { .name = "uprobe events",
					     .lasting = true,
					     .targets = TGT_USER_PULSE | TGT_SYSCALLS,
					     .setup = uprobes_setup,
					     .on = probes_on,
					     .off = probes_off,
					     .teardown = dyn_destroy_all,
					     .count = uprobes_count,
					     .counted_by = "uprobe_profile hits" };
