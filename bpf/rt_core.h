/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the kernel types the scheduling programs read (bpf/wakeup.bpf.c, bpf/gaps.bpf.c),
 * declared here with preserve_access_index rather than taken from a vmlinux.h (see
 * bpf/gpiolat_core.h): libbpf fixes the offsets against the running kernel's BTF.
 */
#ifndef GPIOLAT_RT_CORE_H
#define GPIOLAT_RT_CORE_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "rt.h"

/* include/linux/sched.h: pid (a thread id), prio (0..99 RT, 100..139 normal), comm */
struct task_struct {
	int pid;
	int prio;
	char comm[RT_COMM];
} __attribute__((preserve_access_index));

/*
 * The slot of v in struct rt_hist (bpf/rt.h), and the update of one CPU's histogram: no
 * division, no atomics (the histogram is per CPU).
 */
#include "log2.bpf.h"

static __always_inline __u32 rt_slot(__u64 v)
{
	__u64 n, s;

	if (v < RT_SUB)
		return v;
	n = log2_slot(v);
	s = (n - RT_SUB_BITS) * RT_SUB + ((v >> (n - RT_SUB_BITS - 1)) & (RT_SUB - 1));
	return s < RT_SLOTS ? s : RT_SLOTS - 1;
}

static __always_inline void rt_hist_add(struct rt_hist *h, __u64 v)
{
	__u32 s = rt_slot(v);

	if (!h->count || v < h->min_ns)
		h->min_ns = v;
	if (v > h->max_ns)
		h->max_ns = v;
	h->count++;
	h->sum_ns += v;
	/* the bound checked on the register that indexes (barrier_var: clang must not drop it as
	 * known from rt_slot(), which the verifier then cannot follow: gaps.bpf.c's on_set) */
	barrier_var(s);
	if (s < RT_SLOTS)
		h->slots[s]++;
}

/* the same handlers under both attach types: NAME_btf and NAME_raw */
#define TWICE(name, tp, args, call)                      \
	SEC("tp_btf/" tp) int BPF_PROG(name##_btf, args) \
	{                                                \
		call;                                    \
	}                                                \
	SEC("raw_tp/" tp) int BPF_PROG(name##_raw, args) \
	{                                                \
		call;                                    \
	}
#define ARGS(...) __VA_ARGS__

#endif /* GPIOLAT_RT_CORE_H */
