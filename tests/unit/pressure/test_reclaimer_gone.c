/* SPDX-License-Identifier: MIT */
/*
 * A reclaimer whose watched cgroup is removed while it watches: the source
 * reports itself gone, the reclaimer drops and closes it (its statistics
 * count it) and runs no round for it.
 *  - a memory.events source of a directory that is removed (a plain file
 *    kept alive by a hard link, as kernfs keeps the file of a removed
 *    cgroup, with no event on the file), through shr_reclaimer_dispatch();
 *  - a real cgroup v2 child: its memory.pressure (a PSI trigger, on the
 *    reclaimer's own thread) and, where the memory controller is on cgroup
 *    v2, its memory.events; skipped with the reason where the machine has
 *    no writable cgroup v2 mount or no memory.events there (a hybrid host);
 *  - a real cgroup v1 memory cgroup's vmpressure, where the memory
 *    controller is on v1, through dispatch.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/pressure.h>
#include <shrinker/reclaimer.h>

#include "harness.h"
#include "pressure_fixtures.h"

/* Longest wait for what the test already caused (a guard, in 1 ms steps:
 * the loop ends as soon as the reclaimer's thread has seen it). */
#define WAIT_STEPS 20000

static const char events_zero[] = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n";

static struct shr_reclaimer *make_reclaimer(struct shr_host **host, bool thread)
{
	struct shr_reclaimer_params params;
	struct shr_host_params hp;
	struct shr_reclaimer *r;

	shr_test_host_params(&hp);
	assert_int_equal(shr_host_create(&hp, host), 0);
	shr_reclaimer_params_init(&params);
	params.thread = thread;
	assert_int_equal(shr_reclaimer_create(*host, &params, &r), 0);
	return r;
}

static struct shr_reclaimer_stats stats_of(struct shr_reclaimer *r)
{
	struct shr_reclaimer_stats st;

	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	return st;
}

/* The directory of a memory.events source is removed: the next dispatch
 * drops the source and runs no round. */
