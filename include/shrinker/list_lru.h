/* SPDX-License-Identifier: MIT */
/*
 * list_lru: LRU lists of objects per node and per memory cgroup, the
 * structure memcg-aware shrinkers scan (Linux 6.13+ design).
 *
 * A memcg-aware list_lru keeps, per node, one root list plus, per cgroup
 * that ever held objects on it, one list per node; those per-cgroup lists
 * are allocated on demand, ancestors first, in an XArray keyed by the
 * cgroup's kmemcg id. Adding the first object to a cgroup's list on a node
 * sets the shrinker's bit for that cgroup and node. At cgroup offline the
 * lists are spliced onto the parent's, marked dead, and freed after a grace
 * period. With kmem accounting off every list_lru is plain (root lists only).
 *
 * Items are intrusive: embed a struct shr_list_head in the object.
 */
#ifndef SHRINKER_LIST_LRU_H
#define SHRINKER_LIST_LRU_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;
struct shr_shrinker;
struct shr_shrink_control;
struct shr_list_lru;
struct shr_list_lru_one;

/** struct shr_list_head - list link embedded in each object. */
struct shr_list_head {
	struct shr_list_head *next, *prev;
};

/** shr_list_head_init() - an unlinked item (call before the first add). */
static inline void shr_list_head_init(struct shr_list_head *item)
{
	item->next = item;
	item->prev = item;
}

/** shr_list_head_empty() - true if the item is on no list. */
static inline bool shr_list_head_empty(const struct shr_list_head *item)
{
	return item->next == item;
}

/*
 * The list helpers below are the only ones: the library's lists, the
 * consumer's dispose lists and the tests' lists all use them. None takes a
 * lock; the caller holds whatever protects the list.
 */

/**
 * shr_list_add_tail() - link @item at the tail of the list @head.
 * Context: the caller serialises access to the list.
 */
static inline void shr_list_add_tail(struct shr_list_head *item, struct shr_list_head *head)
{
	struct shr_list_head *last = head->prev;

	item->next = head;
	item->prev = last;
	last->next = item;
	head->prev = item;
}

/**
 * shr_list_del_init() - unlink @item from its list and leave it unlinked
 * (shr_list_head_empty() is then true).
 * Context: the caller serialises access to the list.
 */
static inline void shr_list_del_init(struct shr_list_head *item)
{
	item->prev->next = item->next;
	item->next->prev = item->prev;
	shr_list_head_init(item);
}

/**
 * shr_list_splice_init() - move every item of @from to the front of @to,
 * keeping their order; @from is left empty.
 * Context: the caller serialises access to both lists.
 */
static inline void shr_list_splice_init(struct shr_list_head *from, struct shr_list_head *to)
{
	struct shr_list_head *first = from->next;
	struct shr_list_head *last = from->prev;

	if (first == from)
		return;
	last->next = to->next;
	to->next->prev = last;
	to->next = first;
	first->prev = to;
	shr_list_head_init(from);
}

/**
 * enum shr_lru_status - what an isolate callback did. The list's lock is
 * held when the callback is entered.
 */
enum shr_lru_status {
	/* Removed the item with shr_list_lru_isolate*(); lock still held. */
	SHR_LRU_REMOVED,
	/* Removed the item and dropped the lock; the walk restarts. */
	SHR_LRU_REMOVED_RETRY,
	/* Lock held; the item goes to the tail. */
	SHR_LRU_ROTATE,
	/* Lock held; the item stays. */
	SHR_LRU_SKIP,
	/* Dropped the lock; the walk restarts. */
	SHR_LRU_RETRY,
	/* Dropped the lock; the walk ends now. */
	SHR_LRU_STOP,
};

typedef enum shr_lru_status (*shr_list_lru_walk_cb)(struct shr_list_head *item,
						    struct shr_list_lru_one *list,
						    void *cb_arg);

/**
 * shr_list_lru_init_memcg() - create a list_lru bound to @shrinker.
 * @host:     the host.
 * @shrinker: a MEMCG_AWARE shrinker of @host (its id is copied), or NULL
 *            for a plain, not memcg-aware list_lru.
 * @out:      the new list_lru.
 *
 * Memcg-aware only when @shrinker is memcg-aware and kmem accounting is on.
 * Context: Registered thread; takes the host's list_lru mutex.
 * Return: 0, -EINVAL, -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_list_lru_init_memcg(struct shr_host *host,
						   struct shr_shrinker *shrinker,
						   struct shr_list_lru **out);

/**
 * shr_list_lru_init() - a plain list_lru (no cgroups, no shrinker):
 * shr_list_lru_init_memcg() with a NULL shrinker.
 * @host: the host.
 * @out:  the new list_lru.
 *
 * Context: Registered thread; takes the host's list_lru mutex.
 * Return: 0, -EINVAL, -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_list_lru_init(struct shr_host *host, struct shr_list_lru **out);

/**
 * shr_list_lru_destroy() - free an empty list_lru and its per-cgroup lists.
 * @lru: the list_lru.
 *
 * The owner removes every item first (walk or del; the kernel's users evict
 * their objects before list_lru_destroy()). A list_lru that still holds
 * items is not destroyed: freeing it would leave them linked to freed list
 * heads, and unlinking them would hide a teardown that forgot objects.
 * NULL is a no-op.
 *
 * Context: Registered thread; no concurrent users; takes the list_lru mutex.
 * Return: 0 (destroyed, or NULL), -EINVAL (not a live list_lru), -EBUSY
 *         (items are still on it: nothing is changed, the list_lru stays
 *         usable).
 */
