/* SPDX-License-Identifier: MIT */
/*
 * do_shrink_slab()'s arithmetic, through the root (global) path of
 * shr_shrink_slab() with one fake shrinker per host: the worked examples of
 * the reference table row by row, then seeks = 0, a custom batch,
 * SHRINK_STOP, count 0 / SHRINK_EMPTY, over-reported nr_scanned and the
 * nr_scanned == 0 guard. Every case runs for a memcg-aware shrinker (root's
 * per-cgroup slot) and for a plain one (its own slot).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

static const unsigned int flag_sets[] = {
	SHR_SHRINKER_MEMCG_AWARE,
	0,
	SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE,
	SHR_SHRINKER_NUMA_AWARE,
};
#define NR_FLAG_SETS (sizeof(flag_sets) / sizeof(flag_sets[0]))

struct env {
	struct shr_host *host;
	struct shr_mem_cgroup *root;
	struct fake f;
	struct shr_shrinker *s;
};

/* A host with one fake shrinker; @batch and @seeks set before registration. */
static void env_start_cfg(struct env *e, unsigned int flags, unsigned long count, long batch,
			  int seeks)
{
	e->host = fix_host(1, true);
	e->root = shr_host_root_mem_cgroup(e->host);
	fake_init(&e->f, count);
	e->s = fake_make(e->host, &e->f, flags, "fake", false);
	e->s->batch = batch;
	e->s->seeks = seeks;
	assert_int_equal(shr_shrinker_register(e->s), 0);
}

static void env_start(struct env *e, unsigned int flags, unsigned long count)
{
	env_start_cfg(e, flags, count, 0, SHR_DEFAULT_SEEKS);
}

static void env_stop(struct env *e)
{
	shr_shrinker_free(e->s);
	assert_int_equal(shr_host_destroy(e->host), 0);
}

static unsigned long shrink(struct env *e, struct shr_mem_cgroup *memcg, int prio)
{
	unsigned long freed = ~0UL;

	assert_int_equal(shr_shrink_slab(e->host, 0, memcg, prio, &freed), 0);
	return freed;
}

static long deferred(struct env *e)
{
	return shr_shrinker_nr_deferred(e->s, e->root, 0);
}

static void assert_calls(const struct fake *f, size_t n, unsigned long each, unsigned long last)
{
	assert_int_equal(f->scan_calls, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(f->scan_nr[i], i + 1 == n ? last : each);
}

/* Table row 1: 1000 objects at priority 12: nothing to do. */
static void test_row_1000_prio12(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 1000);
		assert_int_equal(shrink(&e, NULL, 12), 0);
		assert_int_equal(e.f.count_calls, 1);
		assert_int_equal(e.f.scan_calls, 0);
		assert_int_equal(deferred(&e), 0);
		env_stop(&e);
	}
}

/* Row 2: 1000 at priority 0: 15 x 128, 1920 scanned, 80 deferred. */
static void test_row_1000_prio0(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;
		struct shr_shrinker_stats st;

		env_start(&e, flag_sets[i], 1000);
		assert_int_equal(shrink(&e, e.root, 0), 1920);
		assert_calls(&e.f, 15, 128, 128);
		assert_int_equal(deferred(&e), 80);
		assert_int_equal(shr_shrinker_get_stats(e.s, &st), 0);
		assert_int_equal(st.calls, 1);
		assert_int_equal(st.scanned, 1920);
		assert_int_equal(st.freed, 1920);
		assert_int_equal(st.deferred, 80);
		env_stop(&e);
	}
}

/* Row 3: 50 at priority 0: one call of 100 (total_scan >= freeable). */
static void test_row_50_prio0(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 50);
		assert_int_equal(shrink(&e, NULL, 0), 100);
		assert_calls(&e.f, 1, 100, 100);
		assert_int_equal(deferred(&e), 0);
		env_stop(&e);
	}
}

