// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --wakeup: the wakeup latency of chosen tasks (the toggle module's kthread, utoggle),
 * from their sched_wakeup to the sched_switch that runs them, histogrammed in the kernel
 * (bpf/wakeup.bpf.c); also the time from each preemption to the next run, and the counts of
 * wakeups, sleeps (voluntary switches out) and preemptions. docs/rt.md.
 *
 *   gpiolat --wakeup --comm toggle --pulses 2000       the module's kthread, its msleep(1)s
 *   gpiolat --wakeup -- out/bin/utoggle -c 500 -p 60   a command started once attached
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/parse.h"
#include "core/cli.h"
#include "modes/rt/rt_int.h"
#include "core/sys.h"
#include "modes/rt/wakeup.h"

struct wk_env {
	struct rt_env c; /* first: the common options' input */
	__u32 pids[RT_MAX_TASKS];
	char comms[RT_MAX_TASKS][RT_COMM];
	int npids, ncomms;
};

struct wk_task {
	__u32 pid;
	char comm[RT_COMM];
};

struct wk_ctx {
	struct wk_env *env;
	struct wk_task *tasks;
	int ntasks;
	/* the provider's: its arguments (the tasks' pids) and what it read (tasks[i]: i) */
	__u32 pids[RT_MAX_TASKS];
	struct sched_args args;
	struct wakeup_read *rd;
};

enum { OPT_WAKEUP = 0x400, OPT_PID };

static const struct argp_option opts[] = {
	{ "wakeup", OPT_WAKEUP, NULL, 0, "this mode", 1 },
	{ "pid", OPT_PID, "TID", 0, "trace this thread (repeatable)", 1 },
	{ "comm", 'c', "NAME", 0,
	  "trace every thread named NAME when the run starts (repeatable; the module's kthread "
	  "is 'toggle')",
	  1 },
	{},
};

static const char doc[] =
	"gpiolat --wakeup: how long the traced tasks wait from their wakeup to running "
	"(sched_wakeup to sched_switch), histogrammed in the kernel, per task; at most 8 tasks. "
	"A command after -- is started once attached and traced too.\n"
	"\n"
	"  gpiolat --wakeup --comm toggle --pulses 2000\n"
	"  gpiolat --wakeup -d 10s -- utoggle -b 5 -i 1000 -p 60\n"
	"\n"
	"EXIT STATUS: 0 done, 1 error (nothing left attached), 2 bad usage.";

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct wk_env *env = state->input;
	long long n;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->c;
		break;
	case OPT_WAKEUP:
		break;
	case OPT_PID:
		if (parse_count(arg, 1, 0x7fffffff, &n)) {
			rt_usage_error(state, &env->c, "bad thread id '%s'", arg);
			return EINVAL;
		}
		if (env->npids + env->ncomms == RT_MAX_TASKS) {
			rt_usage_error(state, &env->c, "at most %d tasks", RT_MAX_TASKS);
			return EINVAL;
		}
		env->pids[env->npids++] = n;
		break;
	case 'c':
		if (!*arg || strlen(arg) >= RT_COMM) {
			rt_usage_error(state, &env->c, "bad task name '%s': 1 to 15 characters",
				       arg);
			return EINVAL;
		}
		if (env->npids + env->ncomms == RT_MAX_TASKS) {
			rt_usage_error(state, &env->c, "at most %d tasks", RT_MAX_TASKS);
			return EINVAL;
		}
		snprintf(env->comms[env->ncomms++], RT_COMM, "%s", arg);
		break;
	case ARGP_KEY_END:
		if (!env->npids && !env->ncomms && !env->c.cmd) {
			rt_usage_error(state, &env->c, "no task: give --pid, --comm or a command");
			return EINVAL;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int read_comm(__u32 pid, char *comm)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(comm, RT_COMM, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	comm[strcspn(comm, "\n")] = 0;
	return 0;
}

static int add_task(struct wk_ctx *cx, __u32 pid, const char *comm)
{
	int i;

	for (i = 0; i < cx->ntasks; i++)
		if (cx->tasks[i].pid == pid)
			return 0;
	if (cx->ntasks == RT_MAX_TASKS) {
		fprintf(stderr, "gpiolat: --wakeup: more than %d tasks to trace\n", RT_MAX_TASKS);
		return -1;
	}
	cx->tasks[cx->ntasks].pid = pid;
	cx->pids[cx->ntasks] = pid;
	snprintf(cx->tasks[cx->ntasks].comm, RT_COMM, "%s", comm);
	cx->ntasks++;
	return 0;
}

/* every thread (/proc/PID/task/TID) named comm */
static int add_comm(struct wk_ctx *cx, const char *comm)
{
	char path[300], c[RT_COMM];
	struct dirent *p, *t;
	DIR *pd, *td;
	int found = 0;

	pd = opendir("/proc");
	while (pd && (p = readdir(pd))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		td = opendir(path);
		while (td && (t = readdir(td))) {
			__u32 tid = strtoul(t->d_name, NULL, 10);

			if (!tid || read_comm(tid, c) || strcmp(c, comm))
				continue;
			if (add_task(cx, tid, c))
				found = -1;
			else if (found >= 0)
				found++;
		}
		if (td)
			closedir(td);
	}
	if (pd)
		closedir(pd);
	if (!found)
		fprintf(stderr, "gpiolat: --wakeup: no task named '%s'\n", comm);
	return found > 0 ? 0 : -1;
}

static void print_json(const struct wk_ctx *cx, const struct rt_run *run)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	int i;

	json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
	json_object_object_add(o, "mode", json_object_new_string("wakeup"));
	json_object_object_add(o, "format", json_object_new_int(1));
	json_object_object_add(o, "run", rt_run_json(&cx->env->c, run));
	for (i = 0; i < cx->ntasks; i++) {
		const struct wk_task *t = &cx->tasks[i];
		const struct rt_task_counts *n = &cx->rd->n[i];
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "pid", json_object_new_uint64(t->pid));
		json_object_object_add(j, "comm", json_object_new_string(t->comm));
		json_object_object_add(j, "wakeups", json_object_new_uint64(n->wakeups));
		json_object_object_add(j, "sleeps", json_object_new_uint64(n->sleeps));
		json_object_object_add(j, "preemptions", json_object_new_uint64(n->preemptions));
		json_object_object_add(j, "unmatched", json_object_new_uint64(n->unmatched));
		json_object_object_add(j, "wakeup", rt_hist_json(&cx->rd->h[i][RT_LAT_WAKEUP]));
		json_object_object_add(j, "preempt", rt_hist_json(&cx->rd->h[i][RT_LAT_PREEMPT]));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "tasks", a);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void print_text(const struct wk_ctx *cx, const struct rt_run *run)
{
	static const char *const what[RT_LAT_MAX] = { "wakeup to running", "preempted to running" };
	struct rt_summary s;
	int i, l;

	printf("gpiolat --wakeup: ");
	rt_run_text(stdout, &cx->env->c, run);
	for (i = 0; i < cx->ntasks; i++) {
		const struct wk_task *t = &cx->tasks[i];
		const struct rt_task_counts *n = &cx->rd->n[i];

		printf("\n%s (tid %u): %llu wakeups, %llu sleeps, %llu preemptions\n", t->comm,
		       t->pid, (unsigned long long)n->wakeups, (unsigned long long)n->sleeps,
		       (unsigned long long)n->preemptions);
		for (l = 0; l < RT_LAT_MAX; l++) {
			rt_hist_summary(&cx->rd->h[i][l], &s);
			printf("  %s: ", what[l]);
			rt_summary_text(stdout, &s);
			printf("\n");
			rt_hist_text(stdout, &cx->rd->h[i][l], "    ");
		}
	}
	printf("(p50 and p99: estimates within their slot, at most 1/8 of the value wide)\n");
}

