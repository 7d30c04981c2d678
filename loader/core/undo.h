/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the undo journal of a run (loader/core/undo.c). Every change a mode makes to the system
 * (a debugfs file of the toggle module, a tracefs instance, a module reload) is recorded in
 * STATE_DIR/undo before it is made, one line a step; the run's way out replays its steps in
 * reverse, and after a SIGKILL gpiolat --cleanup or the next run that records a step does.
 * Used by --path, --wakeup, --gaps and the histogram mode (--overhead keeps its own state files).
 */
#ifndef GPIOLAT_UNDO_H
#define GPIOLAT_UNDO_H

#include <stdbool.h>
#include <stddef.h>

/* FILE (a file of the toggle module's debugfs) back to its present value; recorded once a run */
int undo_file(const char *file);
/* the module's toggling back as it is (enable, then pulses): before any toggle_start*() */
int undo_toggle(void);
/* the tracefs instance NAME (gpiolat*) removed: before it is made */
int undo_instance(const char *name);
/* the module back as saved in STATE_DIR by kmod_reload_setup(): before it is called */
int undo_kmod(void);
/* this run's steps undone in reverse, the journal removed; 0, or -1 when a step failed */
int undo_all(void);
/*
 * a killed run's journal replayed and removed (--cleanup, and the first step of a run); FOUND
 * set when there was one; 0, or -1 and why (another gpiolat that is still running owns it)
 */
int undo_replay(bool *found, char *why, size_t size);

#endif /* GPIOLAT_UNDO_H */