/* Rows 4 and 5: 1,000,000 at priority 12, twice: deferred 104 then 208. */
static void test_row_million_prio12_twice(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 1000000);
		assert_int_equal(shrink(&e, NULL, 12), 384);
		assert_calls(&e.f, 3, 128, 128);
		assert_int_equal(deferred(&e), 104);
		e.f.scan_calls = 0;
		assert_int_equal(shrink(&e, NULL, 12), 384);
		assert_calls(&e.f, 3, 128, 128);
		assert_int_equal(deferred(&e), 208);
		env_stop(&e);
	}
}

/* seeks = 0: delta = freeable / 2 whatever the priority. */
static void test_seeks_zero_ignores_priority(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		for (int prio = 0; prio <= 12; prio += 12) {
			struct env e;

			env_start_cfg(&e, flag_sets[i], 1000, 0, 0);
			/* delta 500: 3 x 128, 116 left over. */
			assert_int_equal(shrink(&e, NULL, prio), 384);
			assert_calls(&e.f, 3, 128, 128);
			assert_int_equal(deferred(&e), 116);
			env_stop(&e);
		}
	}
}

/* batch 300, 1000 at priority 0: 6 x 300, 200 deferred. */
static void test_custom_batch(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start_cfg(&e, flag_sets[i], 1000, 300, SHR_DEFAULT_SEEKS);
		assert_int_equal(shrink(&e, NULL, 0), 1800);
		assert_calls(&e.f, 6, 300, 300);
		assert_int_equal(deferred(&e), 200);
		env_stop(&e);
	}
}

/* seeks 1 doubles delta: 1000 at prio 1 -> delta 2000 (capped 2000). */
static void test_seeks_one(void **state)
{
	(void)state;
	struct env e;

	env_start_cfg(&e, 0, 1000, 0, 1);
	assert_int_equal(shrink(&e, NULL, 1), 1920);
	assert_int_equal(deferred(&e), 80);
	env_stop(&e);
}

/* SHRINK_STOP at the 4th call: 3 batches count, the rest is deferred. */
static void test_shrink_stop_mid_loop(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;
		struct shr_shrinker_stats st;

		env_start(&e, flag_sets[i], 1000);
		e.f.stop_at = 4;
		assert_int_equal(shrink(&e, NULL, 0), 384);
		assert_int_equal(e.f.scan_calls, 4);
		/* 2000 - 384 = 1616 <= 2 * 1000 */
		assert_int_equal(deferred(&e), 1616);
		assert_int_equal(shr_shrinker_get_stats(e.s, &st), 0);
		assert_int_equal(st.scanned, 384);
		assert_int_equal(st.freed, 384);
		env_stop(&e);
	}
}

/* count 0 and SHRINK_EMPTY: no scan, deferred untouched. */
static void test_count_zero_and_empty_keep_deferred(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 1000);
		assert_int_equal(shrink(&e, NULL, 0), 1920);
		assert_int_equal(deferred(&e), 80);
		e.f.scan_calls = 0;
		e.f.count = 0;
		assert_int_equal(shrink(&e, NULL, 0), 0);
		e.f.count = SHR_SHRINK_EMPTY;
		assert_int_equal(shrink(&e, NULL, 0), 0); /* EMPTY maps to 0 */
		assert_int_equal(e.f.scan_calls, 0);
		assert_int_equal(deferred(&e), 80);
		/* Deferred work comes back in: 1000 at prio 0 with nr 80:
		 * total min(80 + 2000, 2000) = 2000, next = 80 + 2000 - 1920. */
		e.f.count = 1000;
		assert_int_equal(shrink(&e, NULL, 0), 1920);
		assert_int_equal(deferred(&e), 160);
		env_stop(&e);
	}
}

/* Over-reported nr_scanned drives total_scan negative and ends the loop. */
static void test_over_reported_scanned(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 1000);
		e.f.report = 1500;
		/* 2000 -> 500 -> -1000: two calls; scanned 3000 > 2000 -> 0 */
		assert_int_equal(shrink(&e, NULL, 0), 256);
		assert_calls(&e.f, 2, 128, 128);
		assert_int_equal(deferred(&e), 0);
		env_stop(&e);
	}
}

