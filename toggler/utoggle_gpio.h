/* SPDX-License-Identifier: GPL-2.0 */
/* utoggle_gpio.c: the chip, the line in each mode, the probe targets (one pulse each) */
#ifndef UTOGGLE_GPIO_H
#define UTOGGLE_GPIO_H

#include "utoggle.h"

/* a decimal integer in [min, max], nothing else: 0, or -1 */
int parse_long(const char *s, long min, long max, long *out);
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
/* the probe targets: one pulse each, M written before each set while on; 0 or -errno */
int toggle_ioctl_v2_once(int fd, struct marker *m);
int toggle_libgpiod_once(gpiod_out_t *line, unsigned int offset, struct marker *m);
int toggle_sysfs_once(int fd, struct marker *m);
#endif /* UTOGGLE_GPIO_H */
