/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utoggle, inside: utoggle.c is the front end (options, main), utoggle_gpio.c opens the chip
 * and requests the line in each mode (and holds the probe targets, one pulse each),
 * utoggle_run.c runs and times the batches (--control: runs asked for on stdin).
 */
#ifndef UTOGGLE_H
#define UTOGGLE_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <linux/gpio.h>

struct gpiod_chip;
/*
 * The libgpiod row's line: libgpiod 1.x (Debian 12) requests a struct gpiod_line, 2.x (Debian
 * 13) a struct gpiod_line_request (of one line here). The Makefile defines UTOGGLE_LIBGPIOD2
 * when the libgpiod it builds against is 2.x (its pkg-config version).
 */
#ifdef UTOGGLE_LIBGPIOD2
struct gpiod_line_request;
typedef struct gpiod_line_request gpiod_out_t;
#define UTOGGLE_LIBGPIOD_API "2.x"
#else
struct gpiod_line;
typedef struct gpiod_line gpiod_out_t;
#define UTOGGLE_LIBGPIOD_API "1.x"
#endif

#define PROG "utoggle"
#define CONSUMER "utoggle"
#define SYSFS_GPIO "/sys/class/gpio"
#define NSEC_PER_SEC 1000000000LL
#define TRACE_MARKER "/sys/kernel/tracing/trace_marker"
#define MARK "utoggle: set\n"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum mode { MODE_IOCTL, MODE_LIBGPIOD, MODE_SYSFS };
extern const char *const mode_names[3];

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
	gpiod_out_t *gline; /* the libgpiod request of line_offset */
	unsigned int line_offset;
	int sysfs_gpio; /* the global number we exported, or -1 */
};

/* Welford's running mean and variance of the per-batch samples */
struct stats {
	long long n;
	long long pulses;
	double min, max, mean, m2;
};

/* the per-batch samples of one run (--control), ns per set */
struct samples {
	double *v;
	long n, max;
};

/* utoggle.c */
extern volatile sig_atomic_t stop;
extern int marker_fd; /* trace_marker: open when asked for */
extern bool marking; /* written before each set while marking */

/* a decimal integer in [min, max], nothing else: 0, or -1 */
int parse_long(const char *s, long min, long max, long *out);

/* utoggle_gpio.c */
/* the chip named by ARG (path, name, label or number); its fd, or -1 after one error line */
int chip_open(const char *arg, struct chip *c);
/* is LINE on C and free? 0, or -1 after one error line */
int line_check(int chip_fd, const struct chip *c, unsigned int line);
/* the line requested as an output, low; 0, or -1 after one error line */
int setup_ioctl(struct toggler *t, unsigned int line);
int setup_libgpiod(struct toggler *t, const struct chip *c, unsigned int line);
int setup_sysfs(struct toggler *t, const struct chip *c, unsigned int line);
/* undo whatever of the set-up is done */
void toggler_release(struct toggler *t);
/* the probe targets: one pulse each; 0 or -errno */
int toggle_ioctl_v2_once(int fd);
int toggle_libgpiod_once(gpiod_out_t *line, unsigned int offset);
int toggle_sysfs_once(int fd);
/* utoggle_run.c */
long long ts_ns(const struct timespec *ts);
/* batches until COUNT pulses (0: no limit), the duration or a signal; 0 or -errno */
int run(struct toggler *t, const struct opts *o, long long count, struct stats *s,
	struct samples *sm, long long *elapsed);
/* --control: 'run N [marker]' on stdin until EOF, 'quit' or a signal; 0 or -errno */
int control(struct toggler *t, const struct opts *o, struct stats *s, long long *elapsed);
#endif /* UTOGGLE_H */
