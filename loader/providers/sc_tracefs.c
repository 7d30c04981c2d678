// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: tracefs events in our instance, kprobe and uprobe events, and the leftovers
 (sc.h). The leftovers of a killed run: loader/core/leftovers.c.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "modes/syscall/sc.h"
#include "maps_offset.h"

static int instance_get(struct state *s, char *why, size_t size)
{
	if (s->inst)
		return 0;
	if (!tracefs_tracing_dir()) {
		snprintf(why, size,
			 "tracefs is not available (no CONFIG_FTRACE, or it cannot be "
			 "mounted at /sys/kernel/tracing)");
		return -1;
	}
	s->inst = tracefs_instance_create(INSTANCE);
	if (!s->inst) {
		snprintf(why, size, "cannot create the tracefs instance %s: %s", INSTANCE,
			 strerror(errno));
		return -1;
	}
	s->inst_created = tracefs_instance_is_new(s->inst);
	return 0;
}

/* instance names starting with a prefix, collected by tracefs_instances_walk() */
void sc_events_off(struct state *s)
{
	if (s->inst && s->sc_events_on)
		tracefs_event_disable(s->inst, NULL, NULL);
	s->sc_events_on = false;
}

int sc_events_on(struct state *s, const char *system, const char *regex, char *why, size_t size)
{
	if (instance_get(s, why, size))
		return -1;
	if (tracefs_event_enable(s->inst, system, regex)) {
		snprintf(why, size, "cannot enable %s:%s in tracefs: %s", system, regex,
			 strerror(errno ? errno : ENOENT));
		tracefs_event_disable(s->inst, NULL, NULL);
		return -1;
	}
	s->sc_events_on = true;
	return 0;
}

/* the kernel function of a syscall: __x64_sys_read, __arm64_sys_read, sys_read, ... */
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

const char *const sc_traced_syscalls[3] = { "read", "write", "ioctl" };

bool sc_kprobe_pmu(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK);
}

/* remove one of our probe events, made with libtracefs (events off first) */
static void probe_remove(struct state *s, struct tracefs_dynevent **d, const char *kind)
{
	char *ev = NULL;

	if (!*d)
		return;
	sc_events_off(s);
	if (tracefs_dynevent_destroy(*d, false)) {
		tracefs_dynevent_info(*d, NULL, &ev, NULL, NULL, NULL);
		fprintf(stderr, "gpiolat: cannot remove the %s event %s/%s: %s\n", kind,
			PROBE_GROUP, ev ? ev : "?", strerror(errno));
		free(ev);
	}
	tracefs_dynevent_free(*d);
	*d = NULL;
}

/* create the probe event D (allocated, or NULL when that failed); 0, or -1 and errno */
static int probe_create(struct tracefs_dynevent **out, struct tracefs_dynevent *d)
{
	*out = d;
	if (!d)
		return -1;
	if (tracefs_dynevent_create(d)) {
		tracefs_dynevent_free(d);
		*out = NULL;
		return -1;
	}
	return 0;
}

void sc_kprobe_events_remove(struct state *s)
{
	int i;

	for (i = 0; i < 3; i++)
		probe_remove(s, &s->probe_events[i], "kprobe");
}

int sc_kprobe_events_add(struct state *s, char *why, size_t size)
{
	char fn[64], ev[32];
	int i;

	if (instance_get(s, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, size,
			 "this kernel has no kprobes: no kprobe_events in tracefs%s "
			 "(CONFIG_KPROBES / CONFIG_KPROBE_EVENTS off)",
			 sc_kprobe_pmu() ? "" : " and no kprobe PMU");
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (syscall_function(sc_traced_syscalls[i], fn, sizeof(fn))) {
			snprintf(why, size,
				 "no kernel function for the %s syscall in /proc/kallsyms",
				 sc_traced_syscalls[i]);
			return -1;
		}
		snprintf(ev, sizeof(ev), "sc_%s", sc_traced_syscalls[i]);
		if (probe_create(&s->probe_events[i],
				 tracefs_kprobe_alloc(PROBE_GROUP, ev, fn, NULL))) {
			snprintf(why, size, "cannot create a kprobe event on %s: %s", fn,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

void sc_uprobe_event_remove(struct state *s)
{
	probe_remove(s, &s->uprobe_event, "uprobe");
}

int sc_uprobe_event_add(struct state *s, char *why, size_t size)
{
	if (instance_get(s, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "uprobe_events")) {
		snprintf(why, size,
			 "this kernel has no uprobe events: no uprobe_events in tracefs "
			 "(CONFIG_UPROBE_EVENTS off)");
		return -1;
	}
	if (!s->sc_call_off) {
		snprintf(why, size, "cannot find sc_call() in %.150s (/proc/self/maps)", s->exe);
		return -1;
	}
	if (probe_create(&s->uprobe_event, tracefs_uprobe_alloc(PROBE_GROUP, "sc_call", s->exe,
								s->sc_call_off, NULL))) {
		snprintf(why, size, "cannot create a uprobe event on %.150s:0x%lx: %s", s->exe,
			 s->sc_call_off, strerror(errno));
		return -1;
	}
	return 0;
}

/* the file offset of gpiolat_sc_call() in our executable, from /proc/self/maps */
unsigned long sc_call_offset(const char *exe)
{
	return maps_offset((const void *)&gpiolat_sc_call, exe);
}
