/* SPDX-License-Identifier: MIT */
/*
 * Proves that the slab allocator hands out real, disjoint memory, keeps its
 * statistics consistent with what is allocated, gives every page back,
 * injects faults as asked, rejects misuse, and survives several threads.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/rcu.h>
#include <shrinker/slab.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

#define NR_NODES 3
#define NR_OWN_CACHES 4

/* One live allocation of the random test's model. */
struct live {
	unsigned char *p;
	size_t size;   /* bytes requested */
	int cache;     /* index in caches[], or -1 for kmalloc */
	int nid;
	unsigned char tag;
};

struct world {
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *caches[NR_OWN_CACHES];
	struct live *live;
	size_t nr_live;
};

static const size_t own_sizes[NR_OWN_CACHES] = { 24, 520, 1000, 3000 };
static const unsigned int own_flags[NR_OWN_CACHES] = {
	0, SHR_SLAB_RECLAIM_ACCOUNT, SHR_SLAB_HWCACHE_ALIGN, SHR_SLAB_RECLAIM_ACCOUNT,
};

static struct shr_slab_allocator *new_sa(int nodes, unsigned int cpus)
{
	struct shr_slab_params p = { .nr_nodes = nodes, .geometry_cpus = cpus };
	struct shr_slab_allocator *sa = NULL;

	assert_int_equal(shr_slab_allocator_create(&p, &sa), 0);
	return sa;
}

static unsigned int ilog2_sz(size_t x)
{
	unsigned int r = 0;

	while (x >>= 1)
		r++;
	return r;
}

struct stat_sum {
	struct world *w;
	unsigned long unreclaim, reclaim;
	unsigned long node_pages[NR_NODES];
};

static void sum_cache(struct shr_kmem_cache *c, void *arg)
{
	struct stat_sum *s = arg;
	struct shr_slab_geometry g;
	struct shr_kmem_cache_stats all, one;
	unsigned long in_use = 0;
	bool reclaim = false;

	shr_kmem_cache_geometry(c, &g);
	shr_kmem_cache_stats(c, -1, &all);
	for (int i = 0; i < NR_OWN_CACHES; i++)
		if (c == s->w->caches[i])
			reclaim = own_flags[i] & SHR_SLAB_RECLAIM_ACCOUNT;
	for (int nid = 0; nid < NR_NODES; nid++) {
		unsigned long model = 0;

		shr_kmem_cache_stats(c, nid, &one);
		for (size_t i = 0; i < s->w->nr_live; i++) {
			struct live *l = &s->w->live[i];
			struct shr_kmem_cache *lc = l->cache >= 0 ? s->w->caches[l->cache] :
					shr_kmalloc_cache_for(s->w->sa, l->size);

			if (lc == c && l->nid == nid)
				model++;
		}
		assert_int_equal(one.objects_in_use, model);
		assert_true(one.objects_in_use <= one.objects_total);
		assert_int_equal(one.objects_total, one.slabs * g.objects_per_slab);
		assert_int_equal(one.pages, one.slabs << g.order);
		assert_int_equal(one.bytes, one.pages * SHR_PAGE_SIZE);
		s->node_pages[nid] += one.pages;
		in_use += one.objects_in_use;
	}
	assert_int_equal(all.objects_in_use, in_use);
	if (reclaim)
		s->reclaim += all.bytes;
	else
		s->unreclaim += all.bytes;
}

static void check_stats(struct world *w)
{
	struct stat_sum s = { .w = w };
	struct shr_slab_totals t;
	unsigned long large = 0;

	shr_slab_for_each_cache(w->sa, sum_cache, &s);
	for (size_t i = 0; i < w->nr_live; i++) {
		struct live *l = &w->live[i];

		if (l->cache < 0 && l->size > SHR_KMALLOC_MAX_CACHE_SIZE) {
			size_t pages = 1;

			while (pages * SHR_PAGE_SIZE < l->size)
				pages *= 2;
			large += pages * SHR_PAGE_SIZE;
			s.node_pages[l->nid] += pages;
		}
	}
	shr_slab_totals(w->sa, &t);
	assert_int_equal(t.large_kmalloc_bytes, large);
	assert_int_equal(t.sunreclaim_bytes, s.unreclaim + large);
	assert_int_equal(shr_slab_unreclaimable_bytes(w->sa), t.sunreclaim_bytes);
	assert_int_equal(t.sreclaimable_bytes, s.reclaim);
	for (int nid = 0; nid < NR_NODES; nid++)
		assert_int_equal(t.node_pages[nid], s.node_pages[nid]);
}

