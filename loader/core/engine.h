/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the one measurement engine (loader/core/engine.c), shared by --overhead and
 * --syscall-cost. What a method adds is measured by alternating phases: reference, method,
 * reference, ..., reference; repetition i compares the method's phase with the mean of the two
 * references around it, so that drift cancels. --overhead's phases are pulses of the toggle
 * module (or of utoggle), --syscall-cost's are runs of the worker's syscall batches: the mode
 * gives the phases, the engine the order, the stops and the unwinding.
 */
#ifndef GPIOLAT_ENGINE_H
#define GPIOLAT_ENGINE_H

#include <signal.h>

struct alternation {
	int reps;
	const volatile sig_atomic_t *stop; /* checked before each repetition */
	void *ctx;
	/* a reference phase (the method off): its figure; 0 or -1 */
	int (*reference)(void *ctx, double *fig);
	/* switch the method on for repetition REP; 0 or -1 */
	int (*on)(void *ctx, int rep);
	/* the method's phase: its figure; 0 or -1 */
	int (*phase)(void *ctx, double *fig);
	/* switch it off; 0 or -1 */
	int (*off)(void *ctx);
	/* repetition REP done: the method's figure between the references before and after */
	void (*repetition)(void *ctx, int rep, double before, double fig, double after);
};

enum alt_end {
	ALT_DONE, /* every repetition */
	ALT_STOPPED, /* *stop set */
	ALT_FAILED_REFERENCE,
	ALT_FAILED_ON, /* (switched off again) */
	ALT_FAILED_PHASE, /* (switched off again) */
	ALT_FAILED_OFF,
};

/* run the alternation; how it ended, and in *rep the repetitions done (or the one that failed) */
enum alt_end alternate(const struct alternation *a, int *rep);

#endif /* GPIOLAT_ENGINE_H */
