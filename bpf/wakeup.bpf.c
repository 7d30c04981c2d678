// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --wakeup: how long a task waits from its wakeup to running, histogrammed in the kernel
 * (as runqlat and rtla timerlat do): sched_wakeup / sched_wakeup_new of a traced task stores the
 * time; the sched_switch that puts it on a CPU histograms the time since. A preemption of the
 * task (switched out while runnable) to its next run goes into a second histogram; a wakeup
 * of a task still on its CPU (woken before it got to sleep) is counted but is no wait. Voluntary
 * switches out (the task blocked: its own sleeps, waits, sleeping locks) are counted, so that
 * the wakeups can be checked against the sleeps.
 *
 * Two variants of every program, one object; the loader keeps one set (bpf_program__set_autoload):
 *   tp_btf/...   BTF-typed raw tracepoints (the cheapest; need the kernel's BTF)
 *   raw_tp/...   raw tracepoints (the fallback)
 *
 * Portability: no division, no atomics; counters and histograms per CPU, summed by the loader.
 */
#include "rt_core.h"

/* traced thread id -> its index 0..RT_MAX_TASKS-1, filled by the loader before attach */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, RT_MAX_TASKS);
	__type(key, __u32);
	__type(value, __u32);
} tasks SEC(".maps");

/* index -> pending wakeup / preemption time, shared by the CPUs */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct rt_task_state);
} state SEC(".maps");

/* index -> counters, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct rt_task_counts);
} counts SEC(".maps");

/* index * RT_LAT_MAX + enum rt_lat -> histogram, per CPU */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_MAX_TASKS *RT_LAT_MAX);
	__type(key, __u32);
	__type(value, struct rt_hist);
} hists SEC(".maps");

/* a traced task's index, state and counters: false when p is not traced */
static __always_inline bool task_of(struct task_struct *p, __u32 *idx, struct rt_task_state **s,
				    struct rt_task_counts **c)
{
	__u32 pid = BPF_CORE_READ(p, pid), *i = bpf_map_lookup_elem(&tasks, &pid);

	if (!i)
		return false;
	*idx = *i;
	*s = bpf_map_lookup_elem(&state, i);
	*c = bpf_map_lookup_elem(&counts, i);
	return *s && *c;
}

static __always_inline int on_wakeup(struct task_struct *p)
{
	struct rt_task_counts *c;
	struct rt_task_state *s;
	__u32 i;

	if (!task_of(p, &i, &s, &c))
		return 0;
	s->wake_ns = bpf_ktime_get_ns();
	c->wakeups++;
	return 0;
}

static __always_inline void hist_since(__u32 i, __u32 lat, __u64 *since, __u64 now)
{
	__u32 key = i * RT_LAT_MAX + lat;
	struct rt_hist *h;

	if (!*since)
		return;
	h = bpf_map_lookup_elem(&hists, &key);
	if (h && now > *since)
		rt_hist_add(h, now - *since);
	*since = 0;
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct rt_task_counts *c;
	struct rt_task_state *s;
	__u32 i;

	if (task_of(prev, &i, &s, &c)) {
		/* woken while still on its CPU (before it got to sleep): no wait to run */
		s->wake_ns = 0;
		if (preempt) {
			c->preemptions++;
			s->preempt_ns = now;
		} else {
			c->sleeps++;
		}
	}
	if (!task_of(next, &i, &s, &c))
		return 0;
	if (!s->wake_ns && !s->preempt_ns)
		c->unmatched++;
	/* a wakeup after a preemption (it blocked in between) is what it waited for */
	if (s->wake_ns)
		s->preempt_ns = 0;
	hist_since(i, RT_LAT_WAKEUP, &s->wake_ns, now);
	hist_since(i, RT_LAT_PREEMPT, &s->preempt_ns, now);
	return 0;
}

TWICE(wakeup, "sched_wakeup", ARGS(struct task_struct *p), return on_wakeup(p))
TWICE(wakeup_new, "sched_wakeup_new", ARGS(struct task_struct *p), return on_wakeup(p))
TWICE(switch, "sched_switch",
      ARGS(bool preempt, struct task_struct *prev, struct task_struct *next),
      return on_switch(preempt, prev, next))

char LICENSE[] SEC("license") = "GPL";
