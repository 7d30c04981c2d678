// SPDX-License-Identifier: GPL-2.0
/*
 * The chip the toggled line is on: the module's own memory-backed virtual chip
 * ("toggle-vchip"), or, on a board, a real chip found by its label (parameter chip=).
 *
 * Finding a chip by label changed in Linux 6.7: gpiochip_find() went, gpio_device_find()
 * (which returns a referenced struct gpio_device; gpio_device_get_chip() gives its chip,
 * gpio_device_put() drops it) came, and its match callback later took const data. Which one
 * this kernel has is found at build time by kmod/Kbuild, which compiles a small test against
 * the kernel's own headers (never by version): TOGGLE_GPIO_DEVICE_FIND and
 * TOGGLE_GPIO_DEVICE_FIND_CONST.
 *
 * The virtual chip's setters return int where struct gpio_chip lets them (they return an error
 * to the caller): since 6.17 .set and .set_multiple themselves (TOGGLE_GPIO_SET_INT), in 6.15
 * and 6.16 .set_rv and .set_multiple_rv (TOGGLE_GPIO_SET_RV); before, they return nothing and
 * the int ones are called by void wrappers. kmod/Kbuild finds which, by a compile test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/gpio/driver.h>
#include <linux/module.h>
#include <linux/string.h>

#include "toggle.h"

static int vchip_get_direction(struct gpio_chip *gc, unsigned int offset)
{
	struct toggle *t = gpiochip_get_data(gc);

	return test_bit(offset, t->vinputs) ? GPIO_LINE_DIRECTION_IN : GPIO_LINE_DIRECTION_OUT;
}

static int vchip_direction_input(struct gpio_chip *gc, unsigned int offset)
{
	struct toggle *t = gpiochip_get_data(gc);

	set_bit(offset, t->vinputs);
	return 0;
}

static int vchip_direction_output(struct gpio_chip *gc, unsigned int offset, int value)
{
	struct toggle *t = gpiochip_get_data(gc);

	assign_bit(offset, t->vvalues, value);
	clear_bit(offset, t->vinputs);
	return 0;
}

static int vchip_get(struct gpio_chip *gc, unsigned int offset)
{
	struct toggle *t = gpiochip_get_data(gc);

	return test_bit(offset, t->vvalues);
}

static int vchip_set(struct gpio_chip *gc, unsigned int offset, int value)
{
	struct toggle *t = gpiochip_get_data(gc);

	assign_bit(offset, t->vvalues, value);
	return 0;
}

static int vchip_get_multiple(struct gpio_chip *gc, unsigned long *mask, unsigned long *bits)
{
	struct toggle *t = gpiochip_get_data(gc);

	bitmap_replace(bits, bits, t->vvalues, mask, gc->ngpio);
	return 0;
}

static int vchip_set_multiple(struct gpio_chip *gc, unsigned long *mask, unsigned long *bits)
{
	struct toggle *t = gpiochip_get_data(gc);
	unsigned int i;

	/* bit by bit, atomically: other lines may be set concurrently by other users */
	for_each_set_bit(i, mask, gc->ngpio) assign_bit(i, t->vvalues, test_bit(i, bits));
	return 0;
}

#if !defined(TOGGLE_GPIO_SET_INT) && !defined(TOGGLE_GPIO_SET_RV)
/* before 6.15 the setters return nothing */
static void vchip_set_void(struct gpio_chip *gc, unsigned int offset, int value)
{
	vchip_set(gc, offset, value);
}

static void vchip_set_multiple_void(struct gpio_chip *gc, unsigned long *mask, unsigned long *bits)
{
	vchip_set_multiple(gc, mask, bits);
}
#endif

int toggle_vchip_add(struct toggle *t, unsigned int nlines)
{
	struct gpio_chip *gc = &t->vchip;
	int ret;

	/* every line starts as a low input; the toggled one becomes an output when requested */
	bitmap_fill(t->vinputs, TOGGLE_MAX_LINES);
	gc->label = "toggle-vchip";
	gc->owner = THIS_MODULE;
	gc->base = -1;
	gc->ngpio = nlines;
	gc->can_sleep = false;
	gc->get_direction = vchip_get_direction;
	gc->direction_input = vchip_direction_input;
	gc->direction_output = vchip_direction_output;
	gc->get = vchip_get;
	gc->get_multiple = vchip_get_multiple;
#if defined(TOGGLE_GPIO_SET_INT)
	gc->set = vchip_set;
	gc->set_multiple = vchip_set_multiple;
#elif defined(TOGGLE_GPIO_SET_RV)
	gc->set_rv = vchip_set;
	gc->set_multiple_rv = vchip_set_multiple;
#else
	gc->set = vchip_set_void;
	gc->set_multiple = vchip_set_multiple_void;
#endif

	ret = gpiochip_add_data(gc, t);
	if (ret) {
		pr_err("cannot register the virtual chip: %d\n", ret);
		return ret;
	}
	t->vchip_added = true;
	return 0;
}

