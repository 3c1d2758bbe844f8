/* SPDX-License-Identifier: MIT */
/*
 * Slab allocator: SLUB's geometry and partial-list policy over the buddy
 * page allocator of page_alloc.c.
 *
 * Objects. A cache's slot size is its object size rounded up to the
 * alignment (at least 8, 64 with SHR_SLAB_HWCACHE_ALIGN). A slab is one
 * 2^order block of pages; its head page's metadata (struct shr_page) holds
 * the owning cache, the freelist and the count of objects in use. The free
 * pointer of a free object is stored in its first 8 bytes, as in SLUB. Tail
 * pages of a slab point back to the head (head_delta), so any object pointer
 * maps to its slab in O(1): pointer -> chunk -> page -> head.
 *
 * Per cache and node (struct kmem_cache_node), under its lock:
 *   - partial: slabs with at least one free object (empty ones included),
 *     nr_partial counts them; full slabs are on no list;
 *   - a slab becomes empty on free; if the node then has >= min_partial
 *     partial slabs (the kernel's test, counting the slab itself if it was
 *     already partial) its pages go back at once, else it stays partial;
 *   - counts: number of slabs and objects in use packed into one 64-bit
 *     atomic, written under the lock and read without it, so a reader gets
 *     a consistent (slabs, in-use) pair with one load.
 *
 * Locking order: sa->caches_lock -> cache node lock -> page allocator node
 * lock -> page allocator chunk lock. sa->fault_lock and sa->vm_lock are
 * leaves. Nothing calls back into the caller with a lock held.
 *
 * Totals (SUnreclaim, SReclaimable, large kmalloc, vmalloc) are atomics
 * updated when pages are taken or given back, not per object.
 *
 * Fault injection. The fast path reads one atomic (fault_mode); only when a
 * rule is armed does it take fault_lock to evaluate it. Every allocation
 * attempt (after parameter checks) bumps the allocation counter.
 *
 * Under ASan, free objects, waste and free pages are poisoned; the free
 * pointer is unpoisoned only while it is read or written under the lock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <shrinker/slab.h>

#include "lock.h"
#include "page_alloc.h"

#define SLAB_NAME_MAX 64
#define NR_KMALLOC_CACHES 13
#define SLAB_MIN_ALIGN 8u
#define SLAB_HWCACHE_BYTES 64u
#define SLAB_ALL_FLAGS (SHR_SLAB_RECLAIM_ACCOUNT | SHR_SLAB_HWCACHE_ALIGN)
#define KMALLOC_MAX_SIZE (SHR_PAGE_SIZE << SHR_MAX_PAGE_ORDER)

/* Packed per-node counts: slabs in the low bits, objects in use above. */
#define COUNT_SLAB_BITS 24
#define COUNT_SLAB_MASK ((UINT64_C(1) << COUNT_SLAB_BITS) - 1)

enum fault_mode {
	FAULT_NONE = 0, /* nothing armed */
	FAULT_NTH,      /* fail allocation number fault_target (and later if persist) */
	FAULT_SITE,     /* fail every allocation at fault_site */
	FAULT_NOWAIT,   /* fail every SHR_GFP_NOWAIT allocation */
};

/**
 * struct kmem_cache_node - a cache's slabs on one node.
 * @lock:       protects the fields below except @counts' readers.
 * @partial:    partial and empty slabs, most recently refilled last.
 *              Sync: @lock.
 * @nr_partial: slabs on @partial. Sync: @lock.
 * @counts:     slabs | in-use << COUNT_SLAB_BITS. Sync: atomic, written
 *              under @lock.
 */
struct kmem_cache_node {
	struct shr_mutex lock; /* SHR_LOCK_SLAB_NODE */
	struct cds_list_head partial;
	unsigned long nr_partial;
	_Atomic uint64_t counts;
} __attribute__((aligned(64)));

/**
 * struct shr_kmem_cache - one object cache.
 * @sa:          owner. Sync: immutable after init.
 * @name:        Sync: immutable after init.
 * @size:        requested object size. Sync: immutable after init.
 * @geo:         slot size, order, objects per slab. Sync: immutable.
 * @min_partial: Sync: immutable after init.
 * @flags:       SHR_SLAB_*. Sync: immutable after init.
 * @is_kmalloc:  one of the kmalloc caches. Sync: immutable after init.
 * @list:        in sa->caches. Sync: sa->caches_lock.
 * @node:        per node state.
 */
struct shr_kmem_cache {
	struct shr_slab_allocator *sa;
	char name[SLAB_NAME_MAX];
	size_t size;
	struct shr_slab_geometry geo;
	unsigned int min_partial;
	unsigned int flags;
	bool is_kmalloc;
	struct cds_list_head list;
	struct kmem_cache_node node[];
};

