// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the kprobe optimizer's work done before a phase begins (kopt.h).
 *
 * Where the kernel can (CONFIG_OPTPROBES, a probed instruction it can replace: 32-bit ARM's
 * kprobes, not x86_64's on an ftrace site), a kprobe switched on starts as a breakpoint and is
 * replaced by a jump later, by the delayed work kprobe_optimizer (kernel/kprobes.c:
 * OPTIMIZE_DELAY, 5 jiffies after the switch, then synchronize_rcu_tasks(), then the jump);
 * a probe switched off (disabled or unregistered) keeps its jump, and costs it, until that work
 * runs again. Measured on Debian 13's armhf 6.12-rt (TIMING=icount, ftrace of the work around
 * gpiolat's phases, 80 ms each): the work began 20 ms into the method's phase and its
 * synchronize_rcu_tasks() took 24 ms (repetition 1: the jump came inside the phase) to 104 ms
 * (later ones: it came after the phase, and the switch off waited on kprobe_mutex for it);
 * the switch off's work then ran inside the following reference phase, with the disabled
 * probe's jump still in place. So the kprobe rows' repetitions differed (kprobe 1093.6, 1104.0,
 * 1104.4 ns; kprobes-4 3811.2, 4420.8, 4420.8; bpf-empty-kprobe sd 87.8 ns).
 *
 * The settle: the kernel's list of probes (debugfs kprobes/list) is read before and after each
 * switch; when its [OPTIMIZED] lines changed (a jump queued, or one to take out), wait until a
 * run of the optimizer's work has ended that settles the switch (optimizer_state() below), seen
 * by the workqueue's own tracepoints (workqueue_execute_start/end of kprobe_optimizer) in a
 * tracefs instance of ours, made once a run, its events on only from before a switch to the end
 * of the wait. Its lines are taken from its trace_pipe as they come (a consuming read, never
 * blocking): what a switch's wait reads is that switch's, and what is left from before it is
 * read and dropped at the next switch. (Until 2026-11-28 the buffer was cleared at each switch
 * instead: a truncation of the instance's trace waits for an RCU grace period, 24 ms of the
 * guest's clock at each of a run's switches whether a probe was optimized or not; measured: 24
 * of them in a run of control, event and bpf-gpiolat-tracepoint on std under icount.) So a
 * method phase measures the jump alone and a reference phase no jump, whatever the optimizer's
 * delay. Nothing waits where no probe is jump-optimized (x86_64's ftrace kprobes,
 * kprobes-optimization 0, a probe the kernel could not optimize).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "core/run.h"
#include "core/undo.h"
#include "providers/kopt.h"
#include "providers/provider.h"

#define KOPT_LIST "/sys/kernel/debug/kprobes/list"
#define KOPT_POLL_MS 10
#define KOPT_BOUND_MS 10000 /* of the guest's clock: the slowest seen took 104 ms */

/* the list's [OPTIMIZED] lines (with their [DISABLED]), or NULL when there are none */
static char *optimized_lines(void)
{
	char line[512], *s = NULL;
	size_t n = 0, l;
	FILE *f = fopen(KOPT_LIST, "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *t;

		if (!strstr(line, "[OPTIMIZED]"))
			continue;
		l = strlen(line);
		t = realloc(s, n + l + 1);
		if (!t)
			break;
		s = t;
		memcpy(s + n, line, l + 1);
		n += l;
	}
	fclose(f);
	return s;
}

/* this switch's line L: what it says of the optimizer's work (optimizer_state() below) */
static void kopt_line(struct kopt *k, const char *l);

/*
 * every line the watch's trace_pipe holds now, each whole one given to kopt_line() (KEEP) or
 * dropped; 0, or -1 when the pipe failed
 */
static int pipe_lines(struct kopt *k, bool keep)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(k->w->pipe, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -1;
		if (!n)
			return 0;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				/* a longer line than any of the optimizer's: only its start kept */
				if (k->npart < sizeof(k->part) - 1)
					k->part[k->npart++] = buf[i];
				continue;
			}
			k->part[k->npart] = '\0';
			if (keep)
				kopt_line(k, k->part);
			k->npart = 0;
		}
	}
}

