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
 * The gap's state is one record shared by every CPU (the toggler's switch out on one CPU, its
 * wakeup on another). The tp_btf programs change it under a bpf_spin_lock (everything read from
 * the kernel and the clock before the lock; at a set, the pending causes are copied out under it
 * and added to the table after it); the kernel refuses bpf_spin_lock in raw_tp programs, so the
 * raw_tp variants (no BTF-typed tracepoints, 32-bit ARM) change an unlocked copy and count every
 * set handled so (unlocked_sets: its causes may land in the neighbouring gap). A cause the full
 * table cannot take is counted with its time (cause_drops, cause_drop_ns), never lost silently.
 * Two variants of every program (tp_btf, raw_tp), as in bpf/wakeup.bpf.c; the local timer
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

/* the tp_btf programs' state, under its lock */
struct gap_locked {
	struct bpf_spin_lock lock;
	struct gap_state s;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gap_locked);
} state_lk SEC(".maps");

/* the raw_tp programs' (no lock: counted in unlocked_sets) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gap_state);
} state SEC(".maps");

/* a gap's causes, copied out of the state under the lock, per CPU */
struct gap_commit {
	__u64 gap;
	__u64 other_ns;
	__u32 npending;
	struct rt_pending pending[RT_PENDING];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gap_commit);
} scratch SEC(".maps");

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

/* the state (LOCKED: the tp_btf programs', with its lock in *LK), or NULL */
static __always_inline struct gap_state *get_state(const bool locked, struct gap_locked **lk)
{
	__u32 zero = 0;

	if (locked) {
		*lk = bpf_map_lookup_elem(&state_lk, &zero);
		return *lk ? &(*lk)->s : NULL;
	}
	return bpf_map_lookup_elem(&state, &zero);
}

/* only in the tp_btf programs (a constant: no trace of it in the raw_tp ones) */
#define LOCK(locked, lk)                            \
	do {                                        \
		if (locked)                         \
			bpf_spin_lock(&(lk)->lock); \
	} while (0)
#define UNLOCK(locked, lk)                            \
	do {                                          \
		if (locked)                           \
			bpf_spin_unlock(&(lk)->lock); \
	} while (0)

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

/* NS of the cause K into the table; counted in C when the table is full */
static __always_inline void add_cause(struct rt_gap_counts *c, const struct rt_cause_key *k,
				      __u64 ns)
{
	static const struct rt_cause_val zero;
	struct rt_cause_val *v;

	v = bpf_map_lookup_elem(&causes, k);
	if (!v) {
		bpf_map_update_elem(&causes, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&causes, k);
		if (!v) {
			c->cause_drops++;
			c->cause_drop_ns += ns;
			return;
		}
	}
	v->gaps++;
	v->total_ns += ns;
	if (ns > v->max_ns)
		v->max_ns = ns;
}

/* a gap over the threshold (copied out of the state): its causes into the table, the
 * unexplained rest too */
static __always_inline void commit(struct rt_gap_counts *c, struct gap_commit *g)
{
	struct rt_cause_key k = {};
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < RT_PENDING; i++) {
		if (i >= g->npending)
			break;
		k = g->pending[i].key;
		add_cause(c, &k, g->pending[i].ns);
		sum += g->pending[i].ns;
	}
	__builtin_memset(&k, 0, sizeof(k));
	if (g->other_ns) {
		k.cause = RT_CAUSE_OTHER;
		add_cause(c, &k, g->other_ns);
		sum += g->other_ns;
	}
	if (g->gap > sum) {
		k.cause = RT_CAUSE_REST;
		add_cause(c, &k, g->gap - sum);
	}
}

static __always_inline int on_set(const bool locked, __u32 gpio, int get)
{
	struct task_struct *cur = (struct task_struct *)bpf_get_current_task();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0, i, toggler;
	__u64 now = bpf_ktime_get_ns(), gap = 0;
	struct gap_locked *lk = NULL;
	struct rt_gap_counts *c;
	struct gap_commit *g;
	struct gap_state *st;
	struct rt_hist *h;
	bool first = false;
	__s32 prio;

	if (gpio != line || get)
		return 0;
	st = get_state(locked, &lk);
	c = bpf_map_lookup_elem(&counts, &zero);
	h = bpf_map_lookup_elem(&gaps, &zero);
	g = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !c || !h || !g)
		return 0;
	prio = BPF_CORE_READ(cur, prio);
	g->gap = 0;
	LOCK(locked, lk);
	if (!st->tid) {
		st->tid = tid;
		st->prio = prio;
		first = true;
	}
	toggler = st->tid;
	if (st->last_ns && now > st->last_ns)
		gap = now - st->last_ns;
	if (gap >= threshold_ns) {
		/* the causes out, to go into the table after the lock */
		g->gap = gap;
		g->other_ns = st->other_ns;
		g->npending = st->npending;
		for (i = 0; i < RT_PENDING; i++)
			g->pending[i] = st->pending[i];
	}
	st->npending = 0;
	st->other_ns = 0;
	st->last_ns = now;
	UNLOCK(locked, lk);
	c->sets++;
	if (!locked)
		c->unlocked_sets++;
	if (first)
		toggler_tid = tid;
	else if (tid != toggler)
		c->other_task_sets++;
	if (gap) {
		rt_hist_add(h, gap);
		if (g->gap) {
			c->over++;
			c->over_ns += gap;
			commit(c, g);
		}
	}
	return 0;
}