/* One kvmalloc fallback mapping. Sync: sa->vm_lock. */
struct vm_area {
	struct vm_area *next;
	void *addr;
	size_t size;
};

/**
 * struct shr_slab_allocator - one "machine".
 * @pa:             page allocator. Sync: immutable after init.
 * @nr_nodes, @geometry_cpus: Sync: immutable after init.
 * @kmalloc:        kmalloc caches by class index. Sync: immutable after init.
 * @caches_lock:    protects @caches.
 * @caches:         every cache, kmalloc ones first. Sync: @caches_lock.
 * @sunreclaim, @sreclaimable, @large_bytes, @vmalloc_bytes: byte totals.
 *                  Sync: atomic.
 * @nr_allocs:      allocation attempts. Sync: atomic.
 * @nr_faults:      injected failures. Sync: atomic.
 * @fault_mode:     enum fault_mode. Sync: atomic; written under @fault_lock.
 * @fault_lock:     protects the rule below.
 * @fault_target, @fault_persist, @fault_site: the armed rule.
 *                  Sync: @fault_lock.
 * @vm_lock:        protects @vm_areas.
 * @vm_areas:       kvmalloc fallback mappings. Sync: @vm_lock.
 */
struct shr_slab_allocator {
	struct shr_page_alloc *pa;
	int nr_nodes;
	unsigned int geometry_cpus;
	struct shr_kmem_cache *kmalloc[NR_KMALLOC_CACHES];
	struct shr_mutex caches_lock; /* SHR_LOCK_SLAB_CACHES */
	struct cds_list_head caches;
	atomic_ulong sunreclaim;
	atomic_ulong sreclaimable;
	atomic_ulong large_bytes;
	atomic_ulong vmalloc_bytes;
	atomic_ulong nr_allocs;
	atomic_ulong nr_faults;
	atomic_int fault_mode;
	struct shr_mutex fault_lock; /* SHR_LOCK_SLAB_FAULT, a leaf */
	unsigned long fault_target;
	bool fault_persist;
	char fault_site[SLAB_NAME_MAX];
	struct shr_mutex vm_lock; /* SHR_LOCK_SLAB_VM, a leaf */
	struct vm_area *vm_areas;
};

static const unsigned int kmalloc_sizes[NR_KMALLOC_CACHES] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};

static const char *const kmalloc_names[NR_KMALLOC_CACHES] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96",
	"kmalloc-128", "kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1k",
	"kmalloc-2k", "kmalloc-4k", "kmalloc-8k",
};

/* Class index for sizes 1..192, by (size - 1) / 8. */
static const unsigned char small_class[24] = {
	0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6,
};

static _Noreturn void slab_bug(const char *fn, const void *ptr, const char *why)
{
	fprintf(stderr, "libshrinker: %s(%p): %s\n", fn, ptr, why);
	fflush(stderr);
	abort();
}

/* ---------------------------------------------------------------- geometry */

static unsigned int fls_uint(unsigned long x)
{
	return x ? (unsigned int)(sizeof(long) * 8 - (unsigned int)__builtin_clzl(x)) : 0;
}

