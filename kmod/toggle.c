// SPDX-License-Identifier: GPL-2.0
/*
 * toggle: a kernel thread that toggles one GPIO line with gpiod_set_value(), the known and
 * counted source of edges that gpiolat measures. It rebuilds the toggle.ko of "How much is
 * tracing?" (Andreas Klinger, ELCE 2023). The interface is docs/toggle-module.md.
 *
 * The line is on a memory-backed virtual gpio_chip ("toggle-vchip") that this module
 * registers, or, on a board, on a real chip found by its label (parameter chip=).
 *
 * Concurrency: the toggler thread is the only writer of the edge counters and of the batch
 * ring while it toggles; the debugfs control files (serialised by ->ctl) talk to it through
 * ->want / ->active / ->req / ->left under ->lock, which it takes only between batches.
 *
 * A limited run (pulses=N) ends by itself after N pulses, or at enable=0, which drops what is
 * left of it: a stopped toggler is never armed with a leftover count. pulses=0 clears the
 * limit (unlimited). So enable=1 alone always means "toggle until enable=0".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>
#include <linux/wait.h>

#define CREATE_TRACE_POINTS
#include "toggle_trace.h"

#define TOGGLE_MAX_LINES 64
#define TOGGLE_MAX_BURST 100000
#define TOGGLE_MAX_DEPTH 10
#define TOGGLE_RING 4096 /* batches kept; a power of two */
#define TOGGLE_RESCHED 1024 /* continuous modes: a rest after this many pulses */
#define TOGGLE_REST_US 50 /* ... of 50 to 100 µs */

enum toggle_mode {
	TOGGLE_BURST,
	TOGGLE_CONTINUOUS,
	TOGGLE_PRINTK,
};

static const char *const toggle_modes[] = {
	[TOGGLE_BURST] = "burst",
	[TOGGLE_CONTINUOUS] = "continuous",
	[TOGGLE_PRINTK] = "printk",
};

static char *mode = "burst";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "burst (default), continuous or printk");

static unsigned int burst = 5;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "pulses per batch, 1 to 100000 (default 5)");

static unsigned int nlines = 8;
module_param(nlines, uint, 0444);
MODULE_PARM_DESC(nlines, "lines of the virtual chip, 1 to 64 (default 8)");

static unsigned int line;
module_param(line, uint, 0444);
MODULE_PARM_DESC(line, "offset of the toggled line on the virtual chip or on chip= (default 0)");

static char *chip = "";
module_param(chip, charp, 0444);
MODULE_PARM_DESC(chip, "label of a real gpiochip to drive instead of the virtual one");

static unsigned int prio = 50;
module_param(prio, uint, 0444);
MODULE_PARM_DESC(prio, "SCHED_FIFO priority of the toggler, 1 to 99; 0: SCHED_NORMAL (default 50)");

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

	/* the toggled line; fixed after init */
	struct gpio_chip *gc;
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

static struct toggle toggle;

/* ---- the virtual chip ------------------------------------------------------------------- */

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

static void vchip_set(struct gpio_chip *gc, unsigned int offset, int value)
{
	struct toggle *t = gpiochip_get_data(gc);

	assign_bit(offset, t->vvalues, value);
}

static int vchip_get_multiple(struct gpio_chip *gc, unsigned long *mask, unsigned long *bits)
{
	struct toggle *t = gpiochip_get_data(gc);

	bitmap_replace(bits, bits, t->vvalues, mask, gc->ngpio);
	return 0;
}

static void vchip_set_multiple(struct gpio_chip *gc, unsigned long *mask, unsigned long *bits)
{
	struct toggle *t = gpiochip_get_data(gc);
	unsigned int i;

	/* bit by bit, atomically: other lines may be set concurrently by other users */
	for_each_set_bit(i, mask, gc->ngpio) assign_bit(i, t->vvalues, test_bit(i, bits));
}

