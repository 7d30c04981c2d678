// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat's histogram mode (histo.h, histo_int.h): in-kernel pulse-width histograms of GPIO
 * lines, and what the tracing costs.
 *
 * A table of steps (struct mode_ops) driven by run_mode() (core/run.h): parse (only the command
 * line); prepare (the BTF file found, check what the kernel offers, set up the gpiolat BPF
 * provider on the lines, an untraced phase); enable (switch it on, start the toggling); go (the
 * one poll loop, reading it at each interval); collect (switch it off, the last read, an
 * untraced phase); print; undo on every way out. --self-test is the go step of the same table.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>
#include "gpiolat.h"
#include "modes/histogram/histo.h"
#include "modes/histogram/histo_int.h"
#include "core/btf_find.h"
#include "core/parse.h"
#include "core/run.h"
#include "core/sys.h"
#include "core/undo.h"
#include "providers/provider.h"

/* per-set times of the toggle module's batches with after < seq <= upto */
static void batches_stat(__s64 after, __s64 upto, bool drop_edges, struct stat_acc *acc,
			 struct stat_acc *phase, __u64 *pulses, __u64 *phase_pulses)
{
	struct toggle_batch *b;
	int i, n;

	b = calloc(MAX_BATCHES, sizeof(*b));
	if (!b)
		return;
	n = toggle_batches(after, b, MAX_BATCHES);
	for (i = 0; i < n; i++) {
		if ((__s64)b[i].seq > upto)
			break;
		if (drop_edges && ((__s64)b[i].seq == after + 1 || (__s64)b[i].seq == upto))
			continue;
		stat_add(acc, (double)b[i].ns / (2.0 * b[i].pulses));
		if (phase) {
			stat_add(phase, (double)b[i].ns / (2.0 * b[i].pulses));
			*phase_pulses += b[i].pulses;
		}
		*pulses += b[i].pulses;
	}
	free(b);
}

/* wait for the toggle module's pulses to be done; false on a signal or the time limit */
static bool wait_pulses(struct run *r, __u64 deadline, bool *timed_out)
{
	while (toggle_enabled() == 1) {
		if (deadline && run_now_ns() >= deadline) {
			*timed_out = true;
			return false;
		}
		if (!run_nap(r, POLL_MS))
			return false;
	}
	return !r->stop;
}

/* an untraced phase: the module's own pulses (--pulses) or a free-running toggler */
static void untraced_phase(struct run *r, const struct histo_env *env, struct run_info *ri)
{
	long long n = env->untraced;
	struct stat_acc *ph;
	__s64 seq0;
	__u64 end;
	bool t = false;

	if (!ri->shift_wanted || r->stop)
		return;
	/* 0: before the traced phase, 1: after it */
	ph = &ri->phase[ri->nphases < 2 ? ri->nphases++ : 1];
	seq0 = toggle_last_seq();
	if (env->pulses) {
		if (n < 0)
			n = env->pulses < DEFAULT_UNTRACED_MAX ? env->pulses : DEFAULT_UNTRACED_MAX;
		if (!n || toggle_start_pulses(n))
			return;
		if (!wait_pulses(r, 0, &t)) {
			toggle_stop();
			return;
		}
		batches_stat(seq0, INT64_MAX, false, &ri->untraced, ph, &ri->untraced_pulses,
			     &ri->phase_pulses[ph - ri->phase]);
	} else {
		if (ri->drive && toggle_start())
			return;
		end = run_now_ns() + FREE_PHASE_NS;
		while (run_now_ns() < end && run_nap(r, POLL_MS))
			;
		if (ri->drive)
			toggle_stop();
		batches_stat(seq0, toggle_last_seq(), true, &ri->untraced, ph, &ri->untraced_pulses,
			     &ri->phase_pulses[ph - ri->phase]);
	}
}

/* is this GPIO among the selected lines (all lines when none is selected)? */
static bool line_watched(const struct line_sel *sel, int n, __u32 gpio)
{
	int i;

	for (i = 0; i < n; i++)
		if (sel[i].gpio == gpio)
			return true;
	return !n;
}

