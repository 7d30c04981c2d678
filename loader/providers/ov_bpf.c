// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the BPF family (ov.h): gpiolat's own program (its histogram and its
 * periods read for the trust check) and an empty program, each on the tracepoint, a kprobe and
 * fentry; loaded in setup, attached while on.
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
#include "modes/overhead/ov.h"
#include "empty_gpio.skel.h"
#include "gpiolat.skel.h"
#include "providers/gpio_bpf.h"
#include "core/sys.h"

static struct gpiolat_bpf *gskel;
static struct empty_gpio_bpf *eskel;
static struct bpf_link *blink;
static struct bpf_program *bprog;

/* the trust check's figures of the method phases so far (trust_phase_*) */
static struct {
	__s64 seq0; /* the module's last batch before the phase */
	bool counting; /* the program counts periods (gpiolat's whole program) */
	__u64 periods, sum; /* the program's counts before the phase */
	int n, dropped, k; /* phases kept, left out, ended */
	double mod[MAX_REPS], prog[MAX_REPS];
	int index[MAX_REPS];
	__u64 batches, pulses, nperiods;
} tp;

/* the program's periods, summed over the CPUs (the toggled line is index 0, half 0) */
static int read_periods(__u64 *periods, __u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct gpiolat_hist *h;
	__u32 key = 0;

	if (ncpu <= 0)
		return -1;
	h = calloc(ncpu, sizeof(*h));
	if (!h)
		return -1;
	if (bpf_map__lookup_elem(gskel->maps.hists, &key, sizeof(key), h, ncpu * sizeof(*h), 0)) {
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

static void trust_phase_start(void)
{
	tp.periods = tp.sum = 0;
	tp.counting = gskel && !read_periods(&tp.periods, &tp.sum);
	tp.seq0 = toggle_last_seq();
}

/*
 * after a method phase: its batches (the module's clock) and the periods the program counted
 * in it (its own, NAN when it keeps none: the empty programs, the parts tp-clock and tp-slot);
 * left out when the program missed a period inside the batches, pulses - 1 a batch (a host
 * stall longer than TRUST_PERIOD_MAX inside one)
 */
static void trust_phase_end(void)
{
	static struct toggle_batch b[MAX_PHASE_BATCHES];
	__u64 periods = 0, sum = 0, ns = 0, pulses = 0, want = 0;
	int i, n;

	if (tp.n >= MAX_REPS)
		return;
	tp.k++;
	n = toggle_batches(tp.seq0, b, MAX_PHASE_BATCHES);
	for (i = 0; i < n; i++) {
		ns += b[i].ns;
		pulses += b[i].pulses;
		want += b[i].pulses - 1;
	}
	if (tp.counting && !read_periods(&periods, &sum)) {
		periods -= tp.periods;
		sum -= tp.sum;
	}
	if (n <= 0 || !pulses || (periods && periods != want)) {
		tp.dropped++;
		return;
	}
	tp.mod[tp.n] = (double)ns / (2.0 * pulses);
	tp.prog[tp.n] = periods ? trust_scale() * sum / (2.0 * periods) : NAN;
	tp.index[tp.n] = tp.k - 1;
	tp.n++;
	tp.batches += n;
	tp.pulses += pulses;
	tp.nperiods += periods;
}

static int bpf_check(int hook, char *why)
{
	struct btf *btf = sys_load_btf(ov.btf_path, why, WHY);
	int err;

	if (!btf)
		return -1;
	err = gpio_hook_check(hook, btf, why, WHY);
	btf__free(btf);
	return err;
}

static int gpiolat_setup(const struct method *m, char *why)
{
	struct gpio_bpf_cfg cfg = { .hook = m->hook,
				    .part = m->part,
				    .btf_path = ov.btf_path,
				    .desc_size = 1,
				    .filter_lines = true,
				    .period_max = TRUST_PERIOD_MAX };
	/* as gpiolat -l LINE: the toggled line alone, at index 0 */
	static struct gpio_lines one;
	struct btf *btf;
	int err;

	if (isnan(trust_scale())) {
		snprintf(why, WHY, "GPIOLAT_TRUST_SCALE='%.64s' is not a number above 0",
			 getenv("GPIOLAT_TRUST_SCALE"));
		return -1;
	}
	if (bpf_check(m->hook, why))
		return -1;
	if (m->hook != GPIO_HOOK_TP) {
		btf = sys_load_btf(ov.btf_path, why, WHY);
		cfg.desc_size = btf ? sys_gpio_desc_size(btf, why, WHY) : 0;
		btf__free(btf);
		if (!cfg.desc_size)
			return -1;
	}
	/*
	 * linear buckets for the p50: 100 of a quarter of the untraced set each, at most as wide
	 * as the BPF side's reciprocal is exact for (lin_width * GPIOLAT_LINEAR_SLOTS < 2^32, as
	 * gpiolat --linear checks): a stalled warm-up phase must not break the histogram
	 */
	cfg.lin_width = untraced_guess > 40 ? (__u64)(untraced_guess / 4) : 10;
	if (cfg.lin_width > GPIOLAT_LINEAR_WIDTH_MAX)
		cfg.lin_width = GPIOLAT_LINEAR_WIDTH_MAX;
	one.gpio[0] = ov_gpio;
	one.n = 1;
	cfg.lines = &one;
	err = gpio_bpf_open_load(&cfg, &gskel, &bprog);
	if (err > 0) {
		snprintf(why, WHY, "opening gpiolat's BPF object failed: %s", strerror(errno));
		return -1;
	}
	if (err) {
		snprintf(why, WHY, "loading %s failed: %s", gpio_hooks[m->hook].prog,
			 strerror(-err));
		return -1;
	}
	err = gpio_bpf_fill_lines(gskel, &one);
	if (err) {
		snprintf(why, WHY, "setting up gpiolat's lines map failed: %s", strerror(-err));
		return -1;
	}
	return 0;
}

static int empty_setup(const struct method *m, char *why)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = ov.btf_path);
	struct bpf_program *p[GPIO_HOOK_MAX];
	int i, err;

	if (bpf_check(m->hook, why))
		return -1;
	eskel = empty_gpio_bpf__open_opts(&oo);
	if (!eskel) {
		snprintf(why, WHY, "opening the empty BPF object failed: %s", strerror(errno));
		return -1;
	}
	p[GPIO_HOOK_TP] = eskel->progs.empty_gpio_tp;
	p[GPIO_HOOK_KPROBE] = eskel->progs.empty_gpio_kprobe;
	p[GPIO_HOOK_FENTRY] = eskel->progs.empty_gpio_fentry;
	for (i = 0; i < GPIO_HOOK_MAX; i++)
		bpf_program__set_autoload(p[i], i == m->hook);
	err = empty_gpio_bpf__load(eskel);
	if (err) {
		snprintf(why, WHY, "loading %s failed: %s", bpf_program__name(p[m->hook]),
			 strerror(-err));
		return -1;
	}
	bprog = p[m->hook];
	return 0;
}

