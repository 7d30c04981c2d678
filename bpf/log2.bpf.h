/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: branch-free log2 slot, shared by the BPF programs that histogram in log2 slots. */
#ifndef GPIOLAT_LOG2_BPF_H
#define GPIOLAT_LOG2_BPF_H

/* 0 for 0, else the number of significant bits (floor(log2(v)) + 1), without branches */
static __always_inline __u64 log2_slot(__u64 v)
{
	__u64 x = v;
	__u64 r, shift;

	r = (x > 0xffffffffULL) << 5;
	x >>= r;
	shift = (x > 0xffff) << 4;
	x >>= shift;
	r |= shift;
	shift = (x > 0xff) << 3;
	x >>= shift;
	r |= shift;
	shift = (x > 0xf) << 2;
	x >>= shift;
	r |= shift;
	shift = (x > 0x3) << 1;
	x >>= shift;
	r |= shift;
	r |= (x >> 1);
	r += (v != 0);
	return r;
}

#endif /* GPIOLAT_LOG2_BPF_H */
