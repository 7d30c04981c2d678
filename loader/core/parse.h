/* SPDX-License-Identifier: GPL-2.0 */
/* gpiolat: command-line numbers, shared by every mode's argp parser. */
#ifndef GPIOLAT_PARSE_H
#define GPIOLAT_PARSE_H

#include <linux/types.h>

#define NSEC_PER_SEC 1000000000ULL

/*
 * "10", "10s", "500ms", "2m", "250us", "100ns": a time in ns, > 0; def: the unit of a bare
 * number, in ns. 0, or -1 on anything else (sign, white space, junk, overflow).
 */
int parse_time(const char *s, __u64 def, __u64 *ns);
/* a decimal integer in [min, max], nothing else (no white space, no '+'): 0, or -1 */
int parse_count(const char *s, long long min, long long max, long long *out);

#endif /* GPIOLAT_PARSE_H */
