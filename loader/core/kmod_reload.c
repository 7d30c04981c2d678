// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the toggle module reloaded with another mode (kmod_reload.h), for the
 * trace_printk row. Its mode is a load-time parameter, so each phase reloads the module (which
 * gives its chip a new GPIO number: ov_gpio is read again; its debugfs depth, which a reload
 * resets to 10, is written back). Its original parameters and depth are saved to
 * STATE_DIR/KMOD_STATE first; they are put back after the row, on every way out, and by the
 * next run or --cleanup after a SIGKILL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "modes/overhead/ov.h"
#include "core/kmod_reload.h"
#include "core/statedir.h"
#include "core/sys.h"

#define KMOD_PARAMS "/sys/module/toggle/parameters/"
#define KMOD_STATE "toggle_params"

char kmod_file[PATH_MAX]; /* the toggle.ko to reload: --kmod or $GPIOLAT_KMOD */
static char kmod_orig[512]; /* its parameters as loaded, "mode=burst burst=5 ..." */
static char kmod_depth[16]; /* its debugfs depth (not a parameter), kept across reloads */
static bool kmod_changed; /* reloaded at least once: to be put back */
static const char mode_printk[] = "printk", mode_continuous[] = "continuous";
static const char *kmod_mode; /* the mode we last loaded it with */

/* the loaded module's parameters, as insmod takes them; 0, or -1 and why */
static int kmod_params(char *buf, size_t size, char *why)
{
	static const char *const names[] = { "mode", "burst", "nlines", "line", "chip", "prio" };
	char p[128], *v;
	size_t len = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++) {
		snprintf(p, sizeof(p), KMOD_PARAMS "%s", names[i]);
		v = file_slurp(p);
		if (!v) {
			if (i == 0) {
				snprintf(why, WHY,
					 "cannot read the toggle module's parameters (%s)", p);
				return -1;
			}
			continue;
		}
		v[strcspn(v, "\n")] = '\0';
		if (*v && strcmp(v, "(null)") && !strchr(v, ' '))
			len += snprintf(buf + len, len < size ? size - len : 0, "%s%s=%s",
					len ? " " : "", names[i], v);
		free(v);
	}
	if (len >= size) {
		snprintf(why, WHY, "the toggle module's parameters are too long");
		return -1;
	}
	return 0;
}

/* SET ("mode=continuous burst=1000") and the parameters of PARAMS that SET does not name */
static void kmod_with(char *out, size_t size, const char *params, const char *set)
{
	char copy[512], *t, *save = NULL;
	size_t len = snprintf(out, size, "%s", set), k;
	const char *s;

	snprintf(copy, sizeof(copy), "%s", params);
	for (t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		k = strcspn(t, "=") + 1;
		for (s = set; *s && strncmp(s, t, k); s += strcspn(s, " "), s += *s == ' ')
			;
		if (!*s && len < size)
			len += snprintf(out + len, size - len, " %s", t);
	}
}

/* PARAMS with mode=MODE in place of its mode */
static void kmod_with_mode(char *out, size_t size, const char *params, const char *mode)
{
	char set[64];

	snprintf(set, sizeof(set), "mode=%s", mode);
	kmod_with(out, size, params, set);
}

/*
 * FILE opened, when it is a module we load as root: an absolute path to a regular file of
 * root's (not a link) named toggle.ko; the fd, or -1 and why
 */
/*
 * Every directory above FILE (an absolute path): a directory, not a link, root's, writable by
 * nobody else unless sticky (/tmp): nobody but root can put another file at that path between
 * the save and a later run's restore. 0, or -1 and why.
 */
static int kmod_dirs_root_only(const char *file, char *why)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 1; file[i]; i++) {
		if (file[i] != '/')
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)i, file);
		/* root_only(), or root's and sticky (/tmp: nobody can move what is not theirs) */
		if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
		    !(root_only(&st) || (st.st_uid == 0 && (st.st_mode & S_ISVTX)))) {
			snprintf(why, WHY,
				 "%.90s is not a directory of root's that only root can write: "
				 "%.90s not loaded",
				 dir, file);
			return -1;
		}
	}
	return 0;
}

static int kmod_open(const char *file, char *why)
{
	const char *base = strrchr(file, '/');
	struct stat st;
	int fd;

	if (file[0] != '/' || !base || strcmp(base + 1, "toggle.ko")) {
		snprintf(why, WHY, "'%.150s' is not an absolute path to a toggle.ko: not loaded",
			 file);
		return -1;
	}
	if (kmod_dirs_root_only(file, why))
		return -1;
	fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, WHY, "cannot open %.150s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !root_only(&st)) {
		snprintf(why, WHY,
			 "%.150s is not a regular file of root's that only root can write: not "
			 "loaded",
			 file);
		close(fd);
		return -1;
	}
	return fd;
}

