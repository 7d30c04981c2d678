// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the undo journal (undo.h). STATE_DIR/undo holds a header line with the pid of the run
 * that owns it, then one line a step, each appended before its change is made:
 *
 *   w FILE VALUE   write VALUE back to FILE (a file under /sys/kernel/debug/toggle/)
 *   i NAME         remove the tracefs instance NAME (gpiolat*), its events off first
 *   k              put the toggle module back as STATE_DIR/toggle_params says (kmod_reload.c)
 *
 * Undo is the steps in reverse order, by the run itself on its way out, or by the next run or
 * gpiolat --cleanup after a SIGKILL; the same function replays both. A step is read back only
 * from a file of root's in root's 0700 directory, and only for the paths above.
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
#include "core/leftovers.h"
#include "core/statedir.h"
#include "core/sys.h"
#include "core/undo.h"

#define UNDO_NAME "undo"
#define UNDO_TOGGLE "/sys/kernel/debug/toggle/"
#define UNDO_MAX 32 /* files recorded by one run */

/* this run's journal: open once it has a step; the files it records already */
static struct {
	int fd;
	int n;
	char files[UNDO_MAX][96];
} j = { .fd = -1 };

/* one step done; 0, or -1 with a line on stderr */
static int step(char *line)
{
	char *arg = line + 2, *val;
	bool found = false;
	int err;

	if (line[0] == 'k' && !line[1])
		return kmod_restore_saved(&found);
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

/* LINE appended to this run's journal, opened (a killed run's replayed first) on the first */
static int record(const char *line)
{
	char why[WHY_SIZE], p[128], head[64];
	bool found = false;
	size_t len;
	int n;

	if (j.fd < 0) {
		if (state_dir_open(true, why, sizeof(why)) < 0 ||
		    undo_replay(&found, why, sizeof(why))) {
			fprintf(stderr, "gpiolat: the undo journal: %s\n", why);
			return -1;
		}
		if (found)
			fprintf(stderr, "gpiolat: undid what an interrupted run left (" STATE_DIR
					"/" UNDO_NAME ")\n");
		state_path(p, sizeof(p), UNDO_NAME);
		j.fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		n = snprintf(head, sizeof(head), "gpiolat undo journal, pid %ld\n", (long)getpid());
		if (j.fd < 0 || write(j.fd, head, n) != n) {
			fprintf(stderr, "gpiolat: cannot write the undo journal %s: %s\n", p,
				strerror(errno));
			return -1;
		}
	}
	len = strlen(line);
	if (write(j.fd, line, len) != (ssize_t)len) {
		fprintf(stderr, "gpiolat: cannot write the undo journal: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int undo_file(const char *file)
{
	char line[256], *v;
	int i;

	for (i = 0; i < j.n; i++)
		if (!strcmp(j.files[i], file))
			return 0;
	if (j.n == UNDO_MAX || strlen(file) >= sizeof(j.files[0]) ||
	    strncmp(file, UNDO_TOGGLE, strlen(UNDO_TOGGLE))) {
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
	if (record(line))
		return -1;
	strcpy(j.files[j.n++], file);
	return 0;
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
	return record("k\n");
}

int undo_all(void)
{
	char why[WHY_SIZE] = "";
	bool found = false;
	int err;

	if (j.fd < 0)
		return 0;
	close(j.fd);
	j.fd = -1;
	j.n = 0;
	err = undo_replay(&found, why, sizeof(why));
	if (err)
		fprintf(stderr, "gpiolat: undo: %s\n", why);
	return err;
}
