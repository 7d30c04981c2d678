// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: empty BPF programs, the floor every other program is compared with: the same hooks
 * as bpf/syscall.bpf.c (sys_enter and sys_exit as tp_btf, raw_tp and classic tracepoint), and
 * kprobe, uprobe and a raw tracepoint named at attach time (the toggle module's
 * micro-benchmark). The loader loads only the ones it attaches.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define EMPTY(sec, name)    \
	SEC(sec)            \
	int name(void *ctx) \
	{                   \
		return 0;   \
	}

EMPTY("tp_btf/sys_enter", empty_btf_enter)
EMPTY("tp_btf/sys_exit", empty_btf_exit)
EMPTY("raw_tp/sys_enter", empty_raw_enter)
EMPTY("raw_tp/sys_exit", empty_raw_exit)
EMPTY("tp/raw_syscalls/sys_enter", empty_tp_enter)
EMPTY("tp/raw_syscalls/sys_exit", empty_tp_exit)
/* attached by the loader to a function, a user-space offset, a raw tracepoint it names */
EMPTY("kprobe", empty_kprobe)
EMPTY("uprobe", empty_uprobe)
EMPTY("raw_tp", empty_raw_any)
/* fexit: each attached by the loader to a kernel function it names (set_attach_target) */
EMPTY("fexit", empty_fexit_0)
EMPTY("fexit", empty_fexit_1)
EMPTY("fexit", empty_fexit_2)

char LICENSE[] SEC("license") = "GPL";
