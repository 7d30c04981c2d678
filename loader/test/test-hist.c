// SPDX-License-Identifier: GPL-2.0
/*
 * test-hist: the loader's printing functions (loader/hist.c) on a histogram made here from
 * samples, for tests/host/test_loader_hist.py. Not installed.
 *
 *   test-hist text|csv|json [WIDTH_NS [us]] <samples    one pulse width in ns per line;
 *                                                       "unmatched N" adds unmatched edges,
 *                                                       "rising_again N" sets to 1 while high
 *   test-hist baseline METHOD KIND                      a figure of the embedded CSV
 *
 * The buckets are computed here by the plain definitions (log2 slot: the number of significant
 * bits; linear: v / width), independently of the BPF side's divide-free arithmetic.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"

static int bits(unsigned long long v)
{
	int n = 0;

	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct line_result lr = {
		.gpio = 1016, .chip = "toggle-vchip", .offset = 0, .minmax = true
	};
	struct gpiolat_hist *h = &lr.h;
	enum unit unit = UNIT_NS;
	unsigned long long v, width = 0;
	char line[128], note[256], *end;
	double val, sd;
	int slot;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "baseline")) {
		if (argc < 4 ||
		    baseline_find(baseline_csv, argv[2], argv[3], &val, &sd, note, sizeof(note)))
			return 1;
		printf("%g %g %s\n", val, sd, note);
		return 0;
	}
	if (argc > 2) {
		errno = 0;
		width = strtoull(argv[2], &end, 10);
		if (errno || *end)
			return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "us"))
		unit = UNIT_US;
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "rising_again %llu", &v) == 1) {
			h->rising_again += v;
			h->rising += v;
			h->events += v;
			continue;
		}
		if (sscanf(line, "unmatched %llu", &v) == 1) {
			h->unmatched += v;
			h->falling += v;
			h->events += v;
			continue;
		}
		errno = 0;
		v = strtoull(line, &end, 10);
		if (errno || end == line)
			continue;
		h->events += 2;
		h->rising++;
		h->falling++;
		h->pairs++;
		h->sum_ns += v;
		if (h->pairs == 1 || v < h->min_ns)
			h->min_ns = v;
		if (v > h->max_ns)
			h->max_ns = v;
		slot = bits(v);
		h->log2[slot < GPIOLAT_LOG2_SLOTS ? slot : GPIOLAT_LOG2_SLOTS - 1]++;
		if (width)
			h->linear[v / width < GPIOLAT_LINEAR_SLOTS ? v / width :
								     GPIOLAT_LINEAR_SLOTS]++;
	}
	if (!strcmp(argv[1], "text")) {
		print_line_text(stdout, &lr, width, unit);
	} else if (!strcmp(argv[1], "csv")) {
		print_line_csv(stdout, &lr, width, unit);
	} else if (!strcmp(argv[1], "json")) {
		struct json_object *o = line_json(&lr, width);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		return 2;
	}
	return 0;
}
