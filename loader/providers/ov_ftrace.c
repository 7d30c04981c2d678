// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the ftrace family (ov.h): the function tracer in our instance (filtered
 * to gpiod*), function_graph at the top level (saved first, restored on every way out), and
 * trace_printk: the toggle module reloaded in its printk mode (loader/core/kmod_reload.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include "modes/overhead/ov.h"
#include "core/kmod_reload.h"
#include "core/leftovers.h"
#include "core/statedir.h"

static int function_setup(const struct method *m, char *why)
{
	char *t;

	if (need_instance(why))
		return -1;
	t = tracefs_instance_file_read(ov_inst, "available_tracers", NULL);
	if (!t || !strstr(t, "function")) {
		snprintf(why, WHY,
			 "no function tracer in a tracefs instance (CONFIG_FUNCTION_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	if (tracefs_function_filter(ov_inst, "gpiod*", NULL,
				    TRACEFS_FL_RESET | TRACEFS_FL_CONTINUE) ||
	    tracefs_function_filter(ov_inst, NULL, NULL, 0)) {
		snprintf(why, WHY, "set_ftrace_filter 'gpiod*' failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int function_on(const struct method *m, char *why)
{
	return tracefs_tracer_set(ov_inst, TRACEFS_TRACER_FUNCTION);
}

static int tracer_off(const struct method *m)
{
	return tracefs_tracer_clear(m->top_level ? NULL : ov_inst);
}

static void function_teardown(const struct method *m)
{
	tracefs_tracer_clear(ov_inst);
	tracefs_instance_file_clear(ov_inst, "set_ftrace_filter");
}

/* function_graph: the top level only (6.1 has no graph tracer in instances); saved first */
static int graph_setup(const struct method *m, char *why)
{
	static const char *const names[] = { "current_tracer", "set_graph_function", "tracing_on" };
	char *t;
	int i;

	t = tracefs_instance_file_read(NULL, "available_tracers", NULL);
	if (!t || !strstr(t, "function_graph")) {
		snprintf(why, WHY, "no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)");
		free(t);
		return -1;
	}
	free(t);
	t = tracefs_instance_file_read(NULL, "current_tracer", NULL);
	if (!t || strncmp(t, "nop", 3)) {
		snprintf(why, WHY, "the top-level tracer is in use (current_tracer %s): left alone",
			 t ? strtok(t, "\n") : "?");
		free(t);
		return -1;
	}
	free(t);
	if (state_dir_open(true, why, WHY) < 0)
		return -1;
	for (i = 0; i < 3; i++) {
		t = tracefs_instance_file_read(NULL, names[i], NULL);
		if (!t || state_save(names[i], t)) {
			snprintf(why, WHY, "cannot save the top-level %s in " STATE_DIR, names[i]);
			free(t);
			return -1;
		}
		free(t);
	}
	tracefs_instance_file_clear(NULL, "set_graph_function");
	if (tracefs_instance_file_write(NULL, "set_graph_function", "gpiod_set_value") < 0 ||
	    tracefs_instance_file_write(NULL, "tracing_on", "1") < 0) {
		snprintf(why, WHY, "set_graph_function gpiod_set_value failed: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static int graph_on(const struct method *m, char *why)
{
	return tracefs_tracer_set(NULL, TRACEFS_TRACER_FUNCTION_GRAPH);
}

static void graph_teardown(const struct method *m)
{
	bool found;

	restore_top(&found);
}

/* trace_printk: the module's printk mode against its continuous mode */
static int printk_setup(const struct method *m, char *why)
{
	return kmod_reload_setup(why);
}

static int printk_on(const struct method *m, char *why)
{
	return kmod_reload_printk(true);
}

static int printk_off(const struct method *m)
{
	return kmod_reload_printk(false);
}

static void printk_teardown(const struct method *m)
{
	kmod_restore();
}

const struct method_ops function_ops = { .setup = function_setup,
					 .on = function_on,
					 .off = tracer_off,
					 .teardown = function_teardown };
const struct method_ops graph_ops = { .setup = graph_setup,
				      .on = graph_on,
				      .off = tracer_off,
				      .teardown = graph_teardown };
const struct method_ops printk_ops = { .setup = printk_setup,
				       .on = printk_on,
				       .off = printk_off,
				       .teardown = printk_teardown };
