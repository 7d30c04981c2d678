// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the child tools (provider.h): strace and perf trace on the target's process,
 * bpftrace and ply running a script (the method's, or the mode's), and gpiolat --syscall-hist
 * (our own histogram as a second process). Each is looked for on PATH in setup, started while
 * on and waited for until its probes are in (a readiness predicate, one timeout per tool),
 * stopped while off (loader/core/child.c). bpftrace's programs are counted at each off.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "core/run.h"
#include "core/sys.h"
#include "providers/provider.h"

/*
 * How long a tool may take to be ready: an upper bound on a failure, never waited for when it
 * works (the wait ends at readiness). bpftrace: 120 s, the one figure for both modes: under
 * TCG bpftrace parses its script, compiles it with LLVM and loads the programs in tens of
 * seconds, and a bound that fires there fails a method that works.
 */
#define STRACE_READY_MS 30000
#define PERF_READY_MS 30000
#define BPFTRACE_READY_MS 120000
#define BPFTRACE_SETTLE_MS 300
#define PLY_READY_MS 60000
#define SCHIST_READY_MS 60000

static const struct child_words words = { "exited before it was attached",
					  "was not attached within" };

/* the family's own (p->priv, allocated in setup): the tool's executable, its programs' figures,
 * its scripts' count */
struct tool {
	char path[PATH_MAX];
	struct probe_figures fig; /* their run time, summed at each off */
	struct kept_count kept; /* the pulses its output said at its last off (live: not yet) */
};

static struct tool *tool(const struct probe *p)
{
	return p->priv;
}

static struct tool *tool_alloc(struct probe *p, char *why, size_t size)
{
	struct tool *t = probe_priv(p, sizeof(*t));

	if (!t)
		snprintf(why, size, "out of memory");
	return t;
}

static int tool_find(struct probe *p, const char *prog, char *why, size_t size)
{
	struct tool *t = tool_alloc(p, why, size);

	if (!t)
		return -1;
	if (sys_find_program(prog, t->path, sizeof(t->path)))
		return 0;
	snprintf(why, size, "%s is not installed (not on PATH)", prog);
	return -1;
}

static int tool_run(struct probe *p, char *const argv[], bool (*ready)(const struct child *c),
		    int timeout_ms, const char *name, char *why, size_t size)
{
	if (child_start(&p->t->child, &p->t->run->undo, argv, why, size))
		return -1;
	return child_wait(&p->t->child, ready, timeout_ms, name, &words, &p->t->run->stop, why,
			  size);
}

/* the BPF programs the tool holds, their run time added to the probe's figures */
static void tool_figures_add(struct probe *p)
{
	__u32 ids[32];
	int n = child_prog_ids(&p->t->child, ids, 32), i, fd;

	for (i = 0; tool(p) && i < n; i++) {
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		probe_prog_figures(fd, &tool(p)->fig);
		close(fd);
	}
}

/*
 * The scripts' count: the pulses in the histograms the tool prints as it exits (its own map):
 * bpftrace -f json's "count": N of each bucket, ply's "<TAB>[ low,  high]<TAB>N" rows (ply 2.4's
 * quantize print: the bucket's bounds rounded, then its count); once a pulse,
 * one tool process a phase (its on starts the count again)
 */
static int tool_off(struct probe *p)
{
	struct tool *t = tool(p);
	int found = 0;

	if (p->t->child.pid && p->ops == &prov_bpftrace)
		tool_figures_add(p);
	child_end(&p->t->child);
	if (t && t->kept.live)
		t->kept.n = child_sum_after(&p->t->child,
					    p->ops == &prov_bpftrace ? "\"count\":" : "]\t",
					    p->ops == &prov_bpftrace, &found);
	if (t)
		t->kept.live = false;
	child_stop(&p->t->child);
	return 0;
}

