// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --cleanup (cleanup.h): a mode with no steps of its own. run_mode() replays a killed
 * run's journal before any mode's prepare (core/run.c); this mode says what that did. What the
 * journal does not name is not ours to remove, whatever its name.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include "core/cli.h"
#include "core/run.h"
#include "core/sys.h"
#include "modes/cleanup/cleanup.h"

#define SEE "gpiolat --cleanup --help"

struct cleanup {
	bool done; /* --help said */
	bool usage_printed;
};

static const struct argp_option opts[] = {
	{ "cleanup", 0x200, NULL, 0,
	  "put back what a killed gpiolat left (as its undo journal in /run/gpiolat says) and exit",
	  0 },
	{ "verbose", 'v', NULL, 0, "accepted, for the other modes' sake", 0 },
	{ "help", 'h', NULL, 0, "show this help", 0 },
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct cleanup *c = state->input;

	switch (key) {
	case 'h':
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat --cleanup");
		c->done = true;
		return EINVAL;
	case 0x200:
	case 'v':
		break;
	case ARGP_KEY_ARG:
		cli_usage(SEE, &c->usage_printed, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_ERROR:
		if (!c->done)
			cli_key_error(state, SEE, &c->usage_printed);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int cleanup_parse(struct run *r, void *ctx, int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg };
	struct cleanup *c = ctx;
	int err;

	(void)r;
	err = argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, c);
	if (c->done)
		return RUN_DONE;
	return err ? EXIT_USAGE : EXIT_OK;
}

/* the replay ran before this step (run_mode()): say what it did */
static int cleanup_prepare(struct run *r, void *ctx)
{
	(void)ctx;
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root\n");
		return EXIT_ERROR;
	}
	printf("gpiolat: %s\n",
	       r->undone ? "removed the leftovers of an earlier run" : "nothing to clean up");
	return RUN_DONE;
}

static const struct mode_ops cleanup_ops = {
	.name = "cleanup",
	.replay_only = true,
	.parse = cleanup_parse,
	.prepare = cleanup_prepare,
};

bool cleanup_wanted(int argc, char **argv)
{
	return cli_wanted(argc, argv, "--cleanup");
}

int cleanup_main(int argc, char **argv)
{
	struct cleanup c = {};
	struct run run;

	return run_mode(&run, &cleanup_ops, &c, argc, argv);
}
