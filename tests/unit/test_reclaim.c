/* SPDX-License-Identifier: MIT */
/*
 * shrink_slab's two walks, drop_caches, memory.reclaim, argument checks and
 * the debugfs text interface, with fake shrinkers on the default design.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/rcu.h>

#include "reclaim_fake.h"

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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(2, true);
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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(1, false);
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
	struct shr_host *host = fake_host(nr_nodes, true);
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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(1, true);
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
	struct shr_host *host = fake_host(2, true);
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
	struct shr_host *host = fake_host(2, true);
	struct shr_host *other = fake_host(1, true);
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

/* ---- debugfs ---- */

static struct {
	struct shr_mem_cgroup *c2, *c3;
	int max_nid; /* highest node counted */
} dbg;

/* root: 5/0; c2: EMPTY/7; c3: 9/9; others 0; NULL memcg: 3/4. */
static unsigned long dbg_count(struct fake *f, struct shr_shrink_control *sc)
{
	static const unsigned long root_c[2] = { 5, 0 }, c2_c[2] = { SHR_SHRINK_EMPTY, 7 },
				   c3_c[2] = { 9, 9 }, null_c[2] = { 3, 4 };

	(void)f;
	if (sc->nid > dbg.max_nid)
		dbg.max_nid = sc->nid;
	if (!sc->memcg)
		return null_c[sc->nid];
	if (shr_mem_cgroup_is_root(sc->memcg))
		return root_c[sc->nid];
	if (sc->memcg == dbg.c2)
		return c2_c[sc->nid];
	if (sc->memcg == dbg.c3)
		return c3_c[sc->nid];
	return 0;
}

static char *count_text(struct shr_shrinker *s, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	*ret = shr_shrinker_debugfs_count(s, out);
	fclose(out);
	return buf;
}

static void expect_count(struct shr_shrinker *s, const char *want)
{
	int ret;
	char *text = count_text(s, &ret);

	assert_int_equal(ret, 0);
	assert_string_equal(text, want);
	free(text);
}