static void test_dispatch_drops_the_source_of_a_removed_directory(void **state)
{
	char dir[64], cg[96], events[128], keep[128], cmd[96];
	struct shr_reclaim_report rep;
	struct shr_pressure *src;
	struct shr_reclaimer *r;
	struct shr_host *host;

	(void)state;
	strcpy(dir, "/tmp/shr-reclaimer-gone-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cg, sizeof(cg), "%s/cg", dir);
	snprintf(events, sizeof(events), "%s/memory.events", cg);
	snprintf(keep, sizeof(keep), "%s/kept", dir);
	assert_int_equal(mkdir(cg, 0755), 0);
	fix_write_file(events, events_zero, 0644);
	assert_int_equal(link(events, keep), 0);
	r = make_reclaimer(&host, false);
	assert_int_equal(shr_pressure_open_memory_events(events, &src), 0);
	assert_int_equal(shr_reclaimer_add_source(r, src), 0);
	assert_int_equal(stats_of(r).sources, 1);

	assert_int_equal(unlink(events), 0);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, 20000, &rep), 0);
	assert_int_equal(stats_of(r).sources, 0);
	assert_int_equal(stats_of(r).sources_gone, 1);
	assert_int_equal(stats_of(r).rounds, 0);
	shr_reclaimer_destroy(r);
	assert_int_equal(shr_host_destroy(host), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Open the source of @cg named @file (memory.pressure: PSI; memory.events).
 * Return: 0, or -errno (printed as a skip). */
static int open_cgroup_source(const char *cg, const char *file, struct shr_pressure **src)
{
	char path[400];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (access(path, F_OK) < 0) {
		ret = -errno;
		print_message("# skipped: %s: %s (%s)\n", path, strerror(errno),
			      strcmp(file, "memory.events") ? "no PSI"
			      : "the memory controller is not on cgroup v2 here");
		return ret;
	}
	if (!strcmp(file, "memory.events"))
		return shr_pressure_open_memory_events(path, src);
	/* A 2 s window: the kernel refuses others to processes without
	 * CAP_SYS_RESOURCE. */
	return shr_pressure_open_psi(path, "some 200000 2000000", src);
}

/* A real cgroup v2 child watched by a reclaimer's thread through @file:
 * removing the cgroup makes the thread drop the source. */
static void run_real_cgroup(const char *file)
{
	const char *mnt = fix_cgroup2_mount();
	struct shr_reclaimer *r;
	struct shr_pressure *src;
	struct shr_host *host;
	char cg[320];
	int steps;

	if (!mnt) {
		print_message("# skipped: %s: no writable cgroup v2 mount\n", file);
		return;
	}
	snprintf(cg, sizeof(cg), "%s/shr-reclaimer-gone-%d", mnt, (int)getpid());
	if (mkdir(cg, 0755) < 0) {
		print_message("# skipped: mkdir %s: %s\n", cg, strerror(errno));
		return;
	}
	if (open_cgroup_source(cg, file, &src)) {
		rmdir(cg);
		return;
	}
	r = make_reclaimer(&host, true);
	assert_int_equal(shr_reclaimer_add_source(r, src), 0);
	assert_int_equal(rmdir(cg), 0);
	for (steps = 0; steps < WAIT_STEPS && stats_of(r).sources_gone == 0; steps++)
		usleep(1000);
	assert_int_equal(stats_of(r).sources_gone, 1);
	assert_int_equal(stats_of(r).sources, 0);
	assert_int_equal(stats_of(r).rounds, 0);
	shr_reclaimer_destroy(r);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_thread_drops_the_psi_source_of_a_removed_cgroup(void **state)
{
	(void)state;
	run_real_cgroup("memory.pressure");
}

static void test_thread_drops_the_memory_events_of_a_removed_cgroup(void **state)
{
	(void)state;
	run_real_cgroup("memory.events");
}

/* A cgroup v1 memory cgroup's vmpressure, through dispatch (an eventfd: a
 * reclaimer without a thread takes it): its rmdir drops the source. Where
 * the memory controller is on cgroup v1 (else skipped). */
static void test_dispatch_drops_the_vmpressure_of_a_removed_v1_cgroup(void **state)
{
	const char *mnt = fix_memcg_v1_mount();
	struct shr_reclaim_report rep;
	struct shr_pressure *src;
	struct shr_reclaimer *r;
	struct shr_host *host;
	char cg[320];

	(void)state;
	if (!mnt) {
		print_message("# skipped: the memory controller is not on cgroup v1 here\n");
		return;
	}
	snprintf(cg, sizeof(cg), "%s/shr-reclaimer-gone-%d", mnt, (int)getpid());
	if (mkdir(cg, 0755) < 0) {
		print_message("# skipped: mkdir %s: %s\n", cg, strerror(errno));
		return;
	}
	r = make_reclaimer(&host, false);
	assert_int_equal(shr_pressure_open_vmpressure(cg, NULL, &src), 0);
	assert_int_equal(shr_reclaimer_add_source(r, src), 0);
	assert_int_equal(rmdir(cg), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, FIX_WAIT_MS, &rep), 0);
	assert_int_equal(stats_of(r).sources_gone, 1);
	assert_int_equal(stats_of(r).sources, 0);
	assert_int_equal(stats_of(r).rounds, 0);
	shr_reclaimer_destroy(r);
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dispatch_drops_the_source_of_a_removed_directory),
		cmocka_unit_test(test_thread_drops_the_psi_source_of_a_removed_cgroup),
		cmocka_unit_test(test_thread_drops_the_memory_events_of_a_removed_cgroup),
		cmocka_unit_test(test_dispatch_drops_the_vmpressure_of_a_removed_v1_cgroup),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("reclaimer_gone", tests);
}
