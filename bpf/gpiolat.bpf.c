// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: in-kernel pulse-width histograms of GPIO lines.
 *
 * A set to 1 of a line stores the time; the next set to 0 of that line histograms the time
 * since then and clears the stored start. A set to 0 with no stored start is counted as
 * unmatched and never histogrammed. A second set to 1 while a start is stored keeps the first
 * start (the line went high then; a scope would measure from there) and is counted in
 * rising_again.
 *
 * Hot path, per set: one array lookup by GPIO number (the line's slot: its dense index, given
 * by the loader before attach, and its stored start) and one clock read; the set to 1 stores
 * its start and is done; the set to 0 adds one per-CPU array lookup by that index (the
 * histogram; with -i in the half the loader set: a bss load) and the pair's bucket. Both
 * lookups are array lookups, which the verifier inlines where the kernel can; no map update or
 * delete, no hash. What a run does not use (-i, --linear, --overhead's periods) is a rodata
 * switch the verifier prunes: make bench-gpio prints what each costs when on. The verifier drops
 * a switch's branch but keeps its load, so one line traced alone with none of them on (-l LINE,
 * --overhead's plain rows) runs a program of its own, *_plain (record_one): no switch, no index.
 *
 * The hooks of loader/providers/gpio_hooks.h, one object; the loader keeps exactly one of them
 * (bpf_program__set_autoload):
 *   tp/gpio/gpio_value          the trace event (only sets: get == 0)
 *   kprobe/gpiod_set_value      (desc, value)
 *   fentry/gpiod_set_value      (desc, value)
 *   tp_btf/gpio_value           (gpio, get, value): the tracepoint's arguments, BTF-typed
 * Compiled twice: with CO-RE (gpiolat_core.h), and with -DGPIOLAT_NOBTF for a kernel without
 * BTF (gpiolat_nobtf.h: no CO-RE relocation; the tracepoint's record at offsets the loader
 * checked in tracefs, the kprobe's desc mapped to its GPIO number by desc_lines, which the loader
 * fills in a pre-phase with the "pair" programs at the end). Both objects have the same maps,
 * programs and globals, so one skeleton type serves both.
 *
 * Portability: no division and no atomic instructions (the 32-bit arm JIT rejects both, and
 * 64-bit divides); every counter is per CPU and summed by the loader.
 */
#ifdef GPIOLAT_NOBTF
#include "gpiolat_nobtf.h" /* the object without CO-RE, for a kernel without BTF */
#else
#include "gpiolat_core.h"
#endif
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "gpiolat.h"
#include "log2.bpf.h"

/* Tunables, set by the loader through skel->rodata before load. */
/* only lines the loader gave an index are traced (-l), silently; else a set of a line without
 * one counts in drops */
const volatile __u8 filter_lines = 0;
/* ceil(2^32 / sizeof(struct gpio_desc)) of the running kernel: index = (bytes * magic) >> 32 */
const volatile __u64 desc_magic = 0;
/* linear buckets: width in ns (0: none), ceil(2^32 / width), and width * GPIOLAT_LINEAR_SLOTS */
const volatile __u64 lin_width = 0;
const volatile __u64 lin_magic = 0;
const volatile __u64 lin_max = 0;
/*
 * --overhead's trust check only: count fall-to-fall periods shorter than this (ns) in
 * periods and period_sum_ns (the module's batches are 1 ms or more apart: a period that
 * long spans a rest and is not counted). 0 (gpiolat's own modes): the verifier removes the
 * code, rodata being frozen.
 */
const volatile __u64 period_max = 0;
/* gpiolat -i: the programs write the half the loader flips at each interval (half, below) */
const volatile __u8 intervals = 0;
/*
 * one line traced alone (-l with one line, --overhead): its GPIO number + 1, and its slot is
 * one_slot (bss: an address the verifier knows, no lookup); 0: the lines map
 */
const volatile __u32 one_line = 0;
/* the same line's GPIO number, for the plain programs (below), which compare it as it is */
const volatile __u32 one_gpio = 0;

/* global GPIO number -> its slot (index and stored start); sized by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GPIOLAT_MAX_GPIO);
	__type(key, __u32);
	__type(value, struct gpiolat_line);
} lines SEC(".maps");

/*
 * the half of hists the programs write now (0 or 1): flipped by the loader at each interval (-i),
 * which then waits until no program runs that read the old half (membarrier: an RCU grace
 * period) and reads that half at rest: every interval's figures from one consistent state
 */
volatile __u32 half = 0;

/* the slot of the line traced alone (one_line), as a lines entry: its index (1) set by the
 * loader */
struct gpiolat_line one_slot = {};

/* (dense line index, half) -> its histogram, per CPU, at 2 * index + half; sized by the loader
 * to twice the lines it indexed */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * GPIOLAT_MAX_LINES);
	__type(key, __u32);
	__type(value, struct gpiolat_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GPIOLAT_DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

/* the no-BTF kprobe's gpio_desc address -> its GPIO number (gpiolat.h), filled in the pre-phase */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GPIOLAT_MAX_LINES);
	__type(key, __u64);
	__type(value, struct gpiolat_desc);
} desc_lines SEC(".maps");

