// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat's histogram mode (histo.h, histo_mode.h): in-kernel pulse-width histograms of GPIO
 * lines, and what the tracing costs.
 *
 * One fixed path: parse, check what the kernel offers, open, configure, load, (untraced phase),
 * attach, run, detach, (untraced phase), print; one cleanup label on every way out.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h"
#include "gpiolat.skel.h"
#include "modes/histogram/histo.h"
#include "modes/histogram/histo_mode.h"
#include "core/parse.h"
#include "core/sys.h"
#include "core/undo.h"

static volatile sig_atomic_t exiting;
static bool verbose;

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	/* without -v, libbpf's warnings would repeat our one error line at length */
	if (!verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void sig_handler(int sig)
{
	exiting = 1;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* sleep up to ms; false when a signal asked us to stop (EINTR is a normal way out) */
static bool nap(int ms)
{
	if (poll(NULL, 0, ms) < 0 && errno != EINTR)
		return false;
	return !exiting;
}

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
static bool wait_pulses(__u64 deadline, bool *timed_out)
{
	while (toggle_enabled() == 1) {
		if (deadline && now_ns() >= deadline) {
			*timed_out = true;
			return false;
		}
		if (!nap(POLL_MS))
			return false;
	}
	return !exiting;
}

/* an untraced phase: the module's own pulses (--pulses) or a free-running toggler */
static void untraced_phase(const struct env *env, struct run_info *ri)
{
	long long n = env->untraced;
	struct stat_acc *ph;
	__s64 seq0;
	__u64 end;
	bool t = false;

	if (!ri->shift_wanted || exiting)
		return;
	/* 0: before the traced phase, 1: after it */
	ph = &ri->phase[ri->nphases < 2 ? ri->nphases++ : 1];
	seq0 = toggle_last_seq();
	if (env->pulses) {
		if (n < 0)
			n = env->pulses < DEFAULT_UNTRACED_MAX ? env->pulses : DEFAULT_UNTRACED_MAX;
		if (!n || toggle_start_pulses(n))
			return;
		if (!wait_pulses(0, &t)) {
			toggle_stop();
			return;
		}
		batches_stat(seq0, INT64_MAX, false, &ri->untraced, ph, &ri->untraced_pulses,
			     &ri->phase_pulses[ph - ri->phase]);
	} else {
		if (ri->drive && toggle_start())
			return;
		end = now_ns() + FREE_PHASE_NS;
		while (now_ns() < end && nap(POLL_MS))
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

int histo_main(int argc, char **argv)
{
	struct env env = { .method = GPIO_HOOK_TP, .unit = UNIT_NS, .untraced = -1 };
	struct run_info ri = { .stats_fd = -1 };
	struct line_result *lr = NULL, *prev = NULL;
	struct line_sel sel[MAX_SPECS];
	struct gpiolat_bpf *skel = NULL;
	struct btf *btf = NULL;
	char why[WHY_SIZE];
	bool pulsing = false;
	__u64 t0, deadline = 0, next_iv = 0, last_snap;
	__s64 seq_attach = -1, seq_detach;
	static struct gpio_lines lines;
	__u32 desc_size;
	int err = EXIT_ERROR, i, n, nprev = 0, iv = 0;

	if (histo_parse(argc, argv, &env))
		return EXIT_USAGE;
	verbose = env.verbose;
	libbpf_set_print(libbpf_print_fn);
	if (env.self_test)
		return self_test(&env);

	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	/*
	 * Ctrl-C, kill and a hangup (an ssh drop) only set the flag: the run ends on the one
	 * path that stops the toggle module and detaches. A closed output (gpiolat -i 1s | head)
	 * must not kill us halfway either: SIGPIPE is ignored and a failed write ends the run.
	 */
	cli_signals(sig_handler);

	btf = sys_load_btf(env.btf_path, why, sizeof(why));
	if (!btf) {
		fprintf(stderr, "gpiolat: no BTF for CO-RE: %s\n", why);
		goto cleanup;
	}
	for (i = 0; i < env.nspecs; i++) {
		if (sys_resolve_line(env.specs[i], &sel[i].gpio, sel[i].chip, sizeof(sel[i].chip),
				     &sel[i].offset, why, sizeof(why))) {
			fprintf(stderr, "gpiolat: %s\n", why);
			goto cleanup;
		}
	}
	if (gpio_hook_check(env.method, btf, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	desc_size = histo_desc_size(env.method, btf, why, sizeof(why));
	if (!desc_size) {
		fprintf(stderr, "gpiolat: %s: %s\n", gpio_hooks[env.method].name, why);
		goto cleanup;
	}
	ri.toggle = toggle_present();
	ri.toggle_gpio_ok = ri.toggle && !toggle_gpio(&ri.toggle_gpio);
	if (env.pulses) {
		if (!ri.toggle) {
			fprintf(stderr,
				"gpiolat: --pulses needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
			goto cleanup;
		}
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: --pulses: the toggle module is already toggling "
					"(echo 0 > /sys/kernel/debug/toggle/enable first)\n");
			goto cleanup;
		}
	}
	/*
	 * Without --pulses, an idle toggle module whose line is watched toggles for the run (its
	 * burst mode, unlimited), so that "gpiolat -d 2" has pulses to show; it is idle again at
	 * the end, on every way out.
	 */
	ri.drive = ri.toggle && !env.pulses && !env.no_toggle && ri.toggle_gpio_ok &&
		   toggle_enabled() == 0 && line_watched(sel, env.nspecs, ri.toggle_gpio);
	ri.shift_wanted = ri.toggle && (env.pulses || ri.drive || toggle_enabled() == 1);

	if (gpio_lines_index(&lines, sel, env.nspecs, env.verbose, why, sizeof(why)) ||
	    histo_open_load(&env, env.method, desc_size, &lines, &skel, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	/* the lines' indices: the BPF side's line filter and histogram slots */
	i = gpio_bpf_fill_lines(skel, &lines);
	if (i) {
		fprintf(stderr, "gpiolat: cannot set up the lines map: %s\n", strerror(-i));
		goto cleanup;
	}
	lr = calloc(GPIOLAT_MAX_LINES, sizeof(*lr));
	prev = calloc(GPIOLAT_MAX_LINES, sizeof(*prev));
	if (!lr || !prev) {
		fprintf(stderr, "gpiolat: out of memory\n");
		goto cleanup;
	}

	/* the module's toggling recorded on disk first: a SIGKILL would leave it toggling */
	if ((ri.drive || env.pulses) && undo_toggle())
		goto cleanup;
	if (ri.drive && env.out == OUT_TEXT)
		printf("The toggle module (gpio %u) is idle: it toggles while gpiolat is attached "
		       "(--no-toggle: only watch).\n",
		       ri.toggle_gpio);
	untraced_phase(&env, &ri);
	if (exiting) {
		/* stopped before attaching (loading, the first untraced phase): nothing measured */
		fprintf(stderr, "gpiolat: interrupted before attaching: nothing measured\n");
		err = EXIT_OK;
		goto cleanup;
	}
	if (env.bpf_stats)
		ri.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ri.toggle)
		ri.edges_ok = !toggle_edges(&ri.rising0, &ri.falling0);
	seq_attach = ri.toggle ? toggle_last_seq() : -1;
	if (gpiolat_bpf__attach(skel)) {
		fprintf(stderr, "gpiolat: attaching %s failed: %s (gpiolat -v shows why)\n",
			gpio_hooks[env.method].hook, strerror(errno));
		goto cleanup;
	}
	clock_gettime(CLOCK_MONOTONIC, &ri.start);
	t0 = now_ns();
	if (env.out == OUT_TEXT)
		printf("Tracing %s (%s) on %s%s. %s\n", gpio_hooks[env.method].hook,
		       gpio_hooks[env.method].name, env.nspecs ? "the selected lines" : "all lines",
		       sys_emulated() ? " (emulated target)" : "",
		       env.pulses      ? "Waiting for the toggle module's pulses." :
		       env.duration_ns ? "" :
					 "Hit Ctrl-C to end.");
	fflush(stdout);
	if (env.duration_ns)
		deadline = t0 + env.duration_ns;
	if (env.interval_ns)
		next_iv = t0 + env.interval_ns;
	last_snap = t0;
	if (ri.drive) {
		if ((err = toggle_start())) {
			fprintf(stderr, "gpiolat: cannot start the toggle module: %s\n",
				strerror(-err));
			err = EXIT_ERROR;
			goto cleanup;
		}
		err = EXIT_ERROR;
	}
	if (env.pulses) {
		if ((err = toggle_start_pulses(env.pulses))) {
			fprintf(stderr, "gpiolat: cannot start the toggle module's pulses: %s\n",
				strerror(-err));
			err = EXIT_ERROR;
			goto cleanup;
		}
		pulsing = true;
		err = EXIT_ERROR;
	}

	/* the one poll loop: until the pulses are done, the time is up, or a signal */
	while (!exiting) {
		__u64 now = now_ns();

		if (pulsing && toggle_enabled() != 1)
			break;
		if (deadline && now >= deadline) {
			ri.timed_out = pulsing;
			break;
		}
		if (next_iv && now >= next_iv) {
			/* stamped with the times the snapshots were taken, not the schedule's */
			n = gpio_bpf_read_lines(skel, &lines, sel, env.nspecs, lr,
						GPIOLAT_MAX_LINES);
			if (n >= 0) {
				print_interval(&env, ++iv, last_snap - t0, now - t0, lr, n, prev,
					       nprev);
				memcpy(prev, lr, n * sizeof(*lr));
				nprev = n;
				last_snap = now;
			}
			/* the next boundary still ahead (a stall skips boundaries, not intervals) */
			while (next_iv <= now)
				next_iv += env.interval_ns;
			/* nobody reads us any more (EPIPE, EIO after a hangup): end as on Ctrl-C */
			if (ferror(stdout))
				exiting = 1;
		}
		nap(POLL_MS);
	}
	if (pulsing && toggle_enabled() == 1) {
		toggle_stop();
		if (!ri.timed_out && exiting)
			fprintf(stderr,
				"gpiolat: interrupted: the toggle module's pulses stopped\n");
	}
	pulsing = false;
	if (ri.drive)
		toggle_stop();
	gpiolat_bpf__detach(skel);
	clock_gettime(CLOCK_MONOTONIC, &ri.end);
	if (ri.toggle) {
		if (ri.edges_ok)
			ri.edges_ok = !toggle_edges(&ri.rising1, &ri.falling1);
		seq_detach = toggle_last_seq();
		if (ri.shift_wanted)
			batches_stat(seq_attach, seq_detach, !env.pulses, &ri.traced, NULL,
				     &ri.traced_pulses, NULL);
	}
	/* the last drain, after the probes are gone */
	n = gpio_bpf_read_lines(skel, &lines, sel, env.nspecs, lr, GPIOLAT_MAX_LINES);
	if (n < 0) {
		fprintf(stderr, "gpiolat: reading the histograms failed: %s\n", strerror(-n));
		goto cleanup;
	}
	ri.drops = gpio_bpf_read_drops(skel);
	untraced_phase(&env, &ri);

	if (env.out == OUT_JSON) {
		print_json(&env, skel, &ri, lr, n);
	} else {
		if (iv && env.out == OUT_TEXT)
			printf("--- totals\n");
		else if (iv)
			printf("# totals\n");
		if (env.out == OUT_CSV)
			printf("# gpiolat csv: method=%s hook=%s emulated=%d\n",
			       gpio_hooks[env.method].name, gpio_hooks[env.method].hook,
			       sys_emulated());
		print_lines(&env, lr, n, stdout);
		if (env.out == OUT_TEXT)
			printf("(p50, p90 and p99 are estimates at bucket resolution: interpolated in "
			       "the bucket holding them)\n");
		if (ri.drops)
			printf("%s%llu sets dropped: of lines gpiolat gave no slot at start (a chip "
			       "added later, one whose base it could not read, or beyond %u lines)\n",
			       env.out == OUT_CSV ? "# " : "", (unsigned long long)ri.drops,
			       GPIOLAT_MAX_LINES);
		print_toggle_text(&env, &ri, lr, n);
		if (env.out == OUT_TEXT)
			print_overhead_text(&env, skel, &ri);
	}
	if (ri.timed_out)
		fprintf(stderr, "gpiolat: the toggle module's pulses were not done within the "
				"duration: stopped them\n");
	err = EXIT_OK;

cleanup:
	if ((pulsing || ri.drive) && toggle_enabled() == 1)
		toggle_stop();
	undo_all();
	if (ri.stats_fd >= 0)
		close(ri.stats_fd);
	gpiolat_bpf__destroy(skel);
	gpio_lines_release(&lines);
	btf__free(btf);
	free(lr);
	free(prev);
	return err;
}
