/* SPDX-License-Identifier: MIT */
/*
 * TEMPORARY stand-in for the slab allocator (src/slab.c), so the XArray and
 * IDR tests build before the real allocator lands. It implements only the
 * part of include/shrinker/slab.h those tests use: allocator and cache
 * create/destroy, alloc/free (calloc/free underneath, SHR_GFP_ZERO honoured,
 * other memory filled with garbage), per-cache live-object statistics and
 * shr_slab_fail_nth() fault injection. It is NOT part of the library; the
 * tests switch to the real allocator on merge.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/slab.h>

#define STUB_MAGIC 0x5ab5ab5ab5ab5ab5ULL

struct shr_slab_allocator {
	unsigned long fail_countdown; /* 0: disarmed. Sync: atomic. */
	bool fail_persist;            /* Sync: atomic. */
	unsigned long faults;         /* Sync: atomic. */
	unsigned long allocations;    /* Sync: atomic. */
	int nr_nodes;
};

struct shr_kmem_cache {
	struct shr_slab_allocator *sa;
	size_t size;
	unsigned long live; /* Sync: atomic. */
	char name[64];
};

/* Header in front of every object: catches frees to the wrong cache. */
struct stub_obj {
	unsigned long long magic;
	struct shr_kmem_cache *cache;
	_Alignas(16) unsigned char data[];
};

int shr_slab_allocator_create(const struct shr_slab_params *params,
			      struct shr_slab_allocator **out)
{
	struct shr_slab_allocator *sa;

	if (!params || params->nr_nodes < 1 || params->nr_nodes > SHR_MAX_NUMNODES)
		return -EINVAL;
	sa = calloc(1, sizeof(*sa));
	if (!sa)
		return -ENOMEM;
	sa->nr_nodes = params->nr_nodes;
	*out = sa;
	return 0;
}

void shr_slab_allocator_destroy(struct shr_slab_allocator *sa)
{
	free(sa);
}

int shr_slab_nr_nodes(const struct shr_slab_allocator *sa)
{
	return sa->nr_nodes;
}

int shr_kmem_cache_create(struct shr_slab_allocator *sa, const char *name, size_t size,
			  size_t align, unsigned int flags, struct shr_kmem_cache **out)
{
	struct shr_kmem_cache *cache;

	(void)flags;
	if (!name || size == 0 || align > 16)
		return -EINVAL;
	cache = calloc(1, sizeof(*cache));
	if (!cache)
		return -ENOMEM;
	cache->sa = sa;
	cache->size = size;
	snprintf(cache->name, sizeof(cache->name), "%s", name);
	*out = cache;
	return 0;
}

int shr_kmem_cache_destroy(struct shr_kmem_cache *cache)
{
	if (__atomic_load_n(&cache->live, __ATOMIC_RELAXED))
		return -EBUSY;
	free(cache);
	return 0;
}

const char *shr_kmem_cache_name(const struct shr_kmem_cache *cache)
{
	return cache->name;
}

/* Whether the fault injector fails this allocation. */
static bool stub_should_fail(struct shr_slab_allocator *sa)
{
	unsigned long c = __atomic_load_n(&sa->fail_countdown, __ATOMIC_RELAXED);

	while (c) {
		unsigned long next = c - 1;

		if (c == 1 && __atomic_load_n(&sa->fail_persist, __ATOMIC_RELAXED))
			next = 1;
		if (__atomic_compare_exchange_n(&sa->fail_countdown, &c, next, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			if (c != 1)
				return false;
			__atomic_fetch_add(&sa->faults, 1, __ATOMIC_RELAXED);
			return true;
		}
	}
	return false;
}

void *shr_kmem_cache_alloc_node(struct shr_kmem_cache *cache, int nid, shr_gfp_t gfp)
{
	struct shr_slab_allocator *sa = cache->sa;
	struct stub_obj *obj;

	__atomic_fetch_add(&sa->allocations, 1, __ATOMIC_RELAXED);
	if (nid != SHR_NUMA_NO_NODE && (nid < 0 || nid >= sa->nr_nodes))
		return NULL;
	if (stub_should_fail(sa))
		return NULL;
	obj = malloc(sizeof(*obj) + cache->size);
	if (!obj)
		return NULL;
	obj->magic = STUB_MAGIC;
	obj->cache = cache;
	memset(obj->data, (gfp & SHR_GFP_ZERO) ? 0 : 0xa5, cache->size);
	__atomic_fetch_add(&cache->live, 1, __ATOMIC_RELAXED);
	return obj->data;
}

void shr_kmem_cache_free(struct shr_kmem_cache *cache, void *ptr)
{
	struct stub_obj *obj;

	if (!ptr)
		return;
	obj = (struct stub_obj *)((unsigned char *)ptr - offsetof(struct stub_obj, data));
	if (obj->magic != STUB_MAGIC || obj->cache != cache) {
		fprintf(stderr, "slab_stub: bad free of %p to cache %s\n", ptr, cache->name);
		abort();
	}
	obj->magic = 0;
	memset(obj->data, 0x6b, cache->size);
	__atomic_fetch_sub(&cache->live, 1, __ATOMIC_RELAXED);
	free(obj);
}

unsigned long shr_kmem_cache_shrink(struct shr_kmem_cache *cache)
{
	(void)cache;
	return 0;
}

void shr_kmem_cache_stats(struct shr_kmem_cache *cache, int nid,
			  struct shr_kmem_cache_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (nid > 0)
		return; /* the stub puts everything on node 0 */
	out->objects_in_use = __atomic_load_n(&cache->live, __ATOMIC_RELAXED);
	out->objects_total = out->objects_in_use;
}

void shr_slab_fail_nth(struct shr_slab_allocator *sa, unsigned long nth, bool persist)
{
	__atomic_store_n(&sa->fail_persist, persist, __ATOMIC_RELAXED);
	__atomic_store_n(&sa->fail_countdown, nth, __ATOMIC_RELAXED);
}

void shr_slab_fault_clear(struct shr_slab_allocator *sa)
{
	__atomic_store_n(&sa->fail_countdown, 0, __ATOMIC_RELAXED);
}

unsigned long shr_slab_faults_injected(struct shr_slab_allocator *sa)
{
	return __atomic_load_n(&sa->faults, __ATOMIC_RELAXED);
}

unsigned long shr_slab_allocations(struct shr_slab_allocator *sa)
{
	return __atomic_load_n(&sa->allocations, __ATOMIC_RELAXED);
}
