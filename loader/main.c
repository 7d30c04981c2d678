// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: in-kernel pulse-width histograms of GPIO lines, and what the tracing costs.
 *
 * One fixed path: parse, check what the kernel offers, open, configure, load, (untraced phase),
 * attach, run, detach, (untraced phase), print; one cleanup label on every way out.
 */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h"
#include "gpiolat.skel.h"
#include "hist.h"
#include "parse.h"
#include "sys.h"
#include "syscall_cost.h"
#include "overhead.h"

#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2

#define MAX_SPECS 64
#define MAX_BATCHES 4096
#define POLL_MS 20
/* -i: intervals stay well above the poll period, so that each is about as long as asked */
#define MIN_INTERVAL_NS (100 * 1000000ULL)
#define FREE_PHASE_NS (500 * 1000000ULL) /* an untraced phase of a free-running toggler */
#define DEFAULT_UNTRACED_MAX 2000

enum method {
	METHOD_TRACEPOINT,
	METHOD_KPROBE,
	METHOD_FENTRY,
	METHOD_MAX,
};

static const struct {
	const char *name, *hook, *prog, *baseline;
} methods[METHOD_MAX] = {
	[METHOD_TRACEPOINT] = { "tracepoint", "tp/gpio/gpio_value", "gpiolat_tp", "event" },
	[METHOD_KPROBE] = { "kprobe", "kprobe/gpiod_set_value", "gpiolat_kprobe", "kprobe" },
	[METHOD_FENTRY] = { "fentry", "fentry/gpiod_set_value", "gpiolat_fentry", NULL },
};

enum output {
	OUT_TEXT,
	OUT_JSON,
	OUT_CSV,
};

struct env {
	enum method method;
	const char *specs[MAX_SPECS];
	int nspecs;
	__u64 duration_ns;
	__u64 interval_ns;
	__u64 lin_width;
	enum unit unit;
	enum output out;
	bool verbose;
	const char *btf_path;
	bool self_test;
	__u64 pulses; /* 0: do not drive the toggle module */
	bool no_toggle; /* never start an idle toggle module for the run */
	long long untraced; /* pulses per untraced phase; -1: the default */
	bool usage_printed;
};

/* a selected line */
struct line_sel {
	__u32 gpio;
	char chip[64];
	int offset;
};

/* what the run measured besides the histograms */
struct run_info {
	struct timespec start, end;
	bool toggle, toggle_gpio_ok;
	__u32 toggle_gpio;
	__u64 rising0, falling0, rising1, falling1;
	bool edges_ok;
	struct stat_acc traced, untraced;
	__u64 traced_pulses, untraced_pulses;
	bool shift_wanted;
	bool drive; /* the module was idle: gpiolat lets it toggle for the run */
	int stats_fd;
	__u64 drops;
	bool timed_out;
};

static volatile sig_atomic_t exiting;
static bool verbose;

const char *argp_program_version = "gpiolat 0.1";
static const char doc[] =
	"gpiolat: pulse widths of GPIO lines, histogrammed in the kernel with eBPF, and what "
	"the tracing costs.\n"
	"\n"
	"A set to 1 of a line starts a pulse, the next set to 0 ends it; the time between goes "
	"into a log2 histogram (and a linear one with --linear) of that line.\n"
	"\n"
	"EXAMPLES:\n"
	"  gpiolat -d 10s                 all lines, 10 seconds, via gpio:gpio_value\n"
	"  gpiolat --kprobe -l toggle-vchip:0 -i 1s   one line, per-second histograms\n"
	"  gpiolat --pulses 1000 --json   drive the toggle module: exactly 1000 pulses\n"
	"  gpiolat --self-test            which hooks work here, and why not\n"
	"\n"
	"TIME is a number with an optional unit: ns, us, ms, s (the default for -d/-i), m. "
	"WIDTH likewise, in ns by default.\n"
	"\n"
	"EXIT STATUS: 0 done (--self-test: the default method can run), 1 error (the kernel "
	"lacks what is needed, loading or attaching failed, not root), 2 bad usage.\n"
	"\n"
	"OPTIONS:";

enum {
	OPT_TRACEPOINT = 0x100,
	OPT_KPROBE,
	OPT_FENTRY,
	OPT_LINEAR,
	OPT_JSON,
	OPT_CSV,
	OPT_BTF,
	OPT_SELF_TEST,
	OPT_PULSES,
	OPT_NO_TOGGLE,
	OPT_UNTRACED,
	OPT_USAGE,
	OPT_SYSCALL_COST,
};

