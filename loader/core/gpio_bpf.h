/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the gpiolat BPF object (bpf/gpiolat.bpf.c) behind a small API: which program, which
 * lines (a dense index), open and load it configured, read its histograms and drop counter.
 * Everything that sizes, fills or reads its maps is here (loader/core/gpio_bpf.c); its one user
 * is the gpiolat BPF provider (providers/bpf_gpiolat.c), which knows the hooks (gpio_hooks.h)
 * and runs it for the histogram mode, --self-test and --overhead alike.
 */
#ifndef GPIOLAT_GPIO_BPF_H
#define GPIOLAT_GPIO_BPF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "gpiolat.h"
#include "core/hist.h"

struct btf;
struct bpf_program;
struct run;
struct gpiolat_bpf;

/* a selected line: its number and (when known) chip and offset */
struct line_sel {
	__u32 gpio;
	char chip[64];
	int offset;
};

/* the traced lines: a dense index (the hists array's) -> global GPIO number */
struct gpio_lines {
	__u32 gpio[GPIOLAT_MAX_LINES];
	int n;
	/* each line's two halves as last read at rest, ncpus histograms each (gpio_bpf_read_lines) */
	struct gpiolat_hist *rest;
	int ncpus;
};

/*
 * index the -l lines (nsel > 0), else every line of the system's chips (not those of a chip
 * whose base is unknown: their sets count as drops; said on stderr when verbose); 0, or -1 and
 * why (a -l line beyond what the maps cover)
 */
int gpio_lines_index(struct gpio_lines *l, const struct line_sel *sel, int nsel, bool verbose,
		     char *why, size_t size);

/* the tracepoint program whole, or a part of it (its cost breakdown: --overhead) */
enum gpio_part {
	GPIO_PART_ALL,
	GPIO_PART_CLOCK, /* gpiolat_tp_clock: up to the clock read */
	GPIO_PART_SLOT, /* gpiolat_tp_slot: up to the line's slot */
};

/*
 * the features of gpiolat's program an --overhead row loads (struct bpf_args.features): with
 * GPIO_FEAT_SET exactly the ones named (make bench-gpio: each one's cost), else --overhead's own,
 * the trust check's periods and the linear buckets of its p50
 */
#define GPIO_FEAT_SET (1 << 0)
#define GPIO_FEAT_TRUST (1 << 1)
#define GPIO_FEAT_LINEAR (1 << 2)
#define GPIO_FEAT_INTERVALS (1 << 3)

struct gpio_bpf_cfg {
	const char *prog; /* the one hook program loaded, by name (gpio_hooks[].prog); its
			   * _plain twin for one -l line with no feature on */
	enum gpio_part part; /* the tracepoint's program: the whole program or a part */
	bool desc; /* the program maps a gpio_desc to its line (gpio_hooks[].desc): with BTF, the
		    * generation's program on chip additions, without, the pre-phase's programs */
	bool fentry; /* that program is an fentry (its generation's program too), else a kprobe */
	const char *btf_path; /* --btf, or NULL */
	__u32 desc_size; /* sizeof(struct gpio_desc); 1 for the tracepoint */
	__u64 lin_width; /* linear buckets of this width, 0: none */
	bool filter_lines; /* only the indexed lines (-l); else other lines count as drops */
	__u64 period_max; /* --overhead's trust check: count periods shorter (ns); 0: none */
	bool intervals; /* read while the program runs (gpio_bpf_read_lines, -i): two halves */
	const struct gpio_lines *lines; /* sizes the maps; NULL: one line slot */
	bool nobtf; /* the object without CO-RE (gpio_bpf_no_btf()); the kprobe's pre-phase loaded */
};

/*
 * no BTF to be found: no --btf or file found for it (btf_path NULL) and no kernel BTF libbpf
 * can load (/sys/kernel/btf/vmlinux): the programs without CO-RE are the ones to load (the
 * kernel's kept in R for the run's later users)
 */
bool gpio_bpf_no_btf(struct run *r, const char *btf_path);
/* the line said once at start when there is no BTF (stderr) */
void gpio_bpf_no_btf_say(void);

/*
 * open the object with only the named program, configure it and load it: 0 and the skeleton
 * (and its program), 1 when opening failed (errno), or the (negative) libbpf error of the load
 */
int gpio_bpf_open_load(const struct gpio_bpf_cfg *cfg, struct gpiolat_bpf **out,
		       struct bpf_program **prog);
/*
 * the lines map: each indexed GPIO number -> its index + 1, no start stored: the BPF side's
 * line filter and histogram slots; 0 or -errno
 */
int gpio_bpf_fill_lines(struct gpiolat_bpf *skel, const struct gpio_lines *l);

/*
 * every indexed line that saw a set (every -l line: nsel > 0), summed over the CPUs and the two
 * halves, sorted by GPIO number; n or -errno. One consistent state while the programs run: the
 * half they write is flipped, the old one read once no program that chose it runs any more, the
 * other one is as read at the last call (nobody wrote it since).
 */
int gpio_bpf_read_lines(struct gpiolat_bpf *skel, struct gpio_lines *l, const struct line_sel *sel,
			int nsel, struct line_result *out, int max);
/* what gpio_bpf_read_lines() keeps, freed */
void gpio_lines_release(struct gpio_lines *l);
/*
 * The no-BTF kprobe's pre-phase (before the measured phase, not measured): the pair programs
 * attached, sets made (PAIR_PULSES of the toggle module's when it is idle on a wanted line, else
 * whatever sets the system makes) until each wanted GPIO number is paired with its gpio_desc twice
 * or PAIR_WAIT passed, then detached; a desc paired with two GPIO numbers, or a wanted line not
 * paired, is an error. 0 (and a line on stderr unless quiet), or -1 and why.
 */
int gpio_pair_learn(struct gpiolat_bpf *skel, const __u32 *want, int nwant, bool quiet, char *why,
		    size_t size);
/* sets dropped: of lines that got no index at start */
__u64 gpio_bpf_read_drops(struct gpiolat_bpf *skel);
/* the summary of the line of index idx (its histogram summed over the CPUs); 0, or -1 */
int gpio_bpf_line_summary(struct gpiolat_bpf *skel, __u32 idx, struct summary *sm);

#endif /* GPIOLAT_GPIO_BPF_H */
