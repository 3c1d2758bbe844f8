/* SPDX-License-Identifier: MIT */
/*
 * XArray: a sparse array of pointers indexed by unsigned long, with the
 * Linux kernel's reader guarantees.
 *
 * Entries: pointers aligned to 4 bytes, or value entries made with
 * shr_xa_mk_value(). Pointers whose low two bits are 10 are internal to the
 * XArray and rejected by the store functions (-EINVAL).
 *
 * Readers (shr_xa_load, shr_xa_find*, shr_xa_get_mark, the for_each macros)
 * are lockless: they take the RCU read lock themselves, and may also be
 * called with it held. An entry returned to a reader stays valid only as long
 * as the caller's own protocol says (typically its RCU section).
 *
 * Writers serialise on the array's own lock, xa_lock, which they take
 * themselves; the *_locked variants expect the caller to hold it (compound
 * updates). Allocation of nodes happens with xa_lock held: xa_lock ranks
 * above the slab allocator's locks in the lock order, so that is allowed.
 * A store that cannot allocate returns an error entry (-ENOMEM) and leaves
 * the array unchanged.
 *
 * Nodes: SHR_XA_CHUNK_SIZE slots (64 by default; a build option makes them
 * 4 so tests reach deep trees). An empty array is one NULL head pointer; a
 * lone entry at index 0 is stored in the head without a node. Nodes come
 * from the slab cache given at init and are freed after an RCU grace period;
 * the tree shrinks when entries go.
 *
 * Marks: SHR_XA_MARK_0..2 per entry, summarised up the tree, so a marked walk
 * skips unmarked subtrees. Arrays initialised with SHR_XA_FLAGS_ALLOC keep
 * mark 0 for free-slot tracking (used by shr_xa_alloc()) and offer marks 1
 * and 2 to users.
 */
#ifndef SHRINKER_XARRAY_H
#define SHRINKER_XARRAY_H

#include <pthread.h>

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_kmem_cache;

typedef unsigned int shr_xa_mark_t;
#define SHR_XA_MARK_0 0u
#define SHR_XA_MARK_1 1u
#define SHR_XA_MARK_2 2u
#define SHR_XA_MAX_MARKS 3u
/* Filter for shr_xa_find(): any present entry. */
#define SHR_XA_PRESENT 8u

/* Track free slots with mark 0 so shr_xa_alloc() finds the lowest free id. */
#define SHR_XA_FLAGS_ALLOC (1u << 0)

/*
 * The private fields readers load without xa_lock are C11 atomics; C++,
 * which has no _Atomic, sees the plain type of the same size and alignment
 * (it has no business with private fields).
 */
#ifdef __cplusplus
#define SHR_XA_ATOMIC(type) type
#else
#define SHR_XA_ATOMIC(type) _Atomic(type)
#endif

/**
 * struct shr_xarray - the array; embed it, do not allocate it on its own.
 */
struct shr_xarray {
	/* private: */
	/* Serialises writers. Sync: itself. */
	pthread_mutex_t xa_lock;
	/* Root pointer: NULL, an entry (index 0 only) or a node. Sync: RCU;
	 * written under xa_lock. */
	void *xa_head;
	/* SHR_XA_FLAGS_* plus per-mark "head is marked" bits. Sync: written
	 * under xa_lock; read atomically by readers. */
	SHR_XA_ATOMIC(unsigned int) xa_flags;
	/* Node count, for memory attribution. Sync: written under xa_lock;
	 * read atomically. */
	SHR_XA_ATOMIC(unsigned long) xa_nr_nodes;
	/* Where nodes come from. Sync: immutable after init. */
	struct shr_kmem_cache *xa_node_cache;
	/* Node the nodes' pages come from. Sync: immutable after init. */
	int xa_nid;
};

/**
 * shr_xa_node_size() - bytes of one node (the size its slab cache must have).
 *
 * Context: Any.
 * Return: the size.
 */
SHR_API size_t shr_xa_node_size(void);

