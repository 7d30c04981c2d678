// SPDX-License-Identifier: GPL-2.0
/* gpiolat and utoggle: the file offset of a function of ours (maps_offset.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "maps_offset.h"

unsigned long maps_offset(const void *fn, const char *exe)
{
	unsigned long addr = (unsigned long)fn, lo, hi, off, found = 0;
	char line[PATH_MAX + 128], path[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &off, path) < 3)
			continue;
		if (addr >= lo && addr < hi && !strcmp(path, exe)) {
			found = addr - lo + off;
			break;
		}
	}
	fclose(f);
	return found;
}
