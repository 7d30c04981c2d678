/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: what --wakeup (loader/modes/rt/wakeup.c) and --gaps (loader/modes/rt/gaps.c) share:
 * their common
 * options, the tp_btf-then-raw_tp load and attach, the run (a duration, the toggle module's
 * pulses, or a command started once attached), and the log-linear histograms of bpf/rt.h.
 */
#ifndef GPIOLAT_RT_INT_H
#define GPIOLAT_RT_INT_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include <json-c/json.h>
#include "rt.h"
#include "core/cli.h"
#include "core/run.h"
#include "providers/provider.h"

/* the options every scheduling mode takes (rt_parse) */
struct rt_env {
	const char *mode; /* "wakeup", "gaps": error messages say "gpiolat --MODE: ..." */
	__u64 duration_ns;
	__u64 pulses; /* drive the toggle module: exactly this many pulses */
	bool json;
	bool verbose;
	const char *btf_path;
	bool raw_tp; /* raw tracepoints even where tp_btf works */
	char **cmd; /* the command after "--", started once attached, or NULL */
	bool usage_printed;
	bool help; /* --help said: nothing to run */
	char see[40]; /* "gpiolat --MODE --help" */
	struct cli_common common; /* -v, --json, --btf: into the fields above */
};

/* one "gpiolat: --MODE: ..." usage line (no exit) */
void rt_usage_error(struct argp_state *state, struct rt_env *env, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * argp of a mode (its own options; its parser hands ENV on: state->child_inputs[0] = ENV), then
 * the scheduling modes' options and the shared ones (core/cli.h), -v into R, root: EXIT_OK, an
 * exit status (EXIT_USAGE, EXIT_ERROR), or RUN_DONE after --help (as struct mode_ops' parse)
 */
int rt_parse(struct run *r, const struct argp *argp, int argc, char **argv, void *input,
	     struct rt_env *env);

/* what the run did */
struct rt_run {
	struct probe_figures fig; /* its provider's, once on: the hook ("tp_btf" or "raw_tp") */
	pid_t child; /* the command, 0: none */
	int child_fd; /* its go pipe */
	int child_status; /* its wait status, -1: still running at the end (stopped) */
	bool toggle_used;
	__s64 seq0, seq1; /* the toggle module's batch sequence numbers before and after */
	__u64 ran_ns;
	bool interrupted, timed_out;
	struct undo *undo; /* the run's (core/undo.h): the command's kill while it runs */
};

/*
 * a scheduling mode as one table of steps driven by run_mode() (core/run.h), over its BPF
 * object's provider (providers/bpf_rt.c): parse (the mode's own, through rt_parse), prepare
 * (rt_prepare, then the mode's prepared, then the provider set up with the mode's args), enable
 * (switched on: tp_btf, else raw_tp), go (rt_go), collect (switched off, read into out), print
 * (the mode's), undo (off, rt_finish, torn down). The exit status.
 */
struct rt_mode {
	struct rt_env *env;
	const struct provider *prov; /* prov_bpf_wakeup, prov_bpf_gaps */
	struct sched_args *args; /* the mode's arguments to it, final after prepared */
	void *out; /* what its read fills (struct wakeup_read, gaps_read) */
	void *ctx; /* the mode's, for parse, prepared and print */
	int (*parse)(struct run *r, void *ctx, int argc, char **argv);
	/* after the command was forked, before the provider is set up (or NULL) */
	int (*prepared)(void *ctx, struct rt_run *run);
	void (*print)(void *ctx, const struct rt_run *run, bool json);
	struct target t;
	struct probe_args a;
	struct probe p;
	struct rt_run run;
};
int rt_main(struct rt_mode *m, int argc, char **argv);

/* before attach: check the run's requests, fork the command (it waits) */
int rt_prepare(struct rt_env *env, struct rt_run *run);
/* attached: start the command or the pulses, wait for the end (or r->stop); 0, or -1 (said why) */
int rt_go(struct run *r, struct rt_env *env, struct rt_run *run);
/* on every way out: the module idle, the command stopped and reaped */
void rt_finish(struct rt_run *run);
/* the "run" object of the JSON output */
struct json_object *rt_run_json(const struct rt_env *env, const struct rt_run *run);
void rt_run_text(FILE *f, const struct rt_env *env, const struct rt_run *run);

/* histograms (summed by the provider): summary; text and JSON */
struct rt_summary {
	__u64 count, min, max;
	double mean, p50, p90, p99; /* NAN when count is 0 */
};
void rt_hist_summary(const struct rt_hist *h, struct rt_summary *s);
struct json_object *rt_hist_json(const struct rt_hist *h);
void rt_hist_text(FILE *f, const struct rt_hist *h, const char *indent);
/* "count 12, min 1.2 us, p50 ..., max 3 us" */
void rt_summary_text(FILE *f, const struct rt_summary *s);
/* the slot's [low, high) in ns */
__u64 rt_slot_low(int slot);
__u64 rt_slot_high(int slot);

#endif /* GPIOLAT_RT_INT_H */
