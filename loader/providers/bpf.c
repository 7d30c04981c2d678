// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: empty BPF programs (provider.h), the floor every other program is compared with:
 * the programs the method names, loaded alone from the target's object (bpf/empty_gpio.bpf.c
 * for the GPIO set, bpf/empty.bpf.c for the syscalls) and attached while on: as their section
 * says, as a kprobe on each of the method's functions, as a uprobe on the target's user
 * function, on the raw tracepoint the method names, or (fentry, fexit) each on one of the
 * method's functions, set before the program is loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <tracefs.h>
#include "empty.skel.h"
#include "empty_gpio.skel.h"
#include "core/sys.h"
#include "core/gpio_bpf.h"
#include "providers/provider.h"

static struct bpf_object *object(const struct probe *p)
{
	if (!p->obj)
		return NULL;
	return p->t->kind == TGT_GPIO_PULSE ? ((struct empty_gpio_bpf *)p->obj)->obj :
					      ((struct empty_bpf *)p->obj)->obj;
}

static int empty_setup(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = p->t->btf_path);
	struct bpf_object *obj;
	struct bpf_program *prog;
	char buf[96], fn[64];
	int n, err;

	if (ba->attach == ATTACH_KPROBE && !kprobe_pmu() &&
	    !(tracefs_tracing_dir() && tracefs_file_exists(NULL, "kprobe_events"))) {
		snprintf(why, size,
			 "this kernel has no kprobes: no kprobe PMU and no kprobe_events "
			 "in tracefs (CONFIG_KPROBES off)");
		return -1;
	}
	if (ba->attach == ATTACH_UPROBE && !p->t->off) {
		snprintf(why, size, "cannot find %s() in %.150s", p->t->fn, p->t->exe);
		return -1;
	}
	if (p->t->kind == TGT_GPIO_PULSE) {
		if (probe_gpio_hook_check(p, why, size))
			return -1;
		p->obj = empty_gpio_bpf__open_opts(&oo);
	} else {
		p->obj = empty_bpf__open_opts(&oo);
	}
	obj = object(p);
	if (!obj) {
		snprintf(why, size, "opening the empty BPF object failed: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	for (n = 0; n < PROBE_MAX_PROGS && ba->progs[n]; n++) {
		p->progs[n] = bpf_object__find_program_by_name(obj, ba->progs[n]);
		if (!p->progs[n]) {
			snprintf(why, size, "no program %s in the empty BPF object", ba->progs[n]);
			return -1;
		}
		bpf_program__set_autoload(p->progs[n], true);
		if (ba->attach != ATTACH_BTF)
			continue;
		if (probe_func(ba->funcs[n], ba->syscalls, fn, sizeof(fn), why, size))
			return -1;
		err = bpf_program__set_attach_target(p->progs[n], 0, fn);
		if (err) {
			snprintf(why, size, "no BTF for %s: %s (CONFIG_DEBUG_INFO_BTF?)", fn,
				 probe_errstr(err, buf, sizeof(buf)));
			return -1;
		}
	}
	err = bpf_object__load(obj);
	if (err) {
		snprintf(why, size, "loading %s failed: %s (gpiolat -v shows why)",
			 bpf_program__section_name(p->progs[0]),
			 probe_errstr(err, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

static int empty_on(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	struct bpf_program *prog = p->progs[0];
	char fn[64];
	int i;

	if (p->t->kind == TGT_GPIO_PULSE)
		gpio_phases_start(p);
	switch (ba->attach) {
	case ATTACH_SECTION:
	case ATTACH_BTF:
		for (i = 0; i < PROBE_MAX_PROGS && p->progs[i]; i++)
			if (probe_link_add(p, bpf_program__attach(p->progs[i]),
					   bpf_program__section_name(p->progs[i]), why, size))
				return -1;
		return 0;
	case ATTACH_KPROBE:
		for (i = 0; i < PROBE_MAX_LINKS && ba->funcs[i]; i++)
			if (probe_func(ba->funcs[i], ba->syscalls, fn, sizeof(fn), why, size) ||
			    probe_link_add(p, bpf_program__attach_kprobe(prog, false, fn), fn, why,
					   size))
				return -1;
		return 0;
	case ATTACH_UPROBE:
		snprintf(fn, sizeof(fn), "a uprobe on %s()", p->t->fn);
		return probe_link_add(
			p, bpf_program__attach_uprobe(prog, false, p->t->pid, p->t->exe, p->t->off),
			fn, why, size);
	case ATTACH_RAW_TP:
		snprintf(fn, sizeof(fn), "%s", ba->event);
		return probe_link_add(p, bpf_program__attach_raw_tracepoint(prog, ba->event), fn,
				      why, size);
	}
	return -1;
}

static int empty_off(struct probe *p)
{
	bool was_on = p->nlinks > 0;

	probe_links_destroy(p);
	if (was_on && p->t->kind == TGT_GPIO_PULSE)
		gpio_phases_end(p);
	return 0;
}

static int empty_figures(struct probe *p, struct probe_figures *f)
{
	int i;

	if (!p->progs[0])
		return -1;
	for (i = 0; i < PROBE_MAX_PROGS && p->progs[i]; i++)
		probe_prog_figures(bpf_program__fd(p->progs[i]), f);
	if (p->t->kind == TGT_GPIO_PULSE)
		gpio_phases_figures(p, f);
	return 0;
}

static void empty_teardown(struct probe *p)
{
	empty_off(p);
	gpio_phases_free(p);
	if (p->t->kind == TGT_GPIO_PULSE)
		empty_gpio_bpf__destroy(p->obj);
	else
		empty_bpf__destroy(p->obj);
	p->obj = NULL;
	memset(p->progs, 0, sizeof(p->progs));
}

const struct provider prov_bpf_empty = { .name = "empty BPF program",
					 .targets = TGT_GPIO_PULSE | TGT_SYSCALLS,
					 .setup = empty_setup,
					 .on = empty_on,
					 .off = empty_off,
					 .teardown = empty_teardown,
					 .figures = empty_figures,
					 .count = probe_run_count,
					 .counted_by = "its run count (--bpf-stats)" };
