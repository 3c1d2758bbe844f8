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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"

/*
 * What this machine lacks for a test: the test prints why and returns
 * (a per-test skip would read as a failure in Meson's TAP parser).
 */
#define SKIP_BECAUSE(...)                                        \
	do {                                                     \
		print_message("# skipped: " __VA_ARGS__);        \
		return;                                          \
	} while (0)

/* Longest wait for an event the test already caused (a guard: poll
 * returns as soon as it is there). */
#define WAIT_MS 20000

static char tmpdir[64];

static int setup_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/shr-pressure-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A path in the test's directory; valid until the fourth call after. */
static const char *tmp_path(const char *name)
{
	static char buf[4][128];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Wait for @src's fd to be ready; return the revents. */
static short wait_ready(struct shr_pressure *src)
{
	struct pollfd pfd = { .fd = shr_pressure_fd(src), .events = shr_pressure_poll_events(src) };

	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	return pfd.revents;
}

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
	const char *path = tmp_path("bad-trigger");
	struct shr_pressure *src;
	struct stat st;

	(void)state;
	write_file(path, "");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(shr_pressure_open_psi(path, bad[i], &src), -EINVAL);
	assert_int_equal(shr_pressure_open_psi(NULL, NULL, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_psi(path, NULL, NULL), -EINVAL);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(shr_pressure_open_psi(tmp_path("missing"), NULL, &src), -ENOENT);
	assert_int_equal(shr_pressure_open_psi(tmpdir, NULL, &src), -EISDIR);
	assert_int_equal(shr_pressure_fd(NULL), -EINVAL);
	assert_int_equal(shr_pressure_poll_events(NULL), 0);
	assert_int_equal(shr_pressure_check(NULL, 0, NULL), -EINVAL);
	shr_pressure_close(NULL);
}

/* On a regular file (a stand-in for a PSI file) the trigger is written
 * with its NUL at offset 0, the source polls POLLPRI, and a file that
 * never reports POLLPRI never fires. */
static void test_trigger_written_with_nul(void **state)
{
	const char *path = tmp_path("fake-psi");
	const char trigger[] = "full 150000 1000000";
	struct shr_pressure *src;
	char buf[64];
	int fd;

	(void)state;
	write_file(path, "");
	assert_int_equal(shr_pressure_open_psi(path, trigger, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_PSI);
	assert_int_equal(shr_pressure_poll_events(src), POLLPRI);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf)), (ssize_t)sizeof(trigger));
	close(fd);
	assert_memory_equal(buf, trigger, sizeof(trigger));
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);
}

/* A FIFO watch: the trigger arrives in the FIFO, data written to it fires
 * the source once, and the source drains it. */
static void test_fifo_fires_on_data(void **state)
{
	const char *path = tmp_path("fifo");
	const char trigger[] = "some 100000 1000000";
	struct shr_pressure_event ev;
	struct shr_pressure *src;
	char buf[64];
	int peer;

	(void)state;
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(shr_pressure_open_psi(path, trigger, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_STREAM);
	assert_int_equal(shr_pressure_poll_events(src), POLLIN);
	peer = open(path, O_RDWR | O_NONBLOCK);
	assert_true(peer >= 0);
	assert_int_equal(read(peer, buf, sizeof(buf)), (ssize_t)sizeof(trigger));
	assert_memory_equal(buf, trigger, sizeof(trigger));
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);

	assert_int_equal(write(peer, "xyz", 3), 3);
	assert_true(wait_ready(src) & POLLIN);
	assert_int_equal(shr_pressure_check(src, POLLIN, &ev), 1);
	assert_int_equal(ev.kind, SHR_PRESSURE_STREAM);
	assert_int_equal(ev.high, 0);
	/* Drained: nothing left for the next check. */
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);
	close(peer);
	shr_pressure_close(src);
}

/* A listening AF_UNIX socket at @path. */
static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

/* The systemd protocol with an AF_UNIX socket: connected, the decoded
 * MEMORY_PRESSURE_WRITE sent, data from the peer fires, the peer's close
 * makes the source gone. */
