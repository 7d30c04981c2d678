// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: what each tracing method adds to one GPIO set, in-system.
 *
 * The toggle module toggles in the talk's burst mode and times its own batches
 * (/sys/kernel/debug/toggle/batches: ns per set = ns / (2 * pulses)). For each method the run
 * alternates phases of exactly P pulses: reference, method, reference, ..., reference (the
 * reference is "nothing attached", or the talk's own reference for that row, e.g. the bare
 * event under a filter). A phase's figure is the median of its batches' ns per set after the
 * first WARMUP batches (emulated batches have outliers of hundreds of us: a median, not a
 * mean). Repetition i's overhead is method_i - (ref_i + ref_i+1) / 2; the report gives their
 * mean and t-based 95 % confidence interval over the repetitions.
 *
 * Everything goes through libtracefs, in a tracefs instance of our own ("gpiolat") where the
 * kernel allows; what only the top level has (function_graph) is saved to a state file first
 * and restored on every way out. Every name we create starts with "gpiolat", so a run after a
 * SIGKILL (or gpiolat --cleanup) finds the leftovers and removes them.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "gpiolat.h"
#include "gpiolat.skel.h"
#include "empty_gpio.skel.h"
#include "hist.h"
#include "sys.h"
#include "overhead.h"
#include "syscall_cost.h"

#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

#define INSTANCE "gpiolat"
#define KP_SYSTEM "gpiolat"
#define SYNTH_NAME "gpiolat_pulse"
/*
 * The saved state (the top level's tracer, the toggle module's parameters and the path of the
 * toggle.ko to load) and our children's output: only here, in a directory only root can use,
 * never in a world-writable place like /tmp, from which anybody could have us load a module.
 */
#define STATE_DIR "/run/gpiolat"
#define TOGGLE_MODE "/sys/module/toggle/parameters/mode"
#define MAX_REPS 100
#define MAX_PHASE_BATCHES 4096
#define MAX_BASE_PHASES 4096
#define WARMUP 2
#define WARMUP_PHASES 3
#define CHAIN 10
#define NEVENTS 10
#define POLL_MS 20
#define WHY 256

struct opts {
	bool overhead, cleanup, quick, json, verbose;
	int reps;
	long long pulses;
	const char *only;
	const char *btf_path;
	bool usage_printed;
};

/* one measured (or not) row */
struct row {
	char name[40];
	char group[16];
	char against[40]; /* the reference phases: "untraced" or another row's name */
	const char *talk; /* the talk's CSV row, or NULL */
	const char *series; /* "events" or "kprobes", with k */
	int k;
	bool measured;
	char why[WHY];
	int reps;
	double diff[MAX_REPS];
	double mean, ci, sd;
	double ci999; /* the 99.9 % CI: what a test's control check uses (1 in 1000 fails) */
	double med; /* median of the repetitions */
	double low; /* the lowest repetition: what the series fit uses */
	double ref_mean; /* mean of the reference phases, ns per set */
	__u64 batches, pulses;
	/* BPF trust */
	bool bpf;
	__u64 run_cnt, run_time_ns;
	bool hist_ok;
	double hist_mean, hist_p50; /* the histogram's own pulse width, ns */
	__u64 hist_pairs;
	char disagree[128]; /* the trust check's flag, "" when the figures agree */
	bool own_ref; /* % of its own reference (the untraced ioctl toggler), not of the module's */
};

#define USER_REF "untraced ioctl toggler"
#define PRINTK_REF "mode=continuous"

static volatile sig_atomic_t exiting;
static struct opts o;
static struct tracefs_instance *inst;
static struct tep_handle *tep;
static __u32 tgpio;
static int stats_fd = -1;
static pid_t child = -1;

/* --baseline: the user's own scope figures, as the talk's CSV */
static char *user_csv;
static const char *user_csv_path;

/* untraced phases of every method: the noise floor */
static double base_phase[MAX_BASE_PHASES];
static int nbase_phase;
/* the last warm-up phase: the untraced set before any method, ns */
static double untraced_guess;

static void say(const char *fmt, ...)
{
	va_list ap;

	if (o.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void sig_handler(int sig)
{
	exiting = 1;
}

static bool nap(int ms)
{
	poll(NULL, 0, ms);
	return !exiting;
}

/* ---- statistics ----------------------------------------------------------------------------- */

static void row_stats(struct row *r)
{
	struct stat_acc s = {};
	int i;

	for (i = 0; i < r->reps; i++)
		stat_add(&s, r->diff[i]);
	r->mean = s.mean;
	r->sd = stat_sd(&s);
	r->ci = r->reps > 1 ? student_t95(r->reps - 1) * r->sd / sqrt(r->reps) : NAN;
	r->ci999 = r->reps > 1 ? student_t999(r->reps - 1) * r->sd / sqrt(r->reps) : NAN;
	if (r->reps > 0) {
		double v[MAX_REPS];

		memcpy(v, r->diff, r->reps * sizeof(v[0]));
		r->med = median(v, r->reps);
		r->low = v[0]; /* median() sorted v */
	}
}

/*
 * least squares y = a + b k over the measured rows of a series; R^2. Each point is the lowest
 * of its repetitions: a stall only ever adds time to a traced phase (under emulation the
 * repetitions of one point were seen split 4 us / 7 us), so the lowest repetition is the one
 * nearest the cost itself, as in "best of N" benchmarking.
 */
static int series_fit(struct row *rows, int n, const char *series, double *slope, double *r2,
		      int *npts)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, b, a, ssr = 0, sst = 0, my;
	int i, m = 0;

	for (i = 0; i < n; i++) {
		if (!rows[i].measured || !rows[i].series || strcmp(rows[i].series, series))
			continue;
		sx += rows[i].k;
		sy += rows[i].low;
		sxx += (double)rows[i].k * rows[i].k;
		sxy += rows[i].k * rows[i].low;
		syy += rows[i].low * rows[i].low;
		m++;
	}
	*npts = m;
	if (m < 3 || m * sxx - sx * sx == 0)
		return -1;
	b = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	a = (sy - b * sx) / m;
	my = sy / m;
	for (i = 0; i < n; i++) {
		double e;

		if (!rows[i].measured || !rows[i].series || strcmp(rows[i].series, series))
			continue;
		e = rows[i].low - (a + b * rows[i].k);
		ssr += e * e;
		sst += (rows[i].low - my) * (rows[i].low - my);
	}
	*slope = b;
	*r2 = sst > 0 ? 1 - ssr / sst : NAN;
	return 0;
}

/* ---- the toggle module's phases ------------------------------------------------------------- */

static bool wait_idle(void)
{
	while (toggle_enabled() == 1)
		if (!nap(POLL_MS))
			return false;
	return true;
}

/* one phase of o.pulses pulses: the median ns per set over its batches after the warm-up */
static int phase(double *med, __u64 *nb, __u64 *np)
{
	static struct toggle_batch b[MAX_PHASE_BATCHES];
	static double v[MAX_PHASE_BATCHES];
	__s64 seq0 = toggle_last_seq();
	int i, n, m = 0;

	if (toggle_start_pulses(o.pulses))
		return -1;
	if (!wait_idle()) {
		toggle_stop();
		return -1;
	}
	n = toggle_batches(seq0, b, MAX_PHASE_BATCHES);
	for (i = WARMUP; i < n; i++) {
		v[m++] = (double)b[i].ns / (2.0 * b[i].pulses);
		*np += b[i].pulses;
	}
	if (!m)
		return -1;
	*nb += m;
	*med = median(v, m);
	return 0;
}

/* ---- the state of tracefs: saving, restoring, cleaning up ------------------------------------ */

/* the whole of an open file, NUL-terminated; fd closed; NULL on failure */
static char *fd_slurp(int fd)
{
	char *buf = NULL;
	size_t len = 0;
	char tmp[4096];
	ssize_t n;

	while ((n = read(fd, tmp, sizeof(tmp))) > 0) {
		char *nb = realloc(buf, len + n + 1);

		if (!nb)
			break;
		buf = nb;
		memcpy(buf + len, tmp, n);
		len += n;
	}
	close(fd);
	if (!buf)
		buf = strdup("");
	else
		buf[len] = '\0';
	return buf;
}

static char *file_slurp(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? NULL : fd_slurp(fd);
}

/* not a link, root's, writable by nobody else */
static bool root_only(const struct stat *st)
{
	return !S_ISLNK(st->st_mode) && st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/*
 * Is STATE_DIR ours? lstat: a directory (not a link) of root's with mode 0700; else nothing in
 * it is used. With create, make it when missing (in a /run of root's). 1 ours, 0 missing
 * (!create), -1 and why.
 */
static int state_dir_open(bool create, char *why, size_t size)
{
	struct stat st;

	if (lstat(STATE_DIR, &st)) {
		if (errno != ENOENT) {
			snprintf(why, size, "cannot stat %s: %s", STATE_DIR, strerror(errno));
			return -1;
		}
		if (!create)
			return 0;
		/* root's, and where others may write, sticky: nobody else can move ours */
		if (stat("/run", &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
			snprintf(why, size,
				 "no /run of root's to save the state in (%s; never in a "
				 "world-writable place)",
				 errno == ENOENT ? "missing" : "not root's");
			return -1;
		}
		if (mkdir(STATE_DIR, 0700) || lstat(STATE_DIR, &st)) {
			snprintf(why, size, "cannot create %s to save the state in: %s", STATE_DIR,
				 strerror(errno));
			return -1;
		}
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 07777) != 0700) {
		snprintf(why, size,
			 "%s is not a directory of root's with mode 0700 (%s, owner uid %u, mode "
			 "%04o): nothing in it is used; remove it",
			 STATE_DIR,
			 S_ISLNK(st.st_mode) ? "a link" :
			 S_ISDIR(st.st_mode) ? "a directory" :
					       "not a directory",
			 (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 1;
}

static int state_path(char *buf, size_t size, const char *name)
{
	return snprintf(buf, size, STATE_DIR "/%s", name) >= (int)size ? -1 : 0;
}

/* a state file, when it is a regular file of root's (not followed when a link); else NULL */
static char *state_read(const char *name, bool *bad)
{
	struct stat st;
	char p[128];
	int fd;

	if (state_path(p, sizeof(p), name))
		return NULL;
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno != ENOENT) {
			fprintf(stderr, "gpiolat: %s not used: %s\n", p, strerror(errno));
			*bad = true;
		}
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !root_only(&st)) {
		fprintf(stderr, "gpiolat: %s not used: not a regular file of root's\n", p);
		*bad = true;
		close(fd);
		return NULL;
	}
	return fd_slurp(fd);
}

/* save VALUE as NAME in the state directory; the first saved value is the one to restore */
static int state_save(const char *name, const char *value)
{
	bool bad = false;
	char p[128], *v;
	size_t len = strlen(value);
	int fd;

	if (state_path(p, sizeof(p), name))
		return -1;
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno != EEXIST)
			return -1;
		/* saved before in this run: kept only when it is ours */
		v = state_read(name, &bad);
		free(v);
		return v ? 0 : -1;
	}
	if (write(fd, value, len) != (ssize_t)len) {
		close(fd);
		unlink(p);
		return -1;
	}
	return close(fd);
}

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
static int restore_top(bool *found)
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

static int kmod_restore_saved(bool *found);

/* everything named gpiolat*: our instance, our kprobes and synthetic event, saved top state */
#define PROBES                                                                            \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE | \
	 TRACEFS_DYNEVENT_URETPROBE)