static void test_debugfs_name(void **state)
{
	struct shr_host *host = fake_host(1, true);
	struct fake a, b;
	struct shr_shrinker *sa, *sb;
	char buf[64];

	(void)state;
	fake_init(&a, 1);
	fake_init(&b, 1);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "sb-tmpfs", true);
	sb = fake_make(host, &b, 0, "b", false);
	assert_int_equal(shr_shrinker_debugfs_name(sa, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "sb-tmpfs-0");
	assert_int_equal(shr_shrinker_debugfs_name(sb, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(shr_shrinker_register(sb), 0);
	assert_int_equal(shr_shrinker_debugfs_name(sb, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "b-1");
	assert_int_equal(shr_shrinker_debugfs_name(sa, buf, 5), -ENOSPC);
	assert_int_equal(shr_shrinker_debugfs_name(NULL, buf, sizeof(buf)), -EINVAL);
	shr_shrinker_free(sa);
	shr_shrinker_free(sb);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_debugfs_count(void **state)
{
	struct shr_host *host = fake_host(2, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *c1 = shr_test_mkcg(root);
	struct fake numa, plain, global, zero, unreg;
	struct shr_shrinker *sn, *sp, *sg, *sz, *su;
	char want[128];
	int ret;

	(void)state;
	dbg.c2 = shr_test_mkcg(root);
	dbg.c3 = shr_test_mkcg(c1);
	shr_mem_cgroup_get(dbg.c3);
	assert_int_equal(shr_mem_cgroup_offline(dbg.c3), 0); /* dying: skipped */

	fake_init(&numa, 0);
	fake_init(&plain, 0);
	fake_init(&global, 0);
	fake_init(&zero, 0);
	fake_init(&unreg, 0);
	numa.count_fn = plain.count_fn = global.count_fn = dbg_count;
	sn = fake_make(host, &numa, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE, "n", true);
	sp = fake_make(host, &plain, SHR_SHRINKER_MEMCG_AWARE, "p", true);
	sg = fake_make(host, &global, SHR_SHRINKER_NUMA_AWARE, "g", true);
	sz = fake_make(host, &zero, SHR_SHRINKER_MEMCG_AWARE, "z", true);
	su = fake_make(host, &unreg, SHR_SHRINKER_MEMCG_AWARE, "u", false);

	snprintf(want, sizeof(want), "1 5 0\n%lu 0 7\n", shr_mem_cgroup_ino(dbg.c2));
	dbg.max_nid = -1;
	expect_count(sn, want);
	assert_int_equal(dbg.max_nid, 1);

	dbg.max_nid = -1;
	expect_count(sp, "1 5 0\n"); /* node 1 not counted: c2 totals 0 */
	assert_int_equal(dbg.max_nid, 0);

	expect_count(sg, "1 3 4\n");
	assert_null(global.last_memcg);

	expect_count(sz, "");
	char *text = count_text(su, &ret);
	assert_int_equal(ret, -EINVAL);
	free(text);
	assert_int_equal(shr_shrinker_debugfs_count(sn, NULL), -EINVAL);

	shr_mem_cgroup_put(dbg.c3);
	dbg.c3 = NULL;
	shr_shrinker_free(sn);
	shr_shrinker_free(sp);
	shr_shrinker_free(sg);
	shr_shrinker_free(sz);
	shr_shrinker_free(su);
	assert_int_equal(shr_mem_cgroup_offline(dbg.c2), 0);
	assert_int_equal(shr_mem_cgroup_offline(c1), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_debugfs_scan(void **state)
{
	static const char *const bad[] = {
		"", " ", "1", "1 0", "1 0 ", "1 0 10 x", "1 0 10x", "1 0 10\n\n", "x 0 10",
		"-1 0 10", "1 -1 10", "1 0 -10", "+1 0 10", "1 0 0x10",
		"1 0 99999999999999999999999", "1 4294967296 1", "1 2147483648 1", "1 2 10",
		"1,0,10",
	};
	struct shr_host *host = fake_host(2, true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *child = shr_test_mkcg(root);
	struct shr_mem_cgroup *dead = shr_test_mkcg(root);
	struct fake a, g, u;
	struct shr_shrinker *sa, *sg, *su;
	char in[64];

	(void)state;
	fake_init(&a, 1);
	fake_init(&g, 1);
	fake_init(&u, 1);
	sa = fake_make(host, &a, SHR_SHRINKER_MEMCG_AWARE, "a", true);
	sg = fake_make(host, &g, 0, "g", true);
	su = fake_make(host, &u, SHR_SHRINKER_MEMCG_AWARE, "u", false);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (shr_shrinker_debugfs_scan(sa, bad[i]) != -EINVAL)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(a.scan_calls, 0);

	assert_int_equal(shr_shrinker_debugfs_scan(sa, "1 0 10"), 0);
	assert_int_equal(a.scan_calls, 1);
	assert_int_equal(a.scan_nr[0], 10);
	assert_ptr_equal(a.last_scan_memcg, root);
	assert_int_equal(a.count_calls, 0); /* no count, no batching */

	snprintf(in, sizeof(in), "%lu 1 1000\n", shr_mem_cgroup_ino(child));
	assert_int_equal(shr_shrinker_debugfs_scan(sa, in), 0);
	assert_int_equal(a.scan_calls, 2);
	assert_int_equal(a.scan_nr[1], 1000);
	assert_int_equal(a.last_scan_nid, 1);
	assert_ptr_equal(a.last_scan_memcg, child);
	assert_int_equal(shr_shrinker_nr_deferred(sa, child, 0), 0);

	assert_int_equal(shr_shrinker_debugfs_scan(sa, "  1\t0  0 "), 0); /* nr 0: no call */
	assert_int_equal(a.scan_calls, 2);
	assert_int_equal(shr_shrinker_debugfs_scan(sa, "999999 0 1"), -ENOENT);
	snprintf(in, sizeof(in), "%lu 0 1", shr_mem_cgroup_ino(dead));
	assert_int_equal(shr_mem_cgroup_offline(dead), 0);
	assert_int_equal(shr_shrinker_debugfs_scan(sa, in), -ENOENT);
	assert_int_equal(a.scan_calls, 2);

	assert_int_equal(shr_shrinker_debugfs_scan(sg, "0 1 5"), 0);
	assert_int_equal(g.scan_calls, 1);
	assert_null(g.last_scan_memcg);
	assert_int_equal(shr_shrinker_debugfs_scan(sg, "1 0 5"), -EINVAL);

	assert_int_equal(shr_shrinker_debugfs_scan(su, "1 0 5"), -EINVAL);
	assert_int_equal(shr_shrinker_debugfs_scan(sa, NULL), -EINVAL);
	assert_int_equal(shr_shrinker_debugfs_scan(NULL, "1 0 5"), -EINVAL);
	assert_int_equal(u.scan_calls, 0);

	shr_shrinker_free(sa);
	shr_shrinker_free(sg);
	shr_shrinker_free(su);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
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
	struct race r = { .host = fake_host(1, true) };
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
		cmocka_unit_test(test_debugfs_name),
		cmocka_unit_test(test_debugfs_count),
		cmocka_unit_test(test_debugfs_scan),
		cmocka_unit_test(test_walks_race_register_free),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("reclaim", tests);
}
