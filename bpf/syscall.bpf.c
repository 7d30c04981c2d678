// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the syscall-latency histogram. sys_enter stores the time for the calling thread,
 * sys_exit histograms the time since then (log2 ns) in a per-CPU copy.
 *
 * One pair of programs per hook (raw_tp, tp_btf, the classic tracepoint); the loader tries
 * them cheapest first and keeps the first the verifier accepts (bpf_program__set_autoload):
 * raw_tp with the start in task storage first, as it costs what tp_btf costs per run and libbpf
 * needs no vmlinux BTF for it (no CO-RE relocation here, no attach by BTF name).
 *
 * Hot path (docs/syscall-cost.md has the figures), per syscall: two clock reads, the start
 * found twice in the task's local storage (bpf_get_current_task_btf(), a pointer passed on,
 * never read), one per-CPU array lookup, a branch-free log2 and two adds. Where task storage
 * does not load (task_storage = 0): an LRU hash keyed by thread id, pre-sized, updated in
 * place and zeroed instead of deleted. naive (rodata, for the before/after figures) does what
 * a bpftrace script does instead: update on enter, lookup and delete on exit. Every rodata
 * switch is a constant to the verifier, which drops the branches not taken.
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
/* keep the start in task-local storage (no hash, no thread-id helper) */
const volatile __u8 task_storage = 0;
/*
 * keep the start in a per-CPU slot checked against the task (percpu_start, with task_storage
 * off): a thread runs on one CPU from its sys_enter until it is switched out, and sc_switch
 * (sched_switch) moves a start still in the slot of the thread switched out to sc_spill, where its
 * sys_exit (maybe on another CPU) finds it. No task storage helper on the syscall's path; the
 * cost of a switch mid-syscall is paid at that switch.
 */
const volatile __u8 percpu_start = 0;

/* opaque: only its pointer is passed on (bpf_get_current_task_btf() is BTF-typed) */
struct task_struct;

/* the start per task (created only when task_storage is set) */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} sc_task_starts SEC(".maps");

/* thread id -> time of its current syscall's entry (ns; 0: none); created only without
 * task storage */
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

/* the per-CPU slot (percpu_start): the task (bpf_get_current_task()) and its start (0: none) */
struct sc_slot {
	__u64 task;
	__u64 start;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_slot);
} sc_slots SEC(".maps");

/*
 * task address -> the start its slot held when it was switched out mid-syscall (percpu_start;
 * created only then, pre-allocated: no allocation under the scheduler's lock); taken (deleted)
 * by its sys_exit, deleted when the task dies. A start it cannot hold (full) is lost: that exit
 * counts as unmatched, as an evicted LRU entry does.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SC_MAX_THREADS);
	__type(key, __u64);
	__type(value, __u64);
} sc_spill SEC(".maps");

/* include/linux/sched.h: a task's state at its last switch */
#define SC_TASK_DEAD 0x80

/*
 * How much of the histogram runs: everything, or (only to measure what the parts cost, in
 * programs of their own) the clock reads alone, or the clock reads and the start kept. A
 * constant at compile time: no trace of it in the histogram's programs.
 */
#define SC_STAGE_CLOCK 1
#define SC_STAGE_START 2
#define SC_STAGE_FULL 3

static __always_inline int sc_enter(const int stage)
{
	__u64 now, *start;
	__u32 tid;

	if (stage == SC_STAGE_CLOCK) {
		bpf_ktime_get_ns();
		return 0;
	}
	if (percpu_start) {
		__u32 zero = 0;
		struct sc_slot *s = bpf_map_lookup_elem(&sc_slots, &zero);

		if (s) {
			s->task = bpf_get_current_task();
			/* the clock last, as below */
			s->start = bpf_ktime_get_ns();
		}
		return 0;
	}
	if (task_storage) {
		start = bpf_task_storage_get(&sc_task_starts, bpf_get_current_task_btf(), 0,
					     BPF_LOCAL_STORAGE_GET_F_CREATE);
		/* the clock last: the lookup is not part of the syscall's time */
		if (start)
			*start = bpf_ktime_get_ns();
		return 0;
	}
	tid = (__u32)bpf_get_current_pid_tgid();
	if (!naive) {
		start = bpf_map_lookup_elem(&sc_starts, &tid);
		if (!start) {
			/* the thread's first (or evicted): its slot made, untimed, then found */
			now = 0;
			bpf_map_update_elem(&sc_starts, &tid, &now, BPF_ANY);
			start = bpf_map_lookup_elem(&sc_starts, &tid);
		}
		/* the clock last, as with task storage: no lookup or update in the syscall's time */
		if (start)
			*start = bpf_ktime_get_ns();
		return 0;
	}
	/* naive: what bpftrace's @start[tid] = nsecs does, the clock before the update */
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&sc_starts, &tid, &now, BPF_ANY);
	return 0;
}

