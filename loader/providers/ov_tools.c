// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead, the external tools (ov.h): bpftrace and ply running the talk's scripts
 * (the .bt and .ply files in ply/, named by the method's .script), attached while on: started,
 * waited for until their probes are in (a readiness predicate), stopped (loader/core/child.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "modes/overhead/ov.h"
#include "core/sys.h"

static char tool_path[PATH_MAX];

/* PROG on PATH (else MISSING) and the method's script readable; 0, or -1 and why */
static int script_tool_setup(const struct method *m, const char *prog, const char *missing,
			     char *why)
{
	if (!sys_find_program(prog, tool_path, sizeof(tool_path))) {
		snprintf(why, WHY, "%s", missing);
		return -1;
	}
	if (access(m->script, R_OK)) {
		snprintf(why, WHY, "no %s here (run from the project folder)", m->script);
		return -1;
	}
	return 0;
}

static int tool_off(const struct method *m)
{
	child_stop(&ov_child);
	return 0;
}

static int bpftrace_setup(const struct method *m, char *why)
{
	return script_tool_setup(m, "bpftrace", "bpftrace is not installed (not on PATH)", why);
}

static int bpftrace_on(const struct method *m, char *why)
{
	/* bpftrace under TCG takes seconds */
	return ov_child_run((char *const[]){ tool_path, "-f", "json", (char *)m->script, NULL },
			    child_bpftrace_ready, 120000, "bpftrace", why);
}

static int ply_setup(const struct method *m, char *why)
{
	return script_tool_setup(m, "ply", "ply is not installed (no ply on PATH)", why);
}

/* ply says "ply: active" only with -d: its probes' perf events are open, the program on them */
static bool ply_ready(const struct child *c)
{
	return child_says(c, "ply: active") || child_perf_ready(c);
}

static int ply_on(const struct method *m, char *why)
{
	return ov_child_run((char *const[]){ tool_path, (char *)m->script, NULL }, ply_ready, 60000,
			    "ply", why);
}

const struct method_ops bpftrace_ops = { .setup = bpftrace_setup,
					 .on = bpftrace_on,
					 .off = tool_off };
const struct method_ops ply_ops = { .setup = ply_setup, .on = ply_on, .off = tool_off };
