/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: what every mode's command line shares (loader/core/cli.c): the exit statuses, the one
 * line a bad usage gets, getopt's own errors said in that line, the times of -d and -i.
 */
#ifndef GPIOLAT_CLI_H
#define GPIOLAT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <linux/types.h>

#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

/*
 * The options modes share (-v, --json, --btf, --bpf-stats), parsed by one argp child: a mode's
 * struct argp takes cli_common_children() as its children. The mode says where each result goes:
 * a NULL pointer is an option the mode does not have (absent from its --help, unknown to its
 * parse). The mode's parser hands C on at ARGP_KEY_INIT: state->child_inputs[0] = C.
 */
struct cli_common {
	bool *verbose; /* -v: libbpf's messages (and the verifier's) */
	bool *json; /* --json */
	const char **btf; /* --btf FILE: a regular file (file_arg_check) */
	bool *bpf_stats; /* --bpf-stats: BPF_ENABLE_STATS for the run */
	const char *json_doc; /* where the mode's JSON is described (--json's help), or NULL */
	const char *see; /* a bad --btf: "gpiolat: WHY (see SEE)", once (*usage_printed) */
	bool *usage_printed;
	/* the child's own: its options (help group GROUP), its argp, the list that holds it */
	struct argp_option opts[5];
	char json_help[64];
	struct argp argp;
	struct argp_child children[2];
};
/*
 * the children list of a mode's struct argp: C's argp child, the options C has a place for,
 * in help group GROUP (sorted among the mode's own of that group)
 */
const struct argp_child *cli_common_children(struct cli_common *c, int group);

/* "gpiolat: MESSAGE (see SEE)" on stderr, once per bad usage: *printed set */
void cli_usage(const char *see, bool *printed, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* is OPT (a mode's flag, "--overhead") among the options? Options end at "--": what follows
 * is a command's (gpiolat --wakeup -- ./app --overhead runs the wakeup mode) */
bool cli_wanted(int argc, char **argv, const char *opt);
/* ARGP_KEY_ERROR under ARGP_NO_ERRS: getopt said nothing; say it once, in one line */
void cli_key_error(const struct argp_state *state, const char *see, bool *printed);
/*
 * Ctrl-C, kill and a hangup (a closed terminal or ssh session) only call HANDLER (which sets a
 * flag): the run ends on its one path that puts everything back. SIGPIPE is ignored: a closed
 * output (gpiolat -i 1s | head) or a child that died shows as a failed write, not as our death.
 */
void cli_signals(void (*handler)(int));
/*
 * Before anything is opened: stdin and stderr, when closed, get /dev/null (no file we open may
 * become them); a closed stdout is refused in one line (the results would be lost, or written
 * into the first file we opened). 0, or -1 said.
 */
int cli_stdio_open(void);
/*
 * After the run: every write to stdout checked at once (fflush, ferror, fclose). RC, or when a
 * write failed (a full disk, a closed pipe, /dev/full), one line and RC or EXIT_ERROR.
 */
int cli_output_done(int rc);
/*
 * A duration or interval is at most a year: the run adds it to the monotonic clock (a deadline,
 * the next interval), and a sum that wrapped would end the run at once
 */
#define CLI_TIME_MAX_NS (365ULL * 24 * 3600 * 1000000000ULL)
/* WHAT ("duration", "interval") given as TIME (parse_time, seconds by default, at most
 * CLI_TIME_MAX_NS); 0, or -1 said */
int cli_time(const char *what, const char *arg, __u64 *ns, const char *see, bool *printed);

#endif /* GPIOLAT_CLI_H */
