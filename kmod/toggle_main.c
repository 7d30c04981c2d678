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

#include <linux/compiler.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "toggle.h"

#define CREATE_TRACE_POINTS
#include "toggle_trace.h"

#define TOGGLE_MAX_BURST 100000
#define TOGGLE_RESCHED 1024 /* continuous modes: a rest after this many pulses */
#define TOGGLE_REST_US 50 /* ... of 50 to 100 µs */

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

static struct toggle toggle;

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

	if (toggle_raw_on()) {
		/* raw: register writes, no gpiolib, no events (kmod/toggle_raw.c) */
		t0 = ktime_get_ns();
		toggle_raw_pulses(n);
		ns = ktime_get_ns() - t0;
	} else if (t->mode == TOGGLE_PRINTK) {
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
	int ret;

	ret = toggle_check_params(t);
	if (ret)
		return ret;
	t->line = line;
	if (*chip) {
		ret = toggle_find_chip(t, chip, line);
		if (ret)
			return ret;
	}

	mutex_init(&t->ctl);
	spin_lock_init(&t->lock);
	spin_lock_init(&t->ring_lock);
	init_waitqueue_head(&t->wake);
	init_waitqueue_head(&t->idle);
	t->depth = TOGGLE_MAX_DEPTH;

	if (!*chip) {
		ret = toggle_vchip_add(t, nlines);
		if (ret)
			return ret;
		t->gc = &t->vchip;
	}

	t->desc = gpiochip_request_own_desc(t->gc, line, KBUILD_MODNAME, GPIO_ACTIVE_HIGH,
					    GPIOD_OUT_LOW);
	if (IS_ERR(t->desc)) {
		ret = PTR_ERR(t->desc);
		pr_err("cannot request line %u of chip '%s': %d\n", line, t->gc->label, ret);
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
	toggle_raw_setup(t->gc, line, t->vchip_added ? t->vvalues : NULL, t->dir);
	return 0;

err_thread:
	kthread_stop(t->thread); /* never woken: its function does not run */
err_desc:
	gpiochip_free_own_desc(t->desc);
err_chip:
	toggle_chip_release(t);
	return ret;
}

static void __exit toggle_exit(void)
{
	struct toggle *t = &toggle;

	debugfs_remove_recursive(t->dir); /* waits for control writes in progress */
	kthread_stop(t->thread); /* stops after a whole pulse: the line is low */
	toggle_raw_release();
	gpiochip_free_own_desc(t->desc);
	toggle_chip_release(t);
}

module_init(toggle_init);
module_exit(toggle_exit);

MODULE_DESCRIPTION("Toggles a GPIO line from a kernel thread, to measure tracing overhead");
MODULE_AUTHOR("gpiolat");
MODULE_LICENSE("GPL");
