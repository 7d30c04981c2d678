// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: what each tracing method adds to a syscall, natively
 * (docs/syscall-cost.md).
 *
 * A worker process, pinned to one CPU, issues 1-byte read()s of /dev/zero, 1-byte write()s to
 * /dev/null and ioctl(FIONBIO)s, each through one out-of-line function (sc_call(), also the
 * uprobe's target), in batches timed with CLOCK_MONOTONIC. For each method: baseline run,
 * method run, baseline run, ... (each method run between two untraced ones, so that drift
 * cancels); the first batch of every run is discarded. Added cost per syscall = method batch -
 * the mean of the two baseline runs around it. Every method is tried, never guessed from the
 * kernel version; one the kernel lacks is reported "not available: why".
 *
 * Also here: --syscall-hist (gpiolat's syscall-latency histogram on its own, for make bench)
 * and --empty-raw-tp (an empty BPF program held on a raw tracepoint, for the toggle module's
 * micro-benchmark).
 *
 * One fixed path: parse, set up, for each method (set up, rounds, tear down), print, and one
 * cleanup that undoes whatever is still set up: tracefs events disabled and our instance
 * removed, kprobe/uprobe events removed, strace/perf/bpftrace and the worker killed, BPF links
 * destroyed, the BPF stats fd closed. Signals only set a flag.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "hist.h"
#include "parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "syscall_cost.h"
#include "sys.h"

#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

#define SC_PER_ITER 3 /* read, write, ioctl */
#define MAX_ROUNDS 100
#define MAX_BATCHES 1000 /* per run */
#define MAX_LINKS 6
#define INSTANCE "gpiolat_sc" /* our tracefs instance */
#define PROBE_GROUP "gpiolat_sc" /* our kprobe and uprobe events */
#define READY_TIMEOUT_MS 15000 /* for strace, perf, bpftrace to attach */
#define RUN_TIMEOUT_MS 120000

/* ---- the reference figures (data/baseline-*.csv, embedded by loader/baseline_sc.c) -------- */

extern const char notebook_csv[];
extern const char markers_csv[];

/* ---- the methods ------------------------------------------------------------------------ */

enum kind {
	K_CONTROL,
	K_EVENTS, /* tracefs events in our instance */
	K_BPF_EMPTY, /* empty BPF programs on sys_enter and sys_exit */
	K_BPF_HIST, /* the syscall-latency histogram */
	K_KPROBE_EVENT,
	K_BPF_KPROBE,
	K_UPROBE_EVENT,
	K_BPF_UPROBE,
	K_STRACE,
	K_PERF_TRACE,
	K_BPFTRACE,
};

enum hook {
	HOOK_BTF,
	HOOK_RAW,
	HOOK_TP,
	HOOK_MAX,
};

static const char *const hook_names[HOOK_MAX] = { "tp_btf", "raw_tp", "tp" };

/* K_BPF_HIST: what of the histogram program runs */
enum hist_variant {
	HV_FULL, /* gpiolat's histogram */
	HV_NAIVE, /* the start kept as bpftrace keeps it: update on enter, lookup+delete on exit */
	HV_CLOCK, /* only the two clock reads (the cost breakdown) */
	HV_START, /* the clock reads and the start kept, no histogram (the cost breakdown) */
};

struct method {
	const char *name;
	enum kind kind;
	int arg; /* the hook of K_BPF_EMPTY; the hist_variant of K_BPF_HIST */
	bool extra; /* only when asked for with -m */
	const char *what;
	const char *ref; /* the notebook's row for it, or NULL */
	int hook; /* K_BPF_HIST: this hook only (HOOK_x + 1); 0: --hook, or the cheapest */
};

static const struct method methods[] = {
	{ "control", K_CONTROL, 0, false, "untraced vs untraced (must be 0 within its CI)", NULL },
	{ "syscall-events", K_EVENTS, 0, false,
	  "tracefs: syscalls:sys_enter_{read,write,ioctl} enabled", "syscall-events" },
	{ "raw-syscalls-event", K_EVENTS, 1, false, "tracefs: raw_syscalls:sys_enter enabled",
	  "raw-syscalls-event" },
	{ "bpf-empty-tp", K_BPF_EMPTY, HOOK_TP, false,
	  "empty BPF program, tp/raw_syscalls/sys_enter+sys_exit", NULL },
	{ "bpf-empty-raw-tp", K_BPF_EMPTY, HOOK_RAW, false,
	  "empty BPF program, raw_tp/sys_enter+sys_exit", NULL },
	{ "bpf-empty-tp-btf", K_BPF_EMPTY, HOOK_BTF, false,
	  "empty BPF program, tp_btf/sys_enter+sys_exit", NULL },
	{ "bpf-hist", K_BPF_HIST, HV_FULL, false,
	  "gpiolat's syscall-latency histogram (cheapest hook found)", NULL },
	{ "bpf-hist-naive", K_BPF_HIST, HV_NAIVE, true,
	  "the same, start kept as bpftrace does (update/delete)", NULL },
	{ "bpf-hist-tp-btf", K_BPF_HIST, HV_FULL, true, "the same on tp_btf", NULL,
	  HOOK_BTF + 1 },
	{ "bpf-hist-clock", K_BPF_HIST, HV_CLOCK, true,
	  "the histogram's part: the two clock reads only", NULL },
	{ "bpf-hist-start", K_BPF_HIST, HV_START, true,
	  "the histogram's part: clock reads and the start kept, no histogram", NULL },
	{ "kprobe-event", K_KPROBE_EVENT, 0, false,
	  "tracefs kprobe events on the syscalls' kernel functions", "kprobe-event" },
	{ "bpf-kprobe", K_BPF_KPROBE, 0, false,
	  "empty BPF kprobe on the syscalls' kernel functions", NULL },
	{ "uprobe-event", K_UPROBE_EVENT, 0, false,
	  "tracefs uprobe event on the worker's sc_call()", NULL },
	{ "bpf-uprobe", K_BPF_UPROBE, 0, false, "empty BPF uprobe on the worker's sc_call()",
	  NULL },
	{ "strace", K_STRACE, 0, false, "strace -p on the worker (output to /dev/null)", NULL },
	{ "perf-trace", K_PERF_TRACE, 0, false, "perf trace -p on the worker (output to /dev/null)",
	  NULL },
	{ "bpftrace", K_BPFTRACE, 0, false,
	  "bpftrace ply/syscall-hist.bt (the same histogram as bpf-hist)", NULL },
};

#define NMETHODS ((int)(sizeof(methods) / sizeof(methods[0])))

enum mode {
	MODE_COST,
	MODE_HIST,
	MODE_EMPTY_RAW_TP,
};

struct env {
	enum mode mode;
	bool selected[NMETHODS];
	bool any_selected;
	long rounds, batches, iters;
	int cpu;
	bool json, verbose;
	__u64 duration_ns, interval_ns;
	const char *raw_tp;
	const char *bt_script;
	int hook; /* the histogram's hook; -1: the cheapest that loads */
	bool usage_printed;
};

/* what one method measured */
struct result {
	bool done;
	char why[WHY_SIZE + 32]; /* "not available: ..." when !done */
	const char *hook; /* the hook kept (bpf-hist) */
	const char *start; /* where the histogram keeps the start (bpf-hist) */
	struct stat_acc rounds; /* per round: method mean - baseline mean, ns per syscall */
	double *added; /* per method batch, ns per syscall; sorted */
	int nadded;
	struct stat_acc traced; /* method batches, ns per syscall */
	__u64 run_cnt, run_time_ns; /* BPF run-time stats of its programs */
	int nprogs;
	bool stats;
};

/* everything cleanup must undo */
struct state {
	pid_t worker;
	int cmd_fd, done_fd;
	__u64 *shm; /* the worker's batch times, ns */
	size_t shm_size;
	struct tracefs_instance *inst;
	bool inst_created;
	bool events_on; /* events enabled in inst */
	char probe_events[3][64]; /* "gpiolat_sc/NAME" created in kprobe_events */
	char uprobe_event[64]; /* created in uprobe_events */
	pid_t tool; /* strace, perf, bpftrace */
	char tool_out[64]; /* its output file */
	struct empty_bpf *empty;
	struct syscall_bpf *hist;
	struct bpf_program *hist_progs[2]; /* the pair loaded: sys_enter, sys_exit */
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
	int stats_fd;
	char exe[PATH_MAX];
	unsigned long sc_call_off; /* file offset of sc_call() in exe */
};

static volatile sig_atomic_t exiting;
static bool verbose;

/* ---- the worker ------------------------------------------------------------------------- */

/* every syscall of the worker goes through here: the uprobe's target, in every run alike */
__attribute__((noinline, used)) long gpiolat_sc_call(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

struct worker_cmd {
	long batches; /* 0: exit */
	long iters;
};

static void worker(int cpu, int cmd_fd, int done_fd, __u64 *shm)
{
	struct worker_cmd c;
	cpu_set_t set;
	char buf[1] = { 0 };
	int zfd, nfd, off = 0;
	long b, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the loader stops us (a terminal's Ctrl-C or hangup reaches our process group) */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
	zfd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	nfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (zfd < 0 || nfd < 0)
		_exit(4);
	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c) && c.batches > 0) {
		/* batch 0 warms up and is not kept */
		for (b = 0; b <= c.batches; b++) {
			__u64 t0 = mono_ns();

			for (i = 0; i < c.iters; i++) {
				gpiolat_sc_call(SYS_read, zfd, (long)buf, 1);
				gpiolat_sc_call(SYS_write, nfd, (long)buf, 1);
				gpiolat_sc_call(SYS_ioctl, nfd, FIONBIO, (long)&off);
			}
			if (b)
				shm[b - 1] = mono_ns() - t0;
		}
		if (write(done_fd, "d", 1) != 1)
			break;
	}
	_exit(0);
}

static int worker_start(struct state *s, const struct env *env, char *why, size_t size)
{
	int cmd[2], done[2];

	s->shm_size = MAX_BATCHES * sizeof(__u64);
	s->shm = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		snprintf(why, size, "cannot map the worker's memory: %s", strerror(errno));
		return -1;
	}
	if (pipe2(cmd, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->worker = fork();
	if (s->worker < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		s->worker = 0;
		return -1;
	}
	if (!s->worker) {
		close(cmd[1]);
		close(done[0]);
		worker(env->cpu, cmd[0], done[1], s->shm);
	}
	close(cmd[0]);
	close(done[1]);
	s->cmd_fd = cmd[1];
	s->done_fd = done[0];
	return 0;
}

/* one run of the worker: n batches, ns per syscall of each in out[]; -1 on error or signal */
static int worker_run(struct state *s, const struct env *env, double *out, char *why, size_t size)
{
	struct worker_cmd c = { .batches = env->batches, .iters = env->iters };
	struct pollfd p = { .fd = s->done_fd, .events = POLLIN };
	__u64 deadline = mono_ns() + RUN_TIMEOUT_MS * 1000000ULL;
	char d;
	long i;
	int r;

	if (write(s->cmd_fd, &c, sizeof(c)) != sizeof(c)) {
		snprintf(why, size, "the worker is gone: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (exiting) {
			snprintf(why, size, "interrupted");
			return -1;
		}
		r = poll(&p, 1, 100);
		if (r < 0 && errno != EINTR) {
			snprintf(why, size, "poll: %s", strerror(errno));
			return -1;
		}
		if (r > 0)
			break;
		if (mono_ns() > deadline) {
			snprintf(why, size, "the worker did not finish a run within %d s",
				 RUN_TIMEOUT_MS / 1000);
			return -1;
		}
	}
	if (read(s->done_fd, &d, 1) != 1) {
		snprintf(why, size, "the worker died");
		return -1;
	}
	for (i = 0; i < env->batches; i++)
		out[i] = (double)s->shm[i] / (env->iters * SC_PER_ITER);
	return 0;
}

/* ---- child tools: strace, perf trace, bpftrace ------------------------------------------- */

/* start argv with stdout and stderr to a temporary file (s->tool_out) */
static int tool_spawn(struct state *s, char *const argv[], char *why, size_t size)
{
	int fd;

	snprintf(s->tool_out, sizeof(s->tool_out), "/tmp/gpiolat-sc.XXXXXX");
	fd = mkostemp(s->tool_out, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "mkstemp: %s", strerror(errno));
		s->tool_out[0] = '\0';
		return -1;
	}
	fflush(NULL);
	s->tool = fork();
	if (s->tool < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		s->tool = 0;
		close(fd);
		return -1;
	}
	if (!s->tool) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* Ctrl-C reaches us through the loader, which stops the tool itself */
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd);
	return 0;
}

/* the tool's output, first line */
static void tool_first_line(const struct state *s, char *buf, size_t size)
{
	FILE *f = fopen(s->tool_out, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static bool tool_output_has(const struct state *s, const char *word)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(s->tool_out, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, word) != NULL;
	fclose(f);
	return found;
}

static bool tool_alive(struct state *s)
{
	int st;

	return s->tool && waitpid(s->tool, &st, WNOHANG) == 0;
}

static void tool_stop(struct state *s)
{
	int st, i;

	if (s->tool) {
		kill(s->tool, SIGINT);
		for (i = 0; i < 100 && waitpid(s->tool, &st, WNOHANG) == 0; i++)
			poll(NULL, 0, 20);
		if (i == 100) {
			kill(s->tool, SIGKILL);
			waitpid(s->tool, &st, 0);
		}
		s->tool = 0;
	}
	if (s->tool_out[0]) {
		unlink(s->tool_out);
		s->tool_out[0] = '\0';
	}
}

/* is the worker traced (ptrace) yet? */
static bool worker_traced(const struct state *s)
{
	char path[64], line[256];
	bool traced = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", s->worker);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			traced = strtol(line + 10, NULL, 10) != 0;
	fclose(f);
	return traced;
}

/* how many perf_event fds the tool holds */
static int tool_perf_fds(const struct state *s)
{
	char path[PATH_MAX], link[256];
	struct dirent *e;
	int n = 0;
	ssize_t len;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", s->tool);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", s->tool, e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		n += !strcmp(link, "anon_inode:[perf_event]");
	}
	closedir(d);
	return n;
}

/* the BPF program ids the tool holds (from /proc/PID/fdinfo) */
static int tool_prog_ids(const struct state *s, __u32 *ids, int max)
{
	char path[PATH_MAX], line[256];
	struct dirent *e;
	int n = 0, i;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", s->tool);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", s->tool, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && n < max) {
			unsigned long id;

			if (sscanf(line, "prog_id: %lu", &id) != 1)
				continue;
			for (i = 0; i < n && ids[i] != id; i++)
				;
			if (i == n)
				ids[n++] = id;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/* wait until ready(s) or the tool dies; why: its first line of output */
static int tool_wait(struct state *s, bool (*ready)(struct state *), const char *name, char *why,
		     size_t size)
{
	char first[200];
	int ms;

	for (ms = 0; ms < READY_TIMEOUT_MS && !exiting; ms += 20) {
		if (ready(s)) {
			poll(NULL, 0, 50); /* the last probes of the set */
			return 0;
		}
		if (!tool_alive(s)) {
			s->tool = 0;
			tool_first_line(s, first, sizeof(first));
			snprintf(why, size, "%s exited before tracing: %s", name,
				 first[0] ? first : "(no output)");
			return -1;
		}
		poll(NULL, 0, 20);
	}
	snprintf(why, size, exiting ? "interrupted" : "%s did not start tracing within %d s", name,
		 READY_TIMEOUT_MS / 1000);
	return -1;
}

static bool strace_ready(struct state *s)
{
	return worker_traced(s);
}

static bool perf_ready(struct state *s)
{
	return tool_perf_fds(s) > 0;
}

static bool bpftrace_ready(struct state *s)
{
	return tool_output_has(s, "Attaching");
}

/* ---- tracefs events, kprobe and uprobe events --------------------------------------------- */

static int instance_get(struct state *s, char *why, size_t size)
{
	if (s->inst)
		return 0;
	if (!tracefs_tracing_dir()) {
		snprintf(why, size,
			 "tracefs is not available (no CONFIG_FTRACE, or it cannot be "
			 "mounted at /sys/kernel/tracing)");
		return -1;
	}
	s->inst = tracefs_instance_create(INSTANCE);
	if (!s->inst) {
		snprintf(why, size, "cannot create the tracefs instance %s: %s", INSTANCE,
			 strerror(errno));
		return -1;
	}
	s->inst_created = tracefs_instance_is_new(s->inst);
	return 0;
}

/* instance names starting with a prefix, collected by tracefs_instances_walk() */
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

#define PROBES                                                                            \
	(TRACEFS_DYNEVENT_KPROBE | TRACEFS_DYNEVENT_KRETPROBE | TRACEFS_DYNEVENT_UPROBE | \
	 TRACEFS_DYNEVENT_URETPROBE)

int tracefs_leftovers_remove(const char *inst_prefix, const char *group, bool *found, char *why,
			     size_t size)
{
	struct tracefs_dynevent **dev;
	struct inst_list l = { .prefix = inst_prefix };
	int i, j, err = 0;

	/* the instances first: an event enabled in one cannot be removed */
	tracefs_instances_walk(inst_collect, &l);
	for (i = 0; i < l.n; i++) {
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, l.names[i]);

		*found = true;
		if (!old) {
			err = -1;
			snprintf(why, size, "the tracefs instance %s: %s", l.names[i],
				 strerror(errno));
			continue;
		}
		tracefs_tracer_clear(old);
		tracefs_event_disable(old, NULL, NULL);
		/* a killed run's process may hold one of its files open a moment longer */
		for (j = 0; tracefs_instance_destroy(old) && j < 150; j++)
			poll(NULL, 0, 20);
		if (j == 150) {
			err = -1;
			snprintf(why, size, "the tracefs instance %s: %s", l.names[i],
				 strerror(errno));
		}
		tracefs_instance_free(old);
	}
	/* no probe events in the kernel: nothing of ours can be there */
	if (!tracefs_file_exists(NULL, "kprobe_events") &&
	    !tracefs_file_exists(NULL, "uprobe_events"))
		return err;
	/* removing a uprobe can take its uretprobe on the same place along: list again after */
	dev = tracefs_dynevent_get_all(PROBES, group);
	for (i = 0; dev && dev[i]; i++) {
		*found = true;
		tracefs_dynevent_destroy(dev[i], true);
	}
	tracefs_dynevent_list_free(dev);
	dev = tracefs_dynevent_get_all(PROBES, group);
	if (dev && dev[0]) {
		char *ev = NULL;

		tracefs_dynevent_info(dev[0], NULL, &ev, NULL, NULL, NULL);
		err = -1;
		snprintf(why, size, "the probe event %s/%s", group, ev ? ev : "?");
		free(ev);
	}
	tracefs_dynevent_list_free(dev);
	return err;
}

static void events_off(struct state *s)
{
	if (s->inst && s->events_on)
		tracefs_event_disable(s->inst, NULL, NULL);
	s->events_on = false;
}

static int events_on(struct state *s, const char *system, const char *regex, char *why, size_t size)
{
	if (instance_get(s, why, size))
		return -1;
	if (tracefs_event_enable(s->inst, system, regex)) {
		snprintf(why, size, "cannot enable %s:%s in tracefs: %s", system, regex,
			 strerror(errno ? errno : ENOENT));
		tracefs_event_disable(s->inst, NULL, NULL);
		return -1;
	}
	s->events_on = true;
	return 0;
}

/* the kernel function of a syscall: __x64_sys_read, __arm64_sys_read, sys_read, ... */
static int syscall_function(const char *sc, char *out, size_t size)
{
	static const char *const prefixes[] = { "__x64_sys_", "__arm64_sys_", "__riscv_sys_",
						"__s390x_sys_", "sys_" };
	char line[512], sym[256], want[5][64];
	int best = 5, i;
	FILE *f;

	for (i = 0; i < 5; i++)
		snprintf(want[i], sizeof(want[i]), "%s%s", prefixes[i], sc);
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char type;

		if (sscanf(line, "%*s %c %255s", &type, sym) != 2 || (type != 'T' && type != 't'))
			continue;
		for (i = 0; i < best; i++)
			if (!strcmp(sym, want[i]))
				best = i;
	}
	fclose(f);
	if (best == 5)
		return -1;
	snprintf(out, size, "%s", want[best]);
	return 0;
}

