// SPDX-License-Identifier: GPL-2.0
/*
 * The toggle module's run-time control: /sys/kernel/debug/toggle/ (docs/toggle-module.md).
 * The control files' writers are serialised by ->ctl and talk to the toggler thread through
 * ->want / ->active / ->req / ->left under ->lock (see toggle_main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "toggle.h"

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

	seq_printf(s, "gpio=%u chip=%s line=%u\n", t->gpio, t->gc->label, t->line);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(toggle_gpio);

void toggle_debugfs_init(struct toggle *t)
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
