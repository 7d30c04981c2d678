// SPDX-License-Identifier: GPL-2.0
/*
 * gpiolat --overhead --baseline FILE.csv: the user's own scope figures, checked line by line
 * against the columns of data/baseline-klinger-elce2023.csv (overhead_int.h). Unit-tested
 * (loader/test/test-overhead.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modes/overhead/overhead_int.h"
#include "core/files.h"
#include "core/statedir.h"

static bool number(const char *f, bool empty_ok)
{
	char *end;
	double v;

	if (!*f)
		return empty_ok;
	errno = 0;
	v = strtod(f, &end);
	return !errno && !*end && isfinite(v) && v >= 0;
}

/*
 * the columns of data/baseline-klinger-elce2023.csv: method,kind,value,unit,sd,kernel,against,
 * note; '#' lines are comments. 0 and U its text and path, or -1 (U as it was) and what is
 * wrong (FILE:LINE: ...) in why
 */
int ov_baseline_load(struct user_csv *u, const char *path, char *why, size_t size)
{
	char *text, *line, *next, *f[9], *p, *user_csv;
	int ln = 0, rows = 0, n, fd;

	/* a regular file only, read from the fd checked (a FIFO would wait for a writer) */
	fd = file_arg_open("--baseline", path, why, size);
	if (fd < 0)
		return -1;
	text = fd_slurp(fd);
	if (!text) {
		snprintf(why, size, "--baseline: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	user_csv = strdup(text);
	if (!user_csv) {
		free(text);
		snprintf(why, size, "--baseline: out of memory");
		return -1;
	}
	/* CRLF files: baseline_find() wants plain lines */
	for (p = user_csv, n = 0; *p; p++)
		if (*p != '\r')
			user_csv[n++] = *p;
	user_csv[n] = '\0';
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ln++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		for (n = 0, p = line; n < 9 && p; n++) {
			f[n] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (n != 8 || p)
			snprintf(why, size,
				 "%s:%d: want 8 columns (method,kind,value,unit,sd,kernel,"
				 "against,note), got %d",
				 path, ln, p ? 9 : n);
		else if (!*f[0] ||
			 strspn(f[0], "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(f[0]))
			snprintf(why, size, "%s:%d: bad method '%.40s': want [a-z0-9_-]", path, ln,
				 f[0]);
		else if (strcmp(f[1], "pulse") && strcmp(f[1], "overhead"))
			snprintf(why, size, "%s:%d: bad kind '%.40s': want pulse or overhead", path,
				 ln, f[1]);
		else if (!number(f[2], false))
			snprintf(why, size, "%s:%d: bad value '%.40s': want a number >= 0", path,
				 ln, f[2]);
		else if (strcmp(f[3], "ns"))
			snprintf(why, size, "%s:%d: bad unit '%.40s': want ns", path, ln, f[3]);
		else if (!number(f[4], true))
			snprintf(why, size, "%s:%d: bad sd '%.40s': want a number >= 0 or nothing",
				 path, ln, f[4]);
		else {
			rows++;
			continue;
		}
		free(text);
		free(user_csv);
		return -1;
	}
	free(text);
	if (!rows) {
		snprintf(why, size, "%s: no rows (only comments or empty)", path);
		free(user_csv);
		return -1;
	}
	free(u->text); /* an earlier --baseline: the last one counts */
	u->text = user_csv;
	u->path = path;
	return 0;
}
