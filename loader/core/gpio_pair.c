// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the no-BTF kprobe's pre-phase (gpio_bpf.h, docs/btf.md). Without the kernel's BTF
 * no offset of struct gpio_desc or gpio_device is known, and no tracefs file gives them; the
 * kprobe on gpiod_set_value() has only desc, an address. So before the measured phase the
 * loader learns each line's desc: the kprobe and the gpio:gpio_value tracepoint both see the
 * same set, in the same task on the same CPU, and pair desc with the record's GPIO number
 * (bpf/gpiolat.bpf.c, the "pair" programs). Nothing is guessed: a line is taken only when
 * paired twice and never with another number.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "gpiolat.h"
#include "gpiolat.skel.h"
#include "core/gpio_bpf.h"
#include "core/run.h"
#include "core/sys.h"

/* the toggle module's pulses when it is idle on a wanted line: ten pairings a line at least */
#define PAIR_PULSES 10
/* how long the pre-phase waits at most for every wanted line's pairings (ms) */
#define PAIR_WAIT_MS 3000
#define PAIR_POLL_MS 10
/* pairings that agree before a desc is taken */
#define PAIR_SEEN_MIN 2

/* is every wanted GPIO number paired PAIR_SEEN_MIN times? */
static bool all_paired(int fd, const __u32 *want, int nwant)
{
	struct gpiolat_desc d;
	__u64 key, next, *prev = NULL;
	int i, found = 0;

	for (i = 0; i < nwant; i++) {
		prev = NULL;
		while (!bpf_map_get_next_key(fd, prev, &next)) {
			key = next;
			prev = &key;
			if (!bpf_map_lookup_elem(fd, &key, &d) && d.gpio == want[i] &&
			    d.seen >= PAIR_SEEN_MIN) {
				found++;
				break;
			}
		}
	}
	return found == nwant;
}

/* the map checked: no conflict; descs seen fewer than PAIR_SEEN_MIN times removed */
static int pairs_check(int fd, const __u32 *want, int nwant, int *nlines, __u64 *npairs, char *why,
		       size_t size)
{
	struct gpiolat_desc d;
	__u64 key, next, *prev = NULL, weak[GPIOLAT_MAX_LINES];
	int i, nweak = 0;

	*nlines = 0;
	*npairs = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &d))
			continue;
		if (d.conflicts) {
			snprintf(
				why, size,
				"kprobe without BTF: the pre-phase paired one gpio_desc with GPIO %u "
				"%u times and with another GPIO number %u times: no sound mapping",
				d.gpio, d.seen, d.conflicts);
			return -1;
		}
		if (d.seen < PAIR_SEEN_MIN) {
			if (nweak < GPIOLAT_MAX_LINES)
				weak[nweak++] = key;
			continue;
		}
		(*nlines)++;
		*npairs += d.seen;
	}
	for (i = 0; i < nweak; i++)
		bpf_map_delete_elem(fd, &weak[i]);
	if (!all_paired(fd, want, nwant)) {
		for (i = 0; i < nwant && all_paired(fd, &want[i], 1); i++)
			;
		snprintf(why, size,
			 "kprobe without BTF: GPIO %u was not set %d times in the %d ms pre-phase, "
			 "so its gpio_desc is unknown (no BTF: no offsets to read it from)",
			 i < nwant ? want[i] : 0, PAIR_SEEN_MIN, PAIR_WAIT_MS);
		return -1;
	}
	return 0;
}

int gpio_pair_learn(struct gpiolat_bpf *skel, const __u32 *want, int nwant, bool quiet, char *why,
		    size_t size)
{
	struct bpf_program *progs[] = { skel->progs.gpiolat_pair_kprobe,
					skel->progs.gpiolat_pair_ret, skel->progs.gpiolat_pair_tp };
	struct bpf_link *links[3] = {};
	int fd = bpf_map__fd(skel->maps.desc_lines), nlines, err = -1, i;
	bool pulses = false;
	__u64 deadline, npairs;
	__u32 tg;

	for (i = 0; i < 3; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			snprintf(why, size,
				 "kprobe without BTF: attaching the pre-phase's %s failed: %s",
				 bpf_program__section_name(progs[i]), strerror(errno));
			goto out;
		}
	}
	/* the sets: the toggle module's own pulses when it is idle on a wanted line */
	if (toggle_present() && toggle_enabled() == 0 && !toggle_gpio(&tg)) {
		for (i = 0; i < nwant && want[i] != tg; i++)
			;
		pulses = (i < nwant || !nwant) && !toggle_start_pulses(PAIR_PULSES);
	}
	deadline = run_now_ns() + PAIR_WAIT_MS * 1000000ULL;
	while (run_now_ns() < deadline) {
		if (pulses ? toggle_enabled() != 1 && all_paired(fd, want, nwant) :
			     nwant && all_paired(fd, want, nwant))
			break;
		poll(NULL, 0, PAIR_POLL_MS);
	}
	if (pulses && toggle_enabled() == 1)
		toggle_stop();
	err = 0;
out:
	for (i = 0; i < 3; i++)
		bpf_link__destroy(links[i]);
	if (err)
		return err;
	if (pairs_check(fd, want, nwant, &nlines, &npairs, why, size))
		return -1;
	if (!quiet)
		fprintf(stderr,
			"gpiolat: pre-phase (not measured): the gpio_desc of %d line%s learnt from %llu "
			"sets seen by both the kprobe and the tracepoint%s\n",
			nlines, nlines == 1 ? "" : "s", (unsigned long long)npairs,
			pulses ? " (the toggle module's pulses)" : "");
	return 0;
}
