/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat --path: the GPIO path decomposed (docs/gpio-path.md); its parts share path_int.h. */
#ifndef GPIOLAT_PATH_H
#define GPIOLAT_PATH_H

#include <stdbool.h>

/* does the command line ask for --path? */
bool path_wanted(int argc, char **argv);
/* the whole run, with its own options (gpiolat --path --help); the exit status */
int path_main(int argc, char **argv);

#endif /* GPIOLAT_PATH_H */
