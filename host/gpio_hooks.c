// SPDX-License-Identifier: GPL-2.0
/*
 * Runs on the host at build time: writes the loader's table of GPIO hooks
 * (loader/providers/gpio_hooks.h) as `gpiolat --list --json` prints it, to out/gpio-hooks.json,
 * for the host scripts (host/gpio_hooks.py), which run where the target's gpiolat cannot.
 */
#include "providers/gpio_hooks.h"

int main(void)
{
	gpio_hooks_print(stdout, true);
	return ferror(stdout) || fflush(stdout) ? 1 : 0;
}
