// SPDX-License-Identifier: GPL-2.0
/* gpiolat --self-test (histo_int.h): which hooks and facilities work on this system, and why not.
 * */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "gpiolat.h"
#include "modes/histogram/histo_int.h"
#include "core/jit.h"
#include "core/sys.h"

static void st(const char *status, const char *what, const char *detail)
{
	printf("  %-5s %-22s %s\n", status, what, detail);
}

int histo_self_test(struct run *r, struct histo_env *env)
{
	char why[WHY_SIZE], detail[WHY_SIZE + 64];
	bool root, can_default = false;
	/* each hook: the gpiolat BPF provider loaded and attached, one line slot */
	struct gpio_watch w = { .load_only = true };
	struct target t = { .kind = TGT_GPIO_PULSE, .run = r, .btf_path = env->btf_path };
	struct bpf_args ba = { .watch = &w };
	struct probe_args a = { .bpf = &ba };
	struct utsname u;
	struct probe p;
	struct btf *btf;
	int m, fd;

	uname(&u);
	printf("gpiolat self-test: what works on this system (%s %s, %s)\n", u.sysname, u.release,
	       u.machine);
	root = sys_privileged();
	st(root ? "ok" : "no", "privileges",
	   root ? "root (or CAP_BPF and CAP_PERFMON)" : "not root: every check below needs root");
	btf = env->nobtf ? NULL : run_btf(r, env->btf_path, why, sizeof(why));
	if (env->nobtf)
		st("info", "BTF",
		   "none (no /sys/kernel/btf/vmlinux, no --btf): the programs without CO-RE");
	else
		st(btf ? "ok" : "no", "BTF",
		   btf ? (env->btf_path ? env->btf_path : "/sys/kernel/btf/vmlinux") : why);
	st("info", "BPF JIT", jit_state());
	if (root) {
		const char *dir = sys_tracefs_dir();

		st(dir ? "ok" : "no", "tracefs", dir ? dir : "not mounted and cannot be mounted");
	}
	for (m = 0; m < GPIO_HOOK_MAX; m++) {
		snprintf(detail, sizeof(detail), "%s", gpio_hooks[m].hook);
		if (!root || (!btf && !env->nobtf)) {
			st("no", gpio_hooks[m].name, root ? "needs BTF" : "needs root");
			continue;
		}
		ba.hook = m;
		probe_init(&p, &prov_bpf_gpiolat, &a, &t);
		if (probe_setup(&p, why, sizeof(why)) || probe_on(&p, why, sizeof(why))) {
			st("no", gpio_hooks[m].name, why);
		} else {
			snprintf(detail, sizeof(detail), "%s loads and attaches%s",
				 gpio_hooks[m].hook, m == GPIO_HOOK_TP ? " (the default)" : "");
			st("ok", gpio_hooks[m].name, detail);
			if (m == GPIO_HOOK_TP)
				can_default = true;
		}
		probe_teardown(&p);
	}
	if (root) {
		fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (fd >= 0) {
			st("ok", "BPF run-time stats",
			   "BPF_ENABLE_STATS(BPF_STATS_RUN_TIME), for --bpf-stats");
			close(fd);
		} else {
			snprintf(why, sizeof(why), "BPF_ENABLE_STATS failed: %s", strerror(errno));
			st("no", "BPF run-time stats", why);
		}
	}
	if (toggle_present()) {
		__u32 g;

		if (!toggle_gpio(&g))
			snprintf(detail, sizeof(detail), "/sys/kernel/debug/toggle: gpio %u", g);
		else
			snprintf(detail, sizeof(detail), "/sys/kernel/debug/toggle");
		st("ok", "toggle module", detail);
	} else {
		st("no", "toggle module",
		   "no /sys/kernel/debug/toggle (not loaded, or debugfs not mounted): no edge "
		   "counts, no pulse-width shift");
	}
	st("info", "timings", sys_emulated() ? "emulated (not real hardware)" : "this machine's");
	run_btf_put(r, btf);
	if (!can_default) {
		printf("gpiolat: the default method (tracepoint) cannot run here\n");
		return EXIT_ERROR;
	}
	printf("gpiolat: the default method (tracepoint) can run here\n");
	return EXIT_OK;
}