static int script_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	*per_pulse = 1;
	*n = tool(p) ? tool(p)->kept.n : 0;
	/* bpftrace detaches its probes before it prints its maps: a detach that outlived the
	 * wait lost the count, which is not a method that did not fire */
	if (p->t->child.killed) {
		snprintf(
			why, size,
			"%s did not exit %d s after its SIGINT (%d s in state D allowed, %d s were) "
			"and was killed: the count it prints at exit was lost",
			p->ops->name, CHILD_EXIT_MS / 1000, CHILD_EXIT_IO_MS / 1000,
			p->t->child.io_ms / 1000);
		return -1;
	}
	return 0;
}

static void tool_teardown(struct probe *p)
{
	child_stop(&p->t->child);
	probe_priv_free(p);
}

static int tool_figures(struct probe *p, struct probe_figures *f)
{
	const struct tool *t = tool(p);

	if (!t || !t->fig.nprogs)
		return -1;
	f->run_cnt += t->fig.run_cnt;
	f->run_time_ns += t->fig.run_time_ns;
	f->nprogs += t->fig.nprogs;
	return 0;
}

/* the target's process: strace and perf trace need one */
static int traced_setup(struct probe *p, const char *prog, char *why, size_t size)
{
	if (p->t->pid <= 0) {
		snprintf(why, size, "no process to trace");
		return -1;
	}
	return tool_find(p, prog, why, size);
}

static int strace_setup(struct probe *p, char *why, size_t size)
{
	return traced_setup(p, "strace", why, size);
}

static int strace_on(struct probe *p, char *why, size_t size)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", p->t->pid);
	p->t->child.target = p->t->pid;
	return tool_run(p,
			(char *const[]){ tool(p)->path, "-q", "-o", "/dev/null", "-p", pid, NULL },
			child_target_traced, STRACE_READY_MS, "strace", why, size);
}

static int strace_off(struct probe *p)
{
	child_stop(&p->t->child);
	/* strace detaches when it exits */
	while (p->t->pid > 0 && pid_traced(p->t->pid))
		if (!run_nap(p->t->run, 20))
			return -1;
	return 0;
}

static int perf_setup(struct probe *p, char *why, size_t size)
{
	return traced_setup(p, "perf", why, size);
}

static int perf_on(struct probe *p, char *why, size_t size)
{
	char pid[16];

	snprintf(pid, sizeof(pid), "%d", p->t->pid);
	return tool_run(
		p, (char *const[]){ tool(p)->path, "trace", "-o", "/dev/null", "-p", pid, NULL },
		child_perf_ready, PERF_READY_MS, "perf trace", why, size);
}

/* the method's script, else the mode's */
static const char *script(const struct probe *p)
{
	return probe_tool(p)->script ?: p->t->script;
}

static int script_setup(struct probe *p, const char *prog, char *why, size_t size)
{
	if (tool_find(p, prog, why, size))
		return -1;
	if (!script(p) || access(script(p), R_OK)) {
		snprintf(why, size, "the script %s was not found (run from the project folder)",
			 script(p) ?: "of the method");
		return -1;
	}
	return 0;
}

static int bpftrace_setup(struct probe *p, char *why, size_t size)
{
	return script_setup(p, "bpftrace", why, size);
}

/*
 * the kernel probes a script names: its lines "tracepoint:...", "kprobe:...", ... (BEGIN and END
 * run in the tool itself), as tests/target/lib.sh bt_probes counts them; at least 1
 */
static int script_probes(const char *path)
{
	static const char *const kinds[] = { "tracepoint:", "kprobe:",	  "kretprobe:",
					     "uprobe:",	    "uretprobe:", "rawtracepoint:",
					     "fentry:",	    "fexit:" };
	char line[512];
	int n = 0, i;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		for (i = 0; i < (int)(sizeof(kinds) / sizeof(kinds[0])); i++)
			n += !strncmp(line, kinds[i], strlen(kinds[i]));
	if (f)
		fclose(f);
	return n ? n : 1;
}

