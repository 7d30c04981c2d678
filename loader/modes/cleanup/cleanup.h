/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --cleanup: what a killed run left put back, from its undo journal (core/undo.h), and
 * nothing else; then exit (loader/modes/cleanup/cleanup.c).
 */
#ifndef GPIOLAT_CLEANUP_H
#define GPIOLAT_CLEANUP_H

#include <stdbool.h>

/* does the command line ask for --cleanup? */
bool cleanup_wanted(int argc, char **argv);
/* the run (gpiolat --cleanup --help); the exit status */
int cleanup_main(int argc, char **argv);

#endif /* GPIOLAT_CLEANUP_H */