static void fill(struct live *l)
{
	memset(l->p, l->tag, l->size);
}

static void verify(const struct live *l)
{
	for (size_t i = 0; i < l->size; i++)
		if (l->p[i] != l->tag)
			fail_msg("object %p byte %zu: %#x, want %#x (overlap?)", (void *)l->p, i,
				 l->p[i], l->tag);
}

static void free_live(struct world *w, size_t i)
{
	struct live *l = &w->live[i];

	verify(l);
	if (l->cache >= 0)
		shr_kmem_cache_free(w->caches[l->cache], l->p);
	else
		shr_kfree(w->sa, l->p);
	w->live[i] = w->live[--w->nr_live];
}

static void alloc_one(struct world *w, struct shr_rng *rng)
{
	struct live *l = &w->live[w->nr_live];
	uint64_t kind = shr_rng_below(rng, 10);

	l->nid = (int)shr_rng_below(rng, NR_NODES);
	l->tag = (unsigned char)(1 + shr_rng_below(rng, 255));
	if (kind < 5) {
		l->cache = (int)shr_rng_below(rng, NR_OWN_CACHES);
		l->size = own_sizes[l->cache];
		l->p = shr_kmem_cache_alloc_node(w->caches[l->cache], l->nid, SHR_GFP_KERNEL);
	} else {
		l->cache = -1;
		l->size = kind < 9 ? 1 + shr_rng_below(rng, 8192) : 8193 + shr_rng_below(rng, 70000);
		l->p = shr_kmalloc_node(w->sa, l->size, SHR_GFP_KERNEL, l->nid);
		assert_true(shr_ksize(w->sa, l->p) >= l->size);
	}
	assert_non_null(l->p);
	fill(l);
	w->nr_live++;
}

static void test_random_alloc_free_keeps_stats_and_returns_every_page(void **state)
{
	struct world w = { 0 };
	struct shr_rng rng;
	size_t max_live = 4000, rounds = shr_test_long() ? 400000 : 40000;
	struct shr_slab_totals t;

	(void)state;
	shr_rng_init(&rng, 1);
	w.sa = new_sa(NR_NODES, 4);
	w.live = calloc(max_live, sizeof(*w.live));
	assert_non_null(w.live);
	for (int i = 0; i < NR_OWN_CACHES; i++) {
		char name[32];

		snprintf(name, sizeof(name), "own-%zu", own_sizes[i]);
		assert_int_equal(shr_kmem_cache_create(w.sa, name, own_sizes[i], 0, own_flags[i],
						       &w.caches[i]), 0);
	}
	for (size_t r = 0; r < rounds; r++) {
		/* Phases of growth and shrinkage so slabs fill, empty and go. */
		bool grow = (r / 5000) % 2 == 0;
		uint64_t pick = shr_rng_below(&rng, 100);

		if (w.nr_live < max_live && (w.nr_live == 0 || pick < (grow ? 70u : 30u)))
			alloc_one(&w, &rng);
		else
			free_live(&w, (size_t)shr_rng_below(&rng, w.nr_live));
		if (r % 512 == 0)
			check_stats(&w);
	}
	check_stats(&w);
	while (w.nr_live)
		free_live(&w, w.nr_live - 1);
	check_stats(&w);
	for (int i = 0; i < NR_OWN_CACHES; i++) {
		struct shr_kmem_cache_stats st;
		struct shr_slab_geometry g;
		unsigned int minp;

		shr_kmem_cache_geometry(w.caches[i], &g);
		minp = ilog2_sz(g.object_size) / 2;

		/* Everything is free: only the kept empty slabs remain. */
		minp = minp < 5 ? 5 : minp > 10 ? 10 : minp;
		for (int nid = 0; nid < NR_NODES; nid++) {
			shr_kmem_cache_stats(w.caches[i], nid, &st);
			assert_true(st.slabs <= minp);
		}
		shr_kmem_cache_shrink(w.caches[i]);
		shr_kmem_cache_stats(w.caches[i], -1, &st);
		assert_int_equal(st.slabs, 0);
		assert_int_equal(st.bytes, 0);
		assert_int_equal(shr_kmem_cache_destroy(w.caches[i]), 0);
		w.caches[i] = NULL;
	}
	for (size_t s = 8; s <= 8192; s *= 2)
		shr_kmem_cache_shrink(shr_kmalloc_cache_for(w.sa, s));
	shr_kmem_cache_shrink(shr_kmalloc_cache_for(w.sa, 96));
	shr_kmem_cache_shrink(shr_kmalloc_cache_for(w.sa, 192));
	shr_slab_totals(w.sa, &t);
	assert_int_equal(t.sunreclaim_bytes, 0);
	assert_int_equal(t.sreclaimable_bytes, 0);
	assert_int_equal(t.large_kmalloc_bytes, 0);
	for (int nid = 0; nid < NR_NODES; nid++)
		assert_int_equal(t.node_pages[nid], 0);
	free(w.live);
	shr_slab_allocator_destroy(w.sa);
}

