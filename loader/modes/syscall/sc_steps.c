// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the methods' table, and one method's steps: set up, attach, detach, tear down (sc.h).
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

#define EMPTY(nm, h, w)                                                     \
	{                                                                   \
		.name = nm, .kind = K_BPF_EMPTY, .empty_hook = h, .what = w \
	}
#define HIST(nm, v, x, w)                                                           \
	{                                                                           \
		.name = nm, .kind = K_BPF_HIST, .variant = v, .extra = x, .what = w \
	}

const struct method sc_methods[SC_NMETHODS] = {
	{ .name = "control",
	  .kind = K_CONTROL,
	  .what = "untraced vs untraced (must be 0 within its CI)" },
	{ .name = "syscall-events",
	  .kind = K_EVENTS,
	  .ref = "syscall-events",
	  .what = "tracefs: syscalls:sys_enter_{read,write,ioctl} enabled" },
	{ .name = "raw-syscalls-event",
	  .kind = K_EVENTS,
	  .raw = true,
	  .ref = "raw-syscalls-event",
	  .what = "tracefs: raw_syscalls:sys_enter enabled" },
	EMPTY("bpf-empty-tp", SC_HOOK_TP, "empty BPF program, tp/raw_syscalls/sys_enter+sys_exit"),
	EMPTY("bpf-empty-raw-tp", SC_HOOK_RAW, "empty BPF program, raw_tp/sys_enter+sys_exit"),
	EMPTY("bpf-empty-tp-btf", SC_HOOK_BTF, "empty BPF program, tp_btf/sys_enter+sys_exit"),
	HIST("bpf-hist", HV_FULL, false,
	     "gpiolat's syscall-latency histogram (cheapest hook found)"),
	HIST("bpf-hist-naive", HV_NAIVE, true,
	     "the same, start kept as bpftrace does (update/delete)"),
	{ .name = "bpf-hist-tp-btf",
	  .kind = K_BPF_HIST,
	  .variant = HV_FULL,
	  .extra = true,
	  .only_hook = SC_HOOK_BTF + 1,
	  .what = "the same on tp_btf" },
	HIST("bpf-hist-clock", HV_CLOCK, true, "the histogram's part: the two clock reads only"),
	HIST("bpf-hist-start", HV_START, true,
	     "the histogram's part: clock reads and the start kept, no histogram"),
	{ .name = "kprobe-event",
	  .kind = K_KPROBE_EVENT,
	  .ref = "kprobe-event",
	  .what = "tracefs kprobe events on the syscalls' kernel functions" },
	{ .name = "bpf-kprobe",
	  .kind = K_BPF_KPROBE,
	  .what = "empty BPF kprobe on the syscalls' kernel functions" },
	{ .name = "uprobe-event",
	  .kind = K_UPROBE_EVENT,
	  .what = "tracefs uprobe event on the worker's sc_call()" },
	{ .name = "bpf-uprobe",
	  .kind = K_BPF_UPROBE,
	  .what = "empty BPF uprobe on the worker's sc_call()" },
	{ .name = "strace",
	  .kind = K_STRACE,
	  .what = "strace -p on the worker (output to /dev/null)" },
	{ .name = "perf-trace",
	  .kind = K_PERF_TRACE,
	  .what = "perf trace -p on the worker (output to /dev/null)" },
	{ .name = "bpftrace",
	  .kind = K_BPFTRACE,
	  .what = "bpftrace ply/syscall-hist.bt (the same histogram as bpf-hist)" },
};

_Static_assert(sizeof(sc_methods) / sizeof(sc_methods[0]) == SC_NMETHODS, "SC_NMETHODS");

/* set up what stays for all rounds (programs loaded, probe events created) */
int sc_method_setup(struct state *s, const struct env *env, const struct method *m,
		    struct result *r, enum hook *hook, char *why, size_t size)
{
	char path[PATH_MAX];

	switch (m->kind) {
	case K_CONTROL:
	case K_EVENTS:
		return 0;
	case K_BPF_EMPTY:
		*hook = m->empty_hook;
		return sc_empty_setup(s, m->empty_hook, why, size);
	case K_BPF_HIST:
		if (sc_hist_setup(s, m->variant, m->only_hook ? m->only_hook - 1 : env->hook, hook,
				  &r->start, why, size))
			return -1;
		r->hook = sc_hook_names[*hook];
		return 0;
	case K_KPROBE_EVENT:
		return sc_kprobe_events_add(s, why, size);
	case K_BPF_KPROBE:
		if (!sc_kprobe_pmu() &&
		    !(tracefs_tracing_dir() && tracefs_file_exists(NULL, "kprobe_events"))) {
			snprintf(why, size,
				 "this kernel has no kprobes: no kprobe PMU and no kprobe_events "
				 "in tracefs (CONFIG_KPROBES off)");
			return -1;
		}
		return sc_empty_load(s, (const char *[]){ "empty_kprobe" }, 1, why, size);
	case K_BPF_UPROBE:
		if (!s->sc_call_off) {
			snprintf(why, size, "cannot find sc_call() in %.150s (/proc/self/maps)",
				 s->exe);
			return -1;
		}
		return sc_empty_load(s, (const char *[]){ "empty_uprobe" }, 1, why, size);
	case K_UPROBE_EVENT:
		return sc_uprobe_event_add(s, why, size);
	case K_STRACE:
		if (!sys_find_program("strace", path, sizeof(path))) {
			snprintf(why, size, "strace not installed");
			return -1;
		}
		return 0;
	case K_PERF_TRACE:
		if (!sys_find_program("perf", path, sizeof(path))) {
			snprintf(why, size, "perf not installed");
			return -1;
		}
		return 0;
	case K_BPFTRACE:
		if (!sys_find_program("bpftrace", path, sizeof(path))) {
			snprintf(why, size, "bpftrace not installed");
			return -1;
		}
		if (!env->bt_script || access(env->bt_script, R_OK)) {
			snprintf(why, size,
				 "the script ply/syscall-hist.bt was not found (give it with "
				 "--bpftrace-script FILE)");
			return -1;
		}
		return 0;
	}
	return -1;
}

