// SPDX-License-Identifier: GPL-2.0
/*
 * mmtoggle: toggle one GPIO line from user space through the controller's registers, mapped
 * with mmap() (runs on the target; docs/gpio-path.md). The BeagleBone post's fastest toggler
 * ("registers mmap'ed through /dev/mem", 3 MHz on a logic analyser).
 *
 * The line is requested as an output through the chardev uAPI first (so the kernel sets its
 * direction and nobody else takes it), then set by register writes:
 *
 *   PL061 (pl061_gpio)           /dev/mem: GPIODATA, a byte at base + (BIT(line) << 2)
 *   OMAP/AM335x (omap_gpio)      /dev/mem: GPIO_SETDATAOUT 0x194 / GPIO_CLEARDATAOUT 0x190
 *   BCM2835 (pinctrl-bcm2835)    /dev/gpiomem (the Raspberry Pi): GPSETn 0x1c / GPCLRn 0x28
 *
 * The registers' physical address is the controller's device name's unit address (a device-tree
 * platform device is named "<reg address>.<node name>"). A chip with no controller device (the
 * toggle module's virtual chip) has no registers: "not available" and exit 2, as when /dev/mem
 * refuses the region (CONFIG_IO_STRICT_DEVMEM=y and the region claimed by its driver: booting
 * with iomem=relaxed would allow it). Bad input: one error line, exit 1.
 *
 * Output: utoggle's summary lines (a sample is one batch, CLOCK_MONOTONIC, ns per set).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/gpio.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "results_out.h"

#define PROG "mmtoggle"
#define MAP_LEN 4096

struct regs {
	const char *driver;
	const char *dev; /* what to map */
	int byte; /* PL061: byte writes to one address for both values */
	unsigned long set_off, clr_off; /* for the line's bank (PL061: the data address) */
	volatile uint8_t *base; /* the registers, mapped */
};

static void fail(int code, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(code);
}

static long num(const char *s, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < 0)
		fail(1, "%s must be a number >= 0, got '%s'", what, s);
	return v;
}

/* /dev/gpiochipN labelled (or named) arg: its fd and gpiochipN */
static int chip_open(const char *arg, char *name, size_t size)
{
	struct gpiochip_info info;
	struct dirent *d;
	char path[PATH_MAX];
	DIR *dir = opendir("/dev");
	int fd;

	if (!dir)
		fail(1, "cannot list /dev: %s%s", strerror(errno), "");
	while ((d = readdir(dir))) {
		if (strncmp(d->d_name, "gpiochip", 8))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", d->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info) &&
		    (!strcmp(info.label, arg) || !strcmp(info.name, arg) || !strcmp(path, arg))) {
			snprintf(name, size, "%s", d->d_name);
			closedir(dir);
			return fd;
		}
		close(fd);
	}
	closedir(dir);
	fail(1, "no GPIO chip labelled or named '%s' in /dev/gpiochip*%s", arg, "");
	return -1;
}

/* the controller's registers for line; its physical address in *phys */
static void find_regs(const char *chip, const char *label, unsigned int line, struct regs *r,
		      unsigned long *phys)
{
	char path[PATH_MAX], real[PATH_MAX], drv[PATH_MAX], *devname, *dot;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/gpio/devices/%s", chip);
	if (!realpath(path, real))
		fail(1, "cannot resolve %s: %s", path, strerror(errno));
	devname = dirname(real); /* the controller's device, gpiochipN's parent */
	snprintf(path, sizeof(path), "%s/driver", devname);
	n = readlink(path, drv, sizeof(drv) - 1);
	if (n < 0)
		fail(2, "not available: chip '%s' has no registers (no controller device: %s)",
		     label, "a memory-backed virtual chip");
	drv[n] = '\0';
	r->driver = strdup(basename(drv));
	devname = basename(devname);
	dot = strchr(devname, '.');
	if (!dot)
		fail(2, "not available: controller %s is not named '<address>.<node>'%s", devname,
		     "");
	*dot = '\0';
	*phys = strtoul(devname, NULL, 16);
	r->byte = 0;
	r->dev = "/dev/mem";
	if (!strcmp(r->driver, "pl061_gpio") && line < 8) {
		r->byte = 1;
		r->set_off = r->clr_off = 1ul << (line + 2);
	} else if (!strcmp(r->driver, "omap_gpio") && line < 32) {
		r->set_off = 0x194;
		r->clr_off = 0x190;
	} else if (!strcmp(r->driver, "pinctrl-bcm2835") && line < 54) {
		r->dev = "/dev/gpiomem";
		*phys = 0; /* /dev/gpiomem maps the GPIO block at offset 0 */
		r->set_off = 0x1c + 4 * (line / 32);
		r->clr_off = 0x28 + 4 * (line / 32);
	} else {
		fail(2,
		     "not available: chip '%s': registers of driver '%s' are not known here "
		     "(pl061_gpio, omap_gpio, pinctrl-bcm2835 are)",
		     label, r->driver);
	}
}