/*
 * The kprobe's and fentry's desc -> GPIO number, learnt at a desc's first set (its three reads:
 * desc->gdev, gdev->base, gdev->descs, each a bpf_probe_read_kernel() in the kprobe), so a set of
 * a desc seen before costs a compare (one line traced alone: one_desc) or one per-CPU lookup
 * (desc_cache). A desc stays allocated while a consumer holds it (gpiod_request() takes a
 * reference to its gpio_device, whose release frees the descs), and gpiod_set_value() is only
 * called on a held desc: a cached address can name another line only after its chip's descs were
 * freed and allocated again, which only gpiochip_add_data_with_key() does. Its entry runs
 * gpiolat_desc_gen_* (below), which forgets one_desc and moves desc_gen, so every entry learnt
 * before is stale; a set in flight on a desc keeps that desc alive until it returns, so no entry
 * learnt from it can outlive the add that reuses its address. The loader sets desc_learn only
 * once that program is attached (gpio_bpf_fill_lines): without it, every set reads its desc.
 */
volatile __u8 desc_learn = 0;
/* the desc of one_line, learnt (0: none); one word, so no set sees half of a store */
volatile __u64 one_desc = 0;
/* the time of the last gpiochip_add_data_with_key() entry: desc_cache's entries learnt before are
 * stale (a time, not a count: two adds on two CPUs at once never store the same value back) */
volatile __u64 desc_gen = 0;

struct desc_entry {
	__u64 desc;
	__u64 gen;
	__u32 gpio;
	__u32 pad;
};

/* per CPU (no set on another CPU can tear an entry), direct-mapped by a hash of the address */
#define DESC_CACHE_BITS 6
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1 << DESC_CACHE_BITS);
	__type(key, __u32);
	__type(value, struct desc_entry);
} desc_cache SEC(".maps");

/* the pre-phase's slot: the desc the kprobe saw last on this CPU, until the tracepoint takes it */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gpiolat_pair);
} pair_slot SEC(".maps");

static __always_inline void count_drop(__u32 why)
{
	__u64 *c = bpf_map_lookup_elem(&drops, &why);

	if (c)
		(*c)++;
}

#include "gpiolat_hist.bpf.h"

/*
 * How much of record() runs: everything, or (only to measure what the parts cost, in programs
 * of their own: the --overhead rows bpf-gpiolat-tp-clock and bpf-gpiolat-tp-slot) the clock
 * read alone, or the clock read and the line's slot (the start stored and cleared), no
 * histogram. A constant at compile time: no trace of it in the programs that histogram.
 */
#define STAGE_CLOCK 1
#define STAGE_SLOT 2
#define STAGE_FULL 3

/*
 * the line's histogram: at 2 * index, + the half the loader set when it reads at intervals (-i);
 * a run that reads once, at rest, has every pair in half 0 and no load of half
 */
static __always_inline struct gpiolat_hist *line_hist(struct gpiolat_line *l)
{
	__u32 idx = (l->idx - 1) << 1;

	if (intervals)
		idx |= half & 1;
	return bpf_map_lookup_elem(&hists, &idx);
}

