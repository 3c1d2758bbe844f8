/* SPDX-License-Identifier: MIT */
/*
 * Slab allocator: SLUB's geometry over a page allocator that really allocates.
 *
 * One struct shr_slab_allocator is one "machine": a page allocator with
 * logical NUMA nodes, the kmalloc caches, any number of named object caches,
 * statistics and a fault injector. Hosts of the shrinker subsystem each own
 * (or share) one, so every byte the lab reports is an allocation made here.
 *
 * Geometry (shr_slab_calculate_geometry) follows current SLUB:
 *   min_objects = 4 * (fls(geometry_cpus) + 1), capped by what fits in the
 *   maximum order (3); min_order = get_order(min_objects * size); then the
 *   smallest order in [min_order, 3] whose leftover is <= slab/16, relaxing
 *   to 1/8, 1/4, 1/2; if nothing fits, get_order(size).
 *
 * kmalloc size classes: 8 16 32 64 96 128 192 256 512 1k 2k 4k 8k. Larger
 * requests are "large kmalloc": whole 2^order pages from the page allocator,
 * counted in the same unreclaimable total as slab pages (as the kernel counts
 * them in SUnreclaim).
 *
 * Empty slabs go back to the page allocator, except that each cache keeps up
 * to min_partial = clamp(ilog2(size) / 2, 5, 10) partial-or-empty slabs per
 * node, as SLUB does; shr_kmem_cache_shrink() releases the empty ones. The
 * test is SLUB's: a slab that empties is released when the node's partial
 * count (which includes the slab itself if it was already partial) is
 * >= min_partial. So freeing everything in order leaves min_partial - 1
 * empty slabs per node.
 *
 * Locking: every function may be called from any registered thread
 * concurrently, except where a comment says otherwise. Locks taken inside are
 * leaves of the library's lock order (nothing is called back with them held).
 */
#ifndef SHRINKER_SLAB_H
#define SHRINKER_SLAB_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_slab_allocator;
struct shr_kmem_cache;

/* Cache flags. */
/* Pages count as reclaimable slab (SReclaimable), not SUnreclaim. */
#define SHR_SLAB_RECLAIM_ACCOUNT (1u << 0)
/* Align objects to the 64-byte cache line. */
#define SHR_SLAB_HWCACHE_ALIGN (1u << 1)

/* Largest slab order SLUB uses by default (slub_max_order). */
#define SHR_SLAB_MAX_ORDER 3
/* Largest size served by a kmalloc cache; above it, large kmalloc. */
#define SHR_KMALLOC_MAX_CACHE_SIZE 8192UL
/* Largest order the page allocator hands out (MAX_PAGE_ORDER). */
#define SHR_MAX_PAGE_ORDER 10

/**
 * struct shr_slab_params - parameters of a slab allocator instance.
 * @nr_nodes:      logical NUMA nodes, 1..SHR_MAX_NUMNODES.
 * @geometry_cpus: CPU count SLUB's geometry is computed for; 0 means this
 *                 machine's online CPU count.
 * @prefault:      map every page of a chunk when the chunk is added, so no
 *                 allocation takes a first-touch page fault (the kernel's
 *                 slab pages are always mapped). Costs the chunk's memory up
 *                 front; the lab sets it so timings do not include the
 *                 environment's page-fault cost, which varies with the
 *                 process's size.
 */
struct shr_slab_params {
	int nr_nodes;
	unsigned int geometry_cpus;
	bool prefault;
};

/**
 * struct shr_slab_geometry - the layout SLUB picks for one object size.
 * @object_size:      size after alignment (the slot size).
 * @order:            slab order: a slab is 2^order pages of 4 KiB.
 * @objects_per_slab: objects that fit in one slab.
 * @waste_bytes:      slab bytes not covered by objects.
 */
struct shr_slab_geometry {
	unsigned int object_size;
	unsigned int order;
	unsigned int objects_per_slab;
	unsigned int waste_bytes;
};

/**
 * struct shr_kmem_cache_stats - what /proc/slabinfo shows for one cache.
 * Counts are a consistent snapshot per node; summed when nid is -1.
 */
struct shr_kmem_cache_stats {
	unsigned long objects_in_use;
	unsigned long objects_total;
	unsigned long slabs;
	unsigned long pages;
	unsigned long bytes; /* pages * SHR_PAGE_SIZE */
};

