// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the gpiolat BPF object behind a small API (gpio_bpf.h). */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h"
#include "gpiolat.skel.h"
#include "gpiolat_nobtf.skel.h"
#include "core/gpio_bpf.h"
#include "core/run.h"
#include "core/sys.h"

/* the largest GPIO number indexed + 1 (at least 1): the lines map's size */
static __u32 lines_span(const struct gpio_lines *l)
{
	__u32 span = 1;
	int i;

	for (i = 0; l && i < l->n; i++)
		if (l->gpio[i] + 1 > span)
			span = l->gpio[i] + 1;
	return span;
}

int gpio_lines_index(struct gpio_lines *l, const struct line_sel *sel, int nsel, bool verbose,
		     char *why, size_t size)
{
	__u32 all[GPIOLAT_MAX_LINES + 1]; /* 4 KiB: every line, when none is selected */
	int i, j, n = nsel, unknown = 0;

	if (!nsel)
		n = sys_gpio_lines(all, GPIOLAT_MAX_LINES + 1, &unknown);
	l->n = 0;
	for (i = 0; i < n; i++) {
		__u32 g = nsel ? sel[i].gpio : all[i];

		for (j = 0; j < l->n && l->gpio[j] != g; j++)
			;
		if (j < l->n)
			continue;
		if (g >= GPIOLAT_MAX_GPIO || l->n == GPIOLAT_MAX_LINES) {
			if (nsel) {
				snprintf(
					why, size,
					"line %u: gpiolat traces GPIO numbers below %u, at most %u "
					"lines",
					g, GPIOLAT_MAX_GPIO, GPIOLAT_MAX_LINES);
				return -1;
			}
			continue;
		}
		l->gpio[l->n++] = g;
	}
	if (unknown && verbose)
		fprintf(stderr,
			"gpiolat: %d GPIO chips without a known base (no /sys/class/gpio, debugfs "
			"not mounted): their sets count as dropped\n",
			unknown);
	return 0;
}

bool gpio_bpf_no_btf(struct run *r, const char *btf_path)
{
	char why[WHY_SIZE];
	struct btf *btf;
	libbpf_print_fn_t print;

	if (btf_path)
		return false;
	/* libbpf's own warning when there is none: the caller says it in its one line */
	print = libbpf_set_print(NULL);
	btf = run_btf(r, NULL, why, sizeof(why));
	libbpf_set_print(print);
	run_btf_put(r, btf);
	return !btf;
}

void gpio_bpf_no_btf_say(void)
{
	fprintf(stderr, "gpiolat: no BTF (no /sys/kernel/btf/vmlinux, no --btf): the programs "
			"without CO-RE (docs/btf.md)\n");
}

/*
 * The two objects of bpf/gpiolat.bpf.c have the same maps, programs and globals in the same order
 * (the source is one): gpiolat's skeleton opens either, with the other's bytes.
 */
_Static_assert(sizeof(struct gpiolat_bpf) == sizeof(struct gpiolat_nobtf_bpf), "skeletons");
_Static_assert(sizeof(struct gpiolat_bpf__rodata) == sizeof(struct gpiolat_nobtf_bpf__rodata),
	       "rodata");
_Static_assert(sizeof(struct gpiolat_bpf__bss) == sizeof(struct gpiolat_nobtf_bpf__bss), "bss");

static struct gpiolat_bpf *skel_open(bool nobtf, const struct bpf_object_open_opts *oo)
{
	struct gpiolat_bpf *skel;
	int err;

	if (!nobtf)
		return gpiolat_bpf__open_opts(oo);
	skel = calloc(1, sizeof(*skel));
	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	err = gpiolat_bpf__create_skeleton(skel);
	if (!err) {
		skel->skeleton->data =
			(void *)gpiolat_nobtf_bpf__elf_bytes(&skel->skeleton->data_sz);
		err = bpf_object__open_skeleton(skel->skeleton, NULL);
	}
	if (err) {
		gpiolat_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

int gpio_bpf_open_load(const struct gpio_bpf_cfg *cfg, struct gpiolat_bpf **out,
		       struct bpf_program **prog)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = cfg->btf_path);
	struct bpf_program *p, *keep;
	struct gpiolat_bpf *skel;
	bool pairs;
	int err;