/* rmmod toggle (when loaded), insmod FILE PARAMS, and the new GPIO number; 0, or -1 and why */
static int kmod_load(const char *file, const char *params, char *why)
{
	int fd, i;

	fd = kmod_open(file, why);
	if (fd < 0)
		return -1;
	if (!access("/sys/module/toggle", F_OK) &&
	    syscall(__NR_delete_module, "toggle", O_NONBLOCK)) {
		snprintf(why, WHY, "the toggle module cannot be unloaded: %s%s", strerror(errno),
			 errno == EBUSY || errno == EAGAIN || errno == EWOULDBLOCK ?
				 " (busy: in use, or a line of its chip is held)" :
				 "");
		close(fd);
		return -1;
	}
	if (syscall(__NR_finit_module, fd, params, 0)) {
		snprintf(why, WHY, "cannot load %.100s %.100s: %s", file, params, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* its debugfs files, and the new number of the toggled line */
	for (i = 0; i < 250 && toggle_gpio(&ov_gpio); i++)
		poll(NULL, 0, 20);
	if (i == 250) {
		snprintf(why, WHY, "the toggle module loaded with '%.150s' has no debugfs files",
			 params);
		return -1;
	}
	/* a reload starts at depth 10: the depth it had before, back */
	if (kmod_depth[0] && sys_write_str("/sys/kernel/debug/toggle/depth", kmod_depth)) {
		snprintf(why, WHY, "cannot set the reloaded toggle module's depth to %.*s",
			 (int)strcspn(kmod_depth, "\n"), kmod_depth);
		return -1;
	}
	return 0;
}

/* the saved parameters of an interrupted run, put back; the state file removed (dir checked) */
int kmod_restore_saved(bool *found)
{
	char p[128], now[512], why[WHY], *v, *nl;
	bool bad = false;
	int err = 0;

	if (state_path(p, sizeof(p), KMOD_STATE))
		return 0;
	v = state_read(KMOD_STATE, &bad);
	if (!v)
		return bad ? -1 : 0;
	*found = true;
	nl = strchr(v, '\n');
	if (nl) {
		char *d;

		*nl = '\0';
		d = nl + 1 + strcspn(nl + 1, "\n");
		if (*d) {
			/* the third line: its depth */
			*d++ = '\0';
			if (*d >= '0' && *d <= '9')
				snprintf(kmod_depth, sizeof(kmod_depth), "%.*s\n",
					 (int)strcspn(d, "\n"), d);
		}
		/* loaded as it was: nothing to do */
		if (access("/sys/module/toggle", F_OK) || kmod_params(now, sizeof(now), why) ||
		    strcmp(now, nl + 1)) {
			if (kmod_load(v, nl + 1, why)) {
				fprintf(stderr, "gpiolat: putting the toggle module back: %s\n",
					why);
				err = -1;
			}
		}
	}
	free(v);
	if (!err)
		unlink(p);
	return err;
}

int kmod_reload_setup(char *why)
{
	return kmod_reload_setup_with("mode=continuous", why);
}

int kmod_reload_setup_with(const char *set, char *why)
{
	const char *env = getenv("GPIOLAT_KMOD");
	char params[600], *saved, real[PATH_MAX], *d;
	int fd;

	if (!kmod_file[0] && env)
		snprintf(kmod_file, sizeof(kmod_file), "%s", env);
	if (!kmod_file[0]) {
		snprintf(why, WHY,
			 "no toggle.ko to reload it with mode=printk (give --kmod FILE or "
			 "GPIOLAT_KMOD)");
		return -1;
	}
	/* the file itself, by an absolute path: what is saved and loaded again after a SIGKILL */
	if (!realpath(kmod_file, real)) {
		snprintf(why, WHY, "cannot read %.150s: %s", kmod_file, strerror(errno));
		return -1;
	}
	snprintf(kmod_file, sizeof(kmod_file), "%s", real);
	fd = kmod_open(kmod_file, why);
	if (fd < 0)
		return -1;
	close(fd);
	if (kmod_params(kmod_orig, sizeof(kmod_orig), why))
		return -1;
	if (strstr(kmod_orig, "chip=")) {
		snprintf(why, WHY, "the toggle module drives a real chip (%.150s): not reloaded",
			 kmod_orig);
		return -1;
	}
	if (state_dir_open(true, why, WHY) < 0)
		return -1;
	d = file_slurp("/sys/kernel/debug/toggle/depth");
	snprintf(kmod_depth, sizeof(kmod_depth), "%s", d ? d : "");
	free(d);
	if (asprintf(&saved, "%s\n%s\n%s", kmod_file, kmod_orig, kmod_depth) < 0)
		saved = NULL;
	if (!saved || state_save(KMOD_STATE, saved)) {
		snprintf(why, WHY,
			 "cannot save the toggle module's parameters in " STATE_DIR "/" KMOD_STATE
			 ": %s",
			 strerror(errno));
		free(saved);
		return -1;
	}
	free(saved);
	kmod_changed = true;
	kmod_mode = strstr(set, "mode=continuous") ? mode_continuous : NULL;
	kmod_with(params, sizeof(params), kmod_orig, set);
	return kmod_load(kmod_file, params, why);
}

static int kmod_switch(const char *mode)
{
	char params[600], why[WHY];

	if (kmod_mode == mode)
		return 0;
	kmod_mode = mode;
	kmod_with_mode(params, sizeof(params), kmod_orig, mode);
	if (kmod_load(kmod_file, params, why)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		errno = EIO;
		return -1;
	}
	return 0;
}

int kmod_reload_printk(bool printk)
{
	return kmod_switch(printk ? mode_printk : mode_continuous);
}

/* the module back as it was loaded; 0 or -1 */
int kmod_restore(void)
{
	char why[WHY];
	bool found;

	if (!kmod_changed)
		return 0;
	kmod_changed = false;
	kmod_mode = NULL;
	if (state_dir_open(false, why, sizeof(why)) <= 0) {
		fprintf(stderr, "gpiolat: putting the toggle module back: %s\n",
			why[0] ? why : STATE_DIR " is gone");
		return -1;
	}
	return kmod_restore_saved(&found);
}
