/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the GPIO hooks, listed once. Each row: its id (GPIO_HOOK_<ID>), the token its BPF
 * programs are named by (gpiolat_<tok> in bpf/gpiolat.bpf.c; empty_gpio_<tok> and
 * floor_gpio_<tok> in bpf/empty_gpio.bpf.c), its name (the histogram mode's --<name>, the
 * overhead rows bpf-gpiolat-<name>, bpf-empty-<name>, bpf-floor-<name> and
 * bpf-gpiolat-<tok>-plain), its family (the kernel mechanism), its section, what it needs from
 * the kernel (the kernel options, as tests/target/kconfig-needs says them), whether its program
 * needs sizeof(struct gpio_desc), the talk's row measured the same way (or NULL), its label,
 * its option's help, and whether it attaches only through the kernel's BTF (the function's or
 * the tracepoint's BTF id: no --btf file stands in for it). From it come the enum, gpio_hooks[], the histogram mode's options, the
 * overhead rows, `gpiolat --list --json` and, at build time, out/gpio-hooks.json for the host
 * scripts (host/gpio_hooks.c). Pure data: no libbpf.
 */
#ifndef GPIOLAT_GPIO_HOOKS_H
#define GPIOLAT_GPIO_HOOKS_H

#include <stdbool.h>
#include <stdio.h>

/* X(ID, tok, name, family, section, kconfig, desc, talk, label, help, btf) */
#define GPIO_HOOKS(X)                                                                              \
	X(TP, tp, "tracepoint", "tracepoint", "tp/gpio/gpio_value",                                \
	  "CONFIG_BPF_SYSCALL CONFIG_BPF_EVENTS", false, "bpf-ply-tracepoint",                     \
	  "tracepoint (tp/gpio/gpio_value)", "the gpio:gpio_value trace event (default)", false)   \
	X(KPROBE, kprobe, "kprobe", "kprobe", "kprobe/gpiod_set_value",                            \
	  "CONFIG_BPF_SYSCALL CONFIG_BPF_EVENTS CONFIG_KPROBES CONFIG_KPROBE_EVENTS", true, NULL,  \
	  "kprobe (gpiod_set_value)", "a kprobe on gpiod_set_value()", false)                      \
	X(FENTRY, fentry, "fentry", "BPF trampoline", "fentry/gpiod_set_value",                    \
	  "CONFIG_BPF_SYSCALL CONFIG_BPF_JIT CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS", true, NULL, \
	  "fentry (gpiod_set_value)", "fentry on gpiod_set_value() (BPF trampoline)", true)        \
	X(TP_BTF, tp_btf, "tp_btf", "BTF raw tracepoint", "tp_btf/gpio_value",                     \
	  "CONFIG_BPF_SYSCALL CONFIG_BPF_EVENTS CONFIG_DEBUG_INFO_BTF", false, NULL,               \
	  "BTF-typed tracepoint (tp_btf/gpio_value)",                                              \
	  "the gpio_value tracepoint as a BTF-typed raw tracepoint (needs the kernel's BTF)",      \
	  true)

/* the names a hook's row gives its programs and its overhead rows (gpio_hooks.c, ov_methods.c) */
#define GPIO_HOOK_PROG(tok) "gpiolat_" #tok
#define GPIO_HOOK_EMPTY_PROG(tok) "empty_gpio_" #tok
#define GPIO_HOOK_FLOOR_PROG(tok) "floor_gpio_" #tok
#define GPIO_HOOK_ROW(nm) "bpf-gpiolat-" nm
#define GPIO_HOOK_EMPTY_ROW(nm) "bpf-empty-" nm
#define GPIO_HOOK_FLOOR_ROW(nm) "bpf-floor-" nm
#define GPIO_HOOK_PLAIN_ROW(tok) "bpf-gpiolat-" #tok "-plain"

#define GPIO_HOOK_ENUM(ID, ...) GPIO_HOOK_##ID,
/* the hooks of one GPIO set; each has a program in the object */
enum gpio_hook { GPIO_HOOKS(GPIO_HOOK_ENUM) GPIO_HOOK_MAX };
#undef GPIO_HOOK_ENUM

/* each hook: its row of GPIO_HOOKS, and its programs' names */
struct gpio_hook_info {
	const char *name, *family, *hook, *kconfig, *talk, *label, *help;
	const char *prog, *empty_prog, *floor_prog;
	const char *row, *empty_row, *floor_row, *plain_row;
	bool desc;
	bool btf; /* attaches only through the kernel's BTF */
};
extern const struct gpio_hook_info gpio_hooks[GPIO_HOOK_MAX];

/* the hooks, one a line ("NAME FAMILY SECTION"), or as JSON (docs/output-format.md) */
void gpio_hooks_print(FILE *f, bool json);

#endif /* GPIOLAT_GPIO_HOOKS_H */