static unsigned int get_order(size_t bytes)
{
	unsigned int order = 0;

	while ((SHR_PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

static size_t order_objects(unsigned int order, size_t size)
{
	return (SHR_PAGE_SIZE << order) / size;
}

/* Smallest order in [min_order, max_order] with leftover <= slab / fract. */
static unsigned int slab_order(size_t size, unsigned int min_order, unsigned int max_order,
			       unsigned int fract)
{
	unsigned int order;

	for (order = min_order; order <= max_order; order++) {
		size_t slab_bytes = SHR_PAGE_SIZE << order;

		if (slab_bytes % size <= slab_bytes / fract)
			break;
	}
	return order;
}

static unsigned int calculate_order(size_t size, unsigned int cpus)
{
	size_t min_objects = 4 * (fls_uint(cpus) + 1);
	size_t max_objects = order_objects(SHR_SLAB_MAX_ORDER, size);
	unsigned int min_order;

	if (max_objects < 1)
		max_objects = 1;
	if (min_objects > max_objects)
		min_objects = max_objects;
	min_order = get_order(min_objects * size);
	for (unsigned int fract = 16; fract > 1; fract /= 2) {
		unsigned int order = slab_order(size, min_order, SHR_SLAB_MAX_ORDER, fract);

		if (order <= SHR_SLAB_MAX_ORDER)
			return order;
	}
	return get_order(size);
}

static bool is_pow2(size_t x)
{
	return x && !(x & (x - 1));
}

int shr_slab_calculate_geometry(size_t size, size_t align, unsigned int geometry_cpus,
				struct shr_slab_geometry *out)
{
	size_t slot;
	unsigned int order;

	if (!out || size < 1 || size > KMALLOC_MAX_SIZE || geometry_cpus < 1)
		return -EINVAL;
	if (align && (!is_pow2(align) || align > SHR_PAGE_SIZE))
		return -EINVAL;
	if (align < SLAB_MIN_ALIGN)
		align = SLAB_MIN_ALIGN;
	slot = (size + align - 1) & ~(align - 1);
	if (slot > KMALLOC_MAX_SIZE)
		return -EINVAL;
	order = calculate_order(slot, geometry_cpus);
	if (order > SHR_MAX_PAGE_ORDER)
		return -EINVAL;
	out->object_size = (unsigned int)slot;
	out->order = order;
	out->objects_per_slab = (unsigned int)order_objects(order, slot);
	out->waste_bytes = (unsigned int)((SHR_PAGE_SIZE << order) -
					  (size_t)out->objects_per_slab * slot);
	return 0;
}

/* ------------------------------------------------------- fault injection */

/* Counts one allocation at @site; true if it must fail. */
static bool fault_should_fail(struct shr_slab_allocator *sa, const char *site, shr_gfp_t gfp)
{
	unsigned long n = atomic_fetch_add_explicit(&sa->nr_allocs, 1, memory_order_relaxed) + 1;
	bool fail = false;

	if (atomic_load_explicit(&sa->fault_mode, memory_order_relaxed) == FAULT_NONE)
		return false;
	shr_mutex_lock(&sa->fault_lock);
	switch (atomic_load_explicit(&sa->fault_mode, memory_order_relaxed)) {
	case FAULT_NTH:
		fail = n == sa->fault_target || (sa->fault_persist && n > sa->fault_target);
		break;
	case FAULT_SITE:
		fail = !strcmp(site, sa->fault_site);
		break;
	case FAULT_NOWAIT:
		fail = (gfp & SHR_GFP_NOWAIT) != 0;
		break;
	default:
		break;
	}
	shr_mutex_unlock(&sa->fault_lock);
	if (fail)
		atomic_fetch_add_explicit(&sa->nr_faults, 1, memory_order_relaxed);
	return fail;
}

static void fault_arm(struct shr_slab_allocator *sa, enum fault_mode mode,
		      unsigned long target, bool persist, const char *site)
{
	shr_mutex_lock(&sa->fault_lock);
	sa->fault_target = target;
	sa->fault_persist = persist;
	if (site)
		snprintf(sa->fault_site, sizeof(sa->fault_site), "%s", site);
	atomic_store_explicit(&sa->fault_mode, mode, memory_order_relaxed);
	shr_mutex_unlock(&sa->fault_lock);
}

void shr_slab_fail_nth(struct shr_slab_allocator *sa, unsigned long nth, bool persist)
{
	unsigned long now = atomic_load_explicit(&sa->nr_allocs, memory_order_relaxed);

	if (nth == 0)
		nth = 1;
	fault_arm(sa, FAULT_NTH, now + nth, persist, NULL);
}

int shr_slab_fail_site(struct shr_slab_allocator *sa, const char *site)
{
	if (!site || strlen(site) >= SLAB_NAME_MAX)
		return -EINVAL;
	fault_arm(sa, FAULT_SITE, 0, false, site);
	return 0;
}

void shr_slab_fail_nowait(struct shr_slab_allocator *sa)
{
	fault_arm(sa, FAULT_NOWAIT, 0, false, NULL);
}

void shr_slab_fault_clear(struct shr_slab_allocator *sa)
{
	fault_arm(sa, FAULT_NONE, 0, false, NULL);
}

unsigned long shr_slab_faults_injected(struct shr_slab_allocator *sa)
{
	return atomic_load_explicit(&sa->nr_faults, memory_order_relaxed);
}

unsigned long shr_slab_allocations(struct shr_slab_allocator *sa)
{
	return atomic_load_explicit(&sa->nr_allocs, memory_order_relaxed);
}

/* ------------------------------------------------------------ slab pages */

static atomic_ulong *cache_total(struct shr_kmem_cache *cache)
{
	return (cache->flags & SHR_SLAB_RECLAIM_ACCOUNT) ? &cache->sa->sreclaimable
							 : &cache->sa->sunreclaim;
}

static inline void *read_free_pointer(void *obj)
{
	void *next;

	shr_mem_unpoison(obj, sizeof(void *));
	memcpy(&next, obj, sizeof(next));
	return next;
}

/* Store the free pointer and poison the whole (now free) slot. */
static inline void write_free_pointer(void *obj, void *next, size_t slot)
{
	shr_mem_unpoison(obj, sizeof(void *));
	memcpy(obj, &next, sizeof(next));
	shr_mem_poison(obj, slot);
}

/* Caller holds the node lock. Returns the new slab's head page or NULL. */
static struct shr_page *new_slab(struct shr_kmem_cache *cache, int nid)
{
	unsigned int order = cache->geo.order;
	size_t slot = cache->geo.object_size;
	unsigned int nr = cache->geo.objects_per_slab;
	struct shr_page *page;
	char *base;

	shr_lock_assert_held(&cache->node[nid].lock);
	page = shr_alloc_pages_node(cache->sa->pa, nid, order, false);
	if (!page)
		return NULL;
	base = shr_page_address(page);
	for (uint32_t i = 1; i < (1u << order); i++) {
		page[i].kind = SHR_PAGE_SLAB_TAIL;
		page[i].head_delta = i;
	}
	page->kind = SHR_PAGE_SLAB;
	page->owner = cache;
	page->inuse = 0;
	page->on_partial = 0;
	for (unsigned int i = 0; i < nr; i++)
		write_free_pointer(base + i * slot, i + 1 < nr ? base + (i + 1) * slot : NULL, slot);
	shr_mem_poison(base + (size_t)nr * slot, cache->geo.waste_bytes);
	page->freelist = base;
	atomic_fetch_add_explicit(cache_total(cache), SHR_PAGE_SIZE << order, memory_order_relaxed);
	return page;
}

/* Caller holds the node lock; @page is empty and on no list. */
static void discard_slab(struct shr_kmem_cache *cache, struct shr_page *page)
{
	unsigned int order = cache->geo.order;

	shr_lock_assert_held(&cache->node[page->node].lock);
	for (uint32_t i = 1; i < (1u << order); i++)
		page[i].kind = SHR_PAGE_NONE;
	page->owner = NULL;
	page->freelist = NULL;
	shr_free_pages(cache->sa->pa, page, order);
	atomic_fetch_sub_explicit(cache_total(cache), SHR_PAGE_SIZE << order, memory_order_relaxed);
}

/* Caller holds n->lock. Adds @dslabs and @dinuse to the packed counts. */
static inline void counts_add(struct kmem_cache_node *n, int64_t dslabs, int64_t dinuse)
{
	uint64_t c = atomic_load_explicit(&n->counts, memory_order_relaxed);

	shr_lock_assert_held(&n->lock);
	c += (uint64_t)dslabs + ((uint64_t)dinuse << COUNT_SLAB_BITS);
	atomic_store_explicit(&n->counts, c, memory_order_relaxed);
}

static void *slab_alloc(struct shr_kmem_cache *cache, int nid)
{
	struct kmem_cache_node *n = &cache->node[nid];
	struct shr_page *page;
	void *obj;

	shr_mutex_lock(&n->lock);
	if (!cds_list_empty(&n->partial)) {
		page = caa_container_of(n->partial.next, struct shr_page, lru);
	} else {
		if ((atomic_load_explicit(&n->counts, memory_order_relaxed) & COUNT_SLAB_MASK) ==
		    COUNT_SLAB_MASK)
			page = NULL;
		else
			page = new_slab(cache, nid);
		if (!page) {
			shr_mutex_unlock(&n->lock);
			return NULL;
		}
		cds_list_add(&page->lru, &n->partial);
		page->on_partial = 1;
		n->nr_partial++;
		counts_add(n, 1, 0);
	}
	obj = page->freelist;
	page->freelist = read_free_pointer(obj);
	page->inuse++;
	if (!page->freelist) {
		cds_list_del(&page->lru);
		page->on_partial = 0;
		n->nr_partial--;
	}
	counts_add(n, 0, 1);
	shr_mutex_unlock(&n->lock);
	shr_mem_unpoison(obj, cache->geo.object_size);
	return obj;
}

/* Check that @obj is an object start in the slab headed by @page. */
static void check_object(struct shr_kmem_cache *cache, struct shr_page *page, const void *obj,
			 const char *fn)
{
	size_t off = (size_t)((const char *)obj - (const char *)shr_page_address(page));

	if (off % cache->geo.object_size || off / cache->geo.object_size >= cache->geo.objects_per_slab)
		slab_bug(fn, obj, "not the start of an object");
}

static void slab_free(struct shr_kmem_cache *cache, struct shr_page *page, void *obj)
{
	struct kmem_cache_node *n = &cache->node[page->node];
	bool was_full;

	if (shr_mem_is_poisoned(obj))
		slab_bug("shr_kmem_cache_free", obj, "double free (object is already free)");
	shr_mutex_lock(&n->lock);
	if (page->inuse == 0) {
		shr_mutex_unlock(&n->lock);
		slab_bug("shr_kmem_cache_free", obj, "double free (slab has no objects in use)");
	}
	was_full = page->freelist == NULL;
	write_free_pointer(obj, page->freelist, cache->geo.object_size);
	page->freelist = obj;
	page->inuse--;
	counts_add(n, 0, -1);
	if (page->inuse == 0 && n->nr_partial >= cache->min_partial) {
		if (!was_full) {
			cds_list_del(&page->lru);
			n->nr_partial--;
		}
		counts_add(n, -1, 0);
		discard_slab(cache, page);
	} else if (was_full) {
		cds_list_add_tail(&page->lru, &n->partial);
		page->on_partial = 1;
		n->nr_partial++;
	}
	shr_mutex_unlock(&n->lock);
}

/* Head page of the slab or large allocation holding @ptr, or abort. */
static struct shr_page *lookup_head(struct shr_slab_allocator *sa, const void *ptr, const char *fn)
{
	struct shr_page *page = shr_virt_to_page(sa->pa, ptr);

	if (!page)
		return NULL;
	if (page->kind == SHR_PAGE_SLAB_TAIL)
		page -= page->head_delta;
	if (page->kind != SHR_PAGE_SLAB && page->kind != SHR_PAGE_LARGE)
		slab_bug(fn, ptr, "pointer into a page that is not allocated");
	return page;
}

/* ---------------------------------------------------------------- caches */

static unsigned int calc_min_partial(size_t size)
{
	unsigned int v = (fls_uint(size) - 1) / 2;

	return v < 5 ? 5 : v > 10 ? 10 : v;
}

static int cache_new(struct shr_slab_allocator *sa, const char *name, size_t size, size_t align,
		     unsigned int flags, bool is_kmalloc, struct shr_kmem_cache **out)
{
	struct shr_kmem_cache *cache;
	size_t bytes = sizeof(*cache) + (size_t)sa->nr_nodes * sizeof(struct kmem_cache_node);
	int ret;

	if (!name || strlen(name) >= SLAB_NAME_MAX || (flags & ~SLAB_ALL_FLAGS) ||
	    size < 1 || size > (SHR_PAGE_SIZE << SHR_SLAB_MAX_ORDER))
		return -EINVAL;
	if (align && !is_pow2(align))
		return -EINVAL;
	if ((flags & SHR_SLAB_HWCACHE_ALIGN) && align < SLAB_HWCACHE_BYTES)
		align = SLAB_HWCACHE_BYTES;
	cache = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
	if (!cache)
		return -ENOMEM;
	memset(cache, 0, bytes);
	ret = shr_slab_calculate_geometry(size, align, sa->geometry_cpus, &cache->geo);
	if (ret) {
		free(cache);
		return ret;
	}
	cache->sa = sa;
	snprintf(cache->name, sizeof(cache->name), "%s", name);
	cache->size = size;
	cache->flags = flags;
	cache->is_kmalloc = is_kmalloc;
	cache->min_partial = calc_min_partial(cache->geo.object_size);
	for (int nid = 0; nid < sa->nr_nodes; nid++) {
		shr_mutex_init(&cache->node[nid].lock, SHR_LOCK_SLAB_NODE);
		CDS_INIT_LIST_HEAD(&cache->node[nid].partial);
		atomic_init(&cache->node[nid].counts, 0);
	}
	shr_mutex_lock(&sa->caches_lock);
	cds_list_add_tail(&cache->list, &sa->caches);
	shr_mutex_unlock(&sa->caches_lock);
	*out = cache;
	return 0;
}

static void cache_free_struct(struct shr_kmem_cache *cache)
{
	for (int nid = 0; nid < cache->sa->nr_nodes; nid++)
		shr_mutex_destroy(&cache->node[nid].lock);
	free(cache);
}

int shr_kmem_cache_create(struct shr_slab_allocator *sa, const char *name, size_t size,
			  size_t align, unsigned int flags, struct shr_kmem_cache **out)
{
	if (!sa || !out)
		return -EINVAL;
	return cache_new(sa, name, size, align, flags, false, out);
}

static uint64_t cache_inuse(struct shr_kmem_cache *cache)
{
	uint64_t inuse = 0;

	for (int nid = 0; nid < cache->sa->nr_nodes; nid++)
		inuse += atomic_load_explicit(&cache->node[nid].counts, memory_order_relaxed) >>
			 COUNT_SLAB_BITS;
	return inuse;
}

int shr_kmem_cache_destroy(struct shr_kmem_cache *cache)
{
	struct shr_slab_allocator *sa;

	if (!cache)
		return 0;
	if (cache->is_kmalloc)
		return -EINVAL;
	if (cache_inuse(cache))
		return -EBUSY;
	sa = cache->sa;
	(void)shr_kmem_cache_shrink(cache);
	shr_mutex_lock(&sa->caches_lock);
	cds_list_del(&cache->list);
	shr_mutex_unlock(&sa->caches_lock);
	cache_free_struct(cache);
	return 0;
}

void *shr_kmem_cache_alloc_node(struct shr_kmem_cache *cache, int nid, shr_gfp_t gfp)
{
	void *obj;

	if (nid == SHR_NUMA_NO_NODE)
		nid = 0;
	if (nid < 0 || nid >= cache->sa->nr_nodes)
		return NULL;
	if (fault_should_fail(cache->sa, cache->name, gfp))
		return NULL;
	obj = slab_alloc(cache, nid);
	if (obj && (gfp & SHR_GFP_ZERO))
		memset(obj, 0, cache->geo.object_size);
	return obj;
}

void shr_kmem_cache_free(struct shr_kmem_cache *cache, void *obj)
{
	struct shr_page *page;

	if (!obj)
		return;
	page = lookup_head(cache->sa, obj, "shr_kmem_cache_free");
	if (!page || page->kind != SHR_PAGE_SLAB || page->owner != cache)
		slab_bug("shr_kmem_cache_free", obj, "object does not belong to this cache");
	check_object(cache, page, obj, "shr_kmem_cache_free");
	slab_free(cache, page, obj);
}

unsigned long shr_kmem_cache_shrink(struct shr_kmem_cache *cache)
{
	unsigned long released = 0;

	for (int nid = 0; nid < cache->sa->nr_nodes; nid++) {
		struct kmem_cache_node *n = &cache->node[nid];
		struct cds_list_head *pos, *tmp;

		shr_mutex_lock(&n->lock);
		cds_list_for_each_safe(pos, tmp, &n->partial) {
			struct shr_page *page = caa_container_of(pos, struct shr_page, lru);

			if (page->inuse)
				continue;
			cds_list_del(&page->lru);
			page->on_partial = 0;
			n->nr_partial--;
			counts_add(n, -1, 0);
			discard_slab(cache, page);
			released++;
		}
		shr_mutex_unlock(&n->lock);
	}
	return released;
}

const char *shr_kmem_cache_name(const struct shr_kmem_cache *cache)
{
	return cache->name;
}

void shr_kmem_cache_geometry(const struct shr_kmem_cache *cache, struct shr_slab_geometry *out)
{
	*out = cache->geo;
}

static void node_stats(struct shr_kmem_cache *cache, int nid, struct shr_kmem_cache_stats *out)
{
	uint64_t c = atomic_load_explicit(&cache->node[nid].counts, memory_order_relaxed);
	unsigned long slabs = (unsigned long)(c & COUNT_SLAB_MASK);

	out->objects_in_use += (unsigned long)(c >> COUNT_SLAB_BITS);
	out->objects_total += slabs * cache->geo.objects_per_slab;
	out->slabs += slabs;
	out->pages += slabs << cache->geo.order;
	out->bytes += (slabs << cache->geo.order) * SHR_PAGE_SIZE;
}

void shr_kmem_cache_stats(struct shr_kmem_cache *cache, int nid, struct shr_kmem_cache_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (nid >= cache->sa->nr_nodes)
		return;
	if (nid >= 0) {
		node_stats(cache, nid, out);
		return;
	}
	for (int i = 0; i < cache->sa->nr_nodes; i++)
		node_stats(cache, i, out);
}

/* ------------------------------------------------------------- allocator */

static void allocator_free(struct shr_slab_allocator *sa)
{
	struct cds_list_head *pos, *tmp;

	cds_list_for_each_safe(pos, tmp, &sa->caches)
		cache_free_struct(caa_container_of(pos, struct shr_kmem_cache, list));
	while (sa->vm_areas) {
		struct vm_area *vm = sa->vm_areas;

		sa->vm_areas = vm->next;
		munmap(vm->addr, vm->size);
		free(vm);
	}
	shr_page_alloc_destroy(sa->pa);
	shr_mutex_destroy(&sa->caches_lock);
	shr_mutex_destroy(&sa->fault_lock);
	shr_mutex_destroy(&sa->vm_lock);
	free(sa);
}

static unsigned int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (unsigned int)n;
}

int shr_slab_allocator_create(const struct shr_slab_params *params,
			      struct shr_slab_allocator **out)
{
	struct shr_slab_allocator *sa;
	int ret;

	if (!params || !out || params->nr_nodes < 1 || params->nr_nodes > SHR_MAX_NUMNODES)
		return -EINVAL;
	sa = calloc(1, sizeof(*sa));
	if (!sa)
		return -ENOMEM;
	sa->nr_nodes = params->nr_nodes;
	sa->geometry_cpus = params->geometry_cpus ? params->geometry_cpus : online_cpus();
	shr_mutex_init(&sa->caches_lock, SHR_LOCK_SLAB_CACHES);
	shr_mutex_init(&sa->fault_lock, SHR_LOCK_SLAB_FAULT);
	shr_mutex_init(&sa->vm_lock, SHR_LOCK_SLAB_VM);
	CDS_INIT_LIST_HEAD(&sa->caches);
	ret = shr_page_alloc_create(sa->nr_nodes, params->prefault, &sa->pa);
	for (int i = 0; !ret && i < NR_KMALLOC_CACHES; i++)
		ret = cache_new(sa, kmalloc_names[i], kmalloc_sizes[i], 0, 0, true,
				&sa->kmalloc[i]);
	if (ret) {
		allocator_free(sa);
		return ret;
	}
	*out = sa;
	return 0;
}

void shr_slab_allocator_destroy(struct shr_slab_allocator *sa)
{
	if (sa)
		allocator_free(sa);
}

int shr_slab_nr_nodes(const struct shr_slab_allocator *sa)
{
	return sa->nr_nodes;
}

unsigned int shr_slab_geometry_cpus(const struct shr_slab_allocator *sa)
{
	return sa->geometry_cpus;
}

void shr_slab_for_each_cache(struct shr_slab_allocator *sa,
			     void (*fn)(struct shr_kmem_cache *cache, void *arg), void *arg)
{
	struct cds_list_head *pos;

	shr_mutex_lock(&sa->caches_lock);
	cds_list_for_each(pos, &sa->caches)
		fn(caa_container_of(pos, struct shr_kmem_cache, list), arg);
	shr_mutex_unlock(&sa->caches_lock);
}

/* --------------------------------------------------------------- kmalloc */

struct shr_kmem_cache *shr_kmalloc_cache_for(struct shr_slab_allocator *sa, size_t size)
{
	if (size == 0 || size > SHR_KMALLOC_MAX_CACHE_SIZE)
		return NULL;
	if (size <= 192)
		return sa->kmalloc[small_class[(size - 1) / 8]];
	return sa->kmalloc[fls_uint(size - 1) - 1];
}

static void *large_kmalloc(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid)
{
	unsigned int order = get_order(size);
	struct shr_page *page;

	if (fault_should_fail(sa, "large", gfp))
		return NULL;
	page = shr_alloc_pages_node(sa->pa, nid, order, (gfp & SHR_GFP_ZERO) != 0);
	if (!page)
		return NULL;
	page->kind = SHR_PAGE_LARGE;
	page->owner = NULL;
	atomic_fetch_add_explicit(&sa->sunreclaim, SHR_PAGE_SIZE << order, memory_order_relaxed);
	atomic_fetch_add_explicit(&sa->large_bytes, SHR_PAGE_SIZE << order, memory_order_relaxed);
	return shr_page_address(page);
}

static void large_kfree(struct shr_slab_allocator *sa, struct shr_page *page, const void *ptr)
{
	unsigned int order = page->order;

	if (shr_page_address(page) != ptr)
		slab_bug("shr_kfree", ptr, "pointer inside a large kmalloc, not its start");
	shr_free_pages(sa->pa, page, order);
	atomic_fetch_sub_explicit(&sa->sunreclaim, SHR_PAGE_SIZE << order, memory_order_relaxed);
	atomic_fetch_sub_explicit(&sa->large_bytes, SHR_PAGE_SIZE << order, memory_order_relaxed);
}

void *shr_kmalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid)
{
	struct shr_kmem_cache *cache;

	if (nid == SHR_NUMA_NO_NODE)
		nid = 0;
	if (size == 0 || size > KMALLOC_MAX_SIZE || nid < 0 || nid >= sa->nr_nodes)
		return NULL;
	cache = shr_kmalloc_cache_for(sa, size);
	if (!cache)
		return large_kmalloc(sa, size, gfp, nid);
	return shr_kmem_cache_alloc_node(cache, nid, gfp);
}

void *shr_kmalloc(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp)
{
	return shr_kmalloc_node(sa, size, gfp, SHR_NUMA_NO_NODE);
}

void *shr_kzalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid)
{
	return shr_kmalloc_node(sa, size, gfp | SHR_GFP_ZERO, nid);
}

