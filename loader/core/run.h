/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the run context (loader/core/run.c). One struct run per gpiolat process, handed by
 * pointer to every part of the mode that runs: its stop flag, its verbosity, the signals and
 * libbpf's messages, the BPF run-time statistics. The modes keep no globals; the one
 * file-scope variable is run.c's pointer to the one run, which a signal handler and libbpf's
 * print callback need (neither gets an argument).
 *
 * Every mode is a table of named steps (struct mode_ops, rtla's tool_ops habit) driven by one
 * run sequence, run_mode(): parse, prepare, enable, go, collect, print, and undo on every way out.
 */
#ifndef GPIOLAT_RUN_H
#define GPIOLAT_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <linux/types.h>
#include "core/undo.h"

struct btf;

struct run {
	/* set only by the signal handler (SIGINT, SIGTERM, SIGHUP); read by every loop */
	volatile sig_atomic_t stop;
	const char *mode; /* "overhead", "wakeup", ...: "gpiolat --MODE: ..." messages */
	bool verbose; /* -v: libbpf's messages and the mode's own */
	int stats_fd; /* BPF_ENABLE_STATS for the whole run, or -1 */
	bool undone; /* run_mode() replayed what a killed run left (undo_replay()) */
	struct undo undo; /* what the run took, to put back (core/undo.h) */
	struct btf *kernel_btf; /* the kernel's BTF, parsed at its first use (run_btf), or NULL */
};

/* the run of MODE: stop clear, quiet, no stats; the one run signals reach */
void run_init(struct run *r, const char *mode);
/* SIGINT, SIGTERM and SIGHUP set r->stop (nothing else); SIGPIPE ignored (cli_signals) */
void run_signals(struct run *r);
/* libbpf's messages on stderr only when r->verbose (read at each message) */
void run_libbpf_print(struct run *r);
/* BPF_ENABLE_STATS for the rest of the run (r->stats_fd); 0, or -1 and errno */
int run_bpf_stats(struct run *r);
/*
 * BTF for the run: the file given (CUSTOM, --btf: the caller's, a parse of its own), or the
 * kernel's, parsed once a run and kept in R (a --self-test parsed /sys/kernel/btf/vmlinux 16
 * times: 5 MB each, a page a read()); NULL and why. R NULL: a parse of its own either way
 */
struct btf *run_btf(struct run *r, const char *custom, char *why, size_t size);
/* BTF from run_btf given back (the run's kernel BTF stays for the run) */
void run_btf_put(const struct run *r, struct btf *btf);
/* on every way out: the stats fd closed, the kernel's BTF freed */
void run_finish(struct run *r);
/* CLOCK_MONOTONIC in ns: the clock of every deadline and elapsed time of a run */
__u64 run_now_ns(void);
/* the sleep of every mode: up to MS, cut short by a signal (EINTR is a normal way out); false
 * when r->stop (R NULL: a wait that no stop ends, e.g. for a child to exit) */
bool run_nap(const struct run *r, int ms);

/*
 * A mode: its steps, each with the mode's own context CTX. A NULL step means nothing to do.
 * parse: the command line into CTX; EXIT_OK to go on, else the exit status (usage: EXIT_USAGE,
 * --help: a negative value meaning "exit 0 now"). prepare: check the system and acquire what the
 * run needs (each thing pushed on r->undo before it is taken: core/undo.h). enable:
 * attach, switch on. go: measure until done or r->stop. collect: detach, read. print: the
 * report. undo: every way out, also after a failed step: what r->undo cannot do (a child
 * stopped gently, memory freed); run_mode() then replays r->undo.
 */
/* a step's "nothing more to do": the run ends there (undo still runs), exit status EXIT_OK */
#define RUN_DONE (-1)

struct mode_ops {
	const char *name;
	bool replay_only; /* the mode is the replay: says what it did (r->undone); a journal it cannot replay is its error */
	int (*parse)(struct run *r, void *ctx, int argc, char **argv);
	int (*prepare)(struct run *r, void *ctx);
	int (*enable)(struct run *r, void *ctx);
	int (*go)(struct run *r, void *ctx);
	int (*collect)(struct run *r, void *ctx);
	int (*print)(struct run *r, void *ctx);
	void (*undo)(struct run *r, void *ctx);
};

/*
 * the one run sequence on R (the caller's, e.g. on its stack; run_init()ed here): parse; as
 * root, a killed run's journal replayed (r->undone); prepare, enable, go, collect, print,
 * stopping at the first step that fails (a step returns 0, RUN_DONE, or an exit status:
 * EXIT_ERROR); undo; r->undo replayed; run_finish(). The exit status: EXIT_OK, the failed
 * step's, or parse's; EXIT_ERROR when the system could not be put back.
 */
int run_mode(struct run *r, const struct mode_ops *ops, void *ctx, int argc, char **argv);

#endif /* GPIOLAT_RUN_H */