/* Resident pages of the 64 MiB chunk holding @p (mincore). */
static size_t resident_pages_of_chunk(const void *p)
{
	const size_t chunk = 64UL << 20;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = chunk / page, resident = 0;
	unsigned char *vec = malloc(n);
	void *base = (void *)((uintptr_t)p & ~(uintptr_t)(chunk - 1));

	assert_non_null(vec);
	assert_int_equal(mincore(base, chunk, vec), 0);
	for (size_t i = 0; i < n; i++)
		resident += vec[i] & 1;
	free(vec);
	return resident;
}

/* prefault maps a whole chunk when it is added; without it, pages are
 * mapped as they are first touched. */
static void test_prefault_maps_the_whole_chunk(void **state)
{
	for (int prefault = 0; prefault <= 1; prefault++) {
		struct shr_slab_params sp = { .nr_nodes = 1, .geometry_cpus = 4,
					      .prefault = prefault };
		struct shr_slab_allocator *sa;
		size_t chunk_pages = (64UL << 20) / (size_t)sysconf(_SC_PAGESIZE);
		void *p;

		(void)state;
		assert_int_equal(shr_slab_allocator_create(&sp, &sa), 0);
		p = shr_kmalloc(sa, 64, SHR_GFP_KERNEL);
		assert_non_null(p);
		if (prefault)
			assert_int_equal(resident_pages_of_chunk(p), chunk_pages);
		else
			assert_true(resident_pages_of_chunk(p) < chunk_pages / 2);
		shr_kfree(sa, p);
		shr_slab_allocator_destroy(sa);
	}
}

