// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: did each row's method fire (overhead_int.h, docs/overhead.md "Fired")? The engine
 * reads the method's own count (provider.h count) after its on and after its off, around every
 * method phase and never inside it; a row whose count covers fewer sets than its phases ran is
 * not measured, and prints no figure. Pure functions of the rows (unit-tested), and the rows'
 * "fired" in the report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"
#include "core/jsonout.h"

/* the bound on a row without a count under icount: test 86's, FIRED_SD_NS + 5 % of |mean| */
#define FIRED_SD_NS 10.0
#define FIRED_SD_FRACTION 0.05

/*
 * A row proves its method fired on every set of every method phase, or prints no figure: not
 * measured when its count covers fewer sets than its phases ran (which phases fell short said),
 * or when a count it keeps could not be read. A row whose method keeps no count in this run
 * (counted false) is held, under TIMING=icount, to the bound on its repetitions' sd that
 * test 86 states (icount repeats a phase to the instruction: a method missing one phase of 3
 * gives an sd of at least 0.58 x its mean); in real time it keeps its figure, fired_why saying
 * why it has none (docs/overhead.md "Fired")
 */
void ov_fired_check(struct row *r, bool icount)
{
	double bound = FIRED_SD_NS + FIRED_SD_FRACTION * fabs(r->mean);
	int i, len;

	if (!r->counted && !r->count_lost && icount && r->reps >= 2 && r->sd > bound) {
		r->measured = false;
		r->not_fired = true;
		snprintf(r->why, WHY,
			 "no count (%s), and its repetitions' sd %.1f ns is above %.1f ns under "
			 "TIMING=icount: no proof it fired on every set",
			 r->fired_why, r->sd, bound);
		return;
	}
	if (r->count_lost) {
		r->measured = false;
		r->not_fired = true;
		snprintf(r->why, WHY, "no proof it fired: its count could not be read (%s)",
			 r->fired_why);
		return;
	}
	if (!r->counted || r->fired_sets >= r->sets)
		return;
	r->measured = false;
	r->not_fired = true;
	len = snprintf(r->why, WHY, "fired on %llu of %llu sets (%s; short in phase",
		       (unsigned long long)r->fired_sets, (unsigned long long)r->sets, r->fired_by);
	for (i = 0; i < r->fphases && len < WHY; i++)
		if (r->phase_fired[i] < r->phase_sets[i])
			len += snprintf(r->why + len, WHY - len, " %d (%llu of %llu)", i + 1,
					(unsigned long long)r->phase_fired[i],
					(unsigned long long)r->phase_sets[i]);
	if (len < WHY)
		snprintf(r->why + len, WHY - len, ")");
}

bool ov_rep_listed(const char *list, const char *name, int rep)
{
	size_t n = strlen(name);
	const char *s;
	char *end;

	for (s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
		if (!strncmp(s, name, n) && s[n] == ':' && strtol(s + n + 1, &end, 10) == rep + 1 &&
		    (*end == ',' || !*end))
			return true;
	return false;
}

const char *ov_fired_text(const struct row *r, char *buf, size_t size)
{
	if (r->counted)
		snprintf(buf, size, "fired on %llu of %llu sets (%s, %d phases)",
			 (unsigned long long)r->fired_sets, (unsigned long long)r->sets,
			 r->fired_by, r->fphases);
	else
		snprintf(buf, size, "not counted: %s", r->fired_why);
	return buf;
}

struct json_object *ov_fired_json(const struct row *r)
{
	struct json_object *j = json_object_new_object(), *a;
	int i;

	json_object_object_add(j, "counted", json_object_new_boolean(r->counted));
	if (!r->counted) {
		json_object_object_add(j, "why", json_object_new_string(r->fired_why));
		return j;
	}
	json_object_object_add(j, "by", json_object_new_string(r->fired_by));
	json_object_object_add(j, "sets", json_object_new_uint64(r->sets));
	json_object_object_add(j, "fired_sets", json_object_new_uint64(r->fired_sets));
	a = json_object_new_array();
	for (i = 0; i < r->fphases; i++) {
		struct json_object *p = json_object_new_object();

		json_object_object_add(p, "sets", json_object_new_uint64(r->phase_sets[i]));
		json_object_object_add(p, "fired_sets", json_object_new_uint64(r->phase_fired[i]));
		json_object_array_add(a, p);
	}
	json_object_object_add(j, "phases", a);
	return j;
}