static __always_inline int on_switch(const bool locked, bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id(), prev_pid, next_pid;
	struct gap_locked *lk = NULL;
	struct gap_state *st = get_state(locked, &lk);
	__u64 now = bpf_ktime_get_ns();
	char comm[RT_COMM];
	__s32 next_prio;

	if (!st || !st->tid || !st->last_ns)
		return 0;
	/* everything read before the lock (no helper under it) */
	next_prio = BPF_CORE_READ(next, prio);
	prev_pid = BPF_CORE_READ(prev, pid);
	next_pid = BPF_CORE_READ(next, pid);
	/* zeroed first: the bytes after the NUL are part of the cause's key */
	__builtin_memset(comm, 0, RT_COMM);
	BPF_CORE_READ_STR_INTO(&comm, next, comm);
	LOCK(locked, lk);
	if (prev_pid == st->tid) {
		st->out = 1;
		st->out_cpu = cpu;
		st->sleeping = !preempt;
		st->throttled = preempt && next_prio > st->prio;
		st->seg_ns = now;
	} else if (next_pid == st->tid) {
		if (st->out)
			close_segment(st, now);
		st->out = 0;
		UNLOCK(locked, lk);
		return 0;
	} else if (st->out && cpu == st->out_cpu) {
		close_segment(st, now);
	} else {
		UNLOCK(locked, lk);
		return 0;
	}
	__builtin_memcpy(st->run_comm, comm, RT_COMM);
	st->run_prio = next_prio;
	UNLOCK(locked, lk);
	return 0;
}

static __always_inline int on_wakeup(const bool locked, struct task_struct *p)
{
	struct gap_locked *lk = NULL;
	struct gap_state *st = get_state(locked, &lk);
	__u64 now = bpf_ktime_get_ns();
	__u32 pid;

	if (!st || !st->tid)
		return 0;
	pid = BPF_CORE_READ(p, pid);
	LOCK(locked, lk);
	if (st->out && st->sleeping && pid == st->tid) {
		close_segment(st, now);
		st->sleeping = 0;
	}
	UNLOCK(locked, lk);
	return 0;
}

/* a handler's exit: its time since *entry until NOW, as cause (cause, id); under the lock */
static __always_inline void handler_exit(struct gap_state *st, __u64 *entry, __u32 cause, __u32 id,
					 __u64 now)
{
	if (*entry && now > *entry) {
		pend(st, cause, id, NULL, now - *entry);
		/* a hard interrupt inside a softirq is not the softirq's time */
		if (cause != RT_CAUSE_SOFTIRQ && st->softirq_ns)
			st->softirq_ns += now - *entry;
	}
	*entry = 0;
}

/* a handler's entry or exit in the toggler's context (the toggler on this CPU now): hard irq (id:
 * irq), softirq (id: vector), local timer */
static __always_inline int on_handler(const bool locked, __u32 cause, __u32 id, bool entry)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct gap_locked *lk = NULL;
	struct gap_state *st = get_state(locked, &lk);
	__u64 now = bpf_ktime_get_ns();
	__u64 *ts;
	__u32 *saved;

	if (!st || !st->tid || !st->last_ns || tid != st->tid)
		return 0;
	ts = cause == RT_CAUSE_HARDIRQ ? &st->irq_ns :
	     cause == RT_CAUSE_SOFTIRQ ? &st->softirq_ns :
					 &st->timer_ns;
	saved = cause == RT_CAUSE_SOFTIRQ ? &st->vec : &st->irq;
	LOCK(locked, lk);
	if (entry) {
		*ts = now;
		if (cause != RT_CAUSE_TIMER)
			*saved = id;
	} else {
		handler_exit(st, ts, cause, cause == RT_CAUSE_TIMER ? 0 : *saved, now);
	}
	UNLOCK(locked, lk);
	return 0;
}

/* the tp_btf variant locked, the raw_tp one not (the kernel refuses bpf_spin_lock there) */
#define TWICE_LK(name, tp, args, fn, ...)                \
	SEC("tp_btf/" tp) int BPF_PROG(name##_btf, args) \
	{                                                \
		return fn(true, __VA_ARGS__);            \
	}                                                \
	SEC("raw_tp/" tp) int BPF_PROG(name##_raw, args) \
	{                                                \
		return fn(false, __VA_ARGS__);           \
	}

TWICE_LK(set, "gpio_value", ARGS(unsigned int gpio, int get), on_set, gpio, get)
TWICE_LK(sw, "sched_switch", ARGS(bool preempt, struct task_struct *prev, struct task_struct *next),
	 on_switch, preempt, prev, next)
TWICE_LK(wake, "sched_wakeup", ARGS(struct task_struct *p), on_wakeup, p)
TWICE_LK(irq_in, "irq_handler_entry", ARGS(int irq), on_handler, RT_CAUSE_HARDIRQ, irq, true)
TWICE_LK(irq_out, "irq_handler_exit", ARGS(int irq), on_handler, RT_CAUSE_HARDIRQ, irq, false)
TWICE_LK(soft_in, "softirq_entry", ARGS(unsigned int vec), on_handler, RT_CAUSE_SOFTIRQ, vec, true)
TWICE_LK(soft_out, "softirq_exit", ARGS(unsigned int vec), on_handler, RT_CAUSE_SOFTIRQ, vec, false)
TWICE_LK(timer_in, "local_timer_entry", ARGS(int vector), on_handler, RT_CAUSE_TIMER, 0, true)
TWICE_LK(timer_out, "local_timer_exit", ARGS(int vector), on_handler, RT_CAUSE_TIMER, 0, false)

char LICENSE[] SEC("license") = "GPL";
