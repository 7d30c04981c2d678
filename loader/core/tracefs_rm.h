/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: tracefs objects of ours removed by name (loader/core/tracefs_rm.c). */
#ifndef GPIOLAT_TRACEFS_RM_H
#define GPIOLAT_TRACEFS_RM_H

#include <stdbool.h>
#include <stddef.h>

/* remove the instance NAME, its tracer cleared, its events off and their triggers removed
 * first; 0, -1 when it cannot be had, 1 when it stays (errno) */
int tracefs_instance_remove(const char *name);
/* remove GROUP's probe events (FOUND set when there were any); the name of one that stays (to
 * free), else NULL */
char *tracefs_probes_remove(const char *group, bool *found);
/* remove the tracefs instance NAME (events off, triggers out first), when it is there; 0, or 1
 * when it stays (errno) */
int leftover_instance_remove(const char *name);
/*
 * remove what a killed run left: the tracefs instances named INST_PREFIX* (events off first)
 * and the kprobe/uprobe events of GROUP; FOUND set when there was any. 0, or -1 and why.
 * gpiolat --syscall-cost and --cleanup call it.
 */
int tracefs_leftovers_remove(const char *inst_prefix, const char *group, bool *found, char *why,
			     size_t size);

#endif /* GPIOLAT_TRACEFS_RM_H */
