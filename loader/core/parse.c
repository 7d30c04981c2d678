// SPDX-License-Identifier: GPL-2.0
/* gpiolat: command-line numbers (loader/core/parse.h). */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/parse.h"

int parse_time(const char *s, __u64 def, __u64 *ns)
{
	static const struct {
		const char *suffix;
		__u64 mult;
	} units[] = { { "ns", 1 },
		      { "us", 1000 },
		      { "ms", 1000000 },
		      { "s", NSEC_PER_SEC },
		      { "m", 60 * NSEC_PER_SEC } };
	unsigned long long v;
	char *end;
	__u64 mult = def;
	size_t i;

	/* a digit first: strtoull would skip white space and take a sign */
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mult = units[i].mult;
	}
	if (v == 0 || v > UINT64_MAX / mult)
		return -1;
	*ns = v * mult;
	return 0;
}

int parse_count(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	/* a digit or '-' and a digit first: strtoll would skip white space and take '+' */
	if (!isdigit((unsigned char)s[*s == '-']))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
