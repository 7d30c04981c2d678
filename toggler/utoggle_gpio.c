// SPDX-License-Identifier: GPL-2.0
/*
 * utoggle: the chip, the line in each mode (ioctl, libgpiod, sysfs) and the probe targets: one
 * pulse each, global and never inlined or cloned so that uprobes attach to them by name.
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
#include "utoggle_gpio.h"

/* parse_long: the whole of S as a decimal number in [min, max], or -1 */
int parse_long(const char *s, long min, long max, long *out)
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
int chip_open(const char *arg, struct chip *c)
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
int line_check(int chip_fd, const struct chip *c, unsigned int line)
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

int setup_ioctl(struct toggler *t, unsigned int line)
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

#ifdef UTOGGLE_LIBGPIOD2
/* libgpiod 2.x: a request of one line, an output, low (inactive, active-high) */
int setup_libgpiod(struct toggler *t, const struct chip *c, unsigned int line)
{
	struct gpiod_line_settings *settings;
	struct gpiod_request_config *rcfg;
	struct gpiod_line_config *lcfg;
	int ret = 0;

	t->gchip = gpiod_chip_open(c->path);
	if (!t->gchip)
		return -errno;
	settings = gpiod_line_settings_new();
	lcfg = gpiod_line_config_new();
	rcfg = gpiod_request_config_new();
	if (!settings || !lcfg || !rcfg) {
		ret = -ENOMEM;
		goto out;
	}
	if (gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
	    gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE) < 0 ||
	    gpiod_line_config_add_line_settings(lcfg, &line, 1, settings) < 0) {
		ret = -errno;
		goto out;
	}
	gpiod_request_config_set_consumer(rcfg, CONSUMER);
	t->gline = gpiod_chip_request_lines(t->gchip, rcfg, lcfg);
	if (!t->gline)
		ret = -errno;
	t->line_offset = line;
out:
	gpiod_request_config_free(rcfg);
	gpiod_line_config_free(lcfg);
	gpiod_line_settings_free(settings);
	return ret;
}
#else
/* libgpiod 1.x: the line requested as an output, low */
int setup_libgpiod(struct toggler *t, const struct chip *c, unsigned int line)
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
	t->line_offset = line;
	return 0;
}
#endif

int setup_sysfs(struct toggler *t, const struct chip *c, unsigned int line)
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

void toggler_release(struct toggler *t)
{
	char num[16];
	int ret;

	if (t->gline)
#ifdef UTOGGLE_LIBGPIOD2
		gpiod_line_request_release(t->gline);
#else
		gpiod_line_release(t->gline);
#endif
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
static inline void mark(struct marker *m)
{
	if (m->on && write(m->fd, MARK, sizeof(MARK) - 1) < 0)
		m->on = false;
}

/*
 * One pulse with the chardev v2 uAPI: set 1, then set 0. (The talk's version sets 0, then 1;
 * here a pulse is the high phase, as in the toggle module, so a pulse ends with the line low.)
 */
__uprobe_target int toggle_ioctl_v2_once(int fd, struct marker *m)
{
	struct gpio_v2_line_values val = { .mask = 1 };
	int i;

	for (i = 1; i >= 0; i--) {
		val.bits = i;
		mark(m);
		if (ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &val) < 0)
			return -errno;
	}
	return 0;
}

/*
 * One pulse with libgpiod: 1.x sets the requested line (OFFSET is its offset on the chip, not
 * needed there), 2.x the line OFFSET of the request
 */
__uprobe_target int toggle_libgpiod_once(gpiod_out_t *line, unsigned int offset, struct marker *m)
{
#ifdef UTOGGLE_LIBGPIOD2
	mark(m);
	if (gpiod_line_request_set_value(line, offset, GPIOD_LINE_VALUE_ACTIVE) < 0)
		return -errno;
	mark(m);
	if (gpiod_line_request_set_value(line, offset, GPIOD_LINE_VALUE_INACTIVE) < 0)
		return -errno;
#else
	mark(m);
	if (gpiod_line_set_value(line, 1) < 0)
		return -errno;
	mark(m);
	if (gpiod_line_set_value(line, 0) < 0)
		return -errno;
#endif
	return 0;
}

/* One pulse through sysfs: FD is the open value file */
__uprobe_target int toggle_sysfs_once(int fd, struct marker *m)
{
	mark(m);
	if (pwrite(fd, "1", 1, 0) != 1)
		return -errno;
	mark(m);
	if (pwrite(fd, "0", 1, 0) != 1)
		return -errno;
	return 0;
}
