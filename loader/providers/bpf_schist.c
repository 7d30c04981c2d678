// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the syscall-latency histogram (provider.h, bpf/syscall.bpf.c) and its variants (the
 * start kept as bpftrace keeps it, the cost breakdown's parts), on the first hook that loads
 * unless the method or the mode names one; loaded in setup, attached while on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "providers/provider.h"

const char *const sch_hook_names[SCH_HOOK_MAX] = { "tp_btf", "raw_tp", "tp" };

/* the programs of variant v on hook h: enter (exit_ 0) or exit (exit_ 1) */
static struct bpf_program *hist_prog(struct syscall_bpf *skel, enum sch_variant v, enum sch_hook h,
				     int exit_)
{
	struct bpf_program *p[SCH_HOOK_MAX][2] = {
		{ skel->progs.sc_btf_enter, skel->progs.sc_btf_exit },
		{ skel->progs.sc_raw_enter, skel->progs.sc_raw_exit },
		{ skel->progs.sc_tp_enter, skel->progs.sc_tp_exit },
	};

	/* the cost breakdown's parts: raw_tp only */
	if (v == SCH_CLOCK)
		return exit_ ? skel->progs.sc_clock_exit : skel->progs.sc_clock_enter;
	if (v == SCH_START)
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
/*
 * First of all the per-CPU slot (bpf/syscall.bpf.c, percpu_start): no task storage helper on a
 * syscall's path, a program on sched_switch moving a start whose thread is switched out
 * mid-syscall; it needs sched_switch's prev_state (Linux 5.18), tried by attaching.
 */
enum sch_start { SCS_LRU, SCS_TASK, SCS_NAIVE, SCS_PERCPU };

static const struct {
	enum sch_hook hook;
	enum sch_start start;
} hist_choices[] = {
	{ SCH_HOOK_RAW, SCS_PERCPU }, { SCH_HOOK_RAW, SCS_TASK }, { SCH_HOOK_BTF, SCS_TASK },
	{ SCH_HOOK_RAW, SCS_LRU },    { SCH_HOOK_TP, SCS_TASK },  { SCH_HOOK_TP, SCS_LRU },
};

/* the provider's own (p->priv): its object, the programs it loaded and their links, and what it
 * chose (its figures report it) */
struct schist {
	struct syscall_bpf *skel;
	struct probe_progs pp;
	const char *hook; /* sch_hook_names[] */
	const char *start; /* where it keeps the start; NULL: it keeps none (SCH_CLOCK) */
};

static const char *const start_names[] = { "LRU hash", "task storage", "hash, update/delete",
					   "per-CPU slot" };

/*
 * the histogram programs (variant v) on the first of hist_choices that loads, on hook only
 * if only >= 0 (the method's hook + 1, else the mode's: struct target.hook); the hook and
 * where it keeps the start kept in its state. GPIOLAT_SC_LRU=1 (a diagnostic): no task storage.
 */
static int schist_setup(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	enum sch_variant v = ba->variant;
	int only = ba->hook ? ba->hook - 1 : p->t->hook;
	struct syscall_bpf *skel;
	char buf[96], tried[6 * 120] = "";
	struct bpf_program *prog;
	struct schist *sh = probe_priv(p, sizeof(*sh));
	size_t len = 0;
	int c, h, err;
	bool ts, pc;

	if (!sh) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	for (c = 0; c < (int)(sizeof(hist_choices) / sizeof(hist_choices[0])); c++) {
		h = hist_choices[c].hook;
		ts = hist_choices[c].start == SCS_TASK;
		pc = hist_choices[c].start == SCS_PERCPU;
		if ((only >= 0 && h != only) ||
		    ((ts || pc) && (v == SCH_NAIVE || getenv("GPIOLAT_SC_LRU"))) ||
		    ((v == SCH_CLOCK || v == SCH_START) && h != SCH_HOOK_RAW))
			continue;
		skel = syscall_bpf__open();
		if (!skel) {
			snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
			return -1;
		}
		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_autoload(prog, false);
		bpf_program__set_autoload(hist_prog(skel, v, h, 0), true);
		bpf_program__set_autoload(hist_prog(skel, v, h, 1), true);
		pc = pc && v != SCH_CLOCK;
		bpf_program__set_autoload(skel->progs.sc_switch, pc);
		skel->rodata->naive = v == SCH_NAIVE;
		skel->rodata->task_storage = ts;
		skel->rodata->percpu_start = pc;
		/* only the start's maps in use are created (the LRU hash is pre-allocated) */
		bpf_map__set_autocreate(skel->maps.sc_task_starts, ts);
		bpf_map__set_autocreate(skel->maps.sc_starts, !ts && !pc);
		bpf_map__set_autocreate(skel->maps.sc_slots, pc);
		bpf_map__set_autocreate(skel->maps.sc_spill, pc);
		err = syscall_bpf__load(skel);
		if (!err && pc) {
			/* sched_switch's prev_state there: attached once to see (on: schist_on) */
			struct bpf_link *l = bpf_program__attach(skel->progs.sc_switch);

			err = l ? 0 : -errno;
			bpf_link__destroy(l);
		}
		if (!err) {
			sh->skel = skel;
			sh->pp.progs[0] = hist_prog(skel, v, h, 0);
			sh->pp.progs[1] = hist_prog(skel, v, h, 1);
			sh->pp.progs[2] = pc ? skel->progs.sc_switch : NULL;
			sh->hook = sch_hook_names[h];
			/* the clock reads alone keep no start */
			sh->start = v == SCH_CLOCK ?
					    NULL :
					    start_names[v == SCH_NAIVE ? SCS_NAIVE :
									 hist_choices[c].start];
			return 0;
		}
		len += snprintf(tried + len, sizeof(tried) - len, "%s%s with the %s: %s",
				len ? "; " : "", sch_hook_names[h],
				start_names[hist_choices[c].start],
				probe_errstr(err, buf, sizeof(buf)));
		syscall_bpf__destroy(skel);
		if (len >= sizeof(tried))
			len = sizeof(tried) - 1;
	}
	snprintf(why, size, "no hook loads the histogram programs (%s)", tried);
	return -1;
}

static int schist_on(struct probe *p, char *why, size_t size)
{
	struct schist *sh = p->priv;
	int i;

	for (i = 0; i < PROBE_MAX_PROGS && sh->pp.progs[i]; i++)
		if (probe_link_add(&sh->pp, bpf_program__attach(sh->pp.progs[i]),
				   bpf_program__section_name(sh->pp.progs[i]), why, size))
			return -1;
	return 0;
}

static int schist_off(struct probe *p)
{
	struct schist *sh = p->priv;

	if (sh)
		probe_links_destroy(&sh->pp);
	return 0;
}

static int schist_figures(struct probe *p, struct probe_figures *f)
{
	struct schist *sh = p->priv;
	struct bpf_program *prog;

	if (!sh || !sh->skel)
		return -1;
	f->hook = sh->hook;
	f->start = sh->start;
	bpf_object__for_each_program(prog, sh->skel->obj)
		if (bpf_program__fd(prog) >= 0)
			probe_prog_figures(bpf_program__fd(prog), f);
	return 0;
}

static void schist_teardown(struct probe *p)
{
	struct schist *sh = p->priv;

	if (sh) {
		probe_links_destroy(&sh->pp);
		syscall_bpf__destroy(sh->skel);
	}
	probe_priv_free(p);
}

/* the histogram summed over the CPUs (struct schist_read) */
static int schist_read(struct probe *p, void *out, char *why, size_t size)
{
	int ncpus = libbpf_num_possible_cpus(), c, i;
	struct schist *sh = p->priv;
	struct syscall_bpf *skel = sh ? sh->skel : NULL;
	struct schist_read *r = out;
	struct sc_hist *h;
	__u32 zero = 0;

	h = skel && ncpus > 0 ? calloc(ncpus, sizeof(*h)) : NULL;
	if (!h) {
		snprintf(why, size, "%s", skel ? "out of memory" : "nothing loaded");
		return -1;
	}
	if (bpf_map__lookup_elem(skel->maps.sc_hists, &zero, sizeof(zero), h, ncpus * sizeof(*h),
				 0)) {
		snprintf(why, size, "reading the histogram failed: %s", strerror(errno));
		free(h);
		return -1;
	}
	memset(r->hist, 0, sizeof(*r->hist));
	r->unmatched = 0;
	for (c = 0; c < ncpus; c++) {
		r->hist->sum_ns += h[c].sum_ns;
		r->unmatched += h[c].unmatched;
		/* the count is the sum of the slots (the program keeps no count of its own) */
		for (i = 0; i < SC_LOG2_SLOTS && i < GPIOLAT_LOG2_SLOTS; i++) {
			r->hist->log2[i] += h[c].slots[i];
			r->hist->pairs += h[c].slots[i];
		}
	}
	free(h);
	return 0;
}

const struct provider prov_bpf_schist = { .name = "the syscall-latency histogram",
					  .targets = TGT_SYSCALLS,
					  .setup = schist_setup,
					  .on = schist_on,
					  .off = schist_off,
					  .teardown = schist_teardown,
					  .read = schist_read,
					  .figures = schist_figures };
