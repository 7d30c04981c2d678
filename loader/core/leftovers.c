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
#include "core/sys.h"
#include "core/kmod_reload.h"
#include "core/leftovers.h"
#include "core/statedir.h"
#include "core/top_files.h"
#include "core/tracefs_rm.h"
#include "core/undo.h"

/* put the top level back as the state files say; remove them (STATE_DIR checked) */
int restore_top(bool *found)
{
	int i, err = 0;

	for (i = 0; i < TOP_FILES; i++)
		if (top_file_restore(top_files[i], found))
			err = -1;
	rmdir(STATE_DIR); /* when empty */
	return err;
}

/* what a cleanup could not remove, in WHY: -1 */
static int cleanup_fail(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * the other modes' leftovers, for --cleanup: --syscall-cost's instance gpiolat_sc and probe
 * group gpiolat_sc, study/microbench.sh's instance and kprobe group gpiolat_mb, --path's
 * instance gpiolat_path (which its undo journal names as well)
 */
int cleanup_others(bool *found, char *out, size_t size)
{
	static const char *const names[] = { "gpiolat_sc", "gpiolat_mb", "gpiolat_path" };
	char why[WHY_SIZE];
	int i, err = 0;

	/* --overhead's kprobe optimizer's watch (providers/kopt.c), there only while it waits */
	if (tracefs_instance_exists(LEFTOVER_KOPT_INSTANCE)) {
		*found = true;
		if (tracefs_instance_remove(LEFTOVER_KOPT_INSTANCE) > 0)
			err = cleanup_fail(out, size, "the instance " LEFTOVER_KOPT_INSTANCE ": %s",
					   strerror(errno));
	}
	for (i = 0; i < 3; i++)
		if (tracefs_leftovers_remove(names[i], names[i], found, why, sizeof(why)))
			err = cleanup_fail(out, size, "%s", why);
	return err;
}

int cleanup_all(bool *found, char *out, size_t size)
{
	struct tracefs_dynevent **dev;
	char why[WHY_SIZE], *left;
	int i, err = 0;

	*found = false;
	/* the journal first: its steps come after (and may use) the state files below */
	if (undo_replay(found, why, sizeof(why)))
		err = cleanup_fail(out, size, "the undo journal: %s", why);
	i = state_dir_open(false, why, sizeof(why));
	if (i < 0)
		err = cleanup_fail(out, size, "the state saved in " STATE_DIR ": %s", why);
	else if (i > 0 && (kmod_restore_saved(found) || restore_top(found)))
		err = cleanup_fail(out, size,
				   "the state saved in " STATE_DIR
				   " (the module, the top-level tracer)");
	if (tracefs_instance_exists(LEFTOVER_OV_INSTANCE)) {
		*found = true;
		if (tracefs_instance_remove(LEFTOVER_OV_INSTANCE) > 0)
			err = cleanup_fail(out, size, "the instance " LEFTOVER_OV_INSTANCE ": %s",
					   strerror(errno));
	}
	left = tracefs_probes_remove(LEFTOVER_OV_GROUP, found);
	if (left)
		err = cleanup_fail(out, size, "the probe event " LEFTOVER_OV_GROUP "/%s", left);
	free(left);
	dev = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_SYNTH, NULL);
	for (i = 0; dev && dev[i]; i++) {
		char *ev = NULL;

		tracefs_dynevent_info(dev[i], NULL, &ev, NULL, NULL, NULL);
		if (ev && !strncmp(ev, "gpiolat", 7)) {
			*found = true;
			if (tracefs_dynevent_destroy(dev[i], true))
				err = cleanup_fail(out, size, "the synthetic event %s: %s", ev,
						   strerror(errno));
		}
		free(ev);
	}
	tracefs_dynevent_list_free(dev);
	return err;
}
