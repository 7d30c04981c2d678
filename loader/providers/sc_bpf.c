// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost: the BPF programs: empty ones on each hook, the syscall-latency histogram and
 * its variants, their links and run-time stats (sc.h).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "core/parse.h"
#include "syscall.h"
#include "syscall.skel.h"
#include "modes/syscall/sc.h"

const char *const sc_hook_names[SC_HOOK_MAX] = { "tp_btf", "raw_tp", "tp" };

static int print_quiet(enum libbpf_print_level level, const char *format, va_list args)
{
	return 0;
}

static int print_all(enum libbpf_print_level level, const char *format, va_list args)
{
	return vfprintf(stderr, format, args);
}

/* libbpf's messages: all of them with -v, none without (chosen once: no flag to read) */
void sc_libbpf_print(bool verbose)
{
	libbpf_set_print(verbose ? print_all : print_quiet);
}

void sc_links_destroy(struct state *s)
{
	while (s->nlinks > 0)
		bpf_link__destroy(s->links[--s->nlinks]);
}

void sc_bpf_unload(struct state *s)
{
	sc_links_destroy(s);
	empty_bpf__destroy(s->empty);
	s->empty = NULL;
	syscall_bpf__destroy(s->hist);
	s->hist = NULL;
}

static const char *errstr(int err, char *buf, size_t size)
{
	err = err < 0 ? -err : err;
	if (err == 524)
		snprintf(buf, size,
			 "error 524 (ENOTSUPP): not supported by this kernel or its JIT");
	else
		snprintf(buf, size, "%s", strerror(err));
	return buf;
}

