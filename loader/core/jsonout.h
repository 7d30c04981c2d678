/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the one JSON layer of the reports (docs/output-format.md): a number, the document's
 * header, a reference figure from an embedded CSV. The keys are the documented ones: the
 * histogram mode's reference figures say value_ns and sd_ns, --syscall-cost's value (its rows
 * mix ns and cycles).
 */
#ifndef GPIOLAT_JSONOUT_H
#define GPIOLAT_JSONOUT_H

#include <json-c/json.h>

/* a number, or null when it is none (NaN) */
struct json_object *json_num(double v);
/* O on one line of stdout (JSON_C_TO_STRING_PLAIN, or FLAGS), then freed */
void json_print_put(struct json_object *o, int flags);
/* {"kernel", "version", "machine" (uname), "userspace" (os-release's PRETTY_NAME or null),
 * "emulated", "timing" ("icount" or "real": vm/run's GPIOLAT_TIMING emulated, else "real"; null
 * when emulated and unsaid)} */
struct json_object *json_target(void);
/* {"tool": TOOL, "mode": MODE (when given), "format": 1, "bpf_jit": jit_state(),
 * "target": json_target()} */
struct json_object *json_doc(const char *tool, const char *mode);

enum ref_keys {
	REF_NS, /* value_ns, sd_ns */
	REF_PLAIN, /* value */
};
/* the row METHOD,KIND of CSV: {"method", "kind", value..., "note"}, or NULL when there is none */
struct json_object *json_reference(const char *csv, const char *method, const char *kind,
				   enum ref_keys keys);

#endif /* GPIOLAT_JSONOUT_H */
