/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: the kprobe optimizer's work done before a phase begins (kopt.c) */
#ifndef GPIOLAT_KOPT_H
#define GPIOLAT_KOPT_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>

#include "core/leftovers.h"

/* named in core for --cleanup's sweep */
#define KOPT_INSTANCE LEFTOVER_KOPT_INSTANCE

struct tracefs_instance;

struct kopt {
	char *before; /* the kernel's [OPTIMIZED] probes before the switch */
	struct tracefs_instance *inst; /* sees the optimizer's work run */
};

/* before switching probes on or off (never inside a phase) */
void kopt_begin(struct kopt *k);
/* after: when the switch changed the kernel's jump-optimized probes, wait (bounded, STOP
 * ends it early) until the optimizer's work ran to its end; -1 with WHY when it did not */
int kopt_end(struct kopt *k, volatile sig_atomic_t *stop, char *why, size_t size);

#endif
