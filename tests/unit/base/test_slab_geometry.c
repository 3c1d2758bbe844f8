/* SPDX-License-Identifier: MIT */
/*
 * Proves that slab geometry follows SLUB: the known 520-byte and kmalloc
 * layouts, and every size 8..8192 against a plain re-statement of the rule.
 */
#include <string.h>

#include <shrinker/rcu.h>
#include <shrinker/slab.h>

#include "harness.h"

/* The rule, written out independently of src/base/slab.c. */
static unsigned int ref_order(unsigned int size, unsigned int cpus)
{
	unsigned int hi = 0, min_objects, max_objects, min_order = 0;
	unsigned int fracts[4] = { 16, 8, 4, 2 };

	for (unsigned int c = cpus; c; c >>= 1)
		hi++;
	min_objects = 4 * (hi + 1);
	max_objects = (4096u << 3) / size;
	if (max_objects == 0)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = max_objects;
	while ((4096u << min_order) < min_objects * size)
		min_order++;
	for (int f = 0; f < 4; f++) {
		for (unsigned int order = min_order; order <= 3; order++) {
			unsigned int slab = 4096u << order;

			if (slab % size <= slab / fracts[f])
				return order;
		}
	}
	min_order = 0;
	while ((4096u << min_order) < size)
		min_order++;
	return min_order;
}

static void check_size(unsigned int size, unsigned int cpus)
{
	struct shr_slab_geometry g;
	unsigned int order = ref_order(size, cpus);

	assert_int_equal(shr_slab_calculate_geometry(size, 0, cpus, &g), 0);
	assert_int_equal(g.object_size, size);
	if (g.order != order)
		fail_msg("size %u cpus %u: order %u, rule says %u", size, cpus, g.order, order);
	assert_int_equal(g.objects_per_slab, (4096u << order) / size);
	assert_int_equal(g.waste_bytes, (4096u << order) - g.objects_per_slab * size);
}

static void test_520_bytes_with_4_cpus_is_order_2_with_31_objects(void **state)
{
	struct shr_slab_params p = { .nr_nodes = 1, .geometry_cpus = 4 };
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *c;
	struct shr_slab_geometry g;

	(void)state;
	assert_int_equal(shr_slab_calculate_geometry(520, 0, 4, &g), 0);
	assert_int_equal(g.order, 2);
	assert_int_equal(g.objects_per_slab, 31);
	assert_int_equal(g.waste_bytes, 16384 - 31 * 520);
	assert_int_equal(shr_slab_allocator_create(&p, &sa), 0);
	assert_int_equal(shr_kmem_cache_create(sa, "obj520", 520, 0, 0, &c), 0);
	shr_kmem_cache_geometry(c, &g);
	assert_int_equal(g.order, 2);
	assert_int_equal(g.objects_per_slab, 31);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	shr_slab_allocator_destroy(sa);
}

struct expect {
	const char *name;
	unsigned int objs, pages;
};

struct walk {
	const struct expect *exp;
	unsigned int n;
};

static void check_kmalloc_cache(struct shr_kmem_cache *c, void *arg)
{
	struct walk *w = arg;
	struct shr_slab_geometry g;

	assert_true(w->n < 13);
	assert_string_equal(shr_kmem_cache_name(c), w->exp[w->n].name);
	shr_kmem_cache_geometry(c, &g);
	if (g.objects_per_slab != w->exp[w->n].objs || (1u << g.order) != w->exp[w->n].pages)
		fail_msg("%s: %u objects / %u pages, want %u / %u", w->exp[w->n].name,
			 g.objects_per_slab, 1u << g.order, w->exp[w->n].objs, w->exp[w->n].pages);
	w->n++;
}