/* Remove and return the vmalloc area starting at @ptr, or NULL. */
static struct vm_area *vm_find(struct shr_slab_allocator *sa, const void *ptr, bool unlink)
{
	struct vm_area **pp, *vm = NULL;

	shr_mutex_lock(&sa->vm_lock);
	for (pp = &sa->vm_areas; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == ptr) {
			vm = *pp;
			if (unlink)
				*pp = vm->next;
			break;
		}
	}
	shr_mutex_unlock(&sa->vm_lock);
	return vm;
}

void shr_kfree(struct shr_slab_allocator *sa, const void *ptr)
{
	struct shr_page *page;
	struct vm_area *vm;

	if (!ptr)
		return;
	page = lookup_head(sa, ptr, "shr_kfree");
	if (page && page->kind == SHR_PAGE_LARGE) {
		large_kfree(sa, page, ptr);
		return;
	}
	if (page) {
		struct shr_kmem_cache *cache = page->owner;

		check_object(cache, page, ptr, "shr_kfree");
		slab_free(cache, page, (void *)(uintptr_t)ptr);
		return;
	}
	vm = vm_find(sa, ptr, true);
	if (!vm)
		slab_bug("shr_kfree", ptr, "pointer not allocated by this allocator");
	munmap(vm->addr, vm->size);
	atomic_fetch_sub_explicit(&sa->vmalloc_bytes, vm->size, memory_order_relaxed);
	free(vm);
}

