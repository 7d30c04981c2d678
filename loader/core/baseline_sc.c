// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the reference figures it prints beside its own, embedded as they are
 * (NUL-terminated): data/baseline-tracepoint-cost-notebook.csv and
 * data/baseline-lttng-markers.csv. The Makefile makes this object depend on both.
 */
__asm__(".section .rodata\n"
	".global notebook_csv\n"
	".type notebook_csv, %object\n"
	"notebook_csv:\n"
	".incbin \"data/baseline-tracepoint-cost-notebook.csv\"\n"
	".byte 0\n"
	".size notebook_csv, . - notebook_csv\n"
	".global markers_csv\n"
	".type markers_csv, %object\n"
	"markers_csv:\n"
	".incbin \"data/baseline-lttng-markers.csv\"\n"
	".byte 0\n"
	".size markers_csv, . - markers_csv\n"
	".previous\n");
