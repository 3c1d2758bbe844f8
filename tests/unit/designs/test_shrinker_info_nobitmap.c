/* SPDX-License-Identifier: MIT */
/*
 * What the nobitmap design (src/designs/shrinker_info_nobitmap.c, the
 * kernel before 4.19) promises beyond the semantic suite: no bits at all,
 * so reclaim of a cgroup calls every registered memcg-aware shrinker,
 * whether the cgroup holds its objects or not, and never one that is not
 * registered or not memcg-aware; shr_set_shrinker_bit() is accepted and
 * changes nothing a walk looks at; deferred work is still kept per cgroup
 * (in xarray units), so results match the designs with bits. Public API
 * only.
 */
#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

#define MEMCG SHR_SHRINKER_MEMCG_AWARE

static int calls_in(struct fake *f, struct shr_mem_cgroup *memcg)
{
	return atomic_load(&f->count_calls_of[shr_mem_cgroup_ino(memcg)]);
}

/* A cgroup with no objects anywhere: each registered memcg-aware shrinker
 * is counted once per node in it; the others are not. The same pass under
 * xarray (bits) counts none of them. */
static void test_cgroup_reclaim_calls_every_memcg_aware_shrinker(void **state)
{
	static const enum shr_design designs[2] = { SHR_DESIGN_NOBITMAP, SHR_DESIGN_XARRAY };

	(void)state;
	for (int d = 0; d < 2; d++) {
		struct shr_host *host = fix_host_of(designs[d], 2, true);
		struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
		struct fake a, b, plain, unreg;
		int want = designs[d] == SHR_DESIGN_NOBITMAP;
		unsigned long freed;

		fake_init(&a, 0);
		fake_init(&b, 0);
		fake_init(&plain, 0);
		fake_init(&unreg, 0);
		fake_make(host, &a, MEMCG, "a", true);
		fake_make(host, &b, MEMCG | SHR_SHRINKER_NUMA_AWARE, "b", true);
		fake_make(host, &plain, 0, "plain", true);
		fake_make(host, &unreg, MEMCG, "unreg", false);
		for (int nid = 0; nid < 2; nid++)
			assert_int_equal(shr_shrink_slab(host, nid, cg, 0, &freed), 0);
		assert_int_equal(calls_in(&a, cg), 2 * want);
		assert_int_equal(calls_in(&b, cg), 2 * want);
		assert_int_equal(calls_in(&plain, cg), 0);
		assert_int_equal(calls_in(&unreg, cg), 0);
		fake_free(&a);
		fake_free(&b);
		fake_free(&plain);
		fake_free(&unreg);
		assert_int_equal(shr_mem_cgroup_offline(cg), 0);
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

/* A count of SHRINK_EMPTY clears nothing (there is nothing to clear): the
 * next walk calls the shrinker again, as it does after set_shrinker_bit. */
static void test_empty_count_does_not_stop_later_calls(void **state)
{
	struct shr_host *host = fix_host_of(SHR_DESIGN_NOBITMAP, 1, true);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake f;
	unsigned long freed;

	(void)state;
	fake_init(&f, SHR_SHRINK_EMPTY);
	fake_make(host, &f, MEMCG, "empty", true);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, f.shrinker), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(shr_shrink_slab(host, 0, cg, 0, &freed), 0);
	assert_int_equal(calls_in(&f, cg), 3);
	fake_free(&f);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Deferred work of a cgroup is kept once the cgroup holds the shrinker's
 * unit (set_shrinker_bit installs it), as under xarray. */
static void test_deferred_work_is_kept_per_cgroup(void **state)
{
	struct shr_host *host = fix_host_of(SHR_DESIGN_NOBITMAP, 1, true);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_memcg_bookkeeping bk;
	struct fake f;
	unsigned long freed;

	(void)state;
	fake_init(&f, 100000);
	f.stop_at = 1;
	fake_make(host, &f, MEMCG, "stop", true);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, f.shrinker), 0);
	assert_int_equal(shr_mem_cgroup_bookkeeping(cg, 0, &bk), 0);
	assert_int_equal(bk.nr_units, 1);
	assert_int_equal(shr_shrink_slab(host, 0, cg, 0, &freed), 0);
	assert_true(shr_shrinker_nr_deferred(f.shrinker, cg, 0) > 0);
	assert_int_equal(shr_shrinker_nr_deferred(f.shrinker, NULL, 0), 0);
	fake_free(&f);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_reclaim_calls_every_memcg_aware_shrinker),
		cmocka_unit_test(test_empty_count_does_not_stop_later_calls),
		cmocka_unit_test(test_deferred_work_is_kept_per_cgroup),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_nobitmap", tests);
}