static int toggle_vchip_add(struct toggle *t)
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
	gc->set = vchip_set;
	gc->get_multiple = vchip_get_multiple;
	gc->set_multiple = vchip_set_multiple;

	ret = gpiochip_add_data(gc, t);
	if (ret) {
		pr_err("cannot register the virtual chip: %d\n", ret);
		return ret;
	}
	t->vchip_added = true;
	return 0;
}

/* ---- a real chip (a board) -------------------------------------------------------------- */

/*
 * Called by gpiochip_find() under gpiolib's lock, while the chip is still registered: the
 * reference on its driver's module is taken there, so the driver cannot be unloaded (and the
 * chip freed) between finding it and using it. A driver on its way out is not a match.
 */
static int toggle_match_label(struct gpio_chip *gc, void *label)
{
	return gc->label && !strcmp(gc->label, label) && try_module_get(gc->owner);
}

/*
 * The chip labelled chip=, with line= checked against it and its driver's module pinned
 * (module_put(gc->owner) when done); an ERR_PTR when unusable. gpiochip_request_own_desc()
 * takes no module reference (gpiod_request() would), so this one is what keeps an rmmod of
 * the chip's driver from freeing the chip under the toggler. 6.1 has no public reference on
 * the gpio_device itself (gpio_device_get() came in 6.7): unbinding the chip's device through
 * sysfs while this module is loaded is not guarded; do not.
 */
static struct gpio_chip *toggle_find_chip(void)
{
	struct gpio_chip *gc = gpiochip_find(chip, toggle_match_label);

	if (!gc) {
		pr_err("chip='%s': no gpiochip has this label (see gpiodetect)\n", chip);
		return ERR_PTR(-ENODEV);
	}
	if (line >= gc->ngpio) {
		pr_err("line=%u out of range: chip '%s' has lines 0 to %u\n", line, chip,
		       gc->ngpio - 1);
		module_put(gc->owner);
		return ERR_PTR(-EINVAL);
	}
	if (gc->can_sleep) {
		pr_err("chip='%s' can sleep: gpiod_set_value() needs a chip that does not\n", chip);
		module_put(gc->owner);
		return ERR_PTR(-EINVAL);
	}
	return gc;
}

/* ---- one set of the line ---------------------------------------------------------------- */

/*
 * The talk's kprobe-depth variant: toggle_chain_1() calls toggle_chain_2() ... calls
 * gpiod_set_value(). __noipa keeps each one a function of its own (no inlining, cloning or
 * folding); the barrier() after the call keeps it from becoming a tail jump.
 */
#define TOGGLE_CHAIN(n, next)                                                            \
	static noinline __noipa void toggle_chain_##n(struct gpio_desc *desc, int value) \
	{                                                                                \
		next(desc, value);                                                       \
		barrier();                                                               \
	}

TOGGLE_CHAIN(10, gpiod_set_value)
TOGGLE_CHAIN(9, toggle_chain_10)
TOGGLE_CHAIN(8, toggle_chain_9)
TOGGLE_CHAIN(7, toggle_chain_8)
TOGGLE_CHAIN(6, toggle_chain_7)
TOGGLE_CHAIN(5, toggle_chain_6)
TOGGLE_CHAIN(4, toggle_chain_5)
TOGGLE_CHAIN(3, toggle_chain_4)
TOGGLE_CHAIN(2, toggle_chain_3)
TOGGLE_CHAIN(1, toggle_chain_2)

/*
 * printk mode only. Kept out of line so that the other modes' loops do not contain it; the
 * kernel prints its trace_printk() NOTICE banner whenever this module is loaded all the same.
 */
static noinline void toggle_printk(void)
{
	trace_printk("gpio-toggle\n");
}

