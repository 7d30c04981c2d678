// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead: the toggle module reloaded with another mode (kmod_reload.h), for the
 * trace_printk row. Its mode is a load-time parameter, so each phase reloads the module (which
 * gives its chip a new GPIO number: the caller's is read again; its debugfs depth, which a reload
 * resets to 10, is written back). Its original parameters and depth are saved to
 * STATE_DIR/KMOD_STATE first; they are put back after the row, on every way out, and by the
 * next run or --cleanup after a SIGKILL. That file is the only state: the file to load, the
 * parameters and depth to put back are read from it, the mode loaded now from the module.
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
#include "core/kmod_reload.h"
#include "core/statedir.h"
#include "core/sys.h"

#define KMOD_PARAMS "/sys/module/toggle/parameters/"
#define KMOD_STATE "toggle_params"

#define WHY WHY_SIZE
#define KMOD_ENV "GPIOLAT_KMOD"
/* finit_module's MODULE_INIT_COMPRESSED_FILE (<linux/module.h>, newer than some headers here) */
#define KMOD_COMPRESSED 4

int kmod_set_file(const char *file)
{
	return setenv(KMOD_ENV, file, 1);
}

/*
 * what kmod_reload_setup_with() saved: the file loaded, the parameters as loaded ("mode=burst
 * burst=5 ...") and the debugfs depth (not a parameter, kept across reloads, "" when unknown);
 * TEXT (state_read's) cut in place. 0, or -1 when it is not there or not whole.
 */
static int kmod_saved(char *text, char **file, char **params, char **depth)
{
	char *nl = strchr(text, '\n'), *d;

	if (!nl)
		return -1;
	*nl = '\0';
	*file = text;
	*params = nl + 1;
	d = nl + 1 + strcspn(nl + 1, "\n");
	if (*d)
		*d++ = '\0';
	*depth = *d >= '0' && *d <= '9' ? d : d + strlen(d);
	(*depth)[strcspn(*depth, "\n")] = '\0';
	return 0;
}

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
		if (strchr(v, ' ')) {
			/* a chip's label with a space: finit_module would read two parameters */
			snprintf(why, WHY,
				 "the toggle module's %s='%.80s' has a space: it cannot be given "
				 "back to the module, which is not reloaded",
				 names[i], v);
			free(v);
			return -1;
		}
		if (*v && strcmp(v, "(null)"))
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

/*
 * is BASE a name of the toggle module's file: toggle.ko, or as DKMS installs it where the
 * kernel's own modules are compressed (toggle.ko.xz, .zst, .gz)? *COMPRESSED says which
 */
static bool kmod_name(const char *base, bool *compressed)
{
	static const char *const names[] = { "toggle.ko", "toggle.ko.xz", "toggle.ko.zst",
					     "toggle.ko.gz" };
	int i;

	for (i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(base, names[i])) {
			*compressed = i > 0;
			return true;
		}
	return false;
}

