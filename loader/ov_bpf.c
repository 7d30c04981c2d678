// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the BPF family (ov.h): gpiolat's own program (its histogram read for
 * the trust check) and an empty program, each on the tracepoint, a kprobe and fentry; loaded
 * in setup, attached while on.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "ov.h"
#include "empty_gpio.skel.h"
#include "gpiolat.skel.h"
#include "gpio_bpf.h"
#include "sys.h"

static struct gpiolat_bpf *gskel;
static struct empty_gpio_bpf *eskel;
static struct bpf_link *blink;
static struct bpf_program *bprog;

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
				    .filter_lines = true };
	/* as gpiolat -l LINE: the toggled line alone, at index 0 */
	static struct gpio_lines one;
	struct btf *btf;
	int err;

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
	blink = bpf_program__attach(bprog);
	return blink ? 0 : -1;
}

static int bpf_off(const struct method *m)
{
	bpf_link__destroy(blink);
	blink = NULL;
	return 0;
}

static void bpf_teardown(const struct method *m)
{
	bpf_off(m);
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
	return 0;
}
