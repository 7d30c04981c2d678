// SPDX-License-Identifier: GPL-2.0
/* gpiolat --path: files and child processes (loader/path.c runs the togglers with these). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "path.h"

int path_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok ? 0 : -1;
}

long long path_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* run argv, its stdout and stderr into out; the exit status, or -1 */
int path_spawn(char *const argv[], char *out, size_t size, long long *elapsed)
{
	int p[2], st;
	size_t len = 0;
	ssize_t k;
	long long t0;
	bool first = false;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	t0 = path_now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < size && (k = read(p[0], out + len, size - 1 - len)) > 0) {
		/* the clock starts at the first complete line (toggle.sh: "loop"), else at fork */
		if (!first && memchr(out + len, '\n', k)) {
			first = true;
			t0 = path_now_ns();
		}
		len += k;
	}
	out[len] = '\0';
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (elapsed)
		*elapsed = path_now_ns() - t0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* the last non-empty line of out, for a why */
void path_last_line(const char *out, char *why)
{
	char buf[4096], *l, *nl;

	snprintf(buf, sizeof(buf), "%s", out);
	while ((nl = strrchr(buf, '\n')) && !nl[1])
		*nl = '\0';
	l = strrchr(buf, '\n');
	snprintf(why, WHY_SIZE, "%.250s", l ? l + 1 : buf);
}

/* the togglers: $GPIOLAT_BINDIR, beside gpiolat (out/bin), or ../bin of an installed sbin/ */
void path_bindir(char *bindir, size_t size, const char *self)
{
	const char *env = getenv("GPIOLAT_BINDIR");
	char p[PATH_MAX + 16];

	snprintf(bindir, size, "%s", env ?: self);
	snprintf(p, sizeof(p), "%s/utoggle", bindir);
	if (!env && access(p, X_OK) && snprintf(bindir, size, "%s/../bin", self) >= (int)size)
		snprintf(bindir, size, "%s", self);
}
