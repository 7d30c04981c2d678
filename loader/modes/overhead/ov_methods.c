// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the methods, in the order they are measured and reported (ov.h), their
 * lookup by name and the --only list. Pure data and string matching: unit-tested with the
 * providers stubbed (loader/test/test-overhead.c).
 */
#include <stdio.h>
#include <string.h>
#include "modes/overhead/ov.h"
#include "providers/gpio_bpf.h"

#define SERIES(nm, kd, ops_, k_, talk_)                                                        \
	{                                                                                      \
		.name = nm "-" #k_, .kind = KIND_TRACEFS, .ops = &ops_, .series = kd, .k = k_, \
		.talk = k_ == 1 ? talk_ : NULL                                                 \
	}
#define SERIES_PAIR(k)                                                \
	SERIES("events", "events", events_ops, k, "event-per-extra"), \
		SERIES("kprobes", "kprobes", kprobe_ops, k, "kprobe-per-extra")
#define BPF(nm, ops_, h, talk_)                                                       \
	{                                                                             \
		.name = nm, .kind = KIND_BPF, .ops = &ops_, .hook = h, .talk = talk_, \
		.trust = true                                                         \
	}
/* a part of gpiolat's tracepoint program: its cost breakdown, only when --only names it */
#define BPF_PART(nm, p)                                                                      \
	{                                                                                    \
		.name = nm, .kind = KIND_BPF, .ops = &gpiolat_bpf_ops, .hook = GPIO_HOOK_TP, \
		.part = p, .trust = true                                                     \
	}
#define TOOL(nm, ops_, s, talk_, trust_)                                                \
	{                                                                               \
		.name = nm, .kind = KIND_BPF, .ops = &ops_, .script = s, .talk = talk_, \
		.trust = trust_                                                         \
	}
#define USER(nm, u, talk_)                                                                 \
	{                                                                                  \
		.name = nm, .kind = KIND_USER, .ops = &user_ops, .user = u, .talk = talk_, \
		.reference = USER_REF                                                      \
	}

const struct method ov_methods[] = {
	{ .name = "control", .kind = KIND_CONTROL },
	{ .name = "event", .kind = KIND_TRACEFS, .ops = &ev_ops, .talk = "event" },
	{ .name = "event-filter",
	  .kind = KIND_TRACEFS,
	  .ops = &filter_ops,
	  .against = "event",
	  .talk = "event-filter" },
	{ .name = "event-trigger",
	  .kind = KIND_TRACEFS,
	  .ops = &trigger_ops,
	  .against = "event",
	  .talk = "event-trigger" },
	{ .name = "event-hist",
	  .kind = KIND_TRACEFS,
	  .ops = &hist_ops,
	  .against = "event",
	  .talk = "event-hist" },
	{ .name = "event-synthetic",
	  .kind = KIND_TRACEFS,
	  .ops = &synth_ops,
	  .against = "event",
	  .talk = "event-synthetic" },
	{ .name = "kprobe",
	  .kind = KIND_TRACEFS,
	  .ops = &kprobe_ops,
	  .against = "event",
	  .talk = "kprobe" },
	SERIES_PAIR(1),
	SERIES_PAIR(2),
	SERIES_PAIR(3),
	SERIES_PAIR(4),
	SERIES_PAIR(5),
	SERIES_PAIR(6),
	SERIES_PAIR(7),
	SERIES_PAIR(8),
	SERIES_PAIR(9),
	SERIES_PAIR(10),
	{ .name = "function", .kind = KIND_TRACEFS, .ops = &function_ops, .talk = "function" },
	{ .name = "function_graph",
	  .kind = KIND_TRACEFS,
	  .ops = &graph_ops,
	  .top_level = true,
	  .talk = "function_graph" },
	{ .name = "trace_printk",
	  .kind = KIND_TRACEFS,
	  .ops = &printk_ops,
	  .talk = "trace_printk",
	  .reference = PRINTK_REF },
	BPF("bpf-gpiolat-tracepoint", gpiolat_bpf_ops, GPIO_HOOK_TP, "bpf-ply-tracepoint"),
	BPF("bpf-empty-tracepoint", empty_bpf_ops, GPIO_HOOK_TP, NULL),
	BPF("bpf-gpiolat-kprobe", gpiolat_bpf_ops, GPIO_HOOK_KPROBE, NULL),
	BPF("bpf-empty-kprobe", empty_bpf_ops, GPIO_HOOK_KPROBE, NULL),
	BPF("bpf-gpiolat-fentry", gpiolat_bpf_ops, GPIO_HOOK_FENTRY, NULL),
	BPF("bpf-empty-fentry", empty_bpf_ops, GPIO_HOOK_FENTRY, NULL),
	BPF_PART("bpf-gpiolat-tp-clock", GPIO_PART_CLOCK),
	BPF_PART("bpf-gpiolat-tp-slot", GPIO_PART_SLOT),
	TOOL("bpftrace-delta", bpftrace_ops, "ply/delta.bt", "bpf-ply-tracepoint", false),
	TOOL("bpftrace-dt-kprobe", bpftrace_ops, "ply/dt-kprobe.bt", NULL, false),
	TOOL("ply-delta", ply_ops, "ply/delta.ply", "bpf-ply-tracepoint", true),
	TOOL("ply-dt-kprobe", ply_ops, "ply/dt-kprobe.ply", NULL, true),
	USER("user-ioctl-syscall-events", U_EVENTS, "user-ioctl-syscall-events"),
	USER("user-ioctl-uprobe", U_UPROBE, "user-ioctl-uprobe"),
	USER("user-ioctl-trace-marker", U_MARKER, "user-ioctl-trace-marker"),
	USER("user-ioctl-strace", U_STRACE, "user-ioctl-strace"),
	USER("user-ioctl-syscall-hist", U_SCHIST, NULL),
};

