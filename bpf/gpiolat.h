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
/* lines kept when no -l is given: the first this many lines that see a set */
#define GPIOLAT_MAX_LINES 256

/*
 * One GPIO line's histogram and counters, one copy per CPU (BPF_MAP_TYPE_PERCPU_HASH keyed by
 * the global GPIO number): the BPF side only ever adds to its own CPU's copy; the loader sums
 * the copies (min and max: the smallest and largest over the CPUs that saw pairs).
 */
struct gpiolat_hist {
	__u64 events; /* sets of this line seen (get == 0 for the tracepoint) */
	__u64 rising; /* sets to 1 */
	__u64 falling; /* sets to 0 */
	__u64 pairs; /* falling edges with a stored start: histogrammed */
	__u64 unmatched; /* falling edges without a stored start: counted, not histogrammed */
	__u64 rising_again; /* a set to 1 while a start was stored: the first start is kept */
	__u64 start_lost; /* a set to 1 whose start could not be stored (starts map full) */
	__u64 min_ns; /* over this CPU's pairs (valid when pairs > 0) */
	__u64 max_ns;
	__u64 sum_ns;
	__u64 log2[GPIOLAT_LOG2_SLOTS];
	__u64 linear[GPIOLAT_LINEAR_SLOTS + 1]; /* the last one is the overflow bucket */
};

/* per-CPU counters of sets that no line could take (index into the "drops" map) */
enum gpiolat_drop {
	GPIOLAT_DROP_NO_LINE_SLOT, /* the hists map was full: a new line could not be added */
	GPIOLAT_DROP_MAX,
};

#endif /* GPIOLAT_H */
