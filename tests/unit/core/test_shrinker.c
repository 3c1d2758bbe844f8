/* SPDX-License-Identifier: MIT */
/*
 * Shrinker life cycle (src/core/shrinker.c) through <shrinker/shrinker.h>:
 * what alloc and register accept and refuse, ids (memcg-aware only, lowest
 * free, given back by free) and shrinker_nr_max, the flags getter, the
 * counters get_stats keeps, the deferred-work getter's slots and argument
 * checks, shr_set_shrinker_bit()'s refusals, and a stale handle refused by
 * every entry point. Each registration's mutex hold is recorded for the
 * lab. Public API only; the reclaim side of a shrinker is test_reclaim's.
 */
#include <errno.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

#define MEMCG SHR_SHRINKER_MEMCG_AWARE

static unsigned long count_zero(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

static unsigned long scan_none(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

/* Flags alloc refuses, and what register needs. */
static void test_alloc_and_register_refusals(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_shrinker *s = NULL;

	(void)state;
	assert_int_equal(shr_shrinker_alloc(NULL, 0, "x", &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, 0, "x", NULL), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, 1u << 30, "x", &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, SHR_SHRINKER_NONSLAB, "x", &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, SHR_SHRINKER_ROOT_BITS, "x", &s), -EINVAL);

	assert_int_equal(shr_shrinker_alloc(host, MEMCG, "x", &s), 0);
	/* No callbacks yet, then a negative batch, then negative seeks. */
	assert_int_equal(shr_shrinker_register(s), -EINVAL);
	s->count_objects = count_zero;
	assert_int_equal(shr_shrinker_register(s), -EINVAL);
	s->scan_objects = scan_none;
	s->batch = -1;
	assert_int_equal(shr_shrinker_register(s), -EINVAL);
	s->batch = 0;
	s->seeks = -1;
	assert_int_equal(shr_shrinker_register(s), -EINVAL);
	s->seeks = SHR_DEFAULT_SEEKS;
	assert_int_equal(shr_shrinker_register(s), 0);
	assert_int_equal(shr_shrinker_register(s), -EBUSY);
	assert_int_equal(shr_shrinker_register(NULL), -EINVAL);
	shr_shrinker_free(s);
	shr_shrinker_free(NULL);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Only memcg-aware shrinkers take ids: the lowest free one, given back at
 * free; shrinker_nr_max is a high-water mark that free does not lower. */
static void test_ids_flags_and_nr_max(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct fake f[4];
	int nr_max;

	(void)state;
	for (int i = 0; i < 4; i++)
		fake_init(&f[i], 0);
	fake_make(host, &f[0], 0, "plain", true);
	fake_make(host, &f[1], MEMCG, "a", true);
	fake_make(host, &f[2], MEMCG | SHR_SHRINKER_NUMA_AWARE, "b", true);
	assert_int_equal(shr_shrinker_id(f[0].shrinker), -1);
	assert_int_equal(shr_shrinker_id(f[1].shrinker), 0);
	assert_int_equal(shr_shrinker_id(f[2].shrinker), 1);
	assert_int_equal(shr_shrinker_flags(f[0].shrinker), 0);
	assert_int_equal(shr_shrinker_flags(f[2].shrinker), MEMCG | SHR_SHRINKER_NUMA_AWARE);
	nr_max = shr_shrinker_nr_max(host);
	assert_true(nr_max >= 2);

	fake_free(&f[1]);
	fake_make(host, &f[3], MEMCG, "c", false);
	assert_int_equal(shr_shrinker_id(f[3].shrinker), 0);
	assert_int_equal(shr_shrinker_nr_max(host), nr_max);
	fake_free(&f[0]);
	fake_free(&f[2]);
	fake_free(&f[3]);
	assert_int_equal(shr_shrinker_nr_max(host), nr_max);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* get_stats: calls that reached count, objects scanned and freed, and the
 * deferred work held, from real reclaim passes. */
static void test_get_stats_counts_what_reclaim_did(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_shrinker_stats st;
	struct fake f;
	unsigned long freed;

	(void)state;
	fake_init(&f, 1000);
	f.scan_ret = 10; /* frees 10 per batch call, scans what it was asked */
	fake_make(host, &f, 0, "stats", true);
	assert_int_equal(shr_shrinker_get_stats(f.shrinker, &st), 0);
	assert_int_equal(st.calls, 0);
	assert_int_equal(st.freed, 0);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, 0, &freed), 0);
	assert_int_equal(shr_shrinker_get_stats(f.shrinker, &st), 0);
	assert_int_equal(st.calls, 1);
	assert_int_equal(st.freed, 10 * f.scan_calls);
	assert_int_equal(st.freed, freed);
	assert_true(st.scanned >= st.freed);
	assert_int_equal(st.deferred, shr_shrinker_nr_deferred(f.shrinker, NULL, 0));
	assert_int_equal(shr_shrinker_get_stats(NULL, &st), -EINVAL);
	assert_int_equal(shr_shrinker_get_stats(f.shrinker, NULL), -EINVAL);
	fake_free(&f);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Work that could not be done is deferred into the shrinker's own slot
 * (slot 0 unless NUMA-aware) or the cgroup's, and the getter reads it back;
 * it refuses bad nodes and another host's cgroup. */
static void test_nr_deferred_slots_and_refusals(void **state)
{
	struct shr_host *host = fix_host(2, true), *other = fix_host(1, true);
	struct fake plain, numa;
	unsigned long freed;

	(void)state;
	fake_init(&plain, 1000);
	fake_init(&numa, 1000);
	plain.scan_ret = 0;
	plain.stop_at = 1; /* STOP at once: the whole scan target is deferred */
	numa.stop_at = 1;
	fake_make(host, &plain, 0, "plain", true);
	fake_make(host, &numa, SHR_SHRINKER_NUMA_AWARE, "numa", true);
	assert_int_equal(shr_shrink_slab(host, 1, NULL, 0, &freed), 0);
	assert_true(shr_shrinker_nr_deferred(plain.shrinker, NULL, 0) > 0);
	assert_int_equal(shr_shrinker_nr_deferred(plain.shrinker, NULL, 1),
			 shr_shrinker_nr_deferred(plain.shrinker, NULL, 0));
	assert_int_equal(shr_shrinker_nr_deferred(numa.shrinker, NULL, 0), 0);
	assert_true(shr_shrinker_nr_deferred(numa.shrinker, NULL, 1) > 0);

	assert_int_equal(shr_shrinker_nr_deferred(numa.shrinker, NULL, 2), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(numa.shrinker, NULL, -1), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(numa.shrinker,
						  shr_host_root_mem_cgroup(other), 0), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(NULL, NULL, 0), -EINVAL);
	fake_free(&plain);
	fake_free(&numa);
	assert_int_equal(shr_host_destroy(host), 0);
	assert_int_equal(shr_host_destroy(other), 0);
}

static void test_set_shrinker_bit_refusals(void **state)
{
	struct shr_host *host = fix_host(1, true), *other = fix_host(1, true);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake f, plain;

	(void)state;
	fake_init(&f, 0);
	fake_init(&plain, 0);
	fake_make(host, &f, MEMCG, "f", true);
	fake_make(host, &plain, 0, "plain", true);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, f.shrinker), 0);
	/* Not memcg-aware: nothing to record, no error. */
	assert_int_equal(shr_set_shrinker_bit(cg, 0, plain.shrinker), 0);
	assert_int_equal(shr_set_shrinker_bit(cg, 1, f.shrinker), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(cg, -1, f.shrinker), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(NULL, 0, f.shrinker), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, NULL), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(shr_host_root_mem_cgroup(other), 0, f.shrinker),
			 -EINVAL);
	fake_free(&f);
	fake_free(&plain);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
	assert_int_equal(shr_host_destroy(other), 0);
}