/* the histogram mode's run: its options, what it measured, what it holds */
struct histo {
	struct histo_env env;
	struct run_info ri;
	struct line_result *lr, *prev;
	struct line_sel sel[MAX_SPECS];
	__u32 pair[MAX_SPECS];
	/* the gpiolat BPF provider on the lines: its target, arguments, run */
	struct target t;
	struct probe_args a;
	struct bpf_args ba;
	struct gpio_watch w;
	struct probe p;
	struct probe_figures fig;
	bool pulsing;
	__u64 t0, deadline, next_iv, last_snap;
	__s64 seq_attach;
	int n, nprev, iv;
};

static int histo_parse_step(struct run *r, void *ctx, int argc, char **argv)
{
	struct histo *h = ctx;

	int err = histo_parse(argc, argv, &h->env);

	r->verbose = h->env.verbose;
	return err;
}

/* check what the kernel offers, open, configure and load; the first untraced phase */
static int histo_prepare(struct run *r, void *ctx)
{
	struct histo *h = ctx;
	struct histo_env *env = &h->env;
	struct run_info *ri = &h->ri;
	char why[WHY_SIZE];
	int i;

	/* a kernel without BTF (armmp): the one made for it, if there is one (--btf wins); the
	 * self test reports on it too */
	env->btf_path = btf_find(env->btf_path);
	/* none at all (Raspberry Pi OS): the programs without CO-RE, said in one line */
	env->nobtf = gpio_bpf_no_btf(r, env->btf_path);
	if (env->self_test)
		return EXIT_OK;
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	if (env->nobtf)
		gpio_bpf_no_btf_say();
	for (i = 0; i < env->nspecs; i++) {
		struct line_sel *s = &h->sel[i];

		if (sys_resolve_line(env->specs[i], &s->gpio, s->chip, sizeof(s->chip), &s->offset,
				     why, sizeof(why))) {
			fprintf(stderr, "gpiolat: %s\n", why);
			return EXIT_ERROR;
		}
	}
	h->t = (struct target){ .kind = TGT_GPIO_PULSE, .run = r, .btf_path = env->btf_path };
	h->ba = (struct bpf_args){ .hook = env->method, .watch = &h->w };
	h->a = (struct probe_args){ .bpf = &h->ba };
	probe_init(&h->p, &prov_bpf_gpiolat, &h->a, &h->t);
	if (probe_gpio_hook_check(&h->p, why, sizeof(why))) {
		/* as --overhead says it of a row: "not available: why" */
		fprintf(stderr, "gpiolat: %s: not available: %s\n", gpio_hooks[env->method].name,
			why);
		return EXIT_ERROR;
	}
	ri->toggle = toggle_present();
	ri->toggle_gpio_ok = ri->toggle && !toggle_gpio(&ri->toggle_gpio);
	if (env->pulses) {
		if (!ri->toggle) {
			fprintf(stderr,
				"gpiolat: --pulses needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
			return EXIT_ERROR;
		}
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: --pulses: the toggle module is already toggling "
					"(echo 0 > /sys/kernel/debug/toggle/enable first)\n");
			return EXIT_ERROR;
		}
	}
	/*
	 * Without --pulses, an idle toggle module whose line is watched toggles for the run (its
	 * burst mode, unlimited), so that "gpiolat -d 2" has pulses to show; it is idle again at
	 * the end, on every way out.
	 */
	ri->drive = ri->toggle && !env->pulses && !env->no_toggle && ri->toggle_gpio_ok &&
		    toggle_enabled() == 0 && line_watched(h->sel, env->nspecs, ri->toggle_gpio);
	ri->shift_wanted = ri->toggle && (env->pulses || ri->drive || toggle_enabled() == 1);

	/* the lines watched; without BTF the kprobe pairs each selected line with its gpio_desc
	 * first (or the toggle module's line, without -l) */
	h->w = (struct gpio_watch){ .sel = h->sel,
				    .nsel = env->nspecs,
				    .lin_width = env->lin_width,
				    .intervals = env->interval_ns > 0,
				    .verbose = env->verbose,
				    .pair = h->pair };
	for (i = 0; i < env->nspecs; i++)
		h->pair[h->w.npair++] = h->sel[i].gpio;
	if (!h->w.npair && ri->toggle_gpio_ok)
		h->pair[h->w.npair++] = ri->toggle_gpio;
	h->t.gpio = ri->toggle_gpio;
	if (probe_setup(&h->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	h->lr = calloc(GPIOLAT_MAX_LINES, sizeof(*h->lr));
	h->prev = calloc(GPIOLAT_MAX_LINES, sizeof(*h->prev));
	if (!h->lr || !h->prev) {
		fprintf(stderr, "gpiolat: out of memory\n");
		return EXIT_ERROR;
	}

	/* the module's toggling recorded on disk first: a SIGKILL would leave it toggling */
	if ((ri->drive || env->pulses) && undo_toggle(&r->undo))
		return EXIT_ERROR;
	if (ri->drive && env->out == OUT_TEXT)
		printf("The toggle module (gpio %u) is idle: it toggles while gpiolat is attached "
		       "(--no-toggle: only watch).\n",
		       ri->toggle_gpio);
	untraced_phase(r, env, ri);
	if (r->stop) {
		/* stopped before attaching (loading, the first untraced phase): nothing measured */
		fprintf(stderr, "gpiolat: interrupted before attaching: nothing measured\n");
		return RUN_DONE;
	}
	return EXIT_OK;
}

/* attach; start the module's toggling or pulses */
static int histo_enable(struct run *r, void *ctx)
{
	struct histo *h = ctx;
	struct histo_env *env = &h->env;
	struct run_info *ri = &h->ri;
	const struct gpio_hook_info *hook = &gpio_hooks[env->method];
	char why[WHY_SIZE];
	int err;

	if (env->self_test)
		return EXIT_OK;
	if (env->bpf_stats)
		run_bpf_stats(r);
	if (ri->toggle)
		ri->edges_ok = !toggle_edges(&ri->rising0, &ri->falling0);
	h->seq_attach = ri->toggle ? toggle_last_seq() : -1;
	if (probe_on(&h->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s (gpiolat -v shows why)\n", why);
		return EXIT_ERROR;
	}
	ri->start_ns = run_now_ns();
	h->t0 = ri->start_ns;
	if (env->out == OUT_TEXT)
		printf("Tracing %s (%s) on %s%s. %s\n", hook->hook, hook->name,
		       env->nspecs ? "the selected lines" : "all lines",
		       sys_emulated() ? " (emulated target)" : "",
		       env->pulses	? "Waiting for the toggle module's pulses." :
		       env->duration_ns ? "" :
					  "Hit Ctrl-C to end.");
	fflush(stdout);
	if (env->duration_ns)
		h->deadline = h->t0 + env->duration_ns;
	if (env->interval_ns)
		h->next_iv = h->t0 + env->interval_ns;
	h->last_snap = h->t0;
	if (ri->drive) {
		err = toggle_start();
		if (err) {
			fprintf(stderr, "gpiolat: cannot start the toggle module: %s\n",
				strerror(-err));
			return EXIT_ERROR;
		}
	}
	if (env->pulses) {
		err = toggle_start_pulses(env->pulses);
		if (err) {
			fprintf(stderr, "gpiolat: cannot start the toggle module's pulses: %s\n",
				strerror(-err));
			return EXIT_ERROR;
		}
		h->pulsing = true;
	}
	return EXIT_OK;
}

/* the one poll loop: until the pulses are done, the time is up, or a signal */
static int histo_go(struct run *r, void *ctx)
{
	struct histo *h = ctx;
	struct histo_env *env = &h->env;
	struct gpio_read rd = { .lr = h->lr, .max = GPIOLAT_MAX_LINES };
	char why[WHY_SIZE];

	if (env->self_test)
		return histo_self_test(r, env);
	while (!r->stop) {
		__u64 now = run_now_ns();

		if (h->pulsing && toggle_enabled() != 1)
			break;
		if (h->deadline && now >= h->deadline) {
			h->ri.timed_out = h->pulsing;
			break;
		}
		if (h->next_iv && now >= h->next_iv) {
			/* stamped with the times the snapshots were taken, not the schedule's */
			if (!probe_read(&h->p, &rd, why, sizeof(why))) {
				histo_print_interval(env, ++h->iv, h->last_snap - h->t0,
						     now - h->t0, h->lr, rd.n, h->prev, h->nprev);
				memcpy(h->prev, h->lr, rd.n * sizeof(*h->lr));
				h->nprev = rd.n;
				h->last_snap = now;
			}
			/* the next boundary still ahead (a stall skips boundaries, not intervals) */
			while (h->next_iv <= now)
				h->next_iv += env->interval_ns;
			/* nobody reads us any more (EPIPE, EIO after a hangup): end as on Ctrl-C */
			if (ferror(stdout))
				r->stop = 1;
		}
		run_nap(r, POLL_MS);
	}
	return EXIT_OK;
}

/* stop the toggling, detach, the last drain after the probes are gone, an untraced phase */
static int histo_collect(struct run *r, void *ctx)
{
	struct histo *h = ctx;
	struct histo_env *env = &h->env;
	struct run_info *ri = &h->ri;
	struct gpio_read rd = { .lr = h->lr, .max = GPIOLAT_MAX_LINES };
	char why[WHY_SIZE];

	if (env->self_test)
		return EXIT_OK;
	if (h->pulsing && toggle_enabled() == 1) {
		toggle_stop();
		if (!ri->timed_out && r->stop)
			fprintf(stderr,
				"gpiolat: interrupted: the toggle module's pulses stopped\n");
	}
	h->pulsing = false;
	if (ri->drive)
		toggle_stop();
	probe_off(&h->p);
	ri->end_ns = run_now_ns();
	if (ri->toggle) {
		if (ri->edges_ok)
			ri->edges_ok = !toggle_edges(&ri->rising1, &ri->falling1);
		if (ri->shift_wanted)
			batches_stat(h->seq_attach, toggle_last_seq(), !env->pulses, &ri->traced,
				     NULL, &ri->traced_pulses, NULL);
	}
	if (probe_read(&h->p, &rd, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		return EXIT_ERROR;
	}
	h->n = rd.n;
	ri->drops = rd.drops;
	/* its program's run time (BPF run-time stats), while it is still loaded */
	probe_figures(&h->p, &h->fig);
	untraced_phase(r, env, ri);
	return EXIT_OK;
}

static int histo_print(struct run *r, void *ctx)
{
	struct histo *h = ctx;
	struct histo_env *env = &h->env;
	struct run_info *ri = &h->ri;

	if (env->self_test)
		return EXIT_OK;
	ri->stats_fd = r->stats_fd;
	if (env->out == OUT_JSON) {
		histo_print_json(env, &h->fig, ri, h->lr, h->n);
	} else {
		if (h->iv && env->out == OUT_TEXT)
			printf("--- totals\n");
		else if (h->iv)
			printf("# totals\n");
		if (env->out == OUT_CSV)
			printf("# gpiolat csv: method=%s hook=%s emulated=%d\n",
			       gpio_hooks[env->method].name, gpio_hooks[env->method].hook,
			       sys_emulated());
		histo_print_lines(env, h->lr, h->n, stdout);
		if (env->out == OUT_TEXT)
			printf("(p50, p90 and p99 are estimates at bucket resolution: interpolated in "
			       "the bucket holding them)\n");
		if (ri->drops)
			printf("%s%llu sets dropped: of lines gpiolat gave no slot at start (a chip "
			       "added later, one whose base it could not read, or beyond %u lines)\n",
			       env->out == OUT_CSV ? "# " : "", (unsigned long long)ri->drops,
			       GPIOLAT_MAX_LINES);
		histo_print_toggle(env, ri, h->lr, h->n);
		if (env->out == OUT_TEXT)
			histo_print_overhead(env, &h->fig, ri);
	}
	if (ri->timed_out)
		fprintf(stderr, "gpiolat: the toggle module's pulses were not done within the "
				"duration: stopped them\n");
	return EXIT_OK;
}

/* every way out: the module idle again, everything freed (then run_mode() replays r->undo) */
static void histo_undo(struct run *r, void *ctx)
{
	struct histo *h = ctx;

	(void)r;
	if ((h->pulsing || h->ri.drive) && toggle_enabled() == 1)
		toggle_stop();
	probe_teardown(&h->p);
	free(h->lr);
	free(h->prev);
}

static const struct mode_ops histo_ops = {
	.name = "histogram",
	.parse = histo_parse_step,
	.prepare = histo_prepare,
	.enable = histo_enable,
	.go = histo_go,
	.collect = histo_collect,
	.print = histo_print,
	.undo = histo_undo,
};

int histo_main(int argc, char **argv)
{
	struct histo *h = calloc(1, sizeof(*h));
	struct run r;
	int err;

	if (!h) {
		fprintf(stderr, "gpiolat: out of memory\n");
		return EXIT_ERROR;
	}
	h->env = (struct histo_env){ .method = GPIO_HOOK_TP, .unit = UNIT_NS, .untraced = -1 };
	h->ri.stats_fd = -1;
	h->seq_attach = -1;
	err = run_mode(&r, &histo_ops, h, argc, argv);
	free(h);
	return err;
}
