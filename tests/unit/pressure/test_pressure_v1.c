/* SPDX-License-Identifier: MIT */
/*
 * cgroup v1 usage thresholds (shr_pressure_open_usage_threshold()), on a
 * real v1 memory cgroup where the memory controller is on cgroup v1 (a v1
 * or hybrid host; skipped with the reason elsewhere):
 *  - what is refused: NULL, a threshold past the counter's max, a
 *    directory that is no v1 memory cgroup, a file that only looks like
 *    one, a cgroup without a limit when the threshold is its default;
 *  - the default threshold is 7/8 of the limit;
 *  - a child that charges past the threshold fires it (with the excess);
 *    its exit (a crossing down) does not; a source opened over the
 *    threshold fires at once; the cgroup's removal makes it gone.
 * Bounded by work: the child charges 24 MiB once; each wait is for what
 * the test already caused (a guard of FIX_WAIT_MS).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/memcg.h>
#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

#define MIB (1024UL * 1024UL)
#define CHILD_BYTES (24 * MIB)

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

static void test_usage_threshold_refusals(void **state)
{
	const char *fake = fix_tmp_path("fake-v1");
	char cg[320], file[400];
	struct shr_pressure *src;

	(void)state;
	assert_int_equal(shr_pressure_open_usage_threshold(NULL, 0, &src), -EINVAL);
	assert_int_equal(shr_pressure_open_usage_threshold("/", 0, NULL), -EINVAL);
	assert_int_equal(shr_pressure_open_usage_threshold("/", SHR_PAGE_COUNTER_MAX + 1, &src),
			 -EINVAL);
	assert_int_equal(shr_pressure_open_usage_threshold(fix_tmpdir(), 0, &src), -ENOENT);
	assert_int_equal(mkdir(fake, 0755), 0);
	snprintf(file, sizeof(file), "%s/memory.usage_in_bytes", fake);
	fix_write_file(file, "0\n", 0644);
	assert_int_equal(shr_pressure_open_usage_threshold(fake, 0, &src), -ENOTTY);
	assert_null(shr_pressure_path(NULL));

	if (!make_v1_cgroup(cg, sizeof(cg), "shr-v1-refusals"))
		return;
	/* No limit: no default threshold. */
	assert_int_equal(shr_pressure_open_usage_threshold(cg, 0, &src), -ERANGE);
	assert_int_equal(shr_pressure_open_usage_threshold(cg, MIB, &src), 0);
	assert_int_equal(shr_pressure_kind(src), SHR_PRESSURE_USAGE_THRESHOLD);
	snprintf(file, sizeof(file), "%s/memory.usage_in_bytes", cg);
	assert_string_equal(shr_pressure_path(src), file);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);
	assert_int_equal(rmdir(cg), 0);
}

/* The child: join @cg, charge CHILD_BYTES (touched), say so on @ready,
 * wait for @go to close. */
static void charge_in(const char *cg, int ready, int go)
{
	char pid[32], c;
	volatile char *mem;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	set_file(cg, "cgroup.procs", pid);
	mem = malloc(CHILD_BYTES);
	if (!mem)
		_exit(2);
	/* Touch every page (volatile: the compiler may not drop the
	 * allocation, whose contents nobody reads). */
	for (size_t i = 0; i < CHILD_BYTES; i += 4096)
		mem[i] = 1;
	if (write(ready, "r", 1) != 1)
		_exit(3);
	(void)!read(go, &c, 1);
	free((void *)mem);
	_exit(0);
}

static void test_usage_threshold_fires_on_crossing(void **state)
{
	struct shr_pressure *src, *late;
	int ready[2], go[2], status;
	struct shr_pressure_event ev;
	char cg[320], c;
	pid_t child;

	(void)state;
	if (!make_v1_cgroup(cg, sizeof(cg), "shr-v1-threshold"))
		return;
	set_file(cg, "memory.limit_in_bytes", "268435456");
	/* The default: 7/8 of the limit, 224 MiB; nothing charged yet. */
	assert_int_equal(shr_pressure_open_usage_threshold(cg, 0, &src), 0);
	assert_int_equal(shr_pressure_check(src, 0, NULL), 0);
	shr_pressure_close(src);

	assert_int_equal(shr_pressure_open_usage_threshold(cg, 8 * MIB, &src), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close(ready[0]);
		close(go[1]);
		charge_in(cg, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), &ev), 1);
	assert_int_equal(ev.kind, SHR_PRESSURE_USAGE_THRESHOLD);
	assert_true(ev.over_high > 0);
	print_message("# %lu KiB over a threshold of 8 MiB\n", ev.over_high / 1024);
	/* Opened over its threshold: fires at its first check. */
	assert_int_equal(shr_pressure_open_usage_threshold(cg, 4 * MIB, &late), 0);
	assert_int_equal(shr_pressure_check(late, 0, NULL), 1);
	shr_pressure_close(late);

	close(go[1]);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The way down is a crossing too, and no pressure. */
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), 0);
	close(ready[0]);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_pressure_check(src, fix_wait_ready(src), NULL), -ENODEV);
	shr_pressure_close(src);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage_threshold_refusals),
		cmocka_unit_test(test_usage_threshold_fires_on_crossing),
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
