/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: types shared by the scheduling programs (bpf/wakeup.bpf.c, bpf/gaps.bpf.c) and their
 * loaders (loader/modes/rt/wakeup.c, loader/modes/rt/gaps.c). Plain fixed-width types: one layout
 * on 32- and 64-bit targets alike.
 */
#ifndef GPIOLAT_RT_H
#define GPIOLAT_RT_H

/*
 * A log-linear histogram: values 0..7 ns have a slot each; above, each power of two [2^k, 2^k+1)
 * is cut into RT_SUB linear slots, so a slot is at most 1/8 of its value wide (p99 within
 * 12.5 %). Slot of v >= 8 with n = floor(log2(v)) + 1 significant bits:
 * (n - 3) * RT_SUB + ((v >> (n - 4)) & (RT_SUB - 1)); only shifts, no division.
 */
#define RT_SUB_BITS 3
#define RT_SUB (1 << RT_SUB_BITS)
#define RT_SLOTS (62 * RT_SUB)

/* one latency histogram, one copy per CPU; min and max over this CPU's samples */
struct rt_hist {
	__u64 count;
	__u64 sum_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 slots[RT_SLOTS];
};

/* --wakeup: the tasks traced (at most), and the two histograms of each */
#define RT_MAX_TASKS 8
enum rt_lat {
	RT_LAT_WAKEUP, /* sched_wakeup(_new) of the task to the sched_switch that runs it */
	RT_LAT_PREEMPT, /* a preemption of the task (switched out runnable) to its next run */
	RT_LAT_MAX,
};

/* per task and CPU: what the scheduler did to it */
struct rt_task_counts {
	__u64 wakeups; /* sched_wakeup / sched_wakeup_new of the task */
	__u64 sleeps; /* voluntary switches out (it blocked: a sleep, a wait, a lock) */
	__u64 preemptions; /* involuntary switches out (still runnable) */
	__u64 unmatched; /* switched in with no wakeup or preemption stored (before attach) */
};

/* shared by all CPUs (not per CPU): written where the task is woken, read where it runs */
struct rt_task_state {
	__u64 wake_ns; /* 0: none pending */
	__u64 preempt_ns;
};

/* --gaps: what ran instead of the toggler, one cause of a gap */
enum rt_cause {
	RT_CAUSE_SLEEP, /* the toggler's own sleep (switched out voluntarily, until its wakeup) */
	RT_CAUSE_TASK, /* a task ran on its CPU while the toggler was runnable (name: comm) */
	RT_CAUSE_THROTTLE, /* a lower-priority task ran after the toggler was preempted: RT
			      throttling (name: comm) */
	RT_CAUSE_HARDIRQ, /* a hard interrupt handler on the toggler's CPU (id: irq number) */
	RT_CAUSE_TIMER, /* the local timer interrupt (x86 irq_vectors:local_timer_*) */
	RT_CAUSE_SOFTIRQ, /* a softirq run in the toggler's context (id: vector) */
	RT_CAUSE_OTHER, /* more causes in one gap than RT_PENDING: the rest */
	RT_CAUSE_REST, /* the part of a gap no event explains (on CPU: the sets, unseen entries) */
	RT_CAUSE_MAX,
};

#define RT_COMM 16
/* 8-byte aligned: the BPF side compares keys as three u64 (strict-alignment CPUs: 32-bit arm) */
struct rt_cause_key {
	__u32 cause;
	__u32 id; /* irq number, softirq vector, or 0 */
	char name[RT_COMM]; /* a task's comm, or "" */
} __attribute__((aligned(8)));

struct rt_cause_val {
	__u64 gaps; /* gaps over the threshold this cause took part in */
	__u64 total_ns;
	__u64 max_ns; /* its largest share of one gap */
};

/* the causes of the gap under way, committed to the table if it ends over the threshold */
#define RT_PENDING 8
struct rt_pending {
	struct rt_cause_key key;
	__u64 ns;
};

/* --gaps: per CPU counters */
struct rt_gap_counts {
	__u64 sets; /* sets of the line */
	__u64 over; /* gaps over the threshold */
	__u64 over_ns; /* their total */
	__u64 other_task_sets; /* sets of the line by another task than the first one seen */
	__u64 cause_drops; /* causes the full table could not take */
	__u64 cause_drop_ns; /* ... their time */
	__u64 unlocked_sets; /* sets handled by the raw_tp programs, whose state has no lock */
};

#endif /* GPIOLAT_RT_H */