size_t shr_ksize(struct shr_slab_allocator *sa, const void *ptr)
{
	struct shr_page *page;
	struct vm_area *vm;

	if (!ptr)
		return 0;
	page = lookup_head(sa, ptr, "shr_ksize");
	if (page && page->kind == SHR_PAGE_LARGE)
		return SHR_PAGE_SIZE << page->order;
	if (page)
		return ((struct shr_kmem_cache *)page->owner)->geo.object_size;
	vm = vm_find(sa, ptr, false);
	if (!vm)
		slab_bug("shr_ksize", ptr, "pointer not allocated by this allocator");
	return vm->size;
}

static void *vmalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp)
{
	size_t len = (size + SHR_PAGE_SIZE - 1) & ~(SHR_PAGE_SIZE - 1);
	struct vm_area *vm;
	void *p;

	if (fault_should_fail(sa, "vmalloc", gfp))
		return NULL;
	vm = malloc(sizeof(*vm));
	if (!vm)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		free(vm);
		return NULL;
	}
	vm->addr = p;
	vm->size = len;
	shr_mutex_lock(&sa->vm_lock);
	vm->next = sa->vm_areas;
	sa->vm_areas = vm;
	shr_mutex_unlock(&sa->vm_lock);
	atomic_fetch_add_explicit(&sa->vmalloc_bytes, len, memory_order_relaxed);
	return p; /* fresh anonymous memory is already zeroed */
}

