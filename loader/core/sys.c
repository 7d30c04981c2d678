// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: what the running system offers (see sys.h). Features are found by looking for what
 * the kernel exposes (tracefs, BTF, kallsyms, the kprobe PMU), never by its version.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/gpio.h>
#include <bpf/btf.h>
#include <tracefs.h>
#include "gpiolat.h"
#include "core/sys.h"

#define TOGGLE_DIR "/sys/kernel/debug/toggle"

struct btf *sys_load_btf(const char *custom, char *why, size_t size)
{
	struct btf *btf;

	btf = custom ? btf__parse(custom, NULL) : btf__load_vmlinux_btf();
	if (!btf && custom && access(custom, R_OK))
		snprintf(why, size, "%s: %s", custom, strerror(errno));
	else if (!btf && custom)
		snprintf(why, size,
			 "%s: no usable BTF in it (want a raw BTF file, or an ELF file "
			 "with a .BTF section)",
			 custom);
	else if (!btf)
		snprintf(why, size,
			 "/sys/kernel/btf/vmlinux: no kernel BTF "
			 "(CONFIG_DEBUG_INFO_BTF); give one with --btf FILE");
	return btf;
}

__u32 sys_gpio_desc_size(const struct btf *btf, char *why, size_t size)
{
	__s32 id;
	__s64 sz;

	id = btf__find_by_name_kind(btf, "gpio_desc", BTF_KIND_STRUCT);
	if (id < 0) {
		snprintf(why, size, "struct gpio_desc is not in the BTF (no CONFIG_GPIOLIB?)");
		return 0;
	}
	sz = btf__resolve_size(btf, id);
	if (sz <= 0 || sz > 65536) {
		snprintf(why, size, "struct gpio_desc has no usable size in the BTF (%lld)",
			 (long long)sz);
		return 0;
	}
	return sz;
}

/* tracefs, mounted by libtracefs if it is not; NULL when there is none */
const char *sys_tracefs_dir(void)
{
	return tracefs_tracing_dir();
}

int sys_check_tracepoint(const struct btf *btf, char *why, size_t size)
{
	const char *dir;

	if (btf && btf__find_by_name_kind(btf, "trace_event_raw_gpio_value", BTF_KIND_STRUCT) < 0) {
		snprintf(why, size,
			 "the tracepoint gpio:gpio_value is not in this kernel (no "
			 "trace_event_raw_gpio_value in its BTF: no CONFIG_GPIOLIB?)");
		return -1;
	}
	dir = sys_tracefs_dir();
	if (!dir) {
		snprintf(why, size,
			 "tracefs is not available (no CONFIG_FTRACE, or it cannot be "
			 "mounted at /sys/kernel/tracing)");
		return -1;
	}
	if (!tracefs_event_file_exists(NULL, "gpio", "gpio_value", "id")) {
		snprintf(why, size,
			 "the tracepoint gpio:gpio_value is not available: no "
			 "%s/events/gpio/gpio_value (no CONFIG_GPIOLIB?)",
			 dir);
		return -1;
	}
	return 0;
}

/* FIELD's line of a tracefs format file: "field:unsigned gpio;\toffset:8;\tsize:4;..." */
static bool format_field(const char *line, const char *field, int *off, int *sz)
{
	const char *f = strstr(line, "field:"), *semi, *name;
	size_t len = strlen(field);

	if (!f || !(semi = strchr(f, ';')))
		return false;
	/* the declaration's last word is the name */
	for (name = semi; name > f && name[-1] != ' ' && name[-1] != '\t' && name[-1] != ':';
	     name--)
		;
	if ((size_t)(semi - name) != len || strncmp(name, field, len))
		return false;
	return sscanf(semi, "; offset:%d; size:%d;", off, sz) == 2;
}

