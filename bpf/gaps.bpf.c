// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --gaps: the time between consecutive sets of one GPIO line, histogrammed in the kernel,
 * and every gap over a threshold attributed to what ran instead of the toggler.
 *
 * The toggler is the task of the first set seen. While a gap is under way its causes are kept
 * (at most RT_PENDING, the rest summed as "other"): the toggler's own sleep (switched out
 * voluntarily, to its sched_wakeup), each task that ran on its CPU while it was runnable (from
 * sched_switch; after a preemption in favour of a lower-priority task: RT throttling), hard
 * interrupt handlers, the x86 local timer interrupt and softirqs run in its context. At the next
 * set, a gap over the threshold adds its causes to the table (per CPU hash: count, total, max),
 * and what no event explains to RT_CAUSE_REST; a shorter gap drops them.
 *
 * Best effort across CPUs: the gap's state is one shared record; events of the toggler are
 * ordered, but a switch on its old CPU racing with its wakeup elsewhere may land in the other
 * cause. Two variants of every program (tp_btf, raw_tp), as in bpf/wakeup.bpf.c; the local timer
 * programs are loaded only where the kernel has irq_vectors:local_timer_entry.
 *
 * Portability: no division, no atomics; counters, histogram and table per CPU.
 */
#include "rt_core.h"

const volatile __u32 line = 0; /* the global GPIO number watched */
const volatile __u64 threshold_ns = 100000;
/* the toggler, for the loader (written once, at the first set) */
__u32 toggler_tid = 0;

struct gap_state {
	__u64 last_ns; /* the last set of the line, 0: none yet */
	__u64 seg_ns; /* start of the current off-CPU segment */
	__u64 irq_ns, softirq_ns, timer_ns; /* handler entries in the toggler's context, 0: none */
	__u64 other_ns; /* causes past RT_PENDING */
	__u32 tid; /* the toggler */
	__s32 prio;
	__u32 out; /* switched out */
	__u32 out_cpu;
	__u32 sleeping; /* switched out voluntarily, not woken yet */
	__u32 throttled; /* preempted in favour of a lower-priority task */
	__u32 irq, vec;
	__u32 npending;
	__s32 run_prio; /* what runs on out_cpu now */
	char run_comm[RT_COMM];
	struct rt_pending pending[RT_PENDING];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gap_state);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_hist);
} gaps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rt_gap_counts);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct rt_cause_key);
	__type(value, struct rt_cause_val);
} causes SEC(".maps");

static __always_inline struct gap_state *get_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state, &zero);
}

static __always_inline bool same_key(const struct rt_cause_key *a, const struct rt_cause_key *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;

	return x[0] == y[0] && x[1] == y[1] && x[2] == y[2];
}

/* add ns to the pending cause (cause, id, name) */
static __always_inline void pend(struct gap_state *st, __u32 cause, __u32 id, const char *name,
				 __u64 ns)
{
	struct rt_cause_key k = { .cause = cause, .id = id };
	__u32 i, n = st->npending;

	if (name)
		__builtin_memcpy(k.name, name, RT_COMM);
	/* a constant-bounded index only: the 6.1 verifier lost the bounds of n as an index */
	for (i = 0; i < RT_PENDING; i++) {
		struct rt_pending *p = &st->pending[i];

		if (i == n) {
			p->key = k;
			p->ns = ns;
			st->npending = n + 1;
			return;
		}
		if (same_key(&p->key, &k)) {
			p->ns += ns;
			return;
		}
	}
	st->other_ns += ns;
}

/* the off-CPU segment since seg_ns ends now */
static __always_inline void close_segment(struct gap_state *st, __u64 now)
{
	__u32 cause = st->sleeping  ? RT_CAUSE_SLEEP :
		      st->throttled ? RT_CAUSE_THROTTLE :
				      RT_CAUSE_TASK;

	if (now > st->seg_ns)
		pend(st, cause, 0, cause == RT_CAUSE_SLEEP ? NULL : st->run_comm, now - st->seg_ns);
	st->seg_ns = now;
}

static __always_inline void add_cause(const struct rt_cause_key *k, __u64 ns)
{
	static const struct rt_cause_val zero;
	struct rt_cause_val *v;

	v = bpf_map_lookup_elem(&causes, k);
	if (!v) {
		bpf_map_update_elem(&causes, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&causes, k);
		if (!v)
			return;
	}
	v->gaps++;
	v->total_ns += ns;
	if (ns > v->max_ns)
		v->max_ns = ns;
}

/* a gap over the threshold: its causes into the table, the unexplained rest too */
static __always_inline void commit(struct gap_state *st, __u64 gap)
{
	struct rt_cause_key k = {};
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < RT_PENDING; i++) {
		if (i >= st->npending)
			break;
		k = st->pending[i].key;
		add_cause(&k, st->pending[i].ns);
		sum += st->pending[i].ns;
	}
	__builtin_memset(&k, 0, sizeof(k));
	if (st->other_ns) {
		k.cause = RT_CAUSE_OTHER;
		add_cause(&k, st->other_ns);
		sum += st->other_ns;
	}
	if (gap > sum) {
		k.cause = RT_CAUSE_REST;
		add_cause(&k, gap - sum);
	}
}

