/* SPDX-License-Identifier: MIT */
/*
 * The pressure sources (pressure.h) on real files, FIFOs, sockets and
 * inotify, and on the running kernel's PSI files and cgroup v2 kernfs
 * files where the machine has them (skipped, with the reason, where not):
 *  - trigger syntax and ranges are checked before the kernel sees them;
 *  - the trigger reaches the watched file with its NUL;
 *  - FIFO and socket watches fire on data and drain it; a closed peer is
 *    "gone";
 *  - the systemd protocol's environment: disabled, bad paths, base64,
 *    files outside procfs/cgroupfs, its default;
 *  - memory.events fires on "high"/"max" only, with the excess over
 *    memory.high;
 *  - the kernel accepts our triggers on /proc/pressure/memory and on a
 *    cgroup's memory.pressure; a cgroup v2 kernfs notification is seen
 *    through POLLPRI; a removed cgroup's source is gone.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

/* Malformed or out-of-range triggers never reach the file. */
static void test_trigger_checked_before_the_kernel(void **state)
{
	static const char *const bad[] = {
		"",
		"some",
		"some 100000",
		"half 100000 1000000",
		"some 0 1000000",        /* no stall */
		"some 1000001 1000000",  /* stall above the window */
		"some 100 499999",       /* window below 500 ms */
		"full 100 10000001",     /* window above 10 s */
		"some 100000 1000000 x", /* trailing junk */
		"some -5 1000000",
		"some 100000 99999999999999999999999",
	};
	const char *path = fix_tmp_path("bad-trigger");
	struct shr_pressure *src;
	struct stat st;

	(void)state;
	fix_write_file(path, "", 0644);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(shr_pressure_open_psi(path, bad[i], &src), -EINVAL);
	assert_int_equal(shr_pressure_open_psi(NULL, NULL, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_psi(path, NULL, NULL), -EINVAL);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(shr_pressure_open_psi(fix_tmp_path("missing"), NULL, &src), -ENOENT);
	assert_int_equal(shr_pressure_open_psi(fix_tmpdir(), NULL, &src), -EISDIR);
	assert_int_equal(shr_pressure_fd(NULL), -EINVAL);
	assert_int_equal(shr_pressure_poll_events(NULL), 0);
	assert_int_equal(shr_pressure_check(NULL, 0, NULL), -EINVAL);
	shr_pressure_close(NULL);
}

/* The trigger reaches a relay socket whole, with its NUL; a regular file
 * outside procfs and cgroupfs is no PSI file and gets nothing written. */
static void test_trigger_written_with_nul(void **state)
{
	const char *sock = fix_tmp_path("psi-sock"), *file = fix_tmp_path("plain-psi");
	const char trigger[] = "full 150000 1000000";
	struct shr_pressure *src;
	int lfd = fix_listen_unix(sock), conn;
	struct stat st;
	char buf[64];

	(void)state;
	assert_int_equal(shr_pressure_open_psi(sock, trigger, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_STREAM);
	conn = accept(lfd, NULL, NULL);
	assert_true(conn >= 0);
	assert_int_equal(read(conn, buf, sizeof(buf)), (ssize_t)sizeof(trigger));
	assert_memory_equal(buf, trigger, sizeof(trigger));
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);
	close(conn);
	close(lfd);

	fix_write_file(file, "", 0644);
	assert_int_equal(shr_pressure_open_psi(file, trigger, &src), -ENOTTY);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_size, 0);
}

/* A FIFO watch: nothing is written to it (its reader is the source, which
 * would read its own trigger back as pressure), data written to it fires
 * the source once, and a check drains it with bounded work. */
static void test_fifo_fires_on_data(void **state)
{
	const char *path = fix_tmp_path("fifo");
	static char big[40000];
	struct shr_pressure_event ev;
	struct shr_pressure *src;
	char buf[64];
	int peer;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(shr_pressure_open_psi(path, "some 100000 1000000", &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_STREAM);
	assert_int_equal(shr_pressure_poll_events(src), POLLIN);
	peer = open(path, O_RDWR | O_NONBLOCK);
	assert_true(peer >= 0);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);
	assert_int_equal(read(peer, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);

	assert_int_equal(write(peer, "xyz", 3), 3);
	assert_true(fix_wait_ready(src) & POLLIN);
	assert_int_equal(shr_pressure_check(src, POLLIN, &ev), 1);
	assert_int_equal(ev.kind, SHR_PRESSURE_STREAM);
	assert_int_equal(ev.high, 0);
	/* Drained: nothing left for the next check. */
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);
	/* More than one read holds, less than a check reads: one event. */
	assert_int_equal(write(peer, big, sizeof(big)), (ssize_t)sizeof(big));
	assert_int_equal(shr_pressure_check(src, 0, &ev), 1);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);
	close(peer);
	shr_pressure_close(src);
}

