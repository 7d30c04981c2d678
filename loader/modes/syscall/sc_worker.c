// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the worker: pinned to one CPU, it issues the syscalls in batches timed
 * with
 * CLOCK_MONOTONIC, each through gpiolat_sc_call() (the uprobe's target) (syscall_cost_int.h).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "core/run.h"
#include "modes/syscall/syscall_cost_int.h"
#include "maps_offset.h"

/* every syscall of the worker goes through here: the uprobe's target, in every run alike
 * (ARM code on armhf: maps_offset.h) */
__uprobe_target long gpiolat_sc_call(long nr, long a, long b, long c)
{
	return syscall(nr, a, b, c);
}

struct worker_cmd {
	long batches; /* 0: exit */
	long iters;
};

void sc_worker(int cpu, int cmd_fd, int done_fd, __u64 *shm)
{
	struct worker_cmd c;
	cpu_set_t set;
	char buf[1] = { 0 };
	int zfd, nfd, off = 0;
	long b, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* the loader stops us (a terminal's Ctrl-C or hangup reaches our process group) */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(3);
	zfd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	nfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (zfd < 0 || nfd < 0)
		_exit(4);
	while (read(cmd_fd, &c, sizeof(c)) == sizeof(c) && c.batches > 0) {
		/* batch 0 warms up and is not kept */
		for (b = 0; b <= c.batches; b++) {
			__u64 t0 = run_now_ns();

			for (i = 0; i < c.iters; i++) {
				gpiolat_sc_call(SYS_read, zfd, (long)buf, 1);
				gpiolat_sc_call(SYS_write, nfd, (long)buf, 1);
				gpiolat_sc_call(SYS_ioctl, nfd, FIONBIO, (long)&off);
			}
			if (b)
				shm[b - 1] = run_now_ns() - t0;
		}
		if (write(done_fd, "d", 1) != 1)
			break;
	}
	_exit(0);
}

int sc_worker_start(struct state *s, struct undo *u, const struct sc_env *env, char *why,
		    size_t size)
{
	int cmd[2], done[2];

	s->shm_size = MAX_BATCHES * sizeof(__u64);
	s->shm = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		snprintf(why, size, "cannot map the worker's memory: %s", strerror(errno));
		return -1;
	}
	if (pipe2(cmd, O_CLOEXEC) || pipe2(done, O_CLOEXEC)) {
		snprintf(why, size, "pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	s->worker = fork();
	if (s->worker < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		s->worker = 0;
		return -1;
	}
	if (!s->worker) {
		close(cmd[1]);
		close(done[0]);
		sc_worker(env->cpu, cmd[0], done[1], s->shm);
	}
	close(cmd[0]);
	close(done[1]);
	s->cmd_fd = cmd[1];
	s->done_fd = done[0];
	/* sc_undo() kills and reaps it, and drops the step */
	if (undo_child(u, s->worker)) {
		snprintf(why, size, "cannot record the worker in the undo journal");
		return -1;
	}
	return 0;
}

/* one run of the worker: n batches, ns per syscall of each in out[]; -1 on error or signal */
int sc_worker_run(struct state *s, const struct sc_env *env, double *out, char *why, size_t size)
{
	struct worker_cmd c = { .batches = env->batches, .iters = env->iters };
	struct pollfd p = { .fd = s->done_fd, .events = POLLIN };
	__u64 deadline = run_now_ns() + RUN_TIMEOUT_MS * 1000000ULL;
	char d;
	long i;
	int r;

	if (write(s->cmd_fd, &c, sizeof(c)) != sizeof(c)) {
		snprintf(why, size, "the worker is gone: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		if (*s->stop) {
			snprintf(why, size, "interrupted");
			return -1;
		}
		r = poll(&p, 1, 100);
		if (r < 0 && errno != EINTR) {
			snprintf(why, size, "poll: %s", strerror(errno));
			return -1;
		}
		if (r > 0)
			break;
		if (run_now_ns() > deadline) {
			snprintf(why, size, "the worker did not finish a run within %d s",
				 RUN_TIMEOUT_MS / 1000);
			return -1;
		}
	}
	if (read(s->done_fd, &d, 1) != 1) {
		snprintf(why, size, "the worker died");
		return -1;
	}
	for (i = 0; i < env->batches; i++)
		out[i] = (double)s->shm[i] / (env->iters * SC_PER_ITER);
	return 0;
}

unsigned long sc_call_offset(const char *exe)
{
	return maps_offset((const void *)&gpiolat_sc_call, exe);
}