static __always_inline int record(__u32 gpio, int value, __u64 now, const int stage)
{
	struct gpiolat_line *l;
	struct gpiolat_hist *h;
	__u64 start;

	if (stage == STAGE_CLOCK)
		return 0;
	if (one_line) {
		/* -l with one line: every other line is not selected, silently */
		if (gpio != one_line - 1)
			return 0;
		l = &one_slot;
	} else {
		l = bpf_map_lookup_elem(&lines, &gpio);
	}
	if (!l || !l->idx) {
		if (!filter_lines)
			count_drop(GPIOLAT_DROP_NO_LINE_SLOT);
		return 0;
	}
	if (stage == STAGE_SLOT) {
		l->start = value ? now : 0;
		return 0;
	}
	start = l->start;
	if (value) {
		/* the set to 1: the start stored, nothing else (its count is the loader's) */
		if (!start) {
			l->start = now;
			return 0;
		}
		h = line_hist(l);
		if (h)
			h->rising_again++;
		return 0;
	}

	h = line_hist(l);
	if (!h) {
		count_drop(GPIOLAT_DROP_NO_LINE_SLOT);
		return 0;
	}
	if (period_max) {
		__u64 last = l->fall;

		l->fall = now;
		if (last && now - last < period_max) {
			h->periods++;
			h->period_sum_ns += now - last;
		}
	}
	if (!start) {
		h->unmatched++;
		return 0;
	}
	l->start = 0;
	histogram(h, now - start, 1);
	return 0;
}

/*
 * record() of the line traced alone with no feature on (-l LINE without -i, --linear or the
 * trust periods; --overhead's plain rows), in the programs *_plain that the loader picks then:
 * no rodata switch to load (the verifier drops a switch's branch but keeps its load), no index
 * to compute, the slot in bss and the histogram at one_key. The set to 1 stores its start; the
 * set to 0 clears it before the lookup, so only the pulse width lives across the call.
 */
static __always_inline int record_one(int value, __u64 now)
{
	__u64 start = one_slot.start;
	struct gpiolat_hist *h;

	if (value) {
		if (!start) {
			one_slot.start = now;
			return 0;
		}
		h = bpf_map_lookup_elem(&hists, &one_key);
		if (h)
			h->rising_again++;
		return 0;
	}
	if (!start) {
		h = bpf_map_lookup_elem(&hists, &one_key);
		if (h)
			h->unmatched++;
		return 0;
	}
	one_slot.start = 0;
	now -= start;
	/* the width computed here (barrier_var): only it, not now and start, kept across the call */
	barrier_var(now);
	h = bpf_map_lookup_elem(&hists, &one_key);
	if (!h) {
		/* never (one_key is in the map): the pair counted as lost, as record() does */
		__u64 *c = bpf_map_lookup_elem(&drops, &one_key); /* GPIOLAT_DROP_NO_LINE_SLOT */

		if (c)
			(*c)++;
		return 0;
	}
	histogram(h, now, 0);
	return 0;
}

#ifndef GPIOLAT_NOBTF
/* the global GPIO number of a descriptor: gdev->base + (desc - gdev->descs), no divide */
static __always_inline __u32 desc_gpio(int base, __u64 desc, __u64 descs)
{
	return base + (__u32)(((desc - descs) * desc_magic) >> 32);
}

static __always_inline __u32 desc_slot(__u64 desc)
{
	return (desc * 0x9E3779B97F4A7C15ULL) >> (64 - DESC_CACHE_BITS);
}

/*
 * record() of a desc's set: its GPIO number learnt (desc_cache, above) or read by read_gpio(desc)
 * (the kprobe's probe reads or the fentry's typed loads; ~0: none). cached: every line's desc
 * learnt, not only one_line's: the kprobe's (three probe reads against one per-CPU lookup); the
 * fentry's desc is a typed pointer, from which the verifier lets no hash be computed, and its
 * three loads cost about what a lookup does
 */
#define RECORD_DESC(desc, value, now, read_gpio, cached)                                 \
	({                                                                               \
		__u64 __d = (__u64)(desc);                                               \
		int __r = 0;                                                             \
		if (one_line) {                                                          \
			if (__d == one_desc) {                                           \
				__r = record(one_line - 1, value, now, STAGE_FULL);      \
			} else if (read_gpio(desc) == one_line - 1) {                    \
				if (desc_learn)                                          \
					one_desc = __d;                                  \
				__r = record(one_line - 1, value, now, STAGE_FULL);      \
			}                                                                \
		} else if (!(cached)) {                                                  \
			__u32 __gpio = read_gpio(desc);                                  \
			if (__gpio != ~0U)                                               \
				__r = record(__gpio, value, now, STAGE_FULL);            \
		} else {                                                                 \
			__u32 __k = desc_slot(__d);                                      \
			struct desc_entry *__e = bpf_map_lookup_elem(&desc_cache, &__k); \
			__u64 __g = desc_gen;                                            \
			if (__e && __e->desc == __d && __e->gen == __g) {                \
				__r = record(__e->gpio, value, now, STAGE_FULL);         \
			} else {                                                         \
				__u32 __gpio = read_gpio(desc);                          \
				if (__gpio != ~0U) {                                     \
					if (__e && desc_learn) {                         \
						__e->desc = __d;                         \
						__e->gen = __g;                          \
						__e->gpio = __gpio;                      \
					}                                                \
					__r = record(__gpio, value, now, STAGE_FULL);    \
				}                                                        \
			}                                                                \
		}                                                                        \
		__r;                                                                     \
	})
