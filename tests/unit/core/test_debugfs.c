/* SPDX-License-Identifier: MIT */
/*
 * The debugfs files of a shrinker (src/core/debugfs.c, the kernel's
 * mm/shrinker_debug.c) as functions: "name" (<name>-<N> from a per-host
 * IDA, registered shrinkers only), "count" (one line per online cgroup with
 * a non-zero total, dying cgroups and empty nodes left out) and "scan"
 * (one scan_objects call, its input parsed strictly), with the tests' fake
 * shrinker. Public API only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

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
	struct shr_host *host = fix_host(1, true);
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
	struct shr_host *host = fix_host(2, true);
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
	struct shr_host *host = fix_host(2, true);
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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debugfs_name),
		cmocka_unit_test(test_debugfs_count),
		cmocka_unit_test(test_debugfs_scan),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("debugfs", tests);
}
