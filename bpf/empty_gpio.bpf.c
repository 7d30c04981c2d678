// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: empty programs on gpiolat's three hooks, the floor of what any BPF
 * program costs there (the hook's dispatch alone). The loader keeps one of them
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

/* fexit: attached by the loader to the function it names (set_attach_target) */
SEC("fexit")
int BPF_PROG(empty_gpio_fexit)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