SHR_API int shr_list_lru_destroy(struct shr_list_lru *lru);

/**
 * shr_list_lru_memcg_aware() - whether the list_lru keeps per-cgroup lists.
 * @lru: the list_lru.
 *
 * Context: Any.
 * Return: true if it is memcg-aware (false for NULL or a list_lru that is not
 *         live).
 */
SHR_API bool shr_list_lru_memcg_aware(const struct shr_list_lru *lru);

/**
 * shr_memcg_list_lru_alloc() - make sure @memcg (and its ancestors) have
 * lists on @lru, as the slab hook does before an object is charged. A no-op
 * for plain list_lrus, the root, and cgroups that have lists. Dying cgroups
 * get none (their objects go to the nearest living ancestor's list).
 * @memcg: the cgroup.
 * @lru:   the list_lru.
 * @gfp:   for the allocations.
 *
 * Context: Registered thread; @memcg pinned; may allocate.
 * Return: 0, -EINVAL, -ENOMEM (lists created so far stay; consistent).
 */
SHR_API SHR_MUST_CHECK int shr_memcg_list_lru_alloc(struct shr_mem_cgroup *memcg,
						    struct shr_list_lru *lru, shr_gfp_t gfp);

/**
 * shr_list_lru_add() - add @item at the tail of (@nid, @memcg)'s list.
 * @lru:   the list_lru.
 * @item:  the object's link (unlinked, or already on a list).
 * @nid:   the object's node.
 * @memcg: the cgroup the object is charged to (NULL or the root: root
 *         list). Its lists are allocated on demand when missing; a dying
 *         cgroup's item goes to the nearest ancestor that has a list.
 *
 * Context: Registered thread; @memcg pinned; takes the list's lock, and,
 *          when the cgroup's lists must be created, the host's list_lru
 *          mutex: so never call it from inside an isolate callback (a list
 *          lock is held there).
 * Return: 1 added, 0 already on a list, -EINVAL (NULL, node out of range,
 *         foreign cgroup), -ENOMEM (the list, or the root's bookkeeping
 *         under SHR_SHRINKER_ROOT_BITS, could not be allocated; nothing
 *         changed).
 */
SHR_API int shr_list_lru_add(struct shr_list_lru *lru, struct shr_list_head *item, int nid,
			     struct shr_mem_cgroup *memcg);

/**
 * shr_list_lru_del() - remove @item; (@nid, @memcg) must be what it was
 * added with (after reparenting they resolve to the ancestor holding it).
 * Never clears bits.
 * @lru:   the list_lru.
 * @item:  the object's link.
 * @nid:   the node it was added with.
 * @memcg: the cgroup it was added with.
 *
 * An @item that is on a list other than the one (@lru, @nid, @memcg)
 * resolves to is refused with -EINVAL and nothing changes: always when that
 * list is empty (its count would go negative), and in every case in debug
 * builds (-Ddebug_checks=true: SHR_DEBUG_CHECKS, which look for @item on
 * the list, at a cost of its distance to the nearer end). Release builds
 * cannot tell an item of another non-empty list: they unlink it and both
 * lists' counts go wrong.
 *
 * Context: Registered thread; @memcg pinned; takes the list's lock.
 * Return: 1 removed, 0 it was on no list, -EINVAL (NULL, node out of range,
 *         foreign cgroup, @item on another list, as above).
 */
SHR_API int shr_list_lru_del(struct shr_list_lru *lru, struct shr_list_head *item, int nid,
			     struct shr_mem_cgroup *memcg);

/**
 * shr_list_lru_count_one() - items on (@nid, @memcg)'s own list.
 * @lru:   the list_lru.
 * @nid:   the node.
 * @memcg: the cgroup (NULL or the root: the root list).
 *
 * Context: Any registered thread; lockless.
 * Return: the count; 0 if the cgroup has no list (negative counts read as 0).
 */
SHR_API unsigned long shr_list_lru_count_one(struct shr_list_lru *lru, int nid,
					     struct shr_mem_cgroup *memcg);

/**
 * shr_list_lru_shrink_count() - shr_list_lru_count_one(sc->nid, sc->memcg),
 * for count_objects callbacks.
 * @lru: the list_lru.
 * @sc:  the reclaim call's context.
 *
 * Context: Any registered thread; lockless.
 * Return: the count.
 */