/* A freed handle (kept back in the host's quarantine) is refused by every
 * entry point that can return an error. */
static void test_stale_handle_is_refused_everywhere(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_shrinker_stats st;
	struct shr_list_lru *lru;
	struct fake f;
	char name[32];

	(void)state;
	fake_init(&f, 0);
	fake_make(host, &f, MEMCG, "stale", true);
	shr_shrinker_free(f.shrinker);
	assert_int_equal(shr_shrinker_register(f.shrinker), -EINVAL);
	assert_int_equal(shr_shrinker_id(f.shrinker), -1);
	assert_int_equal(shr_shrinker_flags(f.shrinker), 0);
	assert_int_equal(shr_shrinker_get_stats(f.shrinker, &st), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(f.shrinker, NULL, 0), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(root, 0, f.shrinker), -EINVAL);
	assert_int_equal(shr_shrinker_debugfs_name(f.shrinker, name, sizeof(name)), -EINVAL);
	assert_int_equal(shr_list_lru_init_memcg(host, f.shrinker, &lru), -EINVAL);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Every memcg-aware allocation is one registration, its registry-mutex
 * hold recorded in order; plain shrinkers take no id and record none. */
static void test_registrations_are_recorded(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_bookkeeping_stats bk;
	unsigned long long holds[8];
	struct fake f[3];

	(void)state;
	fake_init(&f[0], 0);
	fake_init(&f[1], 0);
	fake_init(&f[2], 0);
	fake_make(host, &f[0], MEMCG, "a", true);
	fake_make(host, &f[1], 0, "plain", true);
	fake_make(host, &f[2], MEMCG, "b", false);
	assert_int_equal(shr_host_registration_hold_ns(host, holds, 8), 2);
	shr_host_bookkeeping_stats(host, &bk);
	assert_int_equal(bk.registrations, 2);
	assert_true(bk.mutex_hold_ns_max >= holds[0] && bk.mutex_hold_ns_max >= holds[1]);
	assert_true(bk.mutex_hold_ns_total >= holds[0] + holds[1]);
	for (int i = 0; i < 3; i++)
		fake_free(&f[i]);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A host with a shrinker left cannot be destroyed. */
static void test_host_with_a_shrinker_is_busy(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct fake f;

	(void)state;
	fake_init(&f, 0);
	fake_make(host, &f, 0, "left", false);
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	fake_free(&f);
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_and_register_refusals),
		cmocka_unit_test(test_ids_flags_and_nr_max),
		cmocka_unit_test(test_get_stats_counts_what_reclaim_did),
		cmocka_unit_test(test_nr_deferred_slots_and_refusals),
		cmocka_unit_test(test_set_shrinker_bit_refusals),
		cmocka_unit_test(test_stale_handle_is_refused_everywhere),
		cmocka_unit_test(test_registrations_are_recorded),
		cmocka_unit_test(test_host_with_a_shrinker_is_busy),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker", tests);
}