/* A check reads at most 64 KiB: a relay socket with more than that queued
 * never runs dry (the /dev/zero case at check time) and is given up, so a
 * check always returns. */
static void test_stream_that_never_runs_dry_is_given_up(void **state)
{
	const char *path = fix_tmp_path("flood-sock");
	static char chunk[4096];
	struct shr_pressure *src;
	int lfd = fix_listen_unix(path), conn;
	size_t queued = 0;
	ssize_t n;

	(void)state;
	assert_int_equal(shr_pressure_open_psi(path, NULL, &src), 0);
	conn = accept(lfd, NULL, NULL);
	assert_true(conn >= 0);
	assert_int_equal(fcntl(conn, F_SETFL, O_NONBLOCK), 0);
	while (queued < 96 * 1024 && (n = write(conn, chunk, sizeof(chunk))) > 0)
		queued += (size_t)n;
	if (queued <= 64 * 1024) {
		print_message("# skipped: the socket took only %zu bytes\n", queued);
	} else {
		assert_int_equal(shr_pressure_check(src, 0, NULL), -ENOTTY);
	}
	shr_pressure_close(src);
	close(conn);
	close(lfd);
}

static const char events_zero[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";

/* memory.events: only high and max fire; the excess over memory.high is
 * reported; a file without "high" or a missing one is refused. */
static void test_memory_events_file(void **state)
{
	struct shr_pressure_event ev;
	struct shr_pressure *src;
	char events[128];

	(void)state;
	strcpy(events, fix_tmp_path("memory.events"));
	fix_write_file(events, "low 0\nmax 0\n", 0644);
	assert_int_equal(shr_pressure_open_memory_events(events, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_memory_events(fix_tmp_path("none"), &src), -ENOENT);
	assert_int_equal(shr_pressure_open_memory_events(NULL, &src), -EINVAL);

	fix_write_file(events, events_zero, 0644);
	fix_write_file(fix_tmp_path("memory.current"), "1000\n", 0644);
	fix_write_file(fix_tmp_path("memory.high"), "800\n", 0644);
	assert_int_equal(shr_pressure_open_memory_events(events, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_MEMORY_EVENTS);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);

	fix_write_file(events, "low 7\nhigh 0\nmax 0\noom 0\noom_kill 0\n", 0644);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), &ev), 0);
	fix_write_file(events, "low 7\nhigh 3\nmax 0\noom 0\noom_kill 0\n", 0644);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), &ev), 1);
	assert_int_equal(ev.kind, SHR_PRESSURE_MEMORY_EVENTS);
	assert_int_equal(ev.high, 3);
	assert_int_equal(ev.max, 0);
	assert_int_equal(ev.over_high, 200);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);

	fix_write_file(fix_tmp_path("memory.high"), "max\n", 0644);
	fix_write_file(events, "low 7\nhigh 3\nmax 2\noom 1\noom_kill 1\n", 0644);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), &ev), 1);
	assert_int_equal(ev.high, 0);
	assert_int_equal(ev.max, 2);
	assert_int_equal(ev.over_high, 0);
	shr_pressure_close(src);
}

/* The kernel accepts our default trigger on /proc/pressure/memory. */
static void test_kernel_accepts_system_trigger(void **state)
{
	struct shr_pressure *src;
	int ret;

	(void)state;
	ret = shr_pressure_open_psi("/proc/pressure/memory", NULL, &src);
	if (ret == -ENOENT || ret == -EOPNOTSUPP || ret == -EACCES || ret == -EPERM)
		SKIP_BECAUSE("/proc/pressure/memory: %s\n", strerror(-ret));
	assert_int_equal(ret, 0);
	/* A full stall of the whole window: never on a running machine. */
	shr_pressure_close(src);
	assert_int_equal(shr_pressure_open_psi("/proc/pressure/memory", "full 10000000 10000000",
					       &src), 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);
}

/* Whether this machine lets us set PSI triggers on the system file; if
 * not, says why. */
static bool system_psi_writable(void)
{
	if (access("/proc/pressure/memory", W_OK) == 0)
		return true;
	print_message("# skipped: /proc/pressure/memory: %s\n", strerror(errno));
	return false;
}

/* "some", @spaces spaces, "500000 2000000": 18 + @spaces characters. */
static const char *padded_trigger(char *buf, int spaces)
{
	snprintf(buf, 64, "some%*s500000 2000000", spaces, "");
	return buf;
}

