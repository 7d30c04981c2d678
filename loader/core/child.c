// SPDX-License-Identifier: GPL-2.0
/* gpiolat: a child process, one spawn and stop policy for every mode (child.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include "core/child.h"
#include "core/sys.h"
#include "core/undo.h"

/* its pid reaped: its step dropped */
static void reaped(struct child *c)
{
	if (c->undo)
		undo_child_done(c->undo, c->pid);
	c->pid = 0;
}

int child_start(struct child *c, struct undo *u, char *const argv[], char *why, size_t size)
{
	pid_t parent;
	int fd;

	c->killed = false;
	snprintf(c->out, sizeof(c->out), "/tmp/gpiolat-child.XXXXXX");
	fd = mkostemp(c->out, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "mkstemp: %s", strerror(errno));
		c->out[0] = '\0';
		return -1;
	}
	fflush(NULL);
	parent = getpid();
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(why, size, "fork: %s", strerror(errno));
		c->pid = 0;
		close(fd);
		return -1;
	}
	if (!c->pid) {
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent /* gone before the prctl (a subreaper may have us) */)
			_exit(127);
		/* Ctrl-C reaches us, and we stop it ourselves */
		setpgid(0, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd);
	c->undo = u;
	if (undo_child(u, c->pid)) {
		snprintf(why, size, "cannot record the child %ld in the undo journal",
			 (long)c->pid);
		child_stop(c);
		return -1;
	}
	return 0;
}

/* its first line of output */
static void first_line(const struct child *c, char *buf, size_t size)
{
	FILE *f = fopen(c->out, "r");

	buf[0] = '\0';
	if (f) {
		if (fgets(buf, size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/*
 * The child waits on I/O (state D: a read of its binary or libraries, a page fault on them).
 * Under icount the guest's clock jumps to our next poll while the guest waits on the host's
 * I/O (a 9p read), so a loaded host's slow read ran a tool's whole readiness bound in a few of
 * the host's seconds (strace "not attached within 30 s", a testing boot of a clean clone's
 * make test, 2026-11-28): those polls count apart, against CHILD_IO_WAIT_MS.
 * Any of its threads, not its first one's /proc/PID/stat alone: a process that exits closes its
 * files (a tool's BPF links and perf events: the kernel's detach waits) in its last thread,
 * while its first one is already a zombie, and a thread's wait leaves the others asleep (a
 * bpftrace exit outlived CHILD_EXIT_MS with "0 s in state D", std, real time, 2026-11-29).
 */
static bool child_in_io(pid_t pid)
{
	char path[80], buf[512];
	const char *f;
	struct dirent *e;
	bool io = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!io && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", pid, e->d_name);
		if (sys_read_str(path, buf, sizeof(buf)))
			continue;
		f = sys_stat_fields(buf);
		io = f && *f == 'D';
	}
	closedir(d);
	return io;
}

int child_wait(struct child *c, bool (*ready)(const struct child *c), int timeout_ms,
	       const char *name, const struct child_words *w, const volatile sig_atomic_t *stop,
	       char *why, size_t size)
{
	char first[200];
	int ms, io_ms = 0;

	for (ms = 0; ms < timeout_ms && io_ms < CHILD_IO_WAIT_MS && !*stop;) {
		if (ready(c)) {
			poll(NULL, 0, 50); /* the last probes of the set */
			return 0;
		}
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid) {
			reaped(c);
			first_line(c, first, sizeof(first));
			snprintf(why, size, "%s %s: %.150s", name, w->died,
				 first[0] ? first : "(no output)");
			child_stop(c);
			errno = EIO;
			return -1;
		}
		poll(NULL, 0, 20);
		if (child_in_io(c->pid))
			io_ms += 20;
		else
			ms += 20;
	}
	if (*stop)
		snprintf(why, size, "interrupted");
	else if (io_ms >= CHILD_IO_WAIT_MS)
		snprintf(why, size, "%s %s %d s (and %d s more waiting on I/O)", name, w->late,
			 timeout_ms / 1000, CHILD_IO_WAIT_MS / 1000);
	else
		snprintf(why, size, "%s %s %d s", name, w->late, timeout_ms / 1000);
	child_stop(c);
	errno = EIO;
	return -1;
}

void child_stop(struct child *c)
{
	child_end(c);
	if (c->out[0]) {
		unlink(c->out);
		c->out[0] = '\0';
	}
}

void child_end(struct child *c)
{
	int ms = 0;
	pid_t r;

	if (c->pid > 0) {
		kill(c->pid, SIGINT);
		/* CHILD_EXIT_MS for its exit, the polls while it is in state D apart (at most
		 * CHILD_EXIT_IO_MS), as child_wait's (a tool's exit detaches its probes: the
		 * kernel's waits there, and its page faults on the host's 9p, are state D, where
		 * icount's clock jumps to each poll) */
		c->io_ms = 0;
		while ((r = waitpid(c->pid, NULL, WNOHANG)) == 0 && ms < CHILD_EXIT_MS &&
		       c->io_ms < CHILD_EXIT_IO_MS) {
			poll(NULL, 0, 20);
			if (child_in_io(c->pid))
				c->io_ms += 20;
			else
				ms += 20;
		}
		/* (reaped, or gone: not killed, whatever the counts say) */
		c->killed = r == 0;
		if (c->killed) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, NULL, 0);
		}
		reaped(c);
	}
	c->pid = 0;
}

