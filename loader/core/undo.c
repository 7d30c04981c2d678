// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the undo stack and its journal (undo.h). STATE_DIR/undo-PID, one a run (two runs at
 * once never share one), holds a header line naming the process that owns it (pid and start
 * time), then the steps held, oldest first:
 *
 *   w FILE VALUE    write VALUE back to FILE (a file under /sys/kernel/debug/toggle/)
 *   i NAME          remove the tracefs instance NAME (gpiolat*), its events off first
 *   e SYSTEM EVENT  remove the dynamic event SYSTEM/EVENT (kprobe, uprobe, synthetic)
 *   k               put the toggle module back as STATE_DIR/toggle_params says (kmod_reload.c)
 *   t NAME          put the top-level tracer file NAME back as STATE_DIR/NAME says (top_files.c)
 *   c PID START     SIGKILL the process PID if it started at START (clock ticks after boot)
 *
 * The same function replays a run's own stack on its way out and a killed run's journal; a step
 * that fails is tried once more after the others (a synthetic event stays busy until the
 * triggers of the instance that feed it are gone). A step is read back only from a file of
 * root's in root's 0700 directory, and only for the names above.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <tracefs.h>
#include "core/kmod_reload.h"
#include "core/tracefs_rm.h"
#include "core/statedir.h"
#include "core/sys.h"
#include "core/top_files.h"
#include "core/undo.h"

#define UNDO_NAME "undo-%ld" /* one journal a run, named by its pid */
#define UNDO_NEW "undo-%ld.new"
#define UNDO_TOGGLE "/sys/kernel/debug/toggle/"
#define HEADER "gpiolat undo journal, pid %ld start %llu\n"
#define PROBES                                                                            \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE | \
	 TRACEFS_DYNEVENT_URETPROBE)

/* the start time of process PID (clock ticks after boot), 0 when there is none; *ZOMBIE */
static unsigned long long proc_start(long pid, bool *zombie)
{
	unsigned long long start = 0;
	char p[64], *t;
	const char *state, *s;
	int i;

	snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
	t = file_slurp(p);
	/* field 3, the state, ... field 22, the start time: 19 spaces after the state */
	state = s = sys_stat_fields(t);
	for (i = 0; s && i < 19; i++)
		s = strchr(s + 1, ' ');
	if (s) {
		if (zombie)
			*zombie = *state == 'Z';
		start = strtoull(s + 1, NULL, 10);
	}
	free(t);
	return start;
}

/* a name we may remove: ours (gpiolat*) or one of its parts, nothing that leaves the folder */
static bool name_ok(const char *s)
{
	return *s && strlen(s) < 64 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == strlen(s);
}

/*
 * The dynamic events SYSTEM/EVENT removed, each disabled in every instance first (force). By
 * listing, not tracefs_dynevent_get(): libtracefs lists a uretprobe twice (as a kretprobe too,
 * both "r:"), and its get finds none when two match; the kretprobe's removal fails, the
 * uretprobe's does.
 */
static int step_event(char *arg, bool say)
{
	enum tracefs_dynevent_type type = TRACEFS_DYNEVENT_SYNTH;
	struct tracefs_dynevent **all;
	bool found = false, gone = false;
	char *ev = strchr(arg, ' '), *name;
	int i;

	if (!ev)
		return -2;
	*ev++ = '\0';
	if (!name_ok(arg) || !name_ok(ev) ||
	    (strncmp(arg, "gpiolat", 7) && strncmp(ev, "gpiolat", 7)))
		return -2;
	if (strcmp(arg, "synthetic"))
		type = PROBES;
	all = tracefs_dynevent_get_all(type, type == PROBES ? arg : NULL);
	for (i = 0; all && all[i]; i++) {
		name = NULL;
		tracefs_dynevent_info(all[i], NULL, &name, NULL, NULL, NULL);
		if (name && !strcmp(name, ev)) {
			found = true;
			gone |= !tracefs_dynevent_destroy(all[i], true);
		}
		free(name);
	}
	tracefs_dynevent_list_free(all);
	if (!found || gone)
		return 0;
	if (say)
		fprintf(stderr, "gpiolat: cannot remove the event %s/%s: %s\n", arg, ev,
			strerror(errno));
	return -1;
}