static const struct argp_option opts[] = {
	{ NULL, 0, NULL, 0, "Hook:", 1 },
	{ "tracepoint", OPT_TRACEPOINT, NULL, 0, "the gpio:gpio_value trace event (default)", 1 },
	{ "kprobe", OPT_KPROBE, NULL, 0, "a kprobe on gpiod_set_value()", 1 },
	{ "fentry", OPT_FENTRY, NULL, 0, "fentry on gpiod_set_value() (BPF trampoline)", 1 },
	{ NULL, 0, NULL, 0, "What and how long:", 2 },
	{ "line", 'l', "LINE", 0,
	  "only this line: a GPIO number, CHIPLABEL:OFFSET or gpiochipN:OFFSET (repeatable; "
	  "default: all lines)",
	  2 },
	{ "duration", 'd', "TIME", 0, "stop after TIME (default: Ctrl-C, or the end of --pulses)",
	  2 },
	{ "interval", 'i', "TIME", 0, "print the histograms of each interval of TIME", 2 },
	{ "pulses", OPT_PULSES, "N", 0,
	  "with the toggle module: issue exactly N pulses after attaching, wait for them, stop",
	  2 },
	{ "no-toggle", OPT_NO_TOGGLE, NULL, 0,
	  "do not let an idle toggle module toggle for the run (only watch the lines)", 2 },
	{ "untraced", OPT_UNTRACED, "N", 0,
	  "pulses of each untraced phase before attach and after detach (default: --pulses, at "
	  "most 2000; 0: none)",
	  2 },
	{ NULL, 0, NULL, 0, "Output:", 3 },
	{ "linear", OPT_LINEAR, "WIDTH", 0,
	  "also linear buckets of WIDTH (100 buckets and an overflow bucket)", 3 },
	{ "nanoseconds", 'n', NULL, 0, "print times in ns (default)", 3 },
	{ "microseconds", 'u', NULL, 0, "print times in us", 3 },
	{ "json", OPT_JSON, NULL, 0, "JSON (docs/output-format.md)", 3 },
	{ "csv", OPT_CSV, NULL, 0, "#-commented blocks that gnuplot reads", 3 },
	{ NULL, 0, NULL, 0, "Other:", 4 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "BTF of the kernel, for kernels without /sys/kernel/btf/vmlinux", 4 },
	{ "self-test", OPT_SELF_TEST, NULL, 0, "report which hooks and facilities work here", 4 },
	{ "verbose", 'v', NULL, 0, "libbpf's debug messages (and the verifier's)", 4 },
	{ "help", 'h', NULL, 0, "show this help", 4 },
	{ "usage", OPT_USAGE, NULL, 0, "show a short usage message", 4 },
	{ "version", 'V', NULL, 0, "show the version", 4 },
	{ "syscall-cost", OPT_SYSCALL_COST, NULL, 0,
	  "what each tracing method adds to a syscall, natively (gpiolat --syscall-cost --help)",
	  5 },
	{ "overhead", 0x1ff, NULL, 0,
	  "what each tracing method adds to a GPIO set (gpiolat --overhead --help); --cleanup "
	  "removes what an interrupted run left",
	  5 },
	{},
};

static void usage_error(struct argp_state *state, const char *fmt, ...)
{
	struct env *env = state->input;
	va_list ap;

	fprintf(stderr, "gpiolat: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see gpiolat --help)\n");
	env->usage_printed = true;
}

