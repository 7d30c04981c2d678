// SPDX-License-Identifier: GPL-2.0
/* gpiolat --path: its options (path.h), parsed into a struct path_opts. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cli.h"
#include "core/files.h"
#include "core/kmod_reload.h"
#include "core/parse.h"
#include "core/run.h"
#include "modes/path/path_int.h"

static const struct argp_option opts[] = {
	{ "path", 0x200, NULL, 0, "the GPIO path decomposed (this mode)", 0 },
	{ "reps", 'r', "N", 0, "repetitions of every toggler, 2 to 100 (default 10)", 0 },
	{ "pulses", 'p', "N", 0, "pulses per phase of the kernel and C togglers (default 20000)",
	  0 },
	{ "shell-pulses", 's', "N", 0, "pulses of a shell run (default 500)", 0 },
	{ "user-line", 0x205, "OFFSET", 0,
	  "line of the module's chip for the user-space togglers (default: the module's + 1)", 0 },
	{ "only", 'o', "LIST", 0,
	  "these togglers only, each must run: raw,subsys,ioctl,libgpiod,sysfs,mmap,sh,bash", 0 },
	{ "no-cross-check", 0x201, NULL, 0, "skip the gpio:gpio_value cross-check", 0 },
	{ "kmod", 0x204, "FILE", 0,
	  "the toggle.ko to reload with mode=continuous burst=1000 (default $GPIOLAT_KMOD)", 0 },
	{ "csv", 0x203, NULL, 0, "CSV on stdout", 0 },
	{ "help", 'h', NULL, 0, "show this help", 0 },
	{},
};

static const char *const row_names[P_NROWS] = { "raw",	 "subsys", "ioctl", "libgpiod",
						"sysfs", "mmap",   "sh",    "bash" };

static void usage_error(struct path_opts *o, const char *what, const char *arg)
{
	if (!o->bad)
		fprintf(stderr, "gpiolat: --path: %s '%s' (see gpiolat --path --help)\n", what,
			arg);
	o->bad = true;
}

static int only_parse(struct path_opts *o, char *arg)
{
	char *t, *save = NULL;
	int i;

	for (t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < P_NROWS && strcmp(t, row_names[i]); i++)
			;
		if (i == P_NROWS) {
			usage_error(o, "--only: unknown toggler", t);
			return EINVAL;
		}
		o->only |= 1u << i;
	}
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct path_opts *o = st->input;
	long long v;

	switch (key) {
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &o->common;
		break;
	case 'h':
		argp_help(st->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat --path");
		/* said: the parse ends here, the run with 0 (path_parse) */
		o->help = true;
		return EINVAL;
	case 'o':
		return only_parse(o, arg);
	case ARGP_KEY_ERROR:
		if (o->help)
			break;
		usage_error(o, "unknown option or missing argument:",
			    st->argv[st->next > 0 ? st->next - 1 : 0]);
		break;
	case 0x200:
		break;
	case 'r':
		if (parse_count(arg, 2, PATH_MAX_REPS, &v))
			return usage_error(o, "--reps: want 2 to 100, got", arg), EINVAL;
		o->reps = v;
		break;
	case 'p':
		if (parse_count(arg, 100, 10000000, &v))
			return usage_error(o, "--pulses: want 100 to 10000000, got", arg), EINVAL;
		o->pulses = v;
		break;
	case 's':
		if (parse_count(arg, 10, 1000000, &v))
			return usage_error(o, "--shell-pulses: want 10 to 1000000, got", arg),
			       EINVAL;
		o->sh_pulses = v;
		break;
	case 0x205:
		if (parse_count(arg, 0, 1023, &v))
			return usage_error(o, "--user-line: want an offset 0 to 1023, got", arg),
			       EINVAL;
		o->uline = v;
		break;
	case 0x201:
		o->no_xc = true;
		break;
	case 0x203:
		/* the last of --csv and --json wins */
		o->fmt = PATH_CSV;
		o->json = false;
		break;
	case 0x204: {
		char why[PATH_MAX + 80];

		if (file_arg_check("--kmod", arg, why, sizeof(why))) {
			if (!o->bad)
				fprintf(stderr, "gpiolat: --path: %s (see gpiolat --path --help)\n",
					why);
			o->bad = true;
			return EINVAL;
		}
		if (kmod_set_file(arg))
			return ENOMEM;
		break;
	}
	case ARGP_KEY_ARG:
		usage_error(o, "unexpected argument", arg);
		return EINVAL;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int path_parse(struct path_opts *o, int argc, char **argv)
{
	struct argp argp = { opts, parse_opt, NULL,
			     "The GPIO path decomposed: t_raw ... t_bash and their differences "
			     "(docs/gpio-path.md)" };
	int err;

	o->common = (struct cli_common){ .json = &o->json, .json_doc = "docs/gpio-path.md" };
	argp.children = cli_common_children(&o->common, 0);
	err = argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, o);
	if (o->json)
		o->fmt = PATH_JSON;

	if (o->help)
		return RUN_DONE;
	if (err || o->bad) {
		if (!o->bad)
			fprintf(stderr, "gpiolat: --path: bad command line\n");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}