static void test_empty_slabs_kept_up_to_min_partial(void **state)
{
	struct shr_slab_allocator *sa = new_sa(1, 1);
	struct shr_kmem_cache *c;
	struct shr_kmem_cache_stats st;
	struct shr_slab_geometry g;
	void **objs;
	size_t n;

	(void)state;
	/*
	 * 2048-byte objects: min_partial = clamp(11 / 2, 5, 10) = 5. Freed in
	 * order, each slab is already partial when it empties, so (as in SLUB)
	 * it counts itself: the 5th empty one is released, 4 stay.
	 */
	assert_int_equal(shr_kmem_cache_create(sa, "mp", 2048, 0, 0, &c), 0);
	shr_kmem_cache_geometry(c, &g);
	n = (size_t)g.objects_per_slab * 20;
	objs = calloc(n, sizeof(*objs));
	assert_non_null(objs);
	for (size_t i = 0; i < n; i++)
		assert_non_null(objs[i] = shr_kmem_cache_alloc_node(c, 0, 0));
	shr_kmem_cache_stats(c, 0, &st);
	assert_int_equal(st.slabs, 20);
	for (size_t i = 0; i < n; i++)
		shr_kmem_cache_free(c, objs[i]);
	shr_kmem_cache_stats(c, 0, &st);
	assert_int_equal(st.slabs, 4);
	assert_int_equal(st.objects_in_use, 0);
	assert_int_equal(shr_kmem_cache_shrink(c), 4);
	shr_kmem_cache_stats(c, 0, &st);
	assert_int_equal(st.slabs, 0);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	free(objs);
	shr_slab_allocator_destroy(sa);
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

static void test_objects_are_disjoint_aligned_usable_memory(void **state)
{
	struct shr_slab_allocator *sa = new_sa(2, 4);
	struct shr_kmem_cache *c;
	enum { N = 5000 };
	void **objs = calloc(N, sizeof(void *));

	(void)state;
	assert_non_null(objs);
	assert_int_equal(shr_kmem_cache_create(sa, "hw100", 100, 0, SHR_SLAB_HWCACHE_ALIGN, &c), 0);
	for (int i = 0; i < N; i++) {
		objs[i] = shr_kmem_cache_alloc_node(c, i % 2, 0);
		assert_non_null(objs[i]);
		assert_int_equal((uintptr_t)objs[i] % 64, 0);
		assert_int_equal(shr_ksize(sa, objs[i]), 128);
		memset(objs[i], i & 0xff, 128);
	}
	for (int i = 0; i < N; i++)
		for (int b = 0; b < 128; b++)
			assert_int_equal(((unsigned char *)objs[i])[b], i & 0xff);
	qsort(objs, N, sizeof(void *), cmp_ptr);
	for (int i = 1; i < N; i++)
		assert_true((uintptr_t)objs[i] >= (uintptr_t)objs[i - 1] + 128);
	for (int i = 0; i < N; i++)
		shr_kmem_cache_free(c, objs[i]);
	shr_kmem_cache_shrink(c);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	free(objs);
	shr_slab_allocator_destroy(sa);
}

static bool all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static void test_gfp_zero_and_ksize(void **state)
{
	struct shr_slab_allocator *sa = new_sa(1, 2);
	static const size_t sizes[] = { 1, 9, 100, 200, 1000, 5000, 8192, 8193, 20000, 100000 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], ks;
		unsigned char *p = shr_kmalloc(sa, n, 0);

		assert_non_null(p);
		ks = shr_ksize(sa, p);
		assert_true(ks >= n);
		memset(p, 0xa5, ks);
		shr_kfree(sa, p);
		p = shr_kmalloc(sa, n, SHR_GFP_ZERO);
		assert_non_null(p);
		assert_true(all_zero(p, shr_ksize(sa, p)));
		memset(p, 0x5a, n);
		shr_kfree(sa, p);
		p = shr_kzalloc_node(sa, n, 0, SHR_NUMA_NO_NODE);
		assert_non_null(p);
		assert_true(all_zero(p, n));
		shr_kfree(sa, p);
	}
	assert_int_equal(shr_ksize(sa, NULL), 0);
	{
		unsigned char *p = shr_kmalloc(sa, 8193, 0);

		assert_int_equal(shr_ksize(sa, p), 12288 + 4096);
		shr_kfree(sa, p);
	}
	shr_kfree(sa, NULL);
	shr_slab_allocator_destroy(sa);
}

