// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --path: the GPIO path decomposed (docs/gpio-path.md). Each toggler of the talk's
 * "Measuring gpio latencies" on one line, tracing off, timed by its own clock:
 *
 *   t_raw       the module's kernel thread, raw writes (debugfs raw=1, kmod/toggle_raw.c)
 *   t_subsys    the module's kernel thread, gpiod_set_value() (depth 0: no chain)
 *   t_ioctl, t_libgpiod, t_sysfs   utoggle -m MODE (its per-batch CLOCK_MONOTONIC)
 *   mmap        mmtoggle (registers mapped from user space), where the chip has registers
 *   sh, bash    toggler/toggle.sh: sets per wall time over one long run, from the line
 *               it prints before its loop to its exit
 *
 * A repetition is one phase of each toggler, in turn; every phase stands alone (no shared
 * reference phase), so the repetitions are independent samples. The module's edge counters
 * check every kernel phase's set count. Then, once per toggler, a phase with gpio:gpio_value
 * (filtered on the line) on in a tracefs instance of our own with the mono clock: the events'
 * timestamps are the second clock the own clock is checked against.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/cli.h"
#include "core/kmod_reload.h"
#include "core/parse.h"
#include "core/run.h"
#include "modes/path/path.h"
#include "modes/path/path_int.h"
#include "core/undo.h"
#include "providers/provider.h"

#define TOGGLE_DIR "/sys/kernel/debug/toggle"
#define INST "gpiolat_path"

/* the mode's run: its options, where its programs are, what it made, what it measured */
struct path_ctx {
	struct path_opts o;
	char bindir[PATH_MAX];
	char bash_path[PATH_MAX];
	/* the cross-check: our tracefs instance, the gpio:gpio_value event in it (tracefs events) */
	struct target xt;
	struct probe_args xa;
	struct events_args xev;
	struct probe xp;
	struct toggle_batch kb[4096]; /* a kernel phase's batches */
	struct path_run res;
	struct run *run;
	struct undo *undo; /* the run's (core/undo.h) */
};

bool path_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--path");
}

/* ---- the kernel togglers: the module's batch clock ------------------------------------- */

/* one phase of n pulses; ns per set, or -1 and why */
static int kphase(struct path_ctx *p, long long n, double *ns, char *why)
{
	__u64 r0, f0, r1, f1, sum_ns = 0, sum_p = 0;
	__s64 seq = toggle_last_seq();
	int i, nb, err;

	if (toggle_edges(&r0, &f0))
		return snprintf(why, WHY_SIZE, "cannot read %s/edges", TOGGLE_DIR), -1;
	err = toggle_start_pulses(n);
	if (err)
		return snprintf(why, WHY_SIZE, "cannot start the module: %s", strerror(-err)), -1;
	while (toggle_enabled() == 1)
		run_nap(p->run, 2);
	if (toggle_edges(&r1, &f1) || r1 - r0 != (__u64)n || f1 - f0 != (__u64)n)
		return snprintf(why, WHY_SIZE, "edge counters moved by %llu/%llu, not %lld each",
				(unsigned long long)(r1 - r0), (unsigned long long)(f1 - f0), n),
		       -1;
	nb = toggle_batches(seq, p->kb, 4096);
	for (i = 0; i < nb; i++) {
		sum_ns += p->kb[i].ns;
		sum_p += p->kb[i].pulses;
	}
	if (sum_p != (__u64)n)
		return snprintf(why, WHY_SIZE, "the batch ring holds %llu of %lld pulses",
				(unsigned long long)sum_p, n),
		       -1;
	*ns = (double)sum_ns / (2.0 * sum_p);
	return 0;
}

static int kraw(struct path_ctx *p, bool on)
{
	if (on && undo_file(p->undo, TOGGLE_DIR "/raw"))
		return -1;
	return sys_write_str(TOGGLE_DIR "/raw", on ? "1\n" : "0\n");
}

/* ---- the user-space togglers ------------------------------------------------------------ */

