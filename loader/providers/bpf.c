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

/* the family's own (p->priv): its object, programs and links, the trust check's phases */
struct empty {
	void *skel; /* the GPIO set: struct empty_gpio_bpf; else struct empty_bpf */
	struct probe_progs pp;
	struct gpio_phases *ph; /* the GPIO set: allocated at its first on */
};

static struct bpf_object *object(const struct probe *p)
{
	struct empty *e = p->priv;

	if (!e || !e->skel)
		return NULL;
	return p->t->kind == TGT_GPIO_PULSE ? ((struct empty_gpio_bpf *)e->skel)->obj :
					      ((struct empty_bpf *)e->skel)->obj;
}

static int empty_setup(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = p->t->btf_path);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct empty *e;
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
	e = probe_priv(p, sizeof(*e));
	if (!e) {
		snprintf(why, size, "out of memory");
		return -1;
	}
	if (p->t->kind == TGT_GPIO_PULSE) {
		if (probe_gpio_hook_check(p, why, size))
			return -1;
		e->skel = empty_gpio_bpf__open_opts(&oo);
	} else {
		e->skel = empty_bpf__open_opts(&oo);
	}
	obj = object(p);
	if (!obj) {
		snprintf(why, size, "opening the empty BPF object failed: %s", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	for (n = 0; n < PROBE_MAX_PROGS && ba->progs[n]; n++) {
		e->pp.progs[n] = bpf_object__find_program_by_name(obj, ba->progs[n]);
		if (!e->pp.progs[n]) {
			snprintf(why, size, "no program %s in the empty BPF object", ba->progs[n]);
			return -1;
		}
		bpf_program__set_autoload(e->pp.progs[n], true);
		if (ba->attach != ATTACH_BTF)
			continue;
		if (probe_func(ba->funcs[n], ba->syscalls, fn, sizeof(fn), why, size))
			return -1;
		err = bpf_program__set_attach_target(e->pp.progs[n], 0, fn);
		if (err) {
			snprintf(why, size, "no BTF for %s: %s (CONFIG_DEBUG_INFO_BTF?)", fn,
				 probe_errstr(err, buf, sizeof(buf)));
			return -1;
		}
	}
	err = bpf_object__load(obj);
	if (err) {
		snprintf(why, size, "loading %s failed: %s (gpiolat -v shows why)",
			 bpf_program__section_name(e->pp.progs[0]),
			 probe_errstr(err, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

static int empty_on(struct probe *p, char *why, size_t size)
{
	const struct bpf_args *ba = probe_bpf(p);
	struct empty *e = p->priv;
	struct probe_progs *pp = &e->pp;
	struct bpf_program *prog = pp->progs[0];
	char fn[64];
	int i;

	if (p->t->kind == TGT_GPIO_PULSE) {
		if (!e->ph)
			e->ph = gpio_phases_alloc();
		gpio_phases_start(e->ph);
	}
	switch (ba->attach) {
	case ATTACH_SECTION:
	case ATTACH_BTF:
		for (i = 0; i < PROBE_MAX_PROGS && pp->progs[i]; i++)
			if (probe_link_add(pp, bpf_program__attach(pp->progs[i]),
					   bpf_program__section_name(pp->progs[i]), why, size))
				return -1;
		return 0;
	case ATTACH_KPROBE:
		for (i = 0; i < PROBE_MAX_LINKS && ba->funcs[i]; i++)
			if (probe_func(ba->funcs[i], ba->syscalls, fn, sizeof(fn), why, size) ||
			    probe_link_add(pp, bpf_program__attach_kprobe(prog, false, fn), fn, why,
					   size))
				return -1;
		return 0;
	case ATTACH_UPROBE:
		snprintf(fn, sizeof(fn), "a uprobe on %s()", p->t->fn);
		return probe_link_add(
			pp,
			bpf_program__attach_uprobe(prog, false, p->t->pid, p->t->exe, p->t->off),
			fn, why, size);
	case ATTACH_RAW_TP:
		snprintf(fn, sizeof(fn), "%s", ba->event);
		return probe_link_add(pp, bpf_program__attach_raw_tracepoint(prog, ba->event), fn,
				      why, size);
	}
	return -1;
}

static int empty_off(struct probe *p)
{
	struct empty *e = p->priv;

	if (e && probe_links_destroy(&e->pp) > 0 && p->t->kind == TGT_GPIO_PULSE)
		gpio_phases_end(e->ph);
	return 0;
}

static int empty_figures(struct probe *p, struct probe_figures *f)
{
	struct empty *e = p->priv;
	int i;

	if (!e || !e->pp.progs[0])
		return -1;
	for (i = 0; i < PROBE_MAX_PROGS && e->pp.progs[i]; i++)
		probe_prog_figures(bpf_program__fd(e->pp.progs[i]), f);
	if (p->t->kind == TGT_GPIO_PULSE)
		gpio_phases_figures(e->ph, f);
	return 0;
}

static int empty_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	struct empty *e = p->priv;

	return probe_run_count(p, e ? &e->pp : NULL, n, per_pulse, why, size);
}

static void empty_teardown(struct probe *p)
{
	struct empty *e = p->priv;

	empty_off(p);
	if (e) {
		gpio_phases_free(e->ph);
		if (p->t->kind == TGT_GPIO_PULSE)
			empty_gpio_bpf__destroy(e->skel);
		else
			empty_bpf__destroy(e->skel);
	}
	probe_priv_free(p);
}

const struct provider prov_bpf_empty = { .name = "empty BPF program",
					 .targets = TGT_GPIO_PULSE | TGT_SYSCALLS,
					 .setup = empty_setup,
					 .on = empty_on,
					 .off = empty_off,
					 .teardown = empty_teardown,
					 .figures = empty_figures,
					 .count = empty_count,
					 .counted_by = "its run count (--bpf-stats)" };