SHR_API unsigned long shr_list_lru_shrink_count(struct shr_list_lru *lru,
						struct shr_shrink_control *sc);

/**
 * shr_list_lru_count_node() - items on node @nid across all cgroups.
 * @lru: the list_lru.
 * @nid: the node.
 *
 * Context: Any registered thread; lockless.
 * Return: the count; 0 for a bad @lru or @nid.
 */
SHR_API unsigned long shr_list_lru_count_node(struct shr_list_lru *lru, int nid);

/**
 * shr_list_lru_count() - items on every node.
 * @lru: the list_lru.
 *
 * Context: Any registered thread; lockless.
 * Return: the sum of shr_list_lru_count_node() over the nodes.
 */
SHR_API unsigned long shr_list_lru_count(struct shr_list_lru *lru);

/**
 * shr_list_lru_walk_one() - walk (@nid, @memcg)'s list from the head,
 * calling @isolate per item while *@nr_to_walk > 0 (each call consumes one).
 * @lru:        the list_lru.
 * @nid:        the node.
 * @memcg:      the cgroup (NULL or the root: the root list).
 * @isolate:    called per item with the list's lock held.
 * @cb_arg:     passed to @isolate.
 * @nr_to_walk: the budget.
 * Context: Registered thread; @memcg pinned; takes and releases the list's
 *          lock (see enum shr_lru_status).
 * Return: items removed.
 */
SHR_API unsigned long shr_list_lru_walk_one(struct shr_list_lru *lru, int nid,
					    struct shr_mem_cgroup *memcg,
					    shr_list_lru_walk_cb isolate, void *cb_arg,
					    unsigned long *nr_to_walk);

/**
 * shr_list_lru_shrink_walk() - shr_list_lru_walk_one(sc->nid, sc->memcg)
 * with &sc->nr_to_scan as the budget, for scan_objects callbacks.
 * @lru:     the list_lru.
 * @sc:      the reclaim call's context.
 * @isolate: called per item with the list's lock held.
 * @cb_arg:  passed to @isolate.
 *
 * Context: Registered thread; sc->memcg pinned; takes and releases the list's
 *          lock (see enum shr_lru_status).
 * Return: items removed.
 */
SHR_API unsigned long shr_list_lru_shrink_walk(struct shr_list_lru *lru,
					       struct shr_shrink_control *sc,
					       shr_list_lru_walk_cb isolate, void *cb_arg);

/**
 * shr_list_lru_walk_node() - the root list of @nid, then every cgroup's list
 * on @nid in kmemcg id order, until the budget is spent.
 * @lru:        the list_lru.
 * @nid:        the node.
 * @isolate:    called per item with the list's lock held.
 * @cb_arg:     passed to @isolate.
 * @nr_to_walk: the budget, consumed one per call of @isolate.
 *
 * Context: Registered thread; takes and releases each list's lock in turn.
 * Return: items removed.
 */
SHR_API unsigned long shr_list_lru_walk_node(struct shr_list_lru *lru, int nid,
					     shr_list_lru_walk_cb isolate, void *cb_arg,
					     unsigned long *nr_to_walk);

/**
 * shr_list_lru_walk() - shr_list_lru_walk_node() over every node until the
 * budget is spent.
 * @lru:        the list_lru.
 * @isolate:    called per item with the list's lock held.
 * @cb_arg:     passed to @isolate.
 * @nr_to_walk: the budget.
 *
 * Context: Registered thread; takes and releases each list's lock in turn.
 * Return: items removed.
 */
SHR_API unsigned long shr_list_lru_walk(struct shr_list_lru *lru, shr_list_lru_walk_cb isolate,
					void *cb_arg, unsigned long nr_to_walk);

/**
 * shr_list_lru_isolate() - unlink @item from @list inside an isolate
 * callback; decrements the list's count.
 * @list: the list the callback was given.
 * @item: the item the callback was given.
 *
 * Context: Inside an isolate callback, the list's lock held.
 */
SHR_API void shr_list_lru_isolate(struct shr_list_lru_one *list, struct shr_list_head *item);

/**
 * shr_list_lru_isolate_move() - like shr_list_lru_isolate(), then append
 * @item to the caller's private list @head (dispose later, outside the lock).
 * @list: the list the callback was given.
 * @item: the item the callback was given.
 * @head: the caller's list.
 *
 * Context: Inside an isolate callback, the list's lock held.
 */
SHR_API void shr_list_lru_isolate_move(struct shr_list_lru_one *list, struct shr_list_head *item,
				       struct shr_list_head *head);

/**
 * shr_list_lru_one_unlock() - drop the list's lock inside a callback that
 * returns SHR_LRU_REMOVED_RETRY, SHR_LRU_RETRY or SHR_LRU_STOP.
 * @list: the list the callback was given.
 *
 * Context: Inside an isolate callback, the list's lock held; it is not held
 *          on return.
 */
SHR_API void shr_list_lru_one_unlock(struct shr_list_lru_one *list);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_LIST_LRU_H */
