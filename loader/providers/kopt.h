/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: the kprobe optimizer's work done before a phase begins (kopt.c) */
#ifndef GPIOLAT_KOPT_H
#define GPIOLAT_KOPT_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

/*
 * its tracefs instance: made at the run's first switch and kept to its end (its removal on the
 * run's undo stack from before it is made), its two events on only from before a switch to the
 * end of the wait after it
 */
#define KOPT_INSTANCE "gpiolat_kopt"

struct tracefs_instance;
struct undo;

/* the run's (its mode's context holds it, zeroed): the instance once made (its removal pushed
 * on the run's undo stack before) */
struct kopt_watch {
	struct tracefs_instance *inst; /* sees the optimizer's work run */
	int pipe; /* its trace_pipe, read without blocking (open: has_pipe) */
	bool has_pipe;
	/* a wait gave up (or the work could not be seen): the optimizer may still have work, so
	 * every later switch of the run is watched, kprobes or not (ov_engine.c) */
	bool unsettled;
};

/* one switch's */
struct kopt {
	char *before; /* the kernel's [OPTIMIZED] probes before the switch */
	struct kopt_watch *w;
	bool on; /* the watch's events on, what was in its buffer before read and dropped */
	/* what this switch's lines said so far (optimizer_state()) */
	bool marked, started, after, running;
	char part[512]; /* a line not yet whole */
	size_t npart;
};

/* before switching probes on or off (never inside a phase); W the run's, U its undo stack; W
 * NULL: the switch registers no kprobe (nothing to wait for, kopt_end returns 0 at once, and
 * no instance is made for it) */
void kopt_begin(struct kopt *k, struct kopt_watch *w, struct undo *u);
/* after: when the switch changed the kernel's jump-optimized probes, wait (bounded, STOP
 * ends it early) until the optimizer's work ran to its end; -1 with WHY when it did not */
int kopt_end(struct kopt *k, volatile sig_atomic_t *stop, char *why, size_t size);
/* the run's end: the instance's memory freed; its removal is the undo stack's step (replayed
 * on every way out, as the run's other instance) */
void kopt_close(struct kopt_watch *w);

#endif