/* what the last cleanup could not remove */
static char cleanup_why[WHY];

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
 * group gpiolat_sc, study/microbench.sh's instance and kprobe group gpiolat_mb
 */
static int cleanup_others(bool *found)
{
	static const char *const names[] = { "gpiolat_sc", "gpiolat_mb" };
	char why[WHY];
	int i, err = 0;

	for (i = 0; i < 2; i++)
		if (tracefs_leftovers_remove(names[i], names[i], found, why, sizeof(why)))
			err = cleanup_fail("%s", why);
	return err;
}

static int cleanup_all(bool *found)
{
	struct tracefs_dynevent **dev;
	struct tracefs_instance *old;
	char why[WHY];
	int i, err = 0;

	*found = false;
	i = state_dir_open(false, why, sizeof(why));
	if (i < 0)
		err = cleanup_fail("the state saved in " STATE_DIR ": %s", why);
	else if (i > 0 && (kmod_restore_saved(found) || restore_top(found)))
		err = cleanup_fail("the state saved in " STATE_DIR
				   " (the module, the top-level tracer)");
	if (tracefs_instance_exists(INSTANCE)) {
		*found = true;
		old = tracefs_instance_alloc(NULL, INSTANCE);
		if (old) {
			/* removing the instance removes its events' triggers and filters */
			tracefs_tracer_clear(old);
			tracefs_event_disable(old, NULL, NULL);
			/* a killed run's utoggle may hold its trace_marker open a moment longer */
			for (i = 0; tracefs_instance_destroy(old) && i < 150; i++)
				poll(NULL, 0, 20);
			if (i == 150)
				err = cleanup_fail("the instance " INSTANCE ": %s",
						   strerror(errno));
			tracefs_instance_free(old);
		}
	}
	/* removing a uprobe can take its uretprobe on the same place along: list again after */
	dev = tracefs_dynevent_get_all(PROBES, KP_SYSTEM);
	for (i = 0; dev && dev[i]; i++) {
		*found = true;
		tracefs_dynevent_destroy(dev[i], true);
	}
	tracefs_dynevent_list_free(dev);
	dev = tracefs_dynevent_get_all(PROBES, KP_SYSTEM);
	if (dev && dev[0]) {
		char *ev = NULL;

		tracefs_dynevent_info(dev[0], NULL, &ev, NULL, NULL, NULL);
		err = cleanup_fail("the probe event " KP_SYSTEM "/%s", ev ? ev : "?");
		free(ev);
	}
	tracefs_dynevent_list_free(dev);
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

/* SIGINT, and SIGKILL when it has not gone within 10 s */
static void child_stop(void)
{
	int i;

	if (child <= 0)
		return;
	kill(child, SIGINT);
	for (i = 0; i < 500 && waitpid(child, NULL, WNOHANG) == 0; i++)
		poll(NULL, 0, 20);
	if (i == 500) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	child = -1;
}

/* ---- methods -------------------------------------------------------------------------------- */

struct method {
	const char *name, *group, *against, *talk, *series;
	int k;
	/* set up once (0, or -1 and why), switch on and off per phase, tear down */
	int (*setup)(const struct method *m, char *why);
	int (*on)(const struct method *m);
	int (*off)(const struct method *m);
	void (*teardown)(const struct method *m);
	int arg;
};

static int nop_setup(const struct method *m, char *why)
{
	return 0;
}

static int nop(const struct method *m)
{
	return 0;
}

static void nop_teardown(const struct method *m)
{
}

static int need_instance(char *why)
{
	if (inst)
		return 0;
	snprintf(why, WHY,
		 "no tracefs instance of our own (mkdir %s/instances/" INSTANCE
		 " failed: instances need CONFIG_TRACING)",
		 sys_tracefs_dir() ?: "tracefs");
	return -1;
}

static int ev_setup(const struct method *m, char *why)
{
	if (need_instance(why))
		return -1;
	if (!tracefs_event_file_exists(inst, "gpio", "gpio_value", "enable")) {
		snprintf(why, WHY, "no gpio:gpio_value event (no CONFIG_GPIOLIB?)");
		return -1;
	}
	return 0;
}

static int ev_on(const struct method *m)
{
	return tracefs_event_enable(inst, "gpio", "gpio_value");
}

static int ev_off(const struct method *m)
{
	return tracefs_event_disable(inst, "gpio", "gpio_value");
}

static char filter_str[64];

static int filter_on(const struct method *m)
{
	snprintf(filter_str, sizeof(filter_str), "gpio == %u", tgpio);
	return tracefs_event_file_write(inst, "gpio", "gpio_value", "filter", filter_str) < 0;
}

static int filter_off(const struct method *m)
{
	return tracefs_event_file_write(inst, "gpio", "gpio_value", "filter", "0") < 0;
}

static int trigger_on(const struct method *m)
{
	return tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", "traceon") < 0;
}

static int trigger_off(const struct method *m)
{
	return tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", "!traceon") < 0;
}

static struct tracefs_hist *hist;

static int hist_setup(const struct method *m, char *why)
{
	if (ev_setup(m, why))
		return -1;
	hist = tracefs_hist_alloc(tep, "gpio", "gpio_value", "value", TRACEFS_HIST_KEY_NORMAL);
	if (!hist || tracefs_hist_start(inst, hist) || tracefs_hist_destroy(inst, hist)) {
		char *log = tracefs_error_last(inst);

		snprintf(why, WHY, "hist triggers do not work here (CONFIG_HIST_TRIGGERS?)%s%s",
			 log ? ": " : "", log ? log : "");
		free(log);
		tracefs_hist_free(hist);
		hist = NULL;
		return -1;
	}
	return 0;
}

static int hist_on(const struct method *m)
{
	return tracefs_hist_start(inst, hist);
}

static int hist_off(const struct method *m)
{
	return tracefs_hist_destroy(inst, hist);
}

static void hist_teardown(const struct method *m)
{
	tracefs_hist_free(hist);
	hist = NULL;
}

/*
 * The synthetic event gpiolat_pulse(gpio, delta): a hist on gpio_value saves the time of a set
 * to 1, a second one at the set to 0 computes the delta and fires the synthetic event
 * (onmatch().trace()), which has a hist of its own: the talk's set-up. The triggers are written
 * into our instance, not with tracefs_synth_create(), which puts them at the top level where an
 * interrupted run's leftovers could not be told from the user's own triggers.
 */
static struct tracefs_hist *synth_hist;
#define SYNTH_DEF SYNTH_NAME " u32 gpio; u64 delta"
#define SYNTH_START "hist:keys=gpio:gpiolat_t0=common_timestamp if value == 1 && get == 0"
#define SYNTH_END                                                                                           \
	"hist:keys=gpio:gpiolat_dt=common_timestamp-$gpiolat_t0:onmatch(gpio.gpio_value).trace(" SYNTH_NAME \
	",gpio,$gpiolat_dt) if value == 0 && get == 0"
static const char *synth_start = SYNTH_START, *synth_end = SYNTH_END;

static int synth_setup(const struct method *m, char *why)
{
	struct tracefs_dynevent *d;

	if (ev_setup(m, why))
		return -1;
	if (!tracefs_file_exists(NULL, "synthetic_events")) {
		snprintf(why, WHY, "no synthetic_events in tracefs (no CONFIG_SYNTH_EVENTS)");
		return -1;
	}
	if (tracefs_instance_file_append(NULL, "synthetic_events", SYNTH_DEF) < 0) {
		char *log = tracefs_error_last(NULL);

		snprintf(why, WHY, "cannot create the synthetic event '%s'%s%s", SYNTH_DEF,
			 log ? ": " : "", log ? log : "");
		free(log);
		return -1;
	}
	d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);
	tracefs_dynevent_free(d);
	if (!d) {
		snprintf(why, WHY, "the synthetic event " SYNTH_NAME " did not appear");
		return -1;
	}
	tep_free(tep);
	tep = tracefs_local_events_system(NULL, (const char *[]){ "gpio", "synthetic", NULL });
	synth_hist = tep ? tracefs_hist_alloc(tep, "synthetic", SYNTH_NAME, "delta",
					      TRACEFS_HIST_KEY_NORMAL) :
			   NULL;
	if (!synth_hist) {
		snprintf(why, WHY, "cannot describe the hist of " SYNTH_NAME);
		return -1;
	}
	return 0;
}

static int synth_on(const struct method *m)
{
	if (tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", synth_start) < 0 ||
	    tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", synth_end) < 0 ||
	    tracefs_event_enable(inst, "synthetic", SYNTH_NAME) ||
	    tracefs_hist_start(inst, synth_hist))
		return -1;
	return 0;
}

static int synth_off(const struct method *m)
{
	char buf[1024];
	int err = 0;

	err |= tracefs_hist_destroy(inst, synth_hist);
	err |= tracefs_event_disable(inst, "synthetic", SYNTH_NAME);
	snprintf(buf, sizeof(buf), "!%s", synth_end);
	err |= tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", buf) < 0;
	snprintf(buf, sizeof(buf), "!%s", synth_start);
	err |= tracefs_event_file_append(inst, "gpio", "gpio_value", "trigger", buf) < 0;
	return err ? -1 : 0;
}

static void synth_teardown(const struct method *m)
{
	struct tracefs_dynevent *d = tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, SYNTH_NAME);

	if (d)
		tracefs_dynevent_destroy(d, true);
	tracefs_dynevent_free(d);
	tracefs_hist_free(synth_hist);
	synth_hist = NULL;
}

/* kprobe events: gpiolat/gpiolat_gpiod_set_value, gpiolat/gpiolat_chain_1..10 */
static struct tracefs_dynevent *kp[CHAIN + 1];

static int kp_create(int i, const char *ev, const char *addr, char *why)
{
	if (kp[i])
		return 0;
	kp[i] = tracefs_kprobe_alloc(KP_SYSTEM, ev, addr, NULL);
	if (!kp[i] || tracefs_dynevent_create(kp[i])) {
		char *log = tracefs_error_last(NULL);

		snprintf(why, WHY, "cannot create a kprobe event on %s (CONFIG_KPROBE_EVENTS?)%s%s",
			 addr, log ? ": " : "", log ? log : "");
		free(log);
		tracefs_dynevent_free(kp[i]);
		kp[i] = NULL;
		return -1;
	}
	return 0;
}

static void kp_destroy_all(void)
{
	int i;

	for (i = 0; i <= CHAIN; i++) {
		if (!kp[i])
			continue;
		tracefs_dynevent_destroy(kp[i], true);
		tracefs_dynevent_free(kp[i]);
		kp[i] = NULL;
	}
}

