/* SPDX-License-Identifier: MIT */
/*
 * The race-point module (<shrinker/race.h>): hit counters, hooks, argument
 * checks and the environment switch. Skipped in builds without race points.
 */
#include <stdio.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/race.h>
#include <shrinker/rcu.h>

#include "harness.h"

static struct shr_host *new_host(enum shr_design design)
{
	struct shr_host_params p;
	struct shr_host *host = NULL;

	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = 1;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

/* Every point has a distinct name; reachability follows the designs. */
static void test_names_and_reachability(void **state)
{
	struct shr_host_params prm;

	(void)state;
	shr_host_params_init(&prm);
	for (int p = 0; p < SHR_RACE_NR; p++) {
		int reachable = 0;

		assert_string_not_equal(shr_race_point_name((enum shr_race_point)p), "?");
		for (int q = 0; q < p; q++)
			assert_string_not_equal(shr_race_point_name((enum shr_race_point)p),
						shr_race_point_name((enum shr_race_point)q));
		for (int d = 0; d < SHR_NR_DESIGNS; d++) {
			prm.design = (enum shr_design)d;
			reachable += shr_race_point_reachable((enum shr_race_point)p, &prm);
		}
		assert_true(reachable > 0);
	}
	assert_string_equal(shr_race_point_name(SHR_RACE_NR), "?");
	prm.design = SHR_DESIGN_XARRAY;
	assert_false(shr_race_point_reachable(SHR_RACE_IX_SET_M1_M2, &prm));
	prm.design = SHR_DESIGN_INDEXED;
	assert_true(shr_race_point_reachable(SHR_RACE_IX_SET_M1_M2, &prm));
	assert_true(shr_race_point_reachable(SHR_RACE_LRU_PUBLISH, &prm));
	prm.kmem = false;
	assert_false(shr_race_point_reachable(SHR_RACE_LRU_PUBLISH, &prm));
	assert_false(shr_race_point_reachable(SHR_RACE_IX_UNIT_ERASED, &prm));
	assert_true(shr_race_point_reachable(SHR_RACE_IX_SET_M1_M2, &prm));
	prm.design = SHR_DESIGN_NOBITMAP;
	assert_false(shr_race_point_reachable(SHR_RACE_EMPTY_CLEAR_B, &prm));
	prm.design = SHR_NR_DESIGNS;
	assert_false(shr_race_point_reachable(SHR_RACE_WALK_PIN, &prm));
	assert_false(shr_race_point_reachable(SHR_RACE_WALK_PIN, NULL));
}

struct hook_log {
	int calls;
	enum shr_race_point last;
};

static void count_hook(enum shr_race_point p, void *arg)
{
	struct hook_log *log = arg;

	log->calls++;
	log->last = p;
}

/* Bringing a cgroup online passes MEMCG_ONLINE once: counted, hooked. */
static void test_hits_and_hooks(void **state)
{
	struct shr_host *host = new_host(SHR_DESIGN_XARRAY);
	struct shr_mem_cgroup *cg;
	struct hook_log log = { 0, SHR_RACE_NR };
	unsigned long before;

	(void)state;
	before = shr_race_hits(SHR_RACE_MEMCG_ONLINE);
	assert_int_equal(shr_race_set_hook(SHR_RACE_MEMCG_ONLINE, count_hook, &log), 0);
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	assert_int_equal(shr_race_set_hook(SHR_RACE_MEMCG_ONLINE, NULL, NULL), 0);
	assert_int_equal(log.calls, 1);
	assert_int_equal(log.last, SHR_RACE_MEMCG_ONLINE);
	assert_int_equal(shr_race_hits(SHR_RACE_MEMCG_ONLINE), before + 1);
	/* The hook is gone. */
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	assert_int_equal(log.calls, 1);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	shr_race_hits_reset();
	assert_int_equal(shr_race_hits(SHR_RACE_MEMCG_ONLINE), 0);
	assert_int_equal(shr_race_hits(SHR_RACE_NR), 0);
	assert_int_equal(shr_race_set_hook(SHR_RACE_NR, count_hook, &log), -EINVAL);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Bad settings are refused and leave delays as they were. */
static void test_enable_checks_arguments(void **state)
{
	(void)state;
	shr_race_delays_disable();
	assert_int_equal(shr_race_delays_enable(0, 1, 10, 10), -EINVAL);
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL + 1, 1, 10, 10), -EINVAL);
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, 1, 0, 10), -EINVAL);
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, 1, 1000001, 10), -EINVAL);
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, 1, 10, 0), -EINVAL);
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, 1, 10, 1001), -EINVAL);
	assert_false(shr_race_delays_enabled());
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, 1, 10, 1000), 0);
	assert_true(shr_race_delays_enabled());
	shr_race_delays_disable();
	assert_false(shr_race_delays_enabled());
}

/* Armed delays at every point still let a whole life cycle run. */
static void test_delays_run(void **state)
{
	struct shr_host *host;
	struct shr_mem_cgroup *cg;

	(void)state;
	assert_int_equal(shr_race_delays_enable(SHR_RACE_ALL, shr_test_seed(), 50, 500), 0);
	host = new_host(SHR_DESIGN_INDEXED);
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	shr_race_delays_disable();
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* SHR_RACE_DELAYS: "max_us,permille[,seed]", "0" or unset for off. */
static void test_environment(void **state)
{
	(void)state;
	unsetenv("SHR_RACE_DELAYS");
	assert_int_equal(shr_race_delays_from_env(1), 0);
	setenv("SHR_RACE_DELAYS", "0", 1);
	assert_int_equal(shr_race_delays_from_env(1), 0);
	assert_false(shr_race_delays_enabled());
	setenv("SHR_RACE_DELAYS", "200,20", 1);
	assert_int_equal(shr_race_delays_from_env(1), 1);
	assert_true(shr_race_delays_enabled());
	shr_race_delays_disable();
	setenv("SHR_RACE_DELAYS", "200,20,77", 1);
	assert_int_equal(shr_race_delays_from_env(1), 1);
	shr_race_delays_disable();
	for (const char *const *bad = (const char *const[]){ "x", "200,", "200,20,7,1", "-5",
							     "200,2000", "0,20", NULL };
	     *bad; bad++) {
		setenv("SHR_RACE_DELAYS", *bad, 1);
		assert_int_equal(shr_race_delays_from_env(1), -EINVAL);
		assert_false(shr_race_delays_enabled());
	}
	unsetenv("SHR_RACE_DELAYS");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_reachability),
		cmocka_unit_test(test_hits_and_hooks),
		cmocka_unit_test(test_enable_checks_arguments),
		cmocka_unit_test(test_delays_run),
		cmocka_unit_test(test_environment),
	};

	shr_test_init(argc, argv);
	if (!shr_race_available()) {
		/* The stubs: nothing to count or delay. */
		if (shr_race_delays_enable(SHR_RACE_ALL, 1, 10, 10) != -EOPNOTSUPP ||
		    shr_race_set_hook(SHR_RACE_WALK_PIN, NULL, NULL) != -EOPNOTSUPP) {
			printf("1..1\nnot ok 1 - stubs of a build without race points\n");
			return 1;
		}
		printf("1..0 # SKIP race points need a build with -Ddebug_checks=true\n");
		return 0;
	}
	return SHR_RUN_TESTS("race_points", tests);
}