static const char *const traced_syscalls[3] = { "read", "write", "ioctl" };

static bool kprobe_pmu(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", R_OK);
}

static void kprobe_events_remove(struct state *s)
{
	char cmd[96];
	int i;

	events_off(s);
	for (i = 0; i < 3; i++) {
		if (!s->probe_events[i][0])
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s\n", s->probe_events[i]);
		if (tracefs_instance_file_append(NULL, "kprobe_events", cmd) < 0)
			fprintf(stderr, "gpiolat: cannot remove the kprobe event %s: %s\n",
				s->probe_events[i], strerror(errno));
		s->probe_events[i][0] = '\0';
	}
}

static int kprobe_events_add(struct state *s, char *why, size_t size)
{
	char fn[64], cmd[160];
	int i;

	if (instance_get(s, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		snprintf(why, size,
			 "this kernel has no kprobes: no kprobe_events in tracefs%s "
			 "(CONFIG_KPROBES / CONFIG_KPROBE_EVENTS off)",
			 kprobe_pmu() ? "" : " and no kprobe PMU");
		return -1;
	}
	for (i = 0; i < 3; i++) {
		if (syscall_function(traced_syscalls[i], fn, sizeof(fn))) {
			snprintf(why, size,
				 "no kernel function for the %s syscall in /proc/kallsyms",
				 traced_syscalls[i]);
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "p:%s/sc_%s %s\n", PROBE_GROUP, traced_syscalls[i], fn);
		if (tracefs_instance_file_append(NULL, "kprobe_events", cmd) < 0) {
			snprintf(why, size, "cannot create a kprobe event on %s: %s", fn,
				 strerror(errno));
			return -1;
		}
		snprintf(s->probe_events[i], sizeof(s->probe_events[i]), "%s/sc_%s", PROBE_GROUP,
			 traced_syscalls[i]);
	}
	return 0;
}

static void uprobe_event_remove(struct state *s)
{
	char cmd[96];

	events_off(s);
	if (!s->uprobe_event[0])
		return;
	snprintf(cmd, sizeof(cmd), "-:%s\n", s->uprobe_event);
	if (tracefs_instance_file_append(NULL, "uprobe_events", cmd) < 0)
		fprintf(stderr, "gpiolat: cannot remove the uprobe event %s: %s\n", s->uprobe_event,
			strerror(errno));
	s->uprobe_event[0] = '\0';
}

static int uprobe_event_add(struct state *s, char *why, size_t size)
{
	char cmd[PATH_MAX + 128];

	if (instance_get(s, why, size))
		return -1;
	if (!tracefs_file_exists(NULL, "uprobe_events")) {
		snprintf(why, size,
			 "this kernel has no uprobe events: no uprobe_events in tracefs "
			 "(CONFIG_UPROBE_EVENTS off)");
		return -1;
	}
	if (!s->sc_call_off) {
		snprintf(why, size, "cannot find sc_call() in %.150s (/proc/self/maps)", s->exe);
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "p:%s/sc_call %s:0x%lx\n", PROBE_GROUP, s->exe, s->sc_call_off);
	if (tracefs_instance_file_append(NULL, "uprobe_events", cmd) < 0) {
		snprintf(why, size, "cannot create a uprobe event on %.150s:0x%lx: %s", s->exe,
			 s->sc_call_off, strerror(errno));
		return -1;
	}
	snprintf(s->uprobe_event, sizeof(s->uprobe_event), "%s/sc_call", PROBE_GROUP);
	return 0;
}

/* the file offset of gpiolat_sc_call() in our executable, from /proc/self/maps */
static unsigned long sc_call_offset(const char *exe)
{
	unsigned long addr = (unsigned long)&gpiolat_sc_call, lo, hi, off;
	char line[PATH_MAX + 128], path[PATH_MAX];
	unsigned long found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &off, path) < 3)
			continue;
		if (addr >= lo && addr < hi && !strcmp(path, exe)) {
			found = addr - lo + off;
			break;
		}
	}
	fclose(f);
	return found;
}

