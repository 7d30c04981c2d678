// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the system's GPIO chips (see sys.h): their bases, labels and lines from the GPIO sysfs
 * class, debugfs or the chardev uAPI, and the line names of the command line.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/gpio.h>
#include "core/sys.h"

#define MAX_CHIPS 64

/* ---- GPIO chips ----------------------------------------------------------------------------- */

struct chip {
	char name[32]; /* gpiochipN */
	char label[64];
	__u32 ngpio;
	long base; /* -1: not known */
};

/* a legacy GPIO sysfs class entry, /sys/class/gpio/gpiochipBASE */
struct legacy {
	char parent[PATH_MAX]; /* its device link, resolved */
	char label[64];
	long base, ngpio;
	int chip; /* the one chip it matches, -1: none yet, -2: more than one */
};

/*
 * does the chip c (/sys/bus/gpio/devices/gpiochipN, resolved to dev) match the entry l? The entry
 * hangs under the chip's parent device (gpiochip_sysfs_register(): "preferred parenting to the
 * gpio_chip parent field"), or under the chip itself when it has no parent. A parent may hold
 * several chips: then its label and number of lines must be the chip's too.
 */
static bool legacy_matches(const struct legacy *l, const struct chip *c, const char *dev)
{
	const char *slash = strrchr(dev, '/');

	if (!strcmp(l->parent, dev))
		return true;
	if (!slash || strlen(l->parent) != (size_t)(slash - dev) ||
	    strncmp(l->parent, dev, slash - dev))
		return false;
	if (c->ngpio && l->ngpio != c->ngpio)
		return false;
	return !c->label[0] || !l->label[0] || !strcmp(c->label, l->label);
}

/*
 * bases from the legacy GPIO sysfs class (CONFIG_GPIO_SYSFS; on newer kernels, such as Debian
 * testing's 7.2, also CONFIG_GPIO_SYSFS_LEGACY): /sys/class/gpio/gpiochipBASE names the base
 * but not the chip (gpiochipN) it belongs to; its device link, label and number of lines do. A
 * base is taken only when one entry matches one chip and that chip no other entry. (The chipN
 * entries of the newer sysfs ABI carry no base: they are not read.)
 */
static void chips_sysfs_class(struct chip *c, int n)
{
	char path[PATH_MAX], dev[PATH_MAX];
	struct legacy *l;
	int i, j, k, nl = 0, hits;
	struct dirent *e;
	DIR *d;

	d = opendir("/sys/class/gpio");
	if (!d)
		return;
	l = calloc(MAX_CHIPS, sizeof(*l));
	if (!l) {
		closedir(d);
		return;
	}
	while ((e = readdir(d)) && nl < MAX_CHIPS) {
		if (strncmp(e->d_name, "gpiochip", 8) || !isdigit((unsigned char)e->d_name[8]))
			continue;
		snprintf(path, sizeof(path), "/sys/class/gpio/%s/device", e->d_name);
		if (!realpath(path, l[nl].parent))
			continue;
		snprintf(path, sizeof(path), "/sys/class/gpio/%s/base", e->d_name);
		if (sys_read_long(path, &l[nl].base))
			continue;
		snprintf(path, sizeof(path), "/sys/class/gpio/%s/ngpio", e->d_name);
		if (sys_read_long(path, &l[nl].ngpio))
			continue;
		snprintf(path, sizeof(path), "/sys/class/gpio/%s/label", e->d_name);
		if (sys_read_str(path, l[nl].label, sizeof(l[nl].label)))
			l[nl].label[0] = '\0';
		l[nl].chip = -1;
		nl++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/bus/gpio/devices/%s", c[i].name);
		if (!realpath(path, dev))
			continue;
		for (j = 0; j < nl; j++)
			if (legacy_matches(&l[j], &c[i], dev))
				l[j].chip = l[j].chip == -1 ? i : -2;
	}
	for (i = 0; i < n; i++) {
		for (j = 0, hits = 0, k = -1; j < nl; j++) {
			if (l[j].chip == i) {
				hits++;
				k = j;
			}
		}
		if (hits != 1)
			continue;
		c[i].base = l[k].base;
		if (!c[i].ngpio)
			c[i].ngpio = l[k].ngpio;
		if (!c[i].label[0])
			snprintf(c[i].label, sizeof(c[i].label), "%s", l[k].label);
	}
	free(l);
}

/*
 * bases from debugfs, for a chip sysfs did not give: "gpiochip0: GPIOs 504-511, parent: ...,
 * label:"; newer kernels (7.2) print "gpiochip0: 8 GPIOs, ..." with no base, passed over)
 */
static void chips_debugfs(struct chip *c, int n)
{
	char line[512], name[32];
	long lo, hi;
	FILE *f;
	int i;

	f = fopen("/sys/kernel/debug/gpio", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%31[^:]: GPIOs %ld-%ld", name, &lo, &hi) != 3)
			continue;
		for (i = 0; i < n; i++)
			if (!strcmp(c[i].name, name) && c[i].base < 0)
				c[i].base = lo;
	}
	fclose(f);
}

