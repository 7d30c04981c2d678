/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: the no-BTF kprobe's pre-phase programs, part of bpf/gpiolat.bpf.c (included at its end) */
#ifndef GPIOLAT_PAIR_BPF_H
#define GPIOLAT_PAIR_BPF_H

/*
 * The no-BTF kprobe's pre-phase (loaded and attached only then, never while measuring): the
 * kprobe on gpiod_set_value() keeps desc and the task in this CPU's slot; the tracepoint that
 * gpiod_set_value() fires for that desc (gpiod_set_raw_value_commit(): trace_gpio_value(
 * desc_to_gpio(desc), 0, value)) takes the slot when the same task set it, and pairs the desc
 * with the record's GPIO number; the kretprobe empties the slot, so a set that fired no
 * tracepoint (an open-drain line) pairs with nothing. A desc paired with two GPIO numbers counts
 * a conflict: the loader then refuses the kprobe.
 */
SEC("?kprobe/gpiod_set_value")
int BPF_KPROBE(gpiolat_pair_kprobe, struct gpio_desc *desc)
{
	__u32 zero = 0;
	struct gpiolat_pair *p = bpf_map_lookup_elem(&pair_slot, &zero);

	if (p) {
		p->desc = (__u64)desc;
		p->pid_tgid = bpf_get_current_pid_tgid();
	}
	return 0;
}

SEC("?kretprobe/gpiod_set_value")
int BPF_KRETPROBE(gpiolat_pair_ret)
{
	__u32 zero = 0;
	struct gpiolat_pair *p = bpf_map_lookup_elem(&pair_slot, &zero);

	if (p && p->pid_tgid == bpf_get_current_pid_tgid())
		p->desc = 0;
	return 0;
}

SEC("?tp/gpio/gpio_value")
int gpiolat_pair_tp(struct trace_event_raw_gpio_value *ctx)
{
	struct gpiolat_desc d = {}, *e;
	struct gpiolat_pair *p;
	__u32 zero = 0;
	__u64 desc;

	if (ctx->get)
		return 0;
	p = bpf_map_lookup_elem(&pair_slot, &zero);
	if (!p || !p->desc || p->pid_tgid != bpf_get_current_pid_tgid())
		return 0;
	desc = p->desc;
	p->desc = 0;
	e = bpf_map_lookup_elem(&desc_lines, &desc);
	if (!e) {
		d.gpio = ctx->gpio;
		d.seen = 1;
		bpf_map_update_elem(&desc_lines, &desc, &d, BPF_NOEXIST);
		return 0;
	}
	if (e->gpio == ctx->gpio)
		e->seen++;
	else
		e->conflicts++;
	return 0;
}

#endif /* GPIOLAT_PAIR_BPF_H */