/* Under-reported (but non-zero) nr_scanned: more calls, same formula. */
static void test_under_reported_scanned(void **state)
{
	(void)state;
	struct env e;

	env_start(&e, 0, 50);
	e.f.report = 40;
	/* total 100: 100 -> 60 -> 20 (< 50, < 128): calls of 100 and 60 */
	assert_int_equal(shrink(&e, NULL, 0), 160);
	assert_int_equal(e.f.scan_calls, 2);
	assert_int_equal(e.f.scan_nr[0], 100);
	assert_int_equal(e.f.scan_nr[1], 60);
	assert_int_equal(deferred(&e), 20);
	env_stop(&e);
}

/* A finite run of nr_scanned == 0 reports changes nothing. */
static void test_zero_scanned_then_progress(void **state)
{
	(void)state;
	struct env e;

	env_start(&e, SHR_SHRINKER_MEMCG_AWARE, 1000);
	e.f.zero_first = 1000; /* below the guard's limit */
	assert_int_equal(shrink(&e, NULL, 0), 1015 * 128);
	assert_int_equal(e.f.scan_calls, 1015);
	assert_int_equal(deferred(&e), 80);
	env_stop(&e);
}

/* A callee that never reports progress: the documented guard ends the loop
 * after 1024 consecutive zero reports; nothing was scanned, so everything
 * (capped at 2 * freeable) is deferred. */
static void test_zero_scanned_forever_guard(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct env e;

		env_start(&e, flag_sets[i], 1000);
		e.f.report = 0;
		assert_int_equal(shrink(&e, NULL, 0), 1024 * 128);
		assert_int_equal(e.f.scan_calls, 1024);
		assert_int_equal(deferred(&e), 2000);
		env_stop(&e);
	}
}

/* Deferred slots on two nodes: NUMA-aware ones use the node's slot, others
 * slot 0; sc->nid is passed unchanged either way. */
static void test_deferred_slot_per_node(void **state)
{
	(void)state;
	for (size_t i = 0; i < NR_FLAG_SETS; i++) {
		struct shr_host *host = fix_host(2, true);
		struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
		struct fake f;
		struct shr_shrinker *s;
		unsigned long freed;
		bool numa = flag_sets[i] & SHR_SHRINKER_NUMA_AWARE;

		fake_init(&f, 1000);
		s = fake_make(host, &f, flag_sets[i], "fake", true);
		assert_int_equal(shr_shrink_slab(host, 1, NULL, 0, &freed), 0);
		assert_int_equal(freed, 1920);
		assert_int_equal(f.last_nid, 1);
		assert_int_equal(f.last_scan_nid, 1);
		assert_int_equal(shr_shrinker_nr_deferred(s, root, 1), 80);
		assert_int_equal(shr_shrinker_nr_deferred(s, root, 0), numa ? 0 : 80);
		shr_shrinker_free(s);
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_row_1000_prio12),
		cmocka_unit_test(test_row_1000_prio0),
		cmocka_unit_test(test_row_50_prio0),
		cmocka_unit_test(test_row_million_prio12_twice),
		cmocka_unit_test(test_seeks_zero_ignores_priority),
		cmocka_unit_test(test_custom_batch),
		cmocka_unit_test(test_seeks_one),
		cmocka_unit_test(test_shrink_stop_mid_loop),
		cmocka_unit_test(test_count_zero_and_empty_keep_deferred),
		cmocka_unit_test(test_over_reported_scanned),
		cmocka_unit_test(test_under_reported_scanned),
		cmocka_unit_test(test_zero_scanned_then_progress),
		cmocka_unit_test(test_zero_scanned_forever_guard),
		cmocka_unit_test(test_deferred_slot_per_node),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("do_shrink_slab_arithmetic", tests);
}
