// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --syscall-cost (docs/syscall-cost.md): being written.
 */
#include <stdio.h>
#include <string.h>
#include "syscall_cost.h"

bool syscall_cost_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--syscall-cost"))
			return true;
	return false;
}

int syscall_cost_main(int argc, char **argv)
{
	fprintf(stderr, "gpiolat: --syscall-cost is not there yet\n");
	return 1;
}
