/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the falling set's histogram update (bpf/gpiolat.bpf.c), included there after its
 * tunables (lin_width, lin_magic, lin_max) and maps.
 */
#ifndef GPIOLAT_HIST_BPF_H
#define GPIOLAT_HIST_BPF_H

/*
 * The falling set's work: the pair's bucket and its sum, min and max. What the loader can count
 * from these is not counted here (hist_sum_cpus): pairs (the fine buckets' sum), falling (pairs +
 * unmatched), rising (pairs + rising_again, and a start still stored), events (rising + falling).
 */
/* the number of significant bits of 0..511 (floor(log2(i)) + 1; 0 for 0) */
#define BITS_R2(n) n, n
#define BITS_R4(n) BITS_R2(n), BITS_R2(n)
#define BITS_R8(n) BITS_R4(n), BITS_R4(n)
#define BITS_R16(n) BITS_R8(n), BITS_R8(n)
#define BITS_R32(n) BITS_R16(n), BITS_R16(n)
#define BITS_R64(n) BITS_R32(n), BITS_R32(n)
#define BITS_R128(n) BITS_R64(n), BITS_R64(n)
#define BITS_R256(n) BITS_R128(n), BITS_R128(n)
static const __u8 bits9[512] = {
	0,	     1,		  BITS_R2(2),  BITS_R4(3),   BITS_R8(4),
	BITS_R16(5), BITS_R32(6), BITS_R64(7), BITS_R128(8), BITS_R256(9)
};

/* the histogram's key of the line traced alone (one_slot's index 1, half 0): an address the
 * verifier knows, no key written to the stack */
static const __u32 one_key = 0;

/* linear: the --linear switch is read (rodata lin_width); 0 (the plain programs): no code */
static __always_inline void histogram(struct gpiolat_hist *h, __u64 delta, const int linear)
{
	__u64 idx;
	__u64 slot;
	__u64 fine;

	h->sum_ns += delta;
	/* min_ns holds ~min here, so that the map's 0 means no pair yet: one compare, no count */
	if ((delta ^ ~0ULL) > h->min_ns)
		h->min_ns = delta ^ ~0ULL;
	if (delta > h->max_ns)
		h->max_ns = delta;
	/*
	 * the fine bucket (gpiolat.h): with s = max(floor(log2(delta)) - SUB_BITS, 0), which is
	 * the number of significant bits of delta >> (SUB_BITS + 1), (s << SUB_BITS) + (delta >> s):
	 * delta itself below 2 * HDR_SUB, then 2^SUB_BITS buckets per power of two, delta >> s
	 * being in [32, 64) there. Those bits from a table of 512 (two lookups' worth of 9 bits
	 * cover the 18 of delta >> 6 below 2^HDR_MAX_LOG2): no loop, no divide, about 20
	 * instructions. The log2 slots below 2^HDR_MAX_LOG2 are not counted here: the loader sums
	 * them from the fine buckets (hist_sum_cpus); from 2^HDR_MAX_LOG2 up the fine overflow
	 * bucket and the log2 slot, so log2 stays exact.
	 */
	if (delta >= 1ULL << GPIOLAT_HDR_MAX_LOG2) {
		/* the bound checked on the register that indexes (barrier_var: clang must not
		 * copy it) */
		slot = log2_slot(delta);
		barrier_var(slot);
		if (slot > GPIOLAT_LOG2_SLOTS - 1)
			slot = GPIOLAT_LOG2_SLOTS - 1;
		h->log2[slot]++;
		fine = GPIOLAT_HDR_SLOTS - 1;
	} else {
		__u64 x = delta >> (GPIOLAT_HDR_SUB_BITS + 1);
		__u64 s;

		if (x >> 9)
			s = bits9[(x >> 9) & 511] + 9;
		else
			s = bits9[x & 511];
		/*
		 * s <= MAX_LOG2 - SUB_BITS - 1 already; the clamp (never taken) gives the verifier
		 * the bound, fine <= 639, which it cannot see in a table's byte (barrier_var: clang
		 * must not drop the clamp)
		 */
		barrier_var(s);
		if (s > GPIOLAT_HDR_MAX_LOG2 - GPIOLAT_HDR_SUB_BITS - 1)
			s = GPIOLAT_HDR_MAX_LOG2 - GPIOLAT_HDR_SUB_BITS - 1;
		fine = (s << GPIOLAT_HDR_SUB_BITS) + ((delta >> s) & (2 * GPIOLAT_HDR_SUB - 1));
	}
	h->fine[fine]++;

	if (!linear || !lin_width)
		return;
	if (delta >= lin_max) {
		h->linear[GPIOLAT_LINEAR_SLOTS]++;
		return;
	}
	/* delta / lin_width without a divide: the estimate is exact or one too high */
	idx = (delta * lin_magic) >> 32;
	if (idx * lin_width > delta)
		idx--;
	barrier_var(idx);
	if (idx < GPIOLAT_LINEAR_SLOTS)
		h->linear[idx]++;
}

#endif /* GPIOLAT_HIST_BPF_H */