static void test_kmalloc_caches_with_2_cpus(void **state)
{
	static const struct expect exp[] = {
		{ "kmalloc-8", 512, 1 },  { "kmalloc-16", 256, 1 }, { "kmalloc-32", 128, 1 },
		{ "kmalloc-64", 64, 1 },  { "kmalloc-96", 42, 1 },  { "kmalloc-128", 32, 1 },
		{ "kmalloc-192", 21, 1 }, { "kmalloc-256", 16, 1 }, { "kmalloc-512", 16, 2 },
		{ "kmalloc-1k", 16, 4 },  { "kmalloc-2k", 16, 8 },  { "kmalloc-4k", 8, 8 },
		{ "kmalloc-8k", 4, 8 },
	};
	struct shr_slab_params p = { .nr_nodes = 1, .geometry_cpus = 2 };
	struct shr_slab_allocator *sa;
	struct walk w = { exp, 0 };

	(void)state;
	assert_int_equal(shr_slab_allocator_create(&p, &sa), 0);
	shr_slab_for_each_cache(sa, check_kmalloc_cache, &w);
	assert_int_equal(w.n, 13);
	shr_slab_allocator_destroy(sa);
}

static void test_size_classes_match_kernel(void **state)
{
	struct shr_slab_params p = { .nr_nodes = 1, .geometry_cpus = 2 };
	struct shr_slab_allocator *sa;

	(void)state;
	assert_int_equal(shr_slab_allocator_create(&p, &sa), 0);
	assert_null(shr_kmalloc_cache_for(sa, 0));
	assert_null(shr_kmalloc_cache_for(sa, 8193));
	for (size_t s = 1; s <= 8192; s++) {
		size_t want = s <= 8 ? 8 : s <= 16 ? 16 : s <= 32 ? 32 : s <= 64 ? 64 :
			      s <= 96 ? 96 : s <= 128 ? 128 : s <= 192 ? 192 : 256;
		struct shr_slab_geometry g;

		while (want < s)
			want *= 2;
		shr_kmem_cache_geometry(shr_kmalloc_cache_for(sa, s), &g);
		if (g.object_size != want)
			fail_msg("size %zu served by %u, want %zu", s, g.object_size, want);
	}
	shr_slab_allocator_destroy(sa);
}

static void test_every_size_matches_rule_for_1_4_48_cpus(void **state)
{
	static const unsigned int cpus[] = { 1, 4, 48 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		for (unsigned int size = 8; size <= 8192; size += 8)
			check_size(size, cpus[i]);
		check_size(520, cpus[i]);
	}
}

static void test_alignment_rounds_object_size(void **state)
{
	struct shr_slab_params p = { .nr_nodes = 1, .geometry_cpus = 4 };
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *c;
	struct shr_slab_geometry g;

	(void)state;
	assert_int_equal(shr_slab_calculate_geometry(1, 0, 1, &g), 0);
	assert_int_equal(g.object_size, 8);
	assert_int_equal(shr_slab_calculate_geometry(100, 32, 1, &g), 0);
	assert_int_equal(g.object_size, 128);
	assert_int_equal(shr_slab_allocator_create(&p, &sa), 0);
	assert_int_equal(shr_kmem_cache_create(sa, "hw", 72, 0, SHR_SLAB_HWCACHE_ALIGN, &c), 0);
	shr_kmem_cache_geometry(c, &g);
	assert_int_equal(g.object_size, 128);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	shr_slab_allocator_destroy(sa);
}

static void test_geometry_rejects_bad_input(void **state)
{
	struct shr_slab_geometry g;

	(void)state;
	assert_int_equal(shr_slab_calculate_geometry(0, 0, 1, &g), -EINVAL);
	assert_int_equal(shr_slab_calculate_geometry(64, 0, 0, &g), -EINVAL);
	assert_int_equal(shr_slab_calculate_geometry(64, 24, 1, &g), -EINVAL);
	assert_int_equal(shr_slab_calculate_geometry((4096UL << 10) + 1, 0, 1, &g), -EINVAL);
	assert_int_equal(shr_slab_calculate_geometry(4096UL << 10, 0, 1, &g), 0);
	assert_int_equal(g.order, 10);
	assert_int_equal(g.objects_per_slab, 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_520_bytes_with_4_cpus_is_order_2_with_31_objects),
		cmocka_unit_test(test_kmalloc_caches_with_2_cpus),
		cmocka_unit_test(test_size_classes_match_kernel),
		cmocka_unit_test(test_every_size_matches_rule_for_1_4_48_cpus),
		cmocka_unit_test(test_alignment_rounds_object_size),
		cmocka_unit_test(test_geometry_rejects_bad_input),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("slab_geometry", tests);
}
