/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the one provider model of the measuring modes (--overhead, --syscall-cost). A
 * provider is one kind of tracing method written once (ply's habit): a struct of named
 * callbacks, a NULL callback meaning nothing to do at that step, and the targets it can
 * measure. One file per family:
 *   tracefs.c        tracefs events, filter, trigger, hist trigger, synthetic event, trace_marker
 *   tracefs_probe.c  kprobe events, uprobe events
 *   ftrace.c         the function and function_graph tracers, trace_printk
 *   bpf.c            empty BPF programs on a hook, a kernel function, a user function
 *   bpf_gpiolat.c    gpiolat's own program on the GPIO set (its histogram, the trust check): the
 *                    histogram mode's lines, --self-test's check, --overhead's rows
 *   bpf_schist.c     the syscall-latency histogram and its variants
 *   tools.c          child tools: strace, perf trace, bpftrace, ply, gpiolat --syscall-hist
 *   bpf_rt.c         the scheduling objects of --wakeup and --gaps (tp_btf, else raw_tp)
 * A mode keeps a table of methods, each naming its provider and the provider's arguments
 * (struct probe_args: its family's own, which events, functions, hook, script), and fills a
 * struct target with what it measures. Nothing here includes a mode's header.
 */
#ifndef GPIOLAT_PROVIDER_H
#define GPIOLAT_PROVIDER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "rt.h"
#include "core/child.h"
#include "core/run.h"

struct tracefs_instance;
struct tep_handle;
struct line_sel;
struct line_result;
struct bpf_link;
struct bpf_program;

/* what a provider can measure (struct provider.targets; struct target.kind is one of them) */
#define TGT_GPIO_PULSE (1u << 0) /* --overhead: the toggle module's GPIO set, in the kernel */
#define TGT_USER_PULSE (1u << 1) /* --overhead's user rows: utoggle, a process setting a line */
#define TGT_SYSCALLS (1u << 2) /* --syscall-cost: the worker's read, write and ioctl */
#define TGT_SCHED (1u << 3) /* --wakeup, --gaps: the scheduler around tasks and a line */

/* the target, as the mode has it: read (and, where said, written) by every provider */
struct target {
	unsigned int kind; /* one TGT_* */
	struct run *run; /* the stop flag, verbosity, BPF stats */
	struct tracefs_instance *inst; /* the mode's tracefs instance, or NULL */
	const char *instance; /* its name */
	const char *group; /* our kprobe and uprobe events' group */
	struct tep_handle *tep; /* the event formats (hist triggers); the synthetic event's too */
	const char *btf_path; /* BTF for CO-RE, or NULL */
	__u32 gpio; /* TGT_GPIO_PULSE: the toggled line */
	double untraced_ns; /* TGT_GPIO_PULSE: the untraced set before any method, ns */
	pid_t pid; /* the traced process (utoggle, the worker), or 0 */
	const char *exe; /* its executable */
	unsigned long off; /* the file offset of its traced function in exe, or 0 */
	const char *fn; /* that function's name */
	const char *script; /* a tool's script when the method names none (--bpftrace-script) */
	int hook; /* the syscall histogram's hook when the method names none; -1: the cheapest */
	bool marker_ok, marker; /* TGT_USER_PULSE: utoggle can write trace_marker; does (on) */
	struct child child; /* the method's child tool */
};

/* how an empty BPF program is attached (struct bpf_args.attach) */
enum probe_attach {
	ATTACH_SECTION, /* as its section says (tp/..., raw_tp/..., tp_btf/..., fentry/...) */
	ATTACH_KPROBE, /* a kprobe on each of funcs */
	ATTACH_UPROBE, /* a uprobe on the target's user function */
	ATTACH_RAW_TP, /* a raw tracepoint: events[0] */
	ATTACH_BTF, /* fentry/fexit: program i on function i (its BTF), set before it is loaded */
};

#define PROBE_MAX_PROGS 3
#define PROBE_MAX_LINKS 6
#define PROBE_MAX_DYN 11

/*
 * a method's arguments to its provider (the mode's method table holds them): what every
 * provider may read, and one pointer to the arguments of the provider's own family (the others
 * NULL; a family given none reads its empty ones: probe_ev(), probe_bpf(), probe_tool())
 */
struct probe_args {
	const char *needs; /* what the kernel lacks when an event is missing (the message) */
	const struct events_args *ev; /* tracefs.c, tracefs_probe.c, ftrace.c */
	const struct bpf_args *bpf; /* bpf.c, bpf_gpiolat.c, bpf_schist.c */
	const struct sched_args *sched; /* bpf_rt.c */
	const struct tool_args *tool; /* tools.c */
};

/* the tracefs families' arguments: events, kprobe and uprobe events, tracers */
struct events_args {
	const char *system; /* tracefs events: their system */
	const char *events[11]; /* their names (a NULL ends them); the first k when k */
	const char *funcs[11]; /* kernel functions (kprobes, filters); a NULL ends them */
	const char *names[11]; /* our dynamic events' names, one per function (or uprobe) */
	bool syscalls; /* funcs are syscalls: their kernel functions looked up (__x64_sys_...) */
	bool ret; /* uprobe events: a uretprobe too (names[1]) */
	int k; /* a series: how many of them are switched on */
	const char *filter; /* tracefs events: their filter while on (NULL: none) */
	bool top_level; /* tracers: the top level's, not our instance's */
};

/* the BPF program families' arguments: empty programs, gpiolat's, the syscall histogram */
struct bpf_args {
	const char *progs[PROBE_MAX_PROGS]; /* the programs loaded (a NULL ends them) */
	enum probe_attach attach;
	const char *funcs[PROBE_MAX_LINKS]; /* ATTACH_KPROBE, ATTACH_BTF: kernel functions */
	bool syscalls; /* funcs are syscalls: their kernel functions looked up (__x64_sys_...) */
	const char *event; /* ATTACH_RAW_TP: the raw tracepoint */
	int hook; /* gpiolat's and the empty GPIO programs: GPIO_HOOK_*; the histogram's */
	int part; /* gpiolat's program: GPIO_PART_* */
	int features; /* gpiolat's program: GPIO_FEAT_* (0: --overhead's, trust and linear) */
	int variant; /* the syscall histogram: SCH_* */
	const struct gpio_watch *watch; /* gpiolat's program: the histogram mode's lines, or NULL */
};

/* the child tools' arguments */
struct tool_args {
	const char *script; /* their script (NULL: the target's) */
};

/* a method table's family arguments, static as a file-scope table is: .a = { EV_ARGS(...) } */
#define EV_ARGS(...)                      \
	.ev = &(const struct events_args) \
	{                                 \
		__VA_ARGS__               \
	}
#define BPF_ARGS(...)                   \
	.bpf = &(const struct bpf_args) \
	{                               \
		__VA_ARGS__             \
	}
#define TOOL_ARGS(...)                    \
	.tool = &(const struct tool_args) \
	{                                 \
		__VA_ARGS__               \
	}

/* the scheduling objects' arguments (struct probe_args.sched) */
struct sched_args {
	bool raw_tp; /* raw tracepoints even where tp_btf works */
	__u32 line; /* --gaps: the GPIO line */
	const __u32 *pids; /* --wakeup: the traced threads */
	int npids;
	__u64 threshold_ns; /* --gaps: a gap at least this long is attributed */
};

/* what --wakeup's object read (provider.read): per traced thread, as sched_args.pids */
struct wakeup_read {
	struct rt_task_counts n[RT_MAX_TASKS];
	struct rt_hist h[RT_MAX_TASKS][RT_LAT_MAX];
};

/* what --gaps' object read (provider.read) */
struct gaps_cause {
	struct rt_cause_key k;
	struct rt_cause_val v;
};
struct gaps_read {
	struct rt_hist h; /* the gaps */
	struct rt_gap_counts n;
	__u32 tid; /* the task that set the line first */
	struct gaps_cause *causes; /* room for max_causes, n_causes read (in the map's order) */
	int max_causes, n_causes;
};

/* what the tracefs events read (provider.read): the instance's trace, to fclose() */
struct trace_read {
	FILE *f;
};

/*
 * gpiolat's program as the histogram mode runs it (struct bpf_args.watch): which lines, with
 * which features; without it, --overhead's row: the toggled line (struct target.gpio) alone
 */
struct gpio_watch {
	const struct line_sel *sel; /* the -l lines; none: every line of the system's chips */
	int nsel;
	__u64 lin_width; /* linear buckets of this width (--linear), 0: none */
	bool intervals; /* read while it runs (-i): two halves a line */
	bool verbose; /* say the chips whose base is unknown */
	const __u32 *pair; /* no BTF, the kprobe: the lines its pre-phase pairs with their descs */
	int npair;
	bool load_only; /* --self-test: one line slot, nothing indexed or paired: load, attach */
};

/* what gpiolat's program read for the histogram mode (provider.read) */
struct gpio_read {
	struct line_result *lr; /* every watched line that saw a set (every -l line), by number */
	int max; /* room in lr */
	int n; /* lines read */
	__u64 drops; /* sets of lines it gave no slot at start */
};

/*
 * bpf_gpiolat.c: the trust check's figures of a program on the GPIO set (gpiolat's and the
 * empty ones, --overhead's rows): per method phase, the traced ns per set by the module's clock
 * and the program's own (its fall-to-fall periods / 2)
 */
#define PROBE_MAX_PHASES 100
struct gpio_trust {
	int tphases, tdropped; /* phases compared, phases left out (a period not counted) */
	double t_mod[PROBE_MAX_PHASES], t_prog[PROBE_MAX_PHASES];
	int t_index[PROBE_MAX_PHASES]; /* each compared phase's number among the method phases */
	__u64 t_batches, t_pulses, t_periods; /* the compared phases' counts */
	double t_scale; /* GPIOLAT_TRUST_SCALE: the program's clock scaled on purpose (1: not) */
};

/* the figures a provider keeps of its programs (struct provider.figures): the mode embeds it */
struct probe_figures {
	__u64 run_cnt, run_time_ns; /* BPF run-time statistics of its programs */
	__u64 recursion_misses; /* their runs missed (recursion) */
	int nprogs;
	const char *prog; /* the program that ran, by name (gpiolat's provider), or NULL */
	/* what the provider chose where the method left it the choice, or NULL */
	const char *hook; /* the hook its programs are on (the syscall histogram, bpf_rt.c) */
	const char *start; /* where the syscall histogram keeps a syscall's start */
	/* gpiolat's program on the GPIO set: its histogram of the toggled line */
	bool hist_ok;
	double hist_mean, hist_p50; /* ns */
	__u64 hist_pairs;
	struct gpio_trust trust; /* the programs on the GPIO set (bpf_gpiolat.c) */
};

/*
 * a BPF family's programs and their links, in its private state (provider.c's helpers take
 * them): the programs it loaded (a NULL ends them), the links while on
 */
struct probe_progs {
	struct bpf_program *progs[PROBE_MAX_PROGS];
	struct bpf_link *links[PROBE_MAX_LINKS];
	int nlinks;
};

/* one method's provider at work: its arguments, the target, and what the provider holds */
struct probe {
	const struct provider *ops; /* NULL: nothing at all (a control) */
	const struct probe_args *a;
	struct target *t;
	void *priv; /* its family's private state, behind this one pointer (probe_priv) */
};

/*
 * a count (struct provider.count) that goes at its provider's off (a hist's hits, a trace's
 * lines, a tool's output), in its family's private state: read live while on, kept by the off
 */
struct kept_count {
	__u64 n;
	bool live; /* on: n is read again at each count */
};
/* provider.c: K's count into N, read by READ while live; 0, or -1 (READ failed) */
typedef int (*kept_reader)(struct probe *p, __u64 *n);
int kept_count_read(struct probe *p, struct kept_count *k, kept_reader read, __u64 *n);
/* K at its provider's off: read a last time while live (0 when that fails), then kept */
void kept_count_off(struct probe *p, struct kept_count *k, kept_reader read);

/*
 * A provider: set up once (0, or -1 and why), switched on (0, or -1 and why when it knows
 * better than errno) and off per phase, torn down on every way out (also after a failed setup),
 * and its programs' figures (0, or -1: it has no program). NULL: nothing to do at that step.
 * count: how often the method ran, its own count (a running total, or one a phase long that
 * its on starts again), read by the mode after on (before the phase) and after off (after it),
 * never inside the phase; *per_pulse: the counts one pulse of the GPIO target gives when the
 * method runs at every set (2: once a set; 1: once a pulse); 0; 1 when it keeps no count in this
 * run (why: e.g. BPF run-time stats off); -1 when its count could not be read (why): no proof
 * that it fired. NULL: the method keeps no count (counted_by says what proves it ran instead).
 */
struct provider {
	const char *name;
	unsigned int targets; /* TGT_*: what it can measure */
	/* what it changes outlives gpiolat (tracefs, the module): after a kill, only the undo
	 * journal takes it back (BPF links and child tools go with the process) */
	bool lasting;
	int (*setup)(struct probe *p, char *why, size_t size);
	int (*on)(struct probe *p, char *why, size_t size);
	int (*off)(struct probe *p);
	void (*teardown)(struct probe *p);
	int (*figures)(struct probe *p, struct probe_figures *f);
	/* what its programs hold, into OUT (the family's struct: gpio_read, ...), on or off; 0, or
	 * -1 and why */
	int (*read)(struct probe *p, void *out, char *why, size_t size);
	int (*count)(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size);
	const char *counted_by; /* what count proves it ran: "kprobe_profile hits", ... */
};

/* provider.c: one probe, and its steps (a NULL callback: nothing to do) */
void probe_init(struct probe *p, const struct provider *ops, const struct probe_args *a,
		struct target *t);
int probe_setup(struct probe *p, char *why, size_t size);
int probe_on(struct probe *p, char *why, size_t size);
int probe_off(struct probe *p);
void probe_teardown(struct probe *p);
int probe_figures(struct probe *p, struct probe_figures *f);
/* what it holds (provider.read); 0, or -1 and why (also: it has nothing to read) */
int probe_read(struct probe *p, void *out, char *why, size_t size);
/* the method's own count (provider.count); 0; 1 and why: it keeps none here ("keeps no count");
 * -1 and why: it could not be read */
int probe_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size);
/* what counts it, or what else proves it ran */
const char *probe_counted_by(const struct probe *p);
/* the events written to INST's ring buffer (NULL: the top level's) so far, every CPU: entries,
 * overrun and dropped of per_cpu/cpuN/stats; 0, or -1 */
int probe_ring_events(struct tracefs_instance *inst, __u64 *n);
/* the event SYS:EV of INST switched on or off: its own enable file written (libtracefs's
 * tracefs_event_enable() takes a regex and reads every system's folder to match it); 0, or -1 */
int probe_event_switch(struct tracefs_instance *inst, const char *sys, const char *ev, bool on);
/* the lines of INST's trace (NULL: the top level's) that contain WORD; 0, or -1 */
int probe_trace_lines(struct tracefs_instance *inst, const char *word, __u64 *n);
/* the target's tracefs instance; 0, or -1 and why */
int probe_need_instance(const struct probe *p, char *why, size_t size);
/* a libbpf error in words (524: ENOTSUPP) */
const char *probe_errstr(int err, char *buf, size_t size);
/* keep link L of WHAT in PP; 0, or -1 and why */
int probe_link_add(struct probe_progs *pp, struct bpf_link *l, const char *what, char *why,
		   size_t size);
/* PP's links destroyed (its programs detached); how many there were */
int probe_links_destroy(struct probe_progs *pp);
/* add the run-time figures of the program of FD to F */
void probe_prog_figures(int fd, struct probe_figures *f);
/* the arguments of the method's family (struct probe_args), its empty ones when it gave none */
const struct events_args *probe_ev(const struct probe *p);
const struct bpf_args *probe_bpf(const struct probe *p);
const struct tool_args *probe_tool(const struct probe *p);
/* the family's private state of SIZE bytes: allocated zeroed at its first call (in setup),
 * the same after; NULL: out of memory. probe_priv_free() frees it (teardown). */
void *probe_priv(struct probe *p, size_t size);
void probe_priv_free(struct probe *p);

/* the providers, one file per family */
extern const struct provider prov_events, prov_filter, prov_trigger, prov_hist, prov_synth,
	prov_marker; /* tracefs.c */
extern const struct provider prov_kprobe_events, prov_uprobe_events; /* tracefs_probe.c */
extern const struct provider prov_function, prov_graph, prov_printk; /* ftrace.c */
extern const struct provider prov_bpf_empty; /* bpf.c */
extern const struct provider prov_bpf_gpiolat; /* bpf_gpiolat.c */
extern const struct provider prov_bpf_schist; /* bpf_schist.c */
extern const struct provider prov_strace, prov_perf_trace, prov_bpftrace, prov_ply,
	prov_self_schist; /* tools.c */
extern const struct provider prov_bpf_wakeup, prov_bpf_gaps; /* bpf_rt.c */

/* bpf_rt.c: the per-CPU copies of a histogram summed */
void rt_hist_sum(struct rt_hist *out, const struct rt_hist *percpu, int ncpus);

/*
 * tracefs.c: the target's tracefs instance NAME (t->inst, t->instance), recorded in U before it
 * is made (one that was there before is used and left as found), the event formats of the
 * systems TEP (NULL: none) in t->tep; 0, or -1 and why
 */
struct undo;
int target_instance_make(struct target *t, struct undo *u, const char *name, const char **tep,
			 char *why, size_t size);
/* the instance's trace clock (mono, ...) and its ring buffer per CPU, KiB; 0, or -1 */
int target_instance_set(const struct target *t, const char *clock, unsigned int buffer_kb);
/* the path of the instance's trace_marker (a toggler writes it), to free(); NULL */
char *target_marker_file(const struct target *t);
/* t->inst and t->tep freed; REMOVE: the instance removed now (else its undo step removes it) */
void target_instance_free(struct target *t, bool remove);

/* tracefs_probe.c: the kernel function of a syscall (__x64_sys_read, sys_read, ...) */
int syscall_function(const char *sc, char *out, size_t size);
bool kprobe_pmu(void);
/* the kernel function of FUNC (SYSCALLS: FUNC is a syscall, looked up); 0, or -1 and why */
int probe_func(const char *func, bool syscalls, char *fn, size_t fsize, char *why, size_t size);

/* the run count of the programs PP of a probe (run_cnt, with --bpf-stats); 0, 1 and why: the
 * stats are off, or -1 and why */
int probe_run_count(const struct probe *p, const struct probe_progs *pp, __u64 *n,
		    unsigned int *per_pulse, char *why, size_t size);
/* bpf_gpiolat.c: the GPIO hook's own check (its tracepoint, gpiod_set_value, BTF); 0, or -1 */
int probe_gpio_hook_check(const struct probe *p, char *why, size_t size);
/*
 * bpf_gpiolat.c: the trust check's phases of a program on the GPIO set, kept in its family's
 * private state (an empty program's here; gpiolat's keeps its own): allocated (NULL: out of
 * memory), started and ended around each method phase (NULL: nothing), their figures, freed
 */
struct gpio_phases;
struct gpio_phases *gpio_phases_alloc(void);
void gpio_phases_start(struct gpio_phases *ph);
void gpio_phases_end(struct gpio_phases *ph);
void gpio_phases_figures(const struct gpio_phases *ph, struct probe_figures *f);
void gpio_phases_free(struct gpio_phases *ph);
/* bpf_gpiolat.c: a program's fall-to-fall period longer spans a rest (>= 1 ms) */
#define TRUST_PERIOD_MAX 500000ULL /* ns */

/* bpf_schist.c: the syscall histogram's hooks and what of it runs (bpf_args.variant) */
enum sch_hook { SCH_HOOK_BTF, SCH_HOOK_RAW, SCH_HOOK_TP, SCH_HOOK_MAX };
enum sch_variant {
	SCH_FULL, /* gpiolat's histogram */
	SCH_NAIVE, /* the start kept as bpftrace keeps it: update on enter, lookup+delete on exit */
	SCH_CLOCK, /* only the two clock reads (the cost breakdown) */
	SCH_START, /* the clock reads and the start kept, no histogram (the cost breakdown) */
};
extern const char *const sch_hook_names[SCH_HOOK_MAX];
/* what the syscall histogram read (provider.read; --syscall-hist): its totals so far */
struct gpiolat_hist;
struct schist_read {
	struct gpiolat_hist *hist; /* summed over the CPUs, its pairs the sum of its slots */
	__u64 unmatched; /* exits with no start kept */
};

#endif /* GPIOLAT_PROVIDER_H */