static __always_inline void toggle_set(struct toggle *t, int value)
{
	struct gpio_desc *desc = t->desc;

	trace_toggle_ev0(t->gpio, value);
	trace_toggle_ev1(t->gpio, value);
	trace_toggle_ev2(t->gpio, value);
	trace_toggle_ev3(t->gpio, value);
	trace_toggle_ev4(t->gpio, value);
	trace_toggle_ev5(t->gpio, value);
	trace_toggle_ev6(t->gpio, value);
	trace_toggle_ev7(t->gpio, value);
	trace_toggle_ev8(t->gpio, value);
	trace_toggle_ev9(t->gpio, value);

	/* entered at toggle_chain_(11 - depth) */
	switch (READ_ONCE(t->depth)) {
	case 0:
		gpiod_set_value(desc, value);
		break;
	case 1:
		toggle_chain_10(desc, value);
		break;
	case 2:
		toggle_chain_9(desc, value);
		break;
	case 3:
		toggle_chain_8(desc, value);
		break;
	case 4:
		toggle_chain_7(desc, value);
		break;
	case 5:
		toggle_chain_6(desc, value);
		break;
	case 6:
		toggle_chain_5(desc, value);
		break;
	case 7:
		toggle_chain_4(desc, value);
		break;
	case 8:
		toggle_chain_3(desc, value);
		break;
	case 9:
		toggle_chain_2(desc, value);
		break;
	default:
		toggle_chain_1(desc, value);
		break;
	}
}

/* the talk's toggle_once(): one pulse, set 1 then set 0 */
static __always_inline void toggle_once(struct toggle *t, bool printk)
{
	if (printk)
		toggle_printk();
	toggle_set(t, 1);
	if (printk)
		toggle_printk();
	toggle_set(t, 0);
}

/* one batch of n pulses, timed from before the first set to after the last */
static void toggle_batch_run(struct toggle *t, u32 n)
{
	struct toggle_batch_rec *r;
	u64 t0, ns, seq;
	u32 i;

	if (t->mode == TOGGLE_PRINTK) {
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++)
			toggle_once(t, true);
		ns = ktime_get_ns() - t0;
	} else {
		t0 = ktime_get_ns();
		for (i = 0; i < n; i++)
			toggle_once(t, false);
		ns = ktime_get_ns() - t0;
	}

	spin_lock(&t->ring_lock);
	seq = t->nbatches;
	r = &t->ring[seq & (TOGGLE_RING - 1)];
	r->seq = seq;
	r->pulses = n;
	r->ns = ns;
	t->nbatches = seq + 1;
	/* each pulse is one set to 1 (rising) and one set to 0 (falling) */
	t->rising += n;
	t->falling += n;
	spin_unlock(&t->ring_lock);

	trace_toggle_batch(seq, n, ns);
}

/* ---- the toggler thread ----------------------------------------------------------------- */

static int toggle_thread(void *arg)
{
	struct toggle *t = arg;
	bool more;
	u32 n;

	while (!kthread_should_stop()) {
		spin_lock(&t->lock);
		if (!t->want) {
			/* idle: the line is low (every pulse ends with a set to 0) */
			t->active = false;
			spin_unlock(&t->lock);
			wake_up_all(&t->idle);
			/* interruptible: an idle kthread must not look hung; it gets no signals */
			wait_event_interruptible(t->wake,
						 READ_ONCE(t->active) || kthread_should_stop());
			continue;
		}
		if (t->has_req) {
			t->left = t->req;
			t->req = 0;
			t->has_req = false;
		}
		n = burst;
		if (t->left && t->left < n)
			n = t->left;
		spin_unlock(&t->lock);

		toggle_batch_run(t, n);

		spin_lock(&t->lock);
		if (t->left) {
			t->left -= n;
			if (!t->left)
				t->want = false;
		}
		more = t->want;
		spin_unlock(&t->lock);

		if (t->mode == TOGGLE_BURST) {
			if (more)
				msleep(1);
		} else {
			/*
			 * A SCHED_FIFO loop that never sleeps starves the per-CPU kernel threads
			 * (timers, RCU) on PREEMPT_RT, where cond_resched() does nothing: the RCU
			 * grace-period kthread was seen starved for 15 s, and rmmod hung. So, between
			 * batches (never inside a timed one), a short sleep.
			 */
			t->since_resched += n;
			if (t->since_resched >= TOGGLE_RESCHED) {
				t->since_resched = 0;
				usleep_range(TOGGLE_REST_US, 2 * TOGGLE_REST_US);
			}
		}
	}

	spin_lock(&t->lock);
	t->want = false;
	t->active = false;
	spin_unlock(&t->lock);
	wake_up_all(&t->idle);
	return 0;
}

