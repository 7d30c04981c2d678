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
 * the first file the program opened would become fd 1 and get the results.
 */
bool results_out_open(const char *prog);

/*
 * Every write to stdout checked at the end (fflush, ferror, fclose): RC when all of them went
 * out, else one line "PROG: writing the results to stdout failed[: why]" and RC, or 1 when RC
 * was 0 (a lost result is a failed run).
 */
int results_out_done(const char *prog, int rc);

#endif
