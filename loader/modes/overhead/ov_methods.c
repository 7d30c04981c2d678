// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the methods, in the order they are measured and reported (overhead_int.h), their
 * lookup by name and the --only list. Pure data and string matching: unit-tested with the
 * providers stubbed (loader/test/test-overhead.c). A method names its provider
 * (loader/providers/provider.h) and the provider's arguments: which events, functions, hook,
 * script; its target is the GPIO set, or utoggle's for the user rows.
 */
#include <stdio.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"
#include "core/gpio_bpf.h"
#include "providers/gpio_hooks.h"
#include "providers/provider.h"

#define GPIO_EVENT \
	EV_ARGS(.system = "gpio", .events = { "gpio_value" }), .needs = "no CONFIG_GPIOLIB?"
/* the talk's event rows: a provider on gpio:gpio_value, against the bare event or untraced */
#define EVENT(nm, prov_, against_)                                                     \
	{                                                                              \
		.name = nm, .kind = KIND_TRACEFS, .prov = &prov_, .a = { GPIO_EVENT }, \
		.against = against_, .talk = nm                                        \
	}
#define TOGGLE_EVENTS                                                                     \
	.system = "toggle",                                                               \
	.events = { "toggle_ev0", "toggle_ev1", "toggle_ev2", "toggle_ev3", "toggle_ev4", \
		    "toggle_ev5", "toggle_ev6", "toggle_ev7", "toggle_ev8", "toggle_ev9" }
#define CHAIN_KPROBES                                                                          \
	.funcs = { "toggle_chain_1", "toggle_chain_2", "toggle_chain_3", "toggle_chain_4",     \
		   "toggle_chain_5", "toggle_chain_6", "toggle_chain_7", "toggle_chain_8",     \
		   "toggle_chain_9", "toggle_chain_10" },                                      \
	.names = { "gpiolat_chain_1", "gpiolat_chain_2", "gpiolat_chain_3", "gpiolat_chain_4", \
		   "gpiolat_chain_5", "gpiolat_chain_6", "gpiolat_chain_7", "gpiolat_chain_8", \
		   "gpiolat_chain_9", "gpiolat_chain_10" }
#define SERIES_PAIR(k_)                                                                    \
	{ .name = "events-" #k_,                                                           \
	  .kind = KIND_TRACEFS,                                                            \
	  .prov = &prov_events,                                                            \
	  .a = { EV_ARGS(TOGGLE_EVENTS, .k = k_), .needs = "an older toggle module?" },    \
	  .series = "events",                                                              \
	  .talk = k_ == 1 ? "event-per-extra" : NULL },                                    \
	{                                                                                  \
		.name = "kprobes-" #k_, .kind = KIND_TRACEFS, .prov = &prov_kprobe_events, \
		.a = { EV_ARGS(CHAIN_KPROBES, .k = k_) }, .series = "kprobes",             \
		.talk = k_ == 1 ? "kprobe-per-extra" : NULL, .kprobes = true               \
	}
/* gpiolat's own programs: the set to 1 stores a time, the set to 0 adds to the histogram */
#define BPF(nm, prov_, h, talk_, ...)                                                    \
	{                                                                                \
		.name = nm, .kind = KIND_BPF, .prov = &prov_,                            \
		.a = { BPF_ARGS(.hook = h, __VA_ARGS__) }, .talk = talk_, .trust = true, \
		.fires = FIRES_SET_UNEQUAL, .kprobes = (h) == GPIO_HOOK_KPROBE           \
	}
/* a part of gpiolat's tracepoint program: its cost breakdown, only when --only names it */
#define BPF_PART(nm, p)                                                            \
	{                                                                          \
		.name = nm, .kind = KIND_BPF, .prov = &prov_bpf_gpiolat,           \
		.a = { BPF_ARGS(.hook = GPIO_HOOK_TP, .part = p) }, .trust = true, \
		.fires = FIRES_SET_UNEQUAL                                         \
	}
