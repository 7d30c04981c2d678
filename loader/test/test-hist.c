// SPDX-License-Identifier: GPL-2.0
/*
 * test-hist: the loader's printing functions (loader/core/hist.c) on a histogram made here from
 * samples, for tests/host/test_loader_hist.py. Not installed.
 *
 *   test-hist text|csv|json [WIDTH_NS [us]] <samples    one pulse width in ns per line;
 *   (mapjson: json, the log2 slots below 2^24 ns and the counts the loader makes taken out
 *   as the BPF map lacks them, min as ~min, then summed back by hist_sum_cpus)
 *                                                       "unmatched N" adds unmatched edges,
 *                                                       "rising_again N" sets to 1 while high
 *   test-hist baseline METHOD KIND                      a figure of the embedded CSV
 *   test-hist csvrows FILE                              every data row of FILE as the loader
 *                                                       splits it: its 8 fields, tab-separated
 *   test-hist t FROM TO                                 "df t95 t999" for df FROM..TO
 *   test-hist path text|json|csv <rows                  --path's tables
 * (loader/modes/path/path_out.c)
 *                                                       from rows "VAR NS NS ..." (ns per set,
 *                                                       one a repetition; VAR t_raw .. t_bash)
 *
 * The buckets are computed here by the plain definitions (log2 slot: the number of significant
 * bits; linear: v / width; fine: the bucket whose bounds hold v), independently of the BPF side's divide-free arithmetic.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/baseline.h"
#include "core/hist.h"
#include "modes/path/path_int.h"

static int bits(unsigned long long v)
{
	int n = 0;

	while (v) {
		n++;
		v >>= 1;
	}
	return n;
}

static const char *const path_vars[P_NROWS] = { "t_raw",   "t_subsys", "t_ioctl", "t_libgpiod",
						"t_sysfs", "t_mmap",   "t_sh",	  "t_bash" };

/* --path's printing on rows read from stdin; the rows not given are "not available" */
static int path(const char *fmt)
{
	static struct path_run r = { .chip = "toggle-vchip", .bash_row = "t_bash" };
	char line[4096], *tok, *end;
	int i;

	for (i = 0; i < P_NROWS; i++) {
		r.row[i].var = path_vars[i];
		r.row[i].what = "test";
		r.row[i].clock = "test";
		snprintf(r.row[i].why, sizeof(r.row[i].why), "not given");
	}
	while (fgets(line, sizeof(line), stdin)) {
		struct path_row_res *x = NULL;

		tok = strtok(line, " \n");
		for (i = 0; tok && i < P_NROWS; i++)
			if (!strcmp(tok, path_vars[i]))
				x = &r.row[i];
		if (!x)
			return 2;
		x->avail = true;
		x->sets = 1000;
		while ((tok = strtok(NULL, " \n")) && x->n < PATH_MAX_REPS) {
			x->ns[x->n++] = strtod(tok, &end);
			if (*end)
				return 2;
		}
		r.reps = x->n;
	}
	path_print(&r, !strcmp(fmt, "json") ? PATH_JSON :
		       !strcmp(fmt, "csv")  ? PATH_CSV :
					      PATH_TEXT);
	return 0;
}

/* the data rows of a CSV file as baseline_nth() splits them */
static int csv_rows(const char *file)
{
	static char text[1 << 16];
	char f[8][128];
	size_t n;
	FILE *in;
	int i, k;

	in = fopen(file, "r");
	if (!in)
		return 1;
	n = fread(text, 1, sizeof(text) - 1, in);
	fclose(in);
	text[n] = '\0';
	for (i = 0; !baseline_nth(text, i, f); i++)
		for (k = 0; k < 8; k++)
			printf("%s%c", f[k], k == 7 ? '\n' : '\t');
	return 0;
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
	__u64 lo, hi;
	int slot, i;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "baseline")) {
		if (argc < 4 ||
		    baseline_find(baseline_csv, argv[2], argv[3], &val, &sd, note, sizeof(note)))
			return 1;
		printf("%g %g %s\n", val, sd, note);
		return 0;
	}
	if (!strcmp(argv[1], "csvrows") && argc == 3)
		return csv_rows(argv[2]);
	if (!strcmp(argv[1], "path") && argc == 3)
		return path(argv[2]);
	if (!strcmp(argv[1], "t") && argc == 4) {
		long df;

		for (df = strtol(argv[2], NULL, 10); df <= strtol(argv[3], NULL, 10); df++)
			printf("%ld %.9g %.9g\n", df, student_t95(df), student_t999(df));
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
		/* the fine bucket whose [low, high) holds v, by search: not the BPF side's index */
		for (i = 0; i < GPIOLAT_HDR_SLOTS; i++) {
			hist_fine_bounds(i, &lo, &hi);
			if (lo <= v && v < hi) {
				h->fine[i]++;
				break;
			}
		}
	}
	if (!strcmp(argv[1], "text")) {
		print_line_text(stdout, &lr, width, unit);
	} else if (!strcmp(argv[1], "csv")) {
		print_line_csv(stdout, &lr, width, unit);
	} else if (!strcmp(argv[1], "json") || !strcmp(argv[1], "mapjson")) {
		struct json_object *o;

		if (!strcmp(argv[1], "mapjson")) {
			/* as the map holds it: log2 slots below 2^HDR_MAX_LOG2 in fine only, on
			 * CPU 0 of two; then the loader's sum over the CPUs */
			static struct gpiolat_hist pc[2];

			pc[0] = *h;
			for (slot = 0; slot <= GPIOLAT_HDR_MAX_LOG2; slot++)
				pc[0].log2[slot] = 0;
			/* and the counts the loader makes from the rest, min as ~min */
			pc[0].events = pc[0].rising = pc[0].falling = pc[0].pairs = 0;
			pc[0].min_ns = h->pairs ? ~h->min_ns : 0;
			hist_sum_cpus(h, pc, 2);
		}
		o = line_json(&lr, width);

		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else {
		return 2;
	}
	return 0;
}