static int bpf_on(const struct method *m, char *why)
{
	trust_phase_start();
	blink = bpf_program__attach(bprog);
	return blink ? 0 : -1;
}

static int bpf_off(const struct method *m)
{
	if (!blink)
		return 0;
	bpf_link__destroy(blink);
	blink = NULL;
	trust_phase_end();
	return 0;
}

static void bpf_teardown(const struct method *m)
{
	bpf_off(m);
	memset(&tp, 0, sizeof(tp)); /* the next row's phases start from none */
	gpiolat_bpf__destroy(gskel);
	empty_gpio_bpf__destroy(eskel);
	gskel = NULL;
	eskel = NULL;
	bprog = NULL;
}

const struct method_ops gpiolat_bpf_ops = { .setup = gpiolat_setup,
					    .on = bpf_on,
					    .off = bpf_off,
					    .teardown = bpf_teardown };
const struct method_ops empty_bpf_ops = { .setup = empty_setup,
					  .on = bpf_on,
					  .off = bpf_off,
					  .teardown = bpf_teardown };

/* the run time of our program (BPF_ENABLE_STATS), and gpiolat's histogram of the toggled line */
int ov_bpf_trust(struct row *r)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct summary sm;

	if (!bprog)
		return -1;
	if (stats_fd >= 0 && !bpf_obj_get_info_by_fd(bpf_program__fd(bprog), &info, &len)) {
		r->run_cnt = info.run_cnt;
		r->run_time_ns = info.run_time_ns;
	}
	/* the BPF histogram's own pulse width of the toggled line: its mean and p50 */
	if (gskel && !gpio_bpf_line_summary(gskel, 0, &sm) && sm.count) {
		r->hist_ok = true;
		r->hist_mean = sm.mean;
		r->hist_p50 = sm.p50;
		r->hist_pairs = sm.count;
	}
	/* the method phases' traced ns per set by the module's clock and by the program's */
	r->tphases = tp.n;
	r->tdropped = tp.dropped;
	memcpy(r->t_mod, tp.mod, sizeof(tp.mod));
	memcpy(r->t_prog, tp.prog, sizeof(tp.prog));
	memcpy(r->t_index, tp.index, sizeof(tp.index));
	r->t_batches = tp.batches;
	r->t_pulses = tp.pulses;
	r->t_periods = tp.nperiods;
	r->t_scale = trust_scale();
	return 0;
}
