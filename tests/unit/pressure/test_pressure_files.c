/* SPDX-License-Identifier: MIT */
/*
 * Every kind of file a path can name, given to every function that opens a
 * pressure source (pressure.h): a regular file, a procfs PSI file, cgroupfs
 * files, a FIFO, character devices (one always readable, one at end of
 * file), a directory, an AF_UNIX socket, a missing path and an unreadable
 * file, times shr_pressure_open_psi(), shr_pressure_open_systemd() and
 * shr_pressure_open_memory_events(). Each cell says what the open returns
 * and, when it opens, what a first check returns: nobody has signalled
 * anything, so a source that reports pressure then (a FIFO reading back
 * its own trigger) or never returns (/dev/zero) is a failure.
 *
 * A cell runs in a child process, so that a hang (the bug this table was
 * written for) is one failed cell, not a hung suite: the child's alarm is a
 * guard against that bug, not a measure (a cell does a few system calls).
 * Rows the machine cannot provide (no PSI, no writable cgroup v2 mount) are
 * skipped with the reason.
 */
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

/* The guard of a cell (see the top); a cell that reaches it hung. */
#define CELL_GUARD_S 20
/* A cell's check that may see real pressure (the whole system's PSI). */
#define CHECK_0_OR_1 100
/* Not opened: no check. */
#define NO_CHECK 101

/* base64 of "some 200000 2000000" and its NUL: $MEMORY_PRESSURE_WRITE. */
#define WRITE_B64 "c29tZSAyMDAwMDAgMjAwMDAwMAA="

enum opener { OPEN_PSI, OPEN_SYSTEMD, OPEN_MEMORY_EVENTS, NR_OPENERS };

static const char *const opener_name[NR_OPENERS] = { "open_psi", "open_systemd",
						     "open_memory_events" };

/* One row: a path of one kind and, per opener, the open's and the first
 * check's expected returns. */
struct row {
	const char *kind;
	char path[400];
	bool unprivileged; /* run the cells as nobody (root reads anything) */
	int open_want[NR_OPENERS];
	int check_want[NR_OPENERS];
};

static char tmpdir[64];

/* As root, become nobody (the unreadable row). Return: 0 or -1. */
static int drop_to_nobody(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

static int open_with(enum opener op, const char *path, struct shr_pressure **src)
{
	switch (op) {
	case OPEN_PSI:
		return shr_pressure_open_psi(path, NULL, src);
	case OPEN_SYSTEMD:
		setenv("MEMORY_PRESSURE_WATCH", path, 1);
		setenv("MEMORY_PRESSURE_WRITE", WRITE_B64, 1);
		return shr_pressure_open_systemd(src);
	default:
		return shr_pressure_open_memory_events(path, src);
	}
}

/* The child's side of a cell: open, check once, report both. */
static void run_cell_child(const struct row *row, enum opener op, int out_fd)
{
	struct shr_pressure *src = NULL;
	int res[2] = { 0, NO_CHECK };

	alarm(CELL_GUARD_S);
	if (row->unprivileged && drop_to_nobody())
		_exit(3);
	res[0] = open_with(op, row->path, &src);
	if (res[0] == 0) {
		res[1] = shr_pressure_check(src, 0, NULL);
		shr_pressure_close(src);
	}
	_exit(write(out_fd, res, sizeof(res)) == (ssize_t)sizeof(res) ? 0 : 4);
}

/* Run one cell. Return: true if it is as the row wants (printed either
 * way). */
static bool run_cell(const struct row *row, enum opener op)
{
	int res[2] = { 0, NO_CHECK }, fds[2], status;
	bool got, ok;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		run_cell_child(row, op, fds[1]);
	}
	close(fds[1]);
	got = read(fds[0], res, sizeof(res)) == (ssize_t)sizeof(res);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!got) {
		print_message("# %-12s x %-18s: no answer (%s %d)%s\n", row->kind, opener_name[op],
			      WIFSIGNALED(status) ? "signal" : "exit",
			      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			      WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? ": hung" : "");
		return false;
	}
	ok = res[0] == row->open_want[op] &&
	     (row->check_want[op] == CHECK_0_OR_1 ? res[1] == 0 || res[1] == 1
						  : res[1] == row->check_want[op]);
	print_message("# %-12s x %-18s: open %d (want %d), check %d (want %d)%s\n", row->kind,
		      opener_name[op], res[0], row->open_want[op], res[1], row->check_want[op],
		      ok ? "" : "  <-- wrong");
	return ok;
}

/* A row whose three opens all fail with @err. */
static void row_all(struct row *row, const char *kind, int err)
{
	row->kind = kind;
	row->unprivileged = false;
	for (int op = 0; op < NR_OPENERS; op++) {
		row->open_want[op] = err;
		row->check_want[op] = NO_CHECK;
	}
}

static void row_set(struct row *row, enum opener op, int open_want, int check_want)
{
	row->open_want[op] = open_want;
	row->check_want[op] = check_want;
}