	*out = NULL;
	skel = skel_open(cfg->nobtf, &oo);
	if (!skel)
		return 1;
	/* the hook's program by its name (or the tracepoint program's part), no other */
	keep = cfg->part == GPIO_PART_CLOCK ? skel->progs.gpiolat_tp_clock :
	       cfg->part == GPIO_PART_SLOT  ? skel->progs.gpiolat_tp_slot :
					      bpf_object__find_program_by_name(skel->obj, cfg->prog);
	/*
	 * one line traced alone with no feature on: the hook's plain program (bpf/gpiolat.bpf.c,
	 * record_one), which loads no switch
	 */
	if (keep && cfg->part == GPIO_PART_ALL && cfg->filter_lines && cfg->lines &&
	    cfg->lines->n == 1 && !cfg->intervals && !cfg->period_max && !cfg->lin_width) {
		char name[64];

		snprintf(name, sizeof(name), "%s_plain", cfg->prog);
		keep = bpf_object__find_program_by_name(skel->obj, name);
	}
	if (!keep) {
		gpiolat_bpf__destroy(skel);
		return -ENOENT;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == keep);
	/* the no-BTF kprobe's pre-phase programs: loaded, attached only by gpio_pair_learn() */
	pairs = cfg->nobtf && cfg->desc;
	bpf_program__set_autoload(skel->progs.gpiolat_pair_kprobe, pairs);
	bpf_program__set_autoload(skel->progs.gpiolat_pair_ret, pairs);
	bpf_program__set_autoload(skel->progs.gpiolat_pair_tp, pairs);
	bpf_program__set_autoattach(skel->progs.gpiolat_pair_kprobe, false);
	bpf_program__set_autoattach(skel->progs.gpiolat_pair_ret, false);
	bpf_program__set_autoattach(skel->progs.gpiolat_pair_tp, false);
	/* what forgets the descs the CO-RE kprobe and fentry learn: attached by gpio_bpf_fill_lines */
	bpf_program__set_autoload(skel->progs.gpiolat_desc_gen_kprobe,
				  !cfg->nobtf && cfg->desc && !cfg->fentry);
	bpf_program__set_autoload(skel->progs.gpiolat_desc_gen_fentry,
				  !cfg->nobtf && cfg->desc && cfg->fentry);
	bpf_program__set_autoattach(skel->progs.gpiolat_desc_gen_kprobe, false);
	bpf_program__set_autoattach(skel->progs.gpiolat_desc_gen_fentry, false);
	/* the desc -> GPIO map only where the pre-phase fills it (it is preallocated) */
	if (!pairs)
		bpf_map__set_max_entries(skel->maps.desc_lines, 1);
	skel->rodata->filter_lines = cfg->filter_lines;
	skel->rodata->period_max = cfg->period_max;
	skel->rodata->intervals = cfg->intervals;
	/* one selected line: its slot in bss, no lookup (gpio_bpf_fill_lines gives it index 1) */
	if (cfg->filter_lines && cfg->lines && cfg->lines->n == 1) {
		skel->rodata->one_line = cfg->lines->gpio[0] + 1;
		skel->rodata->one_gpio = cfg->lines->gpio[0];
	}
	skel->rodata->desc_magic = cfg->desc_size ? gpiolat_reciprocal(cfg->desc_size) : 0;
	if (cfg->lin_width) {
		skel->rodata->lin_width = cfg->lin_width;
		skel->rodata->lin_magic = gpiolat_reciprocal(cfg->lin_width);
		skel->rodata->lin_max = cfg->lin_width * GPIOLAT_LINEAR_SLOTS;
	}
	/* two halves a line (gpio_bpf_read_lines) */
	bpf_map__set_max_entries(skel->maps.hists,
				 2 * (cfg->lines && cfg->lines->n ? cfg->lines->n : 1));
	bpf_map__set_max_entries(skel->maps.lines, lines_span(cfg->lines));
	err = gpiolat_bpf__load(skel);
	if (err) {
		gpiolat_bpf__destroy(skel);
		return err < 0 ? err : -err;
	}
	*out = skel;
	if (prog)
		*prog = keep;
	return 0;
}

int gpio_bpf_fill_lines(struct gpiolat_bpf *skel, const struct gpio_lines *l)
{
	struct gpiolat_line v = {};
	int i;

	if (skel->rodata->one_line)
		skel->bss->one_slot.idx = 1;
	/*
	 * the kprobe and fentry learn each desc's GPIO number only while what forgets them runs
	 * (bpf/gpiolat.bpf.c, desc_cache): where it cannot attach, every set reads its desc
	 */
	if (bpf_program__fd(skel->progs.gpiolat_desc_gen_kprobe) >= 0 &&
	    !skel->links.gpiolat_desc_gen_kprobe)
		skel->links.gpiolat_desc_gen_kprobe =
			bpf_program__attach(skel->progs.gpiolat_desc_gen_kprobe);
	if (bpf_program__fd(skel->progs.gpiolat_desc_gen_fentry) >= 0 &&
	    !skel->links.gpiolat_desc_gen_fentry)
		skel->links.gpiolat_desc_gen_fentry =
			bpf_program__attach(skel->progs.gpiolat_desc_gen_fentry);
	skel->bss->desc_learn =
		skel->links.gpiolat_desc_gen_kprobe || skel->links.gpiolat_desc_gen_fentry;
	for (i = 0; i < l->n; i++) {
		v.idx = i + 1;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.lines), &l->gpio[i], &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line_result *x = a, *y = b;

	return x->gpio < y->gpio ? -1 : x->gpio > y->gpio;
}

