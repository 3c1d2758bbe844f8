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
 * Context: Any; @idr not yet visible to other threads.
 */
SHR_API void shr_idr_init(struct shr_idr *idr, struct shr_kmem_cache *node_cache);

/**
 * shr_idr_destroy() - free the IDR's nodes (not the pointers stored).
 * Context: Takes the XArray lock.
 */
SHR_API void shr_idr_destroy(struct shr_idr *idr);

/**
 * shr_idr_alloc() - map the lowest free id in [@start, @end) to @ptr.
 * @end: 0 (or negative) means no upper limit (up to SHR_IDR_MAX).
 *
 * Context: Takes the XArray lock; may allocate.
 * Return: the id (>= 0), -EINVAL (NULL or XArray-internal @ptr, @start < 0,
 *         @end > 0 and @end <= @start), -ENOSPC (range full), -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_idr_alloc(struct shr_idr *idr, void *ptr, int start, int end,
					 shr_gfp_t gfp);

/**
 * shr_idr_find() - the pointer mapped to @id, or NULL.
 * Context: Any; takes the RCU read lock. The caller's protocol keeps the
 *          pointer valid (e.g. it stays inside its own RCU section).
 */
SHR_API void *shr_idr_find(struct shr_idr *idr, unsigned long id);

/**
 * shr_idr_replace() - map an allocated @id to a new (non-NULL) pointer.
 * Context: Takes the XArray lock; never allocates.
 * Return: the old pointer, or NULL if @id was not allocated or @ptr is NULL
 *         or internal (nothing stored).
 */
SHR_API void *shr_idr_replace(struct shr_idr *idr, void *ptr, unsigned long id);

/**
 * shr_idr_remove() - free @id.
 * Context: Takes the XArray lock.
 * Return: the pointer it mapped to, or NULL if it was not allocated.
 */
SHR_API void *shr_idr_remove(struct shr_idr *idr, unsigned long id);

/**
 * shr_idr_get_next() - first allocated id >= *@idp; sets *@idp.
 * Context: Any; takes the RCU read lock.
 * Return: its pointer, or NULL if none.
 */
SHR_API void *shr_idr_get_next(struct shr_idr *idr, int *idp);

/** shr_idr_is_empty() - true if no id is allocated. Context: Any. */
SHR_API bool shr_idr_is_empty(const struct shr_idr *idr);

/** shr_ida_init() / shr_ida_destroy(): as for the IDR. */
SHR_API void shr_ida_init(struct shr_ida *ida, struct shr_kmem_cache *node_cache);
SHR_API void shr_ida_destroy(struct shr_ida *ida);

/**
 * shr_ida_alloc_range() - the lowest free id in [@min, @max].
 * Context: Takes the XArray lock; may allocate.
 * Return: the id, -EINVAL (min > max or max > SHR_IDR_MAX), -ENOSPC, -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_ida_alloc_range(struct shr_ida *ida, unsigned int min,
					       unsigned int max, shr_gfp_t gfp);

/**
 * shr_ida_free() - free @id.
 * Context: Takes the XArray lock.
 * Return: 0, or -ENOENT if @id was not allocated.
 */
SHR_API int shr_ida_free(struct shr_ida *ida, unsigned int id);

/** shr_ida_exists() - whether @id is allocated. Context: Any (RCU). */
SHR_API bool shr_ida_exists(struct shr_ida *ida, unsigned int id);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_IDR_H */