/* N, or NAME:N with a non-empty NAME */
static bool line_spec_ok(const char *s)
{
	const char *c = strrchr(s, ':'), *d = c ? c + 1 : s;

	if (c == s || !*d)
		return false;
	return strspn(d, "0123456789") == strlen(d);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct env *env = state->input;
	long long n;

	switch (key) {
	case 'h':
		/* ARGP_NO_ERRS silences argp's own --help too: ours, with ARGP_NO_HELP */
		argp_help(state->root_argp, stdout, ARGP_HELP_STD_HELP, "gpiolat");
		exit(EXIT_OK);
	case OPT_USAGE:
		argp_help(state->root_argp, stdout, ARGP_HELP_USAGE, "gpiolat");
		exit(EXIT_OK);
	case 'V':
		printf("%s\n", argp_program_version);
		exit(EXIT_OK);
	case OPT_TRACEPOINT:
		env->method = METHOD_TRACEPOINT;
		break;
	case OPT_KPROBE:
		env->method = METHOD_KPROBE;
		break;
	case OPT_FENTRY:
		env->method = METHOD_FENTRY;
		break;
	case 'l':
		if (env->nspecs == MAX_SPECS) {
			usage_error(state, "too many lines (at most %d)", MAX_SPECS);
			return EINVAL;
		}
		if (!line_spec_ok(arg)) {
			usage_error(state,
				    "bad line '%s': want a number, CHIPLABEL:OFFSET or "
				    "gpiochipN:OFFSET",
				    arg);
			return EINVAL;
		}
		env->specs[env->nspecs++] = arg;
		break;
	case 'd':
		if (parse_time(arg, NSEC_PER_SEC, &env->duration_ns)) {
			usage_error(state,
				    "bad duration '%s': want a positive number with an "
				    "optional unit (ns, us, ms, s, m)",
				    arg);
			return EINVAL;
		}
		break;
	case 'i':
		if (parse_time(arg, NSEC_PER_SEC, &env->interval_ns)) {
			usage_error(state,
				    "bad interval '%s': want a positive number with an "
				    "optional unit (ns, us, ms, s, m)",
				    arg);
			return EINVAL;
		}
		if (env->interval_ns < MIN_INTERVAL_NS) {
			usage_error(state, "interval '%s' too short: want at least 100ms", arg);
			return EINVAL;
		}
		break;
	case OPT_LINEAR:
		/*
		 * 100 buckets must stay below 2^32 ns for the BPF side's divide-free index;
		 * divided, not multiplied, so that a huge WIDTH cannot wrap past the check
		 */
		if (parse_time(arg, 1, &env->lin_width) ||
		    env->lin_width > GPIOLAT_LINEAR_WIDTH_MAX) {
			usage_error(state, "bad linear bucket width '%s': want 1ns to 42ms", arg);
			return EINVAL;
		}
		break;
	case 'n':
		env->unit = UNIT_NS;
		break;
	case 'u':
		env->unit = UNIT_US;
		break;
	case OPT_JSON:
		env->out = OUT_JSON;
		break;
	case OPT_CSV:
		env->out = OUT_CSV;
		break;
	case OPT_BTF:
		env->btf_path = arg;
		break;
	case OPT_SELF_TEST:
		env->self_test = true;
		break;
	case 'v':
		env->verbose = true;
		break;
	case OPT_NO_TOGGLE:
		env->no_toggle = true;
		break;
	case OPT_PULSES:
		if (parse_count(arg, 1, 1000000000LL, &n)) {
			usage_error(state, "bad pulse count '%s': want 1 to 1000000000", arg);
			return EINVAL;
		}
		env->pulses = n;
		break;
	case OPT_UNTRACED:
		if (parse_count(arg, 0, 1000000000LL, &n)) {
			usage_error(state, "bad untraced pulse count '%s': want 0 to 1000000000",
				    arg);
			return EINVAL;
		}
		env->untraced = n;
		break;
	case ARGP_KEY_ARG:
		usage_error(state, "unexpected argument '%s'", arg);
		return EINVAL;
	case ARGP_KEY_END:
		if (env->interval_ns && env->duration_ns && env->interval_ns > env->duration_ns) {
			usage_error(state, "the interval is longer than the duration");
			return EINVAL;
		}
		if (env->untraced > 0 && !env->pulses) {
			usage_error(state, "--untraced needs --pulses");
			return EINVAL;
		}
		break;
	case ARGP_KEY_ERROR:
		/* ARGP_NO_ERRS: getopt said nothing; say it once, in one line */
		if (!env->usage_printed) {
			int i = state->next > 0 ? state->next - 1 : 0;

			usage_error(state, "unknown option or missing argument: '%s'",
				    i < state->argc ? state->argv[i] : "?");
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	/* without -v, libbpf's warnings would repeat our one error line at length */
	if (!verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void sig_handler(int sig)
{
	exiting = 1;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* sleep up to ms; false when a signal asked us to stop (EINTR is a normal way out) */
static bool nap(int ms)
{
	if (poll(NULL, 0, ms) < 0 && errno != EINTR)
		return false;
	return !exiting;
}

static const char *load_error(int err, char *buf, size_t size)
{
	if (err == -524 || err == 524)
		snprintf(buf, size,
			 "error 524 (ENOTSUPP): the kernel or its BPF JIT does not "
			 "support this program here");
	else
		snprintf(buf, size, "%s", strerror(err < 0 ? -err : err));
	return buf;
}

/* ceil(2^32 / d): multiply by it and shift right by 32 to divide exact multiples of d */
/* open the skeleton with only the method's program, configure it and load it */
static int open_load(const struct env *env, enum method m, __u32 desc_size, __u32 max_lines,
		     struct gpiolat_bpf **out, char *why, size_t size)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = env->btf_path);
	struct bpf_program *progs[METHOD_MAX];
	struct gpiolat_bpf *skel;
	char buf[160];
	int i, err;

	*out = NULL;
	skel = gpiolat_bpf__open_opts(&oo);
	if (!skel) {
		snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	progs[METHOD_TRACEPOINT] = skel->progs.gpiolat_tp;
	progs[METHOD_KPROBE] = skel->progs.gpiolat_kprobe;
	progs[METHOD_FENTRY] = skel->progs.gpiolat_fentry;
	for (i = 0; i < METHOD_MAX; i++)
		bpf_program__set_autoload(progs[i], i == (int)m);

	skel->rodata->filter_lines = env->nspecs > 0;
	skel->rodata->desc_magic = desc_size ? gpiolat_reciprocal(desc_size) : 0;
	if (env->lin_width) {
		skel->rodata->lin_width = env->lin_width;
		skel->rodata->lin_magic = gpiolat_reciprocal(env->lin_width);
		skel->rodata->lin_max = env->lin_width * GPIOLAT_LINEAR_SLOTS;
	}
	bpf_map__set_max_entries(skel->maps.hists, max_lines);
	bpf_map__set_max_entries(skel->maps.starts, max_lines);

	err = gpiolat_bpf__load(skel);
	if (err) {
		snprintf(why, size, "loading the %s program failed: %s (gpiolat -v shows why)",
			 methods[m].name, load_error(err, buf, sizeof(buf)));
		gpiolat_bpf__destroy(skel);
		return -1;
	}
	*out = skel;
	return 0;
}

static int check_method(enum method m, const struct btf *btf, char *why, size_t size)
{
	switch (m) {
	case METHOD_TRACEPOINT:
		return sys_check_tracepoint(btf, why, size);
	case METHOD_KPROBE:
		return sys_check_kprobe(btf, why, size);
	case METHOD_FENTRY:
		return sys_check_fentry(btf, why, size);
	default:
		return -1;
	}
}

/* for kprobe and fentry: sizeof(struct gpio_desc) of the running kernel, else 0 */
static __u32 method_desc_size(enum method m, const struct btf *btf, char *why, size_t size)
{
	if (m == METHOD_TRACEPOINT)
		return 1;
	return sys_gpio_desc_size(btf, why, size);
}

/* ---- --self-test ---------------------------------------------------------------------------- */

static void st(const char *status, const char *what, const char *detail)
{
	printf("  %-5s %-22s %s\n", status, what, detail);
}

static int self_test(struct env *env)
{
	char why[WHY_SIZE], detail[WHY_SIZE + 64];
	bool root, can_default = false;
	struct gpiolat_bpf *skel;
	struct utsname u;
	struct btf *btf;
	__u32 size;
	int m, fd;

	uname(&u);
	printf("gpiolat self-test: what works on this system (%s %s, %s)\n", u.sysname, u.release,
	       u.machine);
	root = sys_privileged();
	st(root ? "ok" : "no", "privileges",
	   root ? "root (or CAP_BPF and CAP_PERFMON)" : "not root: every check below needs root");
	btf = sys_load_btf(env->btf_path, why, sizeof(why));
	st(btf ? "ok" : "no", "BTF",
	   btf ? (env->btf_path ? env->btf_path : "/sys/kernel/btf/vmlinux") : why);
	if (root) {
		const char *dir = sys_tracefs_dir();

		st(dir ? "ok" : "no", "tracefs", dir ? dir : "not mounted and cannot be mounted");
	}
	for (m = 0; m < METHOD_MAX; m++) {
		snprintf(detail, sizeof(detail), "%s", methods[m].hook);
		if (!root || !btf) {
			st("no", methods[m].name, root ? "needs BTF" : "needs root");
			continue;
		}
		if (check_method(m, btf, why, sizeof(why))) {
			st("no", methods[m].name, why);
			continue;
		}
		size = method_desc_size(m, btf, why, sizeof(why));
		if (!size) {
			st("no", methods[m].name, why);
			continue;
		}
		if (open_load(env, m, size, GPIOLAT_MAX_LINES, &skel, why, sizeof(why))) {
			st("no", methods[m].name, why);
			continue;
		}
		if (gpiolat_bpf__attach(skel)) {
			snprintf(why, sizeof(why), "attaching %s failed: %s", methods[m].hook,
				 strerror(errno));
			st("no", methods[m].name, why);
		} else {
			snprintf(detail, sizeof(detail), "%s loads and attaches%s", methods[m].hook,
				 m == METHOD_TRACEPOINT ? " (the default)" : "");
			st("ok", methods[m].name, detail);
			if (m == METHOD_TRACEPOINT)
				can_default = true;
		}
		gpiolat_bpf__destroy(skel);
	}
	if (root) {
		fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (fd >= 0) {
			st("ok", "BPF run-time stats", "BPF_ENABLE_STATS(BPF_STATS_RUN_TIME)");
			close(fd);
		} else {
			snprintf(why, sizeof(why), "BPF_ENABLE_STATS failed: %s", strerror(errno));
			st("no", "BPF run-time stats", why);
		}
	}
	if (toggle_present()) {
		__u32 g;

		if (!toggle_gpio(&g))
			snprintf(detail, sizeof(detail), "/sys/kernel/debug/toggle: gpio %u", g);
		else
			snprintf(detail, sizeof(detail), "/sys/kernel/debug/toggle");
		st("ok", "toggle module", detail);
	} else {
		st("no", "toggle module",
		   "no /sys/kernel/debug/toggle (not loaded, or debugfs not mounted): no edge "
		   "counts, no pulse-width shift");
	}
	st("info", "timings", sys_emulated() ? "emulated (not real hardware)" : "this machine's");
	btf__free(btf);
	if (!can_default) {
		printf("gpiolat: the default method (tracepoint) cannot run here\n");
		return EXIT_ERROR;
	}
	printf("gpiolat: the default method (tracepoint) can run here\n");
	return EXIT_OK;
}

/* ---- results -------------------------------------------------------------------------------- */

static int cmp_line(const void *a, const void *b)
{
	const struct line_result *x = a, *y = b;

	return x->gpio < y->gpio ? -1 : x->gpio > y->gpio;
}

/* every line in the hists map, summed over the CPUs, sorted by GPIO number */
static int read_lines(struct gpiolat_bpf *skel, const struct line_sel *sel, int nsel,
		      struct line_result *out, int max)
{
	int fd = bpf_map__fd(skel->maps.hists), ncpus = libbpf_num_possible_cpus();
	struct gpiolat_hist *percpu;
	__u32 key, next, *prev = NULL;
	int n = 0, i;

	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	while (n < max && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, percpu))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].gpio = key;
		out[n].offset = -1;
		out[n].minmax = true;
		hist_sum_cpus(&out[n].h, percpu, ncpus);
		for (i = 0; i < nsel; i++) {
			if (sel[i].gpio == key && sel[i].chip[0]) {
				snprintf(out[n].chip, sizeof(out[n].chip), "%s", sel[i].chip);
				out[n].offset = sel[i].offset;
			}
		}
		if (!out[n].chip[0])
			sys_gpio_name(key, out[n].chip, sizeof(out[n].chip), &out[n].offset);
		n++;
	}
	free(percpu);
	qsort(out, n, sizeof(*out), cmp_line);
	return n;
}

static __u64 read_drops(struct gpiolat_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus(), c;
	__u32 key = GPIOLAT_DROP_NO_LINE_SLOT;
	__u64 *v, sum = 0;

	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.drops), &key, v))
		for (c = 0; c < ncpus; c++)
			sum += v[c];
	free(v);
	return sum;
}

