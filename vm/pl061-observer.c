// SPDX-License-Identifier: GPL-2.0
/*
 * pl061-observer: a qemu TCG plugin, the exact outside observer of the ARM target's GPIO line.
 *
 * Runs on the host, inside qemu (vm/run VM_OBSERVE=FILE, TIMING=icount): it stamps every write
 * the guest makes to the PL061's data register with the number of guest instructions executed
 * until then (the store included). Under `-icount shift=0` one guest instruction is one ns of
 * the guest's clock, so these stamps are in the unit of the guest's own clocks, from outside
 * the guest and with nothing added to it: the inline counter and the store callback are
 * host code that qemu runs between guest instructions, invisible to the guest's clock.
 *
 * The data register is a window: a write to base + (mask << 2) sets the lines of mask (PL061
 * TRM; the kernel's gpio-pl061 writes one line a set: mask = 1 << line). The value written is
 * not in the plugin API of Debian 12's qemu (7.2), so a write is a set, not a level.
 *
 * It also stamps every read of the guest's clock source (the generic timer's counter): "INSNS
 * clk". So the guest's clock reads and its register writes are seen on one count, and what
 * lies between a program's clock read and the write it precedes is counted, not assumed.
 *
 * Arguments: base=PHYS (the PL061's physical address: 0x9030000 on the virt machine),
 * out=FILE. Output, one line an event: "INSNS OFFSET" (decimal, hex offset from base) a data
 * write, "INSNS clk" a clock read, after a '#' header; a '#' trailer with the totals at qemu's
 * exit (its absence: a cut-off run).
 *
 * Exactness: the counter adds one before each guest instruction runs. An instruction that
 * traps and runs again (a page fault, an MMIO access that icount re-translates) is counted as
 * icount counts it: the re-run of an MMIO access is memory-instrumented only (qemu's
 * CF_MEMI_ONLY); a faulting instruction counts once more than icount per fault. Idle time that
 * icount skips (sleep=off warps the clock to the next timer) has no instructions: the observer
 * compares intervals inside a busy batch only (host/pl061_trace.py).
 *
 * Two plugin APIs, chosen by vm/observer.sh's compile tests of the header: the counter is a
 * scoreboard entry (HAVE_INLINE_PER_VCPU: qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu,
 * the old inline op's replacement) or a plain uint64_t (qemu_plugin_register_vcpu_insn_exec_inline);
 * the instruction's bytes are copied out (HAVE_INSN_DATA_COPY) or read through a pointer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* the data window: offsets 0x000..0x3fc (mask << 2), GPIODIR starts at 0x400 */
#define PL061_DATA_WINDOW 0x400

/* executed guest instructions (one vCPU: checked at install) */
#ifdef HAVE_INLINE_PER_VCPU
static struct qemu_plugin_scoreboard *score;
static qemu_plugin_u64 insns_entry;
#define INSNS(vcpu) qemu_plugin_u64_get(insns_entry, vcpu)
#define INSNS_TOTAL() qemu_plugin_u64_sum(insns_entry)
#else
static uint64_t insns;
#define INSNS(vcpu) insns
#define INSNS_TOTAL() insns
#endif
static uint64_t writes, clock_reads;
static int a64; /* the guest is AArch64 (else 32-bit ARM) */
static uint64_t base;
static FILE *out;

static void on_store(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);
	uint64_t pa;

	/*
	 * stores only: the filter given at registration (QEMU_PLUGIN_MEM_W) is not honoured by
	 * every qemu (7.2's called this for loads too: a read of /sys/kernel/debug/gpio, whose
	 * gpio_chip_get_value() loads the data register, showed as a write of each requested line)
	 */
	if (!qemu_plugin_mem_is_store(info))
		return;
	if (!hw || !qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (pa < base || pa >= base + PL061_DATA_WINDOW)
		return;
	writes++;
	fprintf(out, "%" PRIu64 " 0x%03" PRIx64 "\n", INSNS(vcpu), pa - base);
}

static void on_clock_read(unsigned int vcpu, void *udata)
{
	clock_reads++;
	fprintf(out, "%" PRIu64 " clk\n", INSNS(vcpu));
}

/*
 * A read of the generic timer's counter, the guest's clock source (every ktime_get_ns() and
 * bpf_ktime_get_ns() ends in one): 32-bit ARM's MRRC p15, opc1 0 or 1, c14 (CNTPCT, CNTVCT),
 * in A32 encoding; AArch64's MRS CNTPCT_EL0 / CNTVCT_EL0.
 */
static int is_clock_read(const struct qemu_plugin_insn *insn)
{
	uint32_t w;

	if (qemu_plugin_insn_size(insn) != 4)
		return 0;
#ifdef HAVE_INSN_DATA_COPY
	if (qemu_plugin_insn_data(insn, &w, sizeof(w)) != sizeof(w))
		return 0;
#else
	memcpy(&w, qemu_plugin_insn_data(insn), 4);
#endif
	if (a64) /* op0 3, op1 3, CRn 14, CRm 0, op2 1 or 2 */
		return (w & 0xffffff80) == 0xd53be000 &&
		       (((w >> 5) & 7) == 1 || ((w >> 5) & 7) == 2);
	/* any condition, coproc 15, opc1 0 or 1, CRm 14 */
	return (w & 0x0ff00fef) == 0x0c500f0e;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		/* the count first: a stamp of this instruction counts it */
#ifdef HAVE_INLINE_PER_VCPU
		qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
			insn, QEMU_PLUGIN_INLINE_ADD_U64, insns_entry, 1);
#else
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &insns,
							   1);
#endif
		if (is_clock_read(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_clock_read,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_mem_cb(insn, on_store, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_W, NULL);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *p)
{
	fprintf(out,
		"# end: %" PRIu64 " writes, %" PRIu64 " clock reads, %" PRIu64 " instructions\n",
		writes, clock_reads, INSNS_TOTAL());
	fclose(out);
#ifdef HAVE_INLINE_PER_VCPU
	qemu_plugin_scoreboard_free(score);
#endif
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	const char *path = NULL;
	char *end;
	int have_base = 0;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "base=", 5)) {
			errno = 0;
			base = strtoull(argv[i] + 5, &end, 0);
			if (errno || end == argv[i] + 5 || *end) {
				fprintf(stderr, "pl061-observer: bad base '%s'\n", argv[i] + 5);
				return -1;
			}
			have_base = 1;
		} else if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr,
				"pl061-observer: unknown argument '%s' (base=PHYS out=FILE)\n",
				argv[i]);
			return -1;
		}
	}
	if (!have_base || !path) {
		fprintf(stderr, "pl061-observer: needs base=PHYS and out=FILE\n");
		return -1;
	}
	if (info->system_emulation && info->system.max_vcpus != 1) {
		/* one counter: the instructions of one vCPU (icount runs one) */
		fprintf(stderr, "pl061-observer: %d vCPUs: run it with one (-smp 1)\n",
			info->system.max_vcpus);
		return -1;
	}
	a64 = !strcmp(info->target_name, "aarch64");
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "pl061-observer: %s: %s\n", path, strerror(errno));
		return -1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
#ifdef HAVE_INLINE_PER_VCPU
	score = qemu_plugin_scoreboard_new(sizeof(uint64_t));
	insns_entry = qemu_plugin_scoreboard_u64(score);
#endif
	fprintf(out,
		"# pl061-observer: qemu %s, plugin API %d, PL061 at 0x%" PRIx64
		", clock: executed guest instructions\n",
		info->target_name, QEMU_PLUGIN_VERSION, base);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
