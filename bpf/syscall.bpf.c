// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the syscall-latency histogram. sys_enter stores the time for the calling thread,
 * sys_exit histograms the time since then (log2 ns) in a per-CPU copy.
 *
 * One pair of programs per hook; the loader keeps the cheapest pair the kernel accepts
 * (tp_btf, then raw_tp, then the classic tracepoint; bpf_program__set_autoload), found by
 * trying to load them.
 *
 * Hot path (docs/syscall-cost.md has the figures): the start is kept in place in an LRU hash
 * keyed by thread id, pre-sized, never deleted on exit (zeroed instead): a lookup per event,
 * an insert only on a thread's first syscall. The histogram is a per-CPU array (the lookup is
 * inlined by the verifier on x86_64 and arm64). The only helpers: the thread id and the clock.
 * naive (rodata, for the before/after figures) does what a bpftrace script does instead:
 * update on enter, lookup and delete on exit.
 *
 * Portability: no division and no atomic instructions (the 32-bit arm JIT rejects both);
 * every counter is per CPU and summed by the loader.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "log2.bpf.h"
#include "syscall.h"

/* set by the loader through skel->rodata before load */
const volatile __u8 naive = 0;
/* tp_btf only: keep the start in task-local storage (no hash, no thread-id helper) */
const volatile __u8 task_storage = 0;

/* opaque: only its pointer is passed on (bpf_get_current_task_btf() is BTF-typed) */
struct task_struct;

/* the start per task, tp_btf: the loader creates this map only for that hook */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sc_task_starts SEC(".maps");

/* thread id -> time of its current syscall's entry (ns; 0: none) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SC_MAX_THREADS);
	__type(key, __u32);
	__type(value, __u64);
} sc_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_hist);
} sc_hists SEC(".maps");

static __always_inline int sc_enter(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	__u64 *start;

	if (!naive) {
		start = bpf_map_lookup_elem(&sc_starts, &tid);
		if (start) {
			*start = now;
			return 0;
		}
	}
	bpf_map_update_elem(&sc_starts, &tid, &now, BPF_ANY);
	return 0;
}

/* histogram the time since *start (0: none) */
static __always_inline int sc_record(__u64 *start, __u64 now, __u32 tid)
{
	__u32 zero = 0;
	struct sc_hist *h;
	__u64 delta, slot;

	h = bpf_map_lookup_elem(&sc_hists, &zero);
	if (!h)
		return 0;
	if (!start || !*start) {
		h->unmatched++;
		return 0;
	}
	delta = now - *start;
	if (naive)
		bpf_map_delete_elem(&sc_starts, &tid);
	else
		*start = 0;
	h->count++;
	h->sum_ns += delta;
	slot = log2_slot(delta);
	/* the bound checked on the register that indexes (barrier_var: clang must not copy it) */
	barrier_var(slot);
	if (slot > SC_LOG2_SLOTS - 1)
		slot = SC_LOG2_SLOTS - 1;
	h->slots[slot]++;
	return 0;
}

static __always_inline int sc_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();

	return sc_record(bpf_map_lookup_elem(&sc_starts, &tid), now, tid);
}

SEC("tp_btf/sys_enter")
int sc_btf_enter(void *ctx)
{
	__u64 *start;

	if (!task_storage)
		return sc_enter();
	start = bpf_task_storage_get(&sc_task_starts, bpf_get_current_task_btf(), 0,
				     BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (start)
		*start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int sc_btf_exit(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	if (!task_storage)
		return sc_exit();
	return sc_record(bpf_task_storage_get(&sc_task_starts, bpf_get_current_task_btf(), 0, 0),
			 now, 0);
}

SEC("raw_tp/sys_enter")
int sc_raw_enter(void *ctx)
{
	return sc_enter();
}

SEC("raw_tp/sys_exit")
int sc_raw_exit(void *ctx)
{
	return sc_exit();
}

SEC("tp/raw_syscalls/sys_enter")
int sc_tp_enter(void *ctx)
{
	return sc_enter();
}

SEC("tp/raw_syscalls/sys_exit")
int sc_tp_exit(void *ctx)
{
	return sc_exit();
}

char LICENSE[] SEC("license") = "GPL";
