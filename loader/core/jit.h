/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPIOLAT_JIT_H
#define GPIOLAT_JIT_H

/*
 * jit_state(): whether BPF programs run JIT-compiled or interpreted here, as one line for a
 * report, from /proc/sys/net/core/bpf_jit_enable (0: interpreted; 1: JIT; 2: JIT with debug
 * output). It changes every cost: Debian's armmp has it off by default. The string is static.
 */
const char *jit_state(void);

#endif