#endif

SEC("tp/gpio/gpio_value")
int gpiolat_tp(struct trace_event_raw_gpio_value *ctx)
{
	if (ctx->get)
		return 0;
	return record(ctx->gpio, ctx->value, bpf_ktime_get_ns(), STAGE_FULL);
}

/* the cost breakdown of the tracepoint program (not loaded unless asked for: "?") */
SEC("?tp/gpio/gpio_value")
int gpiolat_tp_clock(struct trace_event_raw_gpio_value *ctx)
{
	if (ctx->get)
		return 0;
	return record(ctx->gpio, ctx->value, bpf_ktime_get_ns(), STAGE_CLOCK);
}

SEC("?tp/gpio/gpio_value")
int gpiolat_tp_slot(struct trace_event_raw_gpio_value *ctx)
{
	if (ctx->get)
		return 0;
	return record(ctx->gpio, ctx->value, bpf_ktime_get_ns(), STAGE_SLOT);
}

/* the plain programs (record_one): one line traced alone, no feature; not loaded unless picked */
SEC("?tp/gpio/gpio_value")
int gpiolat_tp_plain(struct trace_event_raw_gpio_value *ctx)
{
	__u64 now;

	if (ctx->get)
		return 0;
	now = bpf_ktime_get_ns();
	if (ctx->gpio != one_gpio)
		return 0;
	return record_one(ctx->value, now);
}

#ifdef GPIOLAT_NOBTF
/*
 * A kernel without BTF: no offset of gpio_desc or gpio_device is known, so the GPIO number is
 * the one the pre-phase paired with this desc; a desc it did not see counts as a drop (silently
 * with -l: every selected line was paired, so it is a line not selected)
 */
static __always_inline int record_desc(__u64 desc, int value, __u64 now)
{
	struct gpiolat_desc *d = bpf_map_lookup_elem(&desc_lines, &desc);

	if (!d) {
		if (!filter_lines)
			count_drop(GPIOLAT_DROP_NO_LINE_SLOT);
		return 0;
	}
	return record(d->gpio, value, now, STAGE_FULL);
}
#endif

#ifndef GPIOLAT_NOBTF
/* the GPIO number of desc from its gpio_device, by probe reads (~0: no gdev) */
static __always_inline __u32 kprobe_gpio(struct gpio_desc *desc)
{
	/* pointer fields in the kernel's own width (32-bit ARM: 4 bytes), see gpiolat_core.h */
	struct gpio_device *gdev = (struct gpio_device *)CORE_READ_PTR(desc, gdev);

	if (!gdev)
		return ~0U;
	return desc_gpio(BPF_CORE_READ(gdev, base), (__u64)desc, CORE_READ_PTR(gdev, descs));
}

/* the same by the fentry's BTF-typed loads (no bpf_probe_read_kernel()) */
static __always_inline __u32 fentry_gpio(struct gpio_desc *desc)
{
	struct gpio_device *gdev = desc->gdev;

	if (!gdev)
		return ~0U;
	return desc_gpio(gdev->base, (__u64)desc, (__u64)gdev->descs);
}
#endif

SEC("kprobe/gpiod_set_value")
int BPF_KPROBE(gpiolat_kprobe, struct gpio_desc *desc, int value)
{
	__u64 now = bpf_ktime_get_ns();

	if (!desc)
		return 0;
#ifdef GPIOLAT_NOBTF
	/* desc and value: the first two argument registers (PT_REGS_PARM1/2), plain ctx reads */
	return record_desc((__u64)desc, value, now);
#else
	return RECORD_DESC(desc, value, now, kprobe_gpio, 1);
#endif
}