static void print_lines(const struct env *env, struct line_result *lr, int n, FILE *f)
{
	int i;

	for (i = 0; i < n; i++) {
		if (env->out == OUT_CSV)
			print_line_csv(f, &lr[i], env->lin_width, env->unit);
		else
			print_line_text(f, &lr[i], env->lin_width, env->unit);
	}
	if (!n && env->out == OUT_TEXT)
		fprintf(f, "no sets of %s seen\n", env->nspecs ? "the selected lines" : "any line");
}

/* the histograms of one interval: now minus the previous snapshot */
static void print_interval(const struct env *env, int idx, __u64 t0, __u64 t1,
			   struct line_result *now, int n, struct line_result *prev, int nprev)
{
	struct line_result *d;
	struct json_object *o, *a;
	int i, j;

	d = calloc(n ? n : 1, sizeof(*d));
	if (!d)
		return;
	for (i = 0; i < n; i++) {
		static const struct gpiolat_hist zero;
		const struct gpiolat_hist *before = &zero;

		for (j = 0; j < nprev; j++)
			if (prev[j].gpio == now[i].gpio)
				before = &prev[j].h;
		d[i] = now[i];
		d[i].minmax = false;
		hist_delta(&d[i].h, &now[i].h, before);
	}
	if (env->out == OUT_JSON) {
		o = json_object_new_object();
		json_object_object_add(o, "interval", json_object_new_int(idx));
		json_object_object_add(o, "start_ns", json_object_new_uint64(t0));
		json_object_object_add(o, "end_ns", json_object_new_uint64(t1));
		a = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(a, line_json(&d[i], env->lin_width));
		json_object_object_add(o, "lines", a);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		printf("%s interval %d: %.3f s to %.3f s after attach (min and max: see the "
		       "totals)\n",
		       env->out == OUT_CSV ? "#" : "---", idx, t0 / 1e9, t1 / 1e9);
		print_lines(env, d, n, stdout);
	}
	fflush(stdout);
	free(d);
}

/* per-set times of the toggle module's batches with after < seq <= upto */
static void batches_stat(__s64 after, __s64 upto, bool drop_edges, struct stat_acc *acc,
			 __u64 *pulses)
{
	struct toggle_batch *b;
	int i, n;

	b = calloc(MAX_BATCHES, sizeof(*b));
	if (!b)
		return;
	n = toggle_batches(after, b, MAX_BATCHES);
	for (i = 0; i < n; i++) {
		if ((__s64)b[i].seq > upto)
			break;
		if (drop_edges && ((__s64)b[i].seq == after + 1 || (__s64)b[i].seq == upto))
			continue;
		stat_add(acc, (double)b[i].ns / (2.0 * b[i].pulses));
		*pulses += b[i].pulses;
	}
	free(b);
}