/* ---- the micro-benchmark: cycles per loop iteration ------------------------------------- */

/*
 * The kernel-markers method: a loop with interrupts disabled, timed with the cycle counter
 * (get_cycles()) and ktime_get_ns(), whose body is nothing, the toggle_bench tracepoint (off:
 * a static key; or with whatever is attached to it), or a call of toggle_bench_fn() (the
 * kprobe's target). The loop runs in chunks of TOGGLE_MB_CHUNK iterations with interrupts
 * off; between chunks they are on and the thread may reschedule, so that a slow probe (a
 * kprobe under emulation) cannot stall the CPU for seconds. Only the chunks are timed.
 */
#define TOGGLE_MB_CHUNK 1000
#define TOGGLE_MB_MAX_ITERS 100000000

enum toggle_mb_case {
	TOGGLE_MB_EMPTY,
	TOGGLE_MB_TRACEPOINT,
	TOGGLE_MB_FUNCTION,
};

static const char *const toggle_mb_cases[] = {
	[TOGGLE_MB_EMPTY] = "empty",
	[TOGGLE_MB_TRACEPOINT] = "tracepoint",
	[TOGGLE_MB_FUNCTION] = "function",
};

struct toggle_mb_result {
	bool valid;
	enum toggle_mb_case c;
	u64 iters, cycles, ns;
};

static DEFINE_MUTEX(toggle_mb_lock);
static struct toggle_mb_result toggle_mb_last;

/* the kprobe's target: a function of its own, kept by __noipa and the barrier */
noinline __noipa void toggle_bench_fn(int value, void *ptr)
{
	barrier();
}

static void toggle_mb_run(enum toggle_mb_case c, u64 iters, struct toggle_mb_result *r)
{
	u64 done = 0, cycles = 0, ns = 0;
	unsigned long flags;

	while (done < iters) {
		u64 n = min_t(u64, iters - done, TOGGLE_MB_CHUNK), i;
		cycles_t c0, c1;
		u64 t0, t1;

		local_irq_save(flags);
		t0 = ktime_get_ns();
		c0 = get_cycles();
		switch (c) {
		case TOGGLE_MB_EMPTY:
			for (i = 0; i < n; i++)
				barrier();
			break;
		case TOGGLE_MB_TRACEPOINT:
			for (i = 0; i < n; i++) {
				trace_toggle_bench(1, NULL);
				barrier();
			}
			break;
		case TOGGLE_MB_FUNCTION:
			for (i = 0; i < n; i++) {
				toggle_bench_fn(1, NULL);
				barrier();
			}
			break;
		}
		c1 = get_cycles();
		t1 = ktime_get_ns();
		local_irq_restore(flags);
		cycles += c1 - c0;
		ns += t1 - t0;
		done += n;
		cond_resched();
	}
	r->valid = true;
	r->c = c;
	r->iters = iters;
	r->cycles = cycles;
	r->ns = ns;
}

/* "CASE [ITERATIONS]": run it (default 100000 iterations); the result is read back */
static ssize_t toggle_mb_write(struct file *file, const char __user *ubuf, size_t count,
			       loff_t *ppos)
{
	struct toggle_mb_result r = {};
	char buf[64], *sp, *name;
	u64 iters = 100000;
	int c, ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	name = strim(buf);
	sp = strchr(name, ' ');
	if (sp) {
		*sp = '\0';
		ret = kstrtou64(strim(sp + 1), 10, &iters);
		if (ret || !iters || iters > TOGGLE_MB_MAX_ITERS)
			return -EINVAL;
	}
	c = match_string(toggle_mb_cases, ARRAY_SIZE(toggle_mb_cases), name);
	if (c < 0)
		return -EINVAL;
	mutex_lock(&toggle_mb_lock);
	toggle_mb_run(c, iters, &r);
	toggle_mb_last = r;
	mutex_unlock(&toggle_mb_lock);
	return count;
}