static int step_child(char *arg)
{
	unsigned long long start = 0;
	long pid = 0;
	bool zombie = false;
	int i;

	if (sscanf(arg, "%ld %llu", &pid, &start) != 2 || pid <= 1 || !start)
		return -2;
	if (proc_start(pid, NULL) != start)
		return 0; /* gone, or the pid is another process's now */
	kill((pid_t)pid, SIGKILL);
	for (i = 0; i < 100; i++) {
		waitpid((pid_t)pid, NULL, WNOHANG); /* our own child: reaped */
		if (proc_start(pid, &zombie) != start || zombie)
			return 0;
		poll(NULL, 0, 20);
	}
	fprintf(stderr, "gpiolat: the process %ld did not go\n", pid);
	return -1;
}

static int step_file(char *arg)
{
	char *val = strchr(arg, ' ');
	int err;

	if (!val || strncmp(arg, UNDO_TOGGLE, strlen(UNDO_TOGGLE)) || strstr(arg, ".."))
		return -2;
	*val++ = '\0';
	strcat(val, "\n");
	err = sys_write_str(arg, val);
	/* the module is gone (unloaded since): nothing of it to put back */
	if (!err || err == -ENOENT)
		return 0;
	fprintf(stderr, "gpiolat: cannot write %.*s back to %s: %s\n", (int)strcspn(val, "\n"), val,
		arg, strerror(-err));
	return -1;
}

/* one step done; 0, or -1 (with a line on stderr when SAY) */
static int step(const char *text, bool say)
{
	char line[UNDO_LINE + 2], *arg = line + 2;
	bool found = false;
	int err = -2;

	snprintf(line, sizeof(line) - 1, "%s", text);
	if (line[0] == 'k' && !line[1])
		return kmod_restore_saved(&found);
	if (line[0] && line[1] != ' ')
		line[0] = '?';
	switch (line[0]) {
	case 't':
		if (!top_file_known(arg))
			break;
		if (!top_file_restore(arg, &found))
			return 0;
		fprintf(stderr, "gpiolat: cannot put the top-level %s back\n", arg);
		return -1;
	case 'i':
		if (strncmp(arg, "gpiolat", 7) || !name_ok(arg))
			break;
		if (leftover_instance_remove(arg) <= 0)
			return 0;
		fprintf(stderr, "gpiolat: cannot remove the tracefs instance %s: %s\n", arg,
			strerror(errno));
		return -1;
	case 'e':
		err = step_event(arg, say);
		break;
	case 'c':
		err = step_child(arg);
		break;
	case 'w':
		err = step_file(arg);
		break;
	}
	if (err == -2)
		fprintf(stderr,
			"gpiolat: " STATE_DIR ": an undo journal's step is not one: '%.100s'\n",
			text);
	return err ? -1 : 0;
}

/* STEPS[0..N) in reverse, the failed ones once more after the others; 0, or -1 */
static int replay(char **steps, int n)
{
	bool failed[UNDO_MAX + 16] = {};
	int i, err = 0;

	for (i = n - 1; i >= 0; i--)
		failed[i] = step(steps[i], false) != 0;
	for (i = n - 1; i >= 0; i--)
		if (failed[i] && step(steps[i], true))
			err = -1;
	return err;
}

/* the journal whole: the header, then the steps; atomically (a new file renamed over it) */
static int journal_write(struct undo *u)
{
	char p[128], np[128], head[96], name[32];
	int fd, i, len, err = 0;

	snprintf(name, sizeof(name), UNDO_NAME, (long)getpid());
	state_path(p, sizeof(p), name);
	if (!u->n) {
		if (u->journal && unlink(p) && errno != ENOENT)
			return -1;
		u->journal = false;
		rmdir(STATE_DIR); /* when empty */
		return 0;
	}
	snprintf(name, sizeof(name), UNDO_NEW, (long)getpid());
	state_path(np, sizeof(np), name);
	fd = open(np, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	len = snprintf(head, sizeof(head), HEADER, (long)getpid(), proc_start(getpid(), NULL));
	if (write(fd, head, len) != len)
		err = -1;
	for (i = 0; i < u->n && !err; i++) {
		len = strlen(u->step[i]);
		if (write(fd, u->step[i], len) != len || write(fd, "\n", 1) != 1)
			err = -1;
	}
	if (close(fd) || err) {
		unlink(np);
		return -1;
	}
	err = rename(np, p);
	if (!err)
		u->journal = true;
	return err;
}

/* LINE pushed (when not held already) and the journal written; 0, or -1 */
static int take(struct undo *u, const char *line)
{
	char why[WHY_SIZE];
	int i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->step[i], line))
			return 0;
	if (u->n >= UNDO_MAX || strlen(line) >= UNDO_LINE) {
		fprintf(stderr, "gpiolat: the undo stack is full (%d steps)\n", u->n);
		return -1;
	}
	/* the first: the state directory made (kept by our journal from here on) */
	if (!u->journal && state_dir_open(true, why, sizeof(why)) < 0) {
		fprintf(stderr, "gpiolat: the undo journal: %s\n", why);
		return -1;
	}
	snprintf(u->step[u->n++], UNDO_LINE, "%s", line);
	if (journal_write(u)) {
		fprintf(stderr, "gpiolat: cannot write the undo journal in " STATE_DIR ": %s\n",
			strerror(errno));
		u->n--;
		return -1;
	}
	return 0;
}

