/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: leftovers of an interrupted run, found by name and removed (loader/core/leftovers.c). */
#ifndef GPIOLAT_LEFTOVERS_H
#define GPIOLAT_LEFTOVERS_H

#include <stdbool.h>
#include <stddef.h>

/* put the top level back as the state files say; remove them */
int restore_top(bool *found);
/* what the last cleanup could not remove */
extern char cleanup_why[];
/* --overhead's own: instance, probe events, synthetic event, saved state; 0 or -1 */
int cleanup_all(bool *found);
/* the other modes' (--syscall-cost, study/microbench.sh) */
int cleanup_others(bool *found);
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

#endif /* GPIOLAT_LEFTOVERS_H */
