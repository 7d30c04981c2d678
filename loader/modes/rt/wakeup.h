/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat --wakeup (loader/modes/rt/wakeup.c): its entry points, for main.c */
#ifndef GPIOLAT_WAKEUP_H
#define GPIOLAT_WAKEUP_H

#include <stdbool.h>

bool wakeup_wanted(int argc, char **argv);
int wakeup_main(int argc, char **argv);

#endif /* GPIOLAT_WAKEUP_H */