bool child_says(const struct child *c, const char *word)
{
	char line[512];
	bool found = false;
	FILE *f = c->out[0] ? fopen(c->out, "r") : NULL;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, word) != NULL;
	fclose(f);
	return found;
}

/* how many of the child's open fds EACH counts (1 or 0 a fd, by its number) */
static int fds_counted(const struct child *c,
		       int (*each)(const struct child *c, int fd, const void *arg), const void *arg)
{
	char path[64];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", c->pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
			n += each(c, atoi(e->d_name), arg);
	closedir(d);
	return n;
}

static int fd_links_to(const struct child *c, int fd, const void *link)
{
	char path[64], l[256];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", c->pid, fd);
	len = readlink(path, l, sizeof(l) - 1);
	if (len <= 0)
		return 0;
	l[len] = '\0';
	return !strcmp(l, link);
}

int child_fds(const struct child *c, const char *link)
{
	return fds_counted(c, fd_links_to, link);
}

bool pid_traced(pid_t pid)
{
	char path[64], line[256];
	bool traced = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "TracerPid:", 10))
			traced = strtol(line + 10, NULL, 10) != 0;
	fclose(f);
	return traced;
}

bool child_target_traced(const struct child *c)
{
	return pid_traced(c->target);
}

bool child_perf_ready(const struct child *c)
{
	return child_fds(c, "anon_inode:[perf_event]") > 0;
}

/*
 * The child's probes with a BPF program attached, as the kernel lists them (BPF_TASK_FD_QUERY on
 * each of its fds); bpftrace's BEGIN and END are not among them (0.17 and 0.23 list only their
 * script's probes, as bpftool perf show does)
 */
static int fd_bpf_probe(const struct child *c, int fd, const void *unused)
{
	char buf[256];
	__u64 off, addr;
	__u32 len = sizeof(buf), prog, type;

	return !bpf_task_fd_query(c->pid, fd, 0, buf, &len, &prog, &type, &off, &addr);
}

int child_bpf_probes(const struct child *c)
{
	return fds_counted(c, fd_bpf_probe, NULL);
}

/*
 * its kernel probes, each with its BPF program, as the kernel lists them: bpftrace prints
 * "Attaching N probes..." ({"type": "attached_probes"} with -f json) BEFORE it attaches them,
 * and bpftrace 0.23 takes seconds under emulation between the two for a kprobe (the phase
 * ran while its kprobe was not yet in: gpiolat --overhead's fired check saw 20 to 40 of 100
 * sets); at least one probe, else c->probes
 */
bool child_bpftrace_ready(const struct child *c)
{
	return child_bpf_probes(c) >= (c->probes > 0 ? c->probes : 1);
}

__u64 child_sum_after(const struct child *c, const char *word, bool every, int *found)
{
	char line[4096], *s;
	__u64 n = 0;
	FILE *f = c->out[0] ? fopen(c->out, "r") : NULL;

	*found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		for (s = line; (s = strstr(s, word)); (*found)++) {
			s += strlen(word);
			n += strtoull(s, &s, 10);
			if (!every)
				break;
		}
	}
	fclose(f);
	return n;
}

int child_prog_ids(const struct child *c, __u32 *ids, int max)
{
	char path[PATH_MAX], line[256];
	struct dirent *e;
	int n = 0, i;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", c->pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", c->pid, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && n < max) {
			unsigned long id;

			if (sscanf(line, "prog_id: %lu", &id) != 1)
				continue;
			for (i = 0; i < n && ids[i] != id; i++)
				;
			if (i == n)
				ids[n++] = id;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}
