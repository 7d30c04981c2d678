// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the report, text and JSON, beside the notebook's and LTTng's figures
 * (syscall_cost_int.h).
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
#include "core/jit.h"
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "modes/syscall/syscall_cost_int.h"
#include "core/jsonout.h"

struct ref {
	const char *csv, *method, *kind;
};

static const char *method_ref(const char *name)
{
	int i;

	for (i = 0; i < sc_nmethods; i++)
		if (!strcmp(sc_methods[i].name, name))
			return sc_methods[i].ref;
	return NULL;
}

static void fmt_ns(char *buf, size_t size, double v)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f", v);
}

void sc_print_text(const struct sc_env *env, struct result *res, const struct stat_acc *untraced,
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
	for (i = 0; i < sc_nmethods; i++) {
		struct result *r = &res[i];

		if (!env->selected[i])
			continue;
		if (!r->done) {
			printf("%-19s %s\n", sc_methods[i].name, r->why[0] ? r->why : "not run");
			continue;
		}
		fmt_ns(a, sizeof(a), r->rounds.d.mean);
		snprintf(b, sizeof(b), "±%.1f", alt_ci95(&r->rounds));
		fmt_ns(c, sizeof(c), sc_quantile(r->added, r->nadded, 0.50));
		fmt_ns(d, sizeof(d), sc_quantile(r->added, r->nadded, 0.90));
		fmt_ns(e, sizeof(e), sc_quantile(r->added, r->nadded, 0.99));
		if (r->fig.run_cnt)
			snprintf(bpf, sizeof(bpf), "%.1f (%llu)",
				 (double)r->fig.run_time_ns / r->fig.run_cnt,
				 (unsigned long long)r->fig.run_cnt);
		else
			snprintf(bpf, sizeof(bpf), "-");
		f[0] = '\0';
		if (sc_methods[i].ref &&
		    !baseline_find(notebook_csv, sc_methods[i].ref, "overhead", &v, NULL, NULL, 0))
			snprintf(f, sizeof(f), "+%.0f", v);
		printf("%-19s %9s %9s %9s %9s %9s %7d %18s %8s  %s%s%s", sc_methods[i].name, a, b,
		       c, d, e, r->nadded, bpf, f[0] ? f : "-", sc_methods[i].what,
		       r->fig.hook ? ", hook " : "", r->fig.hook ? r->fig.hook : "");
		if (r->fig.start)
			printf(", start in %s", r->fig.start);
		printf("\n");
	}
	printf("\nmean: of the per-round differences (traced run - mean of the untraced runs "
	       "before and after; a run's figure is the median of its batches), 95%% CI: of that "
	       "mean as sampled (neighbouring rounds share an untraced run: the variance of the "
	       "traced and untraced runs, Welch's degrees of freedom); p50/p90/p99: of the per-batch differences to the same untraced "
	       "figure. BPF ns/run: BPF_ENABLE_STATS run time per program run "
	       "(runs, all CPUs; the stats add two clock reads to each run), for every BPF method; "
	       "%s.\n",
	       env->bpf_stats ? "stats ON for this whole run (--bpf-stats): every figure above "
				"includes their two clock reads per program run" :
				"stats off (--bpf-stats turns them on)");
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
	    !baseline_find(markers_csv, "kprobe", "cycles", &sd, NULL, NULL, 0) &&
	    !baseline_against(markers_csv, "kprobe", "cycles", a, sizeof(a)))
		printf("reference: kernel markers (Pentium 4 3 GHz, 2.6.17): enabled marker with "
		       "an empty probe %.2f cycles per loop, an empty kprobe %.2f cycles more than "
		       "%s (data/baseline-lttng-markers.csv; make microbench measures these)\n",
		       v, sd, a);
	printf("BPF JIT: %s\n", jit_state());
	if (sys_emulated())
		printf("note: these timings are emulated (qemu), not real hardware: compare them "
		       "with each other, not with the references\n");
}

