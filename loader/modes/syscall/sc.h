/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --syscall-cost, --syscall-hist and --empty-raw-tp, inside (docs/loader.md,
 * docs/syscall-cost.md): the methods, the options, one method's result, and the run's state
 * (struct state: what the one cleanup undoes, the stop flag). Only the sc_*.c files and
 * syscall_cost.c include it; syscall_cost.c, the mode's entry (syscall_cost.h, for main.c),
 * drives the parts below and none of them reaches up to it:
 *   sc_steps.c    the methods' table and their steps: set up, attach, detach, tear down
 *   sc_worker.c   the pinned worker that issues the syscalls in timed batches
 *   sc_measure.c  the alternated runs (baseline, method, baseline, ...) of one method
 *   sc_tracefs.c  tracefs events, kprobe and uprobe events
 *   sc_bpf.c      the BPF programs: empty ones, the syscall-latency histogram
 *   sc_report.c   text and JSON, beside the reference figures
 *   sc_opts.c     argp; sc_hist.c: --syscall-hist and --empty-raw-tp
 */
#ifndef GPIOLAT_SC_H
#define GPIOLAT_SC_H

#include <argp.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "core/child.h"
#include "core/hist.h"
#include "core/sys.h"

struct tracefs_instance;
struct tracefs_dynevent;
struct empty_bpf;
struct syscall_bpf;

#include "core/cli.h"

#define SC_PER_ITER 3 /* read, write, ioctl */
#define MAX_ROUNDS 100
#define MAX_BATCHES 1000 /* per run */
#define MAX_LINKS 6
#define INSTANCE "gpiolat_sc" /* our tracefs instance */
#define PROBE_GROUP "gpiolat_sc" /* our kprobe and uprobe events */
#define READY_TIMEOUT_MS 15000 /* for strace, perf, bpftrace to attach */
#define RUN_TIMEOUT_MS 120000

/* ---- the reference figures (data/baseline-*.csv, embedded by loader/core/baseline_sc.c) -------- */

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
	SC_HOOK_BTF,
	SC_HOOK_RAW,
	SC_HOOK_TP,
	SC_HOOK_MAX,
};

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
	bool extra; /* only when asked for with -m */
	const char *what;
	const char *ref; /* the notebook's row for it, or NULL */
	bool raw; /* K_EVENTS: raw_syscalls:sys_enter, not the syscalls' own events */
	enum hook empty_hook; /* K_BPF_EMPTY: the hook of its programs */
	enum hist_variant variant; /* K_BPF_HIST: what of the histogram program runs */
	int only_hook; /* K_BPF_HIST: this hook only (SC_HOOK_x + 1); 0: --hook, or the cheapest */
};

/* the methods, in the order they are measured (sc_steps.c) */
#define SC_NMETHODS 18
extern const struct method sc_methods[SC_NMETHODS];

enum mode {
	MODE_COST,
	MODE_HIST,
	MODE_EMPTY_RAW_TP,
};

struct env {
	enum mode mode;
	bool selected[SC_NMETHODS];
	bool any_selected;
	long rounds, batches, iters;
	int cpu;
	bool json, verbose;
	__u64 duration_ns, interval_ns;
	const char *raw_tp;
	const char *bt_script;
	int hook; /* the histogram's hook; -1: the cheapest that loads */
	bool bpf_stats; /* BPF_ENABLE_STATS for the whole run (two clock reads a program run) */
	bool usage_printed;
};

/* what one method measured */
struct result {
	bool done;
	char why[WHY_SIZE + 32]; /* "not available: ..." when !done */
	const char *hook; /* the hook kept (bpf-hist) */
	const char *start; /* where the histogram keeps the start (bpf-hist) */
	/* per round: the runs' figures and method - mean of the untraced runs beside it (.d), ns
	 * per syscall; neighbouring rounds share an untraced run (hist.h: alt_stat) */
	struct alt_stat rounds;
	double round_added[MAX_ROUNDS]; /* rounds.d's values, each round (rounds.d.n of them) */
	double *added; /* per method batch, ns per syscall; sorted */
	int nadded;
	struct stat_acc traced; /* method batches, ns per syscall */
	__u64 run_cnt, run_time_ns; /* BPF run-time stats of its programs */
	int nprogs;
	bool stats;
};

/*
 * One run of the mode, handed by pointer to every part: what the one cleanup must undo, and
 * how the run is told to stop. The options are struct env (read-only once parsed).
 */