/**
 * shr_slab_calculate_geometry() - SLUB's order and objects per slab.
 * @size:  object size in bytes, 1..(SHR_PAGE_SIZE << SHR_MAX_PAGE_ORDER).
 * @align: required alignment (0 = natural word alignment), a power of two.
 * @geometry_cpus: CPUs the geometry is computed for, >= 1.
 * @out:   result.
 *
 * Context: Any context; pure function.
 * Return: 0, or -EINVAL for a bad size, alignment or CPU count.
 */
SHR_API SHR_MUST_CHECK int shr_slab_calculate_geometry(size_t size, size_t align,
						       unsigned int geometry_cpus,
						       struct shr_slab_geometry *out);

/**
 * shr_slab_allocator_create() - create an allocator instance.
 * @params: see struct shr_slab_params.
 * @out:    the new instance on success.
 *
 * Creates the kmalloc caches. Pages come from mmap'd chunks owned by the
 * instance; shr_slab_allocator_destroy() returns them to the OS.
 *
 * Context: Registered thread. Blocks.
 * Return: 0, -EINVAL for bad parameters, -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_slab_allocator_create(const struct shr_slab_params *params,
						     struct shr_slab_allocator **out);

/**
 * shr_slab_allocator_destroy() - destroy an instance and every cache in it.
 * @sa: the allocator.
 *
 * Objects still allocated are released with their pages (callers that care
 * about leaks check the statistics first).
 *
 * Context: Registered thread; no other thread may use @sa. Blocks.
 */
SHR_API void shr_slab_allocator_destroy(struct shr_slab_allocator *sa);

/**
 * shr_slab_nr_nodes() - logical NUMA nodes of @sa.
 * @sa: the allocator.
 *
 * Context: Any.
 * Return: the node count.
 */
SHR_API int shr_slab_nr_nodes(const struct shr_slab_allocator *sa);

/**
 * shr_slab_geometry_cpus() - CPU count @sa computes geometry for.
 * @sa: the allocator.
 *
 * Context: Any.
 * Return: the CPU count.
 */
SHR_API unsigned int shr_slab_geometry_cpus(const struct shr_slab_allocator *sa);

/**
 * shr_kmem_cache_create() - create a named object cache.
 * @sa:    allocator instance.
 * @name:  cache name, copied; also the fault-injection site name.
 * @size:  object size in bytes (>= 1, at most SHR_PAGE_SIZE << SHR_SLAB_MAX_ORDER).
 * @align: alignment, power of two or 0.
 * @flags: SHR_SLAB_* flags.
 * @out:   the cache on success.
 *
 * Context: Registered thread. Blocks.
 * Return: 0, -EINVAL (bad size/align/flags, NULL name), -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_kmem_cache_create(struct shr_slab_allocator *sa, const char *name,
						 size_t size, size_t align, unsigned int flags,
						 struct shr_kmem_cache **out);

/**
 * shr_kmem_cache_destroy() - destroy a cache with no objects allocated.
 * @cache: the cache.
 *
 * NULL is a no-op. The kmalloc caches belong to the allocator and are only
 * destroyed with it.
 *
 * Context: Registered thread; no concurrent users of @cache. Blocks.
 * Return: 0, -EBUSY (objects still allocated; nothing is freed), or -EINVAL
 * for a kmalloc cache.
 */
SHR_API int shr_kmem_cache_destroy(struct shr_kmem_cache *cache);

/**
 * shr_kmem_cache_alloc_node() - allocate one object.
 * @cache: the cache.
 * @nid:   node whose pages back the object, or SHR_NUMA_NO_NODE (node 0).
 * @gfp:   SHR_GFP_* flags; SHR_GFP_ZERO zeroes the object.
 *
 * Context: Any registered thread; may take the cache's node lock and the
 *          page allocator's lock.
 * Return: the object, or NULL (out of memory, injected failure, bad nid).
 */
SHR_API void *shr_kmem_cache_alloc_node(struct shr_kmem_cache *cache, int nid, shr_gfp_t gfp);

/**
 * shr_kmem_cache_free() - free an object of @cache. NULL is a no-op.
 * @cache: the cache it came from.
 * @obj:   the object.
 *
 * Context: Any registered thread. Freeing a pointer @cache did not hand out
 *          aborts with a message (a bug in the caller, like the kernel's BUG).
 *          So does a double free noticed cheaply (the slab has no object in
 *          use, or, under ASan, the object is already poisoned).
 */
SHR_API void shr_kmem_cache_free(struct shr_kmem_cache *cache, void *obj);

/**
 * shr_kmem_cache_shrink() - release every empty slab of @cache.
 * @cache: the cache.
 *
 * Context: Any registered thread.
 * Return: number of slabs released.
 */
SHR_API unsigned long shr_kmem_cache_shrink(struct shr_kmem_cache *cache);