/* wait for the toggle module's pulses to be done; false on a signal or the time limit */
static bool wait_pulses(__u64 deadline, bool *timed_out)
{
	while (toggle_enabled() == 1) {
		if (deadline && now_ns() >= deadline) {
			*timed_out = true;
			return false;
		}
		if (!nap(POLL_MS))
			return false;
	}
	return !exiting;
}

/* an untraced phase: the module's own pulses (--pulses) or a free-running toggler */
static void untraced_phase(const struct env *env, struct run_info *ri)
{
	long long n = env->untraced;
	__s64 seq0;
	__u64 end;
	bool t = false;

	if (!ri->shift_wanted || exiting)
		return;
	seq0 = toggle_last_seq();
	if (env->pulses) {
		if (n < 0)
			n = env->pulses < DEFAULT_UNTRACED_MAX ? env->pulses : DEFAULT_UNTRACED_MAX;
		if (!n || toggle_start_pulses(n))
			return;
		if (!wait_pulses(0, &t)) {
			toggle_stop();
			return;
		}
		batches_stat(seq0, INT64_MAX, false, &ri->untraced, &ri->untraced_pulses);
	} else {
		if (ri->drive && toggle_start())
			return;
		end = now_ns() + FREE_PHASE_NS;
		while (now_ns() < end && nap(POLL_MS))
			;
		if (ri->drive)
			toggle_stop();
		batches_stat(seq0, toggle_last_seq(), true, &ri->untraced, &ri->untraced_pulses);
	}
}

static void print_overhead_text(const struct env *env, struct gpiolat_bpf *skel,
				const struct run_info *ri)
{
	enum method m = env->method;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	char a[32], b[32], c[32], d[32], e[32], note[256];
	double ev, ev_sd, extra;
	double shift, se;

	memset(&info, 0, sizeof(info));
	if (ri->stats_fd < 0) {
		printf("overhead: BPF run-time stats unavailable (BPF_ENABLE_STATS failed)\n");
	} else if (!bpf_obj_get_info_by_fd(bpf_program__fd(bpf_object__find_program_by_name(
						   skel->obj, methods[m].prog)),
					   &info, &len)) {
		printf("overhead: %s (%s) ran %llu times, mean %s per run (BPF run-time stats: "
		       "the program alone, not the hook's dispatch); %llu runs missed (recursion)\n",
		       methods[m].prog, methods[m].hook, (unsigned long long)info.run_cnt,
		       info.run_cnt ? fmt_time(a, sizeof(a),
					       (double)info.run_time_ns / info.run_cnt, UNIT_NS) :
				      "-",
		       (unsigned long long)info.recursion_misses);
	}
	if (ri->traced.n && ri->untraced.n) {
		shift = ri->traced.mean - ri->untraced.mean;
		se = sqrt(stat_sd(&ri->traced) * stat_sd(&ri->traced) / ri->traced.n +
			  stat_sd(&ri->untraced) * stat_sd(&ri->untraced) / ri->untraced.n);
		printf("overhead: pulse-width shift %+.1f ns per set (standard error %.1f ns): "
		       "traced %s per set (sd %s, %llu batches, %llu pulses), untraced %s per set "
		       "(sd %s, %llu batches, %llu pulses), from the toggle module's batch times\n",
		       shift, se, fmt_time(a, sizeof(a), ri->traced.mean, UNIT_NS),
		       fmt_time(b, sizeof(b), stat_sd(&ri->traced), UNIT_NS),
		       (unsigned long long)ri->traced.n, (unsigned long long)ri->traced_pulses,
		       fmt_time(c, sizeof(c), ri->untraced.mean, UNIT_NS),
		       fmt_time(d, sizeof(d), stat_sd(&ri->untraced), UNIT_NS),
		       (unsigned long long)ri->untraced.n, (unsigned long long)ri->untraced_pulses);
	} else if (ri->toggle) {
		printf("overhead: no pulse-width shift: %s\n",
		       ri->shift_wanted ? "no batches timed in one of the phases" :
					  "the toggle module was idle (use --pulses N)");
	}
	/* the talk's figures for the same method */
	if (m == METHOD_TRACEPOINT &&
	    !baseline_find(baseline_csv, "event", "overhead", &ev, NULL, NULL, 0) &&
	    !baseline_find(baseline_csv, "bpf-ply-tracepoint", "overhead", &extra, NULL, NULL, 0)) {
		printf("reference: the talk (Klinger, ELCE 2023; oscilloscope, BeagleBone Black, "
		       "6.1.26-rt8): event %s + ply histogram %s = %s per set",
		       fmt_time(a, sizeof(a), ev, UNIT_NS), fmt_time(b, sizeof(b), extra, UNIT_NS),
		       fmt_time(c, sizeof(c), ev + extra, UNIT_NS));
	} else if (m == METHOD_KPROBE && !baseline_find(baseline_csv, "kprobe", "overhead", &ev,
							NULL, note, sizeof(note))) {
		printf("reference: the talk (Klinger, ELCE 2023; oscilloscope, BeagleBone Black, "
		       "6.1.26-rt8): kprobe %s per set (%s)",
		       fmt_time(a, sizeof(a), ev, UNIT_NS), note);
	} else {
		printf("reference: the talk has no figure for %s", methods[m].name);
	}
	if (!baseline_find(baseline_csv, "tracing-configured-rt", "pulse", &ev, &ev_sd, NULL, 0))
		printf("; untraced pulse %s (sd %s)\n", fmt_time(d, sizeof(d), ev, UNIT_NS),
		       fmt_time(e, sizeof(e), ev_sd, UNIT_NS));
	else
		printf("\n");
	if (sys_emulated())
		printf("note: these timings are emulated (qemu), not real hardware: compare them "
		       "with each other, not with the talk's nanoseconds\n");
}

static struct json_object *stat_json(const struct stat_acc *s, __u64 pulses)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "batches", json_object_new_uint64(s->n));
	json_object_object_add(o, "pulses", json_object_new_uint64(pulses));
	json_object_object_add(o, "mean_ns_per_set", s->n ? json_object_new_double(s->mean) : NULL);
	json_object_object_add(o, "sd_ns_per_set",
			       s->n ? json_object_new_double(stat_sd(s)) : NULL);
	return o;
}

