// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the reference talk's oscilloscope figures (data/baseline-klinger-elce2023.csv),
 * embedded as they are, NUL-terminated, so that gpiolat prints them beside its own on a board
 * without the project's files. The Makefile makes this object depend on the CSV.
 */
#include "hist.h"

__asm__(".section .rodata\n"
	".global baseline_csv\n"
	".type baseline_csv, %object\n"
	"baseline_csv:\n"
	".incbin \"data/baseline-klinger-elce2023.csv\"\n"
	".byte 0\n"
	".size baseline_csv, . - baseline_csv\n"
	".previous\n");