/* ---- a real chip (a board) -------------------------------------------------------------- */

#ifdef TOGGLE_GPIO_DEVICE_FIND_CONST
#define TOGGLE_MATCH_DATA const void
#else
#define TOGGLE_MATCH_DATA void
#endif

/*
 * Called by gpiochip_find() or gpio_device_find() under gpiolib's lock, while the chip is
 * still registered: the reference on its driver's module is taken there, so the driver cannot
 * be unloaded (and the chip freed) between finding it and using it. A driver on its way out is
 * not a match. The module pinned is kept aside (the match's data may be const): module init
 * runs one at a time.
 */
static struct module *toggle_pinned;

static int toggle_match_label(struct gpio_chip *gc, TOGGLE_MATCH_DATA *label)
{
	if (!gc->label || strcmp(gc->label, label) || !try_module_get(gc->owner))
		return 0;
	toggle_pinned = gc->owner;
	return 1;
}

#ifdef TOGGLE_GPIO_DEVICE_FIND
/*
 * 6.7 and later: the chip's gpio_device stays referenced in ->gdev until release. Its chip is
 * NULL when the chip went away after the match: then nothing is kept.
 */
static struct gpio_chip *toggle_find_gc(struct toggle *t, const char *label)
{
	struct gpio_chip *gc;

	t->gdev = gpio_device_find((TOGGLE_MATCH_DATA *)label, toggle_match_label);
	if (!t->gdev)
		return NULL;
	gc = gpio_device_get_chip(t->gdev);
	if (!gc) {
		module_put(toggle_pinned);
		gpio_device_put(t->gdev);
		t->gdev = NULL;
	}
	return gc;
}

static void toggle_put_gc(struct toggle *t)
{
	module_put(t->owner);
	gpio_device_put(t->gdev);
	t->gdev = NULL;
}
#else
/*
 * Before 6.7 there is no public reference on the gpio_device itself: unbinding the chip's
 * device through sysfs while this module is loaded is not guarded there; do not.
 */
static struct gpio_chip *toggle_find_gc(struct toggle *t, const char *label)
{
	return gpiochip_find((void *)label, toggle_match_label);
}

static void toggle_put_gc(struct toggle *t)
{
	module_put(t->owner);
}
#endif

/*
 * The chip labelled LABEL, with LINE checked against it and its driver's module pinned, in
 * ->gc (toggle_chip_release() lets go of it); -ENODEV or -EINVAL with one log line when
 * unusable. gpiochip_request_own_desc() takes no module reference (gpiod_request() would),
 * so this one is what keeps an rmmod of the chip's driver from freeing the chip under the
 * toggler.
 */
int toggle_find_chip(struct toggle *t, const char *label, unsigned int line)
{
	struct gpio_chip *gc = toggle_find_gc(t, label);

	if (!gc) {
		pr_err("chip='%s': no gpiochip has this label (see gpiodetect)\n", label);
		return -ENODEV;
	}
	t->gc = gc;
	t->owner = toggle_pinned;
	if (line >= gc->ngpio) {
		pr_err("line=%u out of range: chip '%s' has lines 0 to %u\n", line, label,
		       gc->ngpio - 1);
		toggle_put_gc(t);
		return -EINVAL;
	}
	if (gc->can_sleep) {
		pr_err("chip='%s' can sleep: gpiod_set_value() needs a chip that does not\n",
		       label);
		toggle_put_gc(t);
		return -EINVAL;
	}
	return 0;
}

/* undoes toggle_vchip_add() or toggle_find_chip() */
void toggle_chip_release(struct toggle *t)
{
	if (t->vchip_added)
		gpiochip_remove(&t->vchip);
	else
		toggle_put_gc(t);
}