static __always_inline int on_set(__u32 gpio, int get)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	__u64 now = bpf_ktime_get_ns(), gap;
	struct rt_gap_counts *c;
	struct gap_state *st;
	struct rt_hist *h;

	if (gpio != line || get)
		return 0;
	st = get_state();
	c = bpf_map_lookup_elem(&counts, &zero);
	h = bpf_map_lookup_elem(&gaps, &zero);
	if (!st || !c || !h)
		return 0;
	c->sets++;
	if (!st->tid) {
		st->tid = tid;
		toggler_tid = tid;
		st->prio = BPF_CORE_READ(cur, prio);
	} else if (tid != st->tid) {
		c->other_task_sets++;
	}
	if (st->last_ns && now > st->last_ns) {
		gap = now - st->last_ns;
		rt_hist_add(h, gap);
		if (gap >= threshold_ns) {
			c->over++;
			c->over_ns += gap;
			commit(st, gap);
		}
	}
	st->npending = 0;
	st->other_ns = 0;
	st->last_ns = now;
	return 0;
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct gap_state *st = get_state();
	__u64 now = bpf_ktime_get_ns();
	__s32 next_prio;

	if (!st || !st->tid || !st->last_ns)
		return 0;
	next_prio = BPF_CORE_READ(next, prio);
	if (BPF_CORE_READ(prev, pid) == st->tid) {
		st->out = 1;
		st->out_cpu = cpu;
		st->sleeping = !preempt;
		st->throttled = preempt && next_prio > st->prio;
		st->seg_ns = now;
	} else if (BPF_CORE_READ(next, pid) == st->tid) {
		if (st->out)
			close_segment(st, now);
		st->out = 0;
		return 0;
	} else if (st->out && cpu == st->out_cpu) {
		close_segment(st, now);
	} else {
		return 0;
	}
	/* zeroed first: the bytes after the NUL are part of the cause's key */
	__builtin_memset(st->run_comm, 0, RT_COMM);
	BPF_CORE_READ_STR_INTO(&st->run_comm, next, comm);
	st->run_prio = next_prio;
	return 0;
}

static __always_inline int on_wakeup(struct task_struct *p)
{
	struct gap_state *st = get_state();

	if (!st || !st->tid || !st->out || !st->sleeping || BPF_CORE_READ(p, pid) != st->tid)
		return 0;
	close_segment(st, bpf_ktime_get_ns());
	st->sleeping = 0;
	return 0;
}

/* is the toggler on this CPU now (a handler runs in its context)? */
static __always_inline struct gap_state *in_toggler(void)
{
	struct gap_state *st = get_state();

	if (!st || !st->tid || !st->last_ns || (__u32)bpf_get_current_pid_tgid() != st->tid)
		return NULL;
	return st;
}

/* a handler's exit: its time since *entry, as cause (cause, id) */
static __always_inline void handler_exit(struct gap_state *st, __u64 *entry, __u32 cause, __u32 id)
{
	__u64 now = bpf_ktime_get_ns();

	if (*entry && now > *entry) {
		pend(st, cause, id, NULL, now - *entry);
		/* a hard interrupt inside a softirq is not the softirq's time */
		if (cause != RT_CAUSE_SOFTIRQ && st->softirq_ns)
			st->softirq_ns += now - *entry;
	}
	*entry = 0;
}

/* a handler's entry or exit in the toggler's context: hard irq (id: irq), softirq (id: vector),
 * local timer */
static __always_inline int on_handler(__u32 cause, __u32 id, bool entry)
{
	struct gap_state *st = in_toggler();
	__u64 *ts;
	__u32 *saved;

	if (!st)
		return 0;
	ts = cause == RT_CAUSE_HARDIRQ ? &st->irq_ns :
	     cause == RT_CAUSE_SOFTIRQ ? &st->softirq_ns :
					 &st->timer_ns;
	saved = cause == RT_CAUSE_SOFTIRQ ? &st->vec : &st->irq;
	if (entry) {
		*ts = bpf_ktime_get_ns();
		if (cause != RT_CAUSE_TIMER)
			*saved = id;
	} else {
		handler_exit(st, ts, cause, cause == RT_CAUSE_TIMER ? 0 : *saved);
	}
	return 0;
}

TWICE(set, "gpio_value", ARGS(unsigned int gpio, int get), return on_set(gpio, get))
TWICE(sw, "sched_switch", ARGS(bool preempt, struct task_struct *prev, struct task_struct *next),
      return on_switch(preempt, prev, next))
TWICE(wake, "sched_wakeup", ARGS(struct task_struct *p), return on_wakeup(p))
TWICE(irq_in, "irq_handler_entry", ARGS(int irq), return on_handler(RT_CAUSE_HARDIRQ, irq, true))
TWICE(irq_out, "irq_handler_exit", ARGS(int irq), return on_handler(RT_CAUSE_HARDIRQ, irq, false))
TWICE(soft_in, "softirq_entry", ARGS(unsigned int vec),
      return on_handler(RT_CAUSE_SOFTIRQ, vec, true))
TWICE(soft_out, "softirq_exit", ARGS(unsigned int vec),
      return on_handler(RT_CAUSE_SOFTIRQ, vec, false))
TWICE(timer_in, "local_timer_entry", ARGS(int vector), return on_handler(RT_CAUSE_TIMER, 0, true))
TWICE(timer_out, "local_timer_exit", ARGS(int vector), return on_handler(RT_CAUSE_TIMER, 0, false))

char LICENSE[] SEC("license") = "GPL";