static void test_systemd_socket_watch(void **state)
{
	const char *path = tmp_path("sock");
	/* base64 of "some 200000 2000000" with its NUL */
	const char *write_b64 = "c29tZSAyMDAwMDAgMjAwMDAwMAA=";
	const char expect[] = "some 200000 2000000";
	struct shr_pressure *src;
	int lfd = listen_unix(path), conn;
	char buf[64];

	(void)state;
	setenv("MEMORY_PRESSURE_WATCH", path, 1);
	setenv("MEMORY_PRESSURE_WRITE", write_b64, 1);
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	unsetenv("MEMORY_PRESSURE_WATCH");
	unsetenv("MEMORY_PRESSURE_WRITE");
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_STREAM);
	conn = accept(lfd, NULL, NULL);
	assert_true(conn >= 0);
	assert_int_equal(read(conn, buf, sizeof(buf)), (ssize_t)sizeof(expect));
	assert_memory_equal(buf, expect, sizeof(expect));
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	assert_int_equal(write(conn, "!", 1), 1);
	assert_int_equal(shr_pressure_check(src, wait_ready(src), NULL), 1);
	close(conn);
	assert_int_equal(shr_pressure_check(src, wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
	close(lfd);
}

/* The protocol's refusals, each with systemd's error. */
static void test_systemd_refusals(void **state)
{
	const char *file = tmp_path("plain-file");
	const char *fifo = tmp_path("fifo-b64");
	struct shr_pressure *src;
	char buf[32];
	int peer;

	(void)state;
	write_file(file, "");
	setenv("MEMORY_PRESSURE_WATCH", "", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EHOSTDOWN);
	setenv("MEMORY_PRESSURE_WATCH", "/dev/null", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EHOSTDOWN);
	setenv("MEMORY_PRESSURE_WATCH", "relative/memory.pressure", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	setenv("MEMORY_PRESSURE_WATCH", "/proc/../proc/pressure/memory", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	setenv("MEMORY_PRESSURE_WATCH", "/proc//pressure/memory", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	setenv("MEMORY_PRESSURE_WATCH", "/proc/pressure/memory/", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	/* A regular file outside procfs and cgroupfs is not a PSI file. */
	setenv("MEMORY_PRESSURE_WATCH", file, 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -ENOTTY);
	setenv("MEMORY_PRESSURE_WATCH", tmpdir, 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EISDIR);
	setenv("MEMORY_PRESSURE_WATCH", tmp_path("nothing-here"), 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -ENOENT);

	assert_int_equal(mkfifo(fifo, 0600), 0);
	setenv("MEMORY_PRESSURE_WATCH", fifo, 1);
	setenv("MEMORY_PRESSURE_WRITE", "not*base64", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	setenv("MEMORY_PRESSURE_WRITE", "aGk", 1); /* "hi", unpadded */
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	peer = open(fifo, O_RDWR | O_NONBLOCK);
	assert_int_equal(read(peer, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "hi", 2);
	close(peer);
	shr_pressure_close(src);
	unsetenv("MEMORY_PRESSURE_WRITE");
	/* No WRITE: nothing is written. */
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	peer = open(fifo, O_RDWR | O_NONBLOCK);
	assert_int_equal(read(peer, buf, sizeof(buf)), -1);
	close(peer);
	shr_pressure_close(src);
	unsetenv("MEMORY_PRESSURE_WATCH");
	assert_int_equal(shr_pressure_open_systemd(NULL), -EINVAL);
}

/* Without the variables: the default watch and trigger, on this kernel. */
static void test_systemd_default_watch(void **state)
{
	struct shr_pressure *src;
	int ret;

	(void)state;
	unsetenv("MEMORY_PRESSURE_WATCH");
	ret = shr_pressure_open_systemd(&src);
	if (ret == -EOPNOTSUPP || ret == -EACCES || ret == -EPERM)
		SKIP_BECAUSE("no usable PSI on this machine (%s)\n", strerror(-ret));
	assert_int_equal(ret, 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_PSI);
	assert_int_equal(shr_pressure_poll_events(src), POLLPRI);
	shr_pressure_close(src);
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
	strcpy(events, tmp_path("memory.events"));
	write_file(events, "low 0\nmax 0\n");
	assert_int_equal(shr_pressure_open_memory_events(events, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_memory_events(tmp_path("none"), &src), -ENOENT);
	assert_int_equal(shr_pressure_open_memory_events(NULL, &src), -EINVAL);

	write_file(events, events_zero);
	write_file(tmp_path("memory.current"), "1000\n");
	write_file(tmp_path("memory.high"), "800\n");
	assert_int_equal(shr_pressure_open_memory_events(events, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_MEMORY_EVENTS);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);

	write_file(events, "low 7\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
	assert_int_equal(shr_pressure_check(src, wait_ready(src), &ev), 0);
	write_file(events, "low 7\nhigh 3\nmax 0\noom 0\noom_kill 0\n");
	assert_int_equal(shr_pressure_check(src, wait_ready(src), &ev), 1);
	assert_int_equal(ev.kind, SHR_PRESSURE_MEMORY_EVENTS);
	assert_int_equal(ev.high, 3);
	assert_int_equal(ev.max, 0);
	assert_int_equal(ev.over_high, 200);
	assert_int_equal(shr_pressure_check(src, 0, &ev), 0);

	write_file(tmp_path("memory.high"), "max\n");
	write_file(events, "low 7\nhigh 3\nmax 2\noom 1\noom_kill 1\n");
	assert_int_equal(shr_pressure_check(src, wait_ready(src), &ev), 1);
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

/* A writable cgroup v2 mount, or NULL. */
static const char *cgroup2_mount(void)
{
	static char mnt[256];
	char dev[64], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return NULL;
	mnt[0] = '\0';
	while (fscanf(f, "%63s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2") && access(dir, W_OK) == 0) {
			strcpy(mnt, dir);
			break;
		}
	}
	fclose(f);
	return mnt[0] ? mnt : NULL;
}

/* A new cgroup under the cgroup v2 mount in @buf; NULL (and why on
 * stdout) if this machine cannot make one. */
static const char *make_cgroup(char *buf, size_t size)
{
	const char *mnt = cgroup2_mount();

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
	assert_int_equal(shr_pressure_check(src, wait_ready(src), NULL), -ENODEV);
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
	assert_int_equal(shr_pressure_check(src, wait_ready(src), NULL), 1);
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
		cmocka_unit_test(test_systemd_socket_watch),
		cmocka_unit_test(test_systemd_refusals),
		cmocka_unit_test(test_systemd_default_watch),
		cmocka_unit_test(test_memory_events_file),
		cmocka_unit_test(test_kernel_accepts_system_trigger),
		cmocka_unit_test(test_cgroup_trigger_gone_with_its_cgroup),
		cmocka_unit_test(test_kernfs_notification_fires),
	};

	int ret;

	shr_test_init(argc, argv);
	if (setup_tmpdir()) {
		perror("mkdtemp");
		return 1;
	}
	ret = SHR_RUN_TESTS("pressure_sources", tests);
	if (teardown_tmpdir())
		ret = ret ? ret : 1;
	return ret;
}
