/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the undo stack of a run (loader/core/undo.c), owned by the run context (struct run's
 * undo). Everything a run takes from the system is a step pushed before it is taken (a tracefs
 * instance, a kprobe, uprobe or synthetic event, a top-level tracer file, the toggle module's
 * parameters or a debugfs file of it, a child process), and the stack is written whole to the
 * run's journal STATE_DIR/undo-PID (a new file renamed over the old: never half written) each
 * time it changes. A step its owner gives back itself is dropped. run_mode() replays what is left in
 * reverse on every way out; after a SIGKILL, gpiolat --cleanup or the next run replays the
 * journal. A step says what to put back, never who took it: the replay knows no mode's names.
 */
#ifndef GPIOLAT_UNDO_H
#define GPIOLAT_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define UNDO_MAX 48 /* steps held at once */
#define UNDO_LINE 160

struct undo {
	int n; /* steps held */
	bool journal; /* STATE_DIR/undo is this run's */
	char step[UNDO_MAX][UNDO_LINE];
};

/*
 * Each take: the step pushed (a step held already is not pushed again) and the journal
 * written, before the thing is taken; 0, or -1 with a line on stderr (then do not take it).
 */
/* FILE (a file of the toggle module's debugfs) back to its present value (the first one kept) */
int undo_file(struct undo *u, const char *file);
/* the module's toggling back as it is (enable, then pulses): before any toggle_start*() */
int undo_toggle(struct undo *u);
/* the tracefs instance NAME (gpiolat*) removed, its events off and triggers out first */
int undo_instance(struct undo *u, const char *name);
/* the dynamic event SYSTEM/EVENT (a kprobe, uprobe or synthetic event; one of them gpiolat*)
 * removed */
int undo_event(struct undo *u, const char *system, const char *event);
/* the module back as kmod_reload.c saved it in STATE_DIR: before its setup is called */
int undo_kmod(struct undo *u);
/* the top-level tracer file NAME (top_files.h) saved in STATE_DIR and put back from there */
int undo_tracer_file(struct undo *u, const char *name);
/* the child PID (just forked) killed, when the process of that pid is still the one started
 * then (its start time: a pid used again is left alone) */
int undo_child(struct undo *u, pid_t pid);

/* given back by its owner: the step dropped, the journal written */
void undo_instance_done(struct undo *u, const char *name);
void undo_event_done(struct undo *u, const char *system, const char *event);
void undo_child_done(struct undo *u, pid_t pid);
/* the top-level tracer files put back now, their steps dropped; 0, or -1 */
int undo_tracer_files_now(struct undo *u);

/* every step held, in reverse; the journal removed; 0, or -1 when a step failed (kept) */
int undo_all(struct undo *u);
/*
 * the journals of killed runs replayed and removed, and what they saved in STATE_DIR put back
 * (gpiolat --cleanup, and run_mode() before a mode takes anything); FOUND set when there was
 * any. A journal whose gpiolat still runs is left to it (and then the saved state too): -1,
 * *BUSY set (if given) and why. 0, or -1 and why.
 */
int undo_replay(bool *found, bool *busy, char *why, size_t size);

#endif /* GPIOLAT_UNDO_H */
