/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --path, inside: the GPIO path decomposed, the talk's "Measuring gpio latencies" tables
 * filled in on this system (docs/gpio-path.md). Its entry is path.h (for main.c); its parts
 * share this header, and none of them reaches up to path.c. path.c runs the togglers,
 * path_opts.c parses the options, path_sys.c spawns and reads, path_out.c prints the tables, JSON
 * and CSV.
 */
#ifndef GPIOLAT_PATH_INT_H
#define GPIOLAT_PATH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include "core/cli.h"
#include "core/sys.h"

struct undo;

enum path_row { P_RAW, P_SUBSYS, P_IOCTL, P_LIBGPIOD, P_SYSFS, P_MMAP, P_SH, P_BASH, P_NROWS };

#define PATH_MAX_REPS 100

struct path_row_res {
	const char *var; /* t_raw ... */
	const char *what; /* the toggler */
	const char *clock; /* how it is timed */
	bool avail;
	char why[WHY_SIZE]; /* !avail: why not */
	int n; /* repetitions */
	double ns[PATH_MAX_REPS]; /* ns per set, one a repetition */
	long long sets; /* sets per repetition */
	/* the cross-check: own clock and gpio:gpio_value timestamps, ns per set, one phase */
	bool xc;
	double xc_own, xc_trace;
	char xc_why[WHY_SIZE];
};

struct path_run {
	struct path_row_res row[P_NROWS];
	char chip[64];
	int kline, uline; /* the module's line, the user togglers' line */
	unsigned int kgpio, ugpio;
	long burst;
	const char *bash_row; /* "t_bash": bash, or sh when there is no bash */
	bool emulated;
	int reps;
};

enum path_fmt { PATH_TEXT, PATH_JSON, PATH_CSV };

/* the options: gpiolat --path --help */
struct path_opts {
	int reps;
	long long pulses; /* kernel and C togglers, per phase */
	long long sh_pulses; /* a shell run */
	int uline; /* -1: the module's line + 1 */
	bool no_xc;
	bool bad; /* a usage error was printed */
	bool help; /* --help said: nothing to run */
	unsigned int only; /* rows asked for by --only (bit per row); 0: all */
	enum path_fmt fmt;
	bool json; /* --json given after any --csv (path_parse: fmt) */
	struct cli_common common; /* --json, the one shared option --path has */
};

/* loader/modes/path/path_opts.c: O from the command line (O's defaults set by the caller);
 * EXIT_OK, 64 after one error line, or RUN_DONE after --help */
int path_parse(struct path_opts *o, int argc, char **argv);

/* loader/modes/path/path_sys.c: the first line of path, no newline; 0 or -1 */
int path_read_line(const char *path, char *buf, size_t size);
/* where the togglers are: $GPIOLAT_BINDIR, SELF (gpiolat's folder), or SELF/../bin */
void path_bindir(char *bindir, size_t size, const char *self);
/*
 * run argv, stdout and stderr into out, and in *elapsed the wall time from its first output line
 * (from the fork when it prints none) to its exit (its kill on U while it runs); the exit
 * status, or -1
 */
int path_spawn(struct undo *u, char *const argv[], char *out, size_t size, long long *elapsed);
/* the last non-empty line of out, as a why */
void path_last_line(const char *out, char *why);
/* the module in mode=continuous burst=1000, reloaded when it is not and can be; 0 or -1 */
int path_module_mode(struct undo *u);

/* loader/modes/path/path_out.c */
void path_print(const struct path_run *r, enum path_fmt fmt);

#endif /* GPIOLAT_PATH_INT_H */