/* ---- BPF ------------------------------------------------------------------------------- */

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (!verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void links_destroy(struct state *s)
{
	while (s->nlinks > 0)
		bpf_link__destroy(s->links[--s->nlinks]);
}

static void bpf_unload(struct state *s)
{
	links_destroy(s);
	empty_bpf__destroy(s->empty);
	s->empty = NULL;
	syscall_bpf__destroy(s->hist);
	s->hist = NULL;
}

static const char *errstr(int err, char *buf, size_t size)
{
	err = err < 0 ? -err : err;
	if (err == 524)
		snprintf(buf, size,
			 "error 524 (ENOTSUPP): not supported by this kernel or its JIT");
	else
		snprintf(buf, size, "%s", strerror(err));
	return buf;
}

/* the empty programs named, loaded alone */
static int empty_load(struct state *s, const char *const *keep, int n, char *why, size_t size)
{
	struct bpf_program *p;
	char buf[96];
	int err, i;

	s->empty = empty_bpf__open();
	if (!s->empty) {
		snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(p, s->empty->obj) {
		bool k = false;

		for (i = 0; i < n; i++)
			k |= !strcmp(bpf_program__name(p), keep[i]);
		bpf_program__set_autoload(p, k);
	}
	err = empty_bpf__load(s->empty);
	if (err) {
		p = bpf_object__find_program_by_name(s->empty->obj, keep[0]);
		snprintf(why, size, "loading %s failed: %s (gpiolat -v shows why)",
			 p ? bpf_program__section_name(p) : keep[0], errstr(err, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

static int link_add(struct state *s, struct bpf_link *l, const char *what, char *why, size_t size)
{
	char buf[96];
	int err = libbpf_get_error(l);

	if (!l || err) {
		snprintf(why, size, "attaching %s failed: %s", what,
			 errstr(err ? err : errno, buf, sizeof(buf)));
		return -1;
	}
	s->links[s->nlinks++] = l;
	return 0;
}

/* the empty pair for a hook (programs looked up by name in a fresh skeleton) */
static int empty_pair(enum hook h, const char **enter, const char **exit_)
{
	static const char *const names[HOOK_MAX][2] = {
		{ "empty_btf_enter", "empty_btf_exit" },
		{ "empty_raw_enter", "empty_raw_exit" },
		{ "empty_tp_enter", "empty_tp_exit" },
	};

	*enter = names[h][0];
	*exit_ = names[h][1];
	return 0;
}

static int empty_setup(struct state *s, enum hook h, char *why, size_t size)
{
	const char *keep[2];

	empty_pair(h, &keep[0], &keep[1]);
	return empty_load(s, keep, 2, why, size);
}

static int empty_attach(struct state *s, enum hook h, char *why, size_t size)
{
	const char *names[2];
	int i;

	empty_pair(h, &names[0], &names[1]);
	for (i = 0; i < 2; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(s->empty->obj, names[i]);

		if (link_add(s, bpf_program__attach(p), bpf_program__section_name(p), why, size))
			return -1;
	}
	return 0;
}

/* the programs of variant v on hook h: enter (exit_ 0) or exit (exit_ 1) */
static struct bpf_program *hist_prog(struct syscall_bpf *skel, enum hist_variant v, enum hook h,
				     int exit_)
{
	struct bpf_program *p[HOOK_MAX][2] = {
		{ skel->progs.sc_btf_enter, skel->progs.sc_btf_exit },
		{ skel->progs.sc_raw_enter, skel->progs.sc_raw_exit },
		{ skel->progs.sc_tp_enter, skel->progs.sc_tp_exit },
	};

	/* the cost breakdown's parts: raw_tp only */
	if (v == HV_CLOCK)
		return exit_ ? skel->progs.sc_clock_exit : skel->progs.sc_clock_enter;
	if (v == HV_START)
		return exit_ ? skel->progs.sc_start_exit : skel->progs.sc_raw_enter;
	return p[h][exit_];
}

/*
 * The histogram's hook and where it keeps the start, cheapest first, each tried by loading it
 * (the verifier decides, never the kernel version). raw_tp and tp_btf cost the same per run;
 * raw_tp comes first because libbpf then needs no vmlinux BTF (tp_btf attaches by BTF name:
 * libbpf parses the kernel's whole BTF, some 5 MiB, about 11 MiB of peak RSS). Task storage
 * (bpf_get_current_task_btf(), bpf_task_storage_get()) beats the LRU hash by about 35 ns a
 * run; kernels before 5.11 have no task storage, hence the hash.
 */
static const struct {
	enum hook hook;
	bool task_storage;
} hist_choices[] = {
	{ HOOK_RAW, true }, { HOOK_BTF, true }, { HOOK_RAW, false },
	{ HOOK_TP, true },  { HOOK_TP, false },
};

static const char *const start_names[] = { "LRU hash", "task storage", "hash, update/delete" };

/*
 * the histogram programs (variant v) on the first of hist_choices that loads, on hook only
 * if only >= 0; *start: where it keeps the start. GPIOLAT_SC_LRU=1 (a diagnostic): no task
 * storage.
 */
static int hist_setup(struct state *s, enum hist_variant v, int only, enum hook *hook,
		      const char **start, char *why, size_t size)
{
	char buf[96], tried[5 * 120] = "";
	struct bpf_program *p;
	size_t len = 0;
	int c, h, err;
	bool ts;

	for (c = 0; c < (int)(sizeof(hist_choices) / sizeof(hist_choices[0])); c++) {
		h = hist_choices[c].hook;
		ts = hist_choices[c].task_storage;
		if ((only >= 0 && h != only) ||
		    (ts && (v == HV_NAIVE || getenv("GPIOLAT_SC_LRU"))) ||
		    ((v == HV_CLOCK || v == HV_START) && h != HOOK_RAW))
			continue;
		s->hist = syscall_bpf__open();
		if (!s->hist) {
			snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
			return -1;
		}
		bpf_object__for_each_program(p, s->hist->obj)
			bpf_program__set_autoload(p, false);
		bpf_program__set_autoload(hist_prog(s->hist, v, h, 0), true);
		bpf_program__set_autoload(hist_prog(s->hist, v, h, 1), true);
		s->hist->rodata->naive = v == HV_NAIVE;
		s->hist->rodata->task_storage = ts;
		/* only the start's map in use is created (the LRU hash is pre-allocated) */
		bpf_map__set_autocreate(s->hist->maps.sc_task_starts, ts);
		bpf_map__set_autocreate(s->hist->maps.sc_starts, !ts);
		err = syscall_bpf__load(s->hist);
		if (!err) {
			s->hist_progs[0] = hist_prog(s->hist, v, h, 0);
			s->hist_progs[1] = hist_prog(s->hist, v, h, 1);
			*hook = h;
			/* the clock reads alone keep no start */
			*start = v == HV_CLOCK ? NULL : start_names[v == HV_NAIVE ? 2 : ts];
			return 0;
		}
		len += snprintf(tried + len, sizeof(tried) - len, "%s%s with the %s: %s",
				len ? "; " : "", hook_names[h], start_names[ts],
				errstr(err, buf, sizeof(buf)));
		syscall_bpf__destroy(s->hist);
		s->hist = NULL;
		if (len >= sizeof(tried))
			len = sizeof(tried) - 1;
	}
	snprintf(why, size, "no hook loads the histogram programs (%s)", tried);
	return -1;
}

static int hist_attach(struct state *s, char *why, size_t size)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct bpf_program *p = s->hist_progs[i];

		if (link_add(s, bpf_program__attach(p), bpf_program__section_name(p), why, size))
			return -1;
	}
	return 0;
}

/* add the run-time stats of a program (by fd) to r */
static void prog_stats_add(int fd, struct result *r)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	r->run_cnt += info.run_cnt;
	r->run_time_ns += info.run_time_ns;
	r->nprogs++;
}

static void prog_stats_obj(struct bpf_object *obj, struct result *r)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) >= 0)
			prog_stats_add(bpf_program__fd(p), r);
	}
}

