/* SPDX-License-Identifier: MIT */
/*
 * ID allocators with the kernel's IDR semantics, built on the XArray.
 *
 * shr_idr: id -> pointer. Allocation always returns the lowest free id in the
 * requested range, so an id that was just freed is the next one handed out.
 * Lookup is lockless under RCU; updates take the XArray's lock.
 *
 * shr_ida: ids without pointers (an IDR storing a value entry).
 */
#ifndef SHRINKER_IDR_H
#define SHRINKER_IDR_H

#include <shrinker/xarray.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest id either allocator hands out. */
#define SHR_IDR_MAX 0x7fffffffU

struct shr_idr {
	/* private: */
	struct shr_xarray idr_xa; /* SHR_XA_FLAGS_ALLOC; Sync: see xarray.h */
};

struct shr_ida {
	/* private: */
	struct shr_idr ida_idr;
};

/**
 * shr_idr_init() - initialise an empty IDR whose nodes come from @node_cache.
 * @idr:        the IDR.
 * @node_cache: where its nodes come from.
 * Context: Any; @idr not yet visible to other threads.
 */
SHR_API void shr_idr_init(struct shr_idr *idr, struct shr_kmem_cache *node_cache);

/**
 * shr_idr_destroy() - free the IDR's nodes (not the pointers stored).
 * @idr: the IDR.
 * Context: Takes the XArray lock.
 */
SHR_API void shr_idr_destroy(struct shr_idr *idr);

/**
 * shr_idr_alloc() - map the lowest free id in [@start, @end) to @ptr.
 * @idr:   the IDR.
 * @ptr:   the pointer to map.
 * @start: the lowest id wanted.
 * @end:   past the highest id wanted; 0 (or negative) means no upper limit
 *         (up to SHR_IDR_MAX).
 * @gfp:   for node allocations.
 *
 * Context: Takes the XArray lock; may allocate.
 * Return: the id (>= 0), -EINVAL (NULL or XArray-internal @ptr, @start < 0,
 *         @end > 0 and @end <= @start), -ENOSPC (range full), -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_idr_alloc(struct shr_idr *idr, void *ptr, int start, int end,
					 shr_gfp_t gfp);

/**
 * shr_idr_find() - the pointer mapped to @id.
 * @idr: the IDR.
 * @id:  the id.
 *
 * Context: Any; takes the RCU read lock. The caller's protocol keeps the
 *          pointer valid (e.g. it stays inside its own RCU section).
 * Return: the pointer, or NULL if @id is not allocated.
 */
SHR_API void *shr_idr_find(struct shr_idr *idr, unsigned long id);

/**
 * shr_idr_replace() - map an allocated @id to a new (non-NULL) pointer.
 * @idr: the IDR.
 * @ptr: the new pointer.
 * @id:  the id.
 * Context: Takes the XArray lock; never allocates.
 * Return: the old pointer, or NULL if @id was not allocated or @ptr is NULL
 *         or internal (nothing stored).
 */
SHR_API void *shr_idr_replace(struct shr_idr *idr, void *ptr, unsigned long id);

/**
 * shr_idr_remove() - free @id.
 * @idr: the IDR.
 * @id:  the id.
 * Context: Takes the XArray lock.
 * Return: the pointer it mapped to, or NULL if it was not allocated.
 */
SHR_API void *shr_idr_remove(struct shr_idr *idr, unsigned long id);

/**
 * shr_idr_get_next() - first allocated id >= *@idp; sets *@idp.
 * @idr: the IDR.
 * @idp: the id to start at; receives the id found.
 * Context: Any; takes the RCU read lock.
 * Return: its pointer, or NULL if none.
 */
SHR_API void *shr_idr_get_next(struct shr_idr *idr, int *idp);

/**
 * shr_idr_is_empty() - whether no id is allocated.
 * @idr: the IDR.
 *
 * Context: Any.
 * Return: true if no id is allocated.
 */
SHR_API bool shr_idr_is_empty(const struct shr_idr *idr);

/**
 * shr_ida_init() - initialise an empty IDA, as shr_idr_init() an IDR.
 * @ida:        the IDA.
 * @node_cache: where its nodes come from.
 *
 * Context: Any; @ida not yet visible to other threads.
 */
SHR_API void shr_ida_init(struct shr_ida *ida, struct shr_kmem_cache *node_cache);

/**
 * shr_ida_destroy() - free the IDA's nodes, as shr_idr_destroy() an IDR's.
 * @ida: the IDA.
 *
 * Context: Takes the XArray lock.
 */
SHR_API void shr_ida_destroy(struct shr_ida *ida);

/**
 * shr_ida_alloc_range() - the lowest free id in [@min, @max].
 * @ida: the IDA.
 * @min: the lowest id wanted.
 * @max: the highest id wanted.
 * @gfp: for node allocations.
 * Context: Takes the XArray lock; may allocate.
 * Return: the id, -EINVAL (min > max or max > SHR_IDR_MAX), -ENOSPC, -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_ida_alloc_range(struct shr_ida *ida, unsigned int min,
					       unsigned int max, shr_gfp_t gfp);

/**
 * shr_ida_free() - free @id.
 * @ida: the IDA.
 * @id:  the id.
 * Context: Takes the XArray lock.
 * Return: 0, or -ENOENT if @id was not allocated.
 */
SHR_API int shr_ida_free(struct shr_ida *ida, unsigned int id);

/**
 * shr_ida_exists() - whether @id is allocated.
 * @ida: the IDA.
 * @id:  the id.
 *
 * Context: Any; takes the RCU read lock.
 * Return: true if @id is allocated.
 */
SHR_API bool shr_ida_exists(struct shr_ida *ida, unsigned int id);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_IDR_H */
