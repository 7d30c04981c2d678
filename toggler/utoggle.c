// SPDX-License-Identifier: GPL-2.0
/*
 * utoggle: toggle one GPIO line from user space and time it (runs on the target).
 *
 * The user-space toggler of "How much is tracing?" (Klinger, ELCE 2023): pulses (a set to 1,
 * then a set to 0) in batches of --burst, with usleep(--interval) between batches (the talk's
 * cache-hot scenario) or back to back (-i 0). Three ways to set the line:
 *
 *   ioctl     GPIO chardev v2 uAPI: GPIO_V2_GET_LINE_IOCTL, then GPIO_V2_LINE_SET_VALUES_IOCTL
 *   libgpiod  libgpiod 1.6 (Debian 12): gpiod_line_request_output(), gpiod_line_set_value()
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

#define PROG "utoggle"
#define CONSUMER "utoggle"
#define SYSFS_GPIO "/sys/class/gpio"
#define NSEC_PER_SEC 1000000000LL
#define TRACE_MARKER "/sys/kernel/tracing/trace_marker"
#define MARK "utoggle: set\n"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A probe target: a real, global symbol that every pulse goes through. */
#ifdef __clang__
#define __probe_target __attribute__((noinline, used))
#else
#define __probe_target __attribute__((noinline, noclone, used))
#endif

enum mode { MODE_IOCTL, MODE_LIBGPIOD, MODE_SYSFS };
static const char *const mode_names[] = { "ioctl", "libgpiod", "sysfs" };

struct opts {
	enum mode mode;
	const char *chip;
	unsigned int line;
	long burst;
	long interval_us;
	long long count; /* pulses; 0: no limit */
	long long duration_ns; /* 0: no limit */
	int prio; /* SCHED_FIFO priority; 0: leave the policy alone */
	const char *marker; /* trace_marker file, or NULL */
	bool control; /* runs asked for on stdin */
};

struct chip {
	char path[PATH_MAX];
	struct gpiochip_info info;
};

/* Everything that must be undone on exit; toggler_release() copes with any partial state. */
struct toggler {
	enum mode mode;
	int chip_fd;
	int line_fd; /* ioctl: the line request; sysfs: the value file */
	struct gpiod_chip *gchip;
	struct gpiod_line *gline;
	int sysfs_gpio; /* the global number we exported, or -1 */
};

/* Welford's running mean and variance of the per-batch samples */
struct stats {
	long long n;
	long long pulses;
	double min, max, mean, m2;
};

static volatile sig_atomic_t stop;
/* trace_marker: open when asked for; written before each set while marking */
static int marker_fd = -1;
static bool marking;

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
		"  -m, --mode=MODE       ioctl: GPIO chardev v2 uAPI (default); libgpiod: libgpiod 1.6;\n"
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

/* parse_long: the whole of S as a decimal number in [min, max], or -1 */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
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

