/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat --overhead: the toggle module reloaded with mode=printk or mode=continuous (the
 * trace_printk row; --path: mode=continuous burst=1000), its parameters as loaded saved in the
 * state directory first and put back on every way out (kmod_restore) or, after a SIGKILL, by
 * the next run (kmod_restore_saved).
 */
#ifndef GPIOLAT_KMOD_RELOAD_H
#define GPIOLAT_KMOD_RELOAD_H

#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>

/* the toggle.ko to reload (--kmod): it becomes $GPIOLAT_KMOD, read by the reloads; 0 or -1 */
int kmod_set_file(const char *file);
/*
 * check the file, save the parameters, reload with mode=continuous, the new GPIO number of its
 * line in *GPIO (when not NULL); 0, or -1 and why
 */
int kmod_reload_setup(__u32 *gpio, char *why);
/* the same with the parameters SET ("mode=continuous burst=1000") in place of the loaded ones */
int kmod_reload_setup_with(const char *set, __u32 *gpio, char *why);
/*
 * check the file, save the parameters, unload the module (its line free for another user, as
 * --overhead --user-line module's utoggle); kmod_restore() loads it back; 0, or -1 and why
 */
int kmod_unload_setup(char *why);
/* reload with mode=printk or mode=continuous (nothing when it has it); 0, or -1 and errno */
int kmod_reload_printk(bool printk, __u32 *gpio);
/* the module back as it was loaded (when a setup saved it); 0 or -1 */
int kmod_restore(__u32 *gpio);
/* an interrupted run's saved parameters put back; FOUND set when there were any */
int kmod_restore_saved(bool *found);

#endif /* GPIOLAT_KMOD_RELOAD_H */