/* utoggle or mmtoggle: one phase; their own clock's mean ns per set; -1 and why */
static int cphase(struct path_ctx *p, enum path_row row, long long n, double *ns, char *why)
{
	static const char *const modes[] = {
		[P_IOCTL] = "ioctl", [P_LIBGPIOD] = "libgpiod", [P_SYSFS] = "sysfs"
	};
	char prog[PATH_MAX], cnt[32], line[16], out[8192], burst[16], *m;
	int rc;

	snprintf(cnt, sizeof(cnt), "%lld", n);
	snprintf(line, sizeof(line), "%d", p->o.uline);
	snprintf(burst, sizeof(burst), "%d", 1000);
	if (row == P_MMAP) {
		snprintf(prog, sizeof(prog), "%.4000s/mmtoggle", p->bindir);
		char *av[] = { prog, p->res.chip, line, cnt, burst, NULL };

		rc = path_spawn(p->undo, av, out, sizeof(out), NULL);
	} else {
		snprintf(prog, sizeof(prog), "%.4000s/utoggle", p->bindir);
		char *av[] = { prog,	     (char *)"-m", (char *)modes[row],
			       (char *)"-g", p->res.chip,  (char *)"-l",
			       line,	     (char *)"-c", cnt,
			       (char *)"-b", burst,	   (char *)"-i",
			       (char *)"0",  NULL };

		rc = path_spawn(p->undo, av, out, sizeof(out), NULL);
	}
	if (rc) {
		path_last_line(out, why);
		return -1;
	}
	m = strstr(out, "ns per set: n ");
	if (!m || !(m = strstr(m, "mean ")) || sscanf(m, "mean %lf", ns) != 1)
		return snprintf(why, WHY_SIZE, "%.200s printed no 'ns per set' line", prog), -1;
	return 0;
}

/*
 * the shell: sets per wall time over one long run, T / 2n sets, T from the script's "loop" line
 * (printed after its start-up: exec, export, direction) to its exit (one unexport after the loop)
 */
static int shphase(struct path_ctx *p, const char *shell, unsigned int gpio, long long n,
		   double *ns, char *why)
{
	char script[PATH_MAX], g[16], c[32], out[4096];
	char *av[] = { (char *)shell, script, g, c, NULL };
	long long t;

	snprintf(script, sizeof(script), "%.4000s/toggle.sh", p->bindir);
	snprintf(g, sizeof(g), "%u", gpio);
	snprintf(c, sizeof(c), "%lld", n);
	if (path_spawn(p->undo, av, out, sizeof(out), &t)) {
		path_last_line(out, why);
		return -1;
	}
	*ns = (double)t / (2.0 * n);
	return 0;
}

/* one phase of a row; ns per set, or -1 and why */
static int phase(struct path_ctx *p, enum path_row row, double *ns, char *why)
{
	int err;

	switch (row) {
	case P_RAW:
		if (kraw(p, true))
			return snprintf(why, WHY_SIZE, "%s/raw refused", TOGGLE_DIR), -1;
		err = kphase(p, p->o.pulses, ns, why);
		kraw(p, false);
		return err;
	case P_SUBSYS:
		return kphase(p, p->o.pulses, ns, why);
	case P_SH:
		return shphase(p, "/bin/sh", p->res.ugpio, p->o.sh_pulses, ns, why);
	case P_BASH:
		return shphase(p, p->bash_path, p->res.ugpio, p->o.sh_pulses, ns, why);
	default:
		return cphase(p, row, p->o.pulses, ns, why);
	}
}

/* ---- the cross-check: gpio:gpio_value timestamps ---------------------------------------- */

/* the event switched off, the instance removed (its undo step is then a no-op) */
static void inst_remove(struct path_ctx *p)
{
	probe_off(&p->xp);
	probe_teardown(&p->xp);
	memset(&p->xp, 0, sizeof(p->xp));
	target_instance_free(&p->xt, true);
}

/*
 * the phase's sets to 1 and 0 of gpio: after the first skip, in runs of group sets (a batch; the
 * shell's run), the mean over runs of (last - first) / (group - 1); -1 and why
 */
