/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --overhead: the toggle module reloaded with mode=printk or mode=continuous (the
 * trace_printk row; --path: mode=continuous burst=1000), its parameters as loaded saved in the state directory first and put back
 * on every way out (kmod_restore) or, after a SIGKILL, by the next run (kmod_restore_saved).
 */
#ifndef GPIOLAT_KMOD_RELOAD_H
#define GPIOLAT_KMOD_RELOAD_H

#include <limits.h>
#include <stdbool.h>

/* the toggle.ko to reload: --kmod, else $GPIOLAT_KMOD */
extern char kmod_file[PATH_MAX];
/* check the file, save the parameters, reload with mode=continuous; 0, or -1 and why */
int kmod_reload_setup(char *why);
/* the same with the parameters SET ("mode=continuous burst=1000") in place of the loaded ones */
int kmod_reload_setup_with(const char *set, char *why);
/* reload with mode=printk or mode=continuous (nothing when it has it); 0, or -1 and errno */
int kmod_reload_printk(bool printk);
/* the module back as it was loaded; 0 or -1 */
int kmod_restore(void);
/* an interrupted run's saved parameters put back; FOUND set when there were any */
int kmod_restore_saved(bool *found);

#endif /* GPIOLAT_KMOD_RELOAD_H */
