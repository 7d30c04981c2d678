// SPDX-License-Identifier: GPL-2.0
/*
 * The raw toggler: the talk's toggle_raw ("How much is tracing?", Klinger, ELCE 2023), a set
 * of the line by a register write with no GPIO subsystem in between, so that t_subsys - t_raw
 * is what gpiolib costs (docs/gpio-path.md).
 *
 * The address is never given by the user: it is that of the controller of the chip the module
 * toggles (chip=, or the virtual chip):
 *
 *   PL061 (gpio-pl061, the ARM targets)   GPIODATA: a byte write at base + (BIT(line) << 2)
 *                                          writes only that line's bit (address-masked data)
 *   OMAP/AM335x (gpio-omap)                the talk's GPIO2 write: GPIO_DATAOUT (0x13c), read once
 *                                          per batch, then written with the bit on and off
 *   toggle-vchip (this module's chip)      its backing bitmap, with the same atomic bit op as
 *                                          the chip's own ->set(): the floor of the virtual chip,
 *                                          NOT a register
 *
 * The controller's registers come from its device-tree node (of_address_to_resource()) and are
 * ioremap()ed a second time (the driver keeps its own mapping; ioremap claims nothing).
 */
#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/of_address.h>
#include <linux/string.h>

#include <linux/debugfs.h>

#include "toggle.h"

#define OMAP_GPIO_DATAOUT 0x13c

enum raw_kind { RAW_NONE, RAW_VCHIP, RAW_PL061, RAW_OMAP };

static struct {
	enum raw_kind kind;
	bool on;
	unsigned int line;
	unsigned long *vvalues;
	void __iomem *base;
	u32 dout_on, dout_off; /* OMAP: GPIO_DATAOUT with the bit set, cleared */
	struct resource res;
	char why[128]; /* RAW_NONE: why not */
} raw;

bool toggle_raw_on(void)
{
	return READ_ONCE(raw.on);
}

static __always_inline void raw_set(int value)
{
	u32 bit = BIT(raw.line);

	switch (raw.kind) {
	case RAW_VCHIP:
		assign_bit(raw.line, raw.vvalues, value);
		break;
	case RAW_PL061:
		/* only address bit (line + 2) set: the write touches this line alone */
		__raw_writeb(value ? bit : 0, raw.base + (bit << 2));
		break;
	case RAW_OMAP:
		__raw_writel(value ? raw.dout_on : raw.dout_off, raw.base + OMAP_GPIO_DATAOUT);
		break;
	default:
		break;
	}
}

void toggle_raw_pulses(u32 n)
{
	u32 i;

	if (raw.kind == RAW_OMAP) {
		/* as the talk's toggle_raw: the other lines' outputs as they are now */
		raw.dout_on = __raw_readl(raw.base + OMAP_GPIO_DATAOUT) | BIT(raw.line);
		raw.dout_off = raw.dout_on & ~BIT(raw.line);
	}
	for (i = 0; i < n; i++) {
		raw_set(1);
		raw_set(0);
	}
}

/* the controller's registers, from its device-tree node; 0, or -errno and raw.why */
static int raw_map(struct gpio_chip *gc, enum raw_kind kind)
{
	struct device *dev = gc->parent;
	int ret;

	ret = of_address_to_resource(dev->of_node, 0, &raw.res);
	if (ret) {
		snprintf(raw.why, sizeof(raw.why),
			 "%s: no register address in its device tree node", dev_name(dev));
		return ret;
	}
	raw.base = ioremap(raw.res.start, resource_size(&raw.res));
	if (!raw.base) {
		snprintf(raw.why, sizeof(raw.why), "cannot ioremap %pR", &raw.res);
		return -ENOMEM;
	}
	raw.kind = kind;
	return 0;
}

static int raw_target_show(struct seq_file *s, void *unused)
{
	switch (raw.kind) {
	case RAW_VCHIP:
		seq_printf(s,
			   "vchip line=%u: the virtual chip's backing bitmap (assign_bit), the "
			   "floor of the virtual chip, not a register\n",
			   raw.line);
		break;
	case RAW_PL061:
		seq_printf(s, "pl061 line=%u: GPIODATA byte at %pa + 0x%x\n", raw.line,
			   &raw.res.start, 1u << (raw.line + 2));
		break;
	case RAW_OMAP:
		seq_printf(s, "omap line=%u: GPIO_DATAOUT at %pa + 0x%x\n", raw.line,
			   &raw.res.start, OMAP_GPIO_DATAOUT);
		break;
	default:
		seq_printf(s, "none: %s\n", raw.why);
		break;
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(raw_target);

static int raw_get(void *data, u64 *val)
{
	*val = READ_ONCE(raw.on);
	return 0;
}

/* taken by the toggler from its next batch on */
static int raw_write(void *data, u64 val)
{
	if (val && raw.kind == RAW_NONE)
		return -EOPNOTSUPP; /* raw_target says why */
	WRITE_ONCE(raw.on, !!val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(raw_fops, raw_get, raw_write, "%llu\n");

void toggle_raw_setup(struct gpio_chip *gc, unsigned int line, unsigned long *vvalues,
		      struct dentry *dir)
{
	const char *drv = gc->parent && gc->parent->driver ? dev_driver_string(gc->parent) : "";

	raw.line = line;
	if (vvalues) {
		raw.vvalues = vvalues;
		raw.kind = RAW_VCHIP;
	} else if (line >= 32) {
		snprintf(raw.why, sizeof(raw.why), "line %u: raw writes know 32-bit banks only",
			 line);
	} else if (!strcmp(drv, "pl061_gpio")) {
		raw_map(gc, RAW_PL061);
	} else if (!strcmp(drv, "omap_gpio")) {
		raw_map(gc, RAW_OMAP);
	} else {
		snprintf(raw.why, sizeof(raw.why),
			 "chip '%s' (driver '%s'): its registers are not known here (PL061 and "
			 "OMAP/AM335x are)",
			 gc->label, *drv ? drv : "none");
	}
	debugfs_create_file_unsafe("raw", 0644, dir, NULL, &raw_fops);
	debugfs_create_file("raw_target", 0444, dir, NULL, &raw_target_fops);
}

void toggle_raw_release(void)
{
	WRITE_ONCE(raw.on, false);
	if (raw.base)
		iounmap(raw.base);
	raw.base = NULL;
	raw.kind = RAW_NONE;
}