static int xc_trace(struct path_ctx *ctx, unsigned int gpio, long long skip, long long group,
		    long long total, double *ns, char *why)
{
	struct trace_read tr;
	char line[512];
	unsigned long long sec, usec, ts0 = 0, prev;
	long long k = 0, runs = 0;
	double sum = 0;
	unsigned int g;
	char *c, word[8];
	int v;
	FILE *f;

	if (probe_read(&ctx->xp, &tr, why, WHY_SIZE))
		return -1;
	f = tr.f;
	while (fgets(line, sizeof(line), f)) {
		c = strstr(line, ": gpio_value: ");
		if (!c || sscanf(c, ": gpio_value: %u %7s %d", &g, word, &v) != 3 || g != gpio ||
		    strcmp(word, "set"))
			continue;
		while (c > line && c[-1] != ' ')
			c--;
		if (sscanf(c, "%llu.%llu", &sec, &usec) != 2)
			continue;
		prev = sec * 1000000000ULL + usec * 1000ULL;
		if (k++ < skip)
			continue;
		if ((k - 1 - skip) % group == 0)
			ts0 = prev;
		if ((k - skip) % group == 0) {
			sum += (double)(prev - ts0) / (group - 1);
			runs++;
		}
	}
	fclose(f);
	if (k != total || !runs)
		return snprintf(why, WHY_SIZE, "%lld set events in the buffer, not %lld (lost?)", k,
				total),
		       -1;
	*ns = sum / runs;
	return 0;
}

/* once per row that sets through gpiolib: own clock against the events' timestamps */
static void cross_check(struct path_ctx *p, enum path_row row)
{
	struct path_run *r = &p->res;
	struct path_row_res *x = &r->row[row];
	unsigned int gpio = row <= P_SUBSYS ? r->kgpio : r->ugpio;
	long long group, total, skip = 0;
	char filt[64];

	if (!x->avail)
		return;

	if (row == P_RAW || row == P_MMAP) {
		snprintf(x->xc_why, WHY_SIZE,
			 "bypasses gpiolib: no gpio:gpio_value to check against");
		return;
	}
	snprintf(filt, sizeof(filt), "gpio == %u && get == 0", gpio);
	p->xev = (struct events_args){ .system = "gpio",
				       .events = { "gpio_value" },
				       .filter = filt };
	p->xa = (struct probe_args){ .ev = &p->xev };
	p->xt = (struct target){ .kind = TGT_GPIO_PULSE, .run = p->run, .gpio = gpio };
	if (target_instance_make(&p->xt, p->undo, INST, NULL, x->xc_why, WHY_SIZE))
		return;
	probe_init(&p->xp, &prov_events, &p->xa, &p->xt);
	if (target_instance_set(&p->xt, "mono", 16384)) {
		snprintf(x->xc_why, WHY_SIZE, "cannot set the clock and buffer of the instance %s",
			 INST);
		inst_remove(p);
		return;
	}
	if (probe_setup(&p->xp, x->xc_why, WHY_SIZE) || probe_on(&p->xp, x->xc_why, WHY_SIZE)) {
		inst_remove(p);
		return;
	}
	/* a user-space toggler's request (output, low) is one set event before its own */
	if (row == P_SH || row == P_BASH) {
		group = 2 * p->o.sh_pulses;
		skip = 1;
		total = skip + group;
	} else {
		group = 2 * (row == P_SUBSYS ? r->burst : 1000);
		skip = row == P_SUBSYS ? 0 : 1;
		total = skip + 2 * p->o.pulses;
	}
	if (phase(p, row, &x->xc_own, x->xc_why) == 0) {
		probe_off(&p->xp);
		x->xc = !xc_trace(p, gpio, skip, group, total, &x->xc_trace, x->xc_why);
	}
	inst_remove(p);
}

/* ---- the run: a table of steps (struct mode_ops) driven by run_mode() (core/run.h) ------ */

