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
 * anything is written: stdout becomes a stream of its own over fd 1 (glibc's fopencookie) that
 * keeps the errno of the first write that failed, wherever it failed: in the final flush, in
 * printf when the buffer filled (a report larger than RESULTS_OUT_BUF), or in a flush made on
 * purpose (an interval's histograms, the fflush before a fork). When not a terminal it gets a
 * buffer of RESULTS_OUT_BUF bytes (a report up to that size goes out in the final flush); a
 * terminal stays line-buffered. False with one line when that stream cannot be made (no memory).
 */
#define RESULTS_OUT_BUF (64 * 1024)
bool results_out_open(const char *prog);

/*
 * Every write to stdout checked at the end (fflush, ferror, fclose): RC when all of them went
 * out, else one line "PROG: writing the results to stdout failed: WHY" (the first failure's
 * errno) and RC, or 1 when RC was 0 (a lost result is a failed run).
 */
int results_out_done(const char *prog, int rc);

#endif
