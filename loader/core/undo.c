// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the undo journal (undo.h). STATE_DIR/undo holds a header line with the pid of the run
 * that owns it, then one line a step, each appended before its change is made:
 *
 *   w FILE VALUE   write VALUE back to FILE (a file under /sys/kernel/debug/toggle/)
 *   i NAME         remove the tracefs instance NAME (gpiolat*), its events off first
 *   k              put the toggle module back as STATE_DIR/toggle_params says (kmod_reload.c)
 *   t NAME         put the top-level tracer file NAME back as STATE_DIR/NAME says (top_files.c)
 *
 * Undo is the steps in reverse order, by the run itself on its way out, or by the next run or
 * gpiolat --cleanup after a SIGKILL; the same function replays both. A step is read back only
 * from a file of root's in root's 0700 directory, and only for the paths above. The journal on
 * disk is the only state: whether this run has one (its header names our pid), which files it
 * recorded, how many steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/kmod_reload.h"
#include "core/tracefs_rm.h"
#include "core/statedir.h"
#include "core/sys.h"
#include "core/top_files.h"
#include "core/undo.h"

#define UNDO_NAME "undo"
#define UNDO_TOGGLE "/sys/kernel/debug/toggle/"
#define UNDO_MAX 32 /* files recorded by one run */