/* the last step equal to LINE dropped, the journal written */
static void drop(struct undo *u, const char *line)
{
	int i;

	for (i = u->n - 1; i >= 0; i--)
		if (!strcmp(u->step[i], line))
			break;
	if (i < 0)
		return;
	memmove(u->step[i], u->step[i + 1], (u->n - i - 1) * sizeof(u->step[0]));
	u->n--;
	if (journal_write(u))
		fprintf(stderr, "gpiolat: cannot write the undo journal: %s\n", strerror(errno));
}

int undo_file(struct undo *u, const char *file)
{
	char line[UNDO_LINE], *v;
	size_t len;
	int i;

	/* its value before the run's first change */
	len = snprintf(line, sizeof(line), "w %s ", file);
	for (i = 0; i < u->n; i++)
		if (!strncmp(u->step[i], line, len))
			return 0;
	if (strlen(file) >= 96 || strncmp(file, UNDO_TOGGLE, strlen(UNDO_TOGGLE))) {
		fprintf(stderr, "gpiolat: cannot record %s in the undo journal\n", file);
		return -1;
	}
	v = file_slurp(file);
	if (!v) {
		fprintf(stderr, "gpiolat: cannot read %s: %s\n", file, strerror(errno));
		return -1;
	}
	snprintf(line, sizeof(line), "w %s %.*s", file, (int)strcspn(v, "\n"), v);
	free(v);
	return take(u, line);
}

int undo_toggle(struct undo *u)
{
	/* replayed in reverse: enable first (stops it), then the pulse limit */
	return undo_file(u, UNDO_TOGGLE "pulses") || undo_file(u, UNDO_TOGGLE "enable") ? -1 : 0;
}

int undo_instance(struct undo *u, const char *name)
{
	char line[UNDO_LINE];

	snprintf(line, sizeof(line), "i %s", name);
	return take(u, line);
}

void undo_instance_done(struct undo *u, const char *name)
{
	char line[UNDO_LINE];

	snprintf(line, sizeof(line), "i %s", name);
	drop(u, line);
}

int undo_event(struct undo *u, const char *system, const char *event)
{
	char line[UNDO_LINE];

	snprintf(line, sizeof(line), "e %s %s", system, event);
	return take(u, line);
}

void undo_event_done(struct undo *u, const char *system, const char *event)
{
	char line[UNDO_LINE];

	snprintf(line, sizeof(line), "e %s %s", system, event);
	drop(u, line);
}

int undo_kmod(struct undo *u)
{
	return take(u, "k");
}

int undo_tracer_file(struct undo *u, const char *name)
{
	char line[UNDO_LINE];
	int i;

	if (!top_file_known(name)) {
		fprintf(stderr, "gpiolat: cannot record the top-level %s in the undo journal\n",
			name);
		return -1;
	}
	snprintf(line, sizeof(line), "t %s", name);
	for (i = 0; i < u->n; i++)
		if (!strcmp(u->step[i], line))
			return 0;
	/* the step first: a run killed before the save leaves nothing changed to put back */
	if (take(u, line))
		return -1;
	if (top_file_save(name)) {
		fprintf(stderr, "gpiolat: cannot save the top-level %s in " STATE_DIR "\n", name);
		return -1;
	}
	return 0;
}

int undo_tracer_files_now(struct undo *u)
{
	char line[UNDO_LINE];
	int i, err = 0;

	for (i = TOP_FILES - 1; i >= 0; i--) {
		snprintf(line, sizeof(line), "t %s", top_files[i]);
		if (step(line, true))
			err = -1;
		else
			drop(u, line);
	}
	return err;
}