static struct json_object *reference_json(const char *method, const char *kind)
{
	struct json_object *o;
	char note[256];
	double v, sd;

	if (baseline_find(baseline_csv, method, kind, &v, &sd, note, sizeof(note)))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "value_ns", json_object_new_double(v));
	json_object_object_add(o, "sd_ns", isnan(sd) ? NULL : json_object_new_double(sd));
	json_object_object_add(o, "note", json_object_new_string(note));
	return o;
}

static void print_json(const struct env *env, struct gpiolat_bpf *skel, const struct run_info *ri,
		       struct line_result *lr, int n)
{
	enum method m = env->method;
	struct json_object *o, *a, *t, *ov, *p, *s, *ref;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int i;

	o = json_object_new_object();
	json_object_object_add(o, "tool", json_object_new_string("gpiolat"));
	json_object_object_add(o, "format", json_object_new_int(1));
	json_object_object_add(o, "interval", NULL);
	json_object_object_add(o, "method", json_object_new_string(methods[m].name));
	json_object_object_add(o, "hook", json_object_new_string(methods[m].hook));
	json_object_object_add(o, "emulated", json_object_new_boolean(sys_emulated()));
	json_object_object_add(
		o, "duration_ns",
		json_object_new_uint64((ri->end.tv_sec - ri->start.tv_sec) * NSEC_PER_SEC +
				       ri->end.tv_nsec - ri->start.tv_nsec));
	json_object_object_add(o, "dropped_no_line_slot", json_object_new_uint64(ri->drops));
	a = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(a, line_json(&lr[i], env->lin_width));
	json_object_object_add(o, "lines", a);

	t = NULL;
	if (ri->toggle) {
		t = json_object_new_object();
		json_object_object_add(
			t, "gpio",
			ri->toggle_gpio_ok ? json_object_new_uint64(ri->toggle_gpio) : NULL);
		if (ri->edges_ok) {
			__u64 r = ri->rising1 - ri->rising0, f = ri->falling1 - ri->falling0;
			__u64 seen = 0;
			bool found = false;

			for (i = 0; i < n; i++)
				if (ri->toggle_gpio_ok && lr[i].gpio == ri->toggle_gpio) {
					seen = lr[i].h.events;
					found = true;
				}
			json_object_object_add(t, "rising", json_object_new_uint64(r));
			json_object_object_add(t, "falling", json_object_new_uint64(f));
			json_object_object_add(t, "edges", json_object_new_uint64(r + f));
			json_object_object_add(t, "events_seen",
					       found ? json_object_new_uint64(seen) : NULL);
			json_object_object_add(
				t, "events_lost",
				found ? json_object_new_int64((__s64)(r + f - seen)) : NULL);
		}
		json_object_object_add(t, "timed_out", json_object_new_boolean(ri->timed_out));
	}
	json_object_object_add(o, "toggle", t);

	ov = json_object_new_object();
	p = json_object_new_object();
	memset(&info, 0, sizeof(info));
	json_object_object_add(p, "name", json_object_new_string(methods[m].prog));
	if (ri->stats_fd >= 0 &&
	    !bpf_obj_get_info_by_fd(
		    bpf_program__fd(bpf_object__find_program_by_name(skel->obj, methods[m].prog)),
		    &info, &len)) {
		json_object_object_add(p, "run_cnt", json_object_new_uint64(info.run_cnt));
		json_object_object_add(p, "run_time_ns", json_object_new_uint64(info.run_time_ns));
		json_object_object_add(
			p, "mean_ns_per_run",
			info.run_cnt ?
				json_object_new_double((double)info.run_time_ns / info.run_cnt) :
				NULL);
		json_object_object_add(p, "recursion_misses",
				       json_object_new_uint64(info.recursion_misses));
	}
	json_object_object_add(ov, "program", p);
	s = NULL;
	if (ri->traced.n && ri->untraced.n) {
		s = json_object_new_object();
		json_object_object_add(s, "shift_ns_per_set",
				       json_object_new_double(ri->traced.mean - ri->untraced.mean));
		json_object_object_add(s, "traced", stat_json(&ri->traced, ri->traced_pulses));
		json_object_object_add(s, "untraced",
				       stat_json(&ri->untraced, ri->untraced_pulses));
	}
	json_object_object_add(ov, "shift", s);
	ref = json_object_new_array();
	if (m == METHOD_TRACEPOINT) {
		json_object_array_add(ref, reference_json("event", "overhead"));
		json_object_array_add(ref, reference_json("bpf-ply-tracepoint", "overhead"));
	} else if (m == METHOD_KPROBE) {
		json_object_array_add(ref, reference_json("kprobe", "overhead"));
	}
	json_object_array_add(ref, reference_json("tracing-configured-rt", "pulse"));
	json_object_object_add(ov, "reference", ref);
	json_object_object_add(o, "overhead", ov);

	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

static void print_toggle_text(const struct env *env, const struct run_info *ri,
			      struct line_result *lr, int n)
{
	__u64 r, f;
	int i;

