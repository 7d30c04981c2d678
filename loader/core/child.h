/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: a child process (bpftrace, ply, strace, perf trace, gpiolat --syscall-hist), one
 * policy for every mode: its stdout and stderr in a file of its own (mkostemp, 0600, removed
 * when it is stopped); it goes with us even after a SIGKILL (PR_SET_PDEATHSIG, SIGINT: it
 * detaches its probes itself); Ctrl-C does not reach it (its own process group), we stop it:
 * SIGINT, and SIGKILL when it has not gone within 10 s. Readiness is a predicate on it.
 */
#ifndef GPIOLAT_CHILD_H
#define GPIOLAT_CHILD_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>

struct undo;

struct child {
	pid_t pid; /* 0: none */
	pid_t target; /* the process it traces (strace, perf trace -p), for the predicates */
	char out[64]; /* its output file, "" when none */
	int probes; /* the kernel probes it attaches (child_bpftrace_ready), 0: at least one */
	struct undo *undo; /* the run's: its kill pushed while it runs */
	bool killed; /* since its start: its end was a SIGKILL, its exit's wait run out */
	int io_ms; /* at its end: the ms of the wait for its exit it spent in state D */
};

/* how a tool that did not get ready is told: "NAME DIED: its first line", "NAME LATE N s" */
struct child_words {
	const char *died, *late;
};

/* start ARGV (an absolute path first), its kill pushed on U; 0, or -1 and why */
int child_start(struct child *c, struct undo *u, char *const argv[], char *why, size_t size);
/*
 * until READY(c) (then 50 ms more for the last probes of the set), at most TIMEOUT_MS, while
 * *STOP is not set; 0, or -1 and why (stopped again when it did not get ready). The time the
 * child waits on I/O (state D) counts apart, at most CHILD_IO_WAIT_MS: under icount a guest
 * idle on the host's I/O sees its clock jump to each poll (child.c).
 */
#define CHILD_IO_WAIT_MS 600000
int child_wait(struct child *c, bool (*ready)(const struct child *c), int timeout_ms,
	       const char *name, const struct child_words *w, const volatile sig_atomic_t *stop,
	       char *why, size_t size);
/* the wait for a child's exit after its SIGINT, before its SIGKILL: CHILD_EXIT_MS, the polls
 * while it is in state D counted apart, at most CHILD_EXIT_IO_MS of them (child_end) */
#define CHILD_EXIT_MS 10000
#define CHILD_EXIT_IO_MS 120000
/* SIGINT, SIGKILL when it has not exited within those bounds; its output file removed */
void child_stop(struct child *c);
/* SIGINT, SIGKILL when it has not exited within those bounds; its output kept (child_stop
 * removes it) */
void child_end(struct child *c);
/* the numbers after WORD in its output, summed: the first of a line, or EVERY one; *FOUND: how many */
__u64 child_sum_after(const struct child *c, const char *word, bool every, int *found);

/* the readiness predicates */
bool child_says(const struct child *c, const char *word); /* its output has WORD */
int child_fds(const struct child *c, const char *link); /* its fds that are LINK */
bool child_target_traced(const struct child *c); /* ptrace: the target's TracerPid */
bool child_perf_ready(const struct child *c); /* it holds a perf_event fd */
bool child_bpftrace_ready(const struct child *c); /* c->probes BPF probes in (the kernel's) */
/* its fds with a BPF program on a kernel probe (BPF_TASK_FD_QUERY, as bpftool perf show) */
int child_bpf_probes(const struct child *c);
/* is PID traced (its TracerPid)? */
bool pid_traced(pid_t pid);
/* the BPF program ids it holds (/proc/PID/fdinfo); how many */
int child_prog_ids(const struct child *c, __u32 *ids, int max);

#endif /* GPIOLAT_CHILD_H */
