// SPDX-License-Identifier: GPL-2.0
/* gpiolat: what --wakeup and --gaps share (loader/modes/rt/rt_int.h). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "core/btf_find.h"
#include "core/parse.h"
#include "core/cli.h"
#include "core/files.h"
#include "core/run.h"
#include "modes/rt/rt_int.h"
#include "core/sys.h"
#include "core/undo.h"

#define POLL_MS 20
#define CHILD_STOP_MS 2000

void rt_usage_error(struct argp_state *state, struct rt_env *env, const char *fmt, ...)
{
	char msg[512], see[64];
	va_list ap;

	(void)state;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(see, sizeof(see), "gpiolat --%s --help", env->mode);
	cli_usage(see, &env->usage_printed, "--%s: %s", env->mode, msg);
}

enum { OPT_RAW_TP = 0x300 };

static const struct argp_option common_opts[] = {
	{ "duration", 'd', "TIME", 0,
	  "stop after TIME (ns, us, ms, s: default, m); default: the end of --pulses or of "
	  "the command, or Ctrl-C",
	  10 },
	{ "pulses", 'p', "N", 0,
	  "let the idle toggle module issue exactly N pulses once attached, and wait for them",
	  10 },
	{ "raw-tp", OPT_RAW_TP, NULL, 0,
	  "raw tracepoints even where BTF-typed ones (tp_btf, the default) work", 10 },
	{ "help", 'h', NULL, 0, "show this help", 10 },
	{},
};

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct rt_env *env = state->input;
	long long n;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &env->common;
		break;
	case 'h':
		/* said; the parse ends here and the run with 0 (rt_parse) */
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat");
		env->help = true;
		return EINVAL;
	case 'd':
		if (parse_time(arg, NSEC_PER_SEC, &env->duration_ns) ||
		    env->duration_ns > CLI_TIME_MAX_NS) {
			rt_usage_error(state, env,
				       "bad duration '%s': want a positive time, at most a year",
				       arg);
			return EINVAL;
		}
		break;
	case 'p':
		if (parse_count(arg, 1, 1000000000LL, &n)) {
			rt_usage_error(state, env, "bad pulse count '%s': want 1 to 1000000000",
				       arg);
			return EINVAL;
		}
		env->pulses = n;
		break;
	case OPT_RAW_TP:
		env->raw_tp = true;
		break;
	case ARGP_KEY_ARGS:
		env->cmd = state->argv + state->next;
		break;
	case ARGP_KEY_END:
		if (env->cmd && env->pulses) {
			rt_usage_error(state, env, "--pulses and a command: one toggler at a time");
			return EINVAL;
		}
		/* a kernel without BTF (armmp): the one made for it, if there is one (--btf wins) */
		env->btf_path = btf_find(env->btf_path);
		break;
	case ARGP_KEY_ERROR:
		if (!env->usage_printed && !env->help) {
			int i = state->next > 0 ? state->next - 1 : 0;

			rt_usage_error(state, env, "unknown option or missing argument: '%s'",
				       i < state->argc ? state->argv[i] : "?");
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int rt_parse(struct run *r, const struct argp *argp, int argc, char **argv, void *input,
	     struct rt_env *env)
{
	/* the mode's options, its child the scheduling modes', theirs the shared ones */
	struct argp rt_argp = { .options = common_opts, .parser = common_parse };
	struct argp_child common[] = { { &rt_argp }, {} };
	struct argp root = *argp;

	snprintf(env->see, sizeof(env->see), "gpiolat --%s --help", env->mode);
	/* no --bpf-stats: the scheduling modes report no BPF run time */
	env->common = (struct cli_common){ &env->verbose, &env->json, &env->btf_path,	  NULL,
					   "docs/rt.md",  env->see,   &env->usage_printed };
	rt_argp.children = cli_common_children(&env->common, 10);
	root.children = common;
	if (argp_parse(&root, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, input))
		return env->help ? RUN_DONE : EXIT_USAGE;
	r->verbose = env->verbose;
	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: --%s: must run as root\n", env->mode);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* ---- the run: the steps of struct mode_ops for every scheduling mode --------------------- */

static int rt_parse_step(struct run *r, void *ctx, int argc, char **argv)
{
	struct rt_mode *m = ctx;

	return m->parse(r, m->ctx, argc, argv);
}

/* check the run's requests, fork the command (it waits), the mode's own preparation; its
 * object set up (opened, configured, loaded) */
static int rt_prepare_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;
	char why[WHY_SIZE];

	m->run.undo = &r->undo;
	if (rt_prepare(m->env, &m->run) || (m->prepared && m->prepared(m->ctx, &m->run)))
		return EXIT_ERROR;
	m->args->raw_tp = m->env->raw_tp;
	m->t = (struct target){ .kind = TGT_SCHED, .run = r, .btf_path = m->env->btf_path };
	m->a = (struct probe_args){ .sched = m->args };
	probe_init(&m->p, m->prov, &m->a, &m->t);
	if (probe_setup(&m->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: --%s: %s\n", m->env->mode, why);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

/* attached: tp_btf, else raw_tp */
static int rt_enable_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;
	char why[WHY_SIZE];

	(void)r;
	if (probe_on(&m->p, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: --%s: %s\n", m->env->mode, why);
		return EXIT_ERROR;
	}
	probe_figures(&m->p, &m->run.fig);
	return EXIT_OK;
}

static int rt_go_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;

	return rt_go(r, m->env, &m->run) ? EXIT_ERROR : EXIT_OK;
}

/* detach, then read the maps */
static int rt_collect_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;
	char why[WHY_SIZE];

	(void)r;
	probe_off(&m->p);
	if (probe_read(&m->p, m->out, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: --%s: %s\n", m->env->mode, why);
		return EXIT_ERROR;
	}
	return EXIT_OK;
}

static int rt_print_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;

	(void)r;
	m->print(m->ctx, &m->run, m->env->json);
	return EXIT_OK;
}

static void rt_undo_step(struct run *r, void *ctx)
{
	struct rt_mode *m = ctx;

	(void)r;
	probe_off(&m->p);
	rt_finish(&m->run);
	probe_teardown(&m->p);
}

int rt_main(struct rt_mode *m, int argc, char **argv)
{
	const struct mode_ops ops = {
		.name = m->env->mode,
		.parse = rt_parse_step,
		.prepare = rt_prepare_step,
		.enable = rt_enable_step,
		.go = rt_go_step,
		.collect = rt_collect_step,
		.print = rt_print_step,
		.undo = rt_undo_step,
	};
	struct run r;

	m->run.child_status = -1;
	m->run.child_fd = -1;
	m->run.seq0 = m->run.seq1 = -1;
	return run_mode(&r, &ops, m, argc, argv);
}

/* ---- the run -------------------------------------------------------------------------------- */

int rt_prepare(struct rt_env *env, struct rt_run *run)
{
	char path[512];
	int fd[2];

	if (env->pulses) {
		if (!toggle_present()) {
			fprintf(stderr,
				"gpiolat: --%s: --pulses needs the toggle module (no "
				"/sys/kernel/debug/toggle)\n",
				env->mode);
			return -1;
		}
		if (toggle_enabled() != 0) {
			fprintf(stderr,
				"gpiolat: --%s: --pulses: the toggle module is already "
				"toggling\n",
				env->mode);
			return -1;
		}
		run->toggle_used = true;
	}
	if (env->cmd &&
	    !(strchr(env->cmd[0], '/') ? !access(env->cmd[0], X_OK) :
					 sys_find_program(env->cmd[0], path, sizeof(path)))) {
		fprintf(stderr, "gpiolat: --%s: cannot run '%s': no such program\n", env->mode,
			env->cmd[0]);
		return -1;
	}
	if (!env->cmd)
		return 0;
	if (pipe(fd)) {
		fprintf(stderr, "gpiolat: --%s: pipe: %s\n", env->mode, strerror(errno));
		return -1;
	}
	run->child = fork();
	if (run->child < 0) {
		fprintf(stderr, "gpiolat: --%s: fork: %s\n", env->mode, strerror(errno));
		close(fd[0]);
		close(fd[1]);
		run->child = 0;
		return -1;
	}
	if (!run->child) {
		char go;

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		close(fd[1]);
		/* wait for the go: gpiolat attached (EOF: it gave up) */
		if (read(fd[0], &go, 1) != 1)
			_exit(126);
		close(fd[0]);
		/* --json: stdout is gpiolat's one JSON object; the command's output goes to stderr */
		if (env->json)
			dup2(STDERR_FILENO, STDOUT_FILENO);
		signal(SIGPIPE, SIG_DFL);
		execvp(env->cmd[0], env->cmd);
		fprintf(stderr, "gpiolat: --%s: cannot run '%s': %s\n", env->mode, env->cmd[0],
			strerror(errno));
		_exit(127);
	}
	/* a command may outlive us (PR_SET_PDEATHSIG's SIGTERM ignored): its kill pushed */
	if (undo_child(run->undo, run->child)) {
		kill(run->child, SIGKILL);
		waitpid(run->child, NULL, 0);
		run->child = 0;
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	close(fd[0]);
	run->child_fd = fd[1];
	return 0;
}

int rt_go(struct run *r, struct rt_env *env, struct rt_run *run)
{
	__u64 t0 = run_now_ns(), deadline = env->duration_ns ? t0 + env->duration_ns : 0;
	int err, status;

	if (run->toggle_used) {
		/* recorded on disk first: a SIGKILL would leave the module toggling */
		if (undo_toggle(&r->undo))
			return -1;
		run->seq0 = toggle_last_seq();
		err = toggle_start_pulses(env->pulses);
		if (err) {
			fprintf(stderr, "gpiolat: --%s: cannot start the toggle module: %s\n",
				env->mode, strerror(-err));
			return -1;
		}
	}
	if (run->child) {
		if (write(run->child_fd, "g", 1) != 1) {
			fprintf(stderr, "gpiolat: --%s: cannot start the command: %s\n", env->mode,
				strerror(errno));
			return -1;
		}
		close(run->child_fd);
		run->child_fd = -1;
	}
	while (!r->stop) {
		if (run->toggle_used && toggle_enabled() != 1)
			break;
		if (run->child && waitpid(run->child, &status, WNOHANG) == run->child) {
			run->child_status = status;
			undo_child_done(run->undo, run->child);
			run->child = 0;
			break;
		}
		if (deadline && run_now_ns() >= deadline) {
			run->timed_out = run->toggle_used || run->child;
			break;
		}
		run_nap(r, POLL_MS);
	}
	run->interrupted = r->stop;
	run->ran_ns = run_now_ns() - t0;
	if (run->toggle_used) {
		if (toggle_enabled() == 1)
			toggle_stop();
		run->seq1 = toggle_last_seq();
	}
	rt_finish(run);
	if (WIFEXITED(run->child_status) && WEXITSTATUS(run->child_status) == 127) {
		return -1; /* the child said why */
	}
	return 0;
}

void rt_finish(struct rt_run *run)
{
	int i, status;

	if (run->toggle_used && toggle_enabled() == 1)
		toggle_stop();
	if (run->child_fd >= 0) {
		close(run->child_fd); /* never started: it exits on EOF */
		run->child_fd = -1;
	}
	if (!run->child)
		return;
	kill(run->child, SIGTERM);
	for (i = 0; i < CHILD_STOP_MS / POLL_MS; i++) {
		if (waitpid(run->child, &status, WNOHANG) == run->child)
			break;
		run_nap(NULL, POLL_MS);
	}
	if (i == CHILD_STOP_MS / POLL_MS) {
		kill(run->child, SIGKILL);
		waitpid(run->child, &status, 0);
	}
	undo_child_done(run->undo, run->child);
	run->child = 0;
}

struct json_object *rt_run_json(const struct rt_env *env, const struct rt_run *run)
{
	struct json_object *o = json_object_new_object(), *a;
	int i;

	json_object_object_add(o, "hook",
			       json_object_new_string(run->fig.hook ? run->fig.hook : ""));
	json_object_object_add(o, "emulated", json_object_new_boolean(sys_emulated()));
	json_object_object_add(o, "duration_ns", json_object_new_uint64(run->ran_ns));
	json_object_object_add(o, "interrupted", json_object_new_boolean(run->interrupted));
	json_object_object_add(o, "timed_out", json_object_new_boolean(run->timed_out));
	a = NULL;
	if (env->cmd) {
		a = json_object_new_array();
		for (i = 0; env->cmd[i]; i++)
			json_object_array_add(a, json_object_new_string(env->cmd[i]));
	}
	json_object_object_add(o, "command", a);
	json_object_object_add(o, "command_exit",
			       env->cmd && WIFEXITED(run->child_status) ?
				       json_object_new_int(WEXITSTATUS(run->child_status)) :
				       NULL);
	a = NULL;
	if (run->toggle_used) {
		a = json_object_new_object();
		json_object_object_add(a, "pulses", json_object_new_uint64(env->pulses));
		json_object_object_add(a, "batches", json_object_new_int64(run->seq1 - run->seq0));
	}
	json_object_object_add(o, "toggle", a);
	return o;
}

void rt_run_text(FILE *f, const struct rt_env *env, const struct rt_run *run)
{
	fprintf(f, "%s, %.3f s%s%s%s\n", run->fig.hook, run->ran_ns / 1e9,
		sys_emulated() ? " (emulated target: not hardware timings)" : "",
		run->interrupted ? ", interrupted" : "",
		run->timed_out ? ", the duration ended it" : "");
	if (run->toggle_used)
		fprintf(f, "toggle module: %llu pulses in %lld batches\n",
			(unsigned long long)env->pulses, (long long)(run->seq1 - run->seq0));
	if (env->cmd && WIFEXITED(run->child_status))
		fprintf(f, "command %s: exit status %d\n", env->cmd[0],
			WEXITSTATUS(run->child_status));
	else if (env->cmd)
		fprintf(f, "command %s: stopped at the end\n", env->cmd[0]);
}
