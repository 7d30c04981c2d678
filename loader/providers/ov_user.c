// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the user-space rows (ov.h): utoggle --control, the talk's user-space
 * toggler, runs the phases (its own untraced phases are the reference), with the syscall
 * events, a uprobe and uretprobe, trace_marker writes, strace, or gpiolat --syscall-hist on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <tracefs.h>
#include "modes/overhead/ov.h"
#include "core/statedir.h"
#include "core/sys.h"

static char tool_path[PATH_MAX];

/*
 * utoggle --control (toggler/utoggle.c) holds a free line of toggle-vchip (1..7; 0 is the
 * module's) and runs a phase of pulses on each "run N" we write, answering with the ns per
 * set of each batch, timed with clock_gettime(CLOCK_MONOTONIC). SCHED_FIFO 60, 5 pulses a
 * batch, usleep(1000) between batches: the talk's "chrt -f 60 ./utoggle".
 */
#define UT_PRIO "60"
#define UT_LINES 8

static struct {
	pid_t pid;
	FILE *to, *from;
	char exe[PATH_MAX];
	unsigned long off;
	bool marker_ok, marker;
} ut = { .pid = -1 };

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

void utoggle_stop(void)
{
	int i;

	if (ut.to)
		fclose(ut.to); /* EOF: it releases the line and exits */
	ut.to = NULL;
	if (ut.pid > 0) {
		for (i = 0; i < 250 && waitpid(ut.pid, NULL, WNOHANG) == 0; i++)
			poll(NULL, 0, 20);
		if (i == 250) {
			kill(ut.pid, SIGKILL);
			waitpid(ut.pid, NULL, 0);
		}
	}
	ut.pid = -1;
	if (ut.from)
		fclose(ut.from);
	ut.from = NULL;
}