static int wk_prepared(void *ctx, struct rt_run *run)
{
	struct wk_ctx *cx = ctx;
	const char *cmd, *b;
	int err = 0;

	if (run->child) {
		cmd = cx->env->c.cmd[0];
		b = strrchr(cmd, '/');
		err = add_task(cx, run->child, b ? b + 1 : cmd);
	}
	/* the tasks, final: the provider's arguments */
	cx->args.pids = cx->pids;
	cx->args.npids = cx->ntasks;
	return err;
}
static void wk_print(void *ctx, const struct rt_run *run, bool json)
{
	if (json)
		print_json(ctx, run);
	else
		print_text(ctx, run);
}

bool wakeup_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--wakeup");
}

static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };

/* the options, then the tasks they name */
static int wk_parse(struct run *r, void *ctx, int argc, char **argv)
{
	struct wk_ctx *cx = ctx;
	struct wk_env *env = cx->env;
	char comm[RT_COMM];
	int err, i;

	err = rt_parse(r, &argp, argc, argv, env, &env->c);
	if (err)
		return err;
	for (i = 0; i < env->npids; i++) {
		if (read_comm(env->pids[i], comm)) {
			fprintf(stderr, "gpiolat: --wakeup: no thread %u\n", env->pids[i]);
			return EXIT_ERROR;
		}
		if (add_task(cx, env->pids[i], comm))
			return EXIT_ERROR;
	}
	for (i = 0; i < env->ncomms; i++)
		if (add_comm(cx, env->comms[i]))
			return EXIT_ERROR;
	return EXIT_OK;
}

int wakeup_main(int argc, char **argv)
{
	struct wk_env env = { .c.mode = "wakeup" };
	struct wk_task tasks[RT_MAX_TASKS] = {};
	struct wk_ctx cx = { .env = &env, .tasks = tasks };
	struct rt_mode m = { .env = &env.c,
			     .prov = &prov_bpf_wakeup,
			     .args = &cx.args,
			     .ctx = &cx,
			     .parse = wk_parse,
			     .prepared = wk_prepared,
			     .print = wk_print };
	int err;

	cx.rd = calloc(1, sizeof(*cx.rd));
	if (!cx.rd) {
		fprintf(stderr, "gpiolat: --wakeup: out of memory\n");
		return EXIT_ERROR;
	}
	m.out = cx.rd;
	err = rt_main(&m, argc, argv);
	free(cx.rd);
	return err;
}