/* The kernel reads 31 characters of a trigger (psi_write()'s 32-byte
 * buffer, its last byte made a NUL): one of 31 is taken, one of 32 is
 * refused before the kernel could read it as another ("some ... 500000
 * 200000"). */
static void test_trigger_length_is_the_kernels(void **state)
{
	const char *fifo = fix_tmp_path("fifo-long");
	struct shr_pressure *src;
	char t31[64], t32[64];

	(void)state;
	padded_trigger(t31, 13);
	padded_trigger(t32, 14);
	assert_int_equal(strlen(t31), 31);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(shr_pressure_open_psi(fifo, t32, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_psi(fifo, t31, &src), 0);
	shr_pressure_close(src);
	if (!system_psi_writable())
		return;
	assert_int_equal(shr_pressure_open_psi("/proc/pressure/memory", t31, &src), 0);
	shr_pressure_close(src);
}

/* Clear CAP_SYS_RESOURCE from this process's effective set. */
static int drop_cap_sys_resource(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_SYS_RESOURCE / 32].effective &= ~(1u << (CAP_SYS_RESOURCE % 32));
	return (int)syscall(SYS_capset, &hdr, data);
}

/* In a child without CAP_SYS_RESOURCE: the kernel refuses a window that
 * is not a multiple of 2 s, and the library says -EPERM (a malformed
 * trigger stays -EINVAL), by both openers. Exit status: 0 as expected,
 * else the step that was not. */
static int unprivileged_triggers(void)
{
	struct shr_pressure *src;

	if (drop_cap_sys_resource())
		return 10;
	if (shr_pressure_open_psi("/proc/pressure/memory", "some 100000 1000000", &src) != -EPERM)
		return 1;
	if (shr_pressure_open_psi("/proc/pressure/memory", "some 100000 1000000 x", &src) !=
	    -EINVAL)
		return 2;
	/* A 2 s window is an unprivileged one (kernels before 6.5 refused
	 * unprivileged writers altogether, at open: -EPERM too). */
	switch (shr_pressure_open_psi("/proc/pressure/memory", "some 200000 2000000", &src)) {
	case 0:
		shr_pressure_close(src);
		break;
	case -EPERM:
		break;
	default:
		return 3;
	}
	setenv("MEMORY_PRESSURE_WATCH", "/proc/pressure/memory", 1);
	/* "some 100000 1000000" and its NUL */
	setenv("MEMORY_PRESSURE_WRITE", "c29tZSAxMDAwMDAgMTAwMDAwMAA=", 1);
	if (shr_pressure_open_systemd(&src) != -EPERM)
		return 4;
	return 0;
}

static void test_unprivileged_window_is_eperm(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if (!system_psi_writable())
		return;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(unprivileged_triggers());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A hand-written MEMORY_PRESSURE_WRITE without its NUL: the library adds
 * it for a PSI file (else the kernel reads "some 900000 200000": its
 * last character overwritten, a stall above the window). */
static void test_systemd_write_without_nul(void **state)
{
	struct shr_pressure *src;

	(void)state;
	if (!system_psi_writable())
		return;
	setenv("MEMORY_PRESSURE_WATCH", "/proc/pressure/memory", 1);
	setenv("MEMORY_PRESSURE_WRITE", "c29tZSA5MDAwMDAgMjAwMDAwMA==", 1); /* no NUL */
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	unsetenv("MEMORY_PRESSURE_WATCH");
	unsetenv("MEMORY_PRESSURE_WRITE");
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_PSI);
	shr_pressure_close(src);
}

/* The memory.events of a removed cgroup is gone: kernfs notifies nothing
 * on the file (its inode outlives the directory, as a hard link's does
 * here), but the cgroup's parent sees the directory's removal. */
