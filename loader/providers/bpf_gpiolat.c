// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: gpiolat's own program on the GPIO set (provider.h), on the method's hook
 * (providers/gpio_hooks.h) or a part of it; its object is core/gpio_bpf.h's. Loaded in setup,
 * attached while on. The histogram mode runs it on its lines (struct gpio_watch) and reads
 * them (struct gpio_read); --overhead runs it as gpiolat -l LINE on the toggled line, and its
 * histogram and, per method phase, the periods it counted beside the module's own batches are
 * its figures: the trust check (docs/overhead.md).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h" /* the skeleton's bss holds a struct gpiolat_line */
#include "gpiolat.skel.h"
#include "core/sys.h"
#include "core/gpio_bpf.h"
#include "providers/gpio_hooks.h"
#include "providers/provider.h"

#define MAX_PHASE_BATCHES 4096

/* the trust check's phases so far: their figures, and the phase under way */
struct gpio_phases {
	struct gpio_trust trust; /* the phases kept (tphases), left out (tdropped) */
	__s64 seq0; /* the module's last batch before the phase */
	bool counting; /* the program counts periods (gpiolat's whole program) */
	__u64 periods, sum; /* the program's counts before the phase */
	int k; /* phases ended */
	struct toggle_batch b[MAX_PHASE_BATCHES];
};

/* the provider's own (p->priv): its object, its program and link, the lines it watches, and
 * the trust check's phases (--overhead's row) */
struct gl {
	struct gpiolat_bpf *skel;
	struct probe_progs pp;
	struct gpio_lines lines; /* their dense index, each line's halves as last read */
	struct gpio_phases ph;
};

/* gpiolat's skeleton of the probe, or NULL (nothing loaded) */
static struct gpiolat_bpf *gskel(const struct probe *p)
{
	struct gl *g = p->priv;

	return g ? g->skel : NULL;
}

/* the program's periods, summed over the CPUs (the toggled line is index 0, half 0) */
static int read_periods(struct gpiolat_bpf *skel, __u64 *periods, __u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct gpiolat_hist *h;
	__u32 key = 0;

	if (!skel || ncpu <= 0)
		return -1;
	h = calloc(ncpu, sizeof(*h));
	if (!h)
		return -1;
	if (bpf_map__lookup_elem(skel->maps.hists, &key, sizeof(key), h, ncpu * sizeof(*h), 0)) {
		free(h);
		return -1;
	}
	*periods = *sum = 0;
	for (i = 0; i < ncpu; i++) {
		*periods += h[i].periods;
		*sum += h[i].period_sum_ns;
	}
	free(h);
	return 0;
}

/*
 * GPIOLAT_TRUST_SCALE=F: the program's clock read F times too long, to see the check fail; 1
 * when unset, NAN when not a number above 0 (gpiolat_setup refuses the row)
 */
static double trust_scale(void)
{
	const char *e = getenv("GPIOLAT_TRUST_SCALE");
	char *end;
	double f;

	if (!e)
		return 1;
	f = strtod(e, &end);
	return end == e || *end || !(f > 0 && f < 1e6) ? NAN : f;
}

/* tp_btf: the tracepoint's typedef btf_trace_gpio_value in the kernel's BTF VMLINUX */
static int check_tp_btf(const struct btf *btf, const struct btf *vmlinux, char *why, size_t size)
{
	if (sys_check_tracepoint(btf, why, size))
		return -1;
	if (btf__find_by_name_kind(vmlinux, "btf_trace_gpio_value", BTF_KIND_TYPEDEF) < 0) {
		snprintf(why, size,
			 "btf_trace_gpio_value is not in the kernel's BTF: no BTF-typed "
			 "gpio_value tracepoint to attach to");
		return -1;
	}
	return 0;
}

/*
 * can HOOK be attached here? A hook the table says attaches only through the kernel's BTF
 * (gpio_hooks[].btf: by the kernel's own BTF ids, whatever --btf says) first needs that BTF,
 * which its check then reads. BTF: the file given (--btf), or the kernel's own when none is,
 * which names every function the kernel has. 0, or -1 and why
 */
