/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat's histogram mode, the default (docs/loader.md): pulse widths of GPIO lines
 * histogrammed in the kernel, and what the tracing costs; --self-test among its options. Its
 * parts share histo_int.h.
 */
#ifndef GPIOLAT_HISTO_H
#define GPIOLAT_HISTO_H

/* run it (the whole command line); the exit status (0 done, 1 error, 2 bad usage) */
int histo_main(int argc, char **argv);
#endif /* GPIOLAT_HISTO_H */
