// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the methods, in the order they are measured (syscall_cost_int.h). Each names its
 * provider (loader/providers/provider.h, the same ones as --overhead's) and what the provider
 * measures of the worker: its syscalls' events, their kernel functions, its gpiolat_sc_call(),
 * the histogram's hook and variant. The providers' steps are the alternation's (sc_measure.c).
 */
#include "modes/syscall/syscall_cost_int.h"

#define SYSCALLS "read", "write", "ioctl"
#define EMPTY(nm, enter, exit_, w)                                                                 \
	{                                                                                          \
		.name = nm, .prov = &prov_bpf_empty, .a = { BPF_ARGS(.progs = { enter, exit_ }) }, \
		.what = w                                                                          \
	}
#define HIST(nm, v, x, w)                                                                          \
	{                                                                                          \
		.name = nm, .prov = &prov_bpf_schist, .a = { BPF_ARGS(.variant = v) }, .extra = x, \
		.what = w                                                                          \
	}

const struct sc_method sc_methods[] = {
	{ .name = "control", .what = "untraced vs untraced (must be 0 within its CI)" },
	{ .name = "syscall-events",
	  .prov = &prov_events,
	  .a = { EV_ARGS(.system = "syscalls",
			 .events = { "sys_enter_read", "sys_enter_write", "sys_enter_ioctl" }),
		 .needs = "CONFIG_FTRACE_SYSCALLS" },
	  .ref = "syscall-events",
	  .what = "tracefs: syscalls:sys_enter_{read,write,ioctl} enabled" },
	{ .name = "raw-syscalls-event",
	  .prov = &prov_events,
	  .a = { EV_ARGS(.system = "raw_syscalls", .events = { "sys_enter" }) },
	  .ref = "raw-syscalls-event",
	  .what = "tracefs: raw_syscalls:sys_enter enabled" },
	EMPTY("bpf-empty-tp", "empty_tp_enter", "empty_tp_exit",
	      "empty BPF program, tp/raw_syscalls/sys_enter+sys_exit"),
	EMPTY("bpf-empty-raw-tp", "empty_raw_enter", "empty_raw_exit",
	      "empty BPF program, raw_tp/sys_enter+sys_exit"),
	EMPTY("bpf-empty-tp-btf", "empty_btf_enter", "empty_btf_exit",
	      "empty BPF program, tp_btf/sys_enter+sys_exit"),
	HIST("bpf-hist", SCH_FULL, false,
	     "gpiolat's syscall-latency histogram (cheapest hook found)"),
	HIST("bpf-hist-naive", SCH_NAIVE, true,
	     "the same, start kept as bpftrace does (update/delete)"),
	{ .name = "bpf-hist-tp-btf",
	  .prov = &prov_bpf_schist,
	  .a = { BPF_ARGS(.variant = SCH_FULL, .hook = SCH_HOOK_BTF + 1) },
	  .extra = true,
	  .what = "the same on tp_btf" },
	HIST("bpf-hist-clock", SCH_CLOCK, true, "the histogram's part: the two clock reads only"),
	HIST("bpf-hist-start", SCH_START, true,
	     "the histogram's part: clock reads and the start kept, no histogram"),
	{ .name = "kprobe-event",
	  .prov = &prov_kprobe_events,
	  .a = { EV_ARGS(.funcs = { SYSCALLS }, .syscalls = true,
			 .names = { "sc_read", "sc_write", "sc_ioctl" }) },
	  .ref = "kprobe-event",
	  .what = "tracefs kprobe events on the syscalls' kernel functions" },
	{ .name = "bpf-kprobe",
	  .prov = &prov_bpf_empty,
	  .a = { BPF_ARGS(.progs = { "empty_kprobe" }, .attach = ATTACH_KPROBE,
			  .funcs = { SYSCALLS }, .syscalls = true) },
	  .what = "empty BPF kprobe on the syscalls' kernel functions" },
	{ .name = "uprobe-event",
	  .prov = &prov_uprobe_events,
	  .a = { EV_ARGS(.names = { "sc_call" }) },
	  .what = "tracefs uprobe event on the worker's gpiolat_sc_call()" },
	{ .name = "bpf-uprobe",
	  .prov = &prov_bpf_empty,
	  .a = { BPF_ARGS(.progs = { "empty_uprobe" }, .attach = ATTACH_UPROBE) },
	  .what = "empty BPF uprobe on the worker's gpiolat_sc_call()" },
	{ .name = "strace",
	  .prov = &prov_strace,
	  .what = "strace -p on the worker (output to /dev/null)" },
	{ .name = "perf-trace",
	  .prov = &prov_perf_trace,
	  .what = "perf trace -p on the worker (output to /dev/null)" },
	{ .name = "bpftrace",
	  .prov = &prov_bpftrace,
	  .what = "bpftrace ply/syscall-hist.bt (the same histogram as bpf-hist)" },
	{ .name = "bpf-empty-fexit",
	  .prov = &prov_bpf_empty,
	  .a = { BPF_ARGS(.progs = { "empty_fexit_0", "empty_fexit_1", "empty_fexit_2" },
			  .attach = ATTACH_BTF, .funcs = { SYSCALLS }, .syscalls = true) },
	  .what = "empty BPF fexit program on the syscalls' kernel functions" },
};

const int sc_nmethods = sizeof(sc_methods) / sizeof(sc_methods[0]);
_Static_assert(sizeof(sc_methods) / sizeof(sc_methods[0]) <= SC_MAX_METHODS, "SC_MAX_METHODS");