static int hook_check(const struct probe *p, const struct btf *btf, char *why, size_t size)
{
	enum gpio_hook hook = probe_bpf(p)->hook;
	struct run *r = p->t->run;
	struct btf *vmlinux = NULL;
	char none[WHY_SIZE];
	int err;

	if (gpio_hooks[hook].btf) {
		vmlinux = run_btf(r, NULL, none, sizeof(none));
		if (!vmlinux) {
			snprintf(why, size,
				 "needs the kernel's BTF (no /sys/kernel/btf/vmlinux%s%s%s)",
				 btf ? "; " : ", no --btf", btf ? gpio_hooks[hook].name : "",
				 btf ? " attaches by the kernel's own BTF ids, which --btf cannot "
				       "give" :
				       "");
			return -1;
		}
	}
	switch (hook) {
	case GPIO_HOOK_TP:
		/* without BTF: the record's offsets as the format file gives them */
		err = sys_check_tracepoint(btf, why, size) ||
		      (!btf && sys_check_tp_format(why, size));
		break;
	case GPIO_HOOK_KPROBE:
		err = sys_check_kprobe(p->t->btf_path ? NULL : btf, why, size);
		break;
	case GPIO_HOOK_FENTRY:
		err = sys_check_fentry(vmlinux, why, size);
		break;
	case GPIO_HOOK_TP_BTF:
		err = check_tp_btf(btf, vmlinux, why, size);
		break;
	default:
		err = -1;
	}
	run_btf_put(r, vmlinux);
	return err ? -1 : 0;
}

/* the hook's check with BTF (its file, or the kernel's) loaded, or none to find; 0, or -1 */
static int hook_check_btf(const struct probe *p, struct btf **btf, char *why, size_t size)
{
	*btf = NULL;
	if (!gpio_bpf_no_btf(p->t->run, p->t->btf_path)) {
		*btf = run_btf(p->t->run, p->t->btf_path, why, size);
		if (!*btf)
			return -1;
	}
	return hook_check(p, *btf, why, size);
}

/*
 * the GPIO hook's own check (its tracepoint, gpiod_set_value, BTF for fentry; without BTF the
 * tracepoint's format in tracefs); 0, or -1
 */
int probe_gpio_hook_check(const struct probe *p, char *why, size_t size)
{
	struct btf *btf;
	int err = hook_check_btf(p, &btf, why, size);

	run_btf_put(p->t->run, btf);
	return err;
}

struct gpio_phases *gpio_phases_alloc(void)
{
	return calloc(1, sizeof(struct gpio_phases));
}

/* before a method phase: the module's last batch, the periods SKEL counted so far (NULL: an
 * empty program, which counts none) */
static void phases_start(struct gpio_phases *tp, struct gpiolat_bpf *skel)
{
	if (!tp)
		return;
	tp->periods = tp->sum = 0;
	tp->counting = !read_periods(skel, &tp->periods, &tp->sum);
	tp->seq0 = toggle_last_seq();
}

void gpio_phases_start(struct gpio_phases *ph)
{
	phases_start(ph, NULL);
}

/*
 * after a method phase: its batches (the module's clock) and the periods the program counted
 * in it (its own, NAN when it keeps none: the empty programs, the parts tp-clock and tp-slot);
 * left out when the program missed a period inside the batches, pulses - 1 a batch (a host
 * stall longer than TRUST_PERIOD_MAX inside one)
 */
static void phases_end(struct gpio_phases *tp, struct gpiolat_bpf *skel)
{
	__u64 periods = 0, sum = 0, ns = 0, pulses = 0, want = 0;
	int i, n;

	struct gpio_trust *t = tp ? &tp->trust : NULL;

	if (!tp || t->tphases >= PROBE_MAX_PHASES)
		return;
	tp->k++;
	n = toggle_batches(tp->seq0, tp->b, MAX_PHASE_BATCHES);
	for (i = 0; i < n; i++) {
		ns += tp->b[i].ns;
		pulses += tp->b[i].pulses;
		want += tp->b[i].pulses - 1;
	}
	if (tp->counting && !read_periods(skel, &periods, &sum)) {
		periods -= tp->periods;
		sum -= tp->sum;
	}
	if (n <= 0 || !pulses || (periods && periods != want)) {
		t->tdropped++;
		return;
	}
	t->t_mod[t->tphases] = (double)ns / (2.0 * pulses);
	t->t_prog[t->tphases] = periods ? trust_scale() * sum / (2.0 * periods) : NAN;
	t->t_index[t->tphases] = tp->k - 1;
	t->tphases++;
	t->t_batches += n;
	t->t_pulses += pulses;
	t->t_periods += periods;
}