/* BTF-typed arguments: the fields are read directly, no bpf_probe_read_kernel() */
SEC("fentry/gpiod_set_value")
int BPF_PROG(gpiolat_fentry, struct gpio_desc *desc, int value)
{
	__u64 now = bpf_ktime_get_ns();

	if (!desc)
		return 0;
#ifdef GPIOLAT_NOBTF
	/* fentry itself needs the kernel's BTF to attach; the loader says so and never loads it */
	return record_desc((__u64)desc, value, now);
#else
	return RECORD_DESC(desc, value, now, fentry_gpio, 0);
#endif
}

/*
 * The plain kprobe and fentry: the desc of one_gpio learnt (one_desc) or its GPIO number read
 * (without BTF: the pre-phase's pairing), then record_one()
 */
#ifdef GPIOLAT_NOBTF
#define PLAIN_DESC(desc, value, now, read_gpio)                                    \
	({                                                                         \
		__u64 __d = (__u64)(desc);                                         \
		struct gpiolat_desc *__g = bpf_map_lookup_elem(&desc_lines, &__d); \
		__g && __g->gpio == one_gpio ? record_one(value, now) : 0;         \
	})
#else
#define PLAIN_DESC(desc, value, now, read_gpio)           \
	({                                                \
		__u64 __d = (__u64)(desc);                \
		int __r = 0;                              \
		if (__d == one_desc) {                    \
			__r = record_one(value, now);     \
		} else if (read_gpio(desc) == one_gpio) { \
			if (desc_learn)                   \
				one_desc = __d;           \
			__r = record_one(value, now);     \
		}                                         \
		__r;                                      \
	})
#endif

/*
 * The plain programs read their arguments after the clock read, from ctx (not BPF_KPROBE's or
 * BPF_PROG's reads at entry, which the compiler cannot move past a helper call): only ctx, then
 * the width, live across a call, in one callee-saved register, as the floor has none
 */
SEC("?kprobe/gpiod_set_value")
int gpiolat_kprobe_plain(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct gpio_desc *desc = (struct gpio_desc *)(unsigned long)PT_REGS_PARM1(ctx);

	if (!desc)
		return 0;
	return PLAIN_DESC(desc, (int)PT_REGS_PARM2(ctx), now, kprobe_gpio);
}

SEC("?fentry/gpiod_set_value")
int gpiolat_fentry_plain(unsigned long long *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct gpio_desc *desc = (struct gpio_desc *)ctx[0];

	if (!desc)
		return 0;
	return PLAIN_DESC(desc, (int)ctx[1], now, fentry_gpio);
}

/*
 * a chip's descs allocated (maybe where freed ones were): every desc learnt is forgotten (in both
 * objects, as every program is: the loader attaches it only where the CO-RE kprobe or fentry
 * learns)
 */
static __always_inline void desc_forget(void)
{
	one_desc = 0;
	desc_gen = bpf_ktime_get_ns();
}

SEC("?kprobe/gpiochip_add_data_with_key")
int BPF_KPROBE(gpiolat_desc_gen_kprobe)
{
	desc_forget();
	return 0;
}

SEC("?fentry/gpiochip_add_data_with_key")
int BPF_PROG(gpiolat_desc_gen_fentry)
{
	desc_forget();
	return 0;
}

/*
 * The same tracepoint, BTF-typed (a raw tracepoint: no perf record is built, the arguments of
 * trace_gpio_value(gpio, get, value) come as they are). It attaches by the kernel's BTF id of
 * btf_trace_gpio_value: in the object without CO-RE it is never loaded (the loader says why),
 * like fentry.
 */
SEC("tp_btf/gpio_value")
int BPF_PROG(gpiolat_tp_btf, unsigned int gpio, int get, int value)
{
	if (get)
		return 0;
	return record(gpio, value, bpf_ktime_get_ns(), STAGE_FULL);
}

/* the arguments of trace_gpio_value(gpio, get, value), read as the kprobe's (above) */
SEC("?tp_btf/gpio_value")
int gpiolat_tp_btf_plain(unsigned long long *ctx)
{
	__u64 now;

	if ((int)ctx[1])
		return 0;
	now = bpf_ktime_get_ns();
	if ((unsigned int)ctx[0] != one_gpio)
		return 0;
	return record_one((int)ctx[2], now);
}

#include "gpiolat_pair.bpf.h" /* the no-BTF kprobe's pre-phase */

char LICENSE[] SEC("license") = "GPL";
