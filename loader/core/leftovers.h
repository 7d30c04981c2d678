/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: leftovers of an interrupted run, found by name and removed (loader/core/leftovers.c). */
#ifndef GPIOLAT_LEFTOVERS_H
#define GPIOLAT_LEFTOVERS_H

#include <stdbool.h>
#include <stddef.h>
/* the removal by name that the measuring modes call through this header */
#include "core/tracefs_rm.h"

/* --overhead's tracefs objects, named here for the sweep (its ov.h names them the same) */
#define LEFTOVER_OV_INSTANCE "gpiolat"
#define LEFTOVER_OV_GROUP "gpiolat"
/* --overhead's watch of the kprobe optimizer (providers/kopt.c), there only while it waits */
#define LEFTOVER_KOPT_INSTANCE "gpiolat_kopt"

/* put the top level back as the state files say; remove them */
int restore_top(bool *found);
/* --overhead's own: instance, probe events, synthetic event, saved state; 0, or -1 and in WHY
 * what could not be removed */
int cleanup_all(bool *found, char *why, size_t size);
/* the other modes' (--syscall-cost, study/microbench.sh, --path): the same */
int cleanup_others(bool *found, char *why, size_t size);
#endif /* GPIOLAT_LEFTOVERS_H */