/**
 * shr_xa_init() - initialise an empty array.
 * @xa:         the array.
 * @node_cache: slab cache of shr_xa_node_size() objects the nodes come from.
 * @nid:        node for node allocations (SHR_NUMA_NO_NODE for any).
 * @flags:      0 or SHR_XA_FLAGS_ALLOC.
 *
 * Context: Any; @xa not yet visible to other threads.
 */
SHR_API void shr_xa_init(struct shr_xarray *xa, struct shr_kmem_cache *node_cache, int nid,
			 unsigned int flags);

/**
 * shr_xa_destroy() - free every node; entries are not freed (the caller owns
 * them). The array is empty afterwards. Nodes are freed after a grace period.
 * @xa: the array.
 *
 * The array stays initialised, xa_lock included: it may be used again, or
 * the caller may pthread_mutex_destroy(&xa->xa_lock) and free its memory at
 * once (the deferred node frees do not touch @xa). Readers still inside an
 * RCU section may keep walking the old nodes until the grace period ends.
 *
 * Context: Takes xa_lock.
 */
SHR_API void shr_xa_destroy(struct shr_xarray *xa);

/**
 * shr_xa_empty() - whether no entry is present.
 * @xa: the array.
 *
 * Context: Any.
 * Return: true if empty.
 */
SHR_API bool shr_xa_empty(const struct shr_xarray *xa);

/**
 * shr_xa_nr_nodes() - nodes currently allocated.
 * @xa: the array.
 *
 * Context: Any.
 * Return: the node count.
 */
SHR_API unsigned long shr_xa_nr_nodes(const struct shr_xarray *xa);

/**
 * shr_xa_load() - the entry at @index.
 * @xa:    the array.
 * @index: the index.
 *
 * Context: Any; takes the RCU read lock.
 * Return: the entry, or NULL.
 */
SHR_API void *shr_xa_load(struct shr_xarray *xa, unsigned long index);

/**
 * shr_xa_store() - store @entry at @index, replacing what was there.
 * Storing NULL erases. Marks of the slot are kept on replacement and cleared
 * on erase.
 * @xa:    the array.
 * @index: the index.
 * @entry: the new entry (NULL erases).
 * @gfp:   for node allocations.
 *
 * Context: Takes xa_lock; may allocate nodes.
 * Return: the old entry, or an error entry (check with shr_xa_is_err()):
 *         -EINVAL for an internal entry, -ENOMEM (array unchanged).
 */
SHR_API void *shr_xa_store(struct shr_xarray *xa, unsigned long index, void *entry, shr_gfp_t gfp);

/**
 * shr_xa_store_locked() - shr_xa_store() with xa_lock held by the caller.
 * @xa:    the array.
 * @index: the index.
 * @entry: the new entry (NULL erases).
 * @gfp:   for node allocations.
 *
 * Context: xa_lock held; may allocate.
 * Return: as shr_xa_store().
 */
SHR_API void *shr_xa_store_locked(struct shr_xarray *xa, unsigned long index, void *entry,
				  shr_gfp_t gfp);

/**
 * shr_xa_insert() - store @entry only if @index is empty.
 * @xa:    the array.
 * @index: the index.
 * @entry: the entry.
 * @gfp:   for node allocations.
 * Context: Takes xa_lock; may allocate.
 * Return: 0, -EBUSY (occupied), -EINVAL (NULL or internal entry), -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_xa_insert(struct shr_xarray *xa, unsigned long index, void *entry,
					 shr_gfp_t gfp);

/**
 * shr_xa_insert_locked() - shr_xa_insert() with xa_lock held.
 * @xa:    the array.
 * @index: the index.
 * @entry: the entry.
 * @gfp:   for node allocations.
 *
 * Context: xa_lock held; may allocate.
 * Return: as shr_xa_insert().
 */
SHR_API SHR_MUST_CHECK int shr_xa_insert_locked(struct shr_xarray *xa, unsigned long index,
						void *entry, shr_gfp_t gfp);