	if (!ri->toggle || !ri->edges_ok || !ri->toggle_gpio_ok)
		return;
	r = ri->rising1 - ri->rising0;
	f = ri->falling1 - ri->falling0;
	for (i = 0; i < n; i++) {
		if (lr[i].gpio != ri->toggle_gpio)
			continue;
		printf("%stoggle module: gpio %u: %llu edges issued while attached (%llu rising, "
		       "%llu falling), %llu sets seen: events lost %lld%s\n",
		       env->out == OUT_CSV ? "# " : "", ri->toggle_gpio,
		       (unsigned long long)(r + f), (unsigned long long)r, (unsigned long long)f,
		       (unsigned long long)lr[i].h.events, (long long)(r + f - lr[i].h.events),
		       env->pulses || ri->drive ?
			       "" :
			       " (a free-running toggler: edges around attach and "
			       "detach blur this)");
		return;
	}
	if (!env->nspecs || r + f)
		printf("%stoggle module: gpio %u: %llu edges issued while attached, none seen%s\n",
		       env->out == OUT_CSV ? "# " : "", ri->toggle_gpio,
		       (unsigned long long)(r + f),
		       env->nspecs ? " (not among the selected lines)" : "");
}

/* is this GPIO among the selected lines (all lines when none is selected)? */
static bool line_watched(const struct line_sel *sel, int n, __u32 gpio)
{
	int i;

	for (i = 0; i < n; i++)
		if (sel[i].gpio == gpio)
			return true;
	return !n;
}

/* ---- main ----------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = opts, .parser = parse_arg, .doc = doc };
	struct env env = { .method = METHOD_TRACEPOINT, .unit = UNIT_NS, .untraced = -1 };
	struct run_info ri = { .stats_fd = -1 };
	struct line_result *lr = NULL, *prev = NULL;
	struct line_sel sel[MAX_SPECS];
	struct gpiolat_bpf *skel = NULL;
	struct sigaction sa = { .sa_handler = sig_handler };
	struct btf *btf = NULL;
	char why[WHY_SIZE];
	bool pulsing = false;
	__u64 t0, deadline = 0, next_iv = 0, last_snap;
	__s64 seq_attach = -1, seq_detach;
	__u32 desc_size, max_lines;
	int err = EXIT_ERROR, i, n, nprev = 0, iv = 0;

	/* JSON numbers: 0.1 ns is finer than any figure here */
	json_c_set_serialization_double_format("%.1f", JSON_C_OPTION_GLOBAL);
	/* --syscall-cost and its kin have their own options: loader/syscall_cost.c */
	if (syscall_cost_wanted(argc, argv))
		return syscall_cost_main(argc, argv);
	/* --overhead and --cleanup likewise: loader/overhead.c */
	if (overhead_wanted(argc, argv))
		return overhead_main(argc, argv);
	if (argp_parse(&argp, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &env))
		return EXIT_USAGE;
	verbose = env.verbose;
	libbpf_set_print(libbpf_print_fn);
	if (env.self_test)
		return self_test(&env);

	if (!sys_privileged()) {
		fprintf(stderr, "gpiolat: must run as root (needs CAP_BPF and CAP_PERFMON, or "
				"CAP_SYS_ADMIN)\n");
		return EXIT_ERROR;
	}
	/*
	 * Ctrl-C, kill and a hangup (an ssh drop) only set the flag: the run ends on the one
	 * path that stops the toggle module and detaches. A closed output (gpiolat -i 1s | head)
	 * must not kill us halfway either: SIGPIPE is ignored and a failed write ends the run.
	 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	btf = sys_load_btf(env.btf_path, why, sizeof(why));
	if (!btf) {
		fprintf(stderr, "gpiolat: no BTF for CO-RE: %s\n", why);
		goto cleanup;
	}
	for (i = 0; i < env.nspecs; i++) {
		if (sys_resolve_line(env.specs[i], &sel[i].gpio, sel[i].chip, sizeof(sel[i].chip),
				     &sel[i].offset, why, sizeof(why))) {
			fprintf(stderr, "gpiolat: %s\n", why);
			goto cleanup;
		}
	}
	if (check_method(env.method, btf, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	desc_size = method_desc_size(env.method, btf, why, sizeof(why));
	if (!desc_size) {
		fprintf(stderr, "gpiolat: %s: %s\n", methods[env.method].name, why);
		goto cleanup;
	}
	ri.toggle = toggle_present();
	ri.toggle_gpio_ok = ri.toggle && !toggle_gpio(&ri.toggle_gpio);
	if (env.pulses) {
		if (!ri.toggle) {
			fprintf(stderr,
				"gpiolat: --pulses needs the toggle module (no "
				"/sys/kernel/debug/toggle: insmod toggle.ko, mount debugfs)\n");
			goto cleanup;
		}
		if (toggle_enabled() != 0) {
			fprintf(stderr, "gpiolat: --pulses: the toggle module is already toggling "
					"(echo 0 > /sys/kernel/debug/toggle/enable first)\n");
			goto cleanup;
		}
	}
	/*
	 * Without --pulses, an idle toggle module whose line is watched toggles for the run (its
	 * burst mode, unlimited), so that "gpiolat -d 2" has pulses to show; it is idle again at
	 * the end, on every way out.
	 */
	ri.drive = ri.toggle && !env.pulses && !env.no_toggle && ri.toggle_gpio_ok &&
		   toggle_enabled() == 0 && line_watched(sel, env.nspecs, ri.toggle_gpio);
	ri.shift_wanted = ri.toggle && (env.pulses || ri.drive || toggle_enabled() == 1);

	max_lines = env.nspecs ? env.nspecs : GPIOLAT_MAX_LINES;
	if (open_load(&env, env.method, desc_size, max_lines, &skel, why, sizeof(why))) {
		fprintf(stderr, "gpiolat: %s\n", why);
		goto cleanup;
	}
	if (env.nspecs) {
		/* the selected lines, with zeroed histograms: the BPF side's line filter */
		int ncpus = libbpf_num_possible_cpus();
		struct gpiolat_hist *zero = calloc(ncpus, sizeof(*zero));

		for (i = 0; zero && i < env.nspecs; i++)
			if (bpf_map_update_elem(bpf_map__fd(skel->maps.hists), &sel[i].gpio, zero,
						BPF_ANY))
				break;
		free(zero);
		if (!zero || i < env.nspecs) {
			fprintf(stderr, "gpiolat: cannot set up the line filter: %s\n",
				strerror(zero ? errno : ENOMEM));
			goto cleanup;
		}
	}
	lr = calloc(GPIOLAT_MAX_LINES, sizeof(*lr));
	prev = calloc(GPIOLAT_MAX_LINES, sizeof(*prev));
	if (!lr || !prev) {
		fprintf(stderr, "gpiolat: out of memory\n");
		goto cleanup;
	}

