/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat, utoggle, mmtoggle: results go to stdout, and none is lost silently. Compiled into
 * the loader and both togglers.
 */
#ifndef GPIOLAT_RESULTS_OUT_H
#define GPIOLAT_RESULTS_OUT_H

#include <stdbool.h>

/*
 * Whether stdout is open; when it is closed, one line "PROG: stdout is closed: ..." and false:
 * the first file the program opened would become fd 1 and get the results. Call it before
 * anything is written: stdout, when not a terminal, gets a buffer of RESULTS_OUT_BUF bytes, so
 * that a report up to that size (--help, a mode's report) goes out in the final flush of
 * results_out_done(), whose failure keeps its reason. A write that fails before, inside printf
 * or argp's help (stdio's own buffer is one block, 4 KiB), keeps no errno.
 */
#define RESULTS_OUT_BUF (64 * 1024)
bool results_out_open(const char *prog);

/*
 * Every write to stdout checked at the end (fflush, ferror, fclose): RC when all of them went
 * out, else one line "PROG: writing the results to stdout failed[: why]" and RC, or 1 when RC
 * was 0 (a lost result is a failed run). The why is missing only when a write failed before
 * the final flush: a report larger than RESULTS_OUT_BUF, or one flushed on purpose part by
 * part (an interval's histograms, a fork's fflush).
 */
int results_out_done(const char *prog, int rc);

#endif
