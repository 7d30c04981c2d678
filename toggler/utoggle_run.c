// SPDX-License-Identifier: GPL-2.0
/*
 * utoggle: batches run and timed with clock_gettime(CLOCK_MONOTONIC), their running statistics
 * (Welford), and --control (runs asked for on stdin, answered on stdout).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gpiod.h>
#include <limits.h>
#include <linux/gpio.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "maps_offset.h"
#include "utoggle_gpio.h"
#include "utoggle_run.h"

/* batch: N pulses; 0 or -errno (the uretprobe rows' return lands here: maps_offset.h) */
static __uretprobe_caller int batch(struct toggler *t, long n)
{
	long i;
	int ret = 0;

	switch (t->mode) {
	case MODE_IOCTL:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_ioctl_v2_once(t->line_fd, &t->marker);
		break;
	case MODE_LIBGPIOD:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_libgpiod_once(t->gline, t->line_offset, &t->marker);
		break;
	case MODE_SYSFS:
		for (i = 0; i < n && !ret; i++)
			ret = toggle_sysfs_once(t->line_fd, &t->marker);
		break;
	}
	return ret;
}

long long ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC_PER_SEC + ts->tv_nsec;
}

static void stats_add(struct stats *s, double x)
{
	double d = x - s->mean;

	s->n++;
	if (s->n == 1 || x < s->min)
		s->min = x;
	if (s->n == 1 || x > s->max)
		s->max = x;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

/*
 * run: batches until COUNT pulses (0: no limit), the duration or a signal; each batch's sample
 * into s and, when given, into sm; 0 or -errno of the failed set
 */
int run(struct toggler *t, const struct opts *o, long long count, struct stats *s,
	struct samples *sm, long long *elapsed)
{
	struct timespec t0, t1, start;
	long long deadline, done = 0;
	double x;
	long n;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = o->duration_ns ? ts_ns(&start) + o->duration_ns : 0;
	t1 = start;
	while (!*t->stop) {
		n = o->burst;
		if (count && count - done < n)
			n = count - done;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = batch(t, n);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (ret)
			break;
		x = (double)(ts_ns(&t1) - ts_ns(&t0)) / (2 * n);
		stats_add(s, x);
		if (sm && sm->n < sm->max)
			sm->v[sm->n++] = x;
		s->pulses += n;
		done += n;
		if (count && done >= count)
			break;
		if (deadline && ts_ns(&t1) >= deadline)
			break;
		if (o->interval_us)
			usleep(o->interval_us);
	}
	*elapsed = ts_ns(&t1) - ts_ns(&start);
	return ret;
}

/*
 * control: 'run N [marker]' on stdin, one answer line each on stdout, until EOF, 'quit' or a
 * signal; 0 or -errno of a failed set
 */
int control(struct toggler *t, const struct opts *o, struct stats *s, long long *elapsed)
{
	static const char *const probes[] = { "toggle_ioctl_v2_once", "toggle_libgpiod_once",
					      "toggle_sysfs_once" };
	void *const fns[] = { (void *)toggle_ioctl_v2_once, (void *)toggle_libgpiod_once,
			      (void *)toggle_sysfs_once };
	struct samples sm = {};
	char exe[PATH_MAX], word[16], extra[16], *cmd = NULL;
	size_t cap = 0;
	long long n, e;
	ssize_t len;
	long i;
	int ret = 0, k;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	printf("ready pid=%d exe=%s probe=%s offset=0x%lx\n", getpid(), exe, probes[t->mode],
	       maps_offset(fns[t->mode], exe));
	fflush(stdout);
	*elapsed = 0;
	while (!*t->stop && !ret && (len = getline(&cmd, &cap, stdin)) > 0) {
		k = sscanf(cmd, "%15s %lld %15s", word, &n, extra);
		if (k == 1 && !strcmp(word, "quit"))
			break;
		if (k < 2 || strcmp(word, "run") || n < 1 || n > 10000000 ||
		    (k == 3 && strcmp(extra, "marker")) || (k == 3 && t->marker.fd < 0)) {
			cmd[strcspn(cmd, "\n")] = '\0';
			printf("error bad command '%s': want 'run N', 'run N marker' (with -M) or "
			       "'quit'\n",
			       cmd);
			fflush(stdout);
			continue;
		}
		sm.max = n / o->burst + 1;
		free(sm.v);
		sm.v = calloc(sm.max, sizeof(*sm.v));
		if (!sm.v) {
			ret = -ENOMEM;
			break;
		}
		sm.n = 0;
		t->marker.on = k == 3;
		ret = run(t, o, n, s, &sm, &e);
		t->marker.on = false;
		*elapsed += e;
		printf("phase pulses=%lld batches=%ld ns_per_set=", n, sm.n);
		for (i = 0; i < sm.n; i++)
			printf("%s%.1f", i ? "," : "", sm.v[i]);
		printf("\n");
		fflush(stdout);
	}
	free(sm.v);
	free(cmd);
	return ret;
}