static int kprobe_setup(const struct method *m, char *why)
{
	char ev[32], addr[32];
	int i;

	if (need_instance(why))
		return -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, WHY, "no kprobe_events in tracefs (no CONFIG_KPROBE_EVENTS)");
		return -1;
	}
	if (!m->series)
		return kp_create(0, "gpiolat_gpiod_set_value", "gpiod_set_value", why);
	for (i = 1; i <= CHAIN; i++) {
		snprintf(ev, sizeof(ev), "gpiolat_chain_%d", i);
		snprintf(addr, sizeof(addr), "toggle_chain_%d", i);
		if (kp_create(i, ev, addr, why))
			return -1;
	}
	return 0;
}

static int kprobe_on(const struct method *m)
{
	char ev[32];
	int i;

	if (!m->series)
		return tracefs_event_enable(inst, KP_SYSTEM, "gpiolat_gpiod_set_value");
	for (i = 1; i <= m->k; i++) {
		snprintf(ev, sizeof(ev), "gpiolat_chain_%d", i);
		if (tracefs_event_enable(inst, KP_SYSTEM, ev))
			return -1;
	}
	return 0;
}

static int kprobe_off(const struct method *m)
{
	return tracefs_event_disable(inst, KP_SYSTEM, NULL);
}

static void kprobe_teardown(const struct method *m)
{
	/* the series keeps its kprobes from k = 1 to k = 10 */
	if (!m->series || m->k == CHAIN)
		kp_destroy_all();
}

static int events_setup(const struct method *m, char *why)
{
	char ev[32];
	int i;

	if (need_instance(why))
		return -1;
	for (i = 0; i < m->k; i++) {
		snprintf(ev, sizeof(ev), "toggle_ev%d", i);
		if (!tracefs_event_file_exists(inst, "toggle", ev, "enable")) {
			snprintf(why, WHY, "no toggle:%s event (an older toggle module?)", ev);
			return -1;
		}
	}
	return 0;
}

static int events_on(const struct method *m)
{
	char ev[32];
	int i;

	for (i = 0; i < m->k; i++) {
		snprintf(ev, sizeof(ev), "toggle_ev%d", i);
		if (tracefs_event_enable(inst, "toggle", ev))
			return -1;
	}
	return 0;
}

static int events_off(const struct method *m)
{
	return tracefs_event_disable(inst, "toggle", "toggle_ev.*");
}