/* one step done; 0, or -1 with a line on stderr */
static int step(char *line)
{
	char *arg = line + 2, *val;
	bool found = false;
	int err;

	if (line[0] == 'k' && !line[1])
		return kmod_restore_saved(&found);
	if (line[0] == 't' && line[1] == ' ' && top_file_known(arg)) {
		if (!top_file_restore(arg, &found))
			return 0;
		fprintf(stderr, "gpiolat: cannot put the top-level %s back\n", arg);
		return -1;
	}
	if (line[0] == 'i' && line[1] == ' ' && !strncmp(arg, "gpiolat", 7) && !strchr(arg, '/')) {
		if (leftover_instance_remove(arg) <= 0)
			return 0;
		fprintf(stderr, "gpiolat: cannot remove the tracefs instance %s: %s\n", arg,
			strerror(errno));
		return -1;
	}
	val = line[0] == 'w' && line[1] == ' ' ? strchr(arg, ' ') : NULL;
	if (!val || strncmp(arg, UNDO_TOGGLE, strlen(UNDO_TOGGLE)) || strstr(arg, "..")) {
		fprintf(stderr, "gpiolat: " STATE_DIR "/" UNDO_NAME ": not a step: '%.100s'\n",
			line);
		return -1;
	}
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

/* the steps of TEXT (the journal, header first) in reverse; 0, or -1 when one failed */
static int replay(char *text)
{
	char *lines[UNDO_MAX + 8], *save = NULL, *l;
	int n = 0, err = 0;

	for (l = strtok_r(text, "\n", &save); l && n < (int)(sizeof(lines) / sizeof(lines[0]));
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	/* lines[0] is the header; each step has room for the "\n" that step() appends */
	while (n-- > 1) {
		char buf[256];

		snprintf(buf, sizeof(buf) - 1, "%s", lines[n]);
		if (step(buf))
			err = -1;
	}
	return err;
}

/* the pid in the header, or 0 */
static long owner(const char *text)
{
	long pid = 0;

	return sscanf(text, "gpiolat undo journal, pid %ld", &pid) == 1 ? pid : 0;
}

/* is PID a gpiolat that runs now? */
static bool gpiolat_runs(long pid)
{
	char p[64], *comm;
	bool yes;

	snprintf(p, sizeof(p), "/proc/%ld/comm", pid);
	comm = file_slurp(p);
	yes = comm && !strncmp(comm, "gpiolat", 7);
	free(comm);
	return yes;
}

int undo_replay(bool *found, char *why, size_t size)
{
	char p[128], *text;
	bool bad = false;
	long pid;
	int err;

	err = state_dir_open(false, why, size);
	if (err <= 0)
		return err;
	text = state_read(UNDO_NAME, &bad);
	if (!text) {
		if (bad)
			snprintf(why, size, STATE_DIR "/" UNDO_NAME " is not a file of root's");
		return bad ? -1 : 0;
	}
	pid = owner(text);
	if (pid != getpid() && pid > 0 && gpiolat_runs(pid)) {
		snprintf(why, size,
			 "another gpiolat (pid %ld) runs and owns " STATE_DIR "/" UNDO_NAME, pid);
		free(text);
		return -1;
	}
	*found = true;
	err = replay(text);
	free(text);
	if (err) {
		snprintf(why, size, "a step of " STATE_DIR "/" UNDO_NAME " (kept)");
		return -1;
	}
	state_path(p, sizeof(p), UNDO_NAME);
	unlink(p);
	rmdir(STATE_DIR); /* when empty */
	return 0;
}

/* this run's journal (its header names our pid), read; NULL when it has none */
static char *ours(void)
{
	char why[WHY_SIZE];
	bool bad = false;
	char *text;

	if (state_dir_open(false, why, sizeof(why)) <= 0)
		return NULL;
	text = state_read(UNDO_NAME, &bad);
	if (text && owner(text) != getpid()) {
		free(text);
		text = NULL;
	}
	return text;
}

/* how many steps TEXT (a journal) holds */
static int steps(const char *text)
{
	int n = -1; /* the header */

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* LINE appended to this run's journal, made (a killed run's replayed first) on the first */
static int record(const char *line)
{
	char why[WHY_SIZE], p[128], head[64], *text = ours();
	bool found = false;
	size_t len;
	int fd, n;

	if (!text) {
		if (state_dir_open(true, why, sizeof(why)) < 0 ||
		    undo_replay(&found, why, sizeof(why))) {
			fprintf(stderr, "gpiolat: the undo journal: %s\n", why);
			return -1;
		}
		if (found)
			fprintf(stderr, "gpiolat: undid what an interrupted run left (" STATE_DIR
					"/" UNDO_NAME ")\n");
		state_path(p, sizeof(p), UNDO_NAME);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		n = snprintf(head, sizeof(head), "gpiolat undo journal, pid %ld\n", (long)getpid());
	} else {
		n = steps(text);
		free(text);
		if (n >= UNDO_MAX) {
			fprintf(stderr, "gpiolat: the undo journal is full (%d steps)\n", n);
			return -1;
		}
		state_path(p, sizeof(p), UNDO_NAME);
		fd = open(p, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		n = 0;
	}
	len = strlen(line);
	if (fd < 0 || (n && write(fd, head, n) != n) || write(fd, line, len) != (ssize_t)len) {
		fprintf(stderr, "gpiolat: cannot write the undo journal %s: %s\n", p,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int undo_file(const char *file)
{
	char line[256], *v, *text = ours();
	bool had;

	/* recorded once a run: its value before the run's first change */
	snprintf(line, sizeof(line), "\nw %s ", file);
	had = text && strstr(text, line);
	free(text);
	if (had)
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
	snprintf(line, sizeof(line), "w %s %.*s\n", file, (int)strcspn(v, "\n"), v);
	free(v);
	return record(line);
}

int undo_toggle(void)
{
	/* replayed in reverse: enable first (stops it), then the pulse limit */
	return undo_file(UNDO_TOGGLE "pulses") || undo_file(UNDO_TOGGLE "enable") ? -1 : 0;
}

int undo_instance(const char *name)
{
	char line[128];

	snprintf(line, sizeof(line), "i %s\n", name);
	return record(line);
}

int undo_kmod(void)
{
	char *text = ours();
	bool had = text && strstr(text, "\nk\n");

	free(text);
	return had ? 0 : record("k\n");
}

int undo_tracer_file(const char *name)
{
	char line[64], *text;
	bool had;

	if (!top_file_known(name)) {
		fprintf(stderr, "gpiolat: cannot record the top-level %s in the undo journal\n",
			name);
		return -1;
	}
	snprintf(line, sizeof(line), "\nt %s\n", name);
	text = ours();
	had = text && strstr(text, line);
	free(text);
	if (had)
		return 0;
	/* saved first: a run killed before the step is recorded leaves it to the sweep */
	if (state_dir_open(true, line, sizeof(line)) < 0 || top_file_save(name)) {
		fprintf(stderr, "gpiolat: cannot save the top-level %s in " STATE_DIR "\n", name);
		return -1;
	}
	snprintf(line, sizeof(line), "t %s\n", name);
	return record(line);
}

int undo_all(void)
{
	char why[WHY_SIZE] = "", *text = ours();
	bool found = false;
	int err;

	if (!text)
		return 0;
	free(text);
	err = undo_replay(&found, why, sizeof(why));
	if (err)
		fprintf(stderr, "gpiolat: undo: %s\n", why);
	return err;
}
