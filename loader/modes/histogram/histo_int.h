/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat's histogram mode, inside (docs/loader.md): pulse widths of GPIO lines histogrammed
 * in the kernel, and what the tracing costs. histo.c runs it (a struct mode_ops over run_mode();
 * its entry, histo_main(), is in histo.h for main.c); below it, histo_opts.c parses its
 * options, histo_report.c prints it, selftest.c is --self-test. Both the run and the self-test
 * measure through the gpiolat BPF provider (providers/bpf_gpiolat.c). Only these files include
 * it, and none of them reaches up to histo.c.
 */
#ifndef GPIOLAT_HISTO_INT_H
#define GPIOLAT_HISTO_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/types.h>
#include "core/gpio_bpf.h"
#include "core/hist.h"

#include "core/cli.h"
#include "providers/gpio_hooks.h"
#include "providers/provider.h"

#define MAX_SPECS 64
#define MAX_BATCHES 4096
#define POLL_MS 20
/* -i: intervals stay well above the poll period, so that each is about as long as asked */
#define MIN_INTERVAL_NS (100 * 1000000ULL)
#define FREE_PHASE_NS (500 * 1000000ULL) /* an untraced phase of a free-running toggler */
#define DEFAULT_UNTRACED_MAX 2000

enum output {
	OUT_TEXT,
	OUT_JSON,
	OUT_CSV,
};

struct histo_env {
	enum gpio_hook method;
	const char *hook_opt; /* the hook option given ("kprobe"): a second one is refused */
	bool list; /* --list: the hooks said, nothing run */
	const char *specs[MAX_SPECS];
	int nspecs;
	__u64 duration_ns;
	__u64 interval_ns;
	__u64 lin_width;
	enum unit unit;
	enum output out;
	bool json; /* --json given after any --csv (parse: out) */
	bool verbose;
	const char *btf_path; /* --btf; prepare: the file found (btf_find), NULL: the kernel's */
	bool nobtf; /* prepare: no BTF to find, the programs without CO-RE (gpio_bpf_no_btf) */
	bool self_test;
	__u64 pulses; /* 0: do not drive the toggle module */
	bool no_toggle; /* never start an idle toggle module for the run */
	bool bpf_stats; /* BPF run-time stats on while attached (they cost two clock reads a run) */
	long long untraced; /* pulses per untraced phase; -1: the default */
	bool usage_printed;
	bool help; /* --help, --usage or --version said: nothing to run */
	struct cli_common common; /* -v, --json, --btf, --bpf-stats: into the fields above */
};

/* what the run measured besides the histograms */
struct run_info {
	__u64 start_ns, end_ns; /* attached, detached: run_now_ns() */
	bool toggle, toggle_gpio_ok;
	__u32 toggle_gpio;
	__u64 rising0, falling0, rising1, falling1;
	bool edges_ok;
	struct stat_acc traced, untraced;
	/* the untraced phases before and after the traced one, each alone (the alternation) */
	struct stat_acc phase[2];
	__u64 phase_pulses[2];
	int nphases;
	__u64 traced_pulses, untraced_pulses;
	bool shift_wanted;
	bool drive; /* the module was idle: gpiolat lets it toggle for the run */
	int stats_fd;
	__u64 drops;
	bool timed_out;
};

/* histo_opts.c: argp, the command line only (no file looked at); 0, EXIT_USAGE (the one line
 * said), or RUN_DONE (--help said) */
int histo_parse(int argc, char **argv, struct histo_env *env);

/* selftest.c: gpiolat --self-test */
int histo_self_test(struct run *r, struct histo_env *env);

/* histo_report.c */
void histo_print_lines(const struct histo_env *env, struct line_result *lr, int n, FILE *f);
void histo_print_interval(const struct histo_env *env, int idx, __u64 t0, __u64 t1,
			  struct line_result *now, int n, struct line_result *prev, int nprev);
/* FIG: the program's figures (its BPF run-time stats: nprogs 0 when unread) */
void histo_print_overhead(const struct histo_env *env, const struct probe_figures *fig,
			  const struct run_info *ri);
void histo_print_json(const struct histo_env *env, const struct probe_figures *fig,
		      const struct run_info *ri, struct line_result *lr, int n);
void histo_print_toggle(const struct histo_env *env, const struct run_info *ri,
			struct line_result *lr, int n);

#endif /* GPIOLAT_HISTO_INT_H */