/* the instance removed (then run_mode() replays the rest of run->undo, in reverse) */
static void path_undo(struct run *run, void *ctx)
{
	(void)run;
	inst_remove(ctx);
}

/* the rows, what runs them, the lines; 0, or -1 after one error line */
static int setup(struct path_ctx *p)
{
	struct path_opts *o = &p->o;
	struct path_run *r = &p->res;
	static const char *const var[P_NROWS] = { "t_raw",   "t_subsys", "t_ioctl", "t_libgpiod",
						  "t_sysfs", "t_mmap",	 "t_sh",    "t_bash" };
	static const char *const what[P_NROWS] = {
		"kernel thread, raw register write (module raw=1)",
		"kernel thread, gpiod_set_value() (module)",
		"ioctl() on /dev/gpiochipN (utoggle -m ioctl)",
		"C program, libgpiod (utoggle -m libgpiod)",
		"C program, sysfs value file (utoggle -m sysfs)",
		"registers mmap'ed from user space (mmtoggle)",
		"POSIX sh script, sysfs (toggler/toggle.sh)",
		"bash script, sysfs (toggler/toggle.sh)",
	};
	char buf[256], self[PATH_MAX], why[WHY_SIZE], *sl, lbl[96];
	int off, i;
	ssize_t n;
	__u32 g;

	if (!toggle_present()) {
		fprintf(stderr,
			"gpiolat: --path needs the toggle module (insmod toggle.ko): no %s\n",
			TOGGLE_DIR "/edges");
		return -1;
	}
	if (toggle_enabled() != 0) {
		fprintf(stderr, "gpiolat: --path: the toggle module is toggling already\n");
		return -1;
	}
	/* first: a reload gives the module's line a new number */
	if (path_module_mode(p->undo))
		return -1;
	if (toggle_gpio(&g) || sys_gpio_name(g, r->chip, sizeof(r->chip), &off)) {
		fprintf(stderr, "gpiolat: --path: cannot read the module's line (%s/gpio)\n",
			TOGGLE_DIR);
		return -1;
	}
	r->kgpio = g;
	r->kline = off;
	r->uline = o->uline < 0 ? off + 1 : o->uline;
	o->uline = r->uline;
	snprintf(lbl, sizeof(lbl), "%s:%d", r->chip, r->uline);
	if (r->uline == off || sys_resolve_line(lbl, &g, buf, sizeof(buf), &off, why, WHY_SIZE)) {
		fprintf(stderr, "gpiolat: --path: --user-line %d of %s: %s\n", r->uline, r->chip,
			r->uline == r->kline ? "is the module's line" : why);
		return -1;
	}
	r->ugpio = g;
	if (path_read_line("/sys/module/toggle/parameters/burst", buf, sizeof(buf)) ||
	    (r->burst = atol(buf)) < 1) {
		fprintf(stderr, "gpiolat: --path: cannot read the module's burst parameter\n");
		return -1;
	}
	/* the module's ring holds 4096 batches: a kernel phase must fit */
	if (o->pulses > r->burst * 4000)
		o->pulses = r->burst * 4000;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	sl = strrchr(self, '/');
	if (sl)
		*sl = '\0';
	path_bindir(p->bindir, sizeof(p->bindir), self);
	r->emulated = sys_emulated();
	r->reps = o->reps;
	for (i = 0; i < P_NROWS; i++) {
		r->row[i].var = var[i];
		r->row[i].what = what[i];
		r->row[i].avail = true;
		r->row[i].clock = i <= P_SUBSYS ? "the module's batch clock (ktime_get_ns)" :
				  i >= P_SH	? "wall time from its 'loop' line to its exit" :
						  "the toggler's own CLOCK_MONOTONIC per batch";
	}
	if (!sys_find_program("bash", p->bash_path, sizeof(p->bash_path))) {
		r->row[P_BASH].avail = false;
		snprintf(r->row[P_BASH].why, WHY_SIZE, "no bash on PATH (t_bash is the sh row)");
	}
	r->bash_row = r->row[P_BASH].avail ? "t_bash" : "t_sh";
	/* each change recorded on disk before it is made */
	if (undo_toggle(p->undo) || undo_file(p->undo, TOGGLE_DIR "/depth"))
		return -1;
	if (sys_write_str(TOGGLE_DIR "/depth", "0\n")) {
		fprintf(stderr, "gpiolat: --path: cannot set %s/depth to 0\n", TOGGLE_DIR);
		return -1;
	}
	if (path_read_line(TOGGLE_DIR "/raw_target", buf, sizeof(buf)) ||
	    !strncmp(buf, "none", 4)) {
		r->row[P_RAW].avail = false;
		snprintf(r->row[P_RAW].why, WHY_SIZE, "module: %.200s",
			 *buf ? buf : "no raw toggler (older module)");
	}
	return 0;
}

