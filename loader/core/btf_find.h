/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPIOLAT_BTF_FIND_H
#define GPIOLAT_BTF_FIND_H

/*
 * btf_find(given): the BTF file for CO-RE. GIVEN (--btf) when not NULL; NULL when the kernel
 * has its own (/sys/kernel/btf/vmlinux); else the first readable of
 *   DIR/RELEASE.btf                 DIR: the folder of the gpiolat binary (make dist puts it there)
 *   /lib/modules/RELEASE/vmlinux.btf
 * (RELEASE: uname -r), or NULL when there is none (the caller then says what is missing).
 * The string returned is static.
 */
const char *btf_find(const char *given);

#endif