static void prog_stats_tool(struct state *s, struct result *r)
{
	__u32 ids[32];
	int n = tool_prog_ids(s, ids, 32), i, fd;

	for (i = 0; i < n; i++) {
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		prog_stats_add(fd, r);
		close(fd);
	}
}

/* ---- one method: set up, attach, detach, tear down ---------------------------------------- */

/* set up what stays for all rounds (programs loaded, probe events created) */
static int method_setup(struct state *s, const struct env *env, const struct method *m,
			struct result *r, enum hook *hook, char *why, size_t size)
{
	char path[PATH_MAX];

	switch (m->kind) {
	case K_CONTROL:
	case K_EVENTS:
		return 0;
	case K_BPF_EMPTY:
		*hook = m->arg;
		return empty_setup(s, m->arg, why, size);
	case K_BPF_HIST:
		if (hist_setup(s, m->arg, m->hook ? m->hook - 1 : env->hook, hook, &r->start, why,
			       size))
			return -1;
		r->hook = hook_names[*hook];
		return 0;
	case K_KPROBE_EVENT:
		return kprobe_events_add(s, why, size);
	case K_BPF_KPROBE:
		if (!kprobe_pmu() &&
		    !(tracefs_tracing_dir() && tracefs_file_exists(NULL, "kprobe_events"))) {
			snprintf(why, size,
				 "this kernel has no kprobes: no kprobe PMU and no kprobe_events "
				 "in tracefs (CONFIG_KPROBES off)");
			return -1;
		}
		return empty_load(s, (const char *[]){ "empty_kprobe" }, 1, why, size);
	case K_BPF_UPROBE:
		if (!s->sc_call_off) {
			snprintf(why, size, "cannot find sc_call() in %.150s (/proc/self/maps)",
				 s->exe);
			return -1;
		}
		return empty_load(s, (const char *[]){ "empty_uprobe" }, 1, why, size);
	case K_UPROBE_EVENT:
		return uprobe_event_add(s, why, size);
	case K_STRACE:
		if (!sys_find_program("strace", path, sizeof(path))) {
			snprintf(why, size, "strace not installed");
			return -1;
		}
		return 0;
	case K_PERF_TRACE:
		if (!sys_find_program("perf", path, sizeof(path))) {
			snprintf(why, size, "perf not installed");
			return -1;
		}
		return 0;
	case K_BPFTRACE:
		if (!sys_find_program("bpftrace", path, sizeof(path))) {
			snprintf(why, size, "bpftrace not installed");
			return -1;
		}
		if (!env->bt_script || access(env->bt_script, R_OK)) {
			snprintf(why, size,
				 "the script ply/syscall-hist.bt was not found (give it with "
				 "--bpftrace-script FILE)");
			return -1;
		}
		return 0;
	}
	return -1;
}

static int method_attach(struct state *s, const struct env *env, const struct method *m,
			 struct result *r, enum hook hook, char *why, size_t size)
{
	char path[PATH_MAX], pid[16];
	struct bpf_program *p;
	char fn[64];
	int i;

	switch (m->kind) {
	case K_CONTROL:
		return 0;
	case K_EVENTS:
		if (m->arg)
			return events_on(s, "raw_syscalls", "^sys_enter$", why, size);
		/* libtracefs takes a POSIX basic regex: one event at a time */
		for (i = 0; i < 3; i++) {
			snprintf(fn, sizeof(fn), "^sys_enter_%s$", traced_syscalls[i]);
			if (events_on(s, "syscalls", fn, why, size))
				return -1;
		}
		return 0;
	case K_BPF_EMPTY:
		return empty_attach(s, hook, why, size);
	case K_BPF_HIST:
		return hist_attach(s, why, size);
	case K_KPROBE_EVENT:
	case K_UPROBE_EVENT:
		return events_on(s, PROBE_GROUP, NULL, why, size);
	case K_BPF_KPROBE:
		p = bpf_object__find_program_by_name(s->empty->obj, "empty_kprobe");
		for (i = 0; i < 3; i++) {
			if (syscall_function(traced_syscalls[i], fn, sizeof(fn))) {
				snprintf(why, size, "no kernel function for the %s syscall",
					 traced_syscalls[i]);
				return -1;
			}
			if (link_add(s, bpf_program__attach_kprobe(p, false, fn), fn, why, size))
				return -1;
		}
		return 0;
	case K_BPF_UPROBE:
		p = bpf_object__find_program_by_name(s->empty->obj, "empty_uprobe");
		return link_add(
			s, bpf_program__attach_uprobe(p, false, s->worker, s->exe, s->sc_call_off),
			"a uprobe on sc_call()", why, size);
	case K_STRACE:
		sys_find_program("strace", path, sizeof(path));
		snprintf(pid, sizeof(pid), "%d", s->worker);
		if (tool_spawn(s, (char *[]){ path, "-q", "-o", "/dev/null", "-p", pid, NULL }, why,
			       size))
			return -1;
		return tool_wait(s, strace_ready, "strace", why, size);
	case K_PERF_TRACE:
		sys_find_program("perf", path, sizeof(path));
		snprintf(pid, sizeof(pid), "%d", s->worker);
		if (tool_spawn(s, (char *[]){ path, "trace", "-o", "/dev/null", "-p", pid, NULL },
			       why, size))
			return -1;
		return tool_wait(s, perf_ready, "perf trace", why, size);
	case K_BPFTRACE:
		sys_find_program("bpftrace", path, sizeof(path));
		if (tool_spawn(s, (char *[]){ path, (char *)env->bt_script, NULL }, why, size))
			return -1;
		return tool_wait(s, bpftrace_ready, "bpftrace", why, size);
	}
	return -1;
}