struct state {
	const volatile sig_atomic_t *stop; /* set by the signal handler (syscall_cost.c) */
	pid_t worker;
	int cmd_fd, done_fd;
	__u64 *shm; /* the worker's batch times, ns */
	size_t shm_size;
	struct tracefs_instance *inst;
	bool inst_created;
	bool sc_events_on; /* events enabled in inst */
	struct tracefs_dynevent *probe_events[3]; /* gpiolat_sc/sc_read, ... (kprobe events) */
	struct tracefs_dynevent *uprobe_event; /* gpiolat_sc/sc_call */
	struct child tool; /* strace, perf, bpftrace */
	struct empty_bpf *empty;
	struct syscall_bpf *hist;
	struct bpf_program *hist_progs[2]; /* the pair loaded: sys_enter, sys_exit */
	struct bpf_link *links[MAX_LINKS];
	int nlinks;
	int stats_fd;
	char exe[PATH_MAX];
	unsigned long sc_call_off; /* file offset of sc_call() in exe */
};

/* sc_worker.c */
/* every syscall of the worker goes through here: the uprobe's target, in every run alike */
long gpiolat_sc_call(long nr, long a, long b, long c);
__u64 sc_mono_ns(void);
void sc_worker(int cpu, int cmd_fd, int done_fd, __u64 *shm);
int sc_worker_start(struct state *s, const struct env *env, char *why, size_t size);
int sc_worker_run(struct state *s, const struct env *env, double *out, char *why, size_t size);

/* sc_steps.c: the child tools' wait */
int sc_tool_wait(struct state *s, bool (*ready)(const struct child *c), const char *name, char *why,
		 size_t size);

/* sc_tracefs.c */
void sc_events_off(struct state *s);
int sc_events_on(struct state *s, const char *system, const char *regex, char *why, size_t size);
int syscall_function(const char *sc, char *out, size_t size);
bool sc_kprobe_pmu(void);
void sc_kprobe_events_remove(struct state *s);
int sc_kprobe_events_add(struct state *s, char *why, size_t size);
void sc_uprobe_event_remove(struct state *s);
int sc_uprobe_event_add(struct state *s, char *why, size_t size);
unsigned long sc_call_offset(const char *exe);
extern const char *const sc_traced_syscalls[3];

/* sc_bpf.c */
extern const char *const sc_hook_names[SC_HOOK_MAX];
void sc_libbpf_print(bool verbose);
void sc_links_destroy(struct state *s);
void sc_bpf_unload(struct state *s);
int sc_empty_load(struct state *s, const char *const *keep, int n, char *why, size_t size);
int sc_link_add(struct state *s, struct bpf_link *l, const char *what, char *why, size_t size);
int sc_empty_setup(struct state *s, enum hook h, char *why, size_t size);
int sc_empty_attach(struct state *s, enum hook h, char *why, size_t size);
int sc_hist_setup(struct state *s, enum hist_variant v, int only, enum hook *hook,
		  const char **start, char *why, size_t size);
int sc_hist_attach(struct state *s, char *why, size_t size);
void sc_prog_stats_obj(struct bpf_object *obj, struct result *r);
void sc_prog_stats_tool(struct state *s, struct result *r);

/* sc_steps.c */
int sc_method_setup(struct state *s, const struct env *env, const struct method *m,
		    struct result *r, enum hook *hook, char *why, size_t size);
int sc_method_attach(struct state *s, const struct env *env, const struct method *m,
		     struct result *r, enum hook hook, char *why, size_t size);
void sc_method_detach(struct state *s, const struct method *m, struct result *r);
void sc_method_teardown(struct state *s, const struct method *m, struct result *r);

/* sc_measure.c */
double sc_quantile(const double *v, int n, double p);
int sc_measure(struct state *s, const struct env *env, int mi, struct result *r,
	       struct stat_acc *untraced);

/* sc_report.c */
void sc_print_text(const struct env *env, struct result *res, const struct stat_acc *untraced,
		   const char *cpu_note);
void sc_print_json(const struct env *env, struct result *res, const struct stat_acc *untraced);

/* sc_opts.c */
const char *sc_default_script(const char *exe, char *buf, size_t size);
int sc_default_cpu(void);
bool sc_tracefs_mounted(void);
extern const struct argp sc_argp;

/* sc_hist.c */
int sc_run_hist(struct state *s, const struct env *env, __u64 t_start);
int sc_run_empty_raw_tp(struct state *s, const struct env *env);

#endif /* GPIOLAT_SC_H */
