/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The toggle module's shared state and the functions its files give each other:
 * toggle_main.c (parameters, the toggler thread, init and exit), toggle_chip.c (the virtual
 * chip, or a real one found by label), toggle_debugfs.c (the control files), toggle_bench.c
 * (the cycle micro-benchmark) and toggle_raw.c (the raw toggler, docs/gpio-path.md). See
 * docs/toggle-module.md.
 */
#ifndef _TOGGLE_H
#define _TOGGLE_H

#include <linux/fs.h>
#include <linux/gpio/driver.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

#define TOGGLE_MAX_LINES 64
#define TOGGLE_MAX_DEPTH 10
#define TOGGLE_RING 4096 /* batches kept; a power of two */

enum toggle_mode {
	TOGGLE_BURST,
	TOGGLE_CONTINUOUS,
	TOGGLE_PRINTK,
};

struct toggle_batch_rec {
	u64 seq;
	u64 ns;
	u32 pulses;
};

struct toggle {
	/* the virtual chip, when chip= is empty */
	struct gpio_chip vchip;
	bool vchip_added;
	DECLARE_BITMAP(vvalues, TOGGLE_MAX_LINES);
	DECLARE_BITMAP(vinputs, TOGGLE_MAX_LINES);

	/*
	 * a real chip (chip=): its driver's module, pinned, and its gpio_device, referenced, on
	 * kernels that have one (6.7+)
	 */
	struct module *owner;
	struct gpio_device *gdev;

	/* the toggled line; fixed after init */
	struct gpio_chip *gc;
	unsigned int line;
	struct gpio_desc *desc;
	u32 gpio; /* global number, as gpio:gpio_value reports it */
	enum toggle_mode mode;

	struct task_struct *thread;
	struct dentry *dir;

	struct mutex ctl; /* serialises the control files' writers */
	spinlock_t lock; /* protects the five below, between control and thread */
	bool want; /* toggling requested (read as "enable") */
	bool active; /* the thread is (about to be) toggling; false once it is idle */
	bool has_req; /* pulses was written and the thread has not taken it yet */
	u64 req; /* that value; 0: unlimited */
	u64 left; /* pulses to go in the current limited run; 0: unlimited */
	wait_queue_head_t wake; /* the idle thread waits here for ->active */
	wait_queue_head_t idle; /* control waits here for !->active */

	unsigned int depth; /* toggle_chain_* a set goes through; changed at any time */

	unsigned int since_resched; /* the thread's own */

	/*
	 * Written by the thread once per batch (and by reset, while the thread is idle), read by
	 * debugfs, all under ->ring_lock: a u64 read on a 32-bit CPU cannot tear, and the edge
	 * counts always agree with the batch ring.
	 */
	spinlock_t ring_lock;
	u64 rising;
	u64 falling;
	u64 nbatches; /* batches since load or reset; the next batch's seq */
	struct toggle_batch_rec ring[TOGGLE_RING];
};

/* toggle_chip.c */
int toggle_vchip_add(struct toggle *t, unsigned int nlines);
int toggle_find_chip(struct toggle *t, const char *label, unsigned int line);
void toggle_chip_release(struct toggle *t);

/* toggle_debugfs.c */
void toggle_debugfs_init(struct toggle *t);

/* toggle_bench.c */
extern const struct file_operations toggle_mb_fops;
void toggle_bench_fn(int value, void *ptr);

/*
 * toggle_raw.c: the talk's toggle_raw, the toggled line set by a register write that bypasses
 * gpiolib. Raw writes go to vvalues (the virtual chip's backing bitmap) when not NULL, else to
 * the registers of gc's controller when the module knows it (PL061, OMAP/AM335x). Setup
 * creates dir/raw and dir/raw_target; it never fails the load: without registers, raw stays
 * off and raw_target says why. toggle_main.c's hooks: setup at load, release at unload and,
 * per batch, toggle_raw_on() (dir/raw is 1), then toggle_raw_pulses() (n pulses, set 1 and
 * set 0, by raw writes).
 */
void toggle_raw_setup(struct gpio_chip *gc, unsigned int line, unsigned long *vvalues,
		      struct dentry *dir);
void toggle_raw_release(void);
bool toggle_raw_on(void);
void toggle_raw_pulses(u32 n);

#endif /* _TOGGLE_H */
