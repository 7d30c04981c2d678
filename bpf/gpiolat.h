/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: types shared by the BPF programs (bpf/gpiolat.bpf.c) and the loader (loader/).
 * Plain fixed-width types only: the same layout on both sides, 32- and 64-bit targets alike.
 */
#ifndef GPIOLAT_H
#define GPIOLAT_H

/* log2 slot 0 holds 0 ns; slot k (1..63) holds [2^(k-1), 2^k) ns; slot 63 also what is above */
#define GPIOLAT_LOG2_SLOTS 64
/* linear buckets [k*width, (k+1)*width) ns; one more, the overflow bucket, counts the rest */
#define GPIOLAT_LINEAR_SLOTS 100
/* the widest linear bucket: the BPF side's divide-free index is exact while width * slots < 2^32 */
#define GPIOLAT_LINEAR_WIDTH_MAX (((1ULL << 32) - 1) / GPIOLAT_LINEAR_SLOTS)
/*
 * fine (log-linear, HDR style) buckets: below 2^(SUB_BITS+1) ns one bucket per ns (exact);
 * above, each power of two [2^e, 2^(e+1)) cut into 2^SUB_BITS equal buckets, so a bucket is at
 * most 1/32 (3.1 %) of its lower bound wide. Index of v with slot = floor(log2(v)) + 1 and
 * s = max(slot - SUB_BITS - 1, 0): (s << SUB_BITS) + (v >> s). Values from
 * 2^HDR_MAX_LOG2 ns (16.8 ms) up all go to the last bucket (unbounded). Summing the fine buckets
 * of a power of two gives its log2 slot (exact below 2^HDR_MAX_LOG2).
 */
#define GPIOLAT_HDR_SUB_BITS 5
#define GPIOLAT_HDR_SUB (1 << GPIOLAT_HDR_SUB_BITS)
#define GPIOLAT_HDR_MAX_LOG2 24
#define GPIOLAT_HDR_SLOTS ((GPIOLAT_HDR_MAX_LOG2 - GPIOLAT_HDR_SUB_BITS + 1) * GPIOLAT_HDR_SUB + 1)
/* lines with a histogram: the loader gives each line of the system (or each -l line) a dense
 * index at start, up to this many */
#define GPIOLAT_MAX_LINES 1024
/* the largest global GPIO number + 1 the lines map may cover */
#define GPIOLAT_MAX_GPIO 65536

/*
 * One global GPIO number's slot (BPF_MAP_TYPE_ARRAY keyed by the number, shared by the CPUs:
 * the two edges of a pulse may run on different CPUs). The loader writes idx before attach;
 * the BPF side only ever writes start.
 */
struct gpiolat_line {
	__u64 start; /* time of the stored rising edge (ns, bpf_ktime_get_ns); 0: none */
	__u32 idx; /* the line's index in the hists array + 1; 0: not traced */
	__u32 pad;
	__u64 fall; /* time of the last falling edge, when periods are counted (period_max) */
};

/*
 * One GPIO line's histogram and counters, one copy per CPU (BPF_MAP_TYPE_PERCPU_ARRAY indexed
 * by the line's dense index): the BPF side only ever adds to its own CPU's copy; the loader sums
 * the copies (min and max: the smallest and largest over the CPUs that saw pairs). The BPF side
 * keeps only what the falling set's pair and the rare paths need: events, rising, falling and
 * pairs stay 0 in the map, and the loader counts them from the rest (hist_sum_cpus); min_ns
 * holds ~min there (0: no pair).
 */
struct gpiolat_hist {
	__u64 events; /* sets of this line seen (get == 0 for the tracepoint) */
	__u64 rising; /* sets to 1 */
	__u64 falling; /* sets to 0 */
	__u64 pairs; /* falling edges with a stored start: histogrammed */
	__u64 unmatched; /* falling edges without a stored start: counted, not histogrammed */
	__u64 rising_again; /* a set to 1 while a start was stored: the first start is kept */
	__u64 start_lost; /* a set to 1 whose start could not be stored (0 since the start is a
			   * plain slot; kept for the output format) */
	__u64 min_ns; /* over this CPU's pairs (valid when pairs > 0; ~min in the map) */
	__u64 max_ns;
	__u64 sum_ns;
	/* fall-to-fall periods shorter than period_max (0: none counted), for --overhead's trust
	 * check: the program's own clock over a whole set pair, its own cost included */
	__u64 periods;
	__u64 period_sum_ns;
	/* the BPF side counts here only the slots from 2^HDR_MAX_LOG2 up; the loader adds the
	 * ones below from fine (hist_sum_cpus): a map read holds them in fine only */
	__u64 log2[GPIOLAT_LOG2_SLOTS];
	__u64 linear[GPIOLAT_LINEAR_SLOTS + 1]; /* the last one is the overflow bucket */
	__u64 fine[GPIOLAT_HDR_SLOTS]; /* log-linear; the last one is the overflow bucket */
};

/* per-CPU counters of sets that no line could take (index into the "drops" map) */
enum gpiolat_drop {
	GPIOLAT_DROP_NO_LINE_SLOT, /* a set of a line the loader gave no index (no -l given) */
	GPIOLAT_DROP_MAX,
};

/*
 * The object without CO-RE (bpf/gpiolat_nobtf.h, for a kernel without BTF): the gpio:gpio_value
 * record's fields at these offsets, as every kernel's format file gives them today (an 8-byte
 * common header, then unsigned gpio, int get, int value); the loader checks them against the
 * format file in tracefs before it loads that object (sys_check_tp_format).
 */
#define GPIOLAT_TP_OFF_GPIO 8
#define GPIOLAT_TP_OFF_GET 12
#define GPIOLAT_TP_OFF_VALUE 16

/*
 * The no-BTF kprobe: a gpio_desc address -> its global GPIO number, learnt by the loader in a
 * pre-phase (the "pairs" programs: a set seen by the kprobe and then by the tracepoint in the same
 * task on the same CPU, inside gpiod_set_value()); seen counts the pairings that agreed,
 * conflicts those that named another GPIO number for the same desc
 */
struct gpiolat_desc {
	__u32 gpio;
	__u32 seen;
	__u32 conflicts;
	__u32 pad;
};

/* the pre-phase's per-CPU slot: the desc the kprobe saw, by which task; 0: none */
struct gpiolat_pair {
	__u64 desc;
	__u64 pid_tgid;
};

#endif /* GPIOLAT_H */