static void method_detach(struct state *s, const struct method *m, struct result *r)
{
	switch (m->kind) {
	case K_EVENTS:
	case K_KPROBE_EVENT:
	case K_UPROBE_EVENT:
		events_off(s);
		break;
	case K_STRACE:
	case K_PERF_TRACE:
		tool_stop(s);
		break;
	case K_BPFTRACE:
		prog_stats_tool(s, r);
		tool_stop(s);
		break;
	default:
		links_destroy(s);
	}
}

static void method_teardown(struct state *s, const struct method *m, struct result *r)
{
	if (s->empty)
		prog_stats_obj(s->empty->obj, r);
	if (s->hist)
		prog_stats_obj(s->hist->obj, r);
	events_off(s);
	kprobe_events_remove(s);
	uprobe_event_remove(s);
	tool_stop(s);
	bpf_unload(s);
}

/* ---- statistics ------------------------------------------------------------------------ */

/* the p-quantile of sorted values, linear between closest ranks */
static double quantile(const double *v, int n, double p)
{
	double rank;
	int i;

	if (!n)
		return NAN;
	rank = p * (n - 1);
	i = (int)rank;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (v[i + 1] - v[i]) * (rank - i);
}

/*
 * A run's figure: the median of its batches. On shared CPUs a batch that was preempted costs
 * 10x the others; one in a baseline run would shift every difference of two rounds.
 */
static double run_figure(const double *v, int n)
{
	double *c = malloc(n * sizeof(*c)), m;

	if (!c || !n) {
		free(c);
		return NAN;
	}
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	m = quantile(c, n, 0.5);
	free(c);
	return m;
}

/* ---- the measurement --------------------------------------------------------------------- */

static int measure(struct state *s, const struct env *env, int mi, struct result *r,
		   struct stat_acc *untraced)
{
	const struct method *m = &methods[mi];
	double *base = NULL, *meth = NULL, bprev, bnext;
	enum hook hook = HOOK_TP;
	char why[WHY_SIZE];
	long rd, i;
	int err = -1;

	base = calloc(env->batches, sizeof(*base));
	meth = calloc(env->batches, sizeof(*meth));
	r->added = calloc(env->rounds * env->batches, sizeof(*r->added));
	if (!base || !meth || !r->added) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		goto out;
	}
	if (method_setup(s, env, m, r, &hook, why, sizeof(why))) {
		snprintf(r->why, sizeof(r->why), "not available: %s", why);
		method_teardown(s, m, r);
		err = 0;
		goto out;
	}
	if (worker_run(s, env, base, why, sizeof(why)))
		goto fail;
	bprev = run_figure(base, env->batches);
	for (i = 0; i < env->batches; i++)
		stat_add(untraced, base[i]);
	for (rd = 0; rd < env->rounds && !exiting; rd++) {
		if (method_attach(s, env, m, r, hook, why, sizeof(why))) {
			method_detach(s, m, r);
			if (rd == 0 && !exiting) {
				/* the first attach failing: the kernel lacks it */
				snprintf(r->why, sizeof(r->why), "not available: %s", why);
				method_teardown(s, m, r);
				memset(&r->rounds, 0, sizeof(r->rounds));
				err = 0;
				goto out;
			}
			goto fail;
		}
		if (worker_run(s, env, meth, why, sizeof(why))) {
			method_detach(s, m, r);
			goto fail;
		}
		method_detach(s, m, r);
		if (worker_run(s, env, base, why, sizeof(why)))
			goto fail;
		bnext = run_figure(base, env->batches);
		for (i = 0; i < env->batches; i++) {
			double b = (bprev + bnext) / 2;

			stat_add(untraced, base[i]);
			stat_add(&r->traced, meth[i]);
			r->added[r->nadded++] = meth[i] - b;
		}
		stat_add(&r->rounds, run_figure(meth, env->batches) - (bprev + bnext) / 2);
		bprev = bnext;
	}
	if (exiting) {
		snprintf(why, sizeof(why), "interrupted");
		goto fail;
	}
	method_teardown(s, m, r);
	qsort(r->added, r->nadded, sizeof(*r->added), cmp_double);
	r->stats = s->stats_fd >= 0;
	r->done = true;
	err = 0;
	goto out;
fail:
	snprintf(r->why, sizeof(r->why), "failed: %s", why);
	method_teardown(s, m, r);
out:
	free(base);
	free(meth);
	return err;
}

/* ---- output ----------------------------------------------------------------------------- */

struct ref {
	const char *csv, *method, *kind;
};

static const char *method_ref(const char *name)
{
	int i;

	for (i = 0; i < NMETHODS; i++)
		if (!strcmp(methods[i].name, name))
			return methods[i].ref;
	return NULL;
}

static void fmt_ns(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", v);
}

static void print_text(const struct env *env, struct result *res, const struct stat_acc *untraced,
		       const char *cpu_note)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], refs[64], bpf[64], note[200];
	double v, sd;
	struct utsname u;
	int i;

	uname(&u);
	printf("gpiolat --syscall-cost: ns added per syscall (1-byte read of /dev/zero, 1-byte "
	       "write to /dev/null, ioctl FIONBIO)\n");
	printf("%s %s %s; worker on CPU %d%s; %ld rounds of (untraced run, traced run), %ld "
	       "batches of %ld syscalls per run, CLOCK_MONOTONIC%s\n",
	       u.sysname, u.release, u.machine, env->cpu, cpu_note, env->rounds, env->batches,
	       env->iters * SC_PER_ITER, sys_emulated() ? " (EMULATED: not real hardware)" : "");
	fmt_ns(a, sizeof(a), untraced->mean);
	fmt_ns(b, sizeof(b), stat_sd(untraced));
	fmt_ns(c, sizeof(c), untraced->min);
	if (!baseline_find(notebook_csv, "untraced", "syscall", &v, NULL, NULL, 0))
		snprintf(refs, sizeof(refs), "; notebook (i7-3537U): %.0f ns", v);
	else
		refs[0] = '\0';
	printf("untraced syscall: mean %s ns, sd %s ns, min %s ns per syscall (%llu batches)%s\n",
	       a, b, c, (unsigned long long)untraced->n, refs);
	printf("\n%-19s %9s %9s %9s %9s %9s %7s %18s %8s  %s\n", "method", "mean", "95% CI", "p50",
	       "p90", "p99", "batches", "BPF ns/run", "notebook", "(ns per syscall)");
	for (i = 0; i < NMETHODS; i++) {
		struct result *r = &res[i];

		if (!env->selected[i])
			continue;
		if (!r->done) {
			printf("%-19s %s\n", methods[i].name, r->why[0] ? r->why : "not run");
			continue;
		}
		fmt_ns(a, sizeof(a), r->rounds.mean);
		snprintf(b, sizeof(b), "±%.1f", stat_ci95(&r->rounds));
		fmt_ns(c, sizeof(c), quantile(r->added, r->nadded, 0.50));
		fmt_ns(d, sizeof(d), quantile(r->added, r->nadded, 0.90));
		fmt_ns(e, sizeof(e), quantile(r->added, r->nadded, 0.99));
		if (r->run_cnt)
			snprintf(bpf, sizeof(bpf), "%.1f (%llu)",
				 (double)r->run_time_ns / r->run_cnt,
				 (unsigned long long)r->run_cnt);
		else
			snprintf(bpf, sizeof(bpf), "-");
		f[0] = '\0';
		if (methods[i].ref &&
		    !baseline_find(notebook_csv, methods[i].ref, "overhead", &v, NULL, NULL, 0))
			snprintf(f, sizeof(f), "+%.0f", v);
		printf("%-19s %9s %9s %9s %9s %9s %7d %18s %8s  %s%s%s", methods[i].name, a, b, c,
		       d, e, r->nadded, bpf, f[0] ? f : "-", methods[i].what,
		       r->hook ? ", hook " : "", r->hook ? r->hook : "");
		if (r->start)
			printf(", start in %s", r->start);
		printf("\n");
	}
	printf("\nmean: of the per-round differences (traced run - mean of the untraced runs "
	       "before and after; a run's figure is the median of its batches), 95%% CI: Student "
	       "t over the rounds; p50/p90/p99: of the per-batch differences to the same untraced "
	       "figure. BPF ns/run: BPF_ENABLE_STATS run time per program run "
	       "(runs, all CPUs; the stats add two clock reads to each run), for every BPF method.\n");
	/* the notebook's figures ("?" when the data file lacks one) */
	snprintf(a, sizeof(a), "?");
	snprintf(b, sizeof(b), "?");
	snprintf(c, sizeof(c), "?");
	snprintf(d, sizeof(d), "?");
	if (!baseline_find(notebook_csv, "untraced", "syscall", &v, NULL, note, sizeof(note)))
		snprintf(a, sizeof(a), "%.0f", v);
	if (!baseline_find(notebook_csv, "raw-syscalls-event", "overhead", &v, NULL, NULL, 0))
		snprintf(b, sizeof(b), "%.0f", v);
	if (!baseline_find(notebook_csv, "syscall-events", "overhead", &v, NULL, NULL, 0))
		snprintf(c, sizeof(c), "%.0f", v);
	if (!baseline_find(notebook_csv, "kprobe-event", "overhead", &v, NULL, NULL, 0))
		snprintf(d, sizeof(d), "%.0f", v);
	printf("reference: tracepoint-cost notebook (dd bs=1, i7-3537U, perf record, means only): "
	       "syscall %s ns, raw_syscalls:sys_enter +%s ns, syscalls:sys_enter_read/write +%s "
	       "ns, kprobe +%s ns (data/baseline-tracepoint-cost-notebook.csv)\n",
	       a, b, c, d);
	if (!baseline_find(markers_csv, "marker-empty-probe", "cycles", &v, &sd, NULL, 0) &&
	    !baseline_find(markers_csv, "kprobe", "cycles", &sd, NULL, NULL, 0))
		printf("reference: kernel markers (Pentium 4 3 GHz, 2.6.17): enabled marker with "
		       "an empty probe %.2f cycles, kprobe %.2f cycles more per loop "
		       "(data/baseline-lttng-markers.csv; make microbench measures these)\n",
		       v, sd);
	if (sys_emulated())
		printf("note: these timings are emulated (qemu), not real hardware: compare them "
		       "with each other, not with the references\n");
}