static void pipe_open(struct kopt_watch *w)
{
	char *f = tracefs_instance_get_file(w->inst, "trace_pipe");

	w->pipe = f ? open(f, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
	w->has_pipe = w->pipe >= 0;
	tracefs_put_tracing_file(f);
}

void kopt_begin(struct kopt *k, struct kopt_watch *w, struct undo *u)
{
	k->w = w;
	k->on = false;
	k->marked = k->started = k->after = k->running = false;
	k->npart = 0;
	k->before = w ? optimized_lines() : NULL;
	if (!w)
		return;
	if (!w->inst) {
		/*
		 * once a run: making an instance makes the directories of every event of the
		 * kernel, and removing one removes them (measured: a std boot's test 81 under
		 * TIMING=icount, an instance made and removed at each switch, as before, spent half
		 * of its busy instructions there)
		 */
		w->inst = undo_instance(u, KOPT_INSTANCE) ? NULL :
							    tracefs_instance_create(KOPT_INSTANCE);
		if (!w->inst && !tracefs_instance_exists(KOPT_INSTANCE))
			undo_instance_done(u, KOPT_INSTANCE);
		if (!w->inst)
			return;
		pipe_open(w);
	}
	/* the last switch's lines out (its events were off since): a run of the work seen then is
	 * not this switch's */
	k->on = w->has_pipe && !pipe_lines(k, false) &&
		!probe_event_switch(w->inst, "workqueue", "workqueue_execute_start", true) &&
		!probe_event_switch(w->inst, "workqueue", "workqueue_execute_end", true);
	k->npart = 0;
	if (!k->on)
		tracefs_event_disable(w->inst, NULL, NULL);
}

/*
 * The optimizer's work is done for the switch when a run of it that began after the switch had
 * returned (KOPT_MARK in the buffer) has ended: every probe the switch queued is on the kernel's
 * lists by then. A switch of many probes (kprobes-8: eight events enabled one by one) can take
 * longer than OPTIMIZE_DELAY, and a run then begins inside it and does only part (on 6.12-rt
 * kprobes-8..10 had one or two probes still breakpoints in some repetitions: +301 and +606 ns);
 * the kernel runs the work again OPTIMIZE_DELAY later when its lists are not empty. So a run
 * begun before the mark counts only when no other begins within KOPT_QUIET_MS of its end (more
 * than 5 jiffies at HZ 100).
 */
#define KOPT_MARK "gpiolat_kopt: switched"
#define KOPT_QUIET_MS 100

enum kopt_state { KOPT_WAIT, KOPT_QUIET, KOPT_DONE };

static void kopt_line(struct kopt *k, const char *l)
{
	if (strstr(l, KOPT_MARK)) {
		k->marked = true;
		return;
	}
	if (!strstr(l, "function kprobe_optimizer"))
		return;
	if (strstr(l, "workqueue_execute_start:")) {
		k->started = k->running = true;
		k->after = k->marked;
	} else if (strstr(l, "workqueue_execute_end:")) {
		k->running = false;
	}
}

/* the lines come since the last look, and what all of this switch's say */
static enum kopt_state optimizer_state(struct kopt *k)
{
	pipe_lines(k, true);
	if (!k->started || k->running)
		return KOPT_WAIT;
	return k->after ? KOPT_DONE : KOPT_QUIET;
}

int kopt_end(struct kopt *k, volatile sig_atomic_t *stop, char *why, size_t size)
{
	char *after;

	if (!k->w)
		return 0;
	after = optimized_lines();
	bool changed =
		(k->before || after) && (!k->before || !after || strcmp(k->before, after) != 0);
	int ms = 0, quiet = 0, rc = 0;
	enum kopt_state st;

	if (changed && !k->on) {
		snprintf(
			why, size,
			"the kprobe optimizer's work cannot be seen: no tracefs instance " KOPT_INSTANCE
			" with the workqueue's events");
		rc = -1;
	}
	if (changed && k->on)
		tracefs_instance_file_write(k->w->inst, "trace_marker", KOPT_MARK);
	while (changed && k->on && !*stop) {
		st = optimizer_state(k);
		quiet = st == KOPT_QUIET ? quiet + KOPT_POLL_MS : 0;
		if (st == KOPT_DONE || quiet > KOPT_QUIET_MS)
			break;
		if (ms >= KOPT_BOUND_MS) {
			snprintf(why, size,
				 "the kprobe optimizer's work did not run to its end "
				 "within %d ms of a switch",
				 KOPT_BOUND_MS);
			rc = -1;
			break;
		}
		run_nap(NULL, KOPT_POLL_MS);
		ms += KOPT_POLL_MS;
	}
	if (rc)
		k->w->unsettled = true;
	/* only its two events: no tracer, no trigger; off until the next switch */
	if (k->on)
		tracefs_event_disable(k->w->inst, NULL, NULL);
	free(k->before);
	free(after);
	k->before = NULL;
	k->on = false;
	return rc;
}

void kopt_close(struct kopt_watch *w)
{
	/* before the instance's removal (the undo stack's): an instance with its pipe open is busy */
	if (w->has_pipe)
		close(w->pipe);
	w->has_pipe = false;
	tracefs_instance_free(w->inst);
	w->inst = NULL;
}