static void test_kvmalloc_falls_back_to_vmalloc(void **state)
{
	struct shr_slab_allocator *sa = new_sa(1, 2);
	size_t big = (4096UL << 10) + 1;
	struct shr_slab_totals t;
	unsigned char *p, *q;

	(void)state;
	p = shr_kvmalloc_node(sa, big, SHR_GFP_KERNEL, 0);
	assert_non_null(p);
	assert_true(all_zero(p, big));
	memset(p, 1, big);
	shr_slab_totals(sa, &t);
	assert_int_equal(t.vmalloc_bytes, (4096UL << 10) + 4096);
	assert_int_equal(t.sunreclaim_bytes, 0);
	assert_int_equal(shr_ksize(sa, p), (4096UL << 10) + 4096);
	q = shr_kvmalloc_node(sa, 4096UL << 10, SHR_GFP_KERNEL, 0);
	assert_non_null(q);
	shr_slab_totals(sa, &t);
	assert_int_equal(t.large_kmalloc_bytes, 4096UL << 10);
	shr_kvfree(sa, p);
	shr_kvfree(sa, q);
	shr_kvfree(sa, NULL);
	shr_slab_totals(sa, &t);
	assert_int_equal(t.vmalloc_bytes, 0);
	assert_int_equal(t.large_kmalloc_bytes, 0);
	assert_int_equal(t.node_pages[0], 0);
	/* An injected kmalloc failure still falls back, as in the kernel. */
	assert_int_equal(shr_slab_fail_site(sa, "large"), 0);
	p = shr_kvmalloc_node(sa, 100000, SHR_GFP_KERNEL, 0);
	assert_non_null(p);
	shr_slab_totals(sa, &t);
	assert_int_equal(t.vmalloc_bytes, 102400);
	shr_kvfree(sa, p);
	assert_int_equal(shr_slab_fail_site(sa, "vmalloc"), 0);
	assert_null(shr_kvmalloc_node(sa, big, 0, 0));
	shr_slab_fault_clear(sa);
	shr_slab_allocator_destroy(sa);
}

static void snapshot(struct shr_slab_allocator *sa, struct shr_kmem_cache *c,
		     struct shr_kmem_cache_stats *cs, struct shr_slab_totals *t)
{
	shr_kmem_cache_stats(c, -1, cs);
	shr_slab_totals(sa, t);
}

static void assert_unchanged(struct shr_slab_allocator *sa, struct shr_kmem_cache *c,
			     const struct shr_kmem_cache_stats *cs0, const struct shr_slab_totals *t0)
{
	struct shr_kmem_cache_stats cs;
	struct shr_slab_totals t;

	snapshot(sa, c, &cs, &t);
	assert_memory_equal(&cs, cs0, sizeof(cs));
	assert_memory_equal(&t, t0, sizeof(t));
}

