// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the scheduling family (provider.h): the BPF objects of --wakeup (bpf/wakeup.bpf.c:
 * the traced tasks' wakeup and preemption latencies) and --gaps (bpf/gaps.bpf.c: the time
 * between one line's sets, and what ran in the long ones). Each object carries every program
 * twice, on tp_btf (names ending in _btf) and on raw_tp (_raw): setup opens, configures and
 * loads the tp_btf ones (a program on a tracepoint the kernel lacks stays off), else the raw_tp
 * ones; on attaches them, and when tp_btf's do not attach, loads and attaches raw_tp's; off
 * detaches; read sums the maps over the CPUs into the family's struct (wakeup_read,
 * gaps_read). What it holds is its own (struct rt_obj, behind p->priv).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "rt.h"
#include "wakeup.skel.h"
#include "gaps.skel.h"
#include "core/sys.h"
#include "providers/provider.h"

#define RT_MAX_LINKS 32

/* the provider's own (p->priv): the skeleton, which variant it loaded, its links */
struct rt_obj {
	struct wakeup_bpf *wk; /* one of the two */
	struct gaps_bpf *gp;
	struct bpf_object *obj;
	int variant; /* index in variants[] */
	struct bpf_link *links[RT_MAX_LINKS];
	int nlinks;
};

static const struct {
	const char *suffix, *hook;
} variants[] = { { "_btf", "tp_btf" }, { "_raw", "raw_tp" } };
#define NVARIANTS ((int)(sizeof(variants) / sizeof(variants[0])))

void rt_hist_sum(struct rt_hist *out, const struct rt_hist *percpu, int ncpus)
{
	int c, s;

	memset(out, 0, sizeof(*out));
	for (c = 0; c < ncpus; c++) {
		const struct rt_hist *h = &percpu[c];

		if (!h->count)
			continue;
		if (!out->count || h->min_ns < out->min_ns)
			out->min_ns = h->min_ns;
		if (h->max_ns > out->max_ns)
			out->max_ns = h->max_ns;
		out->count += h->count;
		out->sum_ns += h->sum_ns;
		for (s = 0; s < RT_SLOTS; s++)
			out->slots[s] += h->slots[s];
	}
}

/* "tp_btf/sched_switch" -> is sched_switch among the kernel's trace events? */
static bool tracepoint_known(const char *sec)
{
	const char *name = strchr(sec, '/'), *dir = sys_tracefs_dir();
	char path[512], line[256];
	size_t len;
	bool found = false;
	FILE *f;

	if (!name || !dir)
		return true; /* cannot tell: let the attach say */
	name++;
	len = strlen(name);
	snprintf(path, sizeof(path), "%s/available_events", dir);
	f = fopen(path, "r");
	if (!f)
		return true;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		found = c && !strncmp(c + 1, name, len) && (c[1 + len] == '\n' || !c[1 + len]);
	}
	fclose(f);
	return found;
}

static void select_variant(struct bpf_object *obj, const char *suffix)
{
	struct bpf_program *p;
	size_t sl = strlen(suffix);

	bpf_object__for_each_program(p, obj) {
		const char *n = bpf_program__name(p);
		size_t nl = strlen(n);
		bool want = nl > sl && !strcmp(n + nl - sl, suffix);

		bpf_program__set_autoload(p,
					  want && tracepoint_known(bpf_program__section_name(p)));
	}
}

static void rt_close(struct rt_obj *o)
{
	while (o->nlinks > 0)
		bpf_link__destroy(o->links[--o->nlinks]);
	wakeup_bpf__destroy(o->wk);
	gaps_bpf__destroy(o->gp);
	o->wk = NULL;
	o->gp = NULL;
	o->obj = NULL;
}

