/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: where a function of ours is in our executable file, for a uprobe on it: one
 * function, compiled into both gpiolat (its --syscall-cost worker) and utoggle.
 */
#ifndef GPIOLAT_MAPS_OFFSET_H
#define GPIOLAT_MAPS_OFFSET_H

/*
 * A uprobe's target: a real, global function that every call goes through (never inlined or
 * cloned away). On 32-bit ARM built as Thumb (Debian armhf's compilers' default) it is built
 * as ARM code: the kernel's ARM uprobes decode ARM instructions only and refuse a Thumb
 * function's address (odd: bit 0 set) with EINVAL (arch/arm/probes/uprobes/core.c,
 * arch_uprobe_analyze_insn), which made every uprobe row "not available" on armhf.
 * __uretprobe_caller: a function that calls a uretprobe's target is ARM code too: the kernel
 * returns from the uretprobe to the saved return address in ARM state, and a Thumb caller's
 * (odd) return address then faults (SIGSEGV). Elsewhere both are plain.
 */
#if defined(__arm__) && defined(__thumb__)
#define __UPROBE_ISA , target("arm")
#define __uretprobe_caller __attribute__((noinline, target("arm")))
#else
#define __UPROBE_ISA
#define __uretprobe_caller
#endif
#ifdef __clang__
#define __uprobe_target __attribute__((noinline, used __UPROBE_ISA))
#else
#define __uprobe_target __attribute__((noinline, noclone, used __UPROBE_ISA))
#endif

/* the file offset of ADDR in EXE (as /proc/self/maps names it), from /proc/self/maps; 0 if
 * unknown */
unsigned long maps_offset(const void *addr, const char *exe);

#endif /* GPIOLAT_MAPS_OFFSET_H */
