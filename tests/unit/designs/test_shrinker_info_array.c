/* SPDX-License-Identifier: MIT */
/*
 * What the pointer-array designs (src/designs/shrinker_info_array.c:
 * prealloc, mainline 6.7+, and array-ondemand) promise beyond the semantic
 * suite: prealloc allocates every unit at online and a walk reads them all;
 * crossing a unit boundary reallocates one array per cgroup and node (root
 * and dying cgroups included) and copies the old pointers; array-ondemand
 * allocates a unit only with a bit of its ids. Growth shared with flat is
 * test_shrinker_info_grow.c's. Public API only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

/* prealloc: a cgroup onlined after 130 registrations holds every unit (3
 * per node), and an empty cgroup's walk reads all of them. */
static void test_prealloc_allocates_every_unit_at_online(void **state)
{
	struct shr_host *host = fix_host_with(SHR_DESIGN_PREALLOC, 2, true, false, 0);
	struct shr_shrinker *s[130];
	struct shr_bookkeeping_stats st0, st1;
	struct shr_mem_cgroup *cg;

	(void)state;
	for (int i = 0; i < 130; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	assert_int_equal(shr_shrinker_nr_max(host), 192);
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	for (int nid = 0; nid < 2; nid++) {
		struct shr_memcg_bookkeeping b = fix_bookkeeping(cg, nid);

		assert_int_equal(b.nr_units, 192 / 64);
		assert_true(b.unit_bytes >= 3 * 520);
		assert_true(b.container_bytes >= 24 + 3 * 8);
		assert_int_equal(fix_bookkeeping(shr_host_root_mem_cgroup(host), nid).nr_units, 3);
	}
	shr_host_bookkeeping_stats(host, &st0);
	assert_int_equal(fix_shrink(host, 1, cg, 0), 0);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.units_visited - st0.units_visited, 3);
	fix_free_all(s, 130);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	fix_host_done(host);
}
/* prealloc: crossing a unit boundary reallocates one info per cgroup and
 * node (root included, a dying cgroup too) and copies the old pointers. */
static void test_prealloc_growth_reallocates_every_cgroup_node(void **state)
{
	struct shr_host *host = fix_host_with(SHR_DESIGN_PREALLOC, 2, true, false, 0);
	struct shr_mem_cgroup *cgs[10], *dying;
	struct shr_shrinker *s[129];
	struct shr_bookkeeping_stats st0, st1;
	const unsigned long cgroups = 10 + 1 + 1; /* + dying + root */

	(void)state;
	fix_mkcgs(host, cgs, 10);
	dying = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	shr_mem_cgroup_get(dying);
	assert_int_equal(shr_mem_cgroup_offline(dying), 0);
	for (int i = 0; i < 128; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st0);
	s[128] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE); /* id 128: third unit */
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(shr_shrinker_nr_max(host), 192);
	assert_int_equal(st1.expansions - st0.expansions, 1);
	assert_int_equal(st1.arrays_reallocated - st0.arrays_reallocated, cgroups * 2);
	assert_int_equal(st1.bytes_copied - st0.bytes_copied, cgroups * 2 * 2 * sizeof(void *));
	assert_int_equal(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration,
			 cgroups);
	assert_int_equal(fix_bookkeeping(dying, 0).nr_units, 3);
	/* Within the unit: nothing is touched. */
	shr_shrinker_free(s[128]);
	shr_host_bookkeeping_stats(host, &st0);
	s[128] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.arrays_reallocated, st0.arrays_reallocated);
	assert_int_equal(st1.expansions, st0.expansions);
	fix_free_all(s, 129);
	shr_mem_cgroup_put(dying);
	fix_rmcgs(cgs, 10);
	fix_host_done(host);
}
/* array-ondemand: a cgroup gets a unit (on every node) only when it gets a
 * bit of a shrinker in that unit; the root holds every unit. */
static void test_array_ondemand_allocates_units_only_on_install(void **state)
{
	struct shr_host *host = fix_host_with(SHR_DESIGN_ARRAY_ONDEMAND, 2, true, false, 0);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_shrinker *s[130];
	struct fake *p;

	(void)state;
	for (int i = 0; i < 130; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	p = fake_new_objects(host, SHR_SHRINKER_MEMCG_AWARE, true, true); /* id 130, unit 2 */
	assert_int_equal(shr_shrinker_id(p->shrinker), 130);
	assert_int_equal(fix_bookkeeping(cg, -1).nr_units, 0);
	assert_int_equal(fix_bookkeeping(cg, -1).unit_bytes, 0);
	assert_int_equal(fix_bookkeeping(shr_host_root_mem_cgroup(host), -1).nr_units, 2 * 3);
	assert_int_equal(shr_set_shrinker_bit(cg, 1, p->shrinker), 0);
	assert_int_equal(fix_bookkeeping(cg, 0).nr_units, 1);
	assert_int_equal(fix_bookkeeping(cg, 1).nr_units, 1);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, s[129]), 0); /* same unit */
	assert_int_equal(fix_bookkeeping(cg, -1).nr_units, 2);
	p->objects[shr_mem_cgroup_ino(cg)][1] = 9;
	assert_int_equal(fix_shrink(host, 1, cg, 0), 9);
	fake_delete(p);
	fix_free_all(s, 130);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	fix_host_done(host);
}
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prealloc_allocates_every_unit_at_online),
		cmocka_unit_test(test_prealloc_growth_reallocates_every_cgroup_node),
		cmocka_unit_test(test_array_ondemand_allocates_units_only_on_install),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_array", tests);
}
