// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat: the reference talk's oscilloscope figures (data/baseline-klinger-elce2023.csv),
 * embedded as they are, NUL-terminated, so that gpiolat prints them beside its own on a board
 * without the project's files. The Makefile makes this object depend on the CSV. Below: the
 * lookup of a row in a CSV of that layout (this one, the other data/ files, --baseline's).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/baseline.h"

__asm__(".section .rodata\n"
	".global baseline_csv\n"
	".type baseline_csv, %object\n"
	"baseline_csv:\n"
	".incbin \"data/baseline-klinger-elce2023.csv\"\n"
	".byte 0\n"
	".size baseline_csv, . - baseline_csv\n"
	".previous\n");

/*
 * split one CSV field off *p into buf; NULL at the end of the line. RFC 4180 quoting: a field
 * in double quotes may hold commas, and "" stands for one quote; a row is one line.
 */
static const char *csv_field(const char **p, char *buf, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	if (!*s || *s == '\n')
		return NULL;
	if (*s == '"') {
		for (s++; *s && *s != '\n'; s++) {
			if (*s == '"' && s[1] != '"') {
				s++;
				break;
			}
			s += *s == '"';
			if (n + 1 < size)
				buf[n++] = *s;
		}
		s += strcspn(s, ",\n");
	} else {
		for (; *s && *s != ',' && *s != '\n'; s++)
			if (n + 1 < size)
				buf[n++] = *s;
	}
	buf[n] = '\0';
	*p = s + (*s == ',');
	return buf;
}

/* the fields of the row "method,kind,..." of CSV in f (0), or -1 */
static int baseline_row(const char *csv, const char *method, const char *kind, char f[8][128])
{
	const char *line, *p;
	int i;

	for (line = csv; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (*line == '#' || *line == '\n')
			continue;
		p = line;
		for (i = 0; i < 8; i++) {
			if (!csv_field(&p, f[i], sizeof(f[i])))
				f[i][0] = '\0';
			if (*p == '\n' || !*p) {
				for (i++; i < 8; i++)
					f[i][0] = '\0';
				break;
			}
		}
		if (!strcmp(f[0], method) && !strcmp(f[1], kind))
			return 0;
	}
	return -1;
}

int baseline_find(const char *csv, const char *method, const char *kind, double *value, double *sd,
		  char *note, size_t note_size)
{
	char f[8][128];

	if (baseline_row(csv, method, kind, f))
		return -1;
	*value = strtod(f[2], NULL);
	if (sd)
		*sd = f[4][0] ? strtod(f[4], NULL) : NAN;
	if (note)
		snprintf(note, note_size, "%s", f[7]);
	return 0;
}

int baseline_against(const char *csv, const char *method, const char *kind, char *buf, size_t size)
{
	char f[8][128];

	if (baseline_row(csv, method, kind, f))
		return -1;
	snprintf(buf, size, "%s", f[6]);
	return 0;
}

/* the data row number I (0-based, comments and blank lines skipped) of CSV in f: 0, or -1 */
int baseline_nth(const char *csv, int i, char f[8][128])
{
	const char *line, *p;
	int k;

	for (line = csv; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (*line == '#' || *line == '\n' || i--)
			continue;
		p = line;
		for (k = 0; k < 8; k++)
			if (!csv_field(&p, f[k], 128))
				f[k][0] = '\0';
		return 0;
	}
	return -1;
}

const char *baseline_ref(const char *ours)
{
	if (!strcmp(ours, "untraced") || !strcmp(ours, "mode=continuous"))
		return "tracing-configured-rt";
	if (!strcmp(ours, "untraced ioctl toggler"))
		return "user-ioctl";
	return ours;
}

int baseline_beside(const char *csv, const char *row, const char *ours, double *value,
		    char *against, size_t size)
{
	*value = NAN;
	if (size)
		against[0] = '\0';
	if (!csv || !row || baseline_find(csv, row, "overhead", value, NULL, NULL, 0) ||
	    baseline_against(csv, row, "overhead", against, size))
		return -1;
	return *against && !strcmp(baseline_ref(against), baseline_ref(ours));
}