static const char events_text[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";

/* Run every cell of @row; count the wrong ones in *@wrong. */
static void run_row(const struct row *row, int *wrong)
{
	for (int op = 0; op < NR_OPENERS; op++)
		*wrong += !run_cell(row, op);
}

/* The rows that need nothing of the machine. */
static void run_plain_rows(int *wrong)
{
	struct row row;
	int lfd;

	/* A regular file that reads like memory.events: not a PSI file
	 * (the trigger would be written over it), but a memory.events a test
	 * can drive. */
	row_all(&row, "regular", -ENOTTY);
	snprintf(row.path, sizeof(row.path), "%s/memory.events", tmpdir);
	fix_write_file(row.path, events_text, 0644);
	row_set(&row, OPEN_MEMORY_EVENTS, 0, 0);
	run_row(&row, wrong);

	/* A FIFO relay: opens, and no pressure before anyone writes (its own
	 * trigger is not read back); memory.events refuses it without
	 * blocking in open. */
	row_all(&row, "fifo", -ENOTTY);
	snprintf(row.path, sizeof(row.path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(row.path, 0600), 0);
	row_set(&row, OPEN_PSI, 0, 0);
	row_set(&row, OPEN_SYSTEMD, 0, 0);
	run_row(&row, wrong);

	/* Always readable, at end of file at once: neither is a relay. */
	row_all(&row, "/dev/zero", -ENOTTY);
	strcpy(row.path, "/dev/zero");
	run_row(&row, wrong);
	row_all(&row, "/dev/urandom", -ENOTTY);
	strcpy(row.path, "/dev/urandom");
	run_row(&row, wrong);
	row_all(&row, "/dev/null", -ENOTTY);
	strcpy(row.path, "/dev/null");
	row_set(&row, OPEN_SYSTEMD, -EHOSTDOWN, NO_CHECK); /* the protocol's "off" */
	run_row(&row, wrong);

	row_all(&row, "directory", -EISDIR);
	strcpy(row.path, tmpdir);
	run_row(&row, wrong);

	/* A listening AF_UNIX socket: connected (nobody accepts, nobody
	 * writes: no pressure); memory.events refuses it. */
	row_all(&row, "socket", -ENOTTY);
	snprintf(row.path, sizeof(row.path), "%s/sock", tmpdir);
	lfd = fix_listen_unix(row.path);
	row_set(&row, OPEN_PSI, 0, 0);
	row_set(&row, OPEN_SYSTEMD, 0, 0);
	run_row(&row, wrong);
	close(lfd);

	row_all(&row, "missing", -ENOENT);
	snprintf(row.path, sizeof(row.path), "%s/missing", tmpdir);
	run_row(&row, wrong);

	row_all(&row, "unreadable", -EACCES);
	snprintf(row.path, sizeof(row.path), "%s/unreadable", tmpdir);
	fix_write_file(row.path, events_text, 0);
	row.unprivileged = true;
	run_row(&row, wrong);
}

/* /proc/pressure/memory: a PSI file for the first two, not memory.events. */
static void run_procfs_row(int *wrong)
{
	struct row row;

	if (access("/proc/pressure/memory", W_OK) < 0) {
		print_message("# skipped: procfs row: /proc/pressure/memory: %s\n",
			      strerror(errno));
		return;
	}
	row_all(&row, "procfs", 0);
	strcpy(row.path, "/proc/pressure/memory");
	row_set(&row, OPEN_PSI, 0, CHECK_0_OR_1);
	row_set(&row, OPEN_SYSTEMD, 0, CHECK_0_OR_1);
	row_set(&row, OPEN_MEMORY_EVENTS, -EINVAL, NO_CHECK); /* no "high" line */
	run_row(&row, wrong);
}

/* A new cgroup's memory.pressure, and its memory.events where the memory
 * controller is on cgroup v2 (else its cgroup.events, which has no
 * "high"). */
static void run_cgroupfs_row(int *wrong)
{
	const char *mnt = fix_cgroup2_mount();
	char cg[300];
	struct row row;

	if (!mnt) {
		print_message("# skipped: cgroupfs rows: no writable cgroup v2 mount\n");
		return;
	}
	snprintf(cg, sizeof(cg), "%s/shr-files-%d", mnt, (int)getpid());
	if (mkdir(cg, 0755) < 0) {
		print_message("# skipped: cgroupfs rows: mkdir %s: %s\n", cg, strerror(errno));
		return;
	}
	row_all(&row, "cgroupfs", 0);
	snprintf(row.path, sizeof(row.path), "%s/memory.pressure", cg);
	/* An empty cgroup stalls on nothing. */
	row_set(&row, OPEN_PSI, 0, 0);
	row_set(&row, OPEN_SYSTEMD, 0, 0);
	row_set(&row, OPEN_MEMORY_EVENTS, -EINVAL, NO_CHECK);
	if (access(row.path, F_OK) == 0)
		run_row(&row, wrong);
	else
		print_message("# skipped: %s: no PSI\n", row.path);

	/* A read-only kernfs file: the kernel refuses the trigger written;
	 * memory.events opens where the controller is on cgroup v2. */
	snprintf(row.path, sizeof(row.path), "%s/memory.events", cg);
	row_all(&row, "cg events", -EINVAL);
	if (access(row.path, F_OK) == 0) {
		row_set(&row, OPEN_MEMORY_EVENTS, 0, 0);
	} else {
		print_message("# %s: none (the memory controller is not on this cgroup v2 "
			      "hierarchy): cgroup.events instead\n", row.path);
		snprintf(row.path, sizeof(row.path), "%s/cgroup.events", cg);
		row_set(&row, OPEN_MEMORY_EVENTS, -EINVAL, NO_CHECK); /* no "high" */
	}
	run_row(&row, wrong);
	assert_int_equal(rmdir(cg), 0);
}

static void test_every_kind_of_file_by_every_opener(void **state)
{
	int wrong = 0;

	(void)state;
	run_plain_rows(&wrong);
	run_procfs_row(&wrong);
	run_cgroupfs_row(&wrong);
	assert_int_equal(wrong, 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind_of_file_by_every_opener),
	};
	char cmd[128];
	int ret;

	shr_test_init(argc, argv);
	strcpy(tmpdir, "/tmp/shr-pressure-files-XXXXXX");
	if (!mkdtemp(tmpdir) || chmod(tmpdir, 0755)) {
		perror("mkdtemp");
		return 1;
	}
	ret = SHR_RUN_TESTS("pressure_files", tests);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		ret = ret ? ret : 1;
	return ret;
}