/* start utoggle --control on the first free line 1..7 of toggle-vchip */
static int utoggle_start(char *why)
{
	char path[PATH_MAX], lstr[8], *marker = NULL, *line = NULL;
	size_t cap = 0;
	int in[2], out[2], l;
	ssize_t len;
	pid_t parent;

	if (utoggle_path(path, sizeof(path))) {
		snprintf(why, WHY,
			 "no utoggle beside gpiolat or on PATH (make togglers, or set "
			 "GPIOLAT_UTOGGLE)");
		return -1;
	}
	if (ov_inst) {
		char *f = tracefs_instance_get_file(ov_inst, "trace_marker");

		if (f && asprintf(&marker, "--trace-marker=%s", f) < 0)
			marker = NULL;
		tracefs_put_tracing_file(f);
	}
	for (l = 1; l < UT_LINES; l++) {
		snprintf(lstr, sizeof(lstr), "%d", l);
		if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
			snprintf(why, WHY, "pipe: %s", strerror(errno));
			break;
		}
		fflush(NULL);
		parent = getpid();
		ut.pid = fork();
		if (ut.pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() !=
			    parent /* gone before the prctl (a subreaper may have us) */)
				_exit(127);
			setpgid(0, 0);
			dup2(in[0], 0);
			dup2(out[1], 1);
			dup2(out[1], 2);
			if (marker)
				execl(path, "utoggle", "--control", "-g", "toggle-vchip", "-l",
				      lstr, "-p", UT_PRIO, "-M", marker, (char *)NULL);
			else
				execl(path, "utoggle", "--control", "-g", "toggle-vchip", "-l",
				      lstr, "-p", UT_PRIO, (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		if (ut.pid < 0) {
			close(in[1]);
			close(out[0]);
			snprintf(why, WHY, "fork: %s", strerror(errno));
			break;
		}
		ut.to = fdopen(in[1], "w");
		ut.from = fdopen(out[0], "r");
		len = ut.from ? getline(&line, &cap, ut.from) : -1;
		if (len > 0 && sscanf(line, "ready pid=%*d exe=%4095s probe=%*s offset=%lx", ut.exe,
				      &ut.off) == 2) {
			ut.marker_ok = marker;
			free(line);
			free(marker);
			return 0;
		}
		utoggle_stop();
		if (len > 0)
			line[strcspn(line, "\n")] = '\0';
		snprintf(why, WHY, "utoggle on line %d of toggle-vchip: %.180s", l,
			 len > 0 ? line :
			 exiting ? "interrupted" :
				   "no answer");
		if (len <= 0 || !strstr(line, "busy"))
			break;
	}
	free(line);
	free(marker);
	return -1;
}

/* one phase of o.pulses pulses of utoggle: the median ns per set after the warm-up batches */
int utoggle_phase(double *med, __u64 *nb, __u64 *np)
{
	char *line = NULL, *p, *end;
	double *v = NULL;
	size_t cap = 0;
	long long pulses;
	long batches, i, m = 0;
	int err = -1;

	if (!ut.to || fprintf(ut.to, "run %lld%s\n", ov.pulses, ut.marker ? " marker" : "") < 0 ||
	    fflush(ut.to))
		return -1;
	if (getline(&line, &cap, ut.from) <= 0 ||
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
	err = 0;
out:
	free(v);
	free(line);
	return err;
}

static struct tracefs_dynevent *uprobe[2];

static bool schist_ready(const struct child *c)
{
	return child_says(c, "Tracing syscalls");
}

static void user_teardown(const struct method *m)
{
	int i;

	child_stop(&ov_child);
	utoggle_stop();
	for (i = 0; i < 2; i++) {
		if (!uprobe[i])
			continue;
		tracefs_event_disable(ov_inst, KP_SYSTEM, NULL);
		tracefs_dynevent_destroy(uprobe[i], true);
		tracefs_dynevent_free(uprobe[i]);
		uprobe[i] = NULL;
	}
}

static int user_setup(const struct method *m, char *why)
{
	switch (m->user) {
	case U_EVENTS:
		if (need_instance(why))
			return -1;
		if (!tracefs_event_file_exists(ov_inst, "syscalls", "sys_enter_ioctl", "enable")) {
			snprintf(why, WHY,
				 "no syscalls:sys_enter_ioctl event (CONFIG_FTRACE_SYSCALLS)");
			return -1;
		}
		break;
	case U_UPROBE:
		if (need_instance(why))
			return -1;
		if (!tracefs_file_exists(NULL, "uprobe_events")) {
			snprintf(why, WHY, "no uprobe_events in tracefs (no CONFIG_UPROBE_EVENTS)");
			return -1;
		}
		break;
	case U_MARKER:
		if (need_instance(why))
			return -1;
		break;
	case U_STRACE:
		if (!sys_find_program("strace", tool_path, sizeof(tool_path))) {
			snprintf(why, WHY, "strace not installed (no strace on PATH)");
			return -1;
		}
		break;
	case U_SCHIST:
		if (readlink("/proc/self/exe", tool_path, sizeof(tool_path) - 1) <= 0) {
			snprintf(why, WHY, "cannot find gpiolat itself: %s", strerror(errno));
			return -1;
		}
		break;
	}
	if (utoggle_start(why))
		return -1;
	if (m->user == U_MARKER && !ut.marker_ok) {
		snprintf(why, WHY, "no trace_marker in our instance");
		return -1;
	}
	if (m->user == U_UPROBE) {
		static const char *const names[] = { "gpiolat_utoggle", "gpiolat_utoggle_ret" };
		int i;

		if (!ut.off) {
			snprintf(why, WHY, "utoggle did not find toggle_ioctl_v2_once in %.150s",
				 ut.exe);
			return -1;
		}
		for (i = 0; i < 2; i++) {
			uprobe[i] = (i ? tracefs_uretprobe_alloc : tracefs_uprobe_alloc)(
				KP_SYSTEM, names[i], ut.exe, ut.off, NULL);
			if (!uprobe[i] || tracefs_dynevent_create(uprobe[i])) {
				char *log = tracefs_error_last(NULL);

				snprintf(why, WHY,
					 "cannot create the uprobe event %s on %.100s:0x%lx%s%s",
					 names[i], ut.exe, ut.off, log ? ": " : "", log ? log : "");
				free(log);
				tracefs_dynevent_free(uprobe[i]);
				uprobe[i] = NULL;
				return -1;
			}
		}
	}
	return 0;
}

static int user_on(const struct method *m, char *why)
{
	switch (m->user) {
	case U_EVENTS:
		return tracefs_event_enable(ov_inst, "syscalls", "sys_enter_ioctl") ||
		       tracefs_event_enable(ov_inst, "syscalls", "sys_exit_ioctl");
	case U_UPROBE:
		return tracefs_event_enable(ov_inst, KP_SYSTEM, "gpiolat_utoggle.*");
	case U_MARKER:
		ut.marker = true;
		return 0;
	case U_STRACE: {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", ut.pid);
		ov_child.target = ut.pid;
		return ov_child_run(
			(char *const[]){ tool_path, "-o", "/dev/null", "-p", pid, NULL },
			child_target_traced, 30000, "strace", why);
	}
	case U_SCHIST:
		return ov_child_run((char *const[]){ tool_path, "--syscall-hist", NULL },
				    schist_ready, 60000, "gpiolat --syscall-hist", why);
	}
	return -1;
}

static int user_off(const struct method *m)
{
	switch (m->user) {
	case U_EVENTS:
		return tracefs_event_disable(ov_inst, "syscalls", "sys_enter_ioctl") |
		       tracefs_event_disable(ov_inst, "syscalls", "sys_exit_ioctl");
	case U_UPROBE:
		return tracefs_event_disable(ov_inst, KP_SYSTEM, "gpiolat_utoggle.*");
	case U_MARKER:
		ut.marker = false;
		return 0;
	default:
		child_stop(&ov_child);
		/* strace detaches when it exits */
		while (m->user == U_STRACE && ut.pid > 0 && pid_traced(ut.pid))
			if (!nap(POLL_MS))
				return -1;
		return 0;
	}
}

const struct method_ops user_ops = { .setup = user_setup,
				     .on = user_on,
				     .off = user_off,
				     .teardown = user_teardown };
