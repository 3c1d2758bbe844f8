/* SPDX-License-Identifier: MIT */
/*
 * What the xarray design (src/designs/shrinker_info_xarray.c) promises
 * beyond the semantic suite, from its bookkeeping report and the host's
 * counters: a cgroup holds a unit only for the 64 ids of a shrinker it
 * holds objects of, installed on every node with its first lists of that
 * shrinker (list_lru makes a cgroup's lists for every node at once), and
 * shared by the shrinkers of the same 64 ids; an empty cgroup holds
 * none, however many shrinkers there are; a registration past
 * shrinker_nr_max gives the root its unit and visits no other cgroup;
 * deferred work of a cgroup lives in its unit and goes to the parent's at
 * offline (where the parent holds the unit); a cgroup's units go when it
 * is freed. Public API only.
 */
#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

#define NODES 2
#define CGROUPS 20
#define SHRINKERS 130 /* ids 0..129: three units per node at the root */
#define MEMCG_NUMA (SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE)

static unsigned long units_of(struct shr_mem_cgroup *memcg, int nid)
{
	struct shr_memcg_bookkeeping bk;

	assert_int_equal(shr_mem_cgroup_bookkeeping(memcg, nid, &bk), 0);
	return bk.nr_units;
}

static unsigned long units_installed(struct shr_host *host)
{
	struct shr_bookkeeping_stats st;

	shr_host_bookkeeping_stats(host, &st);
	return st.units_installed;
}

/* Empty cgroups keep no unit while SHRINKERS shrinkers register; the root
 * gets one unit per node and 64 ids, and nothing else was installed. */
static void test_registration_installs_only_root_units(void **state)
{
	struct shr_host *host = fix_host_of(SHR_DESIGN_XARRAY, NODES, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *cg[CGROUPS];
	static struct fake f[SHRINKERS];
	unsigned long before;

	(void)state;
	for (int i = 0; i < CGROUPS; i++)
		cg[i] = shr_test_mkcg(root);
	before = units_installed(host);
	for (int i = 0; i < SHRINKERS; i++) {
		fake_init(&f[i], 0);
		fake_make(host, &f[i], MEMCG_NUMA, "x", true);
	}
	for (int i = 0; i < CGROUPS; i++)
		for (int nid = 0; nid < NODES; nid++)
			assert_int_equal(units_of(cg[i], nid), 0);
	for (int nid = 0; nid < NODES; nid++)
		assert_int_equal(units_of(root, nid), (SHRINKERS + 63) / 64);
	assert_int_equal(units_installed(host) - before, NODES * ((SHRINKERS + 63) / 64));
	for (int i = 0; i < SHRINKERS; i++)
		fake_free(&f[i]);
	for (int i = 0; i < CGROUPS; i++)
		assert_int_equal(shr_mem_cgroup_offline(cg[i]), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* The first object of a shrinker in a cgroup installs the unit of its 64
 * ids there, on every node, and in no other cgroup; a shrinker of the
 * same 64 ids shares it; one of the next 64 needs a second unit. */
static void test_first_object_installs_one_unit(void **state)
{
	struct shr_host *host = fix_host_of(SHR_DESIGN_XARRAY, NODES, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root), *b = shr_test_mkcg(root);
	static struct fake f[65];
	struct shr_list_head items[3];

	(void)state;
	for (int i = 0; i < 65; i++) {
		fake_init_lru(&f[i]);
		fake_make(host, &f[i], MEMCG_NUMA, "lru", false);
		fake_bind_lru(host, &f[i]);
		assert_int_equal(shr_shrinker_register(f[i].shrinker), 0);
	}
	for (int i = 0; i < 3; i++)
		shr_list_head_init(&items[i]);
	/* The cgroup's lists are made for every node at once, and the unit
	 * installed with them on every node. */
	assert_int_equal(shr_list_lru_add(f[0].lru, &items[0], 1, a), 1);
	for (int nid = 0; nid < NODES; nid++) {
		assert_int_equal(units_of(a, nid), 1);
		assert_int_equal(units_of(b, nid), 0);
	}
	assert_int_equal(shr_list_lru_add(f[63].lru, &items[1], 0, a), 1);
	assert_int_equal(units_of(a, 0), 1);
	assert_int_equal(units_of(a, 1), 1);
	assert_int_equal(shr_list_lru_add(f[64].lru, &items[2], 1, a), 1);
	for (int nid = 0; nid < NODES; nid++) {
		assert_int_equal(units_of(a, nid), 2);
		assert_int_equal(units_of(b, nid), 0);
	}

	for (int i = 0; i < 65; i++)
		fake_free(&f[i]);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Work a cgroup's scan could not do is kept in its unit and reaches the
 * parent's at offline; the cgroup's units go back when it is freed. */
static void test_deferred_work_lives_in_the_unit(void **state)
{
	struct shr_host *host = fix_host_of(SHR_DESIGN_XARRAY, 1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *parent = shr_test_mkcg(root), *child = shr_test_mkcg(parent);
	struct shr_bookkeeping_stats st0, st1;
	struct fake f;
	unsigned long freed;
	long deferred;

	(void)state;
	fake_init(&f, 100000);
	f.stop_at = 1; /* every scan stops at once: the target is deferred */
	fake_make(host, &f, SHR_SHRINKER_MEMCG_AWARE, "stop", true);
	/* The parent holds the unit too (an on-demand design drops work that
	 * has no unit to go to: docs/design/ARCHITECTURE.md). */
	assert_int_equal(shr_set_shrinker_bit(parent, 0, f.shrinker), 0);
	assert_int_equal(shr_set_shrinker_bit(child, 0, f.shrinker), 0);
	assert_int_equal(units_of(child, 0), 1);
	assert_int_equal(shr_shrink_slab(host, 0, child, 0, &freed), 0);
	deferred = shr_shrinker_nr_deferred(f.shrinker, child, 0);
	assert_true(deferred > 0);
	assert_int_equal(shr_shrinker_nr_deferred(f.shrinker, parent, 0), 0);

	shr_host_bookkeeping_stats(host, &st0);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_shrinker_nr_deferred(f.shrinker, parent, 0), deferred);
	shr_rcu_barrier(); /* the child is freed, and its unit with it */
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.units_freed - st0.units_freed, 1);
	fake_free(&f);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration_installs_only_root_units),
		cmocka_unit_test(test_first_object_installs_one_unit),
		cmocka_unit_test(test_deferred_work_lives_in_the_unit),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_xarray", tests);
}
