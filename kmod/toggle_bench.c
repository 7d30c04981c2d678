// SPDX-License-Identifier: GPL-2.0
/*
 * The toggle module's cycle micro-benchmark (debugfs file "microbench"; study/microbench.sh,
 * docs/toggle-module.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>
#include <linux/uaccess.h>

#include "toggle.h"
#include "toggle_trace.h"

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

const struct file_operations toggle_mb_fops = {
	.owner = THIS_MODULE,
	.open = toggle_mb_open,
	.read = seq_read,
	.write = toggle_mb_write,
	.llseek = seq_lseek,
	.release = single_release,
};