static int bpftrace_on(struct probe *p, char *why, size_t size)
{
	tool(p)->kept = (struct kept_count){ .live = true };
	p->t->child.probes = script_probes(script(p));
	if (tool_run(p, (char *const[]){ tool(p)->path, "-f", "json", (char *)script(p), NULL },
		     child_bpftrace_ready, BPFTRACE_READY_MS, "bpftrace", why, size))
		return -1;
	/*
	 * a probe is listed once its program is set on its perf event, and fires once bpftrace
	 * enables the event, a step later: a settle before the phase (never inside it; no wall
	 * time under icount). Without it a 6.1 dt-kprobe phase in real time counted 0 of its 100
	 * sets once (make test, test 80): the fired check then prints no figure
	 */
	if (!run_nap(p->t->run, BPFTRACE_SETTLE_MS)) {
		snprintf(why, size, "interrupted");
		return -1;
	}
	return 0;
}

static int ply_setup(struct probe *p, char *why, size_t size)
{
	return script_setup(p, "ply", why, size);
}

/* ply says "ply: active" only with -d: its probes' perf events are open, the program on them */
static bool ply_ready(const struct child *c)
{
	return child_says(c, "ply: active") || child_perf_ready(c);
}

static int ply_on(struct probe *p, char *why, size_t size)
{
	tool(p)->kept = (struct kept_count){ .live = true };
	return tool_run(p, (char *const[]){ tool(p)->path, (char *)script(p), NULL }, ply_ready,
			PLY_READY_MS, "ply", why, size);
}

/* gpiolat --syscall-hist: ourselves, a second time */
static int self_setup(struct probe *p, char *why, size_t size)
{
	struct tool *t = tool_alloc(p, why, size);
	ssize_t n = t ? readlink("/proc/self/exe", t->path, sizeof(t->path) - 1) : -1;

	if (!t)
		return -1;
	if (n <= 0) {
		snprintf(why, size, "cannot find gpiolat itself: %s", strerror(errno));
		return -1;
	}
	t->path[n] = '\0';
	return 0;
}

static bool schist_ready(const struct child *c)
{
	return child_says(c, "Tracing syscalls");
}

static int self_on(struct probe *p, char *why, size_t size)
{
	return tool_run(p, (char *const[]){ tool(p)->path, "--syscall-hist", NULL }, schist_ready,
			SCHIST_READY_MS, "gpiolat --syscall-hist", why, size);
}

#define ANY (TGT_GPIO_PULSE | TGT_USER_PULSE | TGT_SYSCALLS)
const struct provider prov_strace = { .name = "strace",
				      .targets = TGT_USER_PULSE | TGT_SYSCALLS,
				      .setup = strace_setup,
				      .on = strace_on,
				      .off = strace_off,
				      .teardown = tool_teardown };
const struct provider prov_perf_trace = { .name = "perf trace",
					  .targets = TGT_USER_PULSE | TGT_SYSCALLS,
					  .setup = perf_setup,
					  .on = perf_on,
					  .off = tool_off,
					  .teardown = tool_teardown };
const struct provider prov_bpftrace = { .name = "bpftrace",
					.targets = ANY,
					.setup = bpftrace_setup,
					.on = bpftrace_on,
					.off = tool_off,
					.teardown = tool_teardown,
					.figures = tool_figures,
					.count = script_count,
					.counted_by = "its histogram's pulses (printed at exit)" };
const struct provider prov_ply = { .name = "ply",
				   .targets = ANY,
				   .setup = ply_setup,
				   .on = ply_on,
				   .off = tool_off,
				   .teardown = tool_teardown,
				   .count = script_count,
				   .counted_by = "its histogram's pulses (printed at exit)" };
const struct provider prov_self_schist = { .name = "gpiolat --syscall-hist",
					   .targets = ANY,
					   .setup = self_setup,
					   .on = self_on,
					   .off = tool_off,
					   .teardown = tool_teardown };