	if (ri.drive && env.out == OUT_TEXT)
		printf("The toggle module (gpio %u) is idle: it toggles while gpiolat is attached "
		       "(--no-toggle: only watch).\n",
		       ri.toggle_gpio);
	untraced_phase(&env, &ri);
	if (exiting) {
		/* stopped before attaching (loading, the first untraced phase): nothing measured */
		fprintf(stderr, "gpiolat: interrupted before attaching: nothing measured\n");
		err = EXIT_OK;
		goto cleanup;
	}
	ri.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ri.toggle)
		ri.edges_ok = !toggle_edges(&ri.rising0, &ri.falling0);
	seq_attach = ri.toggle ? toggle_last_seq() : -1;
	if (gpiolat_bpf__attach(skel)) {
		fprintf(stderr, "gpiolat: attaching %s failed: %s (gpiolat -v shows why)\n",
			methods[env.method].hook, strerror(errno));
		goto cleanup;
	}
	clock_gettime(CLOCK_MONOTONIC, &ri.start);
	t0 = now_ns();
	if (env.out == OUT_TEXT)
		printf("Tracing %s (%s) on %s%s. %s\n", methods[env.method].hook,
		       methods[env.method].name, env.nspecs ? "the selected lines" : "all lines",
		       sys_emulated() ? " (emulated target)" : "",
		       env.pulses      ? "Waiting for the toggle module's pulses." :
		       env.duration_ns ? "" :
					 "Hit Ctrl-C to end.");
	fflush(stdout);
	if (env.duration_ns)
		deadline = t0 + env.duration_ns;
	if (env.interval_ns)
		next_iv = t0 + env.interval_ns;
	last_snap = t0;
	if (ri.drive) {
		if ((err = toggle_start())) {
			fprintf(stderr, "gpiolat: cannot start the toggle module: %s\n",
				strerror(-err));
			err = EXIT_ERROR;
			goto cleanup;
		}
		err = EXIT_ERROR;
	}
	if (env.pulses) {
		if ((err = toggle_start_pulses(env.pulses))) {
			fprintf(stderr, "gpiolat: cannot start the toggle module's pulses: %s\n",
				strerror(-err));
			err = EXIT_ERROR;
			goto cleanup;
		}
		pulsing = true;
		err = EXIT_ERROR;
	}

	/* the one poll loop: until the pulses are done, the time is up, or a signal */
	while (!exiting) {
		__u64 now = now_ns();

		if (pulsing && toggle_enabled() != 1)
			break;
		if (deadline && now >= deadline) {
			ri.timed_out = pulsing;
			break;
		}
		if (next_iv && now >= next_iv) {
			/* stamped with the times the snapshots were taken, not the schedule's */
			n = read_lines(skel, sel, env.nspecs, lr, GPIOLAT_MAX_LINES);
			if (n >= 0) {
				print_interval(&env, ++iv, last_snap - t0, now - t0, lr, n, prev,
					       nprev);
				memcpy(prev, lr, n * sizeof(*lr));
				nprev = n;
				last_snap = now;
			}
			/* the next boundary still ahead (a stall skips boundaries, not intervals) */
			while (next_iv <= now)
				next_iv += env.interval_ns;
			/* nobody reads us any more (EPIPE, EIO after a hangup): end as on Ctrl-C */
			if (ferror(stdout))
				exiting = 1;
		}
		nap(POLL_MS);
	}
	if (pulsing && toggle_enabled() == 1) {
		toggle_stop();
		if (!ri.timed_out && exiting)
			fprintf(stderr,
				"gpiolat: interrupted: the toggle module's pulses stopped\n");
	}
	pulsing = false;
	if (ri.drive)
		toggle_stop();
	gpiolat_bpf__detach(skel);
	clock_gettime(CLOCK_MONOTONIC, &ri.end);
	if (ri.toggle) {
		if (ri.edges_ok)
			ri.edges_ok = !toggle_edges(&ri.rising1, &ri.falling1);
		seq_detach = toggle_last_seq();
		if (ri.shift_wanted)
			batches_stat(seq_attach, seq_detach, !env.pulses, &ri.traced,
				     &ri.traced_pulses);
	}
	/* the last drain, after the probes are gone */
	n = read_lines(skel, sel, env.nspecs, lr, GPIOLAT_MAX_LINES);
	if (n < 0) {
		fprintf(stderr, "gpiolat: reading the histograms failed: %s\n", strerror(-n));
		goto cleanup;
	}
	ri.drops = read_drops(skel);
	untraced_phase(&env, &ri);

	if (env.out == OUT_JSON) {
		print_json(&env, skel, &ri, lr, n);
	} else {
		if (iv && env.out == OUT_TEXT)
			printf("--- totals\n");
		else if (iv)
			printf("# totals\n");
		if (env.out == OUT_CSV)
			printf("# gpiolat csv: method=%s hook=%s emulated=%d\n",
			       methods[env.method].name, methods[env.method].hook, sys_emulated());
		print_lines(&env, lr, n, stdout);
		if (env.out == OUT_TEXT)
			printf("(p50, p90 and p99 are estimates at bucket resolution: interpolated in "
			       "the bucket holding them)\n");
		if (ri.drops)
			printf("%s%llu sets dropped: more lines than the map holds (%u)\n",
			       env.out == OUT_CSV ? "# " : "", (unsigned long long)ri.drops,
			       max_lines);
		print_toggle_text(&env, &ri, lr, n);
		if (env.out == OUT_TEXT)
			print_overhead_text(&env, skel, &ri);
	}
	if (ri.timed_out)
		fprintf(stderr, "gpiolat: the toggle module's pulses were not done within the "
				"duration: stopped them\n");
	err = EXIT_OK;

cleanup:
	if ((pulsing || ri.drive) && toggle_enabled() == 1)
		toggle_stop();
	if (ri.stats_fd >= 0)
		close(ri.stats_fd);
	gpiolat_bpf__destroy(skel);
	btf__free(btf);
	free(lr);
	free(prev);
	return err;
}
