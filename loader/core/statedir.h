/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the state directory. The saved state (the top level's tracer, the toggle module's
 * parameters and the path of the toggle.ko to load) and our children's output: only here, in
 * a directory only root can use, never in a world-writable place like /tmp, from which anybody
 * could have us load a module. The on-disk record lets the next run (or gpiolat --cleanup) undo
 * what a SIGKILLed run could not.
 */
#ifndef GPIOLAT_STATEDIR_H
#define GPIOLAT_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define STATE_DIR "/run/gpiolat"

/* the whole of an open file (fd closed) or of a file, NUL-terminated; NULL on failure, and
 * (errno EFBIG) for more than SLURP_MAX bytes: every file read whole is small */
#define SLURP_MAX (1024 * 1024)
char *fd_slurp(int fd);
char *file_slurp(const char *path);
/* not a link, root's, writable by nobody else */
bool root_only(const struct stat *st);
/* is STATE_DIR ours? 1 ours, 0 missing (!create), -1 and why */
int state_dir_open(bool create, char *why, size_t size);
/* STATE_DIR/NAME; 0, or -1 when it does not fit */
int state_path(char *buf, size_t size, const char *name);
/* a state file, when it is a regular file of root's; else NULL (*bad set when unusable) */
char *state_read(const char *name, bool *bad);
/* save VALUE as NAME; the first saved value is the one to restore */
int state_save(const char *name, const char *value);

#endif /* GPIOLAT_STATEDIR_H */