static int function_setup(const struct method *m, char *why)
{
	char *t;

	if (need_instance(why))
		return -1;
	t = tracefs_instance_file_read(inst, "available_tracers", NULL);
	if (!t || !strstr(t, "function")) {
		snprintf(why, WHY,
			 "no function tracer in a tracefs instance (CONFIG_FUNCTION_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	if (tracefs_function_filter(inst, "gpiod*", NULL, TRACEFS_FL_RESET | TRACEFS_FL_CONTINUE) ||
	    tracefs_function_filter(inst, NULL, NULL, 0)) {
		snprintf(why, WHY, "set_ftrace_filter 'gpiod*' failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int function_on(const struct method *m)
{
	return tracefs_tracer_set(inst, TRACEFS_TRACER_FUNCTION);
}

static int tracer_off(const struct method *m)
{
	return tracefs_tracer_clear(m->arg ? NULL : inst);
}

static void function_teardown(const struct method *m)
{
	tracefs_tracer_clear(inst);
	tracefs_instance_file_clear(inst, "set_ftrace_filter");
}

/* function_graph: the top level only (6.1 has no graph tracer in instances); saved first */
static int graph_setup(const struct method *m, char *why)
{
	static const char *const names[] = { "current_tracer", "set_graph_function", "tracing_on" };
	char *t;
	int i;

	t = tracefs_instance_file_read(NULL, "available_tracers", NULL);
	if (!t || !strstr(t, "function_graph")) {
		snprintf(why, WHY, "no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	t = tracefs_instance_file_read(NULL, "current_tracer", NULL);
	if (!t || strncmp(t, "nop", 3)) {
		snprintf(why, WHY, "the top-level tracer is in use (current_tracer %s): left alone",
			 t ? strtok(t, "\n") : "?");
		free(t);
		return -1;
	}
	free(t);
	if (state_dir_open(true, why, WHY) < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		t = tracefs_instance_file_read(NULL, names[i], NULL);
		if (!t || state_save(names[i], t)) {
			snprintf(why, WHY, "cannot save the top-level %s in " STATE_DIR, names[i]);
			free(t);
			return -1;
		}
		free(t);
	}
	tracefs_instance_file_clear(NULL, "set_graph_function");
	if (tracefs_instance_file_write(NULL, "set_graph_function", "gpiod_set_value") < 0 ||
	    tracefs_instance_file_write(NULL, "tracing_on", "1") < 0) {
		snprintf(why, WHY, "set_graph_function gpiod_set_value failed: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int graph_on(const struct method *m)
{
	return tracefs_tracer_set(NULL, TRACEFS_TRACER_FUNCTION_GRAPH);
}

static void graph_teardown(const struct method *m)
{
	bool found;

	restore_top(&found);
}

/*
 * trace_printk: the module's printk mode against its continuous mode. Its mode is a load-time
 * parameter, so each phase reloads the module (which gives its chip a new GPIO number: tgpio
 * is read again). Its original parameters are saved to STATE_DIR/KMOD_STATE first; they are
 * put back after the row, on every way out, and by the next run or --cleanup after a SIGKILL.
 */
#define KMOD_PARAMS "/sys/module/toggle/parameters/"
#define KMOD_STATE "toggle_params"

static char kmod_file[PATH_MAX]; /* the toggle.ko to reload: --kmod or $GPIOLAT_KMOD */
static char kmod_orig[512]; /* its parameters as loaded, "mode=burst burst=5 ..." */
static bool kmod_changed; /* reloaded at least once: to be put back */
static const char mode_printk[] = "printk", mode_continuous[] = "continuous";
static const char *kmod_mode; /* the mode we last loaded it with */

/* the loaded module's parameters, as insmod takes them; 0, or -1 and why */
static int kmod_params(char *buf, size_t size, char *why)
{
	static const char *const names[] = { "mode", "burst", "nlines", "line", "chip", "prio" };
	char p[128], *v;
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		snprintf(p, sizeof(p), KMOD_PARAMS "%s", names[i]);
		v = file_slurp(p);
		if (!v) {
			if (i == 0) {
				snprintf(why, WHY,
					 "cannot read the toggle module's parameters (%s)", p);
				return -1;
			}
			continue;
		}
		v[strcspn(v, "\n")] = '\0';
		if (*v && strcmp(v, "(null)") && !strchr(v, ' '))
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s=%s",
					len ? " " : "", names[i], v);
		free(v);
	}
	if (len >= size) {
		snprintf(why, WHY, "the toggle module's parameters are too long");
		return -1;
	}
	return 0;
}

/* PARAMS with mode=MODE in place of its mode */
static void kmod_with_mode(char *out, size_t size, const char *params, const char *mode)
{
	char copy[512], *t, *save = NULL;
	size_t len = snprintf(out, size, "mode=%s", mode);

	snprintf(copy, sizeof(copy), "%s", params);
	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (strncmp(t, "mode=", 5) && len < size)
			len += snprintf(out + len, size - len, " %s", t);
}

/*
 * FILE opened, when it is a module we load as root: an absolute path to a regular file of
 * root's (not a link) named toggle.ko; the fd, or -1 and why
 */
static int kmod_open(const char *file, char *why)
{
	const char *base = strrchr(file, '/');
	struct stat st;
	int fd;

	if (file[0] != '/' || !base || strcmp(base + 1, "toggle.ko")) {
		snprintf(why, WHY, "'%.150s' is not an absolute path to a toggle.ko: not loaded",
			 file);
		return -1;
	}
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, WHY, "cannot open %.150s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !root_only(&st)) {
		snprintf(why, WHY,
			 "%.150s is not a regular file of root's that only root can write: not "
			 "loaded",
			 file);
		close(fd);
		return -1;
	}
	return fd;
}

/* rmmod toggle (when loaded), insmod FILE PARAMS, and the new GPIO number; 0, or -1 and why */
static int kmod_load(const char *file, const char *params, char *why)
{
	int fd, i;

	fd = kmod_open(file, why);
	if (fd < 0)
		return -1;
	if (!access("/sys/module/toggle", F_OK) &&
	    syscall(__NR_delete_module, "toggle", O_NONBLOCK)) {
		snprintf(why, WHY, "the toggle module cannot be unloaded: %s%s", strerror(errno),
			 errno == EBUSY || errno == EAGAIN || errno == EWOULDBLOCK ?
				 " (busy: in use, or a line of its chip is held)" :
				 "");
		close(fd);
		return -1;
	}
	if (syscall(__NR_finit_module, fd, params, 0)) {
		snprintf(why, WHY, "cannot load %.100s %.100s: %s", file, params, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* its debugfs files, and the new number of the toggled line */
	for (i = 0; i < 250 && toggle_gpio(&tgpio); i++)
		poll(NULL, 0, 20);
	if (i == 250) {
		snprintf(why, WHY, "the toggle module loaded with '%.150s' has no debugfs files",
			 params);
		return -1;
	}
	return 0;
}

/* the saved parameters of an interrupted run, put back; the state file removed (dir checked) */
static int kmod_restore_saved(bool *found)
{
	char p[128], now[512], why[WHY], *v, *nl;
	bool bad = false;
	int err = 0;

	if (state_path(p, sizeof(p), KMOD_STATE))
		return 0;
	v = state_read(KMOD_STATE, &bad);
	if (!v)
		return bad ? -1 : 0;
	*found = true;
	nl = strchr(v, '\n');
	if (nl) {
		*nl = '\0';
		nl[strcspn(nl + 1, "\n") + 1] = '\0';
		/* loaded as it was: nothing to do */
		if (access("/sys/module/toggle", F_OK) || kmod_params(now, sizeof(now), why) ||
		    strcmp(now, nl + 1)) {
			if (kmod_load(v, nl + 1, why)) {
				fprintf(stderr, "gpiolat: putting the toggle module back: %s\n",
					why);
				err = -1;
			}
		}
	}
	free(v);
	if (!err)
		unlink(p);
	return err;
}

static int printk_setup(const struct method *m, char *why)
{
	const char *env = getenv("GPIOLAT_KMOD");
	char params[600], *saved, real[PATH_MAX];
	int fd;

	if (!kmod_file[0] && env)
		snprintf(kmod_file, sizeof(kmod_file), "%s", env);
	if (!kmod_file[0]) {
		snprintf(why, WHY,
			 "no toggle.ko to reload it with mode=printk (give --kmod FILE or "
			 "GPIOLAT_KMOD)");
		return -1;
	}
	/* the file itself, by an absolute path: what is saved and loaded again after a SIGKILL */
	if (!realpath(kmod_file, real)) {
		snprintf(why, WHY, "cannot read %.150s: %s", kmod_file, strerror(errno));
		return -1;
	}
	snprintf(kmod_file, sizeof(kmod_file), "%s", real);
	fd = kmod_open(kmod_file, why);
	if (fd < 0)
		return -1;
	close(fd);
	if (kmod_params(kmod_orig, sizeof(kmod_orig), why))
		return -1;
	if (strstr(kmod_orig, "chip=")) {
		snprintf(why, WHY, "the toggle module drives a real chip (%.150s): not reloaded",
			 kmod_orig);
		return -1;
	}
	if (state_dir_open(true, why, WHY) < 0)
		return -1;
	if (asprintf(&saved, "%s\n%s\n", kmod_file, kmod_orig) < 0)
		saved = NULL;
	if (!saved || state_save(KMOD_STATE, saved)) {
		snprintf(why, WHY,
			 "cannot save the toggle module's parameters in " STATE_DIR "/" KMOD_STATE
			 ": %s",
			 strerror(errno));
		free(saved);
		return -1;
	}
	free(saved);
	kmod_changed = true;
	kmod_mode = mode_continuous;
	kmod_with_mode(params, sizeof(params), kmod_orig, kmod_mode);
	return kmod_load(kmod_file, params, why);
}

static int printk_switch(const char *mode)
{
	char params[600], why[WHY];

	if (kmod_mode == mode)
		return 0;
	kmod_mode = mode;
	kmod_with_mode(params, sizeof(params), kmod_orig, mode);
	if (kmod_load(kmod_file, params, why)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		errno = EIO;
		return -1;
	}
	return 0;
}

static int printk_on(const struct method *m)
{
	return printk_switch(mode_printk);
}

static int printk_off(const struct method *m)
{
	return printk_switch(mode_continuous);
}

/* the module back as it was loaded; 0 or -1 */
static int kmod_restore(void)
{
	char why[WHY];
	bool found;

	if (!kmod_changed)
		return 0;
	kmod_changed = false;
	kmod_mode = NULL;
	if (state_dir_open(false, why, sizeof(why)) <= 0) {
		fprintf(stderr, "gpiolat: putting the toggle module back: %s\n",
			why[0] ? why : STATE_DIR " is gone");
		return -1;
	}
	return kmod_restore_saved(&found);
}

static void printk_teardown(const struct method *m)
{
	kmod_restore();
}

/* BPF: gpiolat's own programs and empty ones, on the tracepoint, kprobe and fentry */
enum { HOOK_TP, HOOK_KPROBE, HOOK_FENTRY };
static struct gpiolat_bpf *gskel;
static struct empty_gpio_bpf *eskel;
static struct bpf_link *blink;
static struct bpf_program *bprog;

static int bpf_check(int hook, char *why)
{
	struct btf *btf = sys_load_btf(o.btf_path, why, WHY);
	int err;

	if (!btf)
		return -1;
	err = hook == HOOK_TP	  ? sys_check_tracepoint(btf, why, WHY) :
	      hook == HOOK_KPROBE ? sys_check_kprobe(btf, why, WHY) :
				    sys_check_fentry(btf, why, WHY);
	btf__free(btf);
	return err;
}

static int gpiolat_setup(const struct method *m, char *why)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o.btf_path);
	struct bpf_program *p[3];
	struct btf *btf;
	__u32 size = 1;
	int i, err;

	if (bpf_check(m->arg, why))
		return -1;
	if (m->arg != HOOK_TP) {
		btf = sys_load_btf(o.btf_path, why, WHY);
		size = btf ? sys_gpio_desc_size(btf, why, WHY) : 0;
		btf__free(btf);
		if (!size)
			return -1;
	}
	gskel = gpiolat_bpf__open_opts(&oo);
	if (!gskel) {
		snprintf(why, WHY, "opening gpiolat's BPF object failed: %s", strerror(errno));
		return -1;
	}
	p[0] = gskel->progs.gpiolat_tp;
	p[1] = gskel->progs.gpiolat_kprobe;
	p[2] = gskel->progs.gpiolat_fentry;
	for (i = 0; i < 3; i++)
		bpf_program__set_autoload(p[i], i == m->arg);
	gskel->rodata->desc_magic = gpiolat_reciprocal(size);
	/*
	 * linear buckets for the p50: 100 of a quarter of the untraced set each, at most as wide
	 * as the BPF side's reciprocal is exact for (lin_width * GPIOLAT_LINEAR_SLOTS < 2^32, as
	 * gpiolat --linear checks): a stalled warm-up phase must not break the histogram
	 */
	gskel->rodata->lin_width = untraced_guess > 40 ? (__u64)(untraced_guess / 4) : 10;
	if (gskel->rodata->lin_width > GPIOLAT_LINEAR_WIDTH_MAX)
		gskel->rodata->lin_width = GPIOLAT_LINEAR_WIDTH_MAX;
	gskel->rodata->lin_magic = gpiolat_reciprocal(gskel->rodata->lin_width);
	gskel->rodata->lin_max = gskel->rodata->lin_width * GPIOLAT_LINEAR_SLOTS;
	err = gpiolat_bpf__load(gskel);
	if (err) {
		snprintf(why, WHY, "loading %s failed: %s", bpf_program__name(p[m->arg]),
			 strerror(-err));
		return -1;
	}
	bprog = p[m->arg];
	return 0;
}

static int empty_setup(const struct method *m, char *why)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = o.btf_path);
	struct bpf_program *p[3];
	int i, err;

	if (bpf_check(m->arg, why))
		return -1;
	eskel = empty_gpio_bpf__open_opts(&oo);
	if (!eskel) {
		snprintf(why, WHY, "opening the empty BPF object failed: %s", strerror(errno));
		return -1;
	}
	p[0] = eskel->progs.empty_gpio_tp;
	p[1] = eskel->progs.empty_gpio_kprobe;
	p[2] = eskel->progs.empty_gpio_fentry;
	for (i = 0; i < 3; i++)
		bpf_program__set_autoload(p[i], i == m->arg);
	err = empty_gpio_bpf__load(eskel);
	if (err) {
		snprintf(why, WHY, "loading %s failed: %s", bpf_program__name(p[m->arg]),
			 strerror(-err));
		return -1;
	}
	bprog = p[m->arg];
	return 0;
}

static int bpf_on(const struct method *m)
{
	blink = bpf_program__attach(bprog);
	return blink ? 0 : -1;
}

static int bpf_off(const struct method *m)
{
	bpf_link__destroy(blink);
	blink = NULL;
	return 0;
}

static void bpf_teardown(const struct method *m)
{
	bpf_off(m);
	gpiolat_bpf__destroy(gskel);
	empty_gpio_bpf__destroy(eskel);
	gskel = NULL;
	eskel = NULL;
	bprog = NULL;
}

/* ---- child processes: bpftrace, ply, strace, the syscall histogram ------------------------ */

static char child_out[128];
static char tool_why[WHY]; /* why the last tool did not attach */

/* NAME on PATH (or in /usr/sbin, which root's PATH may lack): its path */
/* start argv, its stdout and stderr to STATE_DIR/OUT; it goes with us, even after a SIGKILL */
static int tool_start(char *const argv[], const char *out)
{
	int fd;

	if (state_dir_open(true, tool_why, sizeof(tool_why)) < 0 ||
	    state_path(child_out, sizeof(child_out), out))
		return -1;
	unlink(child_out);
	fflush(NULL);
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() == 1)
			_exit(127);
		/* Ctrl-C reaches us, and we stop it ourselves */
		setpgid(0, 0);
		fd = open(child_out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return 0;
}

static bool child_says(const char *word)
{
	char *s = file_slurp(child_out);
	bool yes = s && strstr(s, word);

	free(s);
	return yes;
}

/* until ready() (at most timeout_ms); -1 when it died first, with its first line in why */
static int tool_wait(bool (*ready)(void), int timeout_ms, const char *name, char *why)
{
	char *s;
	int i;

	for (i = 0; i < timeout_ms / POLL_MS; i++) {
		if (ready()) {
			nap(50); /* the last probes of the set */
			return 0;
		}
		if (waitpid(child, NULL, WNOHANG) == child) {
			child = -1;
			s = file_slurp(child_out);
			snprintf(why, WHY, "%s exited before it was attached: %.150s", name,
				 s && *s ? strtok(s, "\n") : "(no output)");
			free(s);
			return -1;
		}
		if (!nap(POLL_MS))
			break;
	}
	snprintf(why, WHY, exiting ? "interrupted" : "%s was not attached within %d s", name,
		 timeout_ms / 1000);
	return -1;
}

/* the bpftrace twins of the talk's ply scripts, and ply itself: attached while on */
static const char *const bt_scripts[] = { "ply/delta.bt", "ply/dt-kprobe.bt" };
static const char *const ply_scripts[] = { "ply/delta.ply", "ply/dt-kprobe.ply" };
static char tool_path[PATH_MAX];

static int bpftrace_setup(const struct method *m, char *why)
{
	if (!sys_find_program("bpftrace", tool_path, sizeof(tool_path))) {
		snprintf(why, WHY, "bpftrace is not installed (not on PATH)");
		return -1;
	}
	if (access(bt_scripts[m->arg], R_OK)) {
		snprintf(why, WHY, "no %s here (run from the project folder)", bt_scripts[m->arg]);
		return -1;
	}
	return 0;
}

static bool bpftrace_ready(void)
{
	return child_says("attached_probes");
}

static int bpftrace_on(const struct method *m)
{
	if (tool_start((char *const[]){ tool_path, "-f", "json", (char *)bt_scripts[m->arg], NULL },
		       "bpftrace.out"))
		return -1;
	/* bpftrace under TCG takes seconds */
	if (tool_wait(bpftrace_ready, 120000, "bpftrace", tool_why)) {
		child_stop();
		errno = EIO;
		return -1;
	}
	return 0;
}

static int tool_off(const struct method *m)
{
	child_stop();
	return 0;
}

static int ply_setup(const struct method *m, char *why)
{
	if (!sys_find_program("ply", tool_path, sizeof(tool_path))) {
		snprintf(why, WHY, "ply is not installed (no ply on PATH)");
		return -1;
	}
	if (access(ply_scripts[m->arg], R_OK)) {
		snprintf(why, WHY, "no %s here (run from the project folder)", ply_scripts[m->arg]);
		return -1;
	}
	return 0;
}

/* how many of the child's fds are LINK (e.g. "anon_inode:[perf_event]") */
static int child_fds(const char *link)
{
	char path[64], l[128];
	struct dirent *e;
	int n = 0;
	ssize_t len;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", child);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%.20s", child, e->d_name);
		len = readlink(path, l, sizeof(l) - 1);
		if (len <= 0)
			continue;
		l[len] = '\0';
		n += !strcmp(l, link);
	}
	closedir(d);
	return n;
}

/* ply says "ply: active" only with -d: its probes' perf events are open, the program on them */
static bool ply_ready(void)
{
	return child_says("ply: active") || child_fds("anon_inode:[perf_event]") > 0;
}

static int ply_on(const struct method *m)
{
	if (tool_start((char *const[]){ tool_path, (char *)ply_scripts[m->arg], NULL }, "ply.out"))
		return -1;
	if (tool_wait(ply_ready, 60000, "ply", tool_why)) {
		child_stop();
		errno = EIO;
		return -1;
	}
	return 0;
}

/* ---- user space: utoggle on a free line of the module's chip ------------------------------ */

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

static void utoggle_stop(void)
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

	if (utoggle_path(path, sizeof(path))) {
		snprintf(why, WHY,
			 "no utoggle beside gpiolat or on PATH (make togglers, or set "
			 "GPIOLAT_UTOGGLE)");
		return -1;
	}
	if (inst) {
		char *f = tracefs_instance_get_file(inst, "trace_marker");

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
		ut.pid = fork();
		if (ut.pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			if (getppid() == 1)
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
static int utoggle_phase(double *med, __u64 *nb, __u64 *np)
{
	char *line = NULL, *p, *end;
	double *v = NULL;
	size_t cap = 0;
	long long pulses;
	long batches, i, m = 0;
	int err = -1;

	if (!ut.to || fprintf(ut.to, "run %lld%s\n", o.pulses, ut.marker ? " marker" : "") < 0 ||
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

enum { U_EVENTS, U_UPROBE, U_MARKER, U_STRACE, U_SCHIST };
static struct tracefs_dynevent *uprobe[2];

static pid_t strace_target;

static bool traced(void)
{
	char path[64], *s, *t;
	bool yes = false;

	snprintf(path, sizeof(path), "/proc/%d/status", strace_target);
	s = file_slurp(path);
	t = s ? strstr(s, "TracerPid:") : NULL;
	if (t)
		yes = strtol(t + 10, NULL, 10) != 0;
	free(s);
	return yes;
}

static bool schist_ready(void)
{
	return child_says("Tracing syscalls");
}

static void user_teardown(const struct method *m)
{
	int i;

	child_stop();
	utoggle_stop();
	for (i = 0; i < 2; i++) {
		if (!uprobe[i])
			continue;
		tracefs_event_disable(inst, KP_SYSTEM, NULL);
		tracefs_dynevent_destroy(uprobe[i], true);
		tracefs_dynevent_free(uprobe[i]);
		uprobe[i] = NULL;
	}
}

static int user_setup(const struct method *m, char *why)
{
	switch (m->arg) {
	case U_EVENTS:
		if (need_instance(why))
			return -1;
		if (!tracefs_event_file_exists(inst, "syscalls", "sys_enter_ioctl", "enable")) {
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
	if (m->arg == U_MARKER && !ut.marker_ok) {
		snprintf(why, WHY, "no trace_marker in our instance");
		return -1;
	}
	if (m->arg == U_UPROBE) {
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

static int user_on(const struct method *m)
{
	switch (m->arg) {
	case U_EVENTS:
		return tracefs_event_enable(inst, "syscalls", "sys_enter_ioctl") ||
		       tracefs_event_enable(inst, "syscalls", "sys_exit_ioctl");
	case U_UPROBE:
		return tracefs_event_enable(inst, KP_SYSTEM, "gpiolat_utoggle.*");
	case U_MARKER:
		ut.marker = true;
		return 0;
	case U_STRACE: {
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", ut.pid);
		strace_target = ut.pid;
		if (tool_start((char *const[]){ tool_path, "-o", "/dev/null", "-p", pid, NULL },
			       "strace.out"))
			return -1;
		if (tool_wait(traced, 30000, "strace", tool_why)) {
			child_stop();
			errno = EIO;
			return -1;
		}
		return 0;
	}
	case U_SCHIST:
		if (tool_start((char *const[]){ tool_path, "--syscall-hist", NULL }, "schist.out"))
			return -1;
		if (tool_wait(schist_ready, 60000, "gpiolat --syscall-hist", tool_why)) {
			child_stop();
			errno = EIO;
			return -1;
		}
		return 0;
	}
	return -1;
}

static int user_off(const struct method *m)
{
	switch (m->arg) {
	case U_EVENTS:
		return tracefs_event_disable(inst, "syscalls", "sys_enter_ioctl") |
		       tracefs_event_disable(inst, "syscalls", "sys_exit_ioctl");
	case U_UPROBE:
		return tracefs_event_disable(inst, KP_SYSTEM, "gpiolat_utoggle.*");
	case U_MARKER:
		ut.marker = false;
		return 0;
	default:
		child_stop();
		/* strace detaches when it exits */
		while (m->arg == U_STRACE && ut.pid > 0 && (strace_target = ut.pid) && traced())
			if (!nap(POLL_MS))
				return -1;
		return 0;
	}
}

#define M(n, g, a, t, s, k, fs, fon, foff, ft, arg)      \
	{                                                \
		n, g, a, t, s, k, fs, fon, foff, ft, arg \
	}
#define SERIES(kind, k)                                                                          \
	M("events-" #k, "tracefs", NULL, k == 1 ? "event-per-extra" : NULL, "events", k,         \
	  events_setup, events_on, events_off, nop_teardown, 0),                                 \
		M("kprobes-" #k, "tracefs", NULL, k == 1 ? "kprobe-per-extra" : NULL, "kprobes", \
		  k, kprobe_setup, kprobe_on, kprobe_off, kprobe_teardown, 0)

static const struct method methods[] = {
	M("control", "control", NULL, NULL, NULL, 0, nop_setup, nop, nop, nop_teardown, 0),
	M("event", "tracefs", NULL, "event", NULL, 0, ev_setup, ev_on, ev_off, nop_teardown, 0),
	M("event-filter", "tracefs", "event", "event-filter", NULL, 0, ev_setup, filter_on,
	  filter_off, nop_teardown, 0),
	M("event-trigger", "tracefs", "event", "event-trigger", NULL, 0, ev_setup, trigger_on,
	  trigger_off, nop_teardown, 0),
	M("event-hist", "tracefs", "event", "event-hist", NULL, 0, hist_setup, hist_on, hist_off,
	  hist_teardown, 0),
	M("event-synthetic", "tracefs", "event", "event-synthetic", NULL, 0, synth_setup, synth_on,
	  synth_off, synth_teardown, 0),
	M("kprobe", "tracefs", "event", "kprobe", NULL, 0, kprobe_setup, kprobe_on, kprobe_off,
	  kprobe_teardown, 0),
	SERIES(events, 1),
	SERIES(events, 2),
	SERIES(events, 3),
	SERIES(events, 4),
	SERIES(events, 5),
	SERIES(events, 6),
	SERIES(events, 7),
	SERIES(events, 8),
	SERIES(events, 9),
	SERIES(events, 10),
	M("function", "tracefs", NULL, "function", NULL, 0, function_setup, function_on, tracer_off,
	  function_teardown, 0),
	M("function_graph", "tracefs", NULL, "function_graph", NULL, 0, graph_setup, graph_on,
	  tracer_off, graph_teardown, 1),
	M("trace_printk", "tracefs", NULL, "trace_printk", NULL, 0, printk_setup, printk_on,
	  printk_off, printk_teardown, 0),
	M("bpf-gpiolat-tracepoint", "bpf", NULL, "bpf-ply-tracepoint", NULL, 0, gpiolat_setup,
	  bpf_on, bpf_off, bpf_teardown, HOOK_TP),
	M("bpf-empty-tracepoint", "bpf", NULL, NULL, NULL, 0, empty_setup, bpf_on, bpf_off,
	  bpf_teardown, HOOK_TP),
	M("bpf-gpiolat-kprobe", "bpf", NULL, NULL, NULL, 0, gpiolat_setup, bpf_on, bpf_off,
	  bpf_teardown, HOOK_KPROBE),
	M("bpf-empty-kprobe", "bpf", NULL, NULL, NULL, 0, empty_setup, bpf_on, bpf_off,
	  bpf_teardown, HOOK_KPROBE),
	M("bpf-gpiolat-fentry", "bpf", NULL, NULL, NULL, 0, gpiolat_setup, bpf_on, bpf_off,
	  bpf_teardown, HOOK_FENTRY),
	M("bpf-empty-fentry", "bpf", NULL, NULL, NULL, 0, empty_setup, bpf_on, bpf_off,
	  bpf_teardown, HOOK_FENTRY),
	M("bpftrace-delta", "bpf", NULL, "bpf-ply-tracepoint", NULL, 0, bpftrace_setup, bpftrace_on,
	  tool_off, nop_teardown, 0),
	M("bpftrace-dt-kprobe", "bpf", NULL, NULL, NULL, 0, bpftrace_setup, bpftrace_on, tool_off,
	  nop_teardown, 1),
	M("ply-delta", "bpf", NULL, "bpf-ply-tracepoint", NULL, 0, ply_setup, ply_on, tool_off,
	  nop_teardown, 0),
	M("ply-dt-kprobe", "bpf", NULL, NULL, NULL, 0, ply_setup, ply_on, tool_off, nop_teardown,
	  1),
	M("user-ioctl-syscall-events", "user", NULL, "user-ioctl-syscall-events", NULL, 0,
	  user_setup, user_on, user_off, user_teardown, U_EVENTS),
	M("user-ioctl-uprobe", "user", NULL, "user-ioctl-uprobe", NULL, 0, user_setup, user_on,
	  user_off, user_teardown, U_UPROBE),
	M("user-ioctl-trace-marker", "user", NULL, "user-ioctl-trace-marker", NULL, 0, user_setup,
	  user_on, user_off, user_teardown, U_MARKER),
	M("user-ioctl-strace", "user", NULL, "user-ioctl-strace", NULL, 0, user_setup, user_on,
	  user_off, user_teardown, U_STRACE),
	M("user-ioctl-syscall-hist", "user", NULL, NULL, NULL, 0, user_setup, user_on, user_off,
	  user_teardown, U_SCHIST),
};

#define NMETHODS (int)(sizeof(methods) / sizeof(methods[0]))

static const struct method *method_by_name(const char *name)
{
	int i;

	for (i = 0; i < NMETHODS; i++)
		if (!strcmp(methods[i].name, name))
			return &methods[i];
	return NULL;
}

/* does one item of --only, NAME or a prefix ending in '*' ("events-*"), name M? */
static bool only_item(const char *t, const struct method *m)
{
	size_t n = strlen(t);

	return !strcmp(t, m->name) || (n && t[n - 1] == '*' && !strncmp(t, m->name, n - 1));
}

static bool selected(const struct method *m)
{
	char list[512], *t, *save = NULL;

	if (!o.only)
		return true;
	snprintf(list, sizeof(list), "%s", o.only);
	for (t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (only_item(t, m))
			return true;
	return false;
}

/* every item of --only names at least one method; 0, or -1 with the first that does not */
static int only_check(char *bad, size_t size)
{
	char list[512], *t, *save = NULL;
	int i;

	if (strlen(o.only) >= sizeof(list)) {
		snprintf(bad, size, "%.60s...", o.only);
		return -1;
	}
	snprintf(list, sizeof(list), "%s", o.only);
	t = strtok_r(list, ",", &save);
	if (!t) {
		snprintf(bad, size, "%s", o.only);
		return -1;
	}
	for (; t; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NMETHODS && !only_item(t, &methods[i]); i++)
			;
		if (i == NMETHODS) {
			snprintf(bad, size, "%s", t);
			return -1;
		}
	}
	return 0;
}

/* the BPF histogram's own pulse width of the toggled line: its mean and p50 */
static void bpf_hist_stats(struct row *r)
{
	int ncpus = libbpf_num_possible_cpus();
	struct line_result lr = { .gpio = tgpio, .offset = -1, .minmax = true };
	struct gpiolat_hist *pc;
	struct summary sm;

	if (!gskel)
		return;
	pc = calloc(ncpus, sizeof(*pc));
	if (pc && !bpf_map_lookup_elem(bpf_map__fd(gskel->maps.hists), &tgpio, pc)) {
		hist_sum_cpus(&lr.h, pc, ncpus);
		hist_summary(&lr, gskel->rodata->lin_width, &sm);
		if (sm.count) {
			r->hist_ok = true;
			r->hist_mean = sm.mean;
			r->hist_p50 = sm.p50;
			r->hist_pairs = sm.count;
		}
	}
	free(pc);
}

/* compare like with like: the shift (medians) with the histogram's p50 and the run time */
static void trust_check(struct row *r)
{
	double tol = fmax(0.1 * fabs(r->mean), isnan(r->ci) ? 0 : r->ci);
	double h = r->hist_ok ? r->hist_p50 - r->ref_mean : NAN;

	r->disagree[0] = '\0';
	if (!isnan(h) && fabs(h - r->mean) > tol)
		snprintf(r->disagree, sizeof(r->disagree),
			 "hist p50 %.0f ns vs shift %.0f ns (more than %.0f ns apart)", h, r->mean,
			 tol);
	/* the run time is a mean (all BPF_ENABLE_STATS gives): shown, not judged */
}

/* what a method's reference phases are */
static const char *ref_label(const struct method *m)
{
	if (m->against)
		return m->against;
	if (!strcmp(m->group, "user"))
		return USER_REF;
	return m->setup == printk_setup ? PRINTK_REF : "untraced";
}

/* the user-space rows' untraced phases (utoggle) */
static struct stat_acc user_base;

static bool is_user(const struct method *m)
{
	return !strcmp(m->group, "user");
}

/* a phase of the method's pulse source: the toggle module, or utoggle for the user rows */
static int any_phase(const struct method *m, double *med, __u64 *nb, __u64 *np)
{
	return is_user(m) ? utoggle_phase(med, nb, np) : phase(med, nb, np);
}

/* the alternation for one method */
static void measure(const struct method *m, struct row *r)
{
	const struct method *ref = m->against ? method_by_name(m->against) : NULL;
	struct stat_acc refs = {};
	double b0, mv, b1;
	int i;

	snprintf(r->name, sizeof(r->name), "%s", m->name);
	snprintf(r->group, sizeof(r->group), "%s", m->group);
	snprintf(r->against, sizeof(r->against), "%s",
		 ref			  ? ref->name :
		 is_user(m)		  ? USER_REF :
		 m->setup == printk_setup ? PRINTK_REF :
					    "untraced");
	r->own_ref = is_user(m);
	r->talk = m->talk;
	r->series = m->series;
	r->k = m->k;
	r->bpf = !strcmp(m->group, "bpf") && strncmp(m->name, "bpftrace", 8);
	if (ref && ref->setup(ref, r->why)) {
		snprintf(r->why + strlen(r->why), WHY - strlen(r->why), " (its reference %s)",
			 ref->name);
		return;
	}
	if (m->setup(m, r->why)) {
		m->teardown(m);
		if (ref)
			ref->teardown(ref);
		return;
	}
	if (ref && ref->on(ref)) {
		snprintf(r->why, WHY, "switching on its reference %s failed: %s", ref->name,
			 strerror(errno));
		goto out;
	}
	if (any_phase(m, &b0, &r->batches, &r->pulses))
		goto fail;
	for (i = 0; i < o.reps && !exiting; i++) {
		tool_why[0] = '\0';
		if (m->on(m)) {
			if (tool_why[0])
				snprintf(r->why, WHY, "%s", tool_why);
			else
				snprintf(r->why, WHY, "switching %s on failed: %s", m->name,
					 strerror(errno ?: EIO));
			m->off(m);
			goto out;
		}
		if (any_phase(m, &mv, &r->batches, &r->pulses)) {
			m->off(m);
			goto fail;
		}
		if (m->off(m)) {
			snprintf(r->why, WHY, "switching %s off failed: %s", m->name,
				 strerror(errno ?: EIO));
			goto out;
		}
		if (any_phase(m, &b1, &r->batches, &r->pulses))
			goto fail;
		r->diff[i] = mv - (b0 + b1) / 2;
		stat_add(&refs, b0);
		if (is_user(m))
			stat_add(&user_base, b0);
		else if (!strcmp(r->against, "untraced") && nbase_phase < MAX_BASE_PHASES)
			base_phase[nbase_phase++] = b0;
		b0 = b1;
	}
	if (exiting)
		goto fail;
	r->reps = i;
	r->measured = true;
	r->ref_mean = refs.mean;
	row_stats(r);
	if (r->bpf && bprog) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (stats_fd >= 0 && !bpf_obj_get_info_by_fd(bpf_program__fd(bprog), &info, &len)) {
			r->run_cnt = info.run_cnt;
			r->run_time_ns = info.run_time_ns;
		}
		bpf_hist_stats(r);
		trust_check(r);
	}
	goto out;
fail:
	snprintf(r->why, WHY, "%s", exiting ? "interrupted" : "the toggle module's phase failed");
out:
	m->off(m);
	m->teardown(m);
	if (ref) {
		ref->off(ref);
		ref->teardown(ref);
	}
}

/* ---- output --------------------------------------------------------------------------------- */

static struct json_object *jdouble(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

struct context {
	char clock[128];
	__u64 resolution_ns;
	double untraced_mean, floor_sd;
	int floor_n;
	double noise_batch_iqr;
	bool emulated;
	double duration_s;
};

/* the overhead row ROW of a baseline CSV: its value (NAN if none) and its "against" column */
static void csv_figure(const char *csv, const char *row, double *v, char *against, size_t size)
{
	char note[256], line[512];
	const char *p;

	*v = NAN;
	against[0] = '\0';
	if (!csv || !row || baseline_find(csv, row, "overhead", v, NULL, note, sizeof(note)))
		return;
	/* the "against" column: the 7th field of the row */
	snprintf(line, sizeof(line), "\n%s,overhead,", row);
	p = strstr(csv, line);
	if (p) {
		int f = 0;

		for (p++; *p && *p != '\n' && f < 6; p++)
			f += *p == ',';
		snprintf(against, size, "%.*s", (int)strcspn(p, ",\n"), p);
	}
}

static void talk_figure(const struct row *r, double *v, char *against, size_t size)
{
	csv_figure(baseline_csv, r->talk, v, against, size);
}

/* --baseline: the user's own scope figure for a row, by our method's name or the talk's row */
static const char *user_figure(const struct row *r, double *v, char *against, size_t size)
{
	csv_figure(user_csv, r->name, v, against, size);
	if (!isnan(*v))
		return r->name;
	csv_figure(user_csv, r->talk, v, against, size);
	return isnan(*v) ? NULL : r->talk;
}

static void print_text(struct row *rows, int n, const struct context *cx)
{
	double v, uv, slope, r2, tv, tsd;
	char against[64], uagainst[64];
	const char *urow;
	int i, npts;

	printf("gpiolat --overhead: what each tracing method adds to one GPIO set (ns per set)\n");
	if (cx->emulated)
		printf("TIMINGS ARE EMULATED (qemu TCG): compare the rows with each other, not with "
		       "the talk's oscilloscope nanoseconds\n");
	printf("clock: %s (resolution %llu ns)\n", cx->clock,
	       (unsigned long long)cx->resolution_ns);
	printf("method: alternating phases of %lld pulses (reference, method, reference, ...), "
	       "%d repetitions; a phase = median ns per set of its batches after %d warm-up "
	       "batches; overhead = method - mean of the adjacent references; 95 %% CI by "
	       "Student's t over the repetitions\n",
	       o.pulses, o.reps, WARMUP);
	if (cx->floor_n)
		printf("untraced: %.1f ns per set (mean of %d untraced phases); noise floor: sd "
		       "%.1f ns between untraced phases\n",
		       cx->untraced_mean, cx->floor_n, cx->floor_sd);
	else
		printf("untraced: no untraced phases in this selection (no noise floor)\n");
	if (user_base.n)
		printf("untraced ioctl toggler (utoggle, GPIO_V2_LINE_SET_VALUES_IOCTL, "
		       "clock_gettime CLOCK_MONOTONIC): %.1f ns per set (mean of %llu phases, sd "
		       "%.1f ns); the user rows' %% is of this\n",
		       user_base.mean, (unsigned long long)user_base.n, stat_sd(&user_base));
	if (!baseline_find(baseline_csv, "tracing-configured-rt", "pulse", &tv, &tsd, NULL, 0))
		printf("talk: untraced pulse %.1f ns (sd %.1f ns), row tracing-configured-rt\n", tv,
		       tsd);
	if (user_csv)
		printf("yours (--baseline %s): your scope's figures, by our method's name or the "
		       "talk's row\n",
		       user_csv_path);
	printf("\n%-26s %-22s %12s %12s %8s %5s %8s  %s\n", "method", "against", "overhead_ns",
	       "ci95_ns", "%pulse", "reps", "batches", "talk (row, against)");
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];

		if (!r->measured) {
			printf("%-26s not available: %s\n", r->name, r->why);
			continue;
		}
		talk_figure(r, &v, against, sizeof(against));
		printf("%-26s %-22s %12.1f %12.1f ", r->name, r->against, r->mean, r->ci);
		if (r->own_ref)
			printf("%7.0f%% ", 100 * r->mean / r->ref_mean);
		else if (cx->floor_n)
			printf("%7.0f%% ", 100 * r->mean / cx->untraced_mean);
		else
			printf("%8s ", "-");
		printf("%5d %8llu  ", r->reps, (unsigned long long)r->batches);
		urow = user_figure(r, &uv, uagainst, sizeof(uagainst));
		if (!isnan(v))
			printf("%.0f ns (%s, against %s)", v, r->talk, against[0] ? against : "-");
		else
			printf("-");
		if (urow)
			printf("  yours: %.0f ns (%s, against %s)", uv, urow,
			       uagainst[0] ? uagainst : "-");
		printf("\n");
	}
	printf("\nlinear cost model (least squares over k = 1..10):\n");
	if (!series_fit(rows, n, "events", &slope, &r2, &npts))
		printf("  module events: %.1f ns per additional event, R^2 %.3f (%d points); talk "
		       "%s\n",
		       slope, r2, npts,
		       !baseline_find(baseline_csv, "event-per-extra", "overhead", &v, NULL, NULL,
				      0) ?
			       "1100 ns (row event-per-extra)" :
			       "-");
	else
		printf("  module events: too few points (%d)\n", npts);
	if (!series_fit(rows, n, "kprobes", &slope, &r2, &npts))
		printf("  kprobes on the chain: %.1f ns per additional kprobe, R^2 %.3f (%d "
		       "points); talk 2600 ns (row kprobe-per-extra)\n",
		       slope, r2, npts);
	else
		printf("  kprobes on the chain: too few points (%d)\n", npts);
	for (i = 0; i < n && !(rows[i].measured && rows[i].bpf); i++)
		;
	if (i < n)
		printf("\ntrust (BPF), three figures of one cost, in ns per set:\n"
		       "  shift: median-based pulse-width shift (the row's overhead, with its 95 %% CI): "
		       "hook dispatch + program\n"
		       "  run:   BPF run time per run (BPF_ENABLE_STATS): the program alone, no "
		       "dispatch; a mean, so outliers pull it up: shown, not judged\n"
		       "  hist:  the program's own histogram, p50 pulse minus the untraced set (like "
		       "with like: medians); its mean beside it, pulled up by the emulation's outliers\n"
		       "  flagged when hist is further from the shift than max(10 %%, its CI)\n");
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		double run = r->run_cnt ? (double)r->run_time_ns / r->run_cnt : NAN;

		if (!r->measured || !r->bpf)
			continue;
		printf("  %-24s shift %8.1f +- %6.1f | run %8.1f (%llu runs), dispatch %8.1f | "
		       "hist p50 %8.1f (mean %8.1f, %llu pulses)%s%s\n",
		       r->name, r->mean, r->ci, run, (unsigned long long)r->run_cnt, r->mean - run,
		       r->hist_ok ? r->hist_p50 - r->ref_mean : NAN,
		       r->hist_ok ? r->hist_mean - r->ref_mean : NAN,
		       (unsigned long long)r->hist_pairs, r->disagree[0] ? "  DISAGREE: " : "",
		       r->disagree);
	}
	printf("run time: %.0f s\n", cx->duration_s);
}

static void print_json(struct row *rows, int n, const struct context *cx)
{
	struct json_object *top = json_object_new_object(), *a = json_object_new_array(), *f;
	double v, slope, r2;
	char against[64];
	const char *urow;
	int i, npts;
	static const char *const series[] = { "events", "kprobes" };

	json_object_object_add(top, "tool", json_object_new_string("gpiolat --overhead"));
	json_object_object_add(top, "format", json_object_new_int(1));
	json_object_object_add(top, "emulated", json_object_new_boolean(cx->emulated));
	json_object_object_add(top, "clock", json_object_new_string(cx->clock));
	json_object_object_add(top, "resolution_ns", json_object_new_uint64(cx->resolution_ns));
	json_object_object_add(top, "pulses_per_phase", json_object_new_int64(o.pulses));
	json_object_object_add(top, "repetitions", json_object_new_int(o.reps));
	json_object_object_add(top, "warmup_batches", json_object_new_int(WARMUP));
	json_object_object_add(
		top, "phase_statistic",
		json_object_new_string("median ns per set over the phase's batches"));
	json_object_object_add(top, "untraced_ns_per_set", jdouble(cx->untraced_mean));
	json_object_object_add(top, "noise_floor_sd_ns", jdouble(cx->floor_sd));
	json_object_object_add(top, "noise_floor_phases", json_object_new_int(cx->floor_n));
	if (user_base.n) {
		json_object_object_add(top, "user_untraced_ns_per_set", jdouble(user_base.mean));
		json_object_object_add(top, "user_noise_floor_sd_ns", jdouble(stat_sd(&user_base)));
		json_object_object_add(top, "user_untraced_phases",
				       json_object_new_uint64(user_base.n));
	}
	json_object_object_add(top, "duration_s", json_object_new_double(cx->duration_s));
	if (user_csv_path)
		json_object_object_add(top, "user_baseline", json_object_new_string(user_csv_path));
	for (i = 0; i < n; i++) {
		struct row *r = &rows[i];
		struct json_object *j = json_object_new_object(), *d;
		int k;

		json_object_object_add(j, "method", json_object_new_string(r->name));
		json_object_object_add(j, "group", json_object_new_string(r->group));
		json_object_object_add(j, "measured", json_object_new_boolean(r->measured));
		if (!r->measured) {
			json_object_object_add(j, "not_available", json_object_new_string(r->why));
			json_object_array_add(a, j);
			continue;
		}
		json_object_object_add(j, "against", json_object_new_string(r->against));
		if (r->series) {
			json_object_object_add(j, "series", json_object_new_string(r->series));
			json_object_object_add(j, "k", json_object_new_int(r->k));
		}
		json_object_object_add(j, "overhead_ns", jdouble(r->mean));
		json_object_object_add(j, "median_ns", jdouble(r->med));
		json_object_object_add(j, "lowest_ns", jdouble(r->low));
		json_object_object_add(j, "ci95_ns", jdouble(r->ci));
		json_object_object_add(j, "ci999_ns", jdouble(r->ci999));
		json_object_object_add(j, "sd_ns", jdouble(r->sd));
		if (r->own_ref) {
			json_object_object_add(j, "percent_of_untraced",
					       jdouble(100 * r->mean / r->ref_mean));
			json_object_object_add(j, "percent_of", json_object_new_string(r->against));
		} else {
			json_object_object_add(
				j, "percent_of_untraced",
				cx->floor_n ? jdouble(100 * r->mean / cx->untraced_mean) : NULL);
			json_object_object_add(j, "percent_of",
					       json_object_new_string("untraced module set"));
		}
		json_object_object_add(j, "reference_ns_per_set", jdouble(r->ref_mean));
		json_object_object_add(j, "repetitions", json_object_new_int(r->reps));
		json_object_object_add(j, "batches", json_object_new_uint64(r->batches));
		json_object_object_add(j, "pulses", json_object_new_uint64(r->pulses));
		d = json_object_new_array();
		for (k = 0; k < r->reps; k++)
			json_object_array_add(d, json_object_new_double(r->diff[k]));
		json_object_object_add(j, "differences_ns", d);
		urow = user_figure(r, &v, against, sizeof(against));
		if (urow) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "row", json_object_new_string(urow));
			json_object_object_add(t, "overhead_ns", json_object_new_double(v));
			json_object_object_add(t, "against", json_object_new_string(against));
			json_object_object_add(j, "yours", t);
		}
		talk_figure(r, &v, against, sizeof(against));
		if (!isnan(v)) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "row", json_object_new_string(r->talk));
			json_object_object_add(t, "overhead_ns", json_object_new_double(v));
			json_object_object_add(t, "against", json_object_new_string(against));
			json_object_object_add(j, "talk", t);
		}
		if (r->bpf) {
			struct json_object *t = json_object_new_object();

			json_object_object_add(t, "shift_ns", jdouble(r->mean));
			json_object_object_add(t, "run_cnt", json_object_new_uint64(r->run_cnt));
			json_object_object_add(
				t, "run_time_ns_per_run",
				r->run_cnt ? json_object_new_double((double)r->run_time_ns /
								    r->run_cnt) :
					     NULL);
			json_object_object_add(t, "hist_pulses",
					       json_object_new_uint64(r->hist_pairs));
			json_object_object_add(t, "hist_mean_pulse_ns",
					       r->hist_ok ? json_object_new_double(r->hist_mean) :
							    NULL);
			json_object_object_add(t, "hist_p50_pulse_ns",
					       r->hist_ok ? json_object_new_double(r->hist_p50) :
							    NULL);
			json_object_object_add(
				t, "hist_minus_untraced_ns",
				r->hist_ok ? json_object_new_double(r->hist_p50 - r->ref_mean) :
					     NULL);
			json_object_object_add(
				t, "hist_mean_minus_untraced_ns",
				r->hist_ok ? json_object_new_double(r->hist_mean - r->ref_mean) :
					     NULL);
			json_object_object_add(t, "disagree",
					       json_object_new_boolean(r->disagree[0]));
			if (r->disagree[0])
				json_object_object_add(t, "disagree_why",
						       json_object_new_string(r->disagree));
			json_object_object_add(j, "trust", t);
		}
		json_object_array_add(a, j);
	}
	json_object_object_add(top, "methods", a);
	f = json_object_new_object();
	for (i = 0; i < 2; i++) {
		struct json_object *s = json_object_new_object();

		if (!series_fit(rows, n, series[i], &slope, &r2, &npts)) {
			json_object_object_add(s, "slope_ns", json_object_new_double(slope));
			json_object_object_add(s, "r2", jdouble(r2));
		}
		json_object_object_add(s, "points", json_object_new_int(npts));
		json_object_object_add(
			s, "talk_row",
			json_object_new_string(i ? "kprobe-per-extra" : "event-per-extra"));
		if (!baseline_find(baseline_csv, i ? "kprobe-per-extra" : "event-per-extra",
				   "overhead", &v, NULL, NULL, 0))
			json_object_object_add(s, "talk_slope_ns", json_object_new_double(v));
		json_object_object_add(f, series[i], s);
	}
	json_object_object_add(top, "linear_fits", f);
	printf("%s\n", json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY));
	json_object_put(top);
}

/* ---- --baseline FILE.csv ------------------------------------------------------------------- */

static bool number(const char *f, bool empty_ok)
{
	char *end;
	double v;

	if (!*f)
		return empty_ok;
	errno = 0;
	v = strtod(f, &end);
	return !errno && !*end && isfinite(v) && v >= 0;
}

/*
 * the columns of data/baseline-klinger-elce2023.csv: method,kind,value,unit,sd,kernel,against,
 * note; '#' lines are comments. 0, or -1 and what is wrong (FILE:LINE: ...) in why
 */
static int baseline_load(const char *path, char *why, size_t size)
{
	char *text = file_slurp(path), *line, *next, *f[9], *p;
	int ln = 0, rows = 0, n;

	if (!text) {
		snprintf(why, size, "--baseline: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	user_csv = strdup(text);
	if (!user_csv) {
		free(text);
		snprintf(why, size, "--baseline: out of memory");
		return -1;
	}
	/* CRLF files: baseline_find() wants plain lines */
	for (p = user_csv, n = 0; *p; p++)
		if (*p != '\r')
			user_csv[n++] = *p;
	user_csv[n] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ln++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		for (n = 0, p = line; n < 9 && p; n++) {
			f[n] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (n != 8 || p)
			snprintf(why, size,
				 "%s:%d: want 8 columns (method,kind,value,unit,sd,kernel,"
				 "against,note), got %d",
				 path, ln, p ? 9 : n);
		else if (!*f[0] ||
			 strspn(f[0], "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(f[0]))
			snprintf(why, size, "%s:%d: bad method '%.40s': want [a-z0-9_-]", path, ln,
				 f[0]);
		else if (strcmp(f[1], "pulse") && strcmp(f[1], "overhead"))
			snprintf(why, size, "%s:%d: bad kind '%.40s': want pulse or overhead", path,
				 ln, f[1]);
		else if (!number(f[2], false))
			snprintf(why, size, "%s:%d: bad value '%.40s': want a number >= 0", path,
				 ln, f[2]);
		else if (strcmp(f[3], "ns"))
			snprintf(why, size, "%s:%d: bad unit '%.40s': want ns", path, ln, f[3]);
		else if (!number(f[4], true))
			snprintf(why, size, "%s:%d: bad sd '%.40s': want a number >= 0 or nothing",
				 path, ln, f[4]);
		else {
			rows++;
			continue;
		}
		free(text);
		return -1;
	}
	free(text);
	if (!rows) {
		snprintf(why, size, "%s: no rows (only comments or empty)", path);
		return -1;
	}
	user_csv_path = path;
	return 0;
}

/* ---- options -------------------------------------------------------------------------------- */

enum {
	OPT_OVERHEAD = 0x200,
	OPT_CLEANUP,
	OPT_QUICK,
	OPT_JSON,
	OPT_REPS,
	OPT_PULSES,
	OPT_ONLY,
	OPT_BTF,
	OPT_LIST,
	OPT_KMOD,
	OPT_BASELINE,
};

static const struct argp_option opts[] = {
	{ "overhead", OPT_OVERHEAD, NULL, 0, "measure what each tracing method adds to a set", 1 },
	{ "cleanup", OPT_CLEANUP, NULL, 0,
	  "remove what an interrupted run left (instance, kprobes, synthetic event, top-level "
	  "tracer) and exit",
	  1 },
	{ "quick", OPT_QUICK, NULL, 0, "3 repetitions of 50-pulse phases (for tests)", 2 },
	{ "reps", OPT_REPS, "N", 0, "repetitions per method (default 5; 2 to 100)", 2 },
	{ "pulses", OPT_PULSES, "N", 0, "pulses per phase (default 100; 20 to 20000)", 2 },
	{ "only", OPT_ONLY, "LIST", 0,
	  "only these methods, comma-separated; NAME* for a prefix (see --list)", 2 },
	{ "list", OPT_LIST, NULL, 0, "list the methods and exit", 2 },
	{ "baseline", OPT_BASELINE, "FILE.csv", 0,
	  "your own scope figures beside the talk's (the columns of "
	  "data/baseline-klinger-elce2023.csv)",
	  2 },
	{ "json", OPT_JSON, NULL, 0, "JSON output (docs/overhead.md)", 3 },
	{ "btf", OPT_BTF, "FILE", 0, "BTF for CO-RE (as gpiolat --btf)", 3 },
	{ "kmod", OPT_KMOD, "FILE", 0,
	  "the toggle.ko to reload for the trace_printk row (default $GPIOLAT_KMOD)", 3 },
	{ "verbose", 'v', NULL, 0, "libbpf's messages", 3 },
	{ "help", 'h', NULL, 0, "show this help", 3 },
	{},
};

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpiolat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see gpiolat --overhead --help)\n");
	o.usage_printed = true;
}

static int count_arg(const char *s, long long min, long long max, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return (!*s || errno || *end || *v < min || *v > max) ? -1 : 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long long v;
	int i;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat --overhead");
		exit(EXIT_OK);
	case OPT_OVERHEAD:
		o.overhead = true;
		break;
	case OPT_CLEANUP:
		o.cleanup = true;
		break;
	case OPT_QUICK:
		o.quick = true;
		break;
	case OPT_JSON:
		o.json = true;
		break;
	case 'v':
		o.verbose = true;
		break;
	case OPT_BTF:
		o.btf_path = arg;
		break;
	case OPT_ONLY:
		o.only = arg;
		break;
	case OPT_BASELINE: {
		char why[WHY + PATH_MAX];

		if (baseline_load(arg, why, sizeof(why))) {
			usage_error("%s", why);
			return EINVAL;
		}
		break;
	}
	case OPT_KMOD:
		if (access(arg, R_OK)) {
			usage_error("cannot read the module '%s': %s", arg, strerror(errno));
			return EINVAL;
		}
		snprintf(kmod_file, sizeof(kmod_file), "%s", arg);
		break;
	case OPT_LIST:
		for (i = 0; i < NMETHODS; i++)
			printf("%-26s %-8s %s\n", methods[i].name, methods[i].group,
			       ref_label(&methods[i]));
		exit(EXIT_OK);
	case OPT_REPS:
		if (count_arg(arg, 2, MAX_REPS, &v)) {
			usage_error("bad repetition count '%s': want 2 to %d", arg, MAX_REPS);
			return EINVAL;
		}
		o.reps = v;
		break;
	case OPT_PULSES:
		if (count_arg(arg, 20, 20000, &v)) {
			usage_error("bad pulses per phase '%s': want 20 to 20000", arg);
			return EINVAL;
		}
		o.pulses = v;
		break;
	case ARGP_KEY_ARG:
		usage_error("unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (o.overhead && o.cleanup) {
			usage_error("--overhead and --cleanup exclude each other");
			return EINVAL;
		}
		if (o.only) {
			char bad[80];

			if (only_check(bad, sizeof(bad))) {
				usage_error("--only: unknown method '%s' (--list shows them)", bad);
				return EINVAL;
			}
		}
		break;
	case ARGP_KEY_ERROR:
		if (!o.usage_printed) {
			int i = state->next > 0 ? state->next - 1 : 0;

			usage_error("unknown option or missing argument: '%s'",
				    i < state->argc ? state->argv[i] : "?");
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool overhead_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--overhead") || !strcmp(argv[i], "--cleanup"))
			return true;
	return false;
}

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return o.verbose ? vfprintf(stderr, fmt, args) : 0;
}

/* ---- main ----------------------------------------------------------------------------------- */

static void read_clock(struct context *cx)
{
	char *s = file_slurp("/sys/kernel/debug/toggle/clock"), *p;
	unsigned long long res = 0;

	snprintf(cx->clock, sizeof(cx->clock), "%s", s ? strtok(s, "\n") ?: "" : "unknown");
	p = strstr(cx->clock, "resolution_ns=");
	if (p) {
		errno = 0;
		res = strtoull(p + 14, NULL, 10);
		if (errno)
			res = 0;
	}
	cx->resolution_ns = res;
	free(s);
}

int overhead_main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg };
	struct sigaction sa = { .sa_handler = sig_handler };
	struct context cx = {};
	struct row *rows = NULL;
	struct stat_acc fl = {};
	struct timespec t0, t1;
	bool found, kfound = false;
	char why[WHY];
	int i, n = 0, err = EXIT_ERROR;

	o.reps = -1;
	o.pulses = -1;
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL))
		return EXIT_USAGE;
	/* ns to 0.1 ns and R^2 to 4 digits alike */
	json_c_set_serialization_double_format("%.6g", JSON_C_OPTION_GLOBAL);
	if (o.reps < 0)
		o.reps = o.quick ? 3 : 5;
	if (o.pulses < 0)
		o.pulses = o.quick ? 50 : 100;
	libbpf_set_print(print_fn);
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root\n");
		return EXIT_ERROR;
	}
	if (!sys_tracefs_dir()) {
		fprintf(stderr, "gpiolat: tracefs is not available (not mounted and cannot be)\n");
		return EXIT_ERROR;
	}
	if (o.cleanup) {
		bool other = false;

		/* every mode's: --overhead's, --syscall-cost's, study/microbench.sh's */
		i = cleanup_others(&other);
		if (cleanup_all(&found) || i) {
			fprintf(stderr, "gpiolat: --cleanup: could not remove %s\n", cleanup_why);
			return EXIT_ERROR;
		}
		printf("gpiolat: %s%s\n",
		       found || other ? "removed the leftovers of an earlier run" :
					"nothing to clean up",
		       tracefs_file_exists(NULL, "kprobe_events") ?
			       "" :
			       " (this kernel has no kprobe events: none to look for)");
		return EXIT_OK;
	}
	/* a run killed in its trace_printk row may have left the module unloaded or changed */
	i = state_dir_open(false, why, sizeof(why));
	if (i < 0) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (i > 0 && kmod_restore_saved(&kfound))
		return EXIT_ERROR;
	if (!toggle_present() || toggle_gpio(&tgpio)) {
		fprintf(stderr, "gpiolat: --overhead needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
		return EXIT_ERROR;
	}
	if (toggle_enabled() != 0) {
		/* a SIGKILLed run's last pulses end by themselves */
		for (i = 0; i < 100 && toggle_enabled() == 1; i++)
			nap(50);
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: the toggle module is toggling (echo 0 > "
					"/sys/kernel/debug/toggle/enable first)\n");
			return EXIT_ERROR;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal or ssh session: put everything back as for Ctrl-C */
	sigaction(SIGHUP, &sa, NULL);
	/* a child that died shows as a failed write, not as our death */
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (cleanup_all(&found)) {
		fprintf(stderr, "gpiolat: leftovers of an earlier run: could not remove %s\n",
			cleanup_why);
		return EXIT_ERROR;
	}
	if ((found || kfound) && !o.json)
		printf("gpiolat: removed the leftovers of an earlier run\n");
	inst = tracefs_instance_create(INSTANCE);
	tep = tracefs_local_events_system(NULL, (const char *[]){ "gpio", NULL });
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	read_clock(&cx);
	cx.emulated = sys_emulated();
	rows = calloc(NMETHODS, sizeof(*rows));
	if (!rows)
		goto out;
	/* warm-up phases, not kept: the first phases after start settle (seen under emulation) */
	for (i = 0; i < WARMUP_PHASES; i++) {
		double d;
		__u64 a = 0, b = 0;

		if (phase(&d, &a, &b)) {
			fprintf(stderr, "gpiolat: the toggle module's warm-up phase failed\n");
			goto out;
		}
		untraced_guess = d;
	}
	for (i = 0; i < NMETHODS && !exiting; i++) {
		if (!selected(&methods[i]))
			continue;
		say("  %-26s ", methods[i].name);
		measure(&methods[i], &rows[n]);
		if (rows[n].measured)
			say("%+9.1f ns per set (95 %% CI +-%.1f, %d reps)\n", rows[n].mean,
			    rows[n].ci, rows[n].reps);
		else
			say("not available: %s\n", rows[n].why);
		n++;
	}
	if (exiting) {
		fprintf(stderr, "gpiolat: interrupted: everything put back as found\n");
		goto out;
	}
	for (i = 0; i < nbase_phase; i++)
		stat_add(&fl, base_phase[i]);
	cx.untraced_mean = fl.mean;
	cx.floor_sd = stat_sd(&fl);
	cx.floor_n = fl.n;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cx.duration_s = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (o.json)
		print_json(rows, n, &cx);
	else
		print_text(rows, n, &cx);
	err = EXIT_OK;
out:
	if (toggle_enabled() == 1)
		toggle_stop();
	child_stop();
	utoggle_stop();
	if (stats_fd >= 0)
		close(stats_fd);
	tep_free(tep);
	tracefs_instance_free(inst);
	inst = NULL;
	if (cleanup_all(&found)) {
		fprintf(stderr,
			"gpiolat: could not put tracefs back as found (gpiolat --cleanup)\n");
		err = EXIT_ERROR;
	}
	free(rows);
	return err;
}
