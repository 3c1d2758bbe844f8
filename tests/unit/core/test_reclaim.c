/* SPDX-License-Identifier: MIT */
/*
 * Reclaim (src/core/reclaim.c): shrink_slab's two walks, drop_caches,
 * memory.reclaim and their argument checks, walks racing registration and
 * free, with the tests' fake shrinker on the default design. The arithmetic
 * of one do_shrink_slab() call is test_reclaim_arithmetic.c's; the debugfs
 * files are test_debugfs.c's.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/rcu.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

static unsigned long shrink(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg,
			    int prio)
{
	unsigned long freed = ~0UL;

	assert_int_equal(shr_shrink_slab(host, nid, memcg, prio, &freed), 0);
	return freed;
}

/* The root walk calls every registered shrinker, memcg-aware or not, with
 * sc->memcg = root; allocated-only ones are not called. */
static void test_root_calls_every_registered(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct fake a, b, c, u;
	struct shr_shrinker *sa, *sb, *sc, *su;

	(void)state;
	fake_init(&a, 50);
	fake_init(&b, 50);
	fake_init(&c, 50);
	fake_init(&u, 50);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	su = fake_make(host, &u, SHR_SHRINKER_MEMCG_AWARE, "u", false);
	sb = fake_make(host, &b, 0, "b", true);
	sc = fake_make(host, &c, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE, "c", true);

	assert_int_equal(shrink(host, 0, root, 0), 300);
	assert_int_equal(shrink(host, 0, NULL, 0), 300);
	assert_int_equal(a.count_calls, 2);
	assert_int_equal(b.count_calls, 2);
	assert_int_equal(c.count_calls, 2);
	assert_int_equal(u.count_calls, 0);
	assert_ptr_equal(a.last_memcg, root);
	assert_ptr_equal(b.last_memcg, root);
	assert_ptr_equal(c.last_memcg, root);

	shr_shrinker_free(sa);
	shr_shrinker_free(sb);
	shr_shrinker_free(sc);
	shr_shrinker_free(su);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* sc->nid reaches non-NUMA shrinkers unchanged, on both paths. */
static void test_nid_passed_unchanged(void **state)
{
	struct shr_host *host = fix_host(2, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *child = shr_test_mkcg(root);
	struct fake a, b;
	struct shr_shrinker *sa, *sb;

	(void)state;
	fake_init(&a, 50);
	fake_init(&b, 50);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	sb = fake_make(host, &b, 0, "b", true);
	assert_int_equal(shrink(host, 1, root, 0), 200);
	assert_int_equal(a.last_nid, 1);
	assert_int_equal(b.last_nid, 1);
	assert_int_equal(shr_set_shrinker_bit(child, 1, sa), 0);
	a.last_nid = -1;
	assert_int_equal(shrink(host, 1, child, 0), 100);
	assert_int_equal(a.last_nid, 1);
	assert_ptr_equal(a.last_memcg, child);

	shr_shrinker_free(sa);
	shr_shrinker_free(sb);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* The non-root walk calls only shrinkers whose bit is set; offline cgroups
 * free nothing. */
static void test_memcg_path_bits_and_offline(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *child = shr_test_mkcg(root);
	struct fake a, b, c;
	struct shr_shrinker *sa, *sb, *sc;

	(void)state;
	fake_init(&a, 50);
	fake_init(&b, 50);
	fake_init(&c, 50);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	sb = fake_make(host, &b, SHR_SHRINKER_MEMCG_AWARE, "b", true);
	sc = fake_make(host, &c, 0, "c", true);

	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(shr_set_shrinker_bit(child, 0, sb), 0);
	assert_int_equal(shrink(host, 0, child, 0), 100);
	assert_int_equal(a.count_calls, 0);
	assert_int_equal(b.count_calls, 1);
	assert_int_equal(c.count_calls, 0);
	assert_ptr_equal(b.last_memcg, child);

	shr_mem_cgroup_get(child);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(b.count_calls, 1);
	shr_mem_cgroup_put(child);

	shr_shrinker_free(sa);
	shr_shrinker_free(sb);
	shr_shrinker_free(sc);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* SHRINK_EMPTY clears the bit; the recount re-sets it when non-empty; a
 * count of 0 keeps it. */
static void test_empty_protocol(void **state)
{
	static const unsigned long script[] = {
		SHR_SHRINK_EMPTY, SHR_SHRINK_EMPTY, /* walk 1: cleared */
		SHR_SHRINK_EMPTY, 50,               /* walk 2: recount re-sets */
		0,                                  /* walk 3: skip, bit kept */
	};
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *child = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake a;
	struct shr_shrinker *sa;

	(void)state;
	fake_init(&a, 50);
	a.script = script;
	a.script_len = 5;
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);

	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(a.count_calls, 2);
	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(a.count_calls, 2); /* bit cleared: not called */

	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);
	assert_int_equal(shrink(host, 0, child, 0), 100); /* the recount's result */
	assert_int_equal(a.count_calls, 4);
	assert_int_equal(shrink(host, 0, child, 0), 0);   /* count 0 */
	assert_int_equal(a.count_calls, 5);
	assert_int_equal(shrink(host, 0, child, 0), 100); /* bit still set */
	assert_int_equal(a.count_calls, 6);

	shr_shrinker_free(sa);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A bit left by a freed shrinker is dropped without a call. */
static void test_stale_bit_after_free(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *child = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake a;
	struct shr_shrinker *sa;

	(void)state;
	fake_init(&a, 50);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);
	shr_shrinker_free(sa);
	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(shrink(host, 0, child, 0), 0);
	assert_int_equal(a.count_calls, 0);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* kmem off: only NONSLAB shrinkers run for non-root cgroups; the root walk
 * still calls everything. */
static void test_kmem_off_nonslab_only(void **state)
{
	struct shr_host *host = fix_host(1, false);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *child = shr_test_mkcg(root);
	struct fake a, n;
	struct shr_shrinker *sa, *sn;

	(void)state;
	fake_init(&a, 50);
	fake_init(&n, 50);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	sn = fake_make(host, &n, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NONSLAB, "n", true);
	(void)shr_set_shrinker_bit(child, 0, sa); /* may be a no-op under nokmem */
	assert_int_equal(shr_set_shrinker_bit(child, 0, sn), 0);

	assert_int_equal(shrink(host, 0, child, 0), 100);
	assert_int_equal(a.count_calls, 0);
	assert_int_equal(n.count_calls, 1);
	assert_int_equal(shrink(host, 0, child, 0), 100);
	assert_int_equal(a.count_calls, 0);

	assert_int_equal(shrink(host, 0, root, 0), 200);
	assert_int_equal(a.count_calls, 1);

	shr_shrinker_free(sa); /* must not hang: the gate dropped its pin */
	shr_shrinker_free(sn);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Passes of drop_caches for a pass freeing k objects: another pass while
 * (k >> shift++) > 1, i.e. floor(log2 k) + 1 passes (1 for k <= 1). */
static unsigned int expected_passes(unsigned long k)
{
	unsigned int p = 1;

	while (k > 1) {
		k >>= 1;
		p++;
	}
	return p;
}

static void drop_caches_case(int nr_nodes, unsigned long k)
{
	struct shr_host *host = fix_host(nr_nodes, true);
	struct shr_mem_cgroup *child = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake b;
	struct shr_shrinker *sb;
	unsigned long freed = 0, per_pass = k * (unsigned long)nr_nodes;
	unsigned int passes = 0;

	fake_init(&b, 50); /* one scan call of 100 per do_shrink_slab */
	b.scan_ret = (long)k;
	sb = fake_make(host, &b, 0, "b", true);
	assert_int_equal(shr_drop_caches(host, &freed, &passes), 0);
	assert_int_equal(passes, expected_passes(per_pass));
	assert_int_equal(freed, per_pass * passes);
	assert_int_equal(b.count_calls, (unsigned long)nr_nodes * passes);
	assert_int_equal(shr_drop_caches(host, NULL, NULL), 0);

	shr_shrinker_free(sb);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_drop_caches_passes(void **state)
{
	static const unsigned long ks[] = { 0, 1, 2, 3, 4, 100, 1024, 1025 };

	(void)state;
	assert_int_equal(expected_passes(100), 7);
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
		drop_caches_case(1, ks[i]);
		drop_caches_case(2, ks[i]);
	}
}

/* drop_caches visits the root (global walk) and every cgroup (bit walk). */
static void test_drop_caches_visits_cgroups(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *child = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake a;
	struct shr_shrinker *sa;
	unsigned long freed;
	unsigned int passes;

	(void)state;
	fake_init(&a, 50);
	a.scan_ret = 1;
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);
	assert_int_equal(shr_drop_caches(host, &freed, &passes), 0);
	/* 2 per pass: pass 1 (2 >> 0 > 1), pass 2 (2 >> 1 == 1) stops */
	assert_int_equal(passes, 2);
	assert_int_equal(freed, 4);
	assert_int_equal(a.count_calls, 4);
	shr_shrinker_free(sa);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* memory.reclaim stops as soon as the target is met. With 1000 objects and
 * seeks 2 the first scan happens at priority 4 (deferred work accumulated
 * since priority 9 makes total_scan 131): one call of 128. */
static void test_reclaim_stops_at_target(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *parent = shr_test_mkcg(root);
	struct shr_mem_cgroup *child = shr_test_mkcg(parent);
	struct fake a;
	struct shr_shrinker *sa;
	unsigned long freed = 0;

	(void)state;
	fake_init(&a, 1000);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);
	assert_int_equal(shr_mem_cgroup_reclaim(parent, 100, &freed), 0);
	assert_int_equal(freed, 128);
	assert_int_equal(a.scan_calls, 1);
	assert_ptr_equal(a.last_memcg, child);
	assert_int_equal(a.count_calls, 9); /* priorities 12..4 */
	/* next_deferred = nr + delta - scanned = 114 + 124 - 128 */
	assert_int_equal(shr_shrinker_nr_deferred(sa, child, 0), 110);

	shr_shrinker_free(sa);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_reclaim_eagain_enoent_einval(void **state)
{
	struct shr_host *host = fix_host(2, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *child = shr_test_mkcg(root);
	struct shr_mem_cgroup *half = NULL;
	struct fake a;
	struct shr_shrinker *sa;
	unsigned long freed = 7;

	(void)state;
	fake_init(&a, 1000);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	/* No bits: nothing to free. */
	assert_int_equal(shr_mem_cgroup_reclaim(child, 1, &freed), -EAGAIN);
	assert_int_equal(freed, 0);
	assert_int_equal(a.count_calls, 0);
	/* Unreachable target: every priority on both nodes, then -EAGAIN. */
	assert_int_equal(shr_set_shrinker_bit(child, 0, sa), 0);
	assert_int_equal(shr_set_shrinker_bit(child, 1, sa), 0);
	assert_int_equal(shr_mem_cgroup_reclaim(child, 1UL << 40, &freed), -EAGAIN);
	assert_true(freed > 0);
	assert_int_equal(a.count_calls, 13 * 2);
	assert_int_equal(shr_mem_cgroup_reclaim(child, 1UL << 40, NULL), -EAGAIN);
	/* The root's subtree includes the global walk. */
	assert_int_equal(shr_mem_cgroup_reclaim(root, 1, &freed), 0);
	assert_true(freed >= 1);
	/* Not online. */
	assert_int_equal(shr_mem_cgroup_alloc(root, &half), 0);
	assert_int_equal(shr_mem_cgroup_reclaim(half, 1, &freed), -ENOENT);
	assert_int_equal(shr_mem_cgroup_offline(half), 0);
	/* Misuse. */
	assert_int_equal(shr_mem_cgroup_reclaim(NULL, 1, &freed), -EINVAL);
	assert_int_equal(shr_mem_cgroup_reclaim(child, 0, &freed), -EINVAL);

	shr_shrinker_free(sa);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_shrink_slab_einval(void **state)
{
	struct shr_host *host = fix_host(2, true);
	struct shr_host *other = fix_host(1, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	unsigned long freed;

	(void)state;
	assert_int_equal(shr_shrink_slab(NULL, 0, NULL, 0, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, 0, NULL), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, -1, NULL, 0, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 2, NULL, 0, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, -1, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, 13, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 0, shr_host_root_mem_cgroup(other), 0, &freed),
			 -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 1, root, 12, &freed), 0);
	assert_int_equal(freed, 0);
	assert_int_equal(shr_drop_caches(NULL, &freed, NULL), -EINVAL);
	assert_int_equal(shr_host_destroy(other), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* ---- concurrency: walks racing with register/free ---- */

struct race {
	struct shr_host *host;
	struct shr_mem_cgroup *child;
	atomic_bool stop;
	atomic_ulong walks;
};

/* Callbacks safe to run on two reclaimers at once. */
static unsigned long race_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)sc;
	atomic_fetch_add((atomic_ulong *)s->private_data, 1);
	return 50;
}

static unsigned long race_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	return sc->nr_to_scan;
}

static void *race_reclaimer(void *arg)
{
	struct race *r = arg;
	unsigned long freed;

	shr_thread_register();
	while (!atomic_load(&r->stop)) {
		/* cmocka asserts must stay on the main thread */
		if (shr_shrink_slab(r->host, 0, NULL, 0, &freed) ||
		    shr_shrink_slab(r->host, 0, r->child, 0, &freed))
			abort();
		atomic_fetch_add(&r->walks, 1);
	}
	shr_thread_unregister();
	return NULL;
}

/* Two reclaimers walk the root list and the child's bits while shrinkers
 * come and go; shr_shrinker_free() must wait for in-flight calls and the
 * walks must never touch a freed shrinker (run under ASan/TSan too). */
static void test_walks_race_register_free(void **state)
{
	enum { ROUNDS = 200, SLOTS = 4 };
	struct race r = { .host = fix_host(1, true) };
	atomic_ulong calls[SLOTS];
	struct shr_shrinker *s[SLOTS] = { 0 };
	pthread_t th[2];

	(void)state;
	shr_test_widen();
	r.child = shr_test_mkcg(shr_host_root_mem_cgroup(r.host));
	atomic_init(&r.stop, false);
	atomic_init(&r.walks, 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race_reclaimer, &r), 0);
	for (int round = 0; round < ROUNDS; round++) {
		int k = round % SLOTS;
		unsigned int flags = (round & 1) ? SHR_SHRINKER_MEMCG_AWARE : 0;

		shr_shrinker_free(s[k]); /* waits for in-flight calls */
		atomic_init(&calls[k], 0);
		assert_int_equal(shr_shrinker_alloc(r.host, flags, "race", &s[k]), 0);
		s[k]->count_objects = race_count;
		s[k]->scan_objects = race_scan;
		s[k]->private_data = &calls[k];
		assert_int_equal(shr_shrinker_register(s[k]), 0);
		if (flags)
			assert_int_equal(shr_set_shrinker_bit(r.child, 0, s[k]), 0);
	}
	/* Yield: on a busy machine the walkers need this CPU to get there. */
	while (atomic_load(&r.walks) < 10)
		sched_yield();
	atomic_store(&r.stop, true);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	shr_test_widen_end();
	for (int k = 0; k < SLOTS; k++)
		shr_shrinker_free(s[k]);
	assert_int_equal(shr_mem_cgroup_offline(r.child), 0);
	assert_int_equal(shr_host_destroy(r.host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_calls_every_registered),
		cmocka_unit_test(test_nid_passed_unchanged),
		cmocka_unit_test(test_memcg_path_bits_and_offline),
		cmocka_unit_test(test_empty_protocol),
		cmocka_unit_test(test_stale_bit_after_free),
		cmocka_unit_test(test_kmem_off_nonslab_only),
		cmocka_unit_test(test_drop_caches_passes),
		cmocka_unit_test(test_drop_caches_visits_cgroups),
		cmocka_unit_test(test_reclaim_stops_at_target),
		cmocka_unit_test(test_reclaim_eagain_enoent_einval),
		cmocka_unit_test(test_shrink_slab_einval),
		cmocka_unit_test(test_walks_race_register_free),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("reclaim", tests);
}
