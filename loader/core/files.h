/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the files a user names on the command line (--btf, --baseline, --kmod,
 * --bpftrace-script), opened so that a FIFO, a device or a directory is refused at once, never
 * waited on (loader/core/files.c).
 */
#ifndef GPIOLAT_FILES_H
#define GPIOLAT_FILES_H

#include <stddef.h>

/*
 * PATH, the argument of option OPT ("--btf"), open for reading when it is a regular file: the
 * fd (O_CLOEXEC), or -1 and why ("--btf: /tmp/x is a FIFO, not a regular file"). Never blocks:
 * stat first (a FIFO, device, socket or directory is refused without being opened), then
 * open with O_NONBLOCK | O_NOCTTY and fstat again, so a path swapped for a FIFO in between
 * neither blocks nor passes.
 */
int file_arg_open(const char *opt, const char *path, char *why, size_t size);
/* the same check for a file that another reader opens later by its path (libbpf, bpftrace,
 * finit_module): 0, or -1 and why */
int file_arg_check(const char *opt, const char *path, char *why, size_t size);

#endif /* GPIOLAT_FILES_H */
