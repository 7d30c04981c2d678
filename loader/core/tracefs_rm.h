/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: a tracefs instance of ours removed (loader/core/tracefs_rm.c). */
#ifndef GPIOLAT_TRACEFS_RM_H
#define GPIOLAT_TRACEFS_RM_H

#include <stdbool.h>
#include <stddef.h>

/* remove the instance NAME, its tracer cleared, its events off and their triggers removed
 * first; 0, -1 when it cannot be had, 1 when it stays (errno) */
int tracefs_instance_remove(const char *name);
/* remove the tracefs instance NAME (events off, triggers out first), when it is there; 0, or 1
 * when it stays (errno) */
int leftover_instance_remove(const char *name);
#endif /* GPIOLAT_TRACEFS_RM_H */