void *shr_kvmalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid)
{
	void *p;

	if (nid == SHR_NUMA_NO_NODE)
		nid = 0;
	if (size == 0 || nid < 0 || nid >= sa->nr_nodes || size > ((size_t)1 << 40))
		return NULL;
	if (size <= KMALLOC_MAX_SIZE) {
		p = shr_kmalloc_node(sa, size, gfp, nid);
		if (p || (gfp & SHR_GFP_NOWAIT))
			return p;
	}
	return vmalloc_node(sa, size, gfp);
}

void shr_kvfree(struct shr_slab_allocator *sa, const void *ptr)
{
	shr_kfree(sa, ptr);
}

/* ----------------------------------------------------------------- totals */

void shr_slab_totals(struct shr_slab_allocator *sa, struct shr_slab_totals *out)
{
	memset(out, 0, sizeof(*out));
	out->sunreclaim_bytes = atomic_load_explicit(&sa->sunreclaim, memory_order_relaxed);
	out->sreclaimable_bytes = atomic_load_explicit(&sa->sreclaimable, memory_order_relaxed);
	out->large_kmalloc_bytes = atomic_load_explicit(&sa->large_bytes, memory_order_relaxed);
	out->vmalloc_bytes = atomic_load_explicit(&sa->vmalloc_bytes, memory_order_relaxed);
	for (int nid = 0; nid < sa->nr_nodes; nid++)
		out->node_pages[nid] = shr_page_alloc_node_pages(sa->pa, nid);
}

unsigned long shr_slab_unreclaimable_bytes(struct shr_slab_allocator *sa)
{
	return atomic_load_explicit(&sa->sunreclaim, memory_order_relaxed);
}
