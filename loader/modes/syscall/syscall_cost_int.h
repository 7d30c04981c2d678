/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --syscall-cost, --syscall-hist and --empty-raw-tp, inside (docs/loader.md,
 * docs/syscall-cost.md): the methods, the options, one method's result, the run's state
 * (struct state: what the undo step undoes, the stop flag) and the run's context (struct sc_ctx,
 * the CTX of its struct mode_ops). Only the sc_*.c files and syscall_cost.c include it;
 * syscall_cost.c, the mode's entry (syscall_cost.h, for main.c), is the table of steps that
 * run_mode() drives (core/run.h) and --syscall-cost's own steps; none of the parts below reaches
 * up to it:
 *   sc_methods.c  the methods' table: each names its provider (loader/providers/provider.h,
 *                 shared with --overhead) and the provider's arguments
 *   sc_worker.c   the pinned worker that issues the syscalls in timed batches
 *   sc_measure.c  the alternated runs (baseline, method, baseline, ...) of one method
 *   sc_report.c   text and JSON, beside the reference figures
 *   sc_opts.c     argp; sc_hist.c: --syscall-hist's and --empty-raw-tp's steps
 */
#ifndef GPIOLAT_SYSCALL_COST_INT_H
#define GPIOLAT_SYSCALL_COST_INT_H

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
#include "core/run.h"
#include "core/sys.h"
#include "providers/provider.h"

#include "core/cli.h"

#define SC_PER_ITER 3 /* read, write, ioctl */
#define MAX_ROUNDS 100
#define MAX_BATCHES 1000 /* per run */
#define INSTANCE "gpiolat_sc" /* our tracefs instance */
#define PROBE_GROUP "gpiolat_sc" /* our kprobe and uprobe events */
#define RUN_TIMEOUT_MS 120000

/* ---- the reference figures (data/baseline-*.csv, embedded by loader/core/baseline_sc.c) ------ */

extern const char notebook_csv[];
extern const char markers_csv[];

/* ---- the methods ------------------------------------------------------------------------ */

struct sc_method {
	const char *name;
	const struct provider *prov; /* NULL: nothing at all (the control) */
	struct probe_args a; /* what the provider measures */
	bool extra; /* only when asked for with -m */
	const char *what;
	const char *ref; /* the notebook's row for it, or NULL */
};

/*
 * the methods, in the order they are measured (sc_methods.c); sc_nmethods is the table's own
 * length, SC_MAX_METHODS only the size of the per-method arrays (sc_methods.c asserts it holds)
 */
#define SC_MAX_METHODS 32
extern const struct sc_method sc_methods[];
extern const int sc_nmethods;

enum mode {
	MODE_COST,
	MODE_HIST,
	MODE_EMPTY_RAW_TP,
};

struct sc_env {
	enum mode mode;
	bool selected[SC_MAX_METHODS];
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
	bool help; /* --help said: the run ends there, with 0 */
	struct cli_common common; /* -v, --json, --bpf-stats: into the fields above */
};

/* what one method measured */
struct result {
	bool done;
	char why[WHY_SIZE + 32]; /* "not available: ..." when !done */
	/* per round: the runs' figures and method - mean of the untraced runs beside it (.d), ns
	 * per syscall; neighbouring rounds share an untraced run (hist.h: alt_stat) */
	struct alt_stat rounds;
	double round_added[MAX_ROUNDS]; /* rounds.d's values, each round (rounds.d.n of them) */
	double *added; /* per method batch, ns per syscall; sorted */
	int nadded;
	struct stat_acc traced; /* method batches, ns per syscall */
	/* its programs' run-time stats; the hook and start the syscall histogram chose (bpf-hist) */
	struct probe_figures fig;
	bool stats;
};

/*
 * One run of the mode, handed by pointer to every part: what the undo step must undo, and how
 * the run is told to stop. The options are struct sc_env (read-only once parsed). The BPF stats
 * fd is the run's (t.run->stats_fd, closed by run_mode()).
 */
struct state {
	const volatile sig_atomic_t *stop; /* the run's stop flag (struct run, run_mode()) */
	pid_t worker;
	int cmd_fd, done_fd;
	__u64 *shm; /* the worker's batch times, ns */
	size_t shm_size;
	struct target t; /* what the providers measure: the worker, our instance, the child tool */
	char exe[PATH_MAX];
};

/* --syscall-hist's and --empty-raw-tp's run: the one probe each holds (sc_hist.c) */
struct sc_hold {
	struct probe p; /* zeroed until enable: its off and teardown then do nothing */
	struct probe_args args; /* --empty-raw-tp's program and tracepoint */
	struct bpf_args bargs;
	struct gpiolat_hist h, prev,
		d; /* --syscall-hist: totals, at the last print, the interval */
	__u64 unmatched, um_prev; /* exits without a stored entry: totals, at the last print */
	__u64 t0; /* attached, CLOCK_MONOTONIC ns */
	/* --syscall-hist: the hook and start its provider chose (read once on); --empty-raw-tp:
	 * its program's runs */
	struct probe_figures fig;
};

/*
 * The run of the mode: the CTX of its steps (struct mode_ops, syscall_cost.c). The entry asked
 * for (--syscall-cost, --syscall-hist, --empty-raw-tp) is a table of steps of its own, SUB: the
 * mode's steps do what all three share and then call SUB's.
 */
struct sc_ctx {
	struct sc_env env;
	struct state s;
	const struct mode_ops *sub;
	__u64 t_start; /* the process started, CLOCK_MONOTONIC ns (--syscall-hist's since_start) */
	/* --syscall-cost */
	struct result res[SC_MAX_METHODS];
	struct stat_acc untraced;
	char script[PATH_MAX], cpu_note[64];
	/* --syscall-hist, --empty-raw-tp */
	struct sc_hold hold;
};

/* sc_worker.c */
/* every syscall of the worker goes through here: the uprobe's target, in every run alike */
long gpiolat_sc_call(long nr, long a, long b, long c);
void sc_worker(int cpu, int cmd_fd, int done_fd, __u64 *shm);
/* the worker forked, its kill pushed on U */
int sc_worker_start(struct state *s, struct undo *u, const struct sc_env *env, char *why,
		    size_t size);
int sc_worker_run(struct state *s, const struct sc_env *env, double *out, char *why, size_t size);

/* the file offset of gpiolat_sc_call() in our executable, from /proc/self/maps */
unsigned long sc_call_offset(const char *exe);

/* sc_measure.c */
double sc_quantile(const double *v, int n, double p);
int sc_measure(struct state *s, const struct sc_env *env, int mi, struct result *r,
	       struct stat_acc *untraced);

/* sc_report.c */
void sc_print_text(const struct sc_env *env, struct result *res, const struct stat_acc *untraced,
		   const char *cpu_note);
void sc_print_json(const struct sc_env *env, struct result *res, const struct stat_acc *untraced);

/* sc_opts.c */
const char *sc_default_script(const char *exe, char *buf, size_t size);
int sc_default_cpu(void);
bool sc_tracefs_mounted(void);
/* the command line into ENV: EXIT_OK, EXIT_USAGE (said in one line) or RUN_DONE (--help said) */
int sc_parse_args(struct sc_env *env, int argc, char **argv);

/* sc_hist.c: the steps of --syscall-hist and --empty-raw-tp (CTX: struct sc_ctx) */
extern const struct mode_ops sc_hist_ops, sc_empty_ops;

#endif /* GPIOLAT_SYSCALL_COST_INT_H */
