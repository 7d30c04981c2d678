/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: where a function of ours is in our executable file, for a uprobe on it: one
 * function, compiled into both gpiolat (its --syscall-cost worker) and utoggle.
 */
#ifndef GPIOLAT_MAPS_OFFSET_H
#define GPIOLAT_MAPS_OFFSET_H

/* the file offset of ADDR in EXE (as /proc/self/maps names it), from /proc/self/maps; 0 if
 * unknown */
unsigned long maps_offset(const void *addr, const char *exe);

#endif /* GPIOLAT_MAPS_OFFSET_H */
