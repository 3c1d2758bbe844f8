/* SPDX-License-Identifier: MIT */
/*
 * The MEMORY_PRESSURE_WATCH protocol and the default watch
 * (src/pressure/pressure_systemd.c) on real files, FIFOs, sockets and the
 * running kernel's cgroups:
 *  - a socket watch gets the decoded MEMORY_PRESSURE_WRITE, fires on data,
 *    is gone when the peer closes;
 *  - the protocol's refusals, each with systemd's error;
 *  - the default watch chosen by what bounds the process's memory: its
 *    cgroup v2 memory.pressure, the vmpressure of its cgroup v1 memory
 *    cgroup when the memory controller is on v1 and a limit applies, else
 *    the machine's PSI; shr_pressure_path() says which.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

/* The systemd protocol with an AF_UNIX socket: connected, the decoded
 * MEMORY_PRESSURE_WRITE sent, data from the peer fires, the peer's close
 * makes the source gone. */
static void test_systemd_socket_watch(void **state)
{
	const char *path = fix_tmp_path("sock");
	/* base64 of "some 200000 2000000" with its NUL */
	const char *write_b64 = "c29tZSAyMDAwMDAgMjAwMDAwMAA=";
	const char expect[] = "some 200000 2000000";
	struct shr_pressure *src;
	int lfd = fix_listen_unix(path), conn;
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
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), 1);
	close(conn);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
	close(lfd);
}

/* The protocol's refusals, each with systemd's error. */
static void test_systemd_refusals(void **state)
{
	const char *file = fix_tmp_path("plain-file");
	const char *fifo = fix_tmp_path("fifo-b64");
	struct shr_pressure *src;
	char buf[32];
	int peer;

	(void)state;
	fix_write_file(file, "", 0644);
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
	setenv("MEMORY_PRESSURE_WATCH", fix_tmpdir(), 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EISDIR);
	setenv("MEMORY_PRESSURE_WATCH", fix_tmp_path("nothing-here"), 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -ENOENT);

	assert_int_equal(mkfifo(fifo, 0600), 0);
	setenv("MEMORY_PRESSURE_WATCH", fifo, 1);
	setenv("MEMORY_PRESSURE_WRITE", "not*base64", 1);
	assert_int_equal(shr_pressure_open_systemd(&src), -EBADMSG);
	/* A FIFO gets nothing written, WRITE or not. */
	setenv("MEMORY_PRESSURE_WRITE", "aGk", 1); /* "hi", unpadded */
	assert_int_equal(shr_pressure_open_systemd(&src), 0);
	peer = open(fifo, O_RDWR | O_NONBLOCK);
	assert_int_equal(read(peer, buf, sizeof(buf)), -1);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	close(peer);
	shr_pressure_close(src);
	/* A socket gets the decoded bytes as they are (no NUL added: that is
	 * for PSI files). */
	{
		const char *sock = fix_tmp_path("sock-hi");
		int lfd = fix_listen_unix(sock), conn;

		setenv("MEMORY_PRESSURE_WATCH", sock, 1);
		assert_int_equal(shr_pressure_open_systemd(&src), 0);
		conn = accept(lfd, NULL, NULL);
		assert_int_equal(read(conn, buf, sizeof(buf)), 2);
		assert_memory_equal(buf, "hi", 2);
		close(conn);
		close(lfd);
		shr_pressure_close(src);
	}
	unsetenv("MEMORY_PRESSURE_WRITE");
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
	print_message("# default watch here: %s (kind %d)\n", shr_pressure_path(src),
		      (int)shr_pressure_kind(src));
	assert_non_null(shr_pressure_path(src));
	assert_true(shr_pressure_kind(src) == SHR_PRESSURE_PSI ||
		    shr_pressure_kind(src) == SHR_PRESSURE_VMPRESSURE);
	shr_pressure_close(src);
}

/* In a child moved into a v1 memory cgroup @cg with a limit: the default
 * watch is @cg's vmpressure (not the machine's PSI). Exit: 0 as
 * expected, else the step that was not. */
static int default_watch_in(const char *cg)
{
	char procs[400], pid[32], want[400];
	struct shr_pressure *src;
	int fd;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	fd = open(procs, O_WRONLY);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (fd < 0 || write(fd, pid, strlen(pid)) != (ssize_t)strlen(pid))
		return 10;
	close(fd);
	unsetenv("MEMORY_PRESSURE_WATCH");
	if (shr_pressure_open_systemd(&src))
		return 1;
	snprintf(want, sizeof(want), "%s/memory.pressure_level", cg);
	printf("# default watch in a v1 cgroup with a limit: %s (kind %d)\n", shr_pressure_path(src),
	       (int)shr_pressure_kind(src));
	if (shr_pressure_kind(src) != SHR_PRESSURE_VMPRESSURE)
		return 2;
	if (strcmp(shr_pressure_path(src), want))
		return 3;
	shr_pressure_close(src);
	fflush(stdout);
	return 0;
}

/* On a host whose memory controller is on cgroup v1, a process in a v1
 * memory cgroup with a limit gets its vmpressure by default. */
static void test_default_watch_on_a_v1_memory_cgroup(void **state)
{
	const char *mnt = fix_memcg_v1_mount();
	char cg[320], limit[400];
	int status;
	pid_t pid;

	(void)state;
	if (!mnt)
		SKIP_BECAUSE("the memory controller is not on cgroup v1 here\n");
	snprintf(cg, sizeof(cg), "%s/shr-default-%d", mnt, (int)getpid());
	if (mkdir(cg, 0755) < 0)
		SKIP_BECAUSE("mkdir %s: %s\n", cg, strerror(errno));
	snprintf(limit, sizeof(limit), "%s/memory.limit_in_bytes", cg);
	fix_write_file(limit, "268435456", 0644);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(default_watch_in(cg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(rmdir(cg), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_socket_watch),
		cmocka_unit_test(test_systemd_refusals),
		cmocka_unit_test(test_systemd_default_watch),
		cmocka_unit_test(test_default_watch_on_a_v1_memory_cgroup),
	};
	int ret;

	shr_test_init(argc, argv);
	if (fix_tmpdir_setup("shr-pressure-systemd")) {
		perror("mkdtemp");
		return 1;
	}
	ret = SHR_RUN_TESTS("pressure_systemd", tests);
	if (fix_tmpdir_teardown())
		ret = ret ? ret : 1;
	return ret;
}