int sys_check_tp_format(char *why, size_t size)
{
	static const struct {
		const char *name;
		int off;
	} want[] = { { "gpio", GPIOLAT_TP_OFF_GPIO },
		     { "get", GPIOLAT_TP_OFF_GET },
		     { "value", GPIOLAT_TP_OFF_VALUE } };
	int off[3] = { -1, -1, -1 }, sz[3] = { 0 }, o, z;
	char path[PATH_MAX], line[256];
	const char *dir = sys_tracefs_dir();
	size_t i;
	FILE *f;

	if (!dir) {
		snprintf(why, size,
			 "tracefs is not available: no format of gpio:gpio_value to read");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/gpio/gpio_value/format", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(why, size, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < 3; i++)
			if (format_field(line, want[i].name, &o, &z)) {
				off[i] = o;
				sz[i] = z;
			}
	fclose(f);
	for (i = 0; i < 3; i++)
		if (off[i] != want[i].off || sz[i] != 4) {
			snprintf(why, size,
				 "%s: field %s at offset %d, size %d; gpiolat's programs without "
				 "BTF read it at offset %d, size 4",
				 path, want[i].name, off[i], sz[i], want[i].off);
			return -1;
		}
	return 0;
}

int sys_kallsyms_find(const char *const *names, int n)
{
	char line[512], sym[256];
	int best = n, i;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -1;
	/*
	 * read in large pieces: stdio's default for /proc is 1 KiB (its st_blksize), 12000
	 * read() calls on a Debian kernel, each one a system call, which an emulated target or a
	 * slow board pays by the thousand
	 */
	setvbuf(f, NULL, _IOFBF, 64 * 1024);
	while (best > 0 && fgets(line, sizeof(line), f)) {
		char type;

		if (sscanf(line, "%*s %c %255s", &type, sym) != 2 || (type != 'T' && type != 't'))
			continue;
		for (i = 0; i < best; i++)
			if (!strcmp(sym, names[i]))
				best = i;
	}
	fclose(f);
	return best < n ? best : -1;
}

static bool kallsyms_has(const char *name)
{
	return sys_kallsyms_find(&name, 1) == 0;
}

int sys_check_kprobe(const struct btf *kernel_btf, char *why, size_t size)
{
	const char *dir;
	bool pmu, legacy = false;

	pmu = !access("/sys/bus/event_source/devices/kprobe/type", R_OK);
	if (!pmu) {
		dir = sys_tracefs_dir();
		legacy = dir && tracefs_file_exists(NULL, "kprobe_events");
	}
	if (!pmu && !legacy) {
		snprintf(why, size,
			 "kprobes are not supported by this kernel (no CONFIG_KPROBES): no "
			 "/sys/bus/event_source/devices/kprobe and no kprobe_events in tracefs");
		return -1;
	}
	/*
	 * the kernel's own BTF names every function it has, as a lookup; /proc/kallsyms (a scan
	 * of a hundred thousand lines the kernel formats) only where that BTF is not at hand or
	 * does not name it (a --btf file, a kernel without BTF)
	 */
	if (kernel_btf && btf__find_by_name_kind(kernel_btf, "gpiod_set_value", BTF_KIND_FUNC) > 0)
		return 0;
	if (!kallsyms_has("gpiod_set_value")) {
		snprintf(why, size,
			 "gpiod_set_value is not in this kernel (not in /proc/kallsyms: no "
			 "CONFIG_GPIOLIB?), so there is nothing to put the kprobe on");
		return -1;
	}
	return 0;
}

int sys_check_fentry(const struct btf *vmlinux, char *why, size_t size)
{
	if (btf__find_by_name_kind(vmlinux, "gpiod_set_value", BTF_KIND_FUNC) < 0) {
		snprintf(why, size,
			 "gpiod_set_value is not in this kernel (not in its BTF: no "
			 "CONFIG_GPIOLIB?), so there is nothing to attach fentry to");
		return -1;
	}
	return 0;
}

/* ---- files ---------------------------------------------------------------------------------- */

const char *sys_stat_fields(const char *stat)
{
	const char *p = stat ? strrchr(stat, ')') : NULL;

	return p && p[1] == ' ' ? p + 2 : NULL;
}

int sys_read_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int sys_read_long(const char *path, long *v)
{
	char buf[64], *end;

	if (sys_read_str(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	return 0;
}

/* ---- the system ----------------------------------------------------------------------------- */

bool sys_emulated(void)
{
	const char *t = getenv("GPIOLAT_TARGET");
	char vendor[64];

	if (t && !strcmp(t, "emulated"))
		return true;
	return !sys_read_str("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor)) &&
	       strstr(vendor, "QEMU");
}

bool sys_privileged(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	__u64 eff;

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (__u64)data[1].effective << 32;
#define HAS(cap) (eff & (1ULL << (cap)))
	return HAS(CAP_SYS_ADMIN) || (HAS(38 /* CAP_PERFMON */) && HAS(39 /* CAP_BPF */));
#undef HAS
}

/* ---- the toggle module ---------------------------------------------------------------------- */

bool toggle_present(void)
{
	return !access(TOGGLE_DIR "/edges", R_OK);
}

int toggle_edges(__u64 *rising, __u64 *falling)
{
	unsigned long long r, f;
	char buf[128];

	if (sys_read_str(TOGGLE_DIR "/edges", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu", &r, &f) != 2)
		return -1;
	*rising = r;
	*falling = f;
	return 0;
}

int toggle_gpio(__u32 *gpio)
{
	char buf[256];
	unsigned int g;

	if (sys_read_str(TOGGLE_DIR "/gpio", buf, sizeof(buf)) || sscanf(buf, "gpio=%u", &g) != 1)
		return -1;
	*gpio = g;
	return 0;
}

int toggle_enabled(void)
{
	long v;

	if (sys_read_long(TOGGLE_DIR "/enable", &v))
		return -1;
	return v != 0;
}

int sys_write_str(const char *path, const char *s)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

int toggle_start_pulses(__u64 n)
{
	char buf[32];
	int err;

	snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)n);
	err = sys_write_str(TOGGLE_DIR "/pulses", buf);
	if (!err)
		err = sys_write_str(TOGGLE_DIR "/enable", "1\n");
	return err;
}

/*
 * pulses=0: no limit, so that nothing left of an earlier limited run (an interrupted
 * --pulses, someone's "echo N > pulses") can end the next unlimited run early. A module older
 * than this refuses 0 with EINVAL; its enable=0 did not drop the rest either, so there is
 * nothing better to do than carry on.
 */
static int toggle_clear_limit(void)
{
	int err = sys_write_str(TOGGLE_DIR "/pulses", "0\n");

	return err == -EINVAL ? 0 : err;
}

int toggle_start(void)
{
	int err = toggle_clear_limit();

	return err ? err : sys_write_str(TOGGLE_DIR "/enable", "1\n");
}

int toggle_stop(void)
{
	int err = sys_write_str(TOGGLE_DIR "/enable", "0\n");

	/* enable=0 drops the rest of a limited run already; the clear makes sure of it */
	toggle_clear_limit();
	return err;
}

int toggle_batches(__s64 after, struct toggle_batch *b, int max)
{
	unsigned long long seq, pulses, ns;
	char line[128];
	int n = 0;
	FILE *f;

	f = fopen(TOGGLE_DIR "/batches", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %llu %llu", &seq, &pulses, &ns) != 3 ||
		    (__s64)seq <= after || !pulses)
			continue;
		if (n == max) {
			/* keep the newest */
			memmove(b, b + 1, (max - 1) * sizeof(*b));
			n--;
		}
		b[n].seq = seq;
		b[n].pulses = pulses;
		b[n].ns = ns;
		n++;
	}
	fclose(f);
	return n;
}

__s64 toggle_last_seq(void)
{
	unsigned long long seq;
	__s64 last = -1;
	char line[128];
	FILE *f;

	f = fopen(TOGGLE_DIR "/batches", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llu", &seq) == 1 && (__s64)seq > last)
			last = seq;
	fclose(f);
	return last;
}

bool sys_find_program(const char *name, char *path, size_t size)
{
	const char *p = getenv("PATH");
	char dirs[4096], *d, *save = NULL;

	snprintf(dirs, sizeof(dirs), "%s", p && *p ? p : "/usr/local/bin:/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, size, "%s/%s", d, name);
		if (!access(path, X_OK))
			return true;
	}
	snprintf(path, size, "/usr/sbin/%s", name);
	return !access(path, X_OK);
}

const char *sys_timing(void)
{
	const char *timing = getenv("GPIOLAT_TIMING");

	if (!sys_emulated())
		return "real";
	if (timing && strcmp(timing, "icount") && strcmp(timing, "real"))
		return NULL;
	return timing;
}