void gpio_phases_end(struct gpio_phases *ph)
{
	phases_end(ph, NULL);
}

void gpio_phases_figures(const struct gpio_phases *ph, struct probe_figures *f)
{
	if (ph)
		f->trust = ph->trust;
	f->trust.t_scale = trust_scale();
}

void gpio_phases_free(struct gpio_phases *ph)
{
	free(ph);
}

/* the object's configuration as --overhead's row or the histogram mode (W) wants it */
static int gpiolat_cfg(struct probe *p, const struct gpio_watch *w, struct gpio_bpf_cfg *cfg,
		       char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	const struct gpio_hook_info *hk = &gpio_hooks[ba->hook];
	int feat = ba->features & GPIO_FEAT_SET ? ba->features : GPIO_FEAT_TRUST | GPIO_FEAT_LINEAR;
	struct btf *btf;
	int err;

	*cfg = (struct gpio_bpf_cfg){ .prog = hk->prog,
				      .part = ba->part,
				      .btf_path = p->t->btf_path,
				      .desc_size = 1,
				      .desc = hk->desc,
				      .fentry = !strncmp(hk->hook, "fentry/", 7),
				      .filter_lines = true };
	err = hook_check_btf(p, &btf, why, size);
	cfg->nobtf = !btf;
	/* the hooks on gpiod_set_value: sizeof(struct gpio_desc) (no BTF: the pre-phase's pairs) */
	if (!err && hk->desc && btf) {
		cfg->desc_size = sys_gpio_desc_size(btf, why, size);
		err = cfg->desc_size ? 0 : -1;
	}
	run_btf_put(p->t->run, btf);
	if (err)
		return -1;
	if (w) {
		cfg->lin_width = w->lin_width;
		cfg->filter_lines = w->nsel > 0;
		cfg->intervals = w->intervals;
		return 0;
	}
	/*
	 * linear buckets for the p50: 100 of a quarter of the untraced set each, at most as wide
	 * as the BPF side's reciprocal is exact for (lin_width * GPIOLAT_LINEAR_SLOTS < 2^32, as
	 * gpiolat --linear checks): a stalled warm-up phase must not break the histogram
	 */
	if (feat & GPIO_FEAT_LINEAR)
		cfg->lin_width = p->t->untraced_ns > 40 ? (__u64)(p->t->untraced_ns / 4) : 10;
	if (cfg->lin_width > GPIOLAT_LINEAR_WIDTH_MAX)
		cfg->lin_width = GPIOLAT_LINEAR_WIDTH_MAX;
	cfg->period_max = feat & GPIO_FEAT_TRUST ? TRUST_PERIOD_MAX : 0;
	cfg->intervals = feat & GPIO_FEAT_INTERVALS;
	return 0;
}

static int gpiolat_setup(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	const struct gpio_watch *w = ba->watch;
	struct gpio_bpf_cfg cfg;
	char buf[96];
	struct gl *g;
	int err;

	if (!w && isnan(trust_scale())) {
		snprintf(why, size, "GPIOLAT_TRUST_SCALE='%.64s' is not a number above 0",
			 getenv("GPIOLAT_TRUST_SCALE"));
		return -1;
	}
	if (gpiolat_cfg(p, w, &cfg, why, size))
		return -1;
	g = probe_priv(p, sizeof(*g));
	if (!g) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	/* --overhead's row, as gpiolat -l LINE: the toggled line alone, at index 0; the
	 * histogram mode's lines indexed (-l), or every line of the system's chips */
	if (!w || w->load_only) {
		g->lines.n = 1;
		g->lines.gpio[0] = p->t->gpio;
	} else if (gpio_lines_index(&g->lines, w->sel, w->nsel, w->verbose, why, size)) {
		return -1;
	}
	cfg.lines = w && w->load_only ? NULL : &g->lines;
	if (w && w->load_only)
		cfg.filter_lines = false;
	err = gpio_bpf_open_load(&cfg, &g->skel, &g->pp.progs[0]);
	if (err > 0) {
		snprintf(why, size, "opening gpiolat's BPF object failed: %s", strerror(errno));
		return -1;
	}
	if (err) {
		snprintf(why, size, "loading the %s program failed: %s (gpiolat -v shows why)",
			 gpio_hooks[ba->hook].name, probe_errstr(err, buf, sizeof(buf)));
		return -1;
	}
	if (w && w->load_only)
		return 0;
	/* the lines' indices: the BPF side's line filter and histogram slots */
	err = gpio_bpf_fill_lines(g->skel, &g->lines);
	if (err) {
		snprintf(why, size, "setting up gpiolat's lines map failed: %s", strerror(-err));
		return -1;
	}
	/* no BTF, the kprobe: the lines' gpio_descs learnt before the measured phases */
	if (cfg.nobtf && cfg.desc &&
	    gpio_pair_learn(g->skel, w ? w->pair : &p->t->gpio, w ? w->npair : 1, false, why, size))
		return -1;
	return 0;
}