/* cycles and ns per iteration with two decimals, integer arithmetic only */
static void toggle_mb_fixed(struct seq_file *s, const char *name, u64 total, u64 iters)
{
	u64 x = div64_u64(total * 100, iters);

	seq_printf(s, " %s=%llu.%02llu", name, div_u64(x, 100), x - div_u64(x, 100) * 100);
}

static int toggle_mb_show(struct seq_file *s, void *unused)
{
	struct toggle_mb_result r;

	mutex_lock(&toggle_mb_lock);
	r = toggle_mb_last;
	mutex_unlock(&toggle_mb_lock);
	if (!r.valid) {
		seq_puts(s, "none (write: empty|tracepoint|function [ITERATIONS])\n");
		return 0;
	}
	seq_printf(s, "case=%s iterations=%llu cycles=%llu ns=%llu", toggle_mb_cases[r.c], r.iters,
		   r.cycles, r.ns);
	toggle_mb_fixed(s, "cycles_per_iter", r.cycles, r.iters);
	toggle_mb_fixed(s, "ns_per_iter", r.ns, r.iters);
	seq_putc(s, '\n');
	return 0;
}

static int toggle_mb_open(struct inode *inode, struct file *file)
{
	return single_open(file, toggle_mb_show, inode->i_private);
}

