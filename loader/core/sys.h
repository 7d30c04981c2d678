/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: what the running system offers: tracefs, kprobes, kernel BTF, GPIO chips, the toggle
 * module's debugfs files. Each check says why not in a buffer the caller prints.
 */
#ifndef GPIOLAT_SYS_H
#define GPIOLAT_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;

#define WHY_SIZE 256

/* the kernel's BTF, or the file given (--btf); NULL and why (a run's: run_btf, core/run.h) */
struct btf *sys_load_btf(const char *custom, char *why, size_t size);
/* sizeof(struct gpio_desc) in that BTF, or 0 and why */
__u32 sys_gpio_desc_size(const struct btf *btf, char *why, size_t size);

/* tracefs, mounted if it is not; NULL when there is none */
const char *sys_tracefs_dir(void);
/* can each hook be attached here? 0, or -1 and why ("no CONFIG_KPROBES: ...") */
int sys_check_tracepoint(const struct btf *btf, char *why, size_t size);
/* kprobe: gpiod_set_value in KERNEL_BTF (the kernel's own BTF, or NULL), else in kallsyms */
int sys_check_kprobe(const struct btf *kernel_btf, char *why, size_t size);
/* fentry: gpiod_set_value in the kernel's BTF VMLINUX (its caller loads it) */
int sys_check_fentry(const struct btf *vmlinux, char *why, size_t size);
/*
 * a kernel without BTF: the gpio:gpio_value record's fields gpio, get and value where gpiolat's
 * object without CO-RE reads them (GPIOLAT_TP_OFF_*, 4 bytes each), as the event's format file in
 * tracefs says; 0, or -1 and why
 */
int sys_check_tp_format(char *why, size_t size);

/* a --line argument: N, CHIPLABEL:OFFSET or gpiochipN:OFFSET; 0, or -1 and why */
int sys_resolve_line(const char *spec, __u32 *gpio, char *chip, size_t chip_size, int *offset,
		     char *why, size_t size);
/* the chip label and offset of a global number, when a chip covers it */
int sys_gpio_name(__u32 gpio, char *chip, size_t chip_size, int *offset);

/* the global numbers of the lines of every chip whose base is known, at most max; how many,
 * and in unknown how many chips have no known base (no /sys/class/gpio, no debugfs) */
int sys_gpio_lines(__u32 *gpio, int max, int *unknown);

/* the first line of a file, trailing blanks cut; 0, or -1 */
int sys_read_str(const char *path, char *buf, size_t size);
/*
 * the fields of a /proc/PID/stat line after "PID (COMM) ", its state letter first (COMM may hold
 * spaces and parentheses: after the last ')'), or NULL when STAT is not one
 */
const char *sys_stat_fields(const char *stat);
/* a file holding a decimal number; 0, or -1 */
int sys_read_long(const char *path, long *v);

/* are we running under emulation (GPIOLAT_TARGET=emulated or a QEMU DMI vendor)? */
bool sys_emulated(void);
/*
 * the guest's clock as vm/run says it (GPIOLAT_TIMING): "icount" or "real" under emulation, NULL
 * when it said nothing; natively "real" (the hardware's own)
 */
const char *sys_timing(void);
/* root, or CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN) */
bool sys_privileged(void);

/* the toggle module (docs/toggle-module.md) */
struct toggle_batch {
	__u64 seq, pulses, ns;
};
bool toggle_present(void);
int toggle_edges(__u64 *rising, __u64 *falling);
int toggle_gpio(__u32 *gpio);
int toggle_enabled(void); /* 1, 0, or -1 */
/* exactly n pulses, then the module stops by itself */
int toggle_start_pulses(__u64 n);
/* toggle until toggle_stop(); both clear any pulse limit (pulses=0), 0 or -errno */
int toggle_start(void);
int toggle_stop(void);
/* the batches with seq > after, oldest first, at most max (the newest); how many, or -1 */
int toggle_batches(__s64 after, struct toggle_batch *b, int max);
/* the sequence number of the newest batch, -1 when there is none yet */
__s64 toggle_last_seq(void);

/* the first of NAMES[0..n) that is a function in /proc/kallsyms (text, T or t): its index, or
 * -1 (none, or no kallsyms) */
int sys_kallsyms_find(const char *const *names, int n);

/* write s to path: 0 or -errno */
int sys_write_str(const char *path, const char *s);

/* an executable NAME on $PATH (or, root's PATH may lack it, in /usr/sbin): its path */
bool sys_find_program(const char *name, char *path, size_t size);

#endif /* GPIOLAT_SYS_H */