/**
 * shr_xa_cmpxchg() - store @entry at @index if the current entry is @old.
 * @xa:    the array.
 * @index: the index.
 * @old:   the entry expected.
 * @entry: the new entry.
 * @gfp:   for node allocations.
 * Context: Takes xa_lock; may allocate.
 * Return: the entry that was there (== @old on success), or an error entry.
 */
SHR_API void *shr_xa_cmpxchg(struct shr_xarray *xa, unsigned long index, void *old, void *entry,
			     shr_gfp_t gfp);

/**
 * shr_xa_erase() - remove the entry at @index.
 * @xa:    the array.
 * @index: the index.
 * Context: Takes xa_lock.
 * Return: the old entry or NULL.
 */
SHR_API void *shr_xa_erase(struct shr_xarray *xa, unsigned long index);

/**
 * shr_xa_erase_locked() - shr_xa_erase() with xa_lock held.
 * @xa:    the array.
 * @index: the index.
 *
 * Context: xa_lock held.
 * Return: the old entry or NULL.
 */
SHR_API void *shr_xa_erase_locked(struct shr_xarray *xa, unsigned long index);

/**
 * shr_xa_set_mark() - set @mark on a present entry; a no-op if @index is
 * empty or @mark >= SHR_XA_MAX_MARKS. With SHR_XA_FLAGS_ALLOC, mark 0 is
 * reserved and this is a no-op for it (and shr_xa_get_mark(),
 * shr_xa_marked() and shr_xa_find() treat it as never set).
 * @xa:    the array.
 * @index: the index.
 * @mark:  the mark.
 *
 * Context: Takes xa_lock.
 */
SHR_API void shr_xa_set_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark);

/**
 * shr_xa_clear_mark() - clear @mark on a present entry; a no-op if @index is
 * empty or @mark >= SHR_XA_MAX_MARKS. Mark 0 of an SHR_XA_FLAGS_ALLOC array
 * is reserved, as for shr_xa_set_mark().
 * @xa:    the array.
 * @index: the index.
 * @mark:  the mark.
 *
 * Context: Takes xa_lock.
 */
SHR_API void shr_xa_clear_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark);

/**
 * shr_xa_set_mark_locked() - shr_xa_set_mark() with xa_lock held.
 * @xa:    the array.
 * @index: the index.
 * @mark:  the mark.
 *
 * Context: xa_lock held.
 */
SHR_API void shr_xa_set_mark_locked(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark);

/**
 * shr_xa_clear_mark_locked() - shr_xa_clear_mark() with xa_lock held.
 * @xa:    the array.
 * @index: the index.
 * @mark:  the mark.
 *
 * Context: xa_lock held.
 */
SHR_API void shr_xa_clear_mark_locked(struct shr_xarray *xa, unsigned long index,
				      shr_xa_mark_t mark);

/**
 * shr_xa_get_mark() - whether the entry at @index has @mark.
 * @xa:    the array.
 * @index: the index.
 * @mark:  the mark.
 *
 * Context: Any; takes the RCU read lock.
 * Return: true if the entry is present and marked.
 */
SHR_API bool shr_xa_get_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark);

/**
 * shr_xa_marked() - whether any entry of the array has @mark.
 * @xa:   the array.
 * @mark: the mark.
 *
 * Context: Any.
 * Return: true if some entry has @mark.
 */
SHR_API bool shr_xa_marked(const struct shr_xarray *xa, shr_xa_mark_t mark);

/**
 * shr_xa_find() - first entry at or after *@indexp, up to @max inclusive,
 * that matches @filter (a mark, or SHR_XA_PRESENT).
 * On success *@indexp is set to its index.
 * @xa:     the array.
 * @indexp: the index to start at; receives the entry's.
 * @max:    the last index looked at.
 * @filter: a mark, or SHR_XA_PRESENT.
 *
 * Context: Any; takes the RCU read lock.
 * Return: the entry, or NULL (then *@indexp is unspecified).
 */