void sc_print_json(const struct sc_env *env, struct result *res, const struct stat_acc *untraced)
{
	struct json_object *o, *a, *m, *ad, *u, *refs, *bpf, *rd;
	struct utsname un;
	double se;
	long df = 0;
	__u64 k;
	int i;

	uname(&un);
	o = json_doc("gpiolat", "syscall-cost");
	json_object_object_add(o, "kernel", json_object_new_string(un.release));
	json_object_object_add(o, "machine", json_object_new_string(un.machine));
	json_object_object_add(o, "emulated", json_object_new_boolean(sys_emulated()));
	json_object_object_add(o, "cpu", json_object_new_int(env->cpu));
	json_object_object_add(o, "rounds", json_object_new_int64(env->rounds));
	json_object_object_add(o, "bpf_stats", json_object_new_boolean(env->bpf_stats));
	json_object_object_add(o, "batches_per_run", json_object_new_int64(env->batches));
	json_object_object_add(o, "syscalls_per_batch",
			       json_object_new_int64(env->iters * SC_PER_ITER));
	u = json_object_new_object();
	json_object_object_add(u, "batches", json_object_new_uint64(untraced->n));
	json_object_object_add(u, "mean_ns", json_num(untraced->mean));
	json_object_object_add(u, "sd_ns", json_num(stat_sd(untraced)));
	json_object_object_add(u, "min_ns", json_num(untraced->min));
	json_object_object_add(u, "max_ns", json_num(untraced->max));
	json_object_object_add(o, "untraced_ns_per_syscall", u);
	a = json_object_new_array();
	for (i = 0; i < sc_nmethods; i++) {
		struct result *r = &res[i];

		if (!env->selected[i])
			continue;
		m = json_object_new_object();
		json_object_object_add(m, "name", json_object_new_string(sc_methods[i].name));
		json_object_object_add(m, "what", json_object_new_string(sc_methods[i].what));
		json_object_object_add(m, "available", json_object_new_boolean(r->done));
		json_object_object_add(m, "reason",
				       r->done ? NULL : json_object_new_string(r->why));
		json_object_object_add(
			m, "hook",
			r->done && r->fig.hook ? json_object_new_string(r->fig.hook) : NULL);
		json_object_object_add(
			m, "start",
			r->done && r->fig.start ? json_object_new_string(r->fig.start) : NULL);
		ad = NULL;
		if (r->done) {
			ad = json_object_new_object();
			json_object_object_add(ad, "mean_ns", json_num(r->rounds.d.mean));
			json_object_object_add(ad, "ci95_ns", json_num(alt_ci95(&r->rounds)));
			json_object_object_add(ad, "ci999_ns", json_num(alt_ci999(&r->rounds)));
			json_object_object_add(ad, "sd_rounds_ns", json_num(stat_sd(&r->rounds.d)));
			/* what ci95_ns is made of (two runs compared: host/compare.py) */
			se = alt_se(&r->rounds, &df);
			json_object_object_add(ad, "se_ns", json_num(se));
			json_object_object_add(ad, "df",
					       isnan(se) ? NULL : json_object_new_int64(df));
			json_object_object_add(ad, "p50_ns",
					       json_num(sc_quantile(r->added, r->nadded, 0.50)));
			json_object_object_add(ad, "p90_ns",
					       json_num(sc_quantile(r->added, r->nadded, 0.90)));
			json_object_object_add(ad, "p99_ns",
					       json_num(sc_quantile(r->added, r->nadded, 0.99)));
			json_object_object_add(ad, "rounds", json_object_new_uint64(r->rounds.d.n));
			rd = json_object_new_array();
			for (k = 0; k < r->rounds.d.n && k < MAX_ROUNDS; k++)
				json_object_array_add(rd, json_num(r->round_added[k]));
			json_object_object_add(ad, "rounds_ns", rd);
			json_object_object_add(ad, "batches", json_object_new_int(r->nadded));
			json_object_object_add(ad, "traced_mean_ns", json_num(r->traced.mean));
		}
		json_object_object_add(m, "added_ns_per_syscall", ad);
		bpf = NULL;
		if (r->done && r->fig.nprogs) {
			const struct probe_figures *f = &r->fig;

			bpf = json_object_new_object();
			json_object_object_add(bpf, "programs", json_object_new_int(f->nprogs));
			json_object_object_add(bpf, "stats", json_object_new_boolean(r->stats));
			json_object_object_add(bpf, "run_cnt", json_object_new_uint64(f->run_cnt));
			json_object_object_add(bpf, "run_time_ns",
					       json_object_new_uint64(f->run_time_ns));
			json_object_object_add(
				bpf, "mean_ns_per_run",
				f->run_cnt ? json_object_new_double((double)f->run_time_ns /
								    f->run_cnt) :
					     NULL);
		}
		json_object_object_add(m, "bpf", bpf);
		json_object_object_add(m, "reference",
				       sc_methods[i].ref ?
					       json_reference(notebook_csv, sc_methods[i].ref,
							      "overhead", REF_PLAIN) :
					       NULL);
		json_object_array_add(a, m);
	}
	json_object_object_add(o, "methods", a);
	refs = json_object_new_array();
	json_object_array_add(refs, json_reference(notebook_csv, "untraced", "syscall", REF_PLAIN));
	json_object_array_add(
		refs, json_reference(notebook_csv, "raw-syscalls-event", "overhead", REF_PLAIN));
	json_object_array_add(
		refs, json_reference(notebook_csv, "syscall-events", "overhead", REF_PLAIN));
	json_object_array_add(refs,
			      json_reference(notebook_csv, "kprobe-event", "overhead", REF_PLAIN));
	json_object_array_add(
		refs, json_reference(markers_csv, "marker-empty-probe", "cycles", REF_PLAIN));
	json_object_array_add(refs, json_reference(markers_csv, "kprobe", "cycles", REF_PLAIN));
	json_object_object_add(o, "reference", refs);
	json_print_put(o, JSON_C_TO_STRING_PLAIN);
	(void)method_ref;
}
