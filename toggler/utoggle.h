/* SPDX-License-Identifier: GPL-2.0 */
/*
 * utoggle, inside: utoggle.c is the front end (options, main), utoggle_gpio.c opens the chip
 * and requests the line in each mode (and holds the probe targets, one pulse each),
 * utoggle_run.c runs and times the batches (--control: runs asked for on stdin). The calls go
 * one way, utoggle.c -> utoggle_run.c -> utoggle_gpio.c; this header holds only the types and
 * constants the three share, each file's functions are in its own header.
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

/* the talk's trace_write(): trace_marker, written before each set while on */
struct marker {
	int fd; /* open when asked for (-M), else -1 */
	bool on;
};

/*
 * Everything that must be undone on exit (toggler_release() copes with any partial state), the
 * marker and the flag the signal handler sets
 */
struct toggler {
	enum mode mode;
	int chip_fd;
	int line_fd; /* ioctl: the line request; sysfs: the value file */
	struct gpiod_chip *gchip;
	gpiod_out_t *gline; /* the libgpiod request of line_offset */
	unsigned int line_offset;
	int sysfs_gpio; /* the global number we exported, or -1 */
	struct marker marker;
	const volatile sig_atomic_t *stop; /* set on SIGINT, SIGTERM, SIGHUP */
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

#endif /* UTOGGLE_H */