/*
 * every program that may have read the old half has returned: tracing programs run inside an RCU
 * read-side section, and MEMBARRIER_CMD_GLOBAL waits for a grace period (synchronize_rcu()) where
 * there is more than one CPU; on one CPU this syscall cannot run beside a program. Where the
 * kernel refuses it (nohz_full), 10 ms, thousands of times the longest run of the program.
 */
static void programs_quiesce(void)
{
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		poll(NULL, 0, 10);
}

/*
 * a set to 1 whose start is still stored (its pair not yet histogrammed) counts in rising and
 * events now: exact at rest; while the programs run, a set beside this read may count in this
 * read's interval or the next one's (the run's total is the same)
 */
static void line_pending(struct gpiolat_bpf *skel, __u32 gpio, struct gpiolat_hist *h)
{
	struct gpiolat_line v;

	if (skel->rodata->one_line) {
		if (skel->bss->one_slot.start) {
			h->rising++;
			h->events++;
		}
		return;
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.lines), &gpio, &v) && v.start) {
		h->rising++;
		h->events++;
	}
}

int gpio_bpf_read_lines(struct gpiolat_bpf *skel, struct gpio_lines *l, const struct line_sel *sel,
			int nsel, struct line_result *out, int max)
{
	int fd = bpf_map__fd(skel->maps.hists), ncpus = libbpf_num_possible_cpus();
	__u32 key, old = skel->bss->half & 1;
	struct gpiolat_hist *rest;
	int n = 0, i;

	if (!l->rest) {
		l->rest = calloc((size_t)2 * (l->n ? l->n : 1) * ncpus, sizeof(*l->rest));
		if (!l->rest)
			return -ENOMEM;
		l->ncpus = ncpus;
	}
	skel->bss->half = !old;
	programs_quiesce();
	for (key = 0; key < (__u32)l->n && n < max; key++) {
		/* the line's two halves side by side: 2 * ncpus histograms to sum */
		rest = &l->rest[(size_t)2 * key * ncpus];
		if (bpf_map_lookup_elem(fd, &(__u32){ 2 * key + old }, &rest[old * ncpus]))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].gpio = l->gpio[key];
		out[n].offset = -1;
		out[n].minmax = true;
		hist_sum_cpus(&out[n].h, rest, 2 * ncpus);
		line_pending(skel, l->gpio[key], &out[n].h);
		if (!nsel && !out[n].h.events)
			continue;
		for (i = 0; i < nsel; i++) {
			if (sel[i].gpio == out[n].gpio && sel[i].chip[0]) {
				snprintf(out[n].chip, sizeof(out[n].chip), "%s", sel[i].chip);
				out[n].offset = sel[i].offset;
			}
		}
		if (!out[n].chip[0])
			sys_gpio_name(out[n].gpio, out[n].chip, sizeof(out[n].chip),
				      &out[n].offset);
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_line);
	return n;
}

void gpio_lines_release(struct gpio_lines *l)
{
	free(l->rest);
	l->rest = NULL;
}

__u64 gpio_bpf_read_drops(struct gpiolat_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	__u32 key = GPIOLAT_DROP_NO_LINE_SLOT;
	__u64 *v, sum = 0;

	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.drops), &key, v))
		for (c = 0; c < ncpus; c++)
			sum += v[c];
	free(v);
	return sum;
}

int gpio_bpf_line_summary(struct gpiolat_bpf *skel, __u32 idx, struct summary *sm)
{
	int ncpus = libbpf_num_possible_cpus(), err = -1;
	struct line_result lr = { .offset = -1, .minmax = true };
	struct gpiolat_hist *pc;

	/* both halves (after detach: at rest) */
	pc = calloc(2 * ncpus, sizeof(*pc));
	if (pc && !bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &(__u32){ 2 * idx }, pc) &&
	    !bpf_map_lookup_elem(bpf_map__fd(skel->maps.hists), &(__u32){ 2 * idx + 1 },
				 &pc[ncpus])) {
		hist_sum_cpus(&lr.h, pc, 2 * ncpus);
		hist_summary(&lr, skel->rodata->lin_width, sm);
		err = 0;
	}
	free(pc);
	return err;
}
