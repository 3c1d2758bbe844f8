/* SPDX-License-Identifier: MIT */
/*
 * cgroup v1 vmpressure sources (shr_pressure_open_vmpressure()), on a real
 * v1 memory cgroup where the memory controller is on cgroup v1 (a v1 or
 * hybrid host; skipped with the reason elsewhere):
 *  - what is refused: NULL, an unknown level, a directory that is no v1
 *    memory cgroup, a file that only looks like one;
 *  - a child reading a file through the page cache in a cgroup whose limit
 *    is half the file makes the cgroup reclaim: the source fires; the
 *    cgroup's removal makes it gone.
 * Bounded by work: the child reads the 32 MiB file twice; each wait is for
 * what the test already caused (a guard of FIX_WAIT_MS).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

#define MIB (1024UL * 1024UL)
#define FILE_BYTES (32 * MIB)
#define TMPFS_MAGIC 0x01021994

/* A new v1 memory cgroup in @buf, or NULL (and why). */
static const char *make_v1_cgroup(char *buf, size_t size, const char *name)
{
	const char *mnt = fix_memcg_v1_mount();

	if (!mnt) {
		print_message("# skipped: the memory controller is not on cgroup v1 here\n");
		return NULL;
	}
	snprintf(buf, size, "%s/%s-%d", mnt, name, (int)getpid());
	if (mkdir(buf, 0755) < 0) {
		print_message("# skipped: mkdir %s: %s\n", buf, strerror(errno));
		return NULL;
	}
	return buf;
}

static void set_file(const char *dir, const char *name, const char *value)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fix_write_file(path, value, 0644);
}

static void test_vmpressure_refusals(void **state)
{
	const char *fake = fix_tmp_path("fake-v1");
	char cg[320], file[400];
	struct shr_pressure *src;

	(void)state;
	assert_int_equal(shr_pressure_open_vmpressure(NULL, NULL, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_vmpressure("/", NULL, NULL), -EINVAL);
	assert_int_equal(shr_pressure_open_vmpressure("/", "high", &src), -EINVAL);
	assert_int_equal(shr_pressure_open_vmpressure(fix_tmpdir(), NULL, &src), -ENOENT);
	assert_int_equal(mkdir(fake, 0755), 0);
	snprintf(file, sizeof(file), "%s/memory.pressure_level", fake);
	fix_write_file(file, "", 0644);
	assert_int_equal(shr_pressure_open_vmpressure(fake, NULL, &src), -ENOTTY);
	assert_null(shr_pressure_path(NULL));

	if (!make_v1_cgroup(cg, sizeof(cg), "shr-v1-refusals"))
		return;
	assert_int_equal(shr_pressure_open_vmpressure(cg, "critical", &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_VMPRESSURE);
	snprintf(file, sizeof(file), "%s/memory.pressure_level", cg);
	assert_string_equal(shr_pressure_path(src), file);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);
	assert_int_equal(rmdir(cg), 0);
}

/* Write @path (FILE_BYTES) and drop its pages from the page cache, so that
 * a reader charges them anew. Return: false if it cannot (and why). */
static bool make_uncached_file(const char *path)
{
	static char chunk[1024 * 1024];
	struct statfs sfs;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC) {
		close(fd);
		unlink(path);
		print_message("# skipped: %s is on tmpfs (its pages are not reclaimable without "
			      "swap)\n", path);
		return false;
	}
	memset(chunk, 7, sizeof(chunk));
	for (unsigned long n = 0; n < FILE_BYTES; n += sizeof(chunk))
		assert_int_equal(write(fd, chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	return true;
}

/* The child: join @cg, read @path twice through the page cache, say so on
 * @ready, wait for @go to close. */
static void read_in(const char *cg, const char *path, int ready, int go)
{
	static char buf[1024 * 1024];
	char pid[32], c;
	int fd;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	set_file(cg, "cgroup.procs", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		_exit(2);
	for (int pass = 0; pass < 2; pass++)
		for (off_t off = 0; pread(fd, buf, sizeof(buf), off) > 0; off += (off_t)sizeof(buf))
			;
	close(fd);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	(void)!read(go, &c, 1);
	_exit(0);
}

static void test_vmpressure_fires_when_the_cgroup_reclaims(void **state)
{
	char cg[320], path[128], c;
	int ready[2], go[2], status;
	struct shr_pressure *src;
	pid_t child;

	(void)state;
	snprintf(path, sizeof(path), "shr-vmpressure-%d.bin", (int)getpid());
	if (!make_uncached_file(path))
		return;
	if (!make_v1_cgroup(cg, sizeof(cg), "shr-v1-vmpressure")) {
		unlink(path);
		return;
	}
	set_file(cg, "memory.limit_in_bytes", "16777216");
	assert_int_equal(shr_pressure_open_vmpressure(cg, NULL, &src), 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(ready[0]);
		close(go[1]);
		read_in(cg, path, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), 1);
	close(go[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(ready[0]);
	/* Drain what the reads left, then remove the cgroup: gone. */
	(void)shr_pressure_check(src, 0, NULL);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
	unlink(path);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmpressure_refusals),
		cmocka_unit_test(test_vmpressure_fires_when_the_cgroup_reclaims),
	};
	int ret;

	shr_test_init(argc, argv);
	if (fix_tmpdir_setup("shr-pressure-v1")) {
		perror("mkdtemp");
		return 1;
	}
	ret = SHR_RUN_TESTS("pressure_v1", tests);
	if (fix_tmpdir_teardown())
		ret = ret ? ret : 1;
	return ret;
}
