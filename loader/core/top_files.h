/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpiolat: the top-level tracer files a run may change (current_tracer, set_graph_function,
 * tracing_on: --overhead's function_graph row), saved in the state directory before the change
 * and put back from there (loader/core/top_files.c). The undo journal's "t NAME" steps and the
 * sweep of an old run's state files both put them back through here.
 */
#ifndef GPIOLAT_TOP_FILES_H
#define GPIOLAT_TOP_FILES_H

#include <stdbool.h>

#define TOP_FILES 3
extern const char *const top_files[TOP_FILES];

/* is NAME one of top_files? */
bool top_file_known(const char *name);
/* NAME's present value saved in STATE_DIR/NAME (a value saved already is kept); 0, or -1 */
int top_file_save(const char *name);
/* NAME put back as STATE_DIR/NAME says and that file removed; FOUND set when there was one;
 * 0, or -1 when it could not be read or written */
int top_file_restore(const char *name, bool *found);

#endif /* GPIOLAT_TOP_FILES_H */