static struct json_object *jnum(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static struct json_object *ref_json(const char *csv, const char *method, const char *kind)
{
	struct json_object *o;
	char note[256];
	double v;

	if (baseline_find(csv, method, kind, &v, NULL, note, sizeof(note)))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "value", json_object_new_double(v));
	json_object_object_add(o, "note", json_object_new_string(note));
	return o;
}

static void print_json(const struct env *env, struct result *res, const struct stat_acc *untraced)
{
	struct json_object *o, *a, *m, *ad, *u, *refs, *bpf;
	struct utsname un;
	int i;

	uname(&un);
	o = json_object_new_object();
	json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
	json_object_object_add(o, "mode", json_object_new_string("syscall-cost"));
	json_object_object_add(o, "format", json_object_new_int(1));
	json_object_object_add(o, "kernel", json_object_new_string(un.release));
	json_object_object_add(o, "machine", json_object_new_string(un.machine));
	json_object_object_add(o, "emulated", json_object_new_boolean(sys_emulated()));
	json_object_object_add(o, "cpu", json_object_new_int(env->cpu));
	json_object_object_add(o, "rounds", json_object_new_int64(env->rounds));
	json_object_object_add(o, "batches_per_run", json_object_new_int64(env->batches));
	json_object_object_add(o, "syscalls_per_batch",
			       json_object_new_int64(env->iters * SC_PER_ITER));
	u = json_object_new_object();
	json_object_object_add(u, "batches", json_object_new_uint64(untraced->n));
	json_object_object_add(u, "mean_ns", jnum(untraced->mean));
	json_object_object_add(u, "sd_ns", jnum(stat_sd(untraced)));
	json_object_object_add(u, "min_ns", jnum(untraced->min));
	json_object_object_add(u, "max_ns", jnum(untraced->max));
	json_object_object_add(o, "untraced_ns_per_syscall", u);
	a = json_object_new_array();
	for (i = 0; i < NMETHODS; i++) {
		struct result *r = &res[i];

		if (!env->selected[i])
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "name", json_object_new_string(methods[i].name));
		json_object_object_add(m, "what", json_object_new_string(methods[i].what));
		json_object_object_add(m, "available", json_object_new_boolean(r->done));
		json_object_object_add(m, "reason",
				       r->done ? NULL : json_object_new_string(r->why));
		json_object_object_add(m, "hook", r->hook ? json_object_new_string(r->hook) : NULL);
		json_object_object_add(m, "start",
				       r->start ? json_object_new_string(r->start) : NULL);
		ad = NULL;
		if (r->done) {
			ad = json_object_new_object();
			json_object_object_add(ad, "mean_ns", jnum(r->rounds.mean));
			json_object_object_add(ad, "ci95_ns", jnum(stat_ci95(&r->rounds)));
			json_object_object_add(ad, "ci999_ns", jnum(stat_ci999(&r->rounds)));
			json_object_object_add(ad, "sd_rounds_ns", jnum(stat_sd(&r->rounds)));
			json_object_object_add(ad, "p50_ns",
					       jnum(quantile(r->added, r->nadded, 0.50)));
			json_object_object_add(ad, "p90_ns",
					       jnum(quantile(r->added, r->nadded, 0.90)));
			json_object_object_add(ad, "p99_ns",
					       jnum(quantile(r->added, r->nadded, 0.99)));
			json_object_object_add(ad, "rounds", json_object_new_uint64(r->rounds.n));
			json_object_object_add(ad, "batches", json_object_new_int(r->nadded));
			json_object_object_add(ad, "traced_mean_ns", jnum(r->traced.mean));
		}
		json_object_object_add(m, "added_ns_per_syscall", ad);
		bpf = NULL;
		if (r->done && r->nprogs) {
			bpf = json_object_new_object();
			json_object_object_add(bpf, "programs", json_object_new_int(r->nprogs));
			json_object_object_add(bpf, "stats", json_object_new_boolean(r->stats));
			json_object_object_add(bpf, "run_cnt", json_object_new_uint64(r->run_cnt));
			json_object_object_add(bpf, "run_time_ns",
					       json_object_new_uint64(r->run_time_ns));
			json_object_object_add(
				bpf, "mean_ns_per_run",
				r->run_cnt ? json_object_new_double((double)r->run_time_ns /
								    r->run_cnt) :
					     NULL);
		}
		json_object_object_add(m, "bpf", bpf);
		json_object_object_add(
			m, "reference",
			methods[i].ref ? ref_json(notebook_csv, methods[i].ref, "overhead") : NULL);
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "methods", a);
	refs = json_object_new_array();
	json_object_array_add(refs, ref_json(notebook_csv, "untraced", "syscall"));
	json_object_array_add(refs, ref_json(notebook_csv, "raw-syscalls-event", "overhead"));
	json_object_array_add(refs, ref_json(notebook_csv, "syscall-events", "overhead"));
	json_object_array_add(refs, ref_json(notebook_csv, "kprobe-event", "overhead"));
	json_object_array_add(refs, ref_json(markers_csv, "marker-empty-probe", "cycles"));
	json_object_array_add(refs, ref_json(markers_csv, "kprobe", "cycles"));
	json_object_object_add(o, "reference", refs);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	(void)method_ref;
}

/* ---- argp ------------------------------------------------------------------------------- */

static const char sc_doc[] =
	"gpiolat --syscall-cost: what each tracing method adds to a syscall, on this machine.\n"
	"\n"
	"A worker pinned to one CPU issues 1-byte reads of /dev/zero, 1-byte writes to /dev/null "
	"and ioctls in timed batches; each method's runs alternate with untraced ones. Methods "
	"the kernel lacks are reported 'not available: why'.\n"
	"\n"
	"  gpiolat --syscall-cost                     every method (about a minute)\n"
	"  gpiolat --syscall-cost -m bpf-hist -m bpf-empty-tp-btf --rounds 10\n"
	"  gpiolat --syscall-hist -d 1s               the syscall-latency histogram alone\n"
	"  gpiolat --empty-raw-tp toggle_bench -d 10s  an empty BPF program on a raw tracepoint\n"
	"\n"
	"Methods: control syscall-events raw-syscalls-event bpf-empty-tp bpf-empty-raw-tp "
	"bpf-empty-tp-btf bpf-hist kprobe-event bpf-kprobe uprobe-event bpf-uprobe strace perf-trace "
	"bpftrace (the default: all of these); only with -m: bpf-hist-naive bpf-hist-tp-btf "
	"bpf-hist-clock bpf-hist-start.\n"
	"\n"
	"EXIT STATUS: 0 done, 1 error, 2 bad usage.\n"
	"\n"
	"OPTIONS:";

enum {
	O_COST = 0x200,
	O_HIST,
	O_EMPTY,
	O_ROUNDS,
	O_BATCHES,
	O_ITERS,
	O_CPU,
	O_JSON,
	O_SCRIPT,
	O_HOOK,
};