static int kmod_open(const char *file, bool *compressed, char *why)
{
	const char *base = strrchr(file, '/');
	struct stat st;
	int fd;

	if (file[0] != '/' || !base || !kmod_name(base + 1, compressed)) {
		snprintf(why, WHY,
			 "'%.150s' is not an absolute path to a toggle.ko (or .ko.xz, .ko.zst, "
			 ".ko.gz): not loaded",
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

/*
 * rmmod toggle (when loaded), insmod FILE PARAMS, its DEPTH back (when not ""), and the new
 * GPIO number in *GPIO (when not NULL); 0, or -1 and why
 */
static int kmod_load(const char *file, const char *params, const char *depth, __u32 *gpio,
		     char *why)
{
	bool compressed = false;
	char d[24];
	__u32 g;
	int fd, i;

	fd = kmod_open(file, &compressed, why);
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
	/* a compressed module the kernel decompresses itself (MODULE_INIT_COMPRESSED_FILE) */
	if (syscall(__NR_finit_module, fd, params, compressed ? KMOD_COMPRESSED : 0)) {
		snprintf(why, WHY, "cannot load %.80s %.60s: %s%s", file, params, strerror(errno),
			 compressed && errno == EINVAL ?
				 " (a kernel that cannot decompress a module?)" :
				 "");
		close(fd);
		return -1;
	}
	close(fd);
	/* its debugfs files, and the new number of the toggled line */
	for (i = 0; i < 250 && toggle_gpio(&g); i++)
		poll(NULL, 0, 20);
	if (i == 250) {
		snprintf(why, WHY, "the toggle module loaded with '%.150s' has no debugfs files",
			 params);
		return -1;
	}
	if (gpio)
		*gpio = g;
	/* a reload starts at depth 10: the depth it had before, back */
	snprintf(d, sizeof(d), "%.16s\n", depth);
	if (depth[0] && sys_write_str("/sys/kernel/debug/toggle/depth", d)) {
		snprintf(why, WHY, "cannot set the reloaded toggle module's depth to %.16s", depth);
		return -1;
	}
	return 0;
}

/* the saved parameters of an interrupted run, put back; the state file removed (dir checked) */
int kmod_restore_saved(bool *found)
{
	char p[128], now[512], why[WHY], *v, *file, *params, *depth;
	bool bad = false;
	int err = 0;

	if (state_path(p, sizeof(p), KMOD_STATE))
		return 0;
	v = state_read(KMOD_STATE, &bad);
	if (!v)
		return bad ? -1 : 0;
	*found = true;
	/* loaded as it was: nothing to do */
	if (!kmod_saved(v, &file, &params, &depth) &&
	    (access("/sys/module/toggle", F_OK) || kmod_params(now, sizeof(now), why) ||
	     strcmp(now, params)) &&
	    kmod_load(file, params, depth, NULL, why)) {
		fprintf(stderr, "gpiolat: putting the toggle module back: %s\n", why);
		err = -1;
	}
	free(v);
	if (!err)
		unlink(p);
	return err;
}

int kmod_reload_setup(__u32 *gpio, char *why)
{
	return kmod_reload_setup_with("mode=continuous", gpio, why);
}

/*
 * the file to load again (--kmod, $GPIOLAT_KMOD) checked, the loaded module's parameters and
 * depth saved to STATE_DIR/KMOD_STATE: from here on every way out puts the module back as it
 * is now. The file in REAL (PATH_MAX), the parameters in ORIG (512), the depth in DEPTH (16);
 * 0, or -1 and why
 */
static int kmod_save(const char *what, char *real, char *orig, char *depth, char *why)
{
	const char *file = getenv(KMOD_ENV);
	bool compressed;
	char *saved, *d;
	int fd;

	if (!file || !*file) {
		snprintf(why, WHY,
			 "no toggle.ko to %s (give --kmod FILE or GPIOLAT_KMOD; after apt install: "
			 "--kmod \"$(modinfo -n toggle)\")",
			 what);
		return -1;
	}
	/* the file itself, by an absolute path: what is saved and loaded again after a SIGKILL */
	if (!realpath(file, real)) {
		snprintf(why, WHY, "cannot read %.150s: %s", file, strerror(errno));
		return -1;
	}
	fd = kmod_open(real, &compressed, why);
	if (fd < 0)
		return -1;
	close(fd);
	if (kmod_params(orig, 512, why))
		return -1;
	if (state_dir_open(true, why, WHY) < 0)
		return -1;
	d = file_slurp("/sys/kernel/debug/toggle/depth");
	snprintf(depth, 16, "%.*s", d ? (int)strcspn(d, "\n") : 0, d ? d : "");
	free(d);
	if (asprintf(&saved, "%s\n%s\n%s\n", real, orig, depth) < 0)
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
	return 0;
}

int kmod_reload_setup_with(const char *set, __u32 *gpio, char *why)
{
	char params[600], orig[512], depth[16], real[PATH_MAX];

	if (kmod_save("reload it with", real, orig, depth, why))
		return -1;
	kmod_with(params, sizeof(params), orig, set);
	return kmod_load(real, params, depth, gpio, why);
}

int kmod_unload_setup(char *why)
{
	char orig[512], depth[16], real[PATH_MAX];

	if (kmod_save("load it again after its line's user rows", real, orig, depth, why))
		return -1;
	if (syscall(__NR_delete_module, "toggle", O_NONBLOCK)) {
		snprintf(why, WHY, "the toggle module cannot be unloaded: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* reload with mode=MODE, the rest as saved, unless it has that mode now */
static int kmod_switch(const char *mode, __u32 *gpio)
{
	char params[600], why[WHY], now[32], *v, *file, *orig, *depth;
	bool bad = false;
	int err = 0;

	v = file_slurp(KMOD_PARAMS "mode");
	snprintf(now, sizeof(now), "%.*s", v ? (int)strcspn(v, "\n") : 0, v ? v : "");
	free(v);
	if (!strcmp(now, mode))
		return 0;
	v = state_read(KMOD_STATE, &bad);
	if (!v || kmod_saved(v, &file, &orig, &depth)) {
		fprintf(stderr, "gpiolat: the toggle module's saved parameters (" STATE_DIR
				"/" KMOD_STATE ") are gone\n");
		free(v);
		errno = EIO;
		return -1;
	}
	kmod_with_mode(params, sizeof(params), orig, mode);
	if (kmod_load(file, params, depth, gpio, why)) {
		fprintf(stderr, "gpiolat: %s\n", why);
		errno = EIO;
		err = -1;
	}
	free(v);
	return err;
}

int kmod_reload_printk(bool printk, __u32 *gpio)
{
	return kmod_switch(printk ? "printk" : "continuous", gpio);
}

/* the module back as it was loaded, when this run reloaded it; 0 or -1 */
int kmod_restore(__u32 *gpio)
{
	char why[WHY] = "", p[128];
	bool found = false;
	int err;

	if (state_dir_open(false, why, sizeof(why)) <= 0 || state_path(p, sizeof(p), KMOD_STATE) ||
	    access(p, F_OK))
		return 0;
	err = kmod_restore_saved(&found);
	if (gpio && found)
		toggle_gpio(gpio);
	return err;
}
