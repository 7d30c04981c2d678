// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the front end. One table of modes, each with the test of the command line that
 * selects it (its flags) and the function that runs it with the whole command line (its own
 * options: gpiolat --MODE --help); the first mode selected runs, else the histogram mode
 * (docs/loader.md).
 */
#include <stdbool.h>
#include <string.h>
#include <json-c/json.h>
#include "core/cli.h"
#include "modes/cleanup/cleanup.h"
#include "modes/histogram/histo.h"
#include "modes/overhead/overhead.h"
#include "modes/path/path.h"
#include "modes/syscall/syscall_cost.h"
#include "modes/rt/gaps.h"
#include "modes/rt/wakeup.h"

struct mode {
	const char *name;
	/* does the command line ask for it? NULL: the default mode */
	bool (*wanted)(int argc, char **argv);
	/* run it with the whole command line; the exit status */
	int (*run)(int argc, char **argv);
};

static const struct mode modes[] = {
	{ "syscall cost, syscall histogram, empty raw_tp", syscall_cost_wanted, syscall_cost_main },
	/* what a killed run left, as its undo journal says (before --overhead: --overhead --cleanup
	 * is its usage error) */
	{ "cleanup", cleanup_wanted, cleanup_main },
	{ "overhead", overhead_wanted, overhead_main },
	/* scheduling: loader/modes/rt/wakeup.c, loader/modes/rt/gaps.c (docs/rt.md) */
	{ "wakeup latency", wakeup_wanted, wakeup_main },
	{ "gaps", gaps_wanted, gaps_main },
	/* the GPIO path decomposed: loader/modes/path/path.c (docs/gpio-path.md) */
	{ "gpio path", path_wanted, path_main },
	/* last: the default; --self-test is one of its options */
	{ "histogram, self-test", NULL, histo_main },
};

int main(int argc, char **argv)
{
	size_t i;

	/* a closed stdout or stderr must not become the first file we open */
	if (cli_stdio_open())
		return EXIT_ERROR;
	/* JSON numbers: 0.1 ns is finer than any figure here (a mode may want more digits) */
	json_c_set_serialization_double_format("%.1f", JSON_C_OPTION_GLOBAL);
	for (i = 0; modes[i].wanted; i++)
		if (modes[i].wanted(argc, argv))
			break;
	/* every write of the results checked once, here: a lost result is a failed run */
	return cli_output_done(modes[i].run(argc, argv));
}
