// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --path: files, child processes and the module's mode (loader/modes/path/path.c runs the
 * togglers
 * with these).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/kmod_reload.h"
#include "modes/path/path_int.h"
#include "core/run.h"
#include "core/undo.h"

int path_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok ? 0 : -1;
}

/* run argv, its stdout and stderr into out; the exit status, or -1 */
int path_spawn(struct undo *u, char *const argv[], char *out, size_t size, long long *elapsed)
{
	int p[2], st;
	size_t len = 0;
	ssize_t k;
	long long t0;
	bool first = false;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	t0 = run_now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	/* a toggler runs on without us: its kill pushed while it runs */
	if (undo_child(u, pid)) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		close(p[0]);
		return -1;
	}
	while (len + 1 < size && (k = read(p[0], out + len, size - 1 - len)) > 0) {
		/* the clock starts at the first complete line (toggle.sh: "loop"), else at fork */
		if (!first && memchr(out + len, '\n', k)) {
			first = true;
			t0 = run_now_ns();
		}
		len += k;
	}
	out[len] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	undo_child_done(u, pid);
	if (elapsed)
		*elapsed = run_now_ns() - t0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* the last non-empty line of out, for a why */
void path_last_line(const char *out, char *why)
{
	char buf[4096], *l, *nl;

	snprintf(buf, sizeof(buf), "%s", out);
	while ((nl = strrchr(buf, '\n')) && !nl[1])
		*nl = '\0';
	l = strrchr(buf, '\n');
	snprintf(why, WHY_SIZE, "%.250s", l ? l + 1 : buf);
}

/* the togglers: $GPIOLAT_BINDIR, beside gpiolat (out/bin), or ../bin of an installed sbin/ */
void path_bindir(char *bindir, size_t size, const char *self)
{
	const char *env = getenv("GPIOLAT_BINDIR");
	char p[PATH_MAX + 16];

	snprintf(bindir, size, "%s", env ?: self);
	snprintf(p, sizeof(p), "%s/utoggle", bindir);
	if (!env && access(p, X_OK) && snprintf(bindir, size, "%s/../bin", self) >= (int)size)
		snprintf(bindir, size, "%s", self);
}

/*
 * The module as the kernel rows need it: mode=continuous burst=1000 (the study's: batches back to
 * back; in burst mode every batch of 5 pulses is followed by msleep(1), and a run took 1046 s
 * on the emulated target instead of about 30 s). When it is loaded otherwise and a toggle.ko is
 * known (--kmod, GPIOLAT_KMOD) it is reloaded so, and put back by the undo journal's "k" step
 * (recorded before the reload). A module that cannot be reloaded (no toggle.ko, a real chip) is
 * used as loaded, with one line on stderr; in printk mode its batches hold a trace_printk, so
 * that is refused. 0, or -1 after one error line.
 */
int path_module_mode(struct undo *u)
{
	char mode[32] = "", burst[32] = "", why[WHY_SIZE];

	if (path_read_line("/sys/module/toggle/parameters/mode", mode, sizeof(mode)) ||
	    path_read_line("/sys/module/toggle/parameters/burst", burst, sizeof(burst))) {
		fprintf(stderr, "gpiolat: --path: cannot read the toggle module's parameters\n");
		return -1;
	}
	if (!strcmp(mode, "continuous") && !strcmp(burst, "1000"))
		return 0;
	if (getenv("GPIOLAT_KMOD") && *getenv("GPIOLAT_KMOD")) {
		if (undo_kmod(u))
			return -1;
		if (!kmod_reload_setup_with("mode=continuous burst=1000", NULL, why))
			return 0;
	} else {
		snprintf(why, sizeof(why),
			 "no toggle.ko to reload it with (--kmod FILE, or "
			 "GPIOLAT_KMOD)");
	}
	if (!strcmp(mode, "printk")) {
		fprintf(stderr,
			"gpiolat: --path: the toggle module is in mode=printk (a trace_printk in "
			"every batch) and cannot be reloaded: %s\n",
			why);
		return -1;
	}
	fprintf(stderr,
		"gpiolat: --path: the toggle module runs as loaded (mode=%s burst=%s, not "
		"mode=continuous burst=1000: the kernel rows take longer): %s\n",
		mode, burst, why);
	return 0;
}