/* wait until the tool is ready; why: its first line of output when it died */
int sc_tool_wait(struct state *s, bool (*ready)(const struct child *c), const char *name, char *why,
		 size_t size)
{
	static const struct child_words words = { "exited before tracing",
						  "did not start tracing within" };

	return child_wait(&s->tool, ready, READY_TIMEOUT_MS, name, &words, s->stop, why, size);
}
int sc_method_attach(struct state *s, const struct env *env, const struct method *m,
		     struct result *r, enum hook hook, char *why, size_t size)
{
	char path[PATH_MAX], pid[16];
	struct bpf_program *p;
	char fn[64];
	int i;

	switch (m->kind) {
	case K_CONTROL:
		return 0;
	case K_EVENTS:
		if (m->raw)
			return sc_events_on(s, "raw_syscalls", "^sys_enter$", why, size);
		/* libtracefs takes a POSIX basic regex: one event at a time */
		for (i = 0; i < 3; i++) {
			snprintf(fn, sizeof(fn), "^sys_enter_%s$", sc_traced_syscalls[i]);
			if (sc_events_on(s, "syscalls", fn, why, size))
				return -1;
		}
		return 0;
	case K_BPF_EMPTY:
		return sc_empty_attach(s, hook, why, size);
	case K_BPF_HIST:
		return sc_hist_attach(s, why, size);
	case K_KPROBE_EVENT:
	case K_UPROBE_EVENT:
		return sc_events_on(s, PROBE_GROUP, NULL, why, size);
	case K_BPF_KPROBE:
		p = bpf_object__find_program_by_name(s->empty->obj, "empty_kprobe");
		for (i = 0; i < 3; i++) {
			if (syscall_function(sc_traced_syscalls[i], fn, sizeof(fn))) {
				snprintf(why, size, "no kernel function for the %s syscall",
					 sc_traced_syscalls[i]);
				return -1;
			}
			if (sc_link_add(s, bpf_program__attach_kprobe(p, false, fn), fn, why, size))
				return -1;
		}
		return 0;
	case K_BPF_UPROBE:
		p = bpf_object__find_program_by_name(s->empty->obj, "empty_uprobe");
		return sc_link_add(
			s, bpf_program__attach_uprobe(p, false, s->worker, s->exe, s->sc_call_off),
			"a uprobe on sc_call()", why, size);
	case K_STRACE:
		sys_find_program("strace", path, sizeof(path));
		snprintf(pid, sizeof(pid), "%d", s->worker);
		s->tool.target = s->worker;
		if (child_start(&s->tool,
				(char *[]){ path, "-q", "-o", "/dev/null", "-p", pid, NULL }, why,
				size))
			return -1;
		return sc_tool_wait(s, child_target_traced, "strace", why, size);
	case K_PERF_TRACE:
		sys_find_program("perf", path, sizeof(path));
		snprintf(pid, sizeof(pid), "%d", s->worker);
		if (child_start(&s->tool,
				(char *[]){ path, "trace", "-o", "/dev/null", "-p", pid, NULL },
				why, size))
			return -1;
		return sc_tool_wait(s, child_perf_ready, "perf trace", why, size);
	case K_BPFTRACE:
		sys_find_program("bpftrace", path, sizeof(path));
		if (child_start(&s->tool, (char *[]){ path, (char *)env->bt_script, NULL }, why,
				size))
			return -1;
		return sc_tool_wait(s, child_bpftrace_ready, "bpftrace", why, size);
	}
	return -1;
}

void sc_method_detach(struct state *s, const struct method *m, struct result *r)
{
	switch (m->kind) {
	case K_EVENTS:
	case K_KPROBE_EVENT:
	case K_UPROBE_EVENT:
		sc_events_off(s);
		break;
	case K_STRACE:
	case K_PERF_TRACE:
		child_stop(&s->tool);
		break;
	case K_BPFTRACE:
		sc_prog_stats_tool(s, r);
		child_stop(&s->tool);
		break;
	default:
		sc_links_destroy(s);
	}
}

void sc_method_teardown(struct state *s, const struct method *m, struct result *r)
{
	if (s->empty)
		sc_prog_stats_obj(s->empty->obj, r);
	if (s->hist)
		sc_prog_stats_obj(s->hist->obj, r);
	sc_events_off(s);
	sc_kprobe_events_remove(s);
	sc_uprobe_event_remove(s);
	child_stop(&s->tool);
	sc_bpf_unload(s);
}
