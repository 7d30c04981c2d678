/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the syscall-latency histogram, shared by bpf/syscall.bpf.c and the loader
 * (loader/modes/syscall/syscall_cost.c). Plain fixed-width types: one layout on 32- and 64-bit
 * targets.
 */
#ifndef GPIOLAT_SYSCALL_H
#define GPIOLAT_SYSCALL_H

/* log2 slots as in gpiolat.h: slot 0 holds 0 ns, slot k holds [2^(k-1), 2^k) ns */
#define SC_LOG2_SLOTS 64
/* threads whose syscall start is kept at a time (LRU: the least recent goes first) */
#define SC_MAX_THREADS 16384

/*
 * one copy per CPU (BPF_MAP_TYPE_PERCPU_ARRAY, one element), summed by the loader; the count
 * of syscalls histogrammed is the sum of the slots (one add less per event)
 */
struct sc_hist {
	__u64 sum_ns;
	__u64 unmatched; /* exits with no stored start (the thread entered before attach) */
	__u64 slots[SC_LOG2_SLOTS];
};

#endif /* GPIOLAT_SYSCALL_H */
