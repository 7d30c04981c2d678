// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: empty programs on gpiolat's hooks (loader/providers/gpio_hooks.h), the floor of what any BPF
 * program costs there (the hook's dispatch alone), and the floor of gpiolat's own programs. The loader keeps one of them
 * (bpf_program__set_autoload), like bpf/gpiolat.bpf.c.
 */
#include "gpiolat_core.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("tp/gpio/gpio_value")
int empty_gpio_tp(void *ctx)
{
	return 0;
}

SEC("kprobe/gpiod_set_value")
int empty_gpio_kprobe(void *ctx)
{
	return 0;
}

SEC("fentry/gpiod_set_value")
int BPF_PROG(empty_gpio_fentry)
{
	return 0;
}

SEC("tp_btf/gpio_value")
int BPF_PROG(empty_gpio_tp_btf)
{
	return 0;
}

/*
 * The floor of gpiolat's own programs on each hook (make bench-gpio): the empty program plus
 * the one clock read a pulse width needs at each set. The helper call stays though its value is
 * unused: a helper is an opaque call for the compiler.
 */
SEC("tp/gpio/gpio_value")
int floor_gpio_tp(void *ctx)
{
	bpf_ktime_get_ns();
	return 0;
}

SEC("kprobe/gpiod_set_value")
int floor_gpio_kprobe(void *ctx)
{
	bpf_ktime_get_ns();
	return 0;
}

SEC("fentry/gpiod_set_value")
int BPF_PROG(floor_gpio_fentry)
{
	bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/gpio_value")
int BPF_PROG(floor_gpio_tp_btf)
{
	bpf_ktime_get_ns();
	return 0;
}

/* fexit: attached by the loader to the function it names (set_attach_target) */
SEC("fexit")
int BPF_PROG(empty_gpio_fexit)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
