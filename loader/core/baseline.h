/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the reference figures (loader/core/baseline.c): the talk's, and the other embedded
 * CSVs (baseline_sc.c, baseline_path.c), or a --baseline file's, found by method and kind, and
 * the one rule for putting one beside a figure of ours. Below hist.c and jsonout.c: it points
 * at neither.
 */
#ifndef GPIOLAT_BASELINE_H
#define GPIOLAT_BASELINE_H

#include <stddef.h>

/* the talk's figures (data/baseline-klinger-elce2023.csv), embedded in the binary */
extern const char baseline_csv[];
/* find the row "method,kind,..." in a CSV text: 0 and its value (and sd, NAN if empty) */
int baseline_find(const char *csv, const char *method, const char *kind, double *value, double *sd,
		  char *note, size_t note_size);
/* the row's "against" column (the reference it was measured against; "" when none) in BUF */
int baseline_against(const char *csv, const char *method, const char *kind, char *buf, size_t size);
/* the data row number I of CSV (comments and blank lines skipped), its 8 fields: 0, or -1 */
int baseline_nth(const char *csv, int i, char f[8][128]);
/*
 * The one rule for a reference figure (the talk's, or a --baseline file's) beside one of ours
 * (docs/overhead.md): it stands only when it measured the same kind of method against the same
 * reference. The kind is the caller's choice of ROW (the method table names the talk's row
 * measured the same way; a user's row has our method's name); the reference is its "against"
 * column, which must name OURS (our reference phases' label) in the talk's words
 * (baseline_ref). Figures are never summed along "against": each link was measured on its own
 * day against its own reference, and the talk never measured the sum.
 *   1: it stands (*value, against); 0: it does not (*value and against say what it is);
 *   -1: CSV has no overhead row ROW.
 */
int baseline_beside(const char *csv, const char *row, const char *ours, double *value,
		    char *against, size_t size);
/* the talk's name for a reference of ours: the untraced module toggler (burst or
 * mode=continuous) is its tracing-configured-rt, the untraced ioctl toggler its user-ioctl;
 * any other (a method's name: "event") is the same in both */
const char *baseline_ref(const char *ours);

#endif /* GPIOLAT_BASELINE_H */