static int path_parse_step(struct run *run, void *ctx, int argc, char **argv)
{
	(void)run;
	return path_parse(&((struct path_ctx *)ctx)->o, argc, argv);
}

/* the rows, the lines, the module set up; the rows --only leaves out */
static int path_prepare(struct run *run, void *ctx)
{
	struct path_ctx *p = ctx;
	struct path_row_res *x;
	int i;

	p->run = run;
	p->undo = &run->undo;
	if (setup(p))
		return EXIT_ERROR;
	for (i = 0; i < P_NROWS; i++) {
		x = &p->res.row[i];
		if (p->o.only && !(p->o.only & (1u << i)) && x->avail) {
			x->avail = false;
			snprintf(x->why, WHY_SIZE, "not asked for (--only)");
		} else if (p->o.only & (1u << i) && !x->avail) {
			fprintf(stderr, "gpiolat: --path: %s: %s\n", x->var, x->why);
			return EXIT_ERROR;
		}
	}
	return EXIT_OK;
}

/* the repetitions, then the cross-checks */
static int path_go(struct run *run, void *ctx)
{
	struct path_ctx *p = ctx;
	struct path_row_res *x;
	int rep, i, err = 0;

	/* a row that fails its first phase is listed with the reason; any later failure is fatal */
	for (rep = 0; rep < p->o.reps && !run->stop && !err; rep++) {
		for (i = 0; i < P_NROWS && !run->stop && !err; i++) {
			x = &p->res.row[i];
			if (!x->avail)
				continue;
			if (phase(p, i, &x->ns[x->n], x->why)) {
				if (rep || (p->o.only & (1u << i))) {
					fprintf(stderr, "gpiolat: --path: %s, repetition %d: %s\n",
						x->var, rep + 1, x->why);
					err = 1;
				}
				x->avail = false;
				continue;
			}
			x->n++;
		}
	}
	for (i = 0; i < P_NROWS && !p->o.no_xc && !run->stop && !err; i++)
		cross_check(p, i);
	if (run->stop) {
		fprintf(stderr, "gpiolat: --path: interrupted\n");
		return EXIT_ERROR;
	}
	return err ? EXIT_ERROR : EXIT_OK;
}

static int path_print_step(struct run *run, void *ctx)
{
	struct path_ctx *p = ctx;
	int i;

	(void)run;
	for (i = 0; i < P_NROWS; i++)
		p->res.row[i].sets = 2 * (i >= P_SH ? p->o.sh_pulses : p->o.pulses);
	path_print(&p->res, p->o.fmt);
	return EXIT_OK;
}

static const struct mode_ops path_ops = {
	.name = "path",
	.parse = path_parse_step,
	.prepare = path_prepare,
	.go = path_go,
	.print = path_print_step,
	.undo = path_undo,
};

int path_main(int argc, char **argv)
{
	struct path_ctx *p = calloc(1, sizeof(*p));
	struct run run;
	int err;

	if (!p) {
		fprintf(stderr, "gpiolat: out of memory\n");
		return EXIT_ERROR;
	}
	p->o = (struct path_opts){ .reps = 10, .pulses = 20000, .sh_pulses = 500, .uline = -1 };
	err = run_mode(&run, &path_ops, p, argc, argv);
	free(p);
	return err;
}