static const struct argp_option sc_opts[] = {
	{ "syscall-cost", O_COST, NULL, 0, "measure what each method adds to a syscall", 1 },
	{ "syscall-hist", O_HIST, NULL, 0,
	  "only the syscall-latency histogram of all threads, for -d", 1 },
	{ "empty-raw-tp", O_EMPTY, "TRACEPOINT", 0,
	  "hold an empty BPF program on this raw tracepoint for -d (or until Ctrl-C)", 1 },
	{ "method", 'm', "NAME", 0, "only this method (repeatable)", 2 },
	{ "rounds", O_ROUNDS, "N", 0, "traced runs per method, each between untraced ones (5)", 2 },
	{ "batches", O_BATCHES, "N", 0, "timed batches per run (20)", 2 },
	{ "batch", O_ITERS, "N", 0, "read+write+ioctl triples per batch (200)", 2 },
	{ "cpu", O_CPU, "N", 0, "the worker's CPU (default: the last one allowed)", 2 },
	{ "bpftrace-script", O_SCRIPT, "FILE", 0,
	  "the bpftrace method's script (default: ply/syscall-hist.bt of the project)", 2 },
	{ "hook", O_HOOK, "HOOK", 0,
	  "the histogram's hook: raw_tp, tp_btf or tp (default: the cheapest that loads)",
	  2 },
	{ "duration", 'd', "TIME", 0, "--syscall-hist, --empty-raw-tp: how long (N[ns|us|ms|s|m])",
	  3 },
	{ "interval", 'i', "TIME", 0, "--syscall-hist: print a histogram every TIME", 3 },
	{ "json", O_JSON, NULL, 0, "JSON (docs/syscall-cost.md)", 3 },
	{ "verbose", 'v', NULL, 0, "libbpf's messages", 3 },
	{ "help", 'h', NULL, 0, "show this help", 3 },
	{},
};

static void sc_usage_error(struct argp_state *state, const char *fmt, ...)
{
	struct env *env = state->input;
	va_list ap;

	fprintf(stderr, "gpiolat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see gpiolat --syscall-cost --help)\n");
	env->usage_printed = true;
}

/* a long in [min, max]: parse_count() for the long fields of struct sc_env */
static int parse_long(const char *s, long min, long max, long *out)
{
	long long v;

	if (parse_count(s, min, max, &v))
		return -1;
	*out = v;
	return 0;
}

static error_t sc_parse(int key, char *arg, struct argp_state *state)
{
	struct env *env = state->input;
	long v;
	int i;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat");
		exit(EXIT_OK);
	case O_COST:
		env->mode = MODE_COST;
		break;
	case O_HIST:
		env->mode = MODE_HIST;
		break;
	case O_EMPTY:
		env->mode = MODE_EMPTY_RAW_TP;
		env->raw_tp = arg;
		if (!*arg || strlen(arg) > 120) {
			sc_usage_error(state, "bad tracepoint name '%s'", arg);
			return EINVAL;
		}
		break;
	case 'm':
		for (i = 0; i < NMETHODS; i++)
			if (!strcmp(arg, methods[i].name))
				break;
		if (i == NMETHODS) {
			sc_usage_error(state, "unknown method '%s'", arg);
			return EINVAL;
		}
		env->selected[i] = true;
		env->any_selected = true;
		break;
	case O_ROUNDS:
		if (parse_long(arg, 1, MAX_ROUNDS, &env->rounds)) {
			sc_usage_error(state, "bad round count '%s': want 1 to %d", arg,
				       MAX_ROUNDS);
			return EINVAL;
		}
		break;
	case O_BATCHES:
		if (parse_long(arg, 2, MAX_BATCHES, &env->batches)) {
			sc_usage_error(state, "bad batch count '%s': want 2 to %d", arg,
				       MAX_BATCHES);
			return EINVAL;
		}
		break;
	case O_ITERS:
		if (parse_long(arg, 1, 1000000, &env->iters)) {
			sc_usage_error(state, "bad batch size '%s': want 1 to 1000000", arg);
			return EINVAL;
		}
		break;
	case O_CPU:
		if (parse_long(arg, 0, CPU_SETSIZE - 1, &v)) {
			sc_usage_error(state, "bad CPU '%s'", arg);
			return EINVAL;
		}
		env->cpu = v;
		break;
	case O_SCRIPT:
		env->bt_script = arg;
		break;
	case O_HOOK:
		for (i = 0; i < HOOK_MAX; i++)
			if (!strcmp(arg, hook_names[i]))
				break;
		if (i == HOOK_MAX) {
			sc_usage_error(state, "unknown hook '%s': want tp_btf, raw_tp or tp", arg);
			return EINVAL;
		}
		env->hook = i;
		break;
	case 'd':
		if (parse_time(arg, NSEC_PER_SEC, &env->duration_ns)) {
			sc_usage_error(state,
				       "bad duration '%s': want a positive number with an optional "
				       "unit (ns, us, ms, s, m)",
				       arg);
			return EINVAL;
		}
		break;
	case 'i':
		if (parse_time(arg, NSEC_PER_SEC, &env->interval_ns)) {
			sc_usage_error(state,
				       "bad interval '%s': want a positive number with an optional "
				       "unit (ns, us, ms, s, m)",
				       arg);
			return EINVAL;
		}
		break;
	case O_JSON:
		env->json = true;
		break;
	case 'v':
		env->verbose = true;
		break;
	case ARGP_KEY_ARG:
		sc_usage_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (env->mode == MODE_COST && (env->duration_ns || env->interval_ns)) {
			sc_usage_error(state,
				       "-d and -i are for --syscall-hist and --empty-raw-tp");
			return EINVAL;
		}
		if (env->mode != MODE_COST && env->any_selected) {
			sc_usage_error(state, "-m is for --syscall-cost");
			return EINVAL;
		}
		break;
	case ARGP_KEY_ERROR:
		if (!env->usage_printed) {
			int i = state->next > 0 ? state->next - 1 : 0;

			sc_usage_error(state, "unknown option or missing argument: '%s'",
				       i < state->argc ? state->argv[i] : "?");
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

bool syscall_cost_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--syscall-cost") || !strcmp(argv[i], "--syscall-hist") ||
		    !strncmp(argv[i], "--empty-raw-tp", 14))
			return true;
	}
	return false;
}

static void sig_handler(int sig)
{
	exiting = 1;
}

/* the project's ply/syscall-hist.bt, found from our executable (out/bin/gpiolat) */
static const char *default_script(const char *exe, char *buf, size_t size)
{
	char dir[PATH_MAX - 32], *slash;
	int i;

	snprintf(dir, sizeof(dir), "%.*s", (int)sizeof(dir) - 1, exe);
	for (i = 0; i < 4; i++) {
		slash = strrchr(dir, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(buf, size, "%s/ply/syscall-hist.bt", dir);
		if (!access(buf, R_OK))
			return buf;
	}
	return NULL;
}

/* the worker's CPU: the last one we may run on */
static int default_cpu(void)
{
	cpu_set_t set;
	int i, cpu = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpu = i;
	return cpu;
}

static bool tracefs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " tracefs ") != NULL;
	fclose(f);
	return found;
}

/* ---- --syscall-hist ------------------------------------------------------------------------ */

static int hist_read(struct state *s, struct gpiolat_hist *out, __u64 *unmatched)
{
	int ncpus = libbpf_num_possible_cpus(), c, i;
	struct sc_hist *h;
	__u32 zero = 0;

	h = calloc(ncpus, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->hist->maps.sc_hists), &zero, h)) {
		free(h);
		return -errno;
	}
	memset(out, 0, sizeof(*out));
	*unmatched = 0;
	for (c = 0; c < ncpus; c++) {
		out->sum_ns += h[c].sum_ns;
		*unmatched += h[c].unmatched;
		/* the count is the sum of the slots (the program keeps no count of its own) */
		for (i = 0; i < SC_LOG2_SLOTS && i < GPIOLAT_LOG2_SLOTS; i++) {
			out->log2[i] += h[c].slots[i];
			out->pairs += h[c].slots[i];
		}
	}
	free(h);
	return 0;
}

/* our peak resident set (VmHWM: this program's, not the parent's before exec), KiB; -1 */
static long peak_rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void hist_print(const struct env *env, const struct gpiolat_hist *h, __u64 unmatched,
		       enum hook hook, const char *start, __u64 since_start_ns, double span_s)
{
	struct bucket b[GPIOLAT_LOG2_SLOTS];
	struct json_object *o, *a, *x;
	double mean = h->pairs ? (double)h->sum_ns / h->pairs : NAN;
	int n = hist_log2_buckets(h, b, GPIOLAT_LOG2_SLOTS), i;
	char m[32], p50[32], p90[32], p99[32];