/* chip_open_path: open PATH as a GPIO chip into C; the fd, or -1 after one error line */
static int chip_open_path(const char *path, struct chip *c, bool quiet)
{
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		if (!quiet)
			fprintf(stderr, PROG ": no GPIO chip %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &c->info) < 0) {
		if (!quiet)
			fprintf(stderr, PROG ": %s is not a GPIO chip: %s\n", path,
				strerror(errno));
		close(fd);
		return -1;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	return fd;
}

static int is_gpiochip(const struct dirent *d)
{
	return !strncmp(d->d_name, "gpiochip", 8);
}

/*
 * chip_open: CHIP is /dev/gpiochipN (any path), gpiochipN, N or a label; the open chip's fd,
 * or -1 after one error line
 */
static int chip_open(const char *arg, struct chip *c)
{
	struct dirent **names;
	struct chip cand;
	char path[PATH_MAX];
	int i, n, fd, found = -1, matches = 0;
	long num;

	if (strchr(arg, '/'))
		return chip_open_path(arg, c, false);
	if (!parse_long(arg, 0, INT_MAX, &num)) {
		snprintf(path, sizeof(path), "/dev/gpiochip%ld", num);
		return chip_open_path(path, c, false);
	}
	if (!strncmp(arg, "gpiochip", 8) && !parse_long(arg + 8, 0, INT_MAX, &num)) {
		snprintf(path, sizeof(path), "/dev/%s", arg);
		return chip_open_path(path, c, false);
	}

	n = scandir("/dev", &names, is_gpiochip, alphasort);
	if (n < 0) {
		fprintf(stderr, PROG ": cannot list /dev: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/dev/%s", names[i]->d_name);
		fd = chip_open_path(path, &cand, true);
		if (fd < 0)
			continue;
		if (!strcmp(cand.info.label, arg)) {
			matches++;
			if (found < 0) {
				*c = cand;
				found = fd;
				continue;
			}
		}
		close(fd);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (matches == 0) {
		fprintf(stderr, PROG ": no GPIO chip labelled '%s' in /dev/gpiochip*\n", arg);
		return -1;
	}
	if (matches > 1) {
		fprintf(stderr, PROG ": %d GPIO chips are labelled '%s': give /dev/gpiochipN\n",
			matches, arg);
		close(found);
		return -1;
	}
	return found;
}

/* line_check: the line exists and is free; 0, or -1 after one error line */
static int line_check(int chip_fd, const struct chip *c, unsigned int line)
{
	struct gpio_v2_line_info info;

	if (line >= c->info.lines) {
		fprintf(stderr, PROG ": line %u out of range: %s [%s] has lines 0 to %u\n", line,
			c->info.name, c->info.label, c->info.lines - 1);
		return -1;
	}
	memset(&info, 0, sizeof(info));
	info.offset = line;
	if (ioctl(chip_fd, GPIO_V2_GET_LINEINFO_IOCTL, &info) < 0) {
		fprintf(stderr, PROG ": line %u of %s: %s\n", line, c->info.name, strerror(errno));
		return -1;
	}
	if (info.flags & GPIO_V2_LINE_FLAG_USED) {
		fprintf(stderr, PROG ": line %u of %s [%s] is busy: used by '%s'\n", line,
			c->info.name, c->info.label, info.consumer[0] ? info.consumer : "?");
		return -1;
	}
	return 0;
}

static int write_file(const char *path, const char *s)
{
	ssize_t len = strlen(s);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

static int read_long(const char *path, long *v)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_long(buf, LONG_MIN, LONG_MAX, v);
}

/*
 * sysfs_base: the global number of the chip's line 0. /sys/class/gpio/gpiochipBASE's "device"
 * link points to the chip's gpiochipN device, or to its parent (which then holds gpiochipN).
 */
static int sysfs_base(const struct chip *c, long *base)
{
	struct dirent **names;
	char path[PATH_MAX], dev[PATH_MAX];
	const char *slash;
	int i, n, ret = -1;

	n = scandir(SYSFS_GPIO, &names, is_gpiochip, alphasort);
	if (n < 0) {
		fprintf(stderr, PROG ": cannot list " SYSFS_GPIO ": %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), SYSFS_GPIO "/%s/device", names[i]->d_name);
		if (ret == 0 || !realpath(path, dev))
			continue;
		slash = strrchr(dev, '/');
		if (strcmp(slash ? slash + 1 : dev, c->info.name)) {
			if (strlen(dev) + strlen(c->info.name) + 2 > sizeof(dev))
				continue;
			strcat(dev, "/");
			strcat(dev, c->info.name);
			if (access(dev, F_OK))
				continue;
		}
		snprintf(path, sizeof(path), SYSFS_GPIO "/%s/base", names[i]->d_name);
		if (read_long(path, base) == 0)
			ret = 0;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret)
		fprintf(stderr, PROG ": %s [%s] has no " SYSFS_GPIO "/gpiochip*\n", c->info.name,
			c->info.label);
	return ret;
}

static int setup_ioctl(struct toggler *t, unsigned int line)
{
	struct gpio_v2_line_request req;

	memset(&req, 0, sizeof(req));
	req.num_lines = 1;
	req.offsets[0] = line;
	snprintf(req.consumer, sizeof(req.consumer), "%s", CONSUMER);
	req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT;
	if (ioctl(t->chip_fd, GPIO_V2_GET_LINE_IOCTL, &req) < 0)
		return -errno;
	t->line_fd = req.fd;
	return 0;
}

static int setup_libgpiod(struct toggler *t, const struct chip *c, unsigned int line)
{
	t->gchip = gpiod_chip_open(c->path);
	if (!t->gchip)
		return -errno;
	t->gline = gpiod_chip_get_line(t->gchip, line);
	if (!t->gline)
		return -errno;
	if (gpiod_line_request_output(t->gline, CONSUMER, 0) < 0) {
		t->gline = NULL; /* not requested: nothing to release */
		return -errno;
	}
	return 0;
}

static int setup_sysfs(struct toggler *t, const struct chip *c, unsigned int line)
{
	char path[PATH_MAX], num[16];
	struct stat st;
	long base;
	int gpio, ret;

	if (sysfs_base(c, &base))
		return -ENODEV;
	gpio = base + line;
	snprintf(num, sizeof(num), "%d", gpio);
	snprintf(path, sizeof(path), SYSFS_GPIO "/gpio%d", gpio);
	if (stat(path, &st) == 0) {
		fprintf(stderr, PROG ": %s is already exported: unexport it first\n", path);
		return -EEXIST;
	}
	ret = write_file(SYSFS_GPIO "/export", num);
	if (ret)
		return ret;
	t->sysfs_gpio = gpio;
	snprintf(path, sizeof(path), SYSFS_GPIO "/gpio%d/direction", gpio);
	ret = write_file(path, "out");
	if (ret)
		return ret;
	snprintf(path, sizeof(path), SYSFS_GPIO "/gpio%d/value", gpio);
	t->line_fd = open(path, O_WRONLY | O_CLOEXEC);
	if (t->line_fd < 0)
		return -errno;
	return 0;
}

static void toggler_release(struct toggler *t)
{
	char num[16];
	int ret;

	if (t->gline)
		gpiod_line_release(t->gline);
	if (t->gchip)
		gpiod_chip_close(t->gchip);
	if (t->line_fd >= 0)
		close(t->line_fd);
	if (t->sysfs_gpio >= 0) {
		snprintf(num, sizeof(num), "%d", t->sysfs_gpio);
		ret = write_file(SYSFS_GPIO "/unexport", num);
		if (ret)
			fprintf(stderr, PROG ": cannot unexport gpio%d: %s\n", t->sysfs_gpio,
				strerror(-ret));
	}
	if (t->chip_fd >= 0)
		close(t->chip_fd);
}

/* the talk's trace_write(): one line to trace_marker, before a set */
static inline void mark(void)
{
	if (marking && write(marker_fd, MARK, sizeof(MARK) - 1) < 0)
		marking = false;
}

/*
 * One pulse with the chardev v2 uAPI: set 1, then set 0. (The talk's version sets 0, then 1;
 * here a pulse is the high phase, as in the toggle module, so a pulse ends with the line low.)
 */
__probe_target int toggle_ioctl_v2_once(int fd)
{
	struct gpio_v2_line_values val = { .mask = 1 };
	int i;

	for (i = 1; i >= 0; i--) {
		val.bits = i;
		mark();
		if (ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &val) < 0)
			return -errno;
	}
	return 0;
}

/* One pulse with libgpiod 1.6 */
__probe_target int toggle_libgpiod_once(struct gpiod_line *line)
{
	mark();
	if (gpiod_line_set_value(line, 1) < 0)
		return -errno;
	mark();
	if (gpiod_line_set_value(line, 0) < 0)
		return -errno;
	return 0;
}

/* One pulse through sysfs: FD is the open value file */
__probe_target int toggle_sysfs_once(int fd)
{
	mark();
	if (pwrite(fd, "1", 1, 0) != 1)
		return -errno;
	mark();
	if (pwrite(fd, "0", 1, 0) != 1)
		return -errno;
	return 0;
}

/* batch: N pulses; 0 or -errno */
static int batch(struct toggler *t, long n)
{
	long i;
	int ret = 0;

	switch (t->mode) {
	case MODE_IOCTL:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_ioctl_v2_once(t->line_fd);
		break;
	case MODE_LIBGPIOD:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_libgpiod_once(t->gline);
		break;
	case MODE_SYSFS:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_sysfs_once(t->line_fd);
		break;
	}
	return ret;
}

static long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	if (s->n == 1 || x < s->min)
		s->min = x;
	if (s->n == 1 || x > s->max)
		s->max = x;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

/* the per-batch samples of one run (--control), ns per set */
struct samples {
	double *v;
	long n, max;
};

/*
 * run: batches until COUNT pulses (0: no limit), the duration or a signal; each batch's sample
 * into s and, when given, into sm; 0 or -errno of the failed set
 */
static int run(struct toggler *t, const struct opts *o, long long count, struct stats *s,
	       struct samples *sm, long long *elapsed)
{
	struct timespec t0, t1, start;
	long long deadline, done = 0;
	double x;
	long n;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = o->duration_ns ? ts_ns(&start) + o->duration_ns : 0;
	t1 = start;
	while (!stop) {
		n = o->burst;
		if (count && count - done < n)
			n = count - done;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = batch(t, n);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ret)
			break;
		x = (double)(ts_ns(&t1) - ts_ns(&t0)) / (2 * n);
		stats_add(s, x);
		if (sm && sm->n < sm->max)
			sm->v[sm->n++] = x;
		s->pulses += n;
		done += n;
		if (count && done >= count)
			break;
		if (deadline && ts_ns(&t1) >= deadline)
			break;
		if (o->interval_us)
			usleep(o->interval_us);
	}
	*elapsed = ts_ns(&t1) - ts_ns(&start);
	return ret;
}

/* the file offset of a function of ours in our executable, from /proc/self/maps; 0 if unknown */
static unsigned long probe_offset(void *fn, const char *exe)
{
	unsigned long addr = (unsigned long)fn, lo, hi, off, found = 0;
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &off, path) < 3)
			continue;
		if (addr >= lo && addr < hi && !strcmp(path, exe)) {
			found = addr - lo + off;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * control: 'run N [marker]' on stdin, one answer line each on stdout, until EOF, 'quit' or a
 * signal; 0 or -errno of a failed set
 */
static int control(struct toggler *t, const struct opts *o, struct stats *s, long long *elapsed)
{
	static const char *const probes[] = { "toggle_ioctl_v2_once", "toggle_libgpiod_once",
					      "toggle_sysfs_once" };
	void *const fns[] = { (void *)toggle_ioctl_v2_once, (void *)toggle_libgpiod_once,
			      (void *)toggle_sysfs_once };
	struct samples sm = {};
	char exe[PATH_MAX], word[16], extra[16], *cmd = NULL;
	size_t cap = 0;
	long long n, e;
	ssize_t len;
	long i;
	int ret = 0, k;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	printf("ready pid=%d exe=%s probe=%s offset=0x%lx\n", getpid(), exe, probes[t->mode],
	       probe_offset(fns[t->mode], exe));
	fflush(stdout);
	*elapsed = 0;
	while (!stop && !ret && (len = getline(&cmd, &cap, stdin)) > 0) {
		k = sscanf(cmd, "%15s %lld %15s", word, &n, extra);
		if (k == 1 && !strcmp(word, "quit"))
			break;
		if (k < 2 || strcmp(word, "run") || n < 1 || n > 10000000 ||
		    (k == 3 && strcmp(extra, "marker")) || (k == 3 && marker_fd < 0)) {
			cmd[strcspn(cmd, "\n")] = '\0';
			printf("error bad command '%s': want 'run N', 'run N marker' (with -M) or "
			       "'quit'\n",
			       cmd);
			fflush(stdout);
			continue;
		}
		sm.max = n / o->burst + 1;
		free(sm.v);
		sm.v = calloc(sm.max, sizeof(*sm.v));
		if (!sm.v) {
			ret = -ENOMEM;
			break;
		}
		sm.n = 0;
		marking = k == 3;
		ret = run(t, o, n, s, &sm, &e);
		marking = false;
		*elapsed += e;
		printf("phase pulses=%lld batches=%ld ns_per_set=", n, sm.n);
		for (i = 0; i < sm.n; i++)
			printf("%s%.1f", i ? "," : "", sm.v[i]);
		printf("\n");
		fflush(stdout);
	}
	free(sm.v);
	free(cmd);
	return ret;
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

int main(int argc, char **argv)
{
	struct opts o = {
		.mode = MODE_IOCTL,
		.chip = "toggle-vchip",
		.line = 1,
		.burst = 5,
		.interval_us = 1000,
	};
	struct toggler t = { .chip_fd = -1, .line_fd = -1, .sysfs_gpio = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct sched_param sp;
	struct stats s = {};
	struct chip c;
	long long elapsed = 0;
	int ret;

	parse_args(argc, argv, &o);
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
		marker_fd = open(o.marker, O_WRONLY | O_CLOEXEC);
		if (marker_fd < 0) {
			fprintf(stderr, PROG ": cannot open the trace marker %s: %s\n", o.marker,
				strerror(errno));
			toggler_release(&t);
			return 1;
		}
		marking = !o.control;
	}
	if (o.control)
		ret = control(&t, &o, &s, &elapsed);
	else
		ret = run(&t, &o, o.count, &s, NULL, &elapsed);
	toggler_release(&t);
	if (marker_fd >= 0)
		close(marker_fd);
	summary(&o, &c, &s, elapsed);
	if (ret) {
		fprintf(stderr, PROG ": setting line %u of %s failed after %lld pulses: %s\n",
			o.line, c.info.name, s.pulses, strerror(-ret));
		return 1;
	}
	return 0;
}
