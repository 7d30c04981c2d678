// SPDX-License-Identifier: GPL-2.0
/* Is the BPF JIT on? See jit.h. */
#include <stdio.h>

#include "core/jit.h"

const char *jit_state(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_enable", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	switch (v) {
	case 0:
		return "off: programs run interpreted (bpf_jit_enable=0; echo 1 to turn it on)";
	case 1:
		return "on: programs run JIT-compiled (bpf_jit_enable=1)";
	case 2:
		return "on, with debug output (bpf_jit_enable=2)";
	default:
		/* no such file: a kernel built with CONFIG_BPF_JIT_ALWAYS_ON and no knob, or none */
		return "unknown (no readable /proc/sys/net/core/bpf_jit_enable)";
	}
}
