// SPDX-License-Identifier: GPL-2.0
/* gpiolat: one probe and its steps, and what every provider family shares (provider.h). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <tracefs.h>
#include "core/sys.h"
#include "providers/provider.h"

void probe_init(struct probe *p, const struct provider *ops, const struct probe_args *a,
		struct target *t)
{
	static const struct probe_args none;

	memset(p, 0, sizeof(*p));
	p->ops = ops;
	p->a = a ? a : &none;
	p->t = t;
}

const struct events_args *probe_ev(const struct probe *p)
{
	static const struct events_args none;

	return p->a->ev ?: &none;
}

const struct bpf_args *probe_bpf(const struct probe *p)
{
	static const struct bpf_args none;

	return p->a->bpf ?: &none;
}

const struct tool_args *probe_tool(const struct probe *p)
{
	static const struct tool_args none;

	return p->a->tool ?: &none;
}

int probe_setup(struct probe *p, char *why, size_t size)
{
	if (p->ops && !(p->ops->targets & p->t->kind)) {
		snprintf(why, size, "%s cannot measure this target", p->ops->name);
		return -1;
	}
	return p->ops && p->ops->setup ? p->ops->setup(p, why, size) : 0;
}

int probe_on(struct probe *p, char *why, size_t size)
{
	return p->ops && p->ops->on ? p->ops->on(p, why, size) : 0;
}

int probe_off(struct probe *p)
{
	return p->ops && p->ops->off ? p->ops->off(p) : 0;
}

void probe_teardown(struct probe *p)
{
	if (p->ops && p->ops->teardown)
		p->ops->teardown(p);
}

int probe_figures(struct probe *p, struct probe_figures *f)
{
	return p->ops && p->ops->figures ? p->ops->figures(p, f) : -1;
}

int probe_read(struct probe *p, void *out, char *why, size_t size)
{
	if (p->ops && p->ops->read)
		return p->ops->read(p, out, why, size);
	snprintf(why, size, "%s has nothing to read", p->ops ? p->ops->name : "nothing");
	return -1;
}

int probe_count(struct probe *p, __u64 *n, unsigned int *per_pulse, char *why, size_t size)
{
	if (p->ops && p->ops->count)
		return p->ops->count(p, n, per_pulse, why, size);
	if (p->ops)
		snprintf(why, size, "%s keeps no count", p->ops->name);
	else
		snprintf(why, size, "nothing is switched on: nothing to count");
	return 1;
}

int kept_count_read(struct probe *p, struct kept_count *k, kept_reader read, __u64 *n)
{
	if (!k || (k->live && read(p, &k->n)))
		return -1;
	*n = k->n;
	return 0;
}

void kept_count_off(struct probe *p, struct kept_count *k, kept_reader read)
{
	if (!k)
		return;
	if (k->live && read(p, &k->n))
		k->n = 0;
	k->live = false;
}

const char *probe_counted_by(const struct probe *p)
{
	return p->ops && p->ops->counted_by ? p->ops->counted_by : "nothing";
}

/* the number after WORD in TEXT, summed over every WORD */
static __u64 sum_after(const char *text, const char *word)
{
	const char *s = text;
	__u64 n = 0;

	while ((s = strstr(s, word))) {
		s += strlen(word);
		n += strtoull(s, NULL, 10);
	}
	return n;
}

int probe_event_switch(struct tracefs_instance *inst, const char *sys, const char *ev, bool on)
{
	return tracefs_event_file_write(inst, sys, ev, "enable", on ? "1" : "0") < 0 ? -1 : 0;
}

int probe_ring_events(struct tracefs_instance *inst, __u64 *n)
{
	char file[64], *t;
	int cpu;

	*n = 0;
	for (cpu = 0;; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (!tracefs_file_exists(inst, file))
			break;
		t = tracefs_instance_file_read(inst, file, NULL);
		if (!t)
			return -1;
		/* "entries: N", "overrun: N", "dropped events: N" ("commit overrun" apart) */
		*n += sum_after(t, "\nentries: ") + sum_after(t, "\noverrun: ") +
		      sum_after(t, "dropped events: ");
		if (!strncmp(t, "entries: ", 9))
			*n += strtoull(t + 9, NULL, 10);
		free(t);
	}
	return cpu ? 0 : -1;
}

int probe_trace_lines(struct tracefs_instance *inst, const char *word, __u64 *n)
{
	char *t = tracefs_instance_file_read(inst, "trace", NULL), *s;

	*n = 0;
	if (!t)
		return -1;
	for (s = t; (s = strstr(s, word)); s += strlen(word))
		(*n)++;
	free(t);
	return 0;
}

int probe_need_instance(const struct probe *p, char *why, size_t size)
{
	if (p->t->inst)
		return 0;
	snprintf(why, size,
		 "no tracefs instance of our own (mkdir %s/instances/%s failed: instances need "
		 "CONFIG_TRACING)",
		 sys_tracefs_dir() ?: "tracefs", p->t->instance);
	return -1;
}

const char *probe_errstr(int err, char *buf, size_t size)
{
	err = err < 0 ? -err : err;
	if (err == 524)
		snprintf(buf, size,
			 "error 524 (ENOTSUPP): not supported by this kernel or its JIT");
	else
		snprintf(buf, size, "%s", strerror(err));
	return buf;
}

int probe_link_add(struct probe_progs *pp, struct bpf_link *l, const char *what, char *why,
		   size_t size)
{
	char buf[96];
	int err = libbpf_get_error(l);

	if (!l || err || pp->nlinks == PROBE_MAX_LINKS) {
		snprintf(why, size, "attaching %s failed: %s", what,
			 probe_errstr(err ? err :
				      l	  ? ENOSPC :
					    errno,
				      buf, sizeof(buf)));
		if (l && !err)
			bpf_link__destroy(l);
		return -1;
	}
	pp->links[pp->nlinks++] = l;
	return 0;
}

int probe_links_destroy(struct probe_progs *pp)
{
	int n = pp->nlinks;

	while (pp->nlinks > 0)
		bpf_link__destroy(pp->links[--pp->nlinks]);
	return n;
}

void probe_prog_figures(int fd, struct probe_figures *f)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	f->run_cnt += info.run_cnt;
	f->run_time_ns += info.run_time_ns;
	f->recursion_misses += info.recursion_misses;
	f->nprogs++;
}

/*
 * The run count of its programs (bpf_prog_info run_cnt, a running total: only with the BPF
 * run-time stats on, --bpf-stats), each once a set on the GPIO set
 */
int probe_run_count(const struct probe *p, const struct probe_progs *pp, __u64 *n,
		    unsigned int *per_pulse, char *why, size_t size)
{
	struct probe_figures f = {};
	int i;

	*per_pulse = 2;
	if (p->t->run->stats_fd < 0) {
		snprintf(why, size, "no run count: BPF run-time stats off (--bpf-stats)");
		return 1;
	}
	for (i = 0; pp && i < PROBE_MAX_PROGS && pp->progs[i]; i++)
		probe_prog_figures(bpf_program__fd(pp->progs[i]), &f);
	*n = f.run_cnt;
	if (!f.nprogs)
		snprintf(why, size, "cannot read its programs' run counts");
	return f.nprogs ? 0 : -1;
}

void *probe_priv(struct probe *p, size_t size)
{
	if (!p->priv)
		p->priv = calloc(1, size);
	return p->priv;
}

void probe_priv_free(struct probe *p)
{
	free(p->priv);
	p->priv = NULL;
}
