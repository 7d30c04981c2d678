// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat's histogram mode (histo_mode.h): its BPF object opened with only the method's program,
 * configured and loaded; the kernel's gpio_desc size the kprobe and fentry programs need. Used
 * by the run (histo.c) and by --self-test (selftest.c), below both.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h" /* the skeleton's bss holds a struct gpiolat_line */
#include "gpiolat.skel.h"
#include "modes/histogram/histo_mode.h"
#include "core/sys.h"

static const char *load_error(int err, char *buf, size_t size)
{
	if (err == -524 || err == 524)
		snprintf(buf, size,
			 "error 524 (ENOTSUPP): the kernel or its BPF JIT does not "
			 "support this program here");
	else
		snprintf(buf, size, "%s", strerror(err < 0 ? -err : err));
	return buf;
}

/* open the skeleton with only the method's program, configure it and load it */
int histo_open_load(const struct histo_env *env, enum gpio_hook m, __u32 desc_size,
		    const struct gpio_lines *lines, struct gpiolat_bpf **out, char *why,
		    size_t size)
{
	struct gpio_bpf_cfg cfg = {
		.hook = m,
		.btf_path = env->btf_path,
		.desc_size = desc_size,
		.lin_width = env->lin_width,
		.filter_lines = env->nspecs > 0,
		.intervals = env->interval_ns > 0,
		.lines = lines,
		.nobtf = env->nobtf,
	};
	char buf[160];
	int err;

	err = gpio_bpf_open_load(&cfg, out, NULL);
	if (err > 0) {
		snprintf(why, size, "opening the BPF object failed: %s", strerror(errno));
		return -1;
	}
	if (err) {
		snprintf(why, size, "loading the %s program failed: %s (gpiolat -v shows why)",
			 gpio_hooks[m].name, load_error(err, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

/* for the hooks on gpiod_set_value (gpio_hooks[].desc): sizeof(struct gpio_desc), else 1 */
__u32 histo_desc_size(enum gpio_hook m, const struct btf *btf, char *why, size_t size)
{
	/* a tracepoint, or no BTF (the kprobe then maps desc by the pre-phase's pairs) */
	if (!gpio_hooks[m].desc || !btf)
		return 1;
	return sys_gpio_desc_size(btf, why, size);
}