/**
 * shr_kmem_cache_name() - the cache's name.
 * @cache: the cache.
 *
 * Context: Any.
 * Return: the name (lives as long as the cache).
 */
SHR_API const char *shr_kmem_cache_name(const struct shr_kmem_cache *cache);

/**
 * shr_kmem_cache_geometry() - the cache's geometry.
 * @cache: the cache.
 * @out:   receives the geometry.
 *
 * Context: Any.
 */
SHR_API void shr_kmem_cache_geometry(const struct shr_kmem_cache *cache,
				     struct shr_slab_geometry *out);

/**
 * shr_kmem_cache_stats() - statistics of one cache.
 * @cache: the cache.
 * @nid:   one node, or -1 for the sum over nodes.
 * @out:   receives the statistics.
 *
 * Context: Any registered thread.
 */
SHR_API void shr_kmem_cache_stats(struct shr_kmem_cache *cache, int nid,
				  struct shr_kmem_cache_stats *out);

/**
 * shr_kmalloc_node() - allocate @size bytes from the kmalloc classes.
 * @sa:   allocator.
 * @size: 1 .. (SHR_PAGE_SIZE << SHR_MAX_PAGE_ORDER). Above
 *        SHR_KMALLOC_MAX_CACHE_SIZE the request is served as large kmalloc:
 *        2^get_order(size) whole pages.
 * @gfp:  SHR_GFP_* flags.
 * @nid:  node or SHR_NUMA_NO_NODE.
 *
 * Context: Any registered thread.
 * Return: the memory, or NULL (size 0 or too large, out of memory, injected).
 */
SHR_API void *shr_kmalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid);

/**
 * shr_kmalloc() - shr_kmalloc_node() on SHR_NUMA_NO_NODE.
 * @sa:   allocator.
 * @size: as for shr_kmalloc_node().
 * @gfp:  SHR_GFP_* flags.
 *
 * Context: Any registered thread.
 * Return: the memory, or NULL.
 */
SHR_API void *shr_kmalloc(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp);

/**
 * shr_kzalloc_node() - zeroed shr_kmalloc_node().
 * @sa:   allocator.
 * @size: as for shr_kmalloc_node().
 * @gfp:  SHR_GFP_* flags.
 * @nid:  node or SHR_NUMA_NO_NODE.
 *
 * Context: Any registered thread.
 * Return: the zeroed memory, or NULL.
 */
SHR_API void *shr_kzalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid);

/**
 * shr_kfree() - free memory from shr_kmalloc*() or shr_kvmalloc*().
 * @sa:  the allocator it came from.
 * @ptr: the memory; NULL is a no-op.
 *
 * Context: Any registered thread.
 */
SHR_API void shr_kfree(struct shr_slab_allocator *sa, const void *ptr);

/**
 * shr_ksize() - bytes really reserved for an allocation (its slot size, or
 * the whole pages of a large kmalloc).
 * @sa:  the allocator it came from.
 * @ptr: the memory.
 *
 * Context: Any registered thread, while @ptr is allocated.
 * Return: the bytes reserved.
 */
SHR_API size_t shr_ksize(struct shr_slab_allocator *sa, const void *ptr);

/**
 * shr_kvmalloc_node() - kvmalloc: kmalloc first; sizes beyond the page
 * allocator's largest order are mapped directly and counted as vmalloc.
 * @sa:   allocator.
 * @size: bytes wanted.
 * @gfp:  SHR_GFP_* flags.
 * @nid:  node or SHR_NUMA_NO_NODE.
 *
 * As in the kernel, a kmalloc attempt that fails (an injected failure too)
 * falls back to vmalloc unless @gfp has SHR_GFP_NOWAIT; that fallback is a
 * second allocation for the fault injector (site "vmalloc"). vmalloc memory
 * is page-granular and always zeroed.
 *
 * Context: Any registered thread.
 * Return: the memory or NULL. Free with shr_kvfree() (or shr_kfree()).
 */
SHR_API void *shr_kvmalloc_node(struct shr_slab_allocator *sa, size_t size, shr_gfp_t gfp, int nid);

/**
 * shr_kvfree() - free shr_kvmalloc_node() memory.
 * @sa:  the allocator it came from.
 * @ptr: the memory; NULL is a no-op.
 *
 * Context: Any registered thread.
 */
SHR_API void shr_kvfree(struct shr_slab_allocator *sa, const void *ptr);

/**
 * shr_kmalloc_cache_for() - the kmalloc cache that would serve @size.
 * @sa:   the allocator.
 * @size: the request's size.
 *
 * Context: Any.
 * Return: the cache, or NULL when @size is 0 or goes to large kmalloc.
 */
