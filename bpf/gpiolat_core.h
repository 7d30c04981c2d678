/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the kernel types the BPF programs read, declared here rather than taken from a
 * vmlinux.h. The build host's kernel has no GPIO subsystem, so its BTF (and any vmlinux.h made
 * from it) has none of these types. Each struct carries preserve_access_index: clang records
 * every field access as a CO-RE relocation, and libbpf fixes the offsets at load time against
 * the running kernel's BTF (or the file given with --btf). Only the fields read are declared;
 * their order and the struct sizes here do not matter.
 *
 * Every workaround for a kernel change goes here, citing the change.
 */
#ifndef GPIOLAT_CORE_H
#define GPIOLAT_CORE_H

#include <linux/types.h>
#include <linux/bpf.h>
/*
 * struct pt_regs for PT_REGS_PARM*() of bpf_tracing.h (kprobe arguments). The uapi layout is
 * the kernel's on x86_64 and arm64, but the 32-bit arm one is made of longs, which are 64 bits
 * wide for clang -target bpf: declare the 32-bit layout there instead.
 */
#if defined(__TARGET_ARCH_arm)
struct pt_regs {
	__u32 uregs[18];
};
#else
#include <asm/ptrace.h>
#endif

#define __core __attribute__((preserve_access_index))

/*
 * drivers/gpio/gpiolib.h. The global GPIO number of a descriptor is
 * gdev->base + (desc - gdev->descs) (desc_to_gpio()). gdev->base has been there since
 * v4.6 (ff2b13592299 "gpio: make the gpiochip a real device").
 */
struct gpio_device {
	int base;
	struct gpio_desc *descs;
} __core;

struct gpio_desc {
	struct gpio_device *gdev;
} __core;

/*
 * CORE_READ_PTR(src, field): a pointer field read with the running kernel's pointer size, as a
 * __u64. BPF pointers are 8 bytes wide, a 32-bit ARM kernel's 4: BPF_CORE_READ() would read 8
 * (the pointer and the field after it: a garbage address, every set then lost). The size and
 * offset are CO-RE relocations (the kernel's, from its BTF); the bytes land in the low half of a
 * zeroed __u64 (little-endian targets only: x86_64, arm, arm64).
 */
#define CORE_READ_PTR(src, field)                                                                 \
	({                                                                                        \
		__u64 __v = 0;                                                                    \
		bpf_probe_read_kernel(&__v, bpf_core_field_size((src)->field),                    \
				      (const void *)(src) + bpf_core_field_offset((src)->field)); \
		__v;                                                                              \
	})

/*
 * The record of the gpio:gpio_value trace event (include/trace/events/gpio.h): the 8-byte common
 * header, then "unsigned gpio; int get; int value;". TRACE_EVENT() names its record struct
 * trace_event_raw_<event>, which is how it appears in the kernel's BTF.
 */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __core;

struct trace_event_raw_gpio_value {
	struct trace_entry ent;
	unsigned int gpio;
	int get;
	int value;
} __core;

#endif /* GPIOLAT_CORE_H */
