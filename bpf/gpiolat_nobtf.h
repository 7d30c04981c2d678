/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the kernel types of bpf/gpiolat.bpf.c for a kernel without BTF (Raspberry Pi OS's:
 * no CONFIG_DEBUG_INFO_BTF), in place of gpiolat_core.h: the same source compiled with
 * -DGPIOLAT_NOBTF into a second object (gpiolat_nobtf) with no CO-RE relocation at all, so that
 * libbpf loads it without the kernel's BTF. What the programs need of the kernel comes from what
 * every such kernel has:
 *   - the tracepoint's record: fixed offsets (gpiolat.h), checked by the loader against the
 *     event's format file in tracefs before load (a kernel whose format differs is refused);
 *   - the kprobe's arguments: the architecture's calling convention (PT_REGS_PARM1/2 of
 *     bpf_tracing.h with the pt_regs below, plain ctx reads); the GPIO number behind desc is not
 *     read from struct gpio_desc (no offsets without BTF) but looked up in the desc -> GPIO map
 *     the loader fills in a pre-phase (gpiolat.h, docs/btf.md).
 */
#ifndef GPIOLAT_NOBTF_H
#define GPIOLAT_NOBTF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include "gpiolat.h"

/* struct pt_regs as in gpiolat_core.h: the uapi layout, 32-bit on arm */
#if defined(__TARGET_ARCH_arm)
struct pt_regs {
	__u32 uregs[18];
};
#else
#include <asm/ptrace.h>
#endif

/* only an opaque pointer: no field of it is read */
struct gpio_desc;

/* the gpio:gpio_value record at the offsets the loader checked (GPIOLAT_TP_OFF_*) */
struct trace_event_raw_gpio_value {
	__u8 ent[GPIOLAT_TP_OFF_GPIO];
	unsigned int gpio;
	int get;
	int value;
};

_Static_assert(__builtin_offsetof(struct trace_event_raw_gpio_value, gpio) == GPIOLAT_TP_OFF_GPIO,
	       "gpio offset");
_Static_assert(__builtin_offsetof(struct trace_event_raw_gpio_value, get) == GPIOLAT_TP_OFF_GET,
	       "get offset");
_Static_assert(__builtin_offsetof(struct trace_event_raw_gpio_value, value) == GPIOLAT_TP_OFF_VALUE,
	       "value offset");

#endif /* GPIOLAT_NOBTF_H */
