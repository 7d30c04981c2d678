/* SPDX-License-Identifier: GPL-2.0 */
/* utoggle_run.c: batches run and timed, --control */
#ifndef UTOGGLE_RUN_H
#define UTOGGLE_RUN_H

#include <time.h>
#include "utoggle.h"

long long ts_ns(const struct timespec *ts);
/* batches until COUNT pulses (0: no limit), the duration or a signal; 0 or -errno */
int run(struct toggler *t, const struct opts *o, long long count, struct stats *s,
	struct samples *sm, long long *elapsed);
/* --control: 'run N [marker]' on stdin until EOF, 'quit' or a signal; 0 or -errno */
int control(struct toggler *t, const struct opts *o, struct stats *s, long long *elapsed);
#endif /* UTOGGLE_RUN_H */
