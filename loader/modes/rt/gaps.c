// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --gaps: the time between consecutive sets of one GPIO line, histogrammed in the kernel
 * (bpf/gaps.bpf.c), and each gap over a threshold attributed to what ran instead of the
 * toggler: its own sleep, other tasks (preemption, RT throttling), interrupts, softirqs; what
 * no event explains is "rest". docs/rt.md.
 *
 *   gpiolat --gaps --threshold 50us --pulses 20000     the module's line, in its continuous mode
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core/parse.h"
#include "core/cli.h"
#include "modes/rt/rt_int.h"
#include "core/sys.h"
#include "modes/rt/gaps.h"

#define DEFAULT_THRESHOLD_NS 100000ULL
#define MAX_CAUSES 1024

struct gp_env {
	struct rt_env c; /* first: the common options' input */
	const char *line;
	__u64 threshold_ns;
};

struct gp_ctx {
	struct gp_env *env;
	/* the provider's: its arguments (the line, the threshold) and what it read */
	struct sched_args args;
	struct gaps_read rd;
};

enum { OPT_GAPS = 0x500, OPT_THRESHOLD };

static const struct argp_option opts[] = {
	{ "gaps", OPT_GAPS, NULL, 0, "this mode", 1 },
	{ "line", 'l', "LINE", 0,
	  "the line: a GPIO number, CHIPLABEL:OFFSET or gpiochipN:OFFSET (default: the toggle "
	  "module's)",
	  1 },
	{ "threshold", OPT_THRESHOLD, "TIME", 0,
	  "attribute the gaps of at least TIME (default 100us; a bare number is in us)", 1 },
	{},
};

static const char doc[] =
	"gpiolat --gaps: the time between consecutive sets of one line, histogrammed in the "
	"kernel, and every gap over the threshold attributed to what ran instead of the toggler "
	"(the task of the first set seen).\n"
	"\n"
	"  gpiolat --gaps --pulses 20000             the toggle module (load it mode=continuous)\n"
	"  gpiolat --gaps -l toggle-vchip:1 -- utoggle -l 1 -C -c 20000 -p 60\n"
	"\n"
	"EXIT STATUS: 0 done, 1 error (nothing left attached), 2 bad usage.";

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct gp_env *env = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->c;
		break;
	case OPT_GAPS:
		break;
	case 'l':
		env->line = arg;
		break;
	case OPT_THRESHOLD:
		if (parse_time(arg, 1000, &env->threshold_ns)) {
			rt_usage_error(state, &env->c, "bad threshold '%s': want a positive time",
				       arg);
			return EINVAL;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int cmp_cause(const void *a, const void *b)
{
	const struct gaps_cause *x = a, *y = b;

	return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

static const char *const cause_names[RT_CAUSE_MAX] = {
	[RT_CAUSE_SLEEP] = "sleep",	      [RT_CAUSE_TASK] = "task",
	[RT_CAUSE_THROTTLE] = "rt-throttled", [RT_CAUSE_HARDIRQ] = "hardirq",
	[RT_CAUSE_TIMER] = "timer-irq",	      [RT_CAUSE_SOFTIRQ] = "softirq",
	[RT_CAUSE_OTHER] = "other",	      [RT_CAUSE_REST] = "rest",
};

/* include/linux/interrupt.h */
static const char *const softirq_names[] = { "HI",	 "TIMER",   "NET_TX", "NET_RX",	 "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU" };

/* the name /proc/interrupts gives irq n (its last column), or "" */
static void irq_name(__u32 n, char *buf, size_t size)
{
	char line[512], *p, *e;
	FILE *f = fopen("/proc/interrupts", "r");

	snprintf(buf, size, "irq %u", n);
	while (f && fgets(line, sizeof(line), f)) {
		if (strtoul(line, &p, 10) != n || *p != ':' || line[strspn(line, " ")] == ':')
			continue;
		line[strcspn(line, "\n")] = 0;
		e = strrchr(line, ' ');
		if (e && e[1])
			snprintf(buf, size, "irq %u %s", n, e + 1);
		break;
	}
	if (f)
		fclose(f);
}

/* what a cause is: "hardirq", "irq 4 ttyS0"; "task", "kworker/0:1" */
static void cause_detail(const struct rt_cause_key *k, char *buf, size_t size)
{
	switch (k->cause) {
	case RT_CAUSE_TASK:
	case RT_CAUSE_THROTTLE:
		snprintf(buf, size, "%.*s", RT_COMM, k->name);
		break;
	case RT_CAUSE_HARDIRQ:
		irq_name(k->id, buf, size);
		break;
	case RT_CAUSE_SOFTIRQ:
		snprintf(buf, size, "%s",
			 k->id < sizeof(softirq_names) / sizeof(softirq_names[0]) ?
				 softirq_names[k->id] :
				 "?");
		break;
	default:
		buf[0] = 0;
	}
}

static void print_json(const struct gp_ctx *cx, const struct rt_run *run)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *t;
	char d[128];
	int i;

	json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
	json_object_object_add(o, "mode", json_object_new_string("gaps"));
	json_object_object_add(o, "format", json_object_new_int(1));
	json_object_object_add(o, "run", rt_run_json(&cx->env->c, run));
	json_object_object_add(o, "gpio", json_object_new_uint64(cx->args.line));
	json_object_object_add(o, "threshold_ns", json_object_new_uint64(cx->env->threshold_ns));
	json_object_object_add(o, "toggler_tid",
			       cx->rd.tid ? json_object_new_uint64(cx->rd.tid) : NULL);
	json_object_object_add(o, "sets", json_object_new_uint64(cx->rd.n.sets));
	json_object_object_add(o, "sets_by_other_tasks",
			       json_object_new_uint64(cx->rd.n.other_task_sets));
	json_object_object_add(o, "gaps_over", json_object_new_uint64(cx->rd.n.over));
	json_object_object_add(o, "gaps_over_ns", json_object_new_uint64(cx->rd.n.over_ns));
	json_object_object_add(o, "cause_drops", json_object_new_uint64(cx->rd.n.cause_drops));
	json_object_object_add(o, "cause_drop_ns", json_object_new_uint64(cx->rd.n.cause_drop_ns));
	json_object_object_add(o, "unlocked_sets", json_object_new_uint64(cx->rd.n.unlocked_sets));
	json_object_object_add(o, "gaps", rt_hist_json(&cx->rd.h));
	for (i = 0; i < cx->rd.n_causes; i++) {
		const struct gaps_cause *g = &cx->rd.causes[i];

		t = json_object_new_object();
		cause_detail(&g->k, d, sizeof(d));
		json_object_object_add(t, "cause", json_object_new_string(cause_names[g->k.cause]));
		json_object_object_add(t, "what", json_object_new_string(d));
		json_object_object_add(t, "gaps", json_object_new_uint64(g->v.gaps));
		json_object_object_add(t, "total_ns", json_object_new_uint64(g->v.total_ns));
		json_object_object_add(t, "max_ns", json_object_new_uint64(g->v.max_ns));
		json_object_array_add(a, t);
	}
	json_object_object_add(o, "causes", a);
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void print_text(const struct gp_ctx *cx, const struct rt_run *run)
{
	struct rt_summary s;
	char d[128];
	int i;

	printf("gpiolat --gaps: ");
	rt_run_text(stdout, &cx->env->c, run);
	printf("gpio %u: %llu sets (toggler tid %u; %llu by other tasks)\n", cx->args.line,
	       (unsigned long long)cx->rd.n.sets, cx->rd.tid,
	       (unsigned long long)cx->rd.n.other_task_sets);
	rt_hist_summary(&cx->rd.h, &s);
	printf("gaps between sets: ");
	rt_summary_text(stdout, &s);
	printf("\n");
	rt_hist_text(stdout, &cx->rd.h, "  ");
	printf("%llu gaps of at least %.1f us, %.3f ms in all; what ran instead:\n",
	       (unsigned long long)cx->rd.n.over, cx->env->threshold_ns / 1e3,
	       cx->rd.n.over_ns / 1e6);
	printf("  %-13s %-24s %8s %12s %12s\n", "cause", "what", "gaps", "total us", "max us");
	for (i = 0; i < cx->rd.n_causes; i++) {
		const struct gaps_cause *g = &cx->rd.causes[i];

		cause_detail(&g->k, d, sizeof(d));
		printf("  %-13s %-24s %8llu %12.1f %12.1f\n", cause_names[g->k.cause], d,
		       (unsigned long long)g->v.gaps, g->v.total_ns / 1e3, g->v.max_ns / 1e3);
	}
	printf("causes dropped (the table full): %llu, %.1f us\n",
	       (unsigned long long)cx->rd.n.cause_drops, cx->rd.n.cause_drop_ns / 1e3);
	if (cx->rd.n.unlocked_sets)
		printf("%llu sets handled without a lock (raw_tp: the kernel allows no bpf_spin_lock "
		       "there): a cause racing a set on another CPU may land in the next gap\n",
		       (unsigned long long)cx->rd.n.unlocked_sets);
}

static void gp_print(void *ctx, const struct rt_run *run, bool json)
{
	struct gp_ctx *cx = ctx;

	/* the causes by their total time, the largest first */
	qsort(cx->rd.causes, cx->rd.n_causes, sizeof(*cx->rd.causes), cmp_cause);
	if (json)
		print_json(ctx, run);
	else
		print_text(ctx, run);
}

bool gaps_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--gaps");
}

static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };

