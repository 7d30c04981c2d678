// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the one measurement engine, alternated phases (engine.h). */
#include "core/engine.h"

enum alt_end alternate(const struct alternation *a, int *rep)
{
	double before, fig, after;
	int i;

	*rep = 0;
	if (a->reference(a->ctx, &before))
		return ALT_FAILED_REFERENCE;
	for (i = 0; i < a->reps && !*a->stop; i++) {
		*rep = i;
		if (a->on(a->ctx, i)) {
			a->off(a->ctx);
			return ALT_FAILED_ON;
		}
		if (a->phase(a->ctx, &fig)) {
			a->off(a->ctx);
			return ALT_FAILED_PHASE;
		}
		if (a->off(a->ctx))
			return ALT_FAILED_OFF;
		if (a->reference(a->ctx, &after))
			return ALT_FAILED_REFERENCE;
		a->repetition(a->ctx, i, before, fig, after);
		before = after;
	}
	*rep = i;
	return *a->stop ? ALT_STOPPED : ALT_DONE;
}
