// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: leftovers of an interrupted run, found by name and removed (leftovers.h): the top-level
 * tracefs state saved in the state directory put back, instances, probe events and synthetic
 * events named gpiolat*, for --overhead, --syscall-cost and --cleanup alike.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "modes/overhead/ov.h"
#include "core/kmod_reload.h"
#include "core/leftovers.h"
#include "core/statedir.h"
#include "core/undo.h"

/* write a filter file back line by line ("#### all functions enabled ####": empty) */
static void restore_filter_file(const char *file, const char *saved)
{
	char *copy, *line, *save = NULL;

	tracefs_instance_file_clear(NULL, file);
	if (!saved || strstr(saved, "#### all functions enabled"))
		return;
	copy = strdup(saved);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			tracefs_instance_file_append(NULL, file, line);
	free(copy);
}

/* put the top level back as the state files say; remove them (STATE_DIR checked) */
int restore_top(bool *found)
{
	static const char *const names[] = { "current_tracer", "set_graph_function", "tracing_on" };
	bool bad = false;
	char p[128], *v;
	int i, err = 0;

	for (i = 0; i < 3; i++) {
		if (state_path(p, sizeof(p), names[i]))
			continue;
		v = state_read(names[i], &bad);
		if (!v)
			continue;
		*found = true;
		if (i == 1) {
			restore_filter_file(names[i], v);
		} else {
			if (tracefs_instance_file_write(NULL, names[i], v) < 0)
				err = -1;
		}
		free(v);
		unlink(p);
	}
	rmdir(STATE_DIR); /* when empty */
	return bad ? -1 : err;
}

/* everything named gpiolat*: our instance, our kprobes and synthetic event, saved top state */
#define PROBES                                                                            \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE | \
	 TRACEFS_DYNEVENT_URETPROBE)

/* what the last cleanup could not remove */
char cleanup_why[WHY];

static int cleanup_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cleanup_why, sizeof(cleanup_why), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * the other modes' leftovers, for --cleanup: --syscall-cost's instance gpiolat_sc and probe
 * group gpiolat_sc, study/microbench.sh's instance and kprobe group gpiolat_mb, --path's
 * instance gpiolat_path (which its undo journal names as well)
 */
int cleanup_others(bool *found)
{
	static const char *const names[] = { "gpiolat_sc", "gpiolat_mb", "gpiolat_path" };
	char why[WHY];
	int i, err = 0;

	for (i = 0; i < 3; i++)
		if (tracefs_leftovers_remove(names[i], names[i], found, why, sizeof(why)))
			err = cleanup_fail("%s", why);
	return err;
}

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
static int instance_remove(const char *name)
{
	struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);
	int i, e;

	if (!old)
		return -1;
	tracefs_tracer_clear(old);
	tracefs_event_disable(old, NULL, NULL);
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
	return instance_remove(name) ? 1 : 0;
}

/* remove GROUP's probe events; the name of one that stays (to free), else NULL */
static char *probes_remove(const char *group, bool *found)
{
	struct tracefs_dynevent **dev;
	char *ev = NULL;
	int i;

	/* removing a uprobe can take its uretprobe on the same place along: list again after */
	dev = tracefs_dynevent_get_all(PROBES, group);
	for (i = 0; dev && dev[i]; i++) {
		*found = true;
		tracefs_dynevent_destroy(dev[i], true);
	}
	tracefs_dynevent_list_free(dev);
	dev = tracefs_dynevent_get_all(PROBES, group);
	if (dev && dev[0]) {
		tracefs_dynevent_info(dev[0], NULL, &ev, NULL, NULL, NULL);
		if (!ev)
			ev = strdup("?");
	}
	tracefs_dynevent_list_free(dev);
	return ev;
}

int cleanup_all(bool *found)
{
	struct tracefs_dynevent **dev;
	char why[WHY], *left;
	int i, err = 0;

	*found = false;
	/* the journal first: its steps come after (and may use) the state files below */
	if (undo_replay(found, why, sizeof(why)))
		err = cleanup_fail("the undo journal: %s", why);
	i = state_dir_open(false, why, sizeof(why));
	if (i < 0)
		err = cleanup_fail("the state saved in " STATE_DIR ": %s", why);
	else if (i > 0 && (kmod_restore_saved(found) || restore_top(found)))
		err = cleanup_fail("the state saved in " STATE_DIR
				   " (the module, the top-level tracer)");
	if (tracefs_instance_exists(INSTANCE)) {
		*found = true;
		if (instance_remove(INSTANCE) > 0)
			err = cleanup_fail("the instance " INSTANCE ": %s", strerror(errno));
	}
	left = probes_remove(KP_SYSTEM, found);
	if (left)
		err = cleanup_fail("the probe event " KP_SYSTEM "/%s", left);
	free(left);
	dev = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_SYNTH, NULL);
	for (i = 0; dev && dev[i]; i++) {
		char *ev = NULL;

		tracefs_dynevent_info(dev[i], NULL, &ev, NULL, NULL, NULL);
		if (ev && !strncmp(ev, "gpiolat", 7)) {
			*found = true;
			if (tracefs_dynevent_destroy(dev[i], true))
				err = cleanup_fail("the synthetic event %s: %s", ev,
						   strerror(errno));
		}
		free(ev);
	}
	tracefs_dynevent_list_free(dev);
	return err;
}

struct inst_list {
	const char *prefix;
	char names[16][64];
	int n;
};

static int inst_collect(const char *name, void *ctx)
{
	struct inst_list *l = ctx;

	if (!strncmp(name, l->prefix, strlen(l->prefix)) && l->n < 16 &&
	    strlen(name) < sizeof(l->names[0]))
		strcpy(l->names[l->n++], name);
	return 0;
}

int tracefs_leftovers_remove(const char *inst_prefix, const char *group, bool *found, char *why,
			     size_t size)
{
	struct inst_list l = { .prefix = inst_prefix };
	char *left;
	int i, err = 0;

	/* the instances first: an event enabled in one cannot be removed */
	tracefs_instances_walk(inst_collect, &l);
	for (i = 0; i < l.n; i++) {
		*found = true;
		if (instance_remove(l.names[i])) {
			err = -1;
			snprintf(why, size, "the tracefs instance %s: %s", l.names[i],
				 strerror(errno));
		}
	}
	/* no probe events in the kernel: nothing of ours can be there */
	if (!tracefs_file_exists(NULL, "kprobe_events") &&
	    !tracefs_file_exists(NULL, "uprobe_events"))
		return err;
	left = probes_remove(group, found);
	if (left) {
		err = -1;
		snprintf(why, size, "the probe event %s/%s", group, left);
	}
	free(left);
	return err;
}
