// SPDX-License-Identifier: GPL-2.0
/*
 * utoggle: toggle one GPIO line from user space and time it (runs on the target).
 *
 * The user-space toggler of "How much is tracing?" (Klinger, ELCE 2023): pulses (a set to 1,
 * then a set to 0) in batches of --burst, with usleep(--interval) between batches (the talk's
 * cache-hot scenario) or back to back (-i 0). Three ways to set the line:
 *
 *   ioctl     GPIO chardev v2 uAPI: GPIO_V2_GET_LINE_IOCTL, then GPIO_V2_LINE_SET_VALUES_IOCTL
 *   libgpiod  libgpiod 1.6 (Debian 12): gpiod_line_request_output(), gpiod_line_set_value();
 *             libgpiod 2.x (Debian 13): gpiod_chip_request_lines(), gpiod_line_request_set_value()
 *             (the one installed, chosen at build time: utoggle_gpio.c)
 *   sysfs     /sys/class/gpio: export, direction "out", write "1"/"0" to value, unexport
 *
 * Each batch is timed with clock_gettime(CLOCK_MONOTONIC) from before its first set to after
 * its last set; one sample is that time divided by the sets in the batch. The summary on exit
 * gives the count, min, mean, max and standard deviation of these samples, in ns per set.
 *
 * toggle_ioctl_v2_once() (and its libgpiod and sysfs siblings) do one pulse each; they are
 * global and never inlined or cloned so that uprobes can attach to them by name.
 *
 * --trace-marker writes one line to trace_marker before each set (the talk's trace_write()).
 * --control is for gpiolat --overhead: the line stays requested and runs of pulses are asked for
 * on stdin, each answered with the per-batch figures on one line (docs/overhead.md).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gpiod.h>
#include <limits.h>
#include <linux/gpio.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "maps_offset.h"
#include "results_out.h"
#include "utoggle_gpio.h"
#include "utoggle_run.h"

/* set by the signal handler, which reaches nothing else; the run reads it as toggler.stop */
static volatile sig_atomic_t stop;
static const char *const mode_names[3] = { "ioctl", "libgpiod", "sysfs" };

static void on_signal(int sig)
{
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [OPTION]...\n"
		"Toggle one GPIO line from user space, time every batch of pulses with\n"
		"clock_gettime(CLOCK_MONOTONIC) and print a summary in ns per set on exit (count, min,\n"
		"mean, max, sd). A pulse is a set to 1, then a set to 0. Runs until -c or -d is reached,\n"
		"or until SIGINT, SIGTERM or SIGHUP; the line is always released.\n"
		"\n"
		"  -m, --mode=MODE       ioctl: GPIO chardev v2 uAPI (default); libgpiod: libgpiod " UTOGGLE_LIBGPIOD_API
		";\n"
		"                        sysfs: /sys/class/gpio (exported for the run, then unexported)\n"
		"  -g, --chip=CHIP       /dev/gpiochipN, gpiochipN, N or a chip label\n"
		"                        (default toggle-vchip, the toggle module's virtual chip)\n"
		"  -l, --line=OFFSET     line offset on the chip (default 1)\n"
		"  -b, --burst=N         pulses per batch (1 to 1000000, default 5)\n"
		"  -i, --interval=US     usleep() between batches in microseconds (0 to 10000000,\n"
		"                        default 1000: the talk's burst mode)\n"
		"  -C, --continuous      no sleep between batches (same as -i 0)\n"
		"  -c, --count=N         issue N pulses, then exit (default: no limit)\n"
		"  -d, --duration=TIME   run for TIME, then exit; TIME is a number with an optional unit\n"
		"                        ms, s (default), m or h\n"
		"  -p, --priority=PRIO   run as SCHED_FIFO with priority PRIO (1 to 99)\n"
		"  -M, --trace-marker[=FILE]  write a line to FILE before each set (the talk's\n"
		"                        trace_write(); default " TRACE_MARKER ")\n"
		"      --control         for gpiolat --overhead: print 'ready pid=P exe=PATH probe=FUNC\n"
		"                        offset=0xOFF' once the line is requested, then read commands\n"
		"                        on stdin: 'run N' (N pulses; 'run N marker': with the markers\n"
		"                        of -M) answered with 'phase pulses=N batches=B\n"
		"                        ns_per_set=X,Y,...' (one figure a batch), until EOF or 'quit'\n"
		"  -h, --help            show this help and exit\n"
		"\n"
		"Exit status: 0 when done, 1 on a run-time error (chip, line, permission), 2 on bad\n"
		"usage.\n");
}

