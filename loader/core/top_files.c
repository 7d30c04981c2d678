// SPDX-License-Identifier: GPL-2.0
/* gpiolat: the top-level tracer files saved and put back (top_files.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "core/statedir.h"
#include "core/top_files.h"

const char *const top_files[TOP_FILES] = { "current_tracer", "set_graph_function", "tracing_on" };

bool top_file_known(const char *name)
{
	int i;

	for (i = 0; i < TOP_FILES; i++)
		if (!strcmp(name, top_files[i]))
			return true;
	return false;
}

int top_file_save(const char *name)
{
	char *t = tracefs_instance_file_read(NULL, name, NULL);
	int err;

	if (!t)
		return -1;
	err = state_save(name, t);
	free(t);
	return err;
}

/* write a filter file back line by line ("#### all functions enabled ####": empty) */
static void restore_filter_file(const char *file, const char *saved)
{
	char *copy, *line, *save = NULL;

	tracefs_instance_file_clear(NULL, file);
	if (!saved || strstr(saved, "#### all functions enabled"))
		return;
	copy = strdup(saved);
	for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			tracefs_instance_file_append(NULL, file, line);
	free(copy);
}

int top_file_restore(const char *name, bool *found)
{
	bool bad = false;
	char p[128], *v;
	int err = 0;

	if (!top_file_known(name) || state_path(p, sizeof(p), name))
		return -1;
	v = state_read(name, &bad);
	if (!v)
		return bad ? -1 : 0;
	*found = true;
	if (!strcmp(name, "set_graph_function"))
		restore_filter_file(name, v);
	else if (tracefs_instance_file_write(NULL, name, v) < 0)
		err = -1;
	free(v);
	unlink(p);
	return err;
}