static int chips_list(struct chip *c, int max)
{
	struct gpiochip_info info;
	char path[PATH_MAX];
	struct dirent *e;
	int n = 0, fd;
	DIR *d;

	d = opendir("/sys/bus/gpio/devices");
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		if (strncmp(e->d_name, "gpiochip", 8) || !isdigit((unsigned char)e->d_name[8]))
			continue;
		memset(&c[n], 0, sizeof(c[n]));
		snprintf(c[n].name, sizeof(c[n].name), "%.31s", e->d_name);
		c[n].base = -1;
		snprintf(path, sizeof(path), "/dev/%s", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			memset(&info, 0, sizeof(info));
			if (!ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info)) {
				snprintf(c[n].label, sizeof(c[n].label), "%.*s",
					 (int)sizeof(info.label), info.label);
				c[n].ngpio = info.lines;
			}
			close(fd);
		}
		n++;
	}
	closedir(d);
	chips_sysfs_class(c, n);
	chips_debugfs(c, n);
	return n;
}

static void chips_describe(char *buf, size_t size, const struct chip *c, int n)
{
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && len < size; i++) {
		if (c[i].base >= 0)
			len += snprintf(buf + len, size - len, "%s%s [%s] lines %ld-%ld",
					i ? ", " : "", c[i].name, c[i].label, c[i].base,
					c[i].base + (long)c[i].ngpio - 1);
		else
			len += snprintf(buf + len, size - len, "%s%s [%s] %u lines", i ? ", " : "",
					c[i].name, c[i].label, c[i].ngpio);
	}
}

int sys_gpio_name(__u32 gpio, char *chip, size_t chip_size, int *offset)
{
	struct chip c[MAX_CHIPS];
	int i, n = chips_list(c, MAX_CHIPS);

	for (i = 0; i < n; i++) {
		if (c[i].base < 0 || gpio < c[i].base || gpio >= c[i].base + c[i].ngpio)
			continue;
		snprintf(chip, chip_size, "%s", c[i].label[0] ? c[i].label : c[i].name);
		*offset = gpio - c[i].base;
		return 0;
	}
	return -1;
}

int sys_gpio_lines(__u32 *gpio, int max, int *unknown)
{
	struct chip c[MAX_CHIPS];
	int i, n = chips_list(c, MAX_CHIPS), k = 0;
	__u32 j;

	*unknown = 0;
	for (i = 0; i < n; i++) {
		if (c[i].base < 0) {
			(*unknown)++;
			continue;
		}
		for (j = 0; j < c[i].ngpio && k < max; j++)
			gpio[k++] = c[i].base + j;
	}
	return k;
}

int sys_resolve_line(const char *spec, __u32 *gpio, char *chip, size_t chip_size, int *offset,
		     char *why, size_t size)
{
	char list[160], name[64];
	struct chip c[MAX_CHIPS];
	const char *colon;
	char *end;
	long v;
	int i, n;

	n = chips_list(c, MAX_CHIPS);
	chips_describe(list, sizeof(list), c, n);
	colon = strrchr(spec, ':');
	errno = 0;
	v = strtol(colon ? colon + 1 : spec, &end, 10);
	if (errno || *end || end == (colon ? colon + 1 : spec) || v < 0 || v > INT_MAX) {
		snprintf(why, size,
			 "bad line '%s': want a number, CHIPLABEL:OFFSET or gpiochipN:OFFSET",
			 spec);
		return -1;
	}
	if (!n) {
		snprintf(why, size,
			 "no GPIO line '%s': this system has no GPIO chips (none in "
			 "/sys/bus/gpio/devices)",
			 spec);
		return -1;
	}
	if (!colon) {
		chip[0] = '\0';
		*offset = -1;
		*gpio = v;
		for (i = 0; i < n; i++)
			if (c[i].base < 0)
				return 0; /* cannot tell: take it as it is */
		for (i = 0; i < n; i++) {
			if (v >= c[i].base && v < c[i].base + c[i].ngpio) {
				snprintf(chip, chip_size, "%s",
					 c[i].label[0] ? c[i].label : c[i].name);
				*offset = v - c[i].base;
				return 0;
			}
		}
		snprintf(why, size, "no GPIO line %ld here (chips: %s)", v, list);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	for (i = 0; i < n; i++)
		if (!strcmp(c[i].name, name) || !strcmp(c[i].label, name))
			break;
	if (i == n) {
		snprintf(why, size, "no GPIO chip named or labelled '%s' (chips: %s)", name, list);
		return -1;
	}
	if (v >= c[i].ngpio) {
		snprintf(why, size, "no line %ld on %s [%s]: it has %u lines (0 to %u)", v,
			 c[i].name, c[i].label, c[i].ngpio, c[i].ngpio ? c[i].ngpio - 1 : 0);
		return -1;
	}
	if (c[i].base < 0) {
		snprintf(why, size,
			 "cannot find the first GPIO number of %s (not in the legacy GPIO "
			 "sysfs, CONFIG_GPIO_SYSFS_LEGACY, nor in debugfs)",
			 c[i].name);
		return -1;
	}
	*gpio = c[i].base + v;
	snprintf(chip, chip_size, "%s", c[i].label[0] ? c[i].label : c[i].name);
	*offset = v;
	return 0;
}