/* parse_duration: "10", "10s", "500ms", "2m", "1h" in ns, > 0; or -1 */
static int parse_duration(const char *s, long long *ns)
{
	static const struct {
		const char *suffix;
		long long ns;
	} units[] = {
		{ "", NSEC_PER_SEC },	    { "s", NSEC_PER_SEC },	  { "ms", 1000000LL },
		{ "m", 60 * NSEC_PER_SEC }, { "h", 3600 * NSEC_PER_SEC },
	};
	char *end;
	long long v;
	size_t i;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || v <= 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > LLONG_MAX / units[i].ns)
			return -1;
		*ns = v * units[i].ns;
		return 0;
	}
	return -1;
}

static void bad_usage(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, PROG ": invalid %s '%s': want %s (see --help)\n", opt, arg, want);
	exit(2);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "chip", required_argument, NULL, 'g' },
		{ "line", required_argument, NULL, 'l' },
		{ "burst", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "continuous", no_argument, NULL, 'C' },
		{ "count", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "priority", required_argument, NULL, 'p' },
		{ "trace-marker", optional_argument, NULL, 'M' },
		{ "control", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "m:g:l:b:i:Cc:d:p:M::h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			for (v = 0; v < ARRAY_SIZE(mode_names); v++)
				if (!strcmp(optarg, mode_names[v]))
					break;
			if (v == ARRAY_SIZE(mode_names))
				bad_usage("mode", optarg, "ioctl, libgpiod or sysfs");
			o->mode = v;
			break;
		case 'g':
			if (!*optarg)
				bad_usage("chip", optarg, "a device, a number or a label");
			o->chip = optarg;
			break;
		case 'l':
			if (parse_long(optarg, 0, INT_MAX, &v))
				bad_usage("line", optarg, "an offset from 0");
			o->line = v;
			break;
		case 'b':
			if (parse_long(optarg, 1, 1000000, &v))
				bad_usage("burst", optarg, "1 to 1000000 pulses");
			o->burst = v;
			break;
		case 'i':
			if (parse_long(optarg, 0, 10000000, &v))
				bad_usage("interval", optarg, "0 to 10000000 us");
			o->interval_us = v;
			break;
		case 'C':
			o->interval_us = 0;
			break;
		case 'c':
			if (parse_long(optarg, 1, LONG_MAX, &v))
				bad_usage("count", optarg, "a number of pulses from 1");
			o->count = v;
			break;
		case 'd':
			if (parse_duration(optarg, &o->duration_ns))
				bad_usage("duration", optarg, "a time > 0 with unit ms, s, m or h");
			break;
		case 'p':
			if (parse_long(optarg, 1, 99, &v))
				bad_usage("priority", optarg, "a SCHED_FIFO priority 1 to 99");
			o->prio = v;
			break;
		case 'M':
			if (optarg && !*optarg)
				bad_usage("trace-marker", optarg, "a file");
			o->marker = optarg ? optarg : TRACE_MARKER;
			break;
		case 'K':
			o->control = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			/* getopt_long has printed the one line that says what is wrong */
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument '%s' (see --help)\n", argv[optind]);
		exit(2);
	}
	if (o->control && (o->count || o->duration_ns)) {
		fprintf(stderr, PROG ": --control excludes -c and -d (see --help)\n");
		exit(2);
	}
}