static int gpiolat_on(struct probe *p, char *why, size_t size)
{
	struct gl *g = p->priv;

	/* the trust check: --overhead's */
	if (!probe_bpf(p)->watch)
		phases_start(&g->ph, g->skel);
	return probe_link_add(&g->pp, bpf_program__attach(g->pp.progs[0]),
			      bpf_program__section_name(g->pp.progs[0]), why, size);
}

static int gpiolat_off(struct probe *p)
{
	struct gl *g = p->priv;

	if (!g || !probe_links_destroy(&g->pp))
		return 0;
	if (!probe_bpf(p)->watch)
		phases_end(&g->ph, g->skel);
	return 0;
}

static void gpiolat_teardown(struct probe *p)
{
	struct gl *g = p->priv;

	gpiolat_off(p);
	if (g) {
		gpiolat_bpf__destroy(g->skel);
		gpio_lines_release(&g->lines);
	}
	probe_priv_free(p);
}

/* the histogram mode's lines (struct gpio_read), on or off */
static int gpiolat_read(struct probe *p, void *out, char *why, size_t size)
{
	const struct gpio_watch *w = probe_bpf(p)->watch;
	struct gl *g = p->priv;
	struct gpio_read *r = out;

	if (!g || !w) {
		snprintf(why, size, "no lines to read");
		return -1;
	}
	r->n = gpio_bpf_read_lines(g->skel, &g->lines, w->sel, w->nsel, r->lr, r->max);
	if (r->n < 0) {
		snprintf(why, size, "reading the histograms failed: %s", strerror(-r->n));
		return -1;
	}
	r->drops = gpio_bpf_read_drops(g->skel);
	return 0;
}

/* the run time of the program, gpiolat's histogram of the toggled line, the phases */
static int gpiolat_figures(struct probe *p, struct probe_figures *f)
{
	const struct bpf_args *ba = probe_bpf(p);
	struct gl *g = p->priv;
	struct summary sm;

	if (!g || !g->pp.progs[0])
		return -1;
	probe_prog_figures(bpf_program__fd(g->pp.progs[0]), f);
	f->prog = bpf_program__name(g->pp.progs[0]);
	/* the BPF histogram's own pulse width of the toggled line: its mean and p50 */
	if (!ba->watch && !gpio_bpf_line_summary(gskel(p), 0, &sm) && sm.count) {
		f->hist_ok = true;
		f->hist_mean = sm.mean;
		f->hist_p50 = sm.p50;
		f->hist_pairs = sm.count;
	}
	if (!ba->watch)
		gpio_phases_figures(&g->ph, f);
	return 0;
}

/*
 * Its count: the run count with --bpf-stats (once a set); else the pulses its histogram of the
 * toggled line holds (once a pulse, a running total); a part keeps no histogram
 */
static int gpiolat_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	struct summary sm;
	struct gl *g = p->priv;
	int rc = probe_run_count(p, g ? &g->pp : NULL, n, per_pulse, why, size);

	if (rc <= 0)
		return rc;
	*per_pulse = 1;
	if (probe_bpf(p)->part)
		return 1; /* why: the run count's */
	if (!gskel(p) || gpio_bpf_line_summary(gskel(p), 0, &sm)) {
		snprintf(why, size, "cannot read its histogram");
		return -1;
	}
	*n = sm.count;
	return 0;
}

const struct provider prov_bpf_gpiolat = { .name = "gpiolat's BPF program",
					   .targets = TGT_GPIO_PULSE,
					   .setup = gpiolat_setup,
					   .on = gpiolat_on,
					   .off = gpiolat_off,
					   .teardown = gpiolat_teardown,
					   .figures = gpiolat_figures,
					   .read = gpiolat_read,
					   .count = gpiolat_count,
					   .counted_by = "its histogram's pulses, or run count" };