SHR_API void *shr_xa_find(struct shr_xarray *xa, unsigned long *indexp, unsigned long max,
			  shr_xa_mark_t filter);

/**
 * shr_xa_find_after() - like shr_xa_find() but strictly after *@indexp.
 * @xa:     the array.
 * @indexp: the index to start after; receives the entry's.
 * @max:    the last index looked at.
 * @filter: a mark, or SHR_XA_PRESENT.
 *
 * Context: Any; takes the RCU read lock.
 * Return: the entry, or NULL, also when *@indexp is already @max or ULONG_MAX.
 */
SHR_API void *shr_xa_find_after(struct shr_xarray *xa, unsigned long *indexp, unsigned long max,
				shr_xa_mark_t filter);

/* Iterate present entries in index order. Safe against concurrent change. */
#define shr_xa_for_each(xa, index, entry)                                              \
	for ((index) = 0, (entry) = shr_xa_find((xa), &(index), ~0UL, SHR_XA_PRESENT); \
	     (entry); (entry) = shr_xa_find_after((xa), &(index), ~0UL, SHR_XA_PRESENT))

/* Iterate entries that have @filter set. */
#define shr_xa_for_each_marked(xa, index, entry, filter)                       \
	for ((index) = 0, (entry) = shr_xa_find((xa), &(index), ~0UL, (filter)); \
	     (entry); (entry) = shr_xa_find_after((xa), &(index), ~0UL, (filter)))

/**
 * shr_xa_alloc() - store @entry at the lowest free index in [@min, @max].
 * @xa:    the array (initialised with SHR_XA_FLAGS_ALLOC: only those).
 * @idp:   receives the index.
 * @entry: the entry.
 * @min:   the lowest index wanted.
 * @max:   the highest index wanted.
 * @gfp:   for node allocations.
 *
 * Context: Takes xa_lock; may allocate.
 * Return: 0, -EBUSY (no free index in range), -EINVAL (array without
 *         SHR_XA_FLAGS_ALLOC, NULL or internal @entry, @min > @max),
 *         -ENOMEM (array unchanged).
 */
SHR_API SHR_MUST_CHECK int shr_xa_alloc(struct shr_xarray *xa, uint32_t *idp, void *entry,
					uint32_t min, uint32_t max, shr_gfp_t gfp);

/**
 * shr_xa_lock() - take xa_lock, for the _locked variants.
 * @xa: the array.
 *
 * Context: Registered thread; xa_lock not held by the caller.
 */
SHR_API void shr_xa_lock(struct shr_xarray *xa);

/**
 * shr_xa_unlock() - release xa_lock.
 * @xa: the array.
 *
 * Context: xa_lock held by the caller.
 */
SHR_API void shr_xa_unlock(struct shr_xarray *xa);

/* Value entries: integers stored in the array without memory of their own. */
static inline void *shr_xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1UL);
}

static inline unsigned long shr_xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

static inline bool shr_xa_is_value(const void *entry)
{
	return ((unsigned long)entry & 1UL) != 0;
}

/*
 * Error entries, returned only by store-like functions: the internal entry
 * ((unsigned long)errno << 2) | 2 for a negative errno in -4095..-1. Decoded
 * with unsigned arithmetic only (no shift of a negative number).
 */
#define SHR_XA_ERR_MIN_ENTRY (0UL - 4095UL * 4UL + 2UL)

static inline bool shr_xa_is_err(const void *entry)
{
	unsigned long v = (unsigned long)entry;

	return (v & 3UL) == 2UL && v >= SHR_XA_ERR_MIN_ENTRY;
}

static inline int shr_xa_err(const void *entry)
{
	if (!shr_xa_is_err(entry))
		return 0;
	/* v >> 2 == ULONG_MAX / 4 + 1 - e for errno -e. */
	return -(int)((~0UL >> 2) + 1UL - ((unsigned long)entry >> 2));
}

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_XARRAY_H */
