// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the user rows' pulse source (overhead_int.h): utoggle --control, the talk's
 * user-space toggler, runs the phases (its own untraced phases are the reference) while the
 * method's provider traces it: its process, executable and traced function are ov->target's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "modes/overhead/overhead_int.h"
#include "core/kmod_reload.h"
#include "core/statedir.h"
#include "core/sys.h"
#include "core/undo.h"

/*
 * utoggle --control (toggler/utoggle.c) holds a line and runs a phase of pulses on each "run
 * N" we write, answering with the ns per set of each batch, timed with
 * clock_gettime(CLOCK_MONOTONIC). SCHED_FIFO 60, 5 pulses a batch, usleep(1000) between
 * batches: the talk's "chrt -f 60 ./utoggle". Its line is on the module's chip: on
 * toggle-vchip the first free of 1..7 (0 is the module's), on a real controller the one the
 * user names (--user-line OFFSET: nothing else on a board is known to be free), or the
 * module's own (--user-line module: the module unloaded for each user row, loaded back after).
 */
#define UT_PRIO "60"
#define UT_LINES 8
#define VCHIP "toggle-vchip"

int ov_utoggle_lines(struct ov *ov, char *why)
{
	struct utoggle *ut = &ov->ut;
	const char *u = ov->o.user_line;
	char spec[96], chip[64];
	int kline, off;
	__u32 g;

	ut->line = -1;
	ut->why[0] = '\0';
	if (sys_gpio_name(ov->target.gpio, ut->chip, sizeof(ut->chip), &kline)) {
		snprintf(why, WHY, "cannot name the toggle module's line (gpio %u)",
			 ov->target.gpio);
		return -1;
	}
	if (!u) {
		if (strcmp(ut->chip, VCHIP))
			snprintf(
				ut->why, WHY,
				"the toggle module drives %.60s:%d, a real controller's line: name "
				"a free output line of it for utoggle (--user-line OFFSET), or "
				"--user-line module",
				ut->chip, kline);
		return 0;
	}
	if (!strcmp(u, "module")) {
		if (!strcmp(ut->chip, VCHIP)) {
			snprintf(why, WHY,
				 "--user-line module: the module's line is on its own chip, " VCHIP
				 ", which goes when it is unloaded (give --user-line OFFSET, or "
				 "none)");
			return -1;
		}
		if (!getenv("GPIOLAT_KMOD") || !*getenv("GPIOLAT_KMOD")) {
			snprintf(
				why, WHY,
				"--user-line module: no toggle.ko to load the module back from after "
				"the user rows (--kmod FILE; after apt install: --kmod "
				"\"$(modinfo -n toggle)\")");
			return -1;
		}
		ut->line = kline;
		ut->module_line = true;
		return 0;
	}
	ut->line = atoi(u); /* parse_count()ed */
	snprintf(spec, sizeof(spec), "%.60s:%d", ut->chip, ut->line);
	if (ut->line == kline) {
		snprintf(why, WHY,
			 "--user-line %d is the toggle module's line (--user-line module lets "
			 "utoggle use it, the module unloaded meanwhile)",
			 ut->line);
		return -1;
	}
	if (sys_resolve_line(spec, &g, chip, sizeof(chip), &off, why, WHY))
		return -1;
	return 0;
}

static int utoggle_path(char *path, size_t size)
{
	const char *env = getenv("GPIOLAT_UTOGGLE");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(path, size, "%s", env);
		return access(path, X_OK);
	}
	/* beside us: out/bin/gpiolat and out/bin/utoggle */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(path, size, "%s/utoggle", self) < (int)size &&
			    !access(path, X_OK))
				return 0;
		}
	}
	return sys_find_program("utoggle", path, size) ? 0 : -1;
}

void ov_utoggle_stop(struct ov *ov)
{
	struct utoggle *ut = &ov->ut;
	int i;

	if (ut->to)
		fclose(ut->to); /* EOF: it releases the line and exits */
	ut->to = NULL;
	if (ut->pid > 0) {
		for (i = 0; i < 250 && waitpid(ut->pid, NULL, WNOHANG) == 0; i++)
			run_nap(NULL, 20);
		if (i == 250) {
			kill(ut->pid, SIGKILL);
			waitpid(ut->pid, NULL, 0);
		}
		undo_child_done(&ov->run->undo, ut->pid);
	}
	ut->pid = -1;
	if (ut->from)
		fclose(ut->from);
	ut->from = NULL;
	ov->target.pid = 0;
	ov->target.off = 0;
	ov->target.marker_ok = ov->target.marker = false;
	/* the module back on its line (its parameters as saved, its depth) */
	if (ut->unloaded && !kmod_restore(&ov->target.gpio))
		ut->unloaded = false;
}

