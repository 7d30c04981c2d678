// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the ftrace family (provider.h): the function tracer in the target's instance
 * (filtered to the method's functions, e.g. gpiod*), function_graph at the top level (saved
 * first, restored on every way out), and trace_printk: the toggle module reloaded in its printk
 * mode (loader/core/kmod_reload.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include "core/kmod_reload.h"
#include "core/run.h"
#include "core/statedir.h"
#include "core/top_files.h"
#include "core/undo.h"
#include "providers/provider.h"

/* the family's own (p->priv, allocated in setup): its count, kept by its off */
struct tracer {
	struct kept_count kept;
};

static struct tracer *tracer_alloc(struct probe *p, char *why, size_t size)
{
	struct tracer *tr = probe_priv(p, sizeof(*tr));

	if (!tr)
		snprintf(why, size, "out of memory");
	return tr;
}

static int function_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	char *t;

	if (probe_need_instance(p, why, size) || !tracer_alloc(p, why, size))
		return -1;
	t = tracefs_instance_file_read(p->t->inst, "available_tracers", NULL);
	if (!t || !strstr(t, "function")) {
		snprintf(why, size,
			 "no function tracer in a tracefs instance (CONFIG_FUNCTION_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	if (tracefs_function_filter(p->t->inst, ea->funcs[0], NULL,
				    TRACEFS_FL_RESET | TRACEFS_FL_CONTINUE) ||
	    tracefs_function_filter(p->t->inst, NULL, NULL, 0)) {
		snprintf(why, size, "set_ftrace_filter '%s' failed: %s", ea->funcs[0],
			 strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The tracers' count: the lines of the method's first function in the trace (function:
 * "gpiod_set_value <-CALLER", function_graph: "gpiod_set_value() {"), a running total kept by
 * its off (the buffer may go with the tracer)
 */
static const char *trace_word(const struct probe *p, char *buf, size_t size)
{
	const struct events_args *ea = probe_ev(p);

	if (ea->top_level)
		snprintf(buf, size, " %s()", ea->funcs[0]);
	else
		snprintf(buf, size, " %s <-",
			 ea->funcs[0][strcspn(ea->funcs[0], "*")] ? "gpiod_set_value" :
								    ea->funcs[0]);
	return buf;
}

static int tracer_lines(struct probe *p, __u64 *n)
{
	char w[80];

	return probe_trace_lines(probe_ev(p)->top_level ? NULL : p->t->inst,
				 trace_word(p, w, sizeof(w)), n);
}

/* the family's kept count, or NULL (nothing set up) */
static struct kept_count *kept(const struct probe *p)
{
	struct tracer *tr = p->priv;

	return tr ? &tr->kept : NULL;
}

static int tracer_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 2;
	if (!kept_count_read(p, kept(p), tracer_lines, n))
		return 0;
	snprintf(why, size, "cannot read the trace");
	return -1;
}

static int function_on(struct probe *p, char *why, size_t size)
{
	kept(p)->live = true;
	return tracefs_tracer_set(p->t->inst, TRACEFS_TRACER_FUNCTION);
}

static int tracer_off(struct probe *p)
{
	kept_count_off(p, kept(p), tracer_lines);
	return tracefs_tracer_clear(probe_ev(p)->top_level ? NULL : p->t->inst);
}

static void function_teardown(struct probe *p)
{
	tracefs_tracer_clear(p->t->inst);
	tracefs_instance_file_clear(p->t->inst, "set_ftrace_filter");
	probe_priv_free(p);
}

/* function_graph: the top level only (6.1 has no graph tracer in instances); saved first */
static int graph_setup(struct probe *p, char *why, size_t size)
{
	const struct events_args *ea = probe_ev(p);
	char *t;
	int i;

	if (!tracer_alloc(p, why, size))
		return -1;
	t = tracefs_instance_file_read(NULL, "available_tracers", NULL);
	if (!t || !strstr(t, "function_graph")) {
		snprintf(why, size, "no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	t = tracefs_instance_file_read(NULL, "current_tracer", NULL);
	if (!t || strncmp(t, "nop", 3)) {
		snprintf(why, size,
			 "the top-level tracer is in use (current_tracer %s): left alone",
			 t ? strtok(t, "\n") : "?");
		free(t);
		return -1;
	}
	free(t);
	for (i = 0; i < TOP_FILES; i++) {
		if (undo_tracer_file(&p->t->run->undo, top_files[i])) {
			snprintf(why, size, "cannot save the top-level %s in " STATE_DIR,
				 top_files[i]);
			return -1;
		}
	}
	tracefs_instance_file_clear(NULL, "set_graph_function");
	if (tracefs_instance_file_write(NULL, "set_graph_function", ea->funcs[0]) < 0 ||
	    tracefs_instance_file_write(NULL, "tracing_on", "1") < 0) {
		snprintf(why, size, "set_graph_function %s failed: %s", ea->funcs[0],
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int graph_on(struct probe *p, char *why, size_t size)
{
	kept(p)->live = true;
	return tracefs_tracer_set(NULL, TRACEFS_TRACER_FUNCTION_GRAPH);
}

static void graph_teardown(struct probe *p)
{
	undo_tracer_files_now(&p->t->run->undo);
	probe_priv_free(p);
}

/* trace_printk: the module's printk mode against its continuous mode */
static int printk_setup(struct probe *p, char *why, size_t size)
{
	if (!tracer_alloc(p, why, size))
		return -1;
	if (undo_kmod(&p->t->run->undo)) {
		snprintf(why, size, "cannot record the module's reload in the undo journal");
		return -1;
	}
	/* the reload may give the line another number: the target's is updated */
	return kmod_reload_setup(&p->t->gpio, why);
}

static int printk_on(struct probe *p, char *why, size_t size)
{
	int err = kmod_reload_printk(true, &p->t->gpio);

	kept(p)->live = !err;
	return err;
}

/* its count: the module's "gpio-toggle" lines in the top-level trace, once a set */
static int printk_lines(struct probe *p, __u64 *n)
{
	return probe_trace_lines(NULL, "gpio-toggle", n);
}

static int printk_off(struct probe *p)
{
	kept_count_off(p, kept(p), printk_lines);
	return kmod_reload_printk(false, &p->t->gpio);
}

static int printk_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 2;
	if (!kept_count_read(p, kept(p), printk_lines, n))
		return 0;
	snprintf(why, size, "cannot read the top-level trace");
	return -1;
}

static void printk_teardown(struct probe *p)
{
	kmod_restore(&p->t->gpio);
	probe_priv_free(p);
}

const struct provider prov_function = { .name = "function tracer",
					.lasting = true,
					.targets = TGT_GPIO_PULSE,
					.setup = function_setup,
					.on = function_on,
					.off = tracer_off,
					.teardown = function_teardown,
					.count = tracer_count,
					.counted_by = "its trace's lines of gpiod_set_value" };
const struct provider prov_graph = { .name = "function_graph tracer",
				     .lasting = true,
				     .targets = TGT_GPIO_PULSE,
				     .setup = graph_setup,
				     .on = graph_on,
				     .off = tracer_off,
				     .teardown = graph_teardown,
				     .count = tracer_count,
				     .counted_by = "its trace's lines of gpiod_set_value()" };
const struct provider prov_printk = { .name = "trace_printk",
				      .lasting = true,
				      .targets = TGT_GPIO_PULSE,
				      .setup = printk_setup,
				      .on = printk_on,
				      .off = printk_off,
				      .teardown = printk_teardown,
				      .count = printk_count,
				      .counted_by = "the top-level trace's trace_printk lines" };