int undo_child(struct undo *u, pid_t pid)
{
	char line[UNDO_LINE];
	unsigned long long start = proc_start(pid, NULL);

	if (!start) {
		fprintf(stderr, "gpiolat: cannot read the start time of the process %ld\n",
			(long)pid);
		return -1;
	}
	snprintf(line, sizeof(line), "c %ld %llu", (long)pid, start);
	return take(u, line);
}

void undo_child_done(struct undo *u, pid_t pid)
{
	char line[UNDO_LINE];
	size_t len = snprintf(line, sizeof(line), "c %ld ", (long)pid);
	int i;

	for (i = u->n - 1; i >= 0; i--)
		if (!strncmp(u->step[i], line, len)) {
			snprintf(line, sizeof(line), "%s", u->step[i]);
			drop(u, line);
			return;
		}
}

int undo_all(struct undo *u)
{
	char *steps[UNDO_MAX];
	int i, err;

	if (!u->n)
		return 0;
	for (i = 0; i < u->n; i++)
		steps[i] = u->step[i];
	err = replay(steps, u->n);
	if (err) {
		fprintf(stderr, "gpiolat: undo: a step failed (kept in " STATE_DIR
				": the next run of gpiolat tries it again)\n");
		return -1;
	}
	u->n = 0;
	return journal_write(u);
}

/* what a killed run saved in STATE_DIR and whose step it had no time to record: put back */
static int saved_restore(bool *found)
{
	int i, err = 0;

	if (kmod_restore_saved(found))
		err = -1;
	for (i = 0; i < TOP_FILES; i++)
		if (top_file_restore(top_files[i], found))
			err = -1;
	return err;
}

/* the journal NAME in STATE_DIR replayed and removed, unless its run still runs (*BUSY); 0, or
 * -1 and why */
static int journal_replay(const char *name, bool *found, bool *busy, char *why, size_t size)
{
	char p[128], *text, *steps[UNDO_MAX + 16], *save = NULL, *l;
	unsigned long long start = 0;
	bool bad = false, zombie = false;
	long pid = 0;
	int err, n = 0;

	text = state_read(name, &bad);
	if (!text) {
		snprintf(why, size, STATE_DIR "/%s is not a file of root's", name);
		return bad ? -1 : 0;
	}
	if (sscanf(text, "gpiolat undo journal, pid %ld start %llu", &pid, &start) == 2 &&
	    pid != getpid() && proc_start(pid, &zombie) == start && !zombie) {
		snprintf(why, size, "another gpiolat (pid %ld) runs and owns " STATE_DIR "/%s", pid,
			 name);
		*busy = true;
		free(text);
		return 0;
	}
	for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (n < (int)(sizeof(steps) / sizeof(steps[0])))
			steps[n++] = l;
	/* steps[0] is the header */
	if (n > 1) {
		*found = true;
		sys_tracefs_dir(); /* mounted, when it is not */
	}
	err = n > 1 ? replay(steps + 1, n - 1) : 0;
	free(text);
	if (err) {
		snprintf(why, size, "a step of " STATE_DIR "/%s (kept)", name);
		return -1;
	}
	state_path(p, sizeof(p), name);
	unlink(p);
	return 0;
}

int undo_replay(bool *found, bool *busy, char *why, size_t size)
{
	char names[64][64], p[128];
	struct dirent *e;
	bool other = false;
	int i, n = 0, err;
	long pid;
	DIR *d;

	err = state_dir_open(false, why, size);
	if (err <= 0)
		return err;
	d = opendir(STATE_DIR);
	for (e = d ? readdir(d) : NULL; e; e = readdir(d))
		if (!strncmp(e->d_name, "undo", 4) && n < 64 && strlen(e->d_name) < 64)
			snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	if (d)
		closedir(d);
	err = 0;
	for (i = 0; i < n; i++) {
		/* a journal half written by a run that is gone */
		if (strstr(names[i], ".new")) {
			if (sscanf(names[i], UNDO_NEW, &pid) == 1 && !proc_start(pid, NULL) &&
			    !state_path(p, sizeof(p), names[i]))
				unlink(p);
			continue;
		}
		if (journal_replay(names[i], found, &other, why, size))
			err = -1;
	}
	if (err)
		return -1;
	if (other) {
		/* what a running gpiolat saved is its own: left alone */
		if (busy)
			*busy = true;
		return -1;
	}
	if (saved_restore(found)) {
		snprintf(why, size,
			 "the state saved in " STATE_DIR " (the module, the top-level tracer)");
		return -1;
	}
	rmdir(STATE_DIR); /* when empty */
	return 0;
}
