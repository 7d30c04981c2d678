/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --overhead: what each tracing method adds to one GPIO set, measured in-system with
 * the toggle module's batch timing (docs/overhead.md).
 */
#ifndef GPIOLAT_OVERHEAD_H
#define GPIOLAT_OVERHEAD_H

#include <stdbool.h>

/* does the command line ask for --overhead? */
bool overhead_wanted(int argc, char **argv);
/* the whole run, with its own options (gpiolat --overhead --help); the exit status */
int overhead_main(int argc, char **argv);

#endif /* GPIOLAT_OVERHEAD_H */