static void test_fault_injection_nth_persist_site_nowait(void **state)
{
	struct shr_slab_allocator *sa = new_sa(1, 2);
	struct shr_kmem_cache *c;
	struct shr_kmem_cache_stats cs0;
	struct shr_slab_totals t0;
	void *a, *b;
	unsigned long allocs;

	(void)state;
	assert_int_equal(shr_kmem_cache_create(sa, "victim", 40, 0, 0, &c), 0);
	a = shr_kmem_cache_alloc_node(c, 0, 0);
	assert_non_null(a);
	snapshot(sa, c, &cs0, &t0);
	assert_int_equal(shr_slab_faults_injected(sa), 0);
	allocs = shr_slab_allocations(sa);

	/* nth: only the 3rd allocation from now fails. */
	shr_slab_fail_nth(sa, 3, false);
	b = shr_kmem_cache_alloc_node(c, 0, 0);
	assert_non_null(b);
	shr_kmem_cache_free(c, b);
	b = shr_kmalloc(sa, 64, 0);
	assert_non_null(b);
	shr_kfree(sa, b);
	snapshot(sa, c, &cs0, &t0);
	assert_null(shr_kmem_cache_alloc_node(c, 0, 0));
	assert_unchanged(sa, c, &cs0, &t0);
	b = shr_kmem_cache_alloc_node(c, 0, 0);
	assert_non_null(b);
	shr_kmem_cache_free(c, b);
	assert_int_equal(shr_slab_faults_injected(sa), 1);
	assert_int_equal(shr_slab_allocations(sa), allocs + 4);

	/* persistent: the 2nd and every later one fails, of every kind. */
	shr_slab_fail_nth(sa, 2, true);
	b = shr_kmalloc(sa, 10, 0);
	assert_non_null(b);
	shr_kfree(sa, b);
	shr_kmem_cache_shrink(shr_kmalloc_cache_for(sa, 10));
	snapshot(sa, c, &cs0, &t0);
	assert_null(shr_kmem_cache_alloc_node(c, 0, 0));
	assert_null(shr_kmalloc(sa, 100, 0));
	assert_null(shr_kmalloc(sa, 100000, 0));
	assert_null(shr_kvmalloc_node(sa, 10UL << 20, 0, 0));
	assert_unchanged(sa, c, &cs0, &t0);
	assert_int_equal(shr_slab_faults_injected(sa), 5);
	shr_slab_fault_clear(sa);
	b = shr_kmem_cache_alloc_node(c, 0, 0);
	assert_non_null(b);
	shr_kmem_cache_free(c, b);

	/* site: only that cache (or "large") fails. */
	assert_int_equal(shr_slab_fail_site(sa, "kmalloc-1k"), 0);
	assert_null(shr_kmalloc(sa, 1000, 0));
	b = shr_kmalloc(sa, 2000, 0);
	assert_non_null(b);
	shr_kfree(sa, b);
	assert_int_equal(shr_slab_fail_site(sa, "victim"), 0);
	assert_null(shr_kmem_cache_alloc_node(c, 0, 0));
	assert_int_equal(shr_slab_fail_site(sa, "large"), 0);
	assert_null(shr_kmalloc(sa, 9000, 0));
	b = shr_kmalloc(sa, 8000, 0);
	assert_non_null(b);
	shr_kfree(sa, b);
	assert_int_equal(shr_slab_faults_injected(sa), 8);
	assert_int_equal(shr_slab_fail_site(sa, NULL), -EINVAL);
	{
		char longname[200];

		memset(longname, 'x', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		assert_int_equal(shr_slab_fail_site(sa, longname), -EINVAL);
	}

	/* nowait: only SHR_GFP_NOWAIT allocations fail. */
	shr_slab_fail_nowait(sa);
	assert_null(shr_kmem_cache_alloc_node(c, 0, SHR_GFP_NOWAIT));
	assert_null(shr_kvmalloc_node(sa, 100000, SHR_GFP_NOWAIT, 0));
	b = shr_kmem_cache_alloc_node(c, 0, SHR_GFP_KERNEL);
	assert_non_null(b);
	shr_kmem_cache_free(c, b);
	assert_int_equal(shr_slab_faults_injected(sa), 10);
	shr_slab_fault_clear(sa);

	shr_kmem_cache_free(c, a);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	shr_slab_allocator_destroy(sa);
}

static void test_misuse_is_rejected(void **state)
{
	struct shr_slab_params bad[] = {
		{ .nr_nodes = 0, .geometry_cpus = 1 },
		{ .nr_nodes = SHR_MAX_NUMNODES + 1, .geometry_cpus = 1 },
		{ .nr_nodes = -1, .geometry_cpus = 1 },
	};
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *c = NULL;
	void *obj;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(shr_slab_allocator_create(&bad[i], &sa), -EINVAL);
	assert_int_equal(shr_slab_allocator_create(NULL, &sa), -EINVAL);
	sa = new_sa(2, 0);
	assert_true(shr_slab_geometry_cpus(sa) >= 1);
	assert_int_equal(shr_slab_nr_nodes(sa), 2);
	assert_int_equal(shr_kmem_cache_create(sa, NULL, 64, 0, 0, &c), -EINVAL);
	assert_int_equal(shr_kmem_cache_create(sa, "z", 0, 0, 0, &c), -EINVAL);
	assert_int_equal(shr_kmem_cache_create(sa, "big", 32769, 0, 0, &c), -EINVAL);
	assert_int_equal(shr_kmem_cache_create(sa, "al", 64, 3, 0, &c), -EINVAL);
	assert_int_equal(shr_kmem_cache_create(sa, "fl", 64, 0, 1u << 7, &c), -EINVAL);
	assert_int_equal(shr_kmem_cache_create(sa, "ok", 32768, 0, 0, &c), 0);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	assert_int_equal(shr_kmem_cache_create(sa, "busy", 64, 0, 0, &c), 0);
	obj = shr_kmem_cache_alloc_node(c, 1, 0);
	assert_non_null(obj);
	assert_null(shr_kmem_cache_alloc_node(c, 2, 0));
	assert_null(shr_kmem_cache_alloc_node(c, -2, 0));
	assert_null(shr_kmalloc(sa, 0, 0));
	assert_null(shr_kmalloc(sa, (4096UL << 10) + 1, 0));
	assert_int_equal(shr_kmem_cache_destroy(c), -EBUSY);
	assert_int_equal(shr_kmem_cache_destroy(shr_kmalloc_cache_for(sa, 64)), -EINVAL);
	shr_kmem_cache_free(c, obj);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	shr_slab_allocator_destroy(sa);
}

/* Run @fn in a child; true if it died (signal or ASan's non-zero exit). */
static bool child_dies(void (*fn)(struct shr_slab_allocator *sa), int *sig)
{
	struct shr_slab_allocator *sa = new_sa(1, 2);
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull_ok = freopen("/dev/null", "w", stderr) != NULL;

		(void)devnull_ok;
		fn(sa);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	shr_slab_allocator_destroy(sa);
	*sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	return WIFSIGNALED(status) || WEXITSTATUS(status) != 0;
}

#ifdef TEST_ASAN
static void expect_death(void (*fn)(struct shr_slab_allocator *sa))
{
	int sig;

	assert_true(child_dies(fn, &sig));
}
#endif

/* Run @fn in a child and check that it aborts (SIGABRT). */
static void expect_abort(void (*fn)(struct shr_slab_allocator *sa))
{
	int sig;

	assert_true(child_dies(fn, &sig));
	assert_int_equal(sig, SIGABRT);
}

static void free_stack_pointer(struct shr_slab_allocator *sa)
{
	int x = 0;

	shr_kfree(sa, &x);
}

static void free_interior_pointer(struct shr_slab_allocator *sa)
{
	char *p = shr_kmalloc(sa, 64, 0);

	shr_kfree(sa, p + 8);
}

static void free_into_wrong_cache(struct shr_slab_allocator *sa)
{
	struct shr_kmem_cache *a, *b;
	void *p;

	if (shr_kmem_cache_create(sa, "a", 64, 0, 0, &a) || shr_kmem_cache_create(sa, "b", 64, 0, 0, &b))
		_exit(1);
	p = shr_kmem_cache_alloc_node(a, 0, 0);
	shr_kmem_cache_free(b, p);
}

static void free_unallocated_page(struct shr_slab_allocator *sa)
{
	char *p = shr_kmalloc(sa, 64, 0);

	/* Far enough to land on a page of the chunk that is not allocated. */
	shr_kfree(sa, p + (1UL << 22) + 4096 * 7);
}

static void double_free(struct shr_slab_allocator *sa)
{
	struct shr_kmem_cache *c;
	void *p;

	if (shr_kmem_cache_create(sa, "df", 64, 0, 0, &c))
		_exit(1);
	p = shr_kmem_cache_alloc_node(c, 0, 0);
	shr_kmem_cache_free(c, p);
	shr_kmem_cache_free(c, p);
}

static void test_foreign_pointers_abort(void **state)
{
	(void)state;
	expect_abort(double_free);
	expect_abort(free_stack_pointer);
	expect_abort(free_interior_pointer);
	expect_abort(free_into_wrong_cache);
	expect_abort(free_unallocated_page);
}

#ifdef TEST_ASAN
static void use_after_free(struct shr_slab_allocator *sa)
{
	struct shr_kmem_cache *c;
	volatile unsigned char *p;

	if (shr_kmem_cache_create(sa, "uaf", 520, 0, 0, &c))
		_exit(1);
	p = shr_kmem_cache_alloc_node(c, 0, 0);
	p[0] = 1;
	shr_kmem_cache_free(c, (void *)(uintptr_t)p);
	/* Byte 100: past the in-object free pointer. */
	p[100] = 2;
	_exit(0);
}

static void use_after_kfree_large(struct shr_slab_allocator *sa)
{
	volatile unsigned char *p = shr_kmalloc(sa, 20000, 0);

	shr_kfree(sa, (void *)(uintptr_t)p);
	p[5000] = 1;
	_exit(0);
}

/* Only in the ASan build: without ASan a use-after-free goes unnoticed. */
static void test_asan_catches_use_after_free(void **state)
{
	(void)state;
	expect_death(use_after_free);
	expect_death(use_after_kfree_large);
}
#endif

struct thread_arg {
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *c;
	int id;
	int ops;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct shr_rng rng;
	enum { SLOTS = 512 };
	unsigned char *objs[SLOTS] = { 0 };
	unsigned char tags[SLOTS];

	shr_thread_register();
	shr_rng_init(&rng, 100 + (uint64_t)a->id);
	for (int i = 0; i < a->ops; i++) {
		unsigned int s = (unsigned int)shr_rng_below(&rng, SLOTS);

		if (objs[s]) {
			for (int b = 0; b < 64; b++)
				if (objs[s][b] != tags[s])
					fail_msg("thread %d: object corrupted", a->id);
			if (s & 1)
				shr_kfree(a->sa, objs[s]);
			else
				shr_kmem_cache_free(a->c, objs[s]);
			objs[s] = NULL;
		} else {
			objs[s] = (s & 1) ? shr_kmalloc_node(a->sa, 64 + s, 0, s % 2)
					  : shr_kmem_cache_alloc_node(a->c, (s / 2) % 2, 0);
			if (!objs[s])
				fail_msg("thread %d: allocation failed", a->id);
			tags[s] = (unsigned char)(a->id * 31 + i);
			memset(objs[s], tags[s], 64);
		}
	}
	for (int s = 0; s < SLOTS; s++) {
		if (!objs[s])
			continue;
		if (s & 1)
			shr_kfree(a->sa, objs[s]);
		else
			shr_kmem_cache_free(a->c, objs[s]);
	}
	shr_thread_unregister();
	return NULL;
}

static void test_threads_alloc_and_free_concurrently(void **state)
{
	enum { NT = 4 };
	struct shr_slab_allocator *sa = new_sa(2, 4);
	struct thread_arg args[NT];
	pthread_t th[NT];
	struct shr_kmem_cache *c;
	struct shr_kmem_cache_stats st;
	struct shr_slab_totals t;

	(void)state;
	assert_int_equal(shr_kmem_cache_create(sa, "shared", 64, 0, 0, &c), 0);
	for (int i = 0; i < NT; i++) {
		args[i] = (struct thread_arg){ sa, c, i, shr_test_long() ? 2000000 : 200000 };
		assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
	}
	for (int i = 0; i < NT; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	shr_kmem_cache_stats(c, -1, &st);
	assert_int_equal(st.objects_in_use, 0);
	shr_kmem_cache_shrink(c);
	for (size_t s = 64; s <= 1024; s *= 2)
		shr_kmem_cache_shrink(shr_kmalloc_cache_for(sa, s));
	shr_kmem_cache_shrink(shr_kmalloc_cache_for(sa, 96));
	shr_kmem_cache_shrink(shr_kmalloc_cache_for(sa, 192));
	shr_slab_totals(sa, &t);
	assert_int_equal(t.sunreclaim_bytes, 0);
	assert_int_equal(t.node_pages[0] + t.node_pages[1], 0);
	assert_int_equal(shr_kmem_cache_destroy(c), 0);
	shr_slab_allocator_destroy(sa);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_alloc_free_keeps_stats_and_returns_every_page),
		cmocka_unit_test(test_empty_slabs_kept_up_to_min_partial),
		cmocka_unit_test(test_objects_are_disjoint_aligned_usable_memory),
		cmocka_unit_test(test_gfp_zero_and_ksize),
		cmocka_unit_test(test_kvmalloc_falls_back_to_vmalloc),
		cmocka_unit_test(test_fault_injection_nth_persist_site_nowait),
		cmocka_unit_test(test_prefault_maps_the_whole_chunk),
		cmocka_unit_test(test_misuse_is_rejected),
		cmocka_unit_test(test_foreign_pointers_abort),
#ifdef TEST_ASAN
		cmocka_unit_test(test_asan_catches_use_after_free),
#endif
		cmocka_unit_test(test_threads_alloc_and_free_concurrently),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("slab_alloc", tests);
}