/* make bench-gpio's floor: an empty program plus one clock read on the hook */
#define FLOOR(nm, h, prog)                                                                    \
	{                                                                                     \
		.name = nm, .kind = KIND_BPF, .prov = &prov_bpf_empty,                        \
		.a = { BPF_ARGS(.hook = h, .progs = { prog }) }, .trust = true,               \
		.fires = FIRES_SET_UNEQUAL, .bench = true, .kprobes = (h) == GPIO_HOOK_KPROBE \
	}
/* make bench-gpio's gpiolat rows: the program with exactly the features named (GPIO_FEAT_*) */
#define BENCH(nm, h, feat)                                                                       \
	{                                                                                        \
		.name = nm, .kind = KIND_BPF, .prov = &prov_bpf_gpiolat,                         \
		.a = { BPF_ARGS(.hook = h, .features = GPIO_FEAT_SET | (feat)) }, .trust = true, \
		.fires = FIRES_SET_UNEQUAL, .bench = true, .kprobes = (h) == GPIO_HOOK_KPROBE    \
	}
/* the rows of each hook (providers/gpio_hooks.h: the names come from there) */
#define HOOK_ROWS(ID, tok, nm, fam, sec, kc, dsc, tk, ...)                         \
	BPF(GPIO_HOOK_ROW(nm), prov_bpf_gpiolat, GPIO_HOOK_##ID, tk),              \
		BPF(GPIO_HOOK_EMPTY_ROW(nm), prov_bpf_empty, GPIO_HOOK_##ID, NULL, \
		    .progs = { GPIO_HOOK_EMPTY_PROG(tok) }),
#define FLOOR_ROW(ID, tok, nm, ...) \
	FLOOR(GPIO_HOOK_FLOOR_ROW(nm), GPIO_HOOK_##ID, GPIO_HOOK_FLOOR_PROG(tok)),
#define PLAIN_ROW(ID, tok, ...) BENCH(GPIO_HOOK_PLAIN_ROW(tok), GPIO_HOOK_##ID, 0),
/* the talk's delta scripts: a time stored at the set to 1, a delta histogrammed at the 0; KP_
 * whether the script's probe is a kprobe */
#define TOOL(nm, prov_, s, talk_, trust_, kp_)                                                 \
	{                                                                                      \
		.name = nm, .kind = KIND_BPF, .prov = &prov_, .a = { TOOL_ARGS(.script = s) }, \
		.talk = talk_, .trust = trust_, .fires = FIRES_SET_UNEQUAL, .kprobes = kp_     \
	}
#define USER(nm, prov_, talk_, ...)                                                  \
	{                                                                            \
		.name = nm, .kind = KIND_USER, .prov = &prov_, .a = { __VA_ARGS__ }, \
		.talk = talk_, .reference = USER_REF                                 \
	}

const struct method ov_methods[] = {
	{ .name = "control", .kind = KIND_CONTROL },
	EVENT("event", prov_events, NULL),
	EVENT("event-filter", prov_filter, "event"),
	EVENT("event-trigger", prov_trigger, "event"),
	EVENT("event-hist", prov_hist, "event"),
	/*
	 * at the set to 1 a hist saves the time; at the set to 0 a second one computes the delta
	 * and fires the synthetic event, which has a hist of its own. The talk's pulse+ holds the
	 * set to 0's work only, ns per set the mean of both: not the talk's quantity, beside
	 * nothing (batch timing cannot split the two sets)
	 */
	{ .name = "event-synthetic",
	  .kind = KIND_TRACEFS,
	  .prov = &prov_synth,
	  .a = { GPIO_EVENT },
	  .against = "event",
	  .fires = FIRES_SET_UNEQUAL },
	{ .name = "kprobe",
	  .kind = KIND_TRACEFS,
	  .prov = &prov_kprobe_events,
	  .a = { EV_ARGS(.funcs = { "gpiod_set_value" }, .names = { "gpiolat_gpiod_set_value" }) },
	  .against = "event",
	  .talk = "kprobe",
	  .kprobes = true },
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
	{ .name = "function",
	  .kind = KIND_TRACEFS,
	  .prov = &prov_function,
	  .a = { EV_ARGS(.funcs = { "gpiod*" }) },
	  .talk = "function" },
	{ .name = "function_graph",
	  .kind = KIND_TRACEFS,
	  .prov = &prov_graph,
	  .a = { EV_ARGS(.funcs = { "gpiod_set_value" }, .top_level = true) },
	  .talk = "function_graph" },
	{ .name = "trace_printk",
	  .kind = KIND_TRACEFS,
	  .prov = &prov_printk,
	  .talk = "trace_printk",
	  .reference = PRINTK_REF },
	/* on each hook of gpio_hooks.h: gpiolat's program, then the empty one */
	GPIO_HOOKS(HOOK_ROWS) BPF_PART("bpf-gpiolat-tp-clock", GPIO_PART_CLOCK),
	BPF_PART("bpf-gpiolat-tp-slot", GPIO_PART_SLOT),
	/* make bench-gpio: the floor on each hook, gpiolat's programs with no feature, each alone */
	GPIO_HOOKS(FLOOR_ROW) GPIO_HOOKS(PLAIN_ROW)
		BENCH("bpf-gpiolat-tp-trust", GPIO_HOOK_TP, GPIO_FEAT_TRUST),
	BENCH("bpf-gpiolat-tp-linear", GPIO_HOOK_TP, GPIO_FEAT_LINEAR),
	BENCH("bpf-gpiolat-tp-intervals", GPIO_HOOK_TP, GPIO_FEAT_INTERVALS),
	TOOL("bpftrace-delta", prov_bpftrace, "ply/delta.bt", "bpf-ply-tracepoint", false, false),
	TOOL("bpftrace-dt-kprobe", prov_bpftrace, "ply/dt-kprobe.bt", NULL, false, true),
	TOOL("ply-delta", prov_ply, "ply/delta.ply", "bpf-ply-tracepoint", true, false),
	TOOL("ply-dt-kprobe", prov_ply, "ply/dt-kprobe.ply", NULL, true, true),
	/*
	 * the talk's own ply setting: delta.ply on top of the enabled event, against it; the
	 * talk's bpf-ply-tracepoint still stands beside nothing: it is pulse+, the set to 0's
	 * delta and histogram only, and this row's ns per set the mean of that and the set to 1's
	 * stored time (FIRES_SET_UNEQUAL: docs/overhead.md, "Per set, per pulse")
	 */
	{ .name = "ply-delta-event",
	  .kind = KIND_BPF,
	  .prov = &prov_ply,
	  .a = { TOOL_ARGS(.script = "ply/delta.ply") },
	  .against = "event",
	  .fires = FIRES_SET_UNEQUAL },
	USER("user-ioctl-syscall-events", prov_events, "user-ioctl-syscall-events",
	     EV_ARGS(.system = "syscalls", .events = { "sys_enter_ioctl", "sys_exit_ioctl" }),
	     .needs = "CONFIG_FTRACE_SYSCALLS"),
	/* once a pulse: beside the talk per pulse (FIRES_PULSE) */
	{ .name = "user-ioctl-uprobe",
	  .kind = KIND_USER,
	  .prov = &prov_uprobe_events,
	  .a = { EV_ARGS(.names = { "gpiolat_utoggle", "gpiolat_utoggle_ret" }, .ret = true) },
	  .talk = "user-ioctl-uprobe",
	  .reference = USER_REF,
	  .fires = FIRES_PULSE },
	USER("user-ioctl-trace-marker", prov_marker, "user-ioctl-trace-marker"),
	USER("user-ioctl-strace", prov_strace, "user-ioctl-strace"),
	USER("user-ioctl-syscall-hist", prov_self_schist, NULL),
	BPF("bpf-empty-fexit", prov_bpf_empty, GPIO_HOOK_FENTRY, NULL,
	    .progs = { "empty_gpio_fexit" }, .attach = ATTACH_BTF, .funcs = { "gpiod_set_value" }),
};

const int ov_nmethods = sizeof(ov_methods) / sizeof(ov_methods[0]);

const char *ov_kind_name(enum method_kind k)
{
	static const char *const names[] = {
		[KIND_CONTROL] = "control",
		[KIND_TRACEFS] = "tracefs",
		[KIND_BPF] = "bpf",
		[KIND_USER] = "user",
	};

	return names[k];
}

const char *ov_fires_name(enum fires f)
{
	static const char *const names[] = {
		[FIRES_SET] = "set",
		[FIRES_SET_UNEQUAL] = "set, more at the set to 0",
		[FIRES_PULSE] = "pulse",
	};

	return names[f];
}

const struct method *ov_method_by_name(const char *name)
{
	int i;

	for (i = 0; i < ov_nmethods; i++)
		if (!strcmp(ov_methods[i].name, name))
			return &ov_methods[i];
	return NULL;
}

/* a GPIO program's row: its hook's name (gpio_hooks.h), else NULL */
static const char *ov_hook(const struct method *m)
{
	return m->a.bpf && m->a.bpf->hook >= 0 && m->a.bpf->hook < GPIO_HOOK_MAX ?
		       gpio_hooks[m->a.bpf->hook].name :
		       NULL;
}

/* a JSON string or null, as three %s */
#define Q(v) (v) ? "\"" : "", (v) ? (v) : "null", (v) ? "\"" : ""

void ov_list_print(FILE *f, bool json)
{
	const struct method *m;
	int i;

	if (json)
		fprintf(f, "{\"methods\": [\n");
	for (i = 0; i < ov_nmethods; i++) {
		m = &ov_methods[i];
		if (!json) {
			fprintf(f, "%-26s %-8s %s%s\n", m->name, ov_kind_name(m->kind),
				ov_ref_label(m),
				ov_named_only(m) ? " (only when --only names it)" : "");
			continue;
		}
		fprintf(f,
			"  {\"name\": \"%s\", \"kind\": \"%s\", \"against\": \"%s\", "
			"\"fires\": \"%s\", \"talk\": %s%s%s, \"only_when_named\": %s, "
			"\"series\": %s%s%s, \"k\": %d, \"lasting\": %s, \"kprobes\": %s, "
			"\"provider\": %s%s%s, \"hook\": %s%s%s, \"script\": %s%s%s}%s\n",
			m->name, ov_kind_name(m->kind), ov_ref_label(m), ov_fires_name(m->fires),
			Q(m->talk), ov_named_only(m) ? "true" : "false", Q(m->series),
			ov_series_k(m), m->prov && m->prov->lasting ? "true" : "false",
			m->kprobes ? "true" : "false", Q(m->prov ? m->prov->name : NULL),
			Q(ov_hook(m)), Q(m->a.tool ? m->a.tool->script : NULL),
			i + 1 < ov_nmethods ? "," : "");
	}
	if (json)
		fprintf(f, "]}\n");
}

/* a part or a row of make bench-gpio: run only when --only names it */
bool ov_named_only(const struct method *m)
{
	return (m->a.bpf && m->a.bpf->part) || m->bench;
}

/* a series' row: how many of its events are switched on (0: not a series) */
int ov_series_k(const struct method *m)
{
	return m->a.ev ? m->a.ev->k : 0;
}

/*
 * does one item of --only, NAME or a prefix ending in '*' ("events-*"), select M? A part is
 * selected only by its whole name. The one matcher of both ov_only_selected() and ov_only_check().
 */
bool ov_only_item(const char *t, const struct method *m)
{
	size_t n = strlen(t);

	return !strcmp(t, m->name) ||
	       (!ov_named_only(m) && n && t[n - 1] == '*' && !strncmp(t, m->name, n - 1));
}

/* is M in ONLY (a comma-separated list; NULL: everything but the parts, named only by name)? */
bool ov_only_selected(const char *only, const struct method *m)
{
	char list[512], *t, *save = NULL;

	if (!only)
		return !ov_named_only(m);
	snprintf(list, sizeof(list), "%s", only);
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (ov_only_item(t, m))
			return true;
	return false;
}

/* every item of ONLY selects at least one method (ov_only_item); 0, or -1 with the first that
 * selects none */
int ov_only_check(const char *only, char *bad, size_t size)
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
		for (i = 0; i < ov_nmethods && !ov_only_item(t, &ov_methods[i]); i++)
			;
		if (i == ov_nmethods) {
			snprintf(bad, size, "%s", t);
			return -1;
		}
	}
	return 0;
}

/* what a method's reference phases are */
const char *ov_ref_label(const struct method *m)
{
	return m->against ? m->against : m->reference ? m->reference : "untraced";
}