static void test_memory_events_gone_with_its_directory(void **state)
{
	char cg[128], events[160], keep[160];
	struct shr_pressure *src;

	(void)state;
	snprintf(cg, sizeof(cg), "%s/cg-gone", fix_tmpdir());
	snprintf(events, sizeof(events), "%s/memory.events", cg);
	snprintf(keep, sizeof(keep), "%s/events-kept", fix_tmpdir());
	assert_int_equal(mkdir(cg, 0755), 0);
	fix_write_file(events, events_zero, 0644);
	assert_int_equal(link(events, keep), 0);
	assert_int_equal(shr_pressure_open_memory_events(events, &src), 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	assert_int_equal(unlink(events), 0);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
}

/* A new cgroup under the cgroup v2 mount in @buf; NULL (and why on
 * stdout) if this machine cannot make one. */
static const char *make_cgroup(char *buf, size_t size)
{
	const char *mnt = fix_cgroup2_mount();

	if (!mnt) {
		print_message("# skipped: no writable cgroup v2 mount\n");
		return NULL;
	}
	snprintf(buf, size, "%s/shr-pressure-%d", mnt, (int)getpid());
	if (mkdir(buf, 0755) < 0) {
		print_message("# skipped: mkdir %s: %s\n", buf, strerror(errno));
		return NULL;
	}
	return buf;
}

/* A cgroup's memory.pressure takes our trigger; removing the cgroup makes
 * the source gone (the kernel reports POLLERR, and the file is dead). */
static void test_cgroup_trigger_gone_with_its_cgroup(void **state)
{
	char cg[320], file[400];
	struct shr_pressure *src;
	int ret;

	(void)state;
	if (!make_cgroup(cg, sizeof(cg)))
		return;
	snprintf(file, sizeof(file), "%s/memory.pressure", cg);
	/* A 2 s window: the kernel refuses other windows to processes without
	 * CAP_SYS_RESOURCE (and some sandboxes drop it from root). */
	ret = shr_pressure_open_psi(file, "some 200000 2000000", &src);
	if (ret == -ENOENT || ret == -EOPNOTSUPP) {
		rmdir(cg);
		SKIP_BECAUSE("%s: %s\n", file, strerror(-ret));
	}
	assert_int_equal(ret, 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
}

/* A real cgroup's memory.events: removing the cgroup makes the source
 * gone. Needs the memory controller on the cgroup v2 hierarchy (on a
 * hybrid host it is on v1, and a v2 cgroup has no memory.events). */
static void test_cgroup_memory_events_gone_with_its_cgroup(void **state)
{
	char cg[320], file[400];
	struct shr_pressure *src;

	(void)state;
	if (!make_cgroup(cg, sizeof(cg)))
		return;
	snprintf(file, sizeof(file), "%s/memory.events", cg);
	if (access(file, F_OK) < 0) {
		rmdir(cg);
		SKIP_BECAUSE("%s: %s (the memory controller is not on cgroup v2 here)\n", file,
			     strerror(errno));
	}
	assert_int_equal(shr_pressure_open_memory_events(file, &src), 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
}

/* A kernfs notification (cgroup.events of a cgroup that becomes
 * populated) reaches a systemd watch of a cgroupfs file through POLLPRI. */
static void test_kernfs_notification_fires(void **state)
{
	char cg[320], file[400], procs[400], pid[32];
	struct shr_pressure *src;
	pid_t child;
	int fd;

	(void)state;
	if (!make_cgroup(cg, sizeof(cg)))
		return;
	snprintf(file, sizeof(file), "%s/cgroup.events", cg);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	setenv("MEMORY_PRESSURE_WATCH", file, 1);
	unsetenv("MEMORY_PRESSURE_WRITE");
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	unsetenv("MEMORY_PRESSURE_WATCH");
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_PSI);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	fd = open(procs, O_WRONLY);
	assert_true(fd >= 0);
	snprintf(pid, sizeof(pid), "%d", (int)child);
	assert_int_equal(write(fd, pid, strlen(pid)), (ssize_t)strlen(pid));
	close(fd);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	shr_pressure_close(src);
	/* The cgroup empties asynchronously after the exit. */
	for (int i = 0; i < 2000 && rmdir(cg) < 0; i++)
		usleep(10000);
	assert_int_equal(access(cg, F_OK), -1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trigger_checked_before_the_kernel),
		cmocka_unit_test(test_trigger_written_with_nul),
		cmocka_unit_test(test_fifo_fires_on_data),
		cmocka_unit_test(test_stream_that_never_runs_dry_is_given_up),
		cmocka_unit_test(test_memory_events_file),
		cmocka_unit_test(test_kernel_accepts_system_trigger),
		cmocka_unit_test(test_trigger_length_is_the_kernels),
		cmocka_unit_test(test_unprivileged_window_is_eperm),
		cmocka_unit_test(test_systemd_write_without_nul),
		cmocka_unit_test(test_memory_events_gone_with_its_directory),
		cmocka_unit_test(test_cgroup_trigger_gone_with_its_cgroup),
		cmocka_unit_test(test_cgroup_memory_events_gone_with_its_cgroup),
		cmocka_unit_test(test_kernfs_notification_fires),
	};

	int ret;

	shr_test_init(argc, argv);
	if (fix_tmpdir_setup("shr-pressure")) {
		perror("mkdtemp");
		return 1;
	}
	ret = SHR_RUN_TESTS("pressure_sources", tests);
	if (fix_tmpdir_teardown())
		ret = ret ? ret : 1;
	return ret;
}