static void summary(const struct opts *o, const struct chip *c, const struct stats *s,
		    long long elapsed)
{
	struct timespec res;
	char sched[32] = "SCHED_OTHER";

	if (o->prio)
		snprintf(sched, sizeof(sched), "SCHED_FIFO %d", o->prio);
	clock_getres(CLOCK_MONOTONIC, &res);
	printf("# utoggle: mode %s, %s [%s] line %u, batches of %ld pulses, ", mode_names[o->mode],
	       c->info.name, c->info.label, o->line, o->burst);
	if (o->interval_us)
		printf("usleep(%ld) between batches, %s\n", o->interval_us, sched);
	else
		printf("continuous, %s\n", sched);
	printf("# clock: CLOCK_MONOTONIC, resolution %lld ns; a sample is one batch: its time "
	       "divided by its sets (2 per pulse)\n",
	       ts_ns(&res));
	printf("pulses: %lld (%lld sets) in %lld batches, %.3f s\n", s->pulses, 2 * s->pulses, s->n,
	       elapsed / 1e9);
	if (!s->n) {
		printf("ns per set: no samples\n");
		return;
	}
	printf("ns per set: n %lld, min %.1f ns, mean %.1f ns, max %.1f ns, sd %.1f ns\n", s->n,
	       s->min, s->mean, s->max, s->n > 1 ? sqrt(s->m2 / (s->n - 1)) : 0.0);
}

/*
 * -M FILE: tracefs's trace_marker is a regular file; anything else is refused in one line,
 * never waited on: stat first (a FIFO is not opened), then the open with O_NONBLOCK (a FIFO put
 * there since returns at once) and fstat again. The fd, or -1 said.
 */
static int marker_open(const char *path)
{
	struct stat st;
	int fd = -1;

	if (stat(path, &st) ||
	    (S_ISREG(st.st_mode) &&
	     ((fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0 ||
	      fstat(fd, &st)))) {
		fprintf(stderr, PROG ": cannot open the trace marker %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, PROG ": the trace marker %s is not a regular file\n", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* the writes block (trace_marker never waits; a regular file neither) */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.mode = MODE_IOCTL,
		.chip = "toggle-vchip",
		.line = 1,
		.burst = 5,
		.interval_us = 1000,
	};
	struct toggler t = {
		.chip_fd = -1,
		.line_fd = -1,
		.sysfs_gpio = -1,
		.marker = { .fd = -1 },
		.stop = &stop,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct sched_param sp;
	struct stats s = {};
	struct chip c;
	long long elapsed = 0;
	int ret;

	parse_args(argc, argv, &o);
	if (!results_out_open(PROG))
		return 1;
	t.mode = o.mode;

	/* no SA_RESTART: a signal cuts usleep() short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	t.chip_fd = chip_open(o.chip, &c);
	if (t.chip_fd < 0)
		return 1;
	if (line_check(t.chip_fd, &c, o.line)) {
		toggler_release(&t);
		return 1;
	}

	switch (o.mode) {
	case MODE_IOCTL:
		ret = setup_ioctl(&t, o.line);
		break;
	case MODE_LIBGPIOD:
		ret = setup_libgpiod(&t, &c, o.line);
		break;
	default:
		ret = setup_sysfs(&t, &c, o.line);
		break;
	}
	if (ret) {
		/* setup_sysfs() has said what is wrong when it gives -ENODEV or -EEXIST */
		if (ret != -ENODEV && ret != -EEXIST)
			fprintf(stderr, PROG ": cannot request line %u of %s [%s] (%s): %s\n",
				o.line, c.info.name, c.info.label, mode_names[o.mode],
				strerror(-ret));
		toggler_release(&t);
		return 1;
	}

	if (o.prio) {
		sp.sched_priority = o.prio;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			fprintf(stderr, PROG ": cannot set SCHED_FIFO priority %d: %s\n", o.prio,
				strerror(errno));
			toggler_release(&t);
			return 1;
		}
	}

	if (o.marker) {
		t.marker.fd = marker_open(o.marker);
		if (t.marker.fd < 0) {
			toggler_release(&t);
			return 1;
		}
		t.marker.on = !o.control;
	}
	if (o.control)
		ret = control(&t, &o, &s, &elapsed);
	else
		ret = run(&t, &o, o.count, &s, NULL, &elapsed);
	toggler_release(&t);
	if (t.marker.fd >= 0)
		close(t.marker.fd);
	summary(&o, &c, &s, elapsed);
	if (ret) {
		fprintf(stderr, PROG ": setting line %u of %s failed after %lld pulses: %s\n",
			o.line, c.info.name, s.pulses, strerror(-ret));
		return results_out_done(PROG, 1);
	}
	return results_out_done(PROG, 0);
}