/* start utoggle --control on its line (ov_utoggle_lines): ov->target traces it */
int ov_utoggle_start(struct ov *ov, char *why)
{
	struct utoggle *ut = &ov->ut;
	char path[PATH_MAX], lstr[16], *marker = NULL, *line = NULL;
	size_t cap = 0;
	int in[2], out[2], l, first = ut->line < 0 ? 1 : ut->line;
	int end = ut->line < 0 ? UT_LINES : ut->line + 1;
	ssize_t len;
	pid_t parent;

	if (ut->why[0]) {
		snprintf(why, WHY, "%s", ut->why);
		return -1;
	}
	if (utoggle_path(path, sizeof(path))) {
		snprintf(why, WHY,
			 "no utoggle beside gpiolat or on PATH (make togglers, or set "
			 "GPIOLAT_UTOGGLE)");
		return -1;
	}
	if (ov->target.inst) {
		char *f = target_marker_file(&ov->target);

		if (f && asprintf(&marker, "--trace-marker=%s", f) < 0)
			marker = NULL;
		free(f);
	}
	/* the module's line: the module unloaded first (the undo journal puts it back) */
	if (ut->module_line && !ut->unloaded) {
		if (undo_kmod(&ov->run->undo)) {
			snprintf(why, WHY, "cannot record the module's reload in the undo journal");
			free(marker);
			return -1;
		}
		if (kmod_unload_setup(why)) {
			free(marker);
			return -1;
		}
		ut->unloaded = true;
	}
	for (l = first; l < end; l++) {
		snprintf(lstr, sizeof(lstr), "%d", l);
		if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
			snprintf(why, WHY, "pipe: %s", strerror(errno));
			break;
		}
		fflush(NULL);
		parent = getpid();
		ut->pid = fork();
		if (ut->pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() !=
			    parent /* gone before the prctl (a subreaper may have us) */)
				_exit(127);
			setpgid(0, 0);
			dup2(in[0], 0);
			dup2(out[1], 1);
			dup2(out[1], 2);
			if (marker)
				execl(path, "utoggle", "--control", "-g", ut->chip, "-l", lstr,
				      "-p", UT_PRIO, "-M", marker, (char *)NULL);
			else
				execl(path, "utoggle", "--control", "-g", ut->chip, "-l", lstr,
				      "-p", UT_PRIO, (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		if (ut->pid < 0) {
			close(in[1]);
			close(out[0]);
			snprintf(why, WHY, "fork: %s", strerror(errno));
			break;
		}
		/* its kill pushed while it runs (ov_utoggle_stop() drops it) */
		if (undo_child(&ov->run->undo, ut->pid)) {
			close(in[1]);
			close(out[0]);
			kill(ut->pid, SIGKILL);
			waitpid(ut->pid, NULL, 0);
			ut->pid = -1;
			snprintf(why, WHY, "cannot record utoggle in the undo journal");
			break;
		}
		ut->to = fdopen(in[1], "w");
		ut->from = fdopen(out[0], "r");
		len = ut->from ? getline(&line, &cap, ut->from) : -1;
		if (len > 0 && sscanf(line, "ready pid=%*d exe=%4095s probe=%*s offset=%lx",
				      ut->exe, &ut->off) == 2) {
			ov->target.pid = ut->pid;
			ov->target.exe = ut->exe;
			ov->target.off = ut->off;
			ov->target.fn = "toggle_ioctl_v2_once";
			ov->target.marker_ok = marker;
			snprintf(ov->cx.user_line, sizeof(ov->cx.user_line), "%.60s:%d%s", ut->chip,
				 l, ut->module_line ? " (the module's, unloaded meanwhile)" : "");
			free(line);
			free(marker);
			return 0;
		}
		ov_utoggle_stop(ov);
		if (len > 0)
			line[strcspn(line, "\n")] = '\0';
		snprintf(why, WHY, "utoggle on line %d of %.40s: %.160s", l, ut->chip,
			 len > 0       ? line :
			 ov->run->stop ? "interrupted" :
					 "no answer");
		if (len <= 0 || !strstr(line, "busy"))
			break;
	}
	free(line);
	free(marker);
	return -1;
}

/* one phase of o.pulses pulses of utoggle: the median ns per set after the warm-up batches */
int ov_utoggle_phase(struct ov *ov, double *med, __u64 *nb, __u64 *np)
{
	struct utoggle *ut = &ov->ut;
	char *line = NULL, *p, *end;
	double *v = NULL;
	size_t cap = 0;
	long long pulses;
	long batches, i, m = 0;
	int err = -1;

	if (!ut->to ||
	    fprintf(ut->to, "run %lld%s\n", ov->o.pulses, ov->target.marker ? " marker" : "") < 0 ||
	    fflush(ut->to))
		return -1;
	if (getline(&line, &cap, ut->from) <= 0 ||
	    sscanf(line, "phase pulses=%lld batches=%ld", &pulses, &batches) != 2 ||
	    !(p = strstr(line, "ns_per_set=")) || batches <= WARMUP)
		goto out;
	v = calloc(batches, sizeof(*v));
	if (!v)
		goto out;
	p += strlen("ns_per_set=");
	for (i = 0; i < batches; i++) {
		double x = strtod(p, &end);

		if (end == p)
			goto out;
		if (i >= WARMUP)
			v[m++] = x;
		p = *end == ',' ? end + 1 : end;
	}
	*med = median(v, m);
	*nb += m;
	*np += pulses;
	ov->phase_pulses = pulses;
	err = 0;
out:
	free(v);
	free(line);
	return err;
}
