/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --syscall-cost: what each tracing method adds to a syscall, measured natively
 * (docs/syscall-cost.md). Also --syscall-hist (the syscall-latency histogram alone) and
 * --empty-raw-tp (an empty BPF program held on a raw tracepoint, for the toggle module's
 * micro-benchmark). Its own argp parser: main() hands the whole command line over.
 */
#ifndef GPIOLAT_SYSCALL_COST_H
#define GPIOLAT_SYSCALL_COST_H

#include <stdbool.h>
#include <stddef.h>

/* does the command line ask for one of the modes above? */
bool syscall_cost_wanted(int argc, char **argv);
/* run it; the exit status (0 done, 1 error, 2 bad usage) */
int syscall_cost_main(int argc, char **argv);
#endif /* GPIOLAT_SYSCALL_COST_H */