	if (env->json) {
		o = json_object_new_object();
		json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
		json_object_object_add(o, "mode", json_object_new_string("syscall-hist"));
		json_object_object_add(o, "hook", json_object_new_string(hook_names[hook]));
		json_object_object_add(o, "start", json_object_new_string(start));
		json_object_object_add(o, "span_s", json_object_new_double(span_s));
		json_object_object_add(o, "count", json_object_new_uint64(h->pairs));
		json_object_object_add(o, "unmatched", json_object_new_uint64(unmatched));
		json_object_object_add(o, "sum_ns", json_object_new_uint64(h->sum_ns));
		json_object_object_add(o, "mean_ns", jnum(mean));
		json_object_object_add(o, "p50_ns", jnum(buckets_quantile(b, n, 0.5)));
		json_object_object_add(o, "p90_ns", jnum(buckets_quantile(b, n, 0.9)));
		json_object_object_add(o, "p99_ns", jnum(buckets_quantile(b, n, 0.99)));
		json_object_object_add(o, "since_start_ns", json_object_new_uint64(since_start_ns));
		json_object_object_add(o, "peak_rss_kib", json_object_new_int64(peak_rss_kib()));
		a = json_object_new_array();
		for (i = 0; i < n; i++) {
			if (!b[i].count)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "low_ns", json_object_new_uint64(b[i].low));
			json_object_object_add(
				x, "high_ns",
				b[i].high == UINT64_MAX ? NULL : json_object_new_uint64(b[i].high));
			json_object_object_add(x, "count", json_object_new_uint64(b[i].count));
			json_object_array_add(a, x);
		}
		json_object_object_add(o, "log2", a);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		printf("syscall latency, all threads (%s/sys_enter -> sys_exit, start in %s), log2 "
		       "buckets, %.3f s\n",
		       hook_names[hook], start, span_s);
		print_buckets(stdout, b, n, UNIT_NS);
		printf("syscalls: count %llu, mean %s, p50 %s, p90 %s, p99 %s (bucket "
		       "estimates); %llu exits without a stored entry; %.1f ms after start; peak RSS "
		       "%ld KiB\n",
		       (unsigned long long)h->pairs, fmt_time(m, sizeof(m), mean, UNIT_NS),
		       fmt_time(p50, sizeof(p50), buckets_quantile(b, n, 0.5), UNIT_NS),
		       fmt_time(p90, sizeof(p90), buckets_quantile(b, n, 0.9), UNIT_NS),
		       fmt_time(p99, sizeof(p99), buckets_quantile(b, n, 0.99), UNIT_NS),
		       (unsigned long long)unmatched, since_start_ns / 1e6, peak_rss_kib());
	}
	fflush(stdout);
}

static int run_hist(struct state *s, const struct env *env, __u64 t_start)
{
	struct gpiolat_hist *h = calloc(1, sizeof(*h)), *prev = calloc(1, sizeof(*prev));
	struct gpiolat_hist *d = calloc(1, sizeof(*d));
	__u64 t0, now, deadline, next, um, um_prev = 0;
	const char *start;
	enum hook hook;
	char why[WHY_SIZE];
	int err = EXIT_ERROR;

	if (!h || !prev || !d) {
		fprintf(stderr, "gpiolat: out of memory\n");
		goto out;
	}
	if (hist_setup(s, HV_FULL, env->hook, &hook, &start, why, sizeof(why)) ||
	    hist_attach(s, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto out;
	}
	t0 = mono_ns();
	deadline = env->duration_ns ? t0 + env->duration_ns : 0;
	next = env->interval_ns ? t0 + env->interval_ns : 0;
	if (!env->json && !deadline && !next)
		printf("Tracing syscalls (%s). Hit Ctrl-C to end.\n", hook_names[hook]);
	fflush(stdout);
	while (!exiting) {
		now = mono_ns();
		if (deadline && now >= deadline)
			break;
		if (next && now >= next) {
			if (!hist_read(s, h, &um)) {
				hist_delta(d, h, prev);
				hist_print(env, d, um - um_prev, hook, start, mono_ns() - t_start,
					   env->interval_ns / 1e9);
				*prev = *h;
				um_prev = um;
			}
			next += env->interval_ns;
		}
		poll(NULL, 0, 5);
	}
	links_destroy(s);
	if (hist_read(s, h, &um)) {
		fprintf(stderr, "gpiolat: reading the histogram failed\n");
		goto out;
	}
	if (env->interval_ns)
		printf(env->json ? "" : "--- totals\n");
	hist_print(env, h, um, hook, start, mono_ns() - t_start, (mono_ns() - t0) / 1e9);
	err = EXIT_OK;
out:
	free(h);
	free(prev);
	free(d);
	return err;
}

/* ---- --empty-raw-tp ---------------------------------------------------------------------- */

static int run_empty_raw_tp(struct state *s, const struct env *env)
{
	struct result r = {};
	char why[WHY_SIZE];
	__u64 deadline;

	if (empty_load(s, (const char *[]){ "empty_raw_any" }, 1, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	if (link_add(s,
		     bpf_program__attach_raw_tracepoint(s->empty->progs.empty_raw_any, env->raw_tp),
		     env->raw_tp, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s (is the tracepoint there?)\n", why);
		return EXIT_ERROR;
	}
	printf("attached: an empty BPF program on raw tracepoint %s\n", env->raw_tp);
	fflush(stdout);
	deadline = env->duration_ns ? mono_ns() + env->duration_ns : 0;
	while (!exiting && (!deadline || mono_ns() < deadline))
		poll(NULL, 0, 20);
	links_destroy(s);
	prog_stats_obj(s->empty->obj, &r);
	if (s->stats_fd >= 0 && r.run_cnt)
		printf("detached: %llu runs, mean %.1f ns per run (BPF_ENABLE_STATS)\n",
		       (unsigned long long)r.run_cnt, (double)r.run_time_ns / r.run_cnt);
	else
		printf("detached: %llu runs\n", (unsigned long long)r.run_cnt);
	return EXIT_OK;
}

/* ---- main ------------------------------------------------------------------------------- */

static void cleanup(struct state *s)
{
	int st;

	events_off(s);
	kprobe_events_remove(s);
	uprobe_event_remove(s);
	tool_stop(s);
	bpf_unload(s);
	if (s->inst) {
		if (s->inst_created)
			tracefs_instance_destroy(s->inst);
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	if (s->worker > 0) {
		kill(s->worker, SIGKILL);
		waitpid(s->worker, &st, 0);
		s->worker = 0;
	}
	if (s->cmd_fd >= 0)
		close(s->cmd_fd);
	if (s->done_fd >= 0)
		close(s->done_fd);
	if (s->shm)
		munmap(s->shm, s->shm_size);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	s->stats_fd = -1;
}

int syscall_cost_main(int argc, char **argv)
{
	static const struct argp argp = { .options = sc_opts, .parser = sc_parse, .doc = sc_doc };
	struct env env = { .rounds = 5, .batches = 20, .iters = 200, .cpu = -1, .hook = -1 };
	struct state s = { .cmd_fd = -1, .done_fd = -1, .stats_fd = -1 };
	struct sigaction sa = { .sa_handler = sig_handler };
	struct result res[NMETHODS];
	struct stat_acc untraced = {};
	char why[WHY_SIZE], script[PATH_MAX], cpu_note[64] = "";
	__u64 t_start = mono_ns();
	bool mounted;
	cpu_set_t set;
	ssize_t len;
	int err = EXIT_ERROR, i;

	memset(res, 0, sizeof(res));
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &env))
		return EXIT_USAGE;
	verbose = env.verbose;
	libbpf_set_print(libbpf_print_fn);
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	if (env.cpu < 0) {
		env.cpu = default_cpu();
	} else if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(env.cpu, &set)) {
		fprintf(stderr, "gpiolat: CPU %d is not one this process may run on\n", env.cpu);
		return EXIT_ERROR;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal or ssh session: put everything back as for Ctrl-C */
	sigaction(SIGHUP, &sa, NULL);
	/* a second process (strace, ...) closing its end must not kill us */
	signal(SIGPIPE, SIG_IGN);

	len = readlink("/proc/self/exe", s.exe, sizeof(s.exe) - 1);
	s.exe[len > 0 ? len : 0] = '\0';
	s.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	if (env.mode == MODE_HIST) {
		err = run_hist(&s, &env, t_start);
		goto cleanup;
	}
	if (env.mode == MODE_EMPTY_RAW_TP) {
		err = run_empty_raw_tp(&s, &env);
		goto cleanup;
	}

	if (!env.any_selected)
		for (i = 0; i < NMETHODS; i++)
			env.selected[i] = !methods[i].extra;
	if (!env.bt_script)
		env.bt_script = default_script(s.exe, script, sizeof(script));
	s.sc_call_off = sc_call_offset(s.exe);
	mounted = tracefs_mounted();
	if (!mounted && tracefs_tracing_dir())
		snprintf(cpu_note, sizeof(cpu_note), "; tracefs mounted at %s by gpiolat",
			 tracefs_tracing_dir());
	/* a SIGKILLed run's instance and probe events: ours would not be new, theirs in the way */
	if (tracefs_tracing_dir()) {
		bool found = false;

		if (tracefs_leftovers_remove(INSTANCE, PROBE_GROUP, &found, why, sizeof(why))) {
			fprintf(stderr,
				"gpiolat: leftovers of an earlier run: could not remove %s\n", why);
			goto cleanup;
		}
		if (found && !env.json)
			printf("gpiolat: removed the leftovers of an earlier run\n");
	}
	if (worker_start(&s, &env, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	for (i = 0; i < NMETHODS && !exiting; i++) {
		if (!env.selected[i])
			continue;
		if (verbose)
			fprintf(stderr, "gpiolat: %s\n", methods[i].name);
		if (measure(&s, &env, i, &res[i], &untraced)) {
			fprintf(stderr, "gpiolat: %s: %s\n", methods[i].name, res[i].why);
			goto cleanup;
		}
	}
	if (exiting) {
		fprintf(stderr, "gpiolat: interrupted: nothing of ours is left attached\n");
		goto cleanup;
	}
	if (env.json)
		print_json(&env, res, &untraced);
	else
		print_text(&env, res, &untraced, cpu_note);
	err = EXIT_OK;
cleanup:
	cleanup(&s);
	for (i = 0; i < NMETHODS; i++)
		free(res[i].added);
	return err;
}