SHR_API struct shr_kmem_cache *shr_kmalloc_cache_for(struct shr_slab_allocator *sa, size_t size);

/**
 * struct shr_slab_totals - host-wide totals, like /proc/meminfo.
 * @sunreclaim_bytes:   pages of caches without SHR_SLAB_RECLAIM_ACCOUNT
 *                      plus large kmalloc pages (meminfo SUnreclaim).
 * @sreclaimable_bytes: pages of SHR_SLAB_RECLAIM_ACCOUNT caches.
 * @large_kmalloc_bytes: the large kmalloc part of @sunreclaim_bytes.
 * @vmalloc_bytes:      kvmalloc fallbacks (not part of SUnreclaim).
 * @node_pages:         pages the page allocator has handed out, per node.
 */
struct shr_slab_totals {
	unsigned long sunreclaim_bytes;
	unsigned long sreclaimable_bytes;
	unsigned long large_kmalloc_bytes;
	unsigned long vmalloc_bytes;
	unsigned long node_pages[SHR_MAX_NUMNODES];
};

/**
 * shr_slab_totals() - snapshot of the totals.
 * @sa:  the allocator.
 * @out: receives the totals.
 *
 * Context: Any registered thread.
 */
SHR_API void shr_slab_totals(struct shr_slab_allocator *sa, struct shr_slab_totals *out);

/**
 * shr_slab_unreclaimable_bytes() - SUnreclaim alone.
 * @sa: the allocator.
 *
 * Context: Any.
 * Return: the bytes.
 */
SHR_API unsigned long shr_slab_unreclaimable_bytes(struct shr_slab_allocator *sa);

/**
 * shr_slab_for_each_cache() - call @fn for every cache, kmalloc ones first,
 * then in creation order. @fn must not create or destroy caches.
 * @sa:  the allocator.
 * @fn:  called per cache.
 * @arg: passed to @fn.
 *
 * Context: Registered thread; takes the allocator's cache-list lock.
 */
SHR_API void shr_slab_for_each_cache(struct shr_slab_allocator *sa,
				     void (*fn)(struct shr_kmem_cache *cache, void *arg),
				     void *arg);

/*
 * Fault injection. Exactly one rule is armed at a time (arming replaces the
 * previous one). Failed allocations return NULL as if memory ran out.
 */

/**
 * shr_slab_fail_nth() - fail the @nth allocation from now (1 = the next one;
 * 0 is taken as 1).
 * @sa:      the allocator.
 * @nth:     which allocation from now fails.
 * @persist: if true, fail that one and every later allocation too.
 *
 * Counts every allocation of @sa (caches, kmalloc, large kmalloc, kvmalloc).
 * Context: Any registered thread.
 */
SHR_API void shr_slab_fail_nth(struct shr_slab_allocator *sa, unsigned long nth, bool persist);

/**
 * shr_slab_fail_site() - fail every allocation at one site: a cache name
 * ("kmalloc-1k", "shrinker_info_unit", ...), or "large" for large kmalloc,
 * or "vmalloc". The name is copied.
 * @sa:   the allocator.
 * @site: the site's name.
 *
 * Context: Any registered thread.
 * Return: 0, -EINVAL for NULL or an over-long name.
 */
SHR_API int shr_slab_fail_site(struct shr_slab_allocator *sa, const char *site);

/**
 * shr_slab_fail_nowait() - fail every SHR_GFP_NOWAIT allocation.
 * @sa: the allocator.
 *
 * Context: Any registered thread; takes the allocator's fault lock.
 */
SHR_API void shr_slab_fail_nowait(struct shr_slab_allocator *sa);

/**
 * shr_slab_fault_clear() - disarm fault injection.
 * @sa: the allocator.
 *
 * Context: Any registered thread; takes the allocator's fault lock.
 */
SHR_API void shr_slab_fault_clear(struct shr_slab_allocator *sa);

/**
 * shr_slab_faults_injected() - failures injected since creation.
 * @sa: the allocator.
 *
 * Context: Any; lockless.
 * Return: the count.
 */
SHR_API unsigned long shr_slab_faults_injected(struct shr_slab_allocator *sa);

/**
 * shr_slab_allocations() - allocations attempted since creation.
 * @sa: the allocator.
 *
 * Context: Any; lockless.
 * Return: the count (what shr_slab_fail_nth() counts).
 */
SHR_API unsigned long shr_slab_allocations(struct shr_slab_allocator *sa);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_SLAB_H */
