// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the one JSON layer of the reports (jsonout.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "core/jit.h"
#include "core/baseline.h"
#include "core/jsonout.h"
#include "core/sys.h"

struct json_object *json_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

void json_print_put(struct json_object *o, int flags)
{
	printf("%s\n", json_object_to_json_string_ext(o, flags));
	json_object_put(o);
}

/* PRETTY_NAME of /etc/os-release, unquoted: the user space gpiolat runs on; NULL without one */
static struct json_object *os_name(void)
{
	char line[256], *v, *e;
	FILE *f = fopen("/etc/os-release", "r");
	struct json_object *o = NULL;

	if (!f)
		return NULL;
	while (!o && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "PRETTY_NAME=", 12))
			continue;
		v = line + 12;
		v[strcspn(v, "\n")] = 0;
		if (*v == '"' && (e = strrchr(v + 1, '"'))) {
			*e = 0;
			v++;
		}
		o = json_object_new_string(v);
	}
	fclose(f);
	return o;
}

struct json_object *json_target(void)
{
	struct json_object *o = json_object_new_object();
	const char *timing = sys_timing();
	bool emulated = sys_emulated();
	struct utsname u;

	uname(&u);
	json_object_object_add(o, "kernel", json_object_new_string(u.release));
	json_object_object_add(o, "version", json_object_new_string(u.version));
	json_object_object_add(o, "machine", json_object_new_string(u.machine));
	json_object_object_add(o, "userspace", os_name());
	json_object_object_add(o, "emulated", json_object_new_boolean(emulated));
	/* vm/run says which clock the guest has; natively the hardware's own, in real time */
	json_object_object_add(o, "timing", timing ? json_object_new_string(timing) : NULL);
	return o;
}

struct json_object *json_doc(const char *tool, const char *mode)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "tool", json_object_new_string(tool));
	if (mode)
		json_object_object_add(o, "mode", json_object_new_string(mode));
	json_object_object_add(o, "format", json_object_new_int(1));
	/* every cost depends on it: JIT-compiled or interpreted (32-bit ARM boards often off) */
	json_object_object_add(o, "bpf_jit", json_object_new_string(jit_state()));
	/* what was measured: two runs compared are like with like only on the same (host/compare.py) */
	json_object_object_add(o, "target", json_target());
	return o;
}

struct json_object *json_reference(const char *csv, const char *method, const char *kind,
				   enum ref_keys keys)
{
	struct json_object *o;
	char note[256], against[128];
	double v, sd;

	if (baseline_find(csv, method, kind, &v, &sd, note, sizeof(note)) ||
	    baseline_against(csv, method, kind, against, sizeof(against)))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "kind", json_object_new_string(kind));
	if (keys == REF_NS) {
		json_object_object_add(o, "value_ns", json_object_new_double(v));
		json_object_object_add(o, "sd_ns", json_num(sd));
	} else {
		json_object_object_add(o, "value", json_object_new_double(v));
	}
	json_object_object_add(o, "against", *against ? json_object_new_string(against) : NULL);
	json_object_object_add(o, "note", json_object_new_string(note));
	return o;
}