/* the empty programs named, loaded alone */
int sc_empty_load(struct state *s, const char *const *keep, int n, char *why, size_t size)
{
	struct bpf_program *p;
	char buf[96];
	int err, i;

	s->empty = empty_bpf__open();
	if (!s->empty) {
		snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(p, s->empty->obj) {
		bool k = false;

		for (i = 0; i < n; i++)
			k |= !strcmp(bpf_program__name(p), keep[i]);
		bpf_program__set_autoload(p, k);
	}
	err = empty_bpf__load(s->empty);
	if (err) {
		p = bpf_object__find_program_by_name(s->empty->obj, keep[0]);
		snprintf(why, size, "loading %s failed: %s (gpiolat -v shows why)",
			 p ? bpf_program__section_name(p) : keep[0], errstr(err, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

int sc_link_add(struct state *s, struct bpf_link *l, const char *what, char *why, size_t size)
{
	char buf[96];
	int err = libbpf_get_error(l);

	if (!l || err) {
		snprintf(why, size, "attaching %s failed: %s", what,
			 errstr(err ? err : errno, buf, sizeof(buf)));
		return -1;
	}
	s->links[s->nlinks++] = l;
	return 0;
}

/* the empty pair for a hook (programs looked up by name in a fresh skeleton) */
static int empty_pair(enum hook h, const char **enter, const char **exit_)
{
	static const char *const names[SC_HOOK_MAX][2] = {
		{ "empty_btf_enter", "empty_btf_exit" },
		{ "empty_raw_enter", "empty_raw_exit" },
		{ "empty_tp_enter", "empty_tp_exit" },
	};

	*enter = names[h][0];
	*exit_ = names[h][1];
	return 0;
}

int sc_empty_setup(struct state *s, enum hook h, char *why, size_t size)
{
	const char *keep[2];

	empty_pair(h, &keep[0], &keep[1]);
	return sc_empty_load(s, keep, 2, why, size);
}

int sc_empty_attach(struct state *s, enum hook h, char *why, size_t size)
{
	const char *names[2];
	int i;

	empty_pair(h, &names[0], &names[1]);
	for (i = 0; i < 2; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(s->empty->obj, names[i]);

		if (sc_link_add(s, bpf_program__attach(p), bpf_program__section_name(p), why, size))
			return -1;
	}
	return 0;
}

/* the programs of variant v on hook h: enter (exit_ 0) or exit (exit_ 1) */
static struct bpf_program *hist_prog(struct syscall_bpf *skel, enum hist_variant v, enum hook h,
				     int exit_)
{
	struct bpf_program *p[SC_HOOK_MAX][2] = {
		{ skel->progs.sc_btf_enter, skel->progs.sc_btf_exit },
		{ skel->progs.sc_raw_enter, skel->progs.sc_raw_exit },
		{ skel->progs.sc_tp_enter, skel->progs.sc_tp_exit },
	};

	/* the cost breakdown's parts: raw_tp only */
	if (v == HV_CLOCK)
		return exit_ ? skel->progs.sc_clock_exit : skel->progs.sc_clock_enter;
	if (v == HV_START)
		return exit_ ? skel->progs.sc_start_exit : skel->progs.sc_raw_enter;
	return p[h][exit_];
}

/*
 * The histogram's hook and where it keeps the start, cheapest first, each tried by loading it
 * (the verifier decides, never the kernel version). raw_tp and tp_btf cost the same per run;
 * raw_tp comes first because libbpf then needs no vmlinux BTF (tp_btf attaches by BTF name:
 * libbpf parses the kernel's whole BTF, some 5 MiB, about 11 MiB of peak RSS). Task storage
 * (bpf_get_current_task_btf(), bpf_task_storage_get()) beats the LRU hash by about 35 ns a
 * run; kernels before 5.11 have no task storage, hence the hash.
 */
static const struct {
	enum hook hook;
	bool task_storage;
} hist_choices[] = {
	{ SC_HOOK_RAW, true }, { SC_HOOK_BTF, true }, { SC_HOOK_RAW, false },
	{ SC_HOOK_TP, true },  { SC_HOOK_TP, false },
};

static const char *const start_names[] = { "LRU hash", "task storage", "hash, update/delete" };

/*
 * the histogram programs (variant v) on the first of hist_choices that loads, on hook only
 * if only >= 0; *start: where it keeps the start. GPIOLAT_SC_LRU=1 (a diagnostic): no task
 * storage.
 */
int sc_hist_setup(struct state *s, enum hist_variant v, int only, enum hook *hook,
		  const char **start, char *why, size_t size)
{
	char buf[96], tried[5 * 120] = "";
	struct bpf_program *p;
	size_t len = 0;
	int c, h, err;
	bool ts;

	for (c = 0; c < (int)(sizeof(hist_choices) / sizeof(hist_choices[0])); c++) {
		h = hist_choices[c].hook;
		ts = hist_choices[c].task_storage;
		if ((only >= 0 && h != only) ||
		    (ts && (v == HV_NAIVE || getenv("GPIOLAT_SC_LRU"))) ||
		    ((v == HV_CLOCK || v == HV_START) && h != SC_HOOK_RAW))
			continue;
		s->hist = syscall_bpf__open();
		if (!s->hist) {
			snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
			return -1;
		}
		bpf_object__for_each_program(p, s->hist->obj)
			bpf_program__set_autoload(p, false);
		bpf_program__set_autoload(hist_prog(s->hist, v, h, 0), true);
		bpf_program__set_autoload(hist_prog(s->hist, v, h, 1), true);
		s->hist->rodata->naive = v == HV_NAIVE;
		s->hist->rodata->task_storage = ts;
		/* only the start's map in use is created (the LRU hash is pre-allocated) */
		bpf_map__set_autocreate(s->hist->maps.sc_task_starts, ts);
		bpf_map__set_autocreate(s->hist->maps.sc_starts, !ts);
		err = syscall_bpf__load(s->hist);
		if (!err) {
			s->hist_progs[0] = hist_prog(s->hist, v, h, 0);
			s->hist_progs[1] = hist_prog(s->hist, v, h, 1);
			*hook = h;
			/* the clock reads alone keep no start */
			*start = v == HV_CLOCK ? NULL : start_names[v == HV_NAIVE ? 2 : ts];
			return 0;
		}
		len += snprintf(tried + len, sizeof(tried) - len, "%s%s with the %s: %s",
				len ? "; " : "", sc_hook_names[h], start_names[ts],
				errstr(err, buf, sizeof(buf)));
		syscall_bpf__destroy(s->hist);
		s->hist = NULL;
		if (len >= sizeof(tried))
			len = sizeof(tried) - 1;
	}
	snprintf(why, size, "no hook loads the histogram programs (%s)", tried);
	return -1;
}

int sc_hist_attach(struct state *s, char *why, size_t size)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct bpf_program *p = s->hist_progs[i];

		if (sc_link_add(s, bpf_program__attach(p), bpf_program__section_name(p), why, size))
			return -1;
	}
	return 0;
}

/* add the run-time stats of a program (by fd) to r */
static void prog_stats_add(int fd, struct result *r)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	r->run_cnt += info.run_cnt;
	r->run_time_ns += info.run_time_ns;
	r->nprogs++;
}

void sc_prog_stats_obj(struct bpf_object *obj, struct result *r)
{
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) >= 0)
			prog_stats_add(bpf_program__fd(p), r);
	}
}

void sc_prog_stats_tool(struct state *s, struct result *r)
{
	__u32 ids[32];
	int n = child_prog_ids(&s->tool, ids, 32), i, fd;

	for (i = 0; i < n; i++) {
		fd = bpf_prog_get_fd_by_id(ids[i]);
		if (fd < 0)
			continue;
		prog_stats_add(fd, r);
		close(fd);
	}
}