static const struct file_operations toggle_mb_fops = {
	.owner = THIS_MODULE,
	.open = toggle_mb_open,
	.read = seq_read,
	.write = toggle_mb_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ---- debugfs: /sys/kernel/debug/toggle/ ------------------------------------------------- */

static int toggle_enable_get(void *data, u64 *val)
{
	struct toggle *t = data;

	*val = READ_ONCE(t->want);
	return 0;
}

static int toggle_enable_set(void *data, u64 val)
{
	struct toggle *t = data;
	int ret = 0;

	mutex_lock(&t->ctl);
	spin_lock(&t->lock);
	if (val) {
		t->want = true;
		t->active = true;
	} else {
		/* a stop ends a limited run: drop what is left of it, and a count not yet taken */
		t->want = false;
		t->left = 0;
		t->req = 0;
		t->has_req = false;
	}
	spin_unlock(&t->lock);
	if (val)
		wake_up(&t->wake);
	else
		ret = wait_event_interruptible(t->idle, !READ_ONCE(t->active));
	mutex_unlock(&t->ctl);
	return ret;
}
DEFINE_DEBUGFS_ATTRIBUTE(toggle_enable_fops, toggle_enable_get, toggle_enable_set, "%llu\n");

static int toggle_pulses_get(void *data, u64 *val)
{
	struct toggle *t = data;

	spin_lock(&t->lock);
	*val = t->has_req ? t->req : t->left;
	spin_unlock(&t->lock);
	return 0;
}

static int toggle_pulses_set(void *data, u64 val)
{
	struct toggle *t = data;

	mutex_lock(&t->ctl);
	spin_lock(&t->lock);
	/* taken by the thread at its next batch (0: unlimited from then on) */
	t->req = val;
	t->has_req = true;
	spin_unlock(&t->lock);
	mutex_unlock(&t->ctl);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(toggle_pulses_fops, toggle_pulses_get, toggle_pulses_set, "%llu\n");

static int toggle_depth_get(void *data, u64 *val)
{
	struct toggle *t = data;

	*val = READ_ONCE(t->depth);
	return 0;
}

static int toggle_depth_set(void *data, u64 val)
{
	struct toggle *t = data;

	if (val > TOGGLE_MAX_DEPTH)
		return -EINVAL;
	WRITE_ONCE(t->depth, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(toggle_depth_fops, toggle_depth_get, toggle_depth_set, "%llu\n");

static int toggle_edges_show(struct seq_file *s, void *unused)
{
	struct toggle *t = s->private;
	u64 rising, falling;

	spin_lock(&t->ring_lock);
	rising = t->rising;
	falling = t->falling;
	spin_unlock(&t->ring_lock);
	seq_printf(s, "%llu %llu\n", rising, falling);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(toggle_edges);

static int toggle_batches_show(struct seq_file *s, void *unused)
{
	struct toggle *t = s->private;
	struct toggle_batch_rec *snap;
	u64 first, last, i;

	snap = kvmalloc_array(TOGGLE_RING, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	spin_lock(&t->ring_lock);
	memcpy(snap, t->ring, sizeof(t->ring));
	last = t->nbatches;
	spin_unlock(&t->ring_lock);

	first = last > TOGGLE_RING ? last - TOGGLE_RING : 0;
	for (i = first; i < last; i++) {
		struct toggle_batch_rec *r = &snap[i & (TOGGLE_RING - 1)];

		seq_printf(s, "%llu %u %llu\n", r->seq, r->pulses, r->ns);
	}
	kvfree(snap);
	return 0;
}

static int toggle_batches_open(struct inode *inode, struct file *file)
{
	/* "18446744073709551615 100000 18446744073709551615\n" is 49 characters */
	return single_open_size(file, toggle_batches_show, inode->i_private, TOGGLE_RING * 49);
}

static const struct file_operations toggle_batches_fops = {
	.owner = THIS_MODULE,
	.open = toggle_batches_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static ssize_t toggle_reset_write(struct file *file, const char __user *buf, size_t count,
				  loff_t *ppos)
{
	struct toggle *t = file->private_data;
	bool busy;

	mutex_lock(&t->ctl);
	spin_lock(&t->lock);
	busy = t->want || t->active;
	spin_unlock(&t->lock);
	if (!busy) {
		spin_lock(&t->ring_lock);
		t->rising = 0;
		t->falling = 0;
		t->nbatches = 0;
		spin_unlock(&t->ring_lock);
	}
	mutex_unlock(&t->ctl);
	return busy ? -EBUSY : count;
}

static const struct file_operations toggle_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = toggle_reset_write,
	.llseek = noop_llseek,
};

static int toggle_clock_show(struct seq_file *s, void *unused)
{
	/* hrtimer_resolution is what clock_getres(CLOCK_MONOTONIC) reports */
	seq_printf(s, "ktime_get_ns CLOCK_MONOTONIC resolution_ns=%u\n", hrtimer_resolution);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(toggle_clock);

static int toggle_gpio_show(struct seq_file *s, void *unused)
{
	struct toggle *t = s->private;

	seq_printf(s, "gpio=%u chip=%s line=%u\n", t->gpio, t->gc->label, line);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(toggle_gpio);

static void toggle_debugfs_init(struct toggle *t)
{
	/* debugfs failures are not fatal (and not checked, as debugfs wants) */
	t->dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file_unsafe("enable", 0644, t->dir, t, &toggle_enable_fops);
	debugfs_create_file_unsafe("pulses", 0644, t->dir, t, &toggle_pulses_fops);
	debugfs_create_file_unsafe("depth", 0644, t->dir, t, &toggle_depth_fops);
	debugfs_create_file("edges", 0444, t->dir, t, &toggle_edges_fops);
	debugfs_create_file("batches", 0444, t->dir, t, &toggle_batches_fops);
	debugfs_create_file("reset", 0200, t->dir, t, &toggle_reset_fops);
	debugfs_create_file("clock", 0444, t->dir, t, &toggle_clock_fops);
	debugfs_create_file("gpio", 0444, t->dir, t, &toggle_gpio_fops);
	debugfs_create_file("microbench", 0644, t->dir, t, &toggle_mb_fops);
}

/* ---- init and exit ---------------------------------------------------------------------- */

/* every parameter, before anything is registered; one log line for the first bad one */
static int toggle_check_params(struct toggle *t)
{
	int m = sysfs_match_string(toggle_modes, mode);

	if (m < 0) {
		pr_err("mode='%s' unknown: burst, continuous or printk\n", mode);
		return -EINVAL;
	}
	t->mode = m;
	if (burst < 1 || burst > TOGGLE_MAX_BURST) {
		pr_err("burst=%u out of range: 1 to %u\n", burst, TOGGLE_MAX_BURST);
		return -EINVAL;
	}
	if (nlines < 1 || nlines > TOGGLE_MAX_LINES) {
		pr_err("nlines=%u out of range: 1 to %u\n", nlines, TOGGLE_MAX_LINES);
		return -EINVAL;
	}
	if (!*chip && line >= nlines) {
		pr_err("line=%u out of range: 0 to %u (nlines=%u)\n", line, nlines - 1, nlines);
		return -EINVAL;
	}
	if (prio > MAX_RT_PRIO - 1) {
		pr_err("prio=%u out of range: 0 (SCHED_NORMAL) or 1 to %u (SCHED_FIFO)\n", prio,
		       MAX_RT_PRIO - 1);
		return -EINVAL;
	}
	return 0;
}

static int __init toggle_init(void)
{
	struct toggle *t = &toggle;
	struct gpio_chip *gc;
	int ret;

	ret = toggle_check_params(t);
	if (ret)
		return ret;
	if (*chip) {
		gc = toggle_find_chip();
		if (IS_ERR(gc))
			return PTR_ERR(gc);
	}

	mutex_init(&t->ctl);
	spin_lock_init(&t->lock);
	spin_lock_init(&t->ring_lock);
	init_waitqueue_head(&t->wake);
	init_waitqueue_head(&t->idle);
	t->depth = TOGGLE_MAX_DEPTH;

	if (!*chip) {
		ret = toggle_vchip_add(t);
		if (ret)
			return ret;
		gc = &t->vchip;
	}
	t->gc = gc;

	t->desc = gpiochip_request_own_desc(gc, line, KBUILD_MODNAME, GPIO_ACTIVE_HIGH,
					    GPIOD_OUT_LOW);
	if (IS_ERR(t->desc)) {
		ret = PTR_ERR(t->desc);
		pr_err("cannot request line %u of chip '%s': %d\n", line, gc->label, ret);
		goto err_chip;
	}
	t->gpio = desc_to_gpio(t->desc);

	t->thread = kthread_create(toggle_thread, t, KBUILD_MODNAME);
	if (IS_ERR(t->thread)) {
		ret = PTR_ERR(t->thread);
		pr_err("cannot create the toggler thread: %d\n", ret);
		goto err_desc;
	}
	if (prio) {
		struct sched_attr attr = {
			.size = sizeof(attr),
			.sched_policy = SCHED_FIFO,
			.sched_priority = prio,
		};

		ret = sched_setattr_nocheck(t->thread, &attr);
		if (ret) {
			pr_err("cannot make the toggler SCHED_FIFO %u: %d\n", prio, ret);
			goto err_thread;
		}
	}
	wake_up_process(t->thread); /* it goes idle at once */

	toggle_debugfs_init(t);
	return 0;

err_thread:
	kthread_stop(t->thread); /* never woken: its function does not run */
err_desc:
	gpiochip_free_own_desc(t->desc);
err_chip:
	if (t->vchip_added)
		gpiochip_remove(&t->vchip);
	else
		module_put(gc->owner); /* taken by toggle_find_chip() */
	return ret;
}

static void __exit toggle_exit(void)
{
	struct toggle *t = &toggle;

	debugfs_remove_recursive(t->dir); /* waits for control writes in progress */
	kthread_stop(t->thread); /* stops after a whole pulse: the line is low */
	gpiochip_free_own_desc(t->desc);
	if (t->vchip_added)
		gpiochip_remove(&t->vchip);
	else
		module_put(t->gc->owner); /* taken by toggle_find_chip() */
}

module_init(toggle_init);
module_exit(toggle_exit);

MODULE_DESCRIPTION("Toggles a GPIO line from a kernel thread, to measure tracing overhead");
MODULE_AUTHOR("gpiolat");
MODULE_LICENSE("GPL");