static __always_inline int sc_exit(const int stage)
{
	/* the clock first: the lookups are not part of the syscall's time */
	__u64 now = bpf_ktime_get_ns();
	__u64 *start, delta, slot, task = 0;
	__u32 tid = 0, zero = 0;
	struct sc_hist *h;
	int spilled = 0;

	if (stage == SC_STAGE_CLOCK)
		return 0;
	if (percpu_start) {
		struct sc_slot *s = bpf_map_lookup_elem(&sc_slots, &zero);

		task = bpf_get_current_task();
		if (s && s->task == task && s->start) {
			start = &s->start;
		} else {
			/* switched out since its sys_enter (sc_switch), or no start */
			start = bpf_map_lookup_elem(&sc_spill, &task);
			spilled = 1;
		}
	} else if (task_storage) {
		start = bpf_task_storage_get(&sc_task_starts, bpf_get_current_task_btf(), 0, 0);
	} else {
		tid = (__u32)bpf_get_current_pid_tgid();
		start = bpf_map_lookup_elem(&sc_starts, &tid);
	}
	if (stage == SC_STAGE_START) {
		if (start)
			*start = 0;
		if (spilled && start)
			bpf_map_delete_elem(&sc_spill, &task);
		return 0;
	}
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
		*start = 0; /* an exit without an entry (a missed run) stays unmatched */
	if (spilled)
		bpf_map_delete_elem(&sc_spill, &task);
	h->sum_ns += delta;
	slot = log2_slot(delta);
	/* the bound checked on the register that indexes (barrier_var: clang must not copy it) */
	barrier_var(slot);
	if (slot > SC_LOG2_SLOTS - 1)
		slot = SC_LOG2_SLOTS - 1;
	h->slots[slot]++;
	return 0;
}

SEC("raw_tp/sys_enter")
int sc_raw_enter(void *ctx)
{
	return sc_enter(SC_STAGE_FULL);
}

SEC("raw_tp/sys_exit")
int sc_raw_exit(void *ctx)
{
	return sc_exit(SC_STAGE_FULL);
}

SEC("tp_btf/sys_enter")
int sc_btf_enter(void *ctx)
{
	return sc_enter(SC_STAGE_FULL);
}

SEC("tp_btf/sys_exit")
int sc_btf_exit(void *ctx)
{
	return sc_exit(SC_STAGE_FULL);
}

SEC("tp/raw_syscalls/sys_enter")
int sc_tp_enter(void *ctx)
{
	return sc_enter(SC_STAGE_FULL);
}

SEC("tp/raw_syscalls/sys_exit")
int sc_tp_exit(void *ctx)
{
	return sc_exit(SC_STAGE_FULL);
}

/*
 * percpu_start's other half: a task switched out with its start in this CPU's slot (mid-syscall:
 * blocked, preempted, about to migrate) has it moved to sc_spill; a dying task's start is dropped
 * and its sc_spill entry deleted, so that no task allocated at its address later finds it.
 * A raw tracepoint: its arguments (preempt, prev, next, prev_state) are plain numbers, no BTF
 * needed; prev_state is there since Linux 5.18, and where it is not, attaching fails (the loader
 * then takes the next way to keep the start).
 */
SEC("raw_tp/sched_switch")
int sc_switch(__u64 *ctx)
{
	__u64 prev = ctx[1];
	__u32 zero = 0;
	struct sc_slot *s = bpf_map_lookup_elem(&sc_slots, &zero);

	if (ctx[3] & SC_TASK_DEAD) {
		if (s && s->task == prev)
			s->start = 0;
		bpf_map_delete_elem(&sc_spill, &prev);
		return 0;
	}
	if (!s || s->task != prev || !s->start)
		return 0;
	bpf_map_update_elem(&sc_spill, &prev, &s->start, BPF_ANY);
	s->start = 0;
	return 0;
}

/*
 * The cost breakdown (gpiolat --syscall-cost -m bpf-hist-clock, -m bpf-hist-start): the
 * histogram's parts on raw_tp, loaded only for it; bpf-hist-start pairs sc_raw_enter with
 * sc_start_exit.
 */
SEC("raw_tp/sys_enter")
int sc_clock_enter(void *ctx)
{
	return sc_enter(SC_STAGE_CLOCK);
}

SEC("raw_tp/sys_exit")
int sc_clock_exit(void *ctx)
{
	return sc_exit(SC_STAGE_CLOCK);
}

SEC("raw_tp/sys_exit")
int sc_start_exit(void *ctx)
{
	return sc_exit(SC_STAGE_START);
}

char LICENSE[] SEC("license") = "GPL";
