/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --overhead, inside (docs/loader.md, docs/overhead.md): the run's options and its
 * context (struct ov, overhead_main's, handed by pointer: the mode keeps no state of its own at
 * file scope), a row of results, and the methods. Only the ov_*.c files and overhead.c include
 * it. A method names its provider (loader/providers/provider.h: one struct of named callbacks
 * per kind of method, shared with --syscall-cost) and the provider's arguments.
 *
 * The files, arrows only downward: overhead.c (the mode_ops steps, main.c's entry) over
 * ov_report.c (prints the rows) and ov_engine.c (the alternated phases that measure one
 * method), the engine over ov_utoggle.c (the user rows' pulse source); ov_methods.c (the table,
 * the lookup by name and --only), ov_stats.c and ov_baseline.c below them; this header at the
 * bottom. None of them points back at overhead.c.
 */
#ifndef GPIOLAT_OVERHEAD_INT_H
#define GPIOLAT_OVERHEAD_INT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>
#include "core/child.h"
#include "core/hist.h"
#include "core/cli.h"
#include "core/run.h"
#include "core/sys.h"
#include "providers/kopt.h"
#include "providers/provider.h"

struct json_object;

#define INSTANCE "gpiolat"
#define KP_SYSTEM "gpiolat"
#define MAX_REPS 100
#define MAX_PHASE_BATCHES 4096
#define MAX_BASE_PHASES 4096
#define WARMUP 2
#define WARMUP_PHASES 3
#define CHAIN 10
#define POLL_MS 20
#define WHY 256

struct opts {
	bool overhead, quick, json, verbose, list;
	int reps;
	long long pulses;
	const char *only;
	const char *user_line; /* --user-line: OFFSET of the module's chip, or "module" */
	const char *btf_path;
	bool bpf_stats; /* BPF run-time stats on for the whole run (two clock reads a run) */
	bool usage_printed;
	struct cli_common common; /* -v, --json, --btf, --bpf-stats: into the fields above */
};

/*
 * What a method fires on, and so how its ns per set stands to the talk's figure: the talk
 * measured the high phase (pulse+, from the set to 1 to the set to 0: the set to 0's trace
 * event and probes run before its register write, inside it; the set to 1's before the line
 * goes high, outside); every row here is ns per set, a batch over 2 x pulses
 * (docs/overhead.md, "Per set, per pulse").
 */
enum fires {
	/* at every set, the same work at both: what it adds to a set is what it adds to pulse+ */
	FIRES_SET,
	/* at every set, more work at the set to 0 (a delta, a histogram) than at the set to 1 (a
	 * time saved): pulse+ holds the set to 0's, ns per set the mean of both */
	FIRES_SET_UNEQUAL,
	/* once a pulse (utoggle's toggle_ioctl_v2_once: entry before its set to 1, return after
	 * its set to 0, both outside our pulse+); the talk's toggle function set 0 then 1, so one
	 * entry and one return fell inside its pulse+: its figure is ours per pulse, 2 x per set */
	FIRES_PULSE,
};

/* one measured (or not) row */
struct row {
	char name[40];
	char group[16];
	char against[40]; /* the reference phases: "untraced" or another row's name */
	const char *talk; /* the talk's CSV row, or NULL */
	enum fires fires;
	const char *series; /* "events" or "kprobes", with k */
	int k;
	bool measured;
	bool not_fired; /* !measured: its count fell short (why: "fired on k of n sets ...") */
	char why[WHY];
	int reps;
	double diff[MAX_REPS];
	struct alt_stat st; /* the phases as sampled: the intervals (hist.h) */
	double mean, ci, sd; /* sd: of the differences */
	double ci999; /* the 99.9 % CI: what a test's control check uses (1 in 1000 fails) */
	double se; /* the mean's standard error as sampled, of df degrees of freedom (alt_se) */
	long df;
	double med; /* median of the repetitions */
	double low; /* the lowest repetition */
	double ref_mean; /* mean of the reference phases, ns per set */
	__u64 batches, pulses;
	/*
	 * fired (docs/overhead.md, "Fired"): each method phase's own count of the method, read
	 * before and after the phase, in sets (2 a pulse): counted when every phase had one
	 */
	bool counted;
	bool count_lost; /* a count it keeps could not be read in a phase: no proof, no figure */
	const char *fired_by; /* what counted (provider.h counted_by) */
	char fired_why[144]; /* !counted: why not (a tool's exit: about 130 characters) */
	int fphases;
	__u64 sets, fired_sets; /* the method phases' sets; those its count covers (at most) */
	__u64 phase_sets[MAX_REPS], phase_fired[MAX_REPS];
	/*
	 * BPF trust (docs/overhead.md, "Trust"): its program's figures as the provider keeps them
	 * (run time, its histogram, and judged: per method phase, the traced ns per set by two
	 * clocks, the module's batches and the program's own, a phase only when the program
	 * counted every period inside the module's batches)
	 */
	bool bpf;
	struct probe_figures fig;
	struct trust_verdict {
		enum { TRUST_NONE, TRUST_AGREE, TRUST_DISAGREE, TRUST_NOISY } v;
		double mod, mod_sd, prog, prog_sd; /* means and sds over the phases, ns per set */
		double diff, sd; /* mean and sd over the phases of program - module, ns per set */
		double allow, limit; /* the systematic allowance and the whole limit, ns per set */
		double burst; /* pulses per batch */
		char why[160]; /* TRUST_NONE: why not judged; else the comparison in words */
	} tv;
};

#define USER_REF "untraced ioctl toggler"
#define PRINTK_REF "mode=continuous"

/* the report's groups */
enum method_kind {
	KIND_CONTROL,
	KIND_TRACEFS,
	KIND_BPF,
	KIND_USER,
};

/* a method: a row of the report, measured with its provider */
struct method {
	const char *name;
	enum method_kind kind;
	const struct provider *prov; /* NULL: nothing at all (the control row) */
	struct probe_args a; /* what the provider measures (a part: only when --only names it) */
	const char *against; /* another method whose phases are the reference, or NULL */
	const char *reference; /* else the reference phases' label (NULL: "untraced") */
	const char *talk; /* the talk's CSV row, or NULL */
	enum fires fires; /* FIRES_SET unless said */
	const char *series; /* "events" or "kprobes", with a.ev->k (ov_series_k) */
	bool trust; /* the report's BPF trust figures (run time, histogram) */
	bool bench; /* make bench-gpio's rows: only when --only names it, as a part */
	/* it registers kprobes: its switches wait for the kprobe optimizer (providers/kopt.c);
	 * no other method's switch can change the kernel's optimized probes */
	bool kprobes;
};

/* ov_methods.c: the table, by name, and --only */
extern const struct method ov_methods[];
extern const int ov_nmethods;
const char *ov_kind_name(enum method_kind k);
const char *ov_fires_name(enum fires f);
const struct method *ov_method_by_name(const char *name);
bool ov_named_only(const struct method *m);
/* a series' row: how many of its events are switched on (0: not a series) */
int ov_series_k(const struct method *m);
/* --list: the methods in their order, one a line (name, kind, reference), or as JSON */
void ov_list_print(FILE *f, bool json);
bool ov_only_item(const char *t, const struct method *m);
bool ov_only_selected(const char *only, const struct method *m);
int ov_only_check(const char *only, char *bad, size_t size);
const char *ov_ref_label(const struct method *m);

/* ov_stats.c: pure functions of the rows (unit-tested) */
void ov_row_stats(struct row *r);
int ov_series_fit(struct row *rows, int n, const char *series, double *slope, double *r2,
		  int *npts);
void ov_trust_check(struct row *r);
const char *ov_trust_word(const struct row *r); /* agree, DISAGREE, too-noisy, not judged */

/* ov_report.c: the report of the rows, with what the run says of itself (CX) */
struct context {
	char clock[128];
	__u64 resolution_ns;
	double untraced_mean, floor_sd;
	int floor_n;
	double noise_batch_iqr;
	bool emulated;
	double duration_s;
	bool bpf_stats; /* BPF_ENABLE_STATS was on for the whole run */
	long long pulses; /* per phase */
	int reps; /* per method */
	struct stat_acc user_base; /* the user rows' untraced phases (utoggle) */
	char user_line[128]; /* the line utoggle toggled ("LABEL:N"), "" when none */
	const char *user_csv, *user_csv_path; /* --baseline: its text and name, or NULL */
};
void ov_print_text(struct row *rows, int n, const struct context *cx);
void ov_print_json(struct row *rows, int n, const struct context *cx);

/* ov_baseline.c: --baseline FILE.csv */
struct user_csv {
	char *text; /* the file's text, CRLF made LF; NULL: no --baseline */
	const char *path;
};
/* FILE checked into U (U->text: the caller's to free); 0, or -1 and what is wrong in why */
int ov_baseline_load(struct user_csv *u, const char *path, char *why, size_t size);

/*
 * The run's context (overhead_main's): what every part of the mode reads and writes, handed
 * by pointer. Below the engine, utoggle and the report; overhead.c fills it.
 */
struct ov {
	struct run *run; /* the stop flag, verbosity, BPF stats */
	struct opts o;
	struct target target; /* the GPIO set, or utoggle's; the instance, the child */
	struct user_csv user; /* --baseline */
	/* utoggle --control (ov_utoggle.c): its process, pipes, executable and traced function */
	struct utoggle {
		pid_t pid;
		FILE *to, *from;
		char exe[PATH_MAX];
		unsigned long off;
		/*
		 * its line (ov_utoggle_lines): on the module's chip, LINE, or the first free of 1..7
		 * of toggle-vchip (LINE -1); MODULE_LINE: the module's own, the module unloaded
		 * for each user row (UNLOADED) and loaded back after it; WHY: no line (a real
		 * chip and no --user-line), said by every user row
		 */
		char chip[64];
		int line;
		bool module_line, unloaded;
		char why[WHY];
	} ut;
	/* the engine's (ov_engine.c) */
	struct kopt_watch kopt; /* the kprobe optimizer's watch, made at the first switch */
	struct stat_acc user_base; /* the user rows' untraced phases (utoggle) */
	double base_phase[MAX_BASE_PHASES]; /* untraced phases of every method: the noise floor */
	int nbase_phase;
	double untraced_guess; /* the last warm-up phase: the untraced set before any method, ns */
	__u64 phase_pulses; /* the last phase's pulses, its warm-up batches too */
	struct toggle_batch batch[MAX_PHASE_BATCHES]; /* a phase's batches */
	double batch_ns[MAX_PHASE_BATCHES]; /* their ns per set */
	/* overhead.c's */
	struct context cx;
	struct row *rows;
	int nrows;
	__u64 t0; /* the run's start, run_now_ns(): cx.duration_s */
	bool started; /* tracefs touched: undo puts it back */
	bool done; /* --help, --list said: nothing to run */
};

/* ov_utoggle.c: the user rows' pulse source, utoggle --control (its process: ov->target) */
int ov_utoggle_lines(struct ov *ov, char *why); /* --user-line checked: 0, or -1 and why */
int ov_utoggle_start(struct ov *ov, char *why);
int ov_utoggle_phase(struct ov *ov, double *med, __u64 *nb, __u64 *np);
void ov_utoggle_stop(struct ov *ov);

/* ov_engine.c: the alternated phases (above utoggle) */
int ov_phase(struct ov *ov, double *med, __u64 *nb, __u64 *np);
void ov_measure(struct ov *ov, const struct method *m, struct row *r);
/*
 * ov_fired.c: a row's fired check: not measured when its count covers fewer sets than it ran;
 * ICOUNT (the run's TIMING=icount): a row without a count must repeat (FIRED_SD_NS)
 */
void ov_fired_check(struct row *r, bool icount);
/* ov_fired.c: "fired on k of n sets (by, N phases)", or "not counted: why" */
const char *ov_fired_text(const struct row *r, char *buf, size_t size);
/* ov_fired.c: the row's "fired" object of the JSON */
struct json_object *ov_fired_json(const struct row *r);
/* ov_fired.c: does LIST ("NAME:REP,...", REP from 1) name repetition REP (from 0) of method
 * NAME? The tests' two lists: GPIOLAT_WITHHOLD (the method left off in that repetition, a way
 * to make it not fire) and GPIOLAT_STOP_IN (the run stops itself there, its change in place) */
bool ov_rep_listed(const char *list, const char *name, int rep);

#endif /* GPIOLAT_OVERHEAD_INT_H */
