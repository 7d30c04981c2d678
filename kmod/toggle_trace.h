/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the toggle module (system "toggle"): see docs/toggle-module.md.
 *
 * toggle_ev0 ... toggle_ev9 fire on every set of the toggled line, just before
 * gpiod_set_value(); each is switched on and off on its own in tracefs. toggle_batch fires
 * after each timed batch of pulses. toggle_bench fires only in the micro-benchmark's loop.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM toggle

#if !defined(_TOGGLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TOGGLE_TRACE_H

#include <linux/tracepoint.h>

/* the layout of the kernel's own trace headers */
/* clang-format off */
DECLARE_EVENT_CLASS(toggle_set,

	TP_PROTO(u32 gpio, u32 value),

	TP_ARGS(gpio, value),

	TP_STRUCT__entry(
		__field(u32, gpio)
		__field(u32, value)
	),

	TP_fast_assign(
		__entry->gpio = gpio;
		__entry->value = value;
	),

	TP_printk("gpio=%u value=%u", __entry->gpio, __entry->value)
);

#define TOGGLE_SET_EVENT(name)							\
	DEFINE_EVENT(toggle_set, name,						\
		TP_PROTO(u32 gpio, u32 value),					\
		TP_ARGS(gpio, value))

TOGGLE_SET_EVENT(toggle_ev0);
TOGGLE_SET_EVENT(toggle_ev1);
TOGGLE_SET_EVENT(toggle_ev2);
TOGGLE_SET_EVENT(toggle_ev3);
TOGGLE_SET_EVENT(toggle_ev4);
TOGGLE_SET_EVENT(toggle_ev5);
TOGGLE_SET_EVENT(toggle_ev6);
TOGGLE_SET_EVENT(toggle_ev7);
TOGGLE_SET_EVENT(toggle_ev8);
TOGGLE_SET_EVENT(toggle_ev9);

TRACE_EVENT(toggle_batch,

	TP_PROTO(u64 seq, u32 pulses, u64 ns),

	TP_ARGS(seq, pulses, ns),

	TP_STRUCT__entry(
		__field(u64, seq)
		__field(u32, pulses)
		__field(u64, ns)
	),

	TP_fast_assign(
		__entry->seq = seq;
		__entry->pulses = pulses;
		__entry->ns = ns;
	),

	TP_printk("seq=%llu pulses=%u ns=%llu", (unsigned long long)__entry->seq, __entry->pulses,
		  (unsigned long long)__entry->ns)
);
/*
 * The micro-benchmark's tracepoint (debugfs microbench, docs/toggle-module.md): an integer and
 * a pointer, like the kernel-markers benchmark's MARK(subsys_mark1, "%d %p", 1, NULL).
 */
TRACE_EVENT(toggle_bench,

	TP_PROTO(int value, void *ptr),

	TP_ARGS(value, ptr),

	TP_STRUCT__entry(
		__field(int, value)
		__field(void *, ptr)
	),

	TP_fast_assign(
		__entry->value = value;
		__entry->ptr = ptr;
	),

	TP_printk("value=%d ptr=%p", __entry->value, __entry->ptr)
);
/* clang-format on */

#endif /* _TOGGLE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE toggle_trace
#include <trace/define_trace.h>
