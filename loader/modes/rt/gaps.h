/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat --gaps (loader/modes/rt/gaps.c): its entry points, for main.c */
#ifndef GPIOLAT_GAPS_H
#define GPIOLAT_GAPS_H

#include <stdbool.h>

bool gaps_wanted(int argc, char **argv);
int gaps_main(int argc, char **argv);

#endif /* GPIOLAT_GAPS_H */