const int ov_nmethods = sizeof(ov_methods) / sizeof(ov_methods[0]);

const char *kind_name(enum method_kind k)
{
	static const char *const names[] = {
		[KIND_CONTROL] = "control",
		[KIND_TRACEFS] = "tracefs",
		[KIND_BPF] = "bpf",
		[KIND_USER] = "user",
	};

	return names[k];
}

const struct method *method_by_name(const char *name)
{
	int i;

	for (i = 0; i < ov_nmethods; i++)
		if (!strcmp(ov_methods[i].name, name))
			return &ov_methods[i];
	return NULL;
}

/*
 * does one item of --only, NAME or a prefix ending in '*' ("events-*"), select M? A part is
 * selected only by its whole name. The one matcher of both only_selected() and only_check().
 */
bool only_item(const char *t, const struct method *m)
{
	size_t n = strlen(t);

	return !strcmp(t, m->name) ||
	       (!m->part && n && t[n - 1] == '*' && !strncmp(t, m->name, n - 1));
}

/* is M in ONLY (a comma-separated list; NULL: everything but the parts, named only by name)? */
bool only_selected(const char *only, const struct method *m)
{
	char list[512], *t, *save = NULL;

	if (!only)
		return !m->part;
	snprintf(list, sizeof(list), "%s", only);
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (only_item(t, m))
			return true;
	return false;
}

/* every item of ONLY selects at least one method (only_item); 0, or -1 with the first that
 * selects none */
int only_check(const char *only, char *bad, size_t size)
{
	char list[512], *t, *save = NULL;
	int i;

	if (strlen(only) >= sizeof(list)) {
		snprintf(bad, size, "%.60s...", only);
		return -1;
	}
	snprintf(list, sizeof(list), "%s", only);
	t = strtok_r(list, ",", &save);
	if (!t) {
		snprintf(bad, size, "%s", only);
		return -1;
	}
	for (; t; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < ov_nmethods && !only_item(t, &ov_methods[i]); i++)
			;
		if (i == ov_nmethods) {
			snprintf(bad, size, "%s", t);
			return -1;
		}
	}
	return 0;
}

/* what a method's reference phases are */
const char *ref_label(const struct method *m)
{
	return m->against ? m->against : m->reference ? m->reference : "untraced";
}
