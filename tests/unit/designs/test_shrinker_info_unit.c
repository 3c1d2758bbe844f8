/* SPDX-License-Identifier: MIT */
/*
 * Where units come from (src/designs/shrinker_info_unit.c): for every
 * design of the table that keeps units, with units=cache and with
 * units=kmalloc, each unit a cgroup gains is one object more in use in the
 * source its parameters name (the dedicated "shrinker_info_unit" cache of
 * 520-byte objects, 31 to an order-2 slab at 4 CPUs; or kmalloc-1k), and
 * the bookkeeping report charges each unit that slot's size. A host whose
 * units come from kmalloc, or whose design keeps none, has no unit cache.
 * Public API only.
 */
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

struct find {
	const char *name;
	struct shr_kmem_cache *cache;
};

static void find_one(struct shr_kmem_cache *cache, void *arg)
{
	struct find *f = arg;

	if (!strcmp(shr_kmem_cache_name(cache), f->name))
		f->cache = cache;
}

static struct shr_kmem_cache *cache_named(struct shr_host *host, const char *name)
{
	struct find f = { name, NULL };

	shr_slab_for_each_cache(shr_host_slab(host), find_one, &f);
	return f.cache;
}

static unsigned long in_use(struct shr_kmem_cache *cache)
{
	struct shr_kmem_cache_stats st;

	shr_kmem_cache_stats(cache, -1, &st);
	return st.objects_in_use;
}

/* Units of every cgroup of @host, on every node. */
static unsigned long all_units(struct shr_host *host, unsigned long *bytes)
{
	struct shr_mem_cgroup *pos = NULL;
	unsigned long n = 0;

	*bytes = 0;
	while ((pos = shr_mem_cgroup_iter(host, NULL, pos))) {
		struct shr_memcg_bookkeeping bk;

		assert_int_equal(shr_mem_cgroup_bookkeeping(pos, -1, &bk), 0);
		n += bk.nr_units;
		*bytes += bk.unit_bytes;
	}
	return n;
}

static struct shr_host *host_with(enum shr_design d, enum shr_units_source units)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_host_params_init(&p);
	p.design = d;
	p.units = units;
	p.geometry_cpus = 4;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

/* One design and source: 70 shrinkers (two units' worth of ids), objects
 * announced in four cgroups; count what the source handed out. */
static void check_source(enum shr_design d, enum shr_units_source units)
{
	struct shr_host *host = host_with(d, units);
	struct shr_kmem_cache *src, *named = cache_named(host, "shrinker_info_unit");
	struct shr_mem_cgroup *cg[4];
	struct shr_slab_geometry g;
	static struct fake f[70];
	unsigned long before, after, n0, n1, b0, b1;

	if (units == SHR_UNITS_CACHE) {
		assert_non_null(named);
		src = named;
		shr_kmem_cache_geometry(src, &g);
		assert_int_equal(g.object_size, 520);
		assert_int_equal(g.objects_per_slab, 31);
		assert_int_equal(g.order, 2);
	} else {
		assert_null(named);
		src = shr_kmalloc_cache_for(shr_host_slab(host), 520);
		assert_string_equal(shr_kmem_cache_name(src), "kmalloc-1k");
		shr_kmem_cache_geometry(src, &g);
	}
	for (int i = 0; i < 70; i++) {
		fake_init(&f[i], 0);
		fake_make(host, &f[i], SHR_SHRINKER_MEMCG_AWARE, "u", true);
	}
	before = in_use(src);
	n0 = all_units(host, &b0);
	for (int c = 0; c < 4; c++) {
		cg[c] = shr_test_mkcg(shr_host_root_mem_cgroup(host));
		assert_int_equal(shr_set_shrinker_bit(cg[c], 0, f[c].shrinker), 0);
		assert_int_equal(shr_set_shrinker_bit(cg[c], 0, f[69 - c].shrinker), 0);
	}
	after = in_use(src);
	n1 = all_units(host, &b1);
	if (n1 <= n0)
		fail_msg("%s: no unit installed", shr_design_name(d));
	if (after - before != n1 - n0)
		fail_msg("%s units=%s: %lu units more, %lu objects more in %s",
			 shr_design_name(d), units == SHR_UNITS_CACHE ? "cache" : "kmalloc",
			 n1 - n0, after - before, shr_kmem_cache_name(src));
	assert_int_equal(b1 - b0, (n1 - n0) * g.object_size);
	for (int i = 0; i < 70; i++)
		fake_free(&f[i]);
	for (int c = 0; c < 4; c++)
		assert_int_equal(shr_mem_cgroup_offline(cg[c]), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_units_come_from_the_named_source(void **state)
{
	int checked = 0;

	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		if (!shr_design_info_of((enum shr_design)d)->units)
			continue;
		check_source((enum shr_design)d, SHR_UNITS_CACHE);
		check_source((enum shr_design)d, SHR_UNITS_KMALLOC);
		checked++;
	}
	assert_true(checked >= 4);
}

static void test_designs_without_units_have_no_unit_cache(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		struct shr_host *host;

		if (shr_design_info_of((enum shr_design)d)->units)
			continue;
		host = host_with((enum shr_design)d, SHR_UNITS_DEFAULT);
		assert_null(cache_named(host, "shrinker_info_unit"));
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_come_from_the_named_source),
		cmocka_unit_test(test_designs_without_units_have_no_unit_cache),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_unit", tests);
}
