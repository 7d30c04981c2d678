// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: a tracefs instance of ours removed (tracefs_rm.h): its tracer cleared, its events off
 * and their triggers out first. Below the undo journal, whose "i NAME" step it is, and kopt.c.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include "core/tracefs_rm.h"

/* remove the triggers of one event of INST, those that the kernel takes away now; how many */
static int event_triggers_remove(struct tracefs_instance *inst, const char *sys, const char *ev)
{
	char *t = tracefs_event_file_read(inst, sys, ev, "trigger", NULL), *line, *save = NULL;
	char buf[1024];
	int n = 0;

	for (line = t ? strtok_r(t, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		/* as read back, less its state: "hist:keys=... [active]" */
		snprintf(buf, sizeof(buf), "!%.*s", (int)strcspn(line, "["), line);
		if (tracefs_event_file_append(inst, sys, ev, "trigger", buf) >= 0)
			n++;
	}
	free(t);
	return n;
}

/*
 * Every trigger of every event of INST removed. A hist trigger whose variables another one uses
 * (the synthetic event's start and end, onmatch().trace()) is refused until that one is gone,
 * and while any is there the instance and the synthetic event stay busy: so in passes, until a
 * pass removes nothing (a SIGKILL in the event-synthetic row left exactly that).
 */
static void triggers_remove(struct tracefs_instance *inst)
{
	const char *dir = tracefs_instance_get_dir(inst);
	char **sys = dir ? tracefs_event_systems(dir) : NULL, **ev;
	int i, j, pass, n = 1;

	for (pass = 0; sys && n && pass < 4; pass++) {
		for (n = 0, i = 0; sys[i]; i++) {
			ev = tracefs_system_events(dir, sys[i]);
			for (j = 0; ev && ev[j]; j++)
				n += event_triggers_remove(inst, sys[i], ev[j]);
			tracefs_list_free(ev);
		}
	}
	tracefs_list_free(sys);
}

/* remove the instance NAME, its tracer cleared, its events off and their triggers removed
 * first; 0, -1 when it cannot be had, 1 when it stays (errno) */
int tracefs_instance_remove(const char *name)
{
	struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
	int i, e;

	if (!old)
		return -1;
	tracefs_tracer_clear(old);
	tracefs_event_disable(old, NULL, NULL);
	/*
	 * the kernel takes an instance's triggers out with it (event_trace_del_tracer) unless one
	 * keeps it busy; only then every event's trigger file is read (about 2000 files, most of
	 * a run's way out under TCG: strace in the std target, 2026-11-27)
	 */
	if (!tracefs_instance_destroy(old)) {
		tracefs_instance_free(old);
		return 0;
	}
	triggers_remove(old);
	/* a killed run's process (utoggle) may hold one of its files open a moment longer */
	for (i = 0; tracefs_instance_destroy(old) && i < 150; i++)
		poll(NULL, 0, 20);
	e = errno;
	tracefs_instance_free(old);
	errno = e;
	return i == 150;
}

int leftover_instance_remove(const char *name)
{
	if (!tracefs_instance_exists(name))
		return 0;
	return tracefs_instance_remove(name) ? 1 : 0;
}
