// SPDX-License-Identifier: GPL-2.0
/*
 * Where a BTF for the running kernel is, when the kernel has none of its own (Debian's armmp
 * has no CONFIG_DEBUG_INFO_BTF): see btf_find.h. A small BTF of just the types our programs
 * relocate is made on the host by make (pahole on the -dbg package's vmlinux, then
 * bpftool gen min_core_btf against our BPF objects) and put beside the binary.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/btf_find.h"

const char *btf_find(const char *given)
{
	static char path[PATH_MAX + 80]; /* a folder, a release (65 at most) and ".btf" */
	char exe[PATH_MAX], *slash;
	struct utsname u;
	ssize_t n;

	if (given || !access("/sys/kernel/btf/vmlinux", R_OK) || uname(&u))
		return given;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/%s.btf", exe, u.release);
			if (!access(path, R_OK))
				return path;
		}
	}
	snprintf(path, sizeof(path), "/lib/modules/%s/vmlinux.btf", u.release);
	if (!access(path, R_OK))
		return path;
	return NULL;
}