/* open and configure the object (its rodata, before load); 0, or -1 and why */
static int rt_open(struct probe *p, struct rt_obj *o, char *why, size_t size)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = p->t->btf_path);
	const struct sched_args *s = p->a->sched;

	if (p->ops == &prov_bpf_wakeup) {
		o->wk = wakeup_bpf__open_opts(&oo);
		o->obj = o->wk ? o->wk->obj : NULL;
	} else {
		o->gp = gaps_bpf__open_opts(&oo);
		if (o->gp) {
			o->gp->rodata->line = s->line;
			o->gp->rodata->threshold_ns = s->threshold_ns;
		}
		o->obj = o->gp ? o->gp->obj : NULL;
	}
	if (!o->obj) {
		snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* after load: the traced tasks (--wakeup); 0, or -1 and why */
static int rt_fill(struct probe *p, struct rt_obj *o, char *why, size_t size)
{
	const struct sched_args *s = p->a->sched;
	__u32 i;

	for (i = 0; o->wk && i < (__u32)s->npids; i++) {
		if (bpf_map_update_elem(bpf_map__fd(o->wk->maps.tasks), &s->pids[i], &i, BPF_ANY)) {
			snprintf(why, size, "cannot fill the task map: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* the object opened, its variant V loaded and filled; 0, -1 and why, or 1 and why: the
 * variant's fault (its load failed) */
static int rt_up(struct probe *p, struct rt_obj *o, int v, char *why, size_t size)
{
	int err;

	if (rt_open(p, o, why, size))
		return -1;
	select_variant(o->obj, variants[v].suffix);
	err = o->wk ? wakeup_bpf__load(o->wk) : gaps_bpf__load(o->gp);
	if (err) {
		snprintf(why, size, "loading the %s programs failed: %s (-v shows why)",
			 variants[v].hook, strerror(err < 0 ? -err : err));
		rt_close(o);
		return 1;
	}
	o->variant = v;
	if (rt_fill(p, o, why, size)) {
		rt_close(o);
		return -1;
	}
	return 0;
}

static int rt_attach(struct rt_obj *o, char *why, size_t size)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, o->obj) {
		struct bpf_link *l;

		if (!bpf_program__autoload(prog))
			continue;
		l = bpf_program__attach(prog);
		if (!l || o->nlinks == RT_MAX_LINKS) {
			snprintf(why, size, "attaching %s failed: %s",
				 bpf_program__section_name(prog),
				 l ? "too many programs" : strerror(errno));
			bpf_link__destroy(l);
			while (o->nlinks > 0)
				bpf_link__destroy(o->links[--o->nlinks]);
			return -1;
		}
		o->links[o->nlinks++] = l;
	}
	return 0;
}

/* WHY, then "; before that, FIRST" when the first variant failed otherwise */
static void before_that(char *why, size_t size, const char *first)
{
	size_t l = strlen(why);

	if (first[0] && strcmp(first, why))
		snprintf(why + l, size - l, "; before that, %s", first);
}

static int rt_setup(struct probe *p, char *why, size_t size)
{
	struct rt_obj *o = probe_priv(p, sizeof(*o));
	char first[256] = "";
	int v, err = 1;

	if (!o) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	for (v = p->a->sched->raw_tp ? 1 : 0; v < NVARIANTS && err > 0; v++) {
		err = rt_up(p, o, v, why, size);
		if (err > 0 && !first[0])
			snprintf(first, sizeof(first), "%s", why);
	}
	if (err > 0)
		before_that(why, size, first);
	return err ? -1 : 0;
}

static int rt_on(struct probe *p, char *why, size_t size)
{
	struct rt_obj *o = p->priv;
	char first[256];
	int err;

	if (!o || !o->obj) {
		snprintf(why, size, "nothing loaded");
		return -1;
	}
	if (!rt_attach(o, why, size))
		return 0;
	if (o->variant + 1 >= NVARIANTS)
		return -1;
	/* tp_btf loaded but did not attach: raw_tp */
	snprintf(first, sizeof(first), "%s", why);
	rt_close(o);
	err = rt_up(p, o, o->variant + 1, why, size);
	if (!err)
		err = rt_attach(o, why, size);
	if (err)
		before_that(why, size, first);
	return err ? -1 : 0;
}

static int rt_off(struct probe *p)
{
	struct rt_obj *o = p->priv;

	while (o && o->nlinks > 0)
		bpf_link__destroy(o->links[--o->nlinks]);
	return 0;
}

/* the hook of the variant loaded (tp_btf, else raw_tp) and its programs' run time */
static int rt_figures(struct probe *p, struct probe_figures *f)
{
	const struct rt_obj *o = p->priv;
	struct bpf_program *prog;

	if (!o || !o->obj)
		return -1;
	f->hook = variants[o->variant].hook;
	bpf_object__for_each_program(prog, o->obj)
		if (bpf_program__fd(prog) >= 0)
			probe_prog_figures(bpf_program__fd(prog), f);
	return 0;
}

static void rt_teardown(struct probe *p)
{
	if (p->priv)
		rt_close(p->priv);
	probe_priv_free(p);
}

/* --wakeup's maps: per task its counts and histograms (struct wakeup_read) */
static int wakeup_read(struct probe *p, void *out, char *why, size_t size)
{
	struct rt_obj *o = p->priv;
	struct wakeup_read *r = out;
	int ncpus = libbpf_num_possible_cpus(), i, l, c;
	struct rt_task_counts *pc;
	struct rt_hist *ph;
	void *buf;

	if (!o || !o->wk || ncpus <= 0) {
		snprintf(why, size, "nothing loaded");
		return -1;
	}
	buf = malloc(ncpus * (sizeof(struct rt_hist) + sizeof(struct rt_task_counts)));
	if (!buf) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	ph = buf;
	pc = (struct rt_task_counts *)(ph + ncpus);
	memset(r->n, 0, sizeof(r->n));
	for (i = 0; i < p->a->sched->npids; i++) {
		__u32 key = i;
		struct rt_task_counts *n = &r->n[i];

		if (bpf_map_lookup_elem(bpf_map__fd(o->wk->maps.counts), &key, pc))
			goto fail;
		for (c = 0; c < ncpus; c++) {
			n->wakeups += pc[c].wakeups;
			n->sleeps += pc[c].sleeps;
			n->preemptions += pc[c].preemptions;
			n->unmatched += pc[c].unmatched;
		}
		for (l = 0; l < RT_LAT_MAX; l++) {
			key = i * RT_LAT_MAX + l;
			if (bpf_map_lookup_elem(bpf_map__fd(o->wk->maps.hists), &key, ph))
				goto fail;
			rt_hist_sum(&r->h[i][l], ph, ncpus);
		}
	}
	free(buf);
	return 0;
fail:
	snprintf(why, size, "reading the results failed: %s", strerror(errno));
	free(buf);
	return -1;
}

/* --gaps' maps: the histogram, the counts, the causes (struct gaps_read) */
static int gaps_read(struct probe *p, void *out, char *why, size_t size)
{
	struct rt_obj *o = p->priv;
	struct gaps_read *r = out;
	int ncpus = libbpf_num_possible_cpus(), fd, c;
	struct rt_cause_key key, next, *prev = NULL;
	struct rt_cause_val *pv;
	struct rt_gap_counts *pc;
	struct rt_hist *ph;
	__u32 zero = 0;
	int err = -1;

	if (!o || !o->gp || ncpus <= 0) {
		snprintf(why, size, "nothing loaded");
		return -1;
	}
	ph = calloc(ncpus, sizeof(*ph));
	pc = calloc(ncpus, sizeof(*pc));
	pv = calloc(ncpus, sizeof(*pv));
	errno = ENOMEM;
	if (!ph || !pc || !pv)
		goto out;
	if (bpf_map_lookup_elem(bpf_map__fd(o->gp->maps.gaps), &zero, ph) ||
	    bpf_map_lookup_elem(bpf_map__fd(o->gp->maps.counts), &zero, pc))
		goto out;
	rt_hist_sum(&r->h, ph, ncpus);
	memset(&r->n, 0, sizeof(r->n));
	for (c = 0; c < ncpus; c++) {
		r->n.sets += pc[c].sets;
		r->n.over += pc[c].over;
		r->n.over_ns += pc[c].over_ns;
		r->n.other_task_sets += pc[c].other_task_sets;
		r->n.cause_drops += pc[c].cause_drops;
		r->n.cause_drop_ns += pc[c].cause_drop_ns;
		r->n.unlocked_sets += pc[c].unlocked_sets;
	}
	r->tid = o->gp->bss->toggler_tid;
	r->n_causes = 0;
	fd = bpf_map__fd(o->gp->maps.causes);
	while (r->n_causes < r->max_causes && !bpf_map_get_next_key(fd, prev, &next)) {
		struct gaps_cause *g = &r->causes[r->n_causes];

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, pv))
			continue;
		memset(g, 0, sizeof(*g));
		g->k = key;
		for (c = 0; c < ncpus; c++) {
			g->v.gaps += pv[c].gaps;
			g->v.total_ns += pv[c].total_ns;
			if (pv[c].max_ns > g->v.max_ns)
				g->v.max_ns = pv[c].max_ns;
		}
		r->n_causes++;
	}
	err = 0;
out:
	if (err)
		snprintf(why, size, "reading the results failed: %s", strerror(errno));
	free(ph);
	free(pc);
	free(pv);
	return err;
}

const struct provider prov_bpf_wakeup = { .name = "the wakeup latency's BPF programs",
					  .targets = TGT_SCHED,
					  .setup = rt_setup,
					  .on = rt_on,
					  .off = rt_off,
					  .teardown = rt_teardown,
					  .figures = rt_figures,
					  .read = wakeup_read };
const struct provider prov_bpf_gaps = { .name = "the gaps' BPF programs",
					.targets = TGT_SCHED,
					.setup = rt_setup,
					.on = rt_on,
					.off = rt_off,
					.teardown = rt_teardown,
					.figures = rt_figures,
					.read = gaps_read };