static void map_regs(struct regs *r, unsigned long phys)
{
	char why[256];
	void *p;
	unsigned long pg = (unsigned long)sysconf(_SC_PAGESIZE), in = phys & (pg - 1);
	int fd = open(r->dev, O_RDWR | O_SYNC | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open %s: %s", r->dev, strerror(errno));
		fail(2, "not available: %s%s", why, "");
	}
	p = mmap(NULL, MAP_LEN + in, PROT_READ | PROT_WRITE, MAP_SHARED, fd, phys - in);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(why, sizeof(why),
			 "%s refuses 0x%lx (%s): with CONFIG_IO_STRICT_DEVMEM=y "
			 "a region claimed by its driver (%s) cannot be mapped",
			 r->dev, phys, strerror(errno), r->driver);
		fail(2, "not available: %s; booting with iomem=relaxed would allow it%s", why, "");
	}
	r->base = (volatile uint8_t *)p + in;
}

static inline void set(const struct regs *r, unsigned int line, int v)
{
	if (r->byte)
		*(volatile uint8_t *)(r->base + r->set_off) = v ? 1u << line : 0;
	else
		*(volatile uint32_t *)(r->base + (v ? r->set_off : r->clr_off)) = 1u << (line % 32);
}

/* the toggler: a real, global symbol that uprobes can attach to */
__attribute__((noinline, used)) void toggle_mmap_once(const struct regs *r, unsigned int line)
{
	set(r, line, 1);
	set(r, line, 0);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct gpio_v2_line_request req = { 0 };
	struct gpiochip_info info;
	char chip[NAME_MAX + 1];
	struct regs r;
	unsigned long phys;
	long line, pulses, burst = 1000, done = 0, n, i;
	double x, mean = 0, m2 = 0, min = 0, max = 0;
	long long t0, nb = 0;
	int fd;

	if (argc < 4 || argc > 5)
		fail(1, "usage: mmtoggle CHIP LINE PULSES [BURST] (CHIP: label or gpiochipN)%s%s",
		     "", "");
	line = num(argv[2], "LINE");
	pulses = num(argv[3], "PULSES");
	if (argc == 5)
		burst = num(argv[4], "BURST");
	if (!pulses || !burst)
		fail(1, "PULSES and BURST must be > 0%s%s", "", "");
	if (!results_out_open(PROG))
		return 1;
	fd = chip_open(argv[1], chip, sizeof(chip));
	if (ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, &info) || line >= info.lines)
		fail(1, "line %s out of range on %s", argv[2], chip);
	find_regs(chip, info.label, line, &r, &phys);
	map_regs(&r, phys);

	req.offsets[0] = line;
	req.num_lines = 1;
	req.config.flags = GPIO_V2_LINE_FLAG_OUTPUT;
	snprintf(req.consumer, sizeof(req.consumer), PROG);
	if (ioctl(fd, GPIO_V2_GET_LINE_IOCTL, &req))
		fail(1, "cannot request line %s as an output: %s", argv[2], strerror(errno));

	while (done < pulses) {
		n = pulses - done < burst ? pulses - done : burst;
		t0 = now_ns();
		for (i = 0; i < n; i++)
			toggle_mmap_once(&r, line);
		x = (double)(now_ns() - t0) / (2 * n);
		nb++;
		if (nb == 1 || x < min)
			min = x;
		if (nb == 1 || x > max)
			max = x;
		m2 += (x - mean) * (x - mean) * (nb - 1) / nb;
		mean += (x - mean) / nb;
		done += n;
	}
	close(req.fd);
	close(fd);
	printf("# mmtoggle: %s [%s] line %ld, driver %s, %s at 0x%lx, batches of %ld pulses\n",
	       chip, info.label, line, r.driver, r.dev, phys, burst);
	printf("# clock: CLOCK_MONOTONIC; a sample is one batch: its time divided by its sets "
	       "(2 per pulse)\n");
	printf("pulses: %ld (%ld sets) in %lld batches\n", pulses, 2 * pulses, nb);
	printf("ns per set: n %lld, min %.1f ns, mean %.1f ns, max %.1f ns, sd %.1f ns\n", nb, min,
	       mean, max, nb > 1 ? sqrt(m2 / (nb - 1)) : 0.0);
	return results_out_done(PROG, 0);
}
