/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: the kprobe optimizer's work done before a phase begins (kopt.c) */
#ifndef GPIOLAT_KOPT_H
#define GPIOLAT_KOPT_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

/* its tracefs instance, there only while it waits (its removal on the run's undo stack) */
#define KOPT_INSTANCE "gpiolat_kopt"

struct tracefs_instance;
struct undo;

struct kopt {
	char *before; /* the kernel's [OPTIMIZED] probes before the switch */
	struct tracefs_instance *inst; /* sees the optimizer's work run */
	struct undo *undo; /* the run's: the instance's removal pushed while it is there */
};

/* before switching probes on or off (never inside a phase) */
void kopt_begin(struct kopt *k, struct undo *u);
/* after: when the switch changed the kernel's jump-optimized probes, wait (bounded, STOP
 * ends it early) until the optimizer's work ran to its end; -1 with WHY when it did not */
int kopt_end(struct kopt *k, volatile sig_atomic_t *stop, char *why, size_t size);

#endif