/* the options, then the line they name (or the toggle module's) */
static int gp_parse(struct run *r, void *ctx, int argc, char **argv)
{
	struct gp_ctx *cx = ctx;
	struct gp_env *env = cx->env;
	char why[WHY_SIZE], chip[64];
	int err, off;

	err = rt_parse(r, &argp, argc, argv, env, &env->c);
	if (err)
		return err;
	if (env->line) {
		if (sys_resolve_line(env->line, &cx->args.line, chip, sizeof(chip), &off, why,
				     sizeof(why))) {
			fprintf(stderr, "gpiolat: --gaps: %s\n", why);
			return EXIT_ERROR;
		}
	} else if (!toggle_present() || toggle_gpio(&cx->args.line)) {
		fprintf(stderr, "gpiolat: --gaps: no line given and no toggle module "
				"(/sys/kernel/debug/toggle): give --line\n");
		return EXIT_ERROR;
	}
	cx->args.threshold_ns = env->threshold_ns;
	return EXIT_OK;
}

int gaps_main(int argc, char **argv)
{
	struct gp_env env = { .c.mode = "gaps", .threshold_ns = DEFAULT_THRESHOLD_NS };
	struct gp_ctx cx = { .env = &env };
	struct rt_mode m = { .env = &env.c,
			     .prov = &prov_bpf_gaps,
			     .args = &cx.args,
			     .out = &cx.rd,
			     .ctx = &cx,
			     .parse = gp_parse,
			     .print = gp_print };
	int err;

	cx.rd.causes = calloc(MAX_CAUSES, sizeof(*cx.rd.causes));
	if (!cx.rd.causes) {
		fprintf(stderr, "gpiolat: --gaps: out of memory\n");
		return EXIT_ERROR;
	}
	cx.rd.max_causes = MAX_CAUSES;
	err = rt_main(&m, argc, argv);
	free(cx.rd.causes);
	return err;
}
