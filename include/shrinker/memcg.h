/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups: the tree, its life cycle and references.
 *
 * Life cycle (the kernel's css phases):
 *   shr_mem_cgroup_alloc()   css_alloc: linked under the parent, visible to
 *                            iterators, a memcg id allocated, its shrinker
 *                            bookkeeping in its empty state, not online.
 *   shr_mem_cgroup_online()  css_online: kmemcg id, shrinker bookkeeping.
 *   shr_mem_cgroup_create()  both of the above (mkdir).
 *   shr_mem_cgroup_offline() rmdir: dying, then css_offline in the kernel's
 *                            order (list_lru reparenting, then deferred-count
 *                            reparenting), then the base reference is put.
 *   last reference put       css_release + css_free after a grace period:
 *                            unlinked, bookkeeping freed, ids released.
 *
 * A cgroup holds a reference on its parent until it is freed, so a parent
 * outlives its dying children. References: the creator owns the base
 * reference until offline; anyone else pins a cgroup with get/tryget.
 */
#ifndef SHRINKER_MEMCG_H
#define SHRINKER_MEMCG_H

#include <limits.h>

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;

/**
 * shr_mem_cgroup_alloc() - allocate a cgroup under @parent (not online).
 * @parent: an online cgroup of the host (the root for a top-level one).
 * @out:    the new cgroup; the caller owns its base reference.
 *
 * Context: Registered thread; takes the host's cgroup mutex. Blocks.
 * Return: 0, -EINVAL (NULL, or @parent not online), -ENOSPC (no memcg id
 *         left, 65535 in use), -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_mem_cgroup_alloc(struct shr_mem_cgroup *parent,
						struct shr_mem_cgroup **out);

/**
 * shr_mem_cgroup_online() - bring an allocated cgroup online.
 * @memcg: the cgroup.
 *
 * Context: Registered thread; takes the cgroup mutex and the registry mutex.
 * Return: 0, -EINVAL (NULL, root, already online, dying, parent offline),
 *         -ENOMEM (the cgroup stays allocated and offline; it can be
 *         retried or released with shr_mem_cgroup_offline()).
 */
SHR_API SHR_MUST_CHECK int shr_mem_cgroup_online(struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_create() - alloc + online (mkdir). On an online failure the
 * half-made cgroup is released and nothing is left behind.
 * @parent: the parent cgroup.
 * @out:    receives the new cgroup.
 *
 * Context: Registered thread. Blocks.
 * Return: as for the two steps.
 */
SHR_API SHR_MUST_CHECK int shr_mem_cgroup_create(struct shr_mem_cgroup *parent,
						 struct shr_mem_cgroup **out);

/**
 * shr_mem_cgroup_offline() - rmdir: take @memcg offline and put its base
 * reference. Objects on its lists move to the parent's lists and its
 * deferred work to the parent's counters. After this call the caller may
 * not use @memcg unless it holds a reference of its own.
 * @memcg: the cgroup.
 *
 * Also releases a cgroup that was allocated but never brought online.
 *
 * Context: Registered thread; takes the cgroup mutex, the list_lru mutex and
 *          the registry mutex. Blocks.
 * Return: 0, -EINVAL (NULL, root, already offline/dying), -EBUSY (it has
 *         children that are not dying; nothing is changed).
 */
SHR_API int shr_mem_cgroup_offline(struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_get() - take a reference on a cgroup the caller pins.
 * @memcg: the cgroup; NULL is a no-op.
 *
 * Context: Any registered thread; @memcg already pinned (a reference or
 *          shr_mem_cgroup_tryget() under RCU).
 */
SHR_API void shr_mem_cgroup_get(struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_tryget() - take a reference unless the count already hit 0.
 * @memcg: the cgroup.
 * Context: Any registered thread; safe under RCU on a cgroup being released.
 * Return: true if a reference was taken.
 */
SHR_API bool shr_mem_cgroup_tryget(struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_put() - drop a reference; the last one frees the cgroup
 * after a grace period. NULL and the root are no-ops.
 * @memcg: the cgroup.
 * Context: Any registered thread.
 */
SHR_API void shr_mem_cgroup_put(struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_iter() - pre-order walk of @root's subtree.
 * @host: the host (needed when @root is NULL).
 * @root: subtree root (NULL = the host root; then @host must be given).
 * @prev: the previous result, or NULL to start. Its reference is dropped.
 *
 * Returns @root first, then its descendants in pre-order, including offline
 * (dying) ones that are not yet released, each with a reference taken (none
 * for the host root). Returns NULL after the last one. A caller that stops
 * early calls shr_mem_cgroup_iter_break().
 *
 * Context: Registered thread, not inside an RCU read-side section.
 * Return: the next cgroup of the walk, or NULL after the last one.
 */
SHR_API struct shr_mem_cgroup *shr_mem_cgroup_iter(struct shr_host *host,
						   struct shr_mem_cgroup *root,
						   struct shr_mem_cgroup *prev);

/**
 * shr_mem_cgroup_iter_break() - drop the reference of an unfinished walk.
 * @root: the walk's @root.
 * @prev: the last cgroup shr_mem_cgroup_iter() returned (NULL: nothing).
 *
 * Context: Any registered thread.
 */
SHR_API void shr_mem_cgroup_iter_break(struct shr_mem_cgroup *root, struct shr_mem_cgroup *prev);

/**
 * shr_mem_cgroup_parent() - the parent.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: the parent, NULL for the root.
 */
SHR_API struct shr_mem_cgroup *shr_mem_cgroup_parent(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_host() - the cgroup's host.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: the host.
 */
SHR_API struct shr_host *shr_mem_cgroup_host(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_is_root() - whether @memcg is its host's root.
 * @memcg: the cgroup.
 *
 * Context: Any.
 * Return: true for the root (false for NULL).
 */
SHR_API bool shr_mem_cgroup_is_root(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_is_online() - CSS_ONLINE.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: true while online (false for NULL).
 */
SHR_API bool shr_mem_cgroup_is_online(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_is_dying() - rmdir'ed (offline or going offline).
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: true once dying (false for NULL).
 */
SHR_API bool shr_mem_cgroup_is_dying(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_id() - the memcg id.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: the id (1..65535; reused only after free), -EINVAL for NULL.
 */
SHR_API int shr_mem_cgroup_id(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_kmemcg_id() - the list_lru index of @memcg.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: the kmemcg id, or -1 (root, NULL, kmem accounting off).
 */
SHR_API int shr_mem_cgroup_kmemcg_id(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_ino() - the cgroup's "inode number" as the debugfs files
 * print it: unique for the host's lifetime, never reused; the root's is 1.
 * @memcg: the cgroup.
 *
 * Context: Any; @memcg pinned.
 * Return: the number, 0 for NULL.
 */
SHR_API unsigned long shr_mem_cgroup_ino(const struct shr_mem_cgroup *memcg);

/**
 * shr_mem_cgroup_from_ino() - the live cgroup with @ino, with a reference.
 * @host: the host.
 * @ino:  as shr_mem_cgroup_ino() gives it.
 *
 * Context: Registered thread.
 * Return: the cgroup (drop it with shr_mem_cgroup_put()), or NULL.
 */
SHR_API struct shr_mem_cgroup *shr_mem_cgroup_from_ino(struct shr_host *host, unsigned long ino);

/**
 * shr_mem_cgroup_is_descendant() - whether @memcg is @root or below it.
 * @memcg: the cgroup.
 * @root:  the subtree's root.
 *
 * Context: Any; both pinned by the caller.
 * Return: true if @memcg is in @root's subtree.
 */
SHR_API bool shr_mem_cgroup_is_descendant(const struct shr_mem_cgroup *memcg,
					  const struct shr_mem_cgroup *root);

/**
 * struct shr_memcg_bookkeeping - per-cgroup shrinker bookkeeping bytes on
 * one node, as the slab allocator reserved them (slot sizes, not requests).
 * @container_bytes: separately allocated containers (pointer arrays, maps).
 * @unit_bytes:      units (64 counters + map) or counter arrays.
 * @xa_node_bytes:   XArray nodes holding units.
 * @inline_bytes:    bytes inside the cgroup structure itself.
 * @nr_units:        units present.
 */
struct shr_memcg_bookkeeping {
	unsigned long container_bytes;
	unsigned long unit_bytes;
	unsigned long xa_node_bytes;
	unsigned long inline_bytes;
	unsigned long nr_units;
};

/**
 * shr_mem_cgroup_bookkeeping() - the bytes of @memcg's shrinker bookkeeping
 * on node @nid (or every node with -1).
 * @memcg: the cgroup.
 * @nid:   the node, or -1 for every node.
 * @out:   receives the bytes.
 *
 * Reports @memcg in whatever state it is: allocated and not yet online (the
 * bookkeeping is initialised at allocation, so it has its empty figure, plus
 * what shr_set_shrinker_bit() installed), online, or dying (what it keeps
 * until it is freed).
 *
 * Context: Registered thread; @memcg pinned. Safe while any cgroup,
 *          @memcg included, is brought online, taken offline or released.
 * Return: 0, -EINVAL (NULL, node out of range).
 */
SHR_API int shr_mem_cgroup_bookkeeping(struct shr_mem_cgroup *memcg, int nid,
				       struct shr_memcg_bookkeeping *out);

/*
 * Byte charges: the in-process memory.current and memory.high.
 *
 * A cache that wants the library to know how much memory each tenant
 * holds charges every object's bytes to the tenant's cgroup when it
 * caches the object and uncharges them when it drops it. Charges are
 * hierarchical, like the kernel's memcg: a charge counts in the cgroup and
 * in every ancestor up to the root, so the root's usage is everything the
 * host's caches hold. Each cgroup has a high boundary (no boundary by
 * default); the root's is the host's budget. A charge always succeeds (there
 * is no max): when it leaves a cgroup over its high, the cgroup's "high"
 * event counter rises and the host's reclaimer (<shrinker/reclaimer.h>), if
 * one runs, is woken to bring it back under, as the kernel's memory.high
 * routes the charging task into reclaim, but without making the caller wait.
 *
 * The charging path is a few relaxed atomics per level (and, on a crossing,
 * one eventfd write while the reclaimer has not yet answered an earlier
 * one); a cgroup's counters are allocated on its first charge or
 * shr_mem_cgroup_set_high(), so hosts and tenants that never charge pay
 * nothing.
 *
 * Contract: uncharge exactly what was charged, to the same cgroup, while
 * holding a reference on it (a cached object that pins its owner, as in
 * examples/tenant_cache.c, does). Uncharge an object's bytes in the scan
 * callback that drops it (not later, e.g. after a grace period): reclaim
 * counts what it freed by the uncharges made by its own thread.
 */

/* "No boundary": the high of a cgroup that has none (memory.high "max"). */
#define SHR_PAGE_COUNTER_MAX ((unsigned long)LONG_MAX)

/**
 * shr_mem_cgroup_charge() - charge @bytes to @memcg and its ancestors.
 * @memcg: a cgroup of the host, pinned by the caller (any state: a dying
 *         cgroup's charges still count in its ancestors).
 * @bytes: 1..SHR_PAGE_COUNTER_MAX.
 *
 * Context: Registered thread. Does not wait for reclaim (the first charge
 *          of a cgroup allocates its counters from the host's slab
 *          allocator).
 * Return: 0 (charged, no cgroup on the path is over its high), 1 (charged,
 *         and @memcg or an ancestor is over its high: the reclaimer was
 *         notified), -EINVAL (NULL, @bytes 0 or too large), -EOVERFLOW
 *         (@memcg's or an ancestor's usage would pass SHR_PAGE_COUNTER_MAX:
 *         nothing charged), -ENOMEM (nothing charged).
 */
SHR_API SHR_MUST_CHECK int shr_mem_cgroup_charge(struct shr_mem_cgroup *memcg,
						 unsigned long bytes);

/**
 * shr_mem_cgroup_uncharge() - give back @bytes charged to @memcg.
 * @memcg: the cgroup charged.
 * @bytes: what to uncharge.
 *
 * Bytes uncharged by a thread while it reclaims (the reclaimer's rounds)
 * count as reclaimed, in @memcg's and its ancestors' statistics and in the
 * round's progress.
 *
 * Context: Any thread; does not wait.
 * Return: 0, -EINVAL (NULL, @bytes 0, or more than @memcg holds: nothing
 *         changed).
 */
SHR_API int shr_mem_cgroup_uncharge(struct shr_mem_cgroup *memcg, unsigned long bytes);

/**
 * shr_mem_cgroup_set_high() - set @memcg's high boundary (memory.high), in
 * bytes; SHR_PAGE_COUNTER_MAX removes it. On the root it is the host's
 * budget. A boundary below the current usage notifies the reclaimer.
 * @memcg: the cgroup.
 * @high:  the boundary, in bytes.
 *
 * Context: Registered thread.
 * Return: 0, -EINVAL (NULL, @high above SHR_PAGE_COUNTER_MAX), -ENOMEM
 *         (the counters could not be allocated; nothing changed).
 */
SHR_API int shr_mem_cgroup_set_high(struct shr_mem_cgroup *memcg, unsigned long high);

/**
 * shr_mem_cgroup_usage() - bytes charged to @memcg and its descendants
 * (memory.current).
 * @memcg: the cgroup.
 *
 * Context: Any.
 * Return: the bytes; 0 for NULL or a cgroup that never had a charge.
 */
SHR_API unsigned long shr_mem_cgroup_usage(struct shr_mem_cgroup *memcg);

/**
 * struct shr_memcg_memory_stat - a cgroup's charges (all in bytes but the
 * event count; each counts @memcg and its descendants).
 * @usage:       memory.current.
 * @high:        memory.high (SHR_PAGE_COUNTER_MAX: none).
 * @peak:        memory.peak: the highest usage a charge left.
 * @events_high: memory.events "high": charges that left @memcg over its
 *               high.
 * @reclaimed:   bytes uncharged by reclaim (the reclaimer's rounds).
 */
struct shr_memcg_memory_stat {
	unsigned long usage;
	unsigned long high;
	unsigned long peak;
	unsigned long events_high;
	unsigned long reclaimed;
};

/**
 * shr_mem_cgroup_memory_stat() - read @memcg's charges.
 * @memcg: the cgroup.
 * @out:   receives the statistics.
 * Context: Any; @memcg pinned.
 * Return: 0, -EINVAL (NULL).
 */
SHR_API int shr_mem_cgroup_memory_stat(struct shr_mem_cgroup *memcg,
				       struct shr_memcg_memory_stat *out);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_MEMCG_H */
