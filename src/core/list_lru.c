/* SPDX-License-Identifier: MIT */
/*
 * list_lru: per-node, per-cgroup LRU lists (Linux 6.13+ design).
 *
 * Layout. A list_lru has, per node, a root list and an atomic node total.
 * A memcg-aware one also has an XArray kmemcg id -> struct
 * shr_list_lru_memcg (one list per node for that cgroup) and sits on
 * host->list_lrus. Each published per-cgroup list is also linked on its
 * cgroup's memcg->lru_lists, so offline can find a cgroup's lists without
 * visiting every list_lru (SHR_LRU_REPARENT_PER_CGROUP). All memory comes
 * from the host's slab allocator.
 *
 * Invariants.
 *  I1 Ancestors first: if a cgroup has a list on a list_lru, every ancestor
 *     has one too (the root's are the root lists, which always exist).
 *     shr_memcg_list_lru_alloc() creates lists top-down; a dying cgroup never
 *     gets one; offline removes a cgroup's lists only after its children
 *     are dying and reparented. So a lookup that misses can climb to the
 *     parent and is guaranteed to end at the latest at the root.
 *  I2 Dead marker: reparenting, under each list's lock, moves the items to
 *     the parent and sets nr_items = LONG_MIN, then erases the cgroup's
 *     entry from the XArray. A thread that found the list and locks it
 *     after the move sees LONG_MIN and treats the list as absent (climbs,
 *     or skips when walking); a thread that misses the entry climbs and
 *     finds the items already moved. The memory stays valid for it: the
 *     lookup ran under RCU and the free is deferred by a grace period queued
 *     after the dead marker was written under the lock.
 *  I3 Counts: a list's nr_items changes only under its lock; node totals
 *     are atomics changed after the list operation (so count_node may lag
 *     a list by one operation, as in the kernel). Counting readers clamp
 *     negative values (LONG_MIN) to 0.
 *  I4 Units: every published per-cgroup list is preceded by one
 *     info_ops->install(cgroup, shrinker_id) and followed, when it goes
 *     (offline or destroy), by one info_ops->uninstall(); a list that loses
 *     the publication race is uninstalled at once. Designs may refcount.
 *
 * Bits. When a list goes 0 -> 1 item, list_lru_add sets the shrinker's bit
 * for the cgroup that owns the list: the caller's cgroup, or, when the
 * caller's cgroup is dying and its list is gone, the ancestor whose list
 * took the item. (The kernel sets the dying caller's bit, which reclaim
 * never reads, since offline cgroups are not scanned: the item could then
 * sit on the ancestor's list with the ancestor's bit clear. Deliberate
 * difference, see docs/design/ARCHITECTURE.md.) Under root bits (a
 * SHR_SHRINKER_ROOT_BITS shrinker and a design that indexes the root), a
 * root list going 0 -> 1 sets the root's bit too; the root's bookkeeping is
 * installed once before the first add or cgroup list (lru_root_install())
 * and uninstalled at destroy. Bits are never cleared here; reclaim
 * clears them when count says SHR_SHRINK_EMPTY. The bit is set after the
 * item is on the list, under the list's lock; info_ops->set_bit issues the
 * full barrier that pairs with the one shrink_slab puts between clearing a
 * bit and calling count again:
 *
 *     list_lru_add                    shrink_slab (memcg)
 *     list_add_tail(item)             clear_bit(id)
 *     [full barrier in set_bit]       [full barrier]
 *     set_bit(id)                     count_objects() -> sees the item
 *
 * so an item added concurrently is never stranded behind a clear bit.
 *
 * Publication of a per-cgroup list happens under host->list_lrus_mutex and
 * the XArray lock, after checking the cgroup is not dying. Offline sets
 * SHR_MEMCG_DYING before reparenting, which takes the same mutex: either
 * the publisher sees DYING and backs off, or reparenting finds the list
 * (both on host->list_lrus and on memcg->lru_lists).
 *
 * Locks (order from host_state.h): list_lrus_mutex -> list lock(s)
 * (child then parent, reparenting only) -> xa_lock -> slab. install() is
 * called with no lock held, set_bit() under a list lock, uninstall() under
 * list_lrus_mutex (or none, when a list lost its publication race).
 */
#include <limits.h>
#include <string.h>

#include "debug.h"
#include "list_lru_internal.h"
#include "memcg_internal.h"
#include "race.h"
#include "shrinker_info.h"
#include "shrinker_internal.h"

/* -------------------------------------------------------------------------
 * Lists.
 */

static void list_one_init(struct shr_list_lru_one *l)
{
	shr_list_head_init(&l->list);
	atomic_init(&l->nr_items, 0);
	shr_spin_init(&l->lock, SHR_LOCK_LRU_LIST);
}

static void list_one_lock(struct shr_list_lru_one *l)
{
	shr_spin_lock(&l->lock);
	shr_race_spin_enter();
}

/* @l while holding another list's lock: reparenting's child -> parent. */
static void list_one_lock_nested(struct shr_list_lru_one *l)
{
	shr_spin_lock_nested(&l->lock);
	shr_race_spin_enter();
}

static void list_one_unlock(struct shr_list_lru_one *l)
{
	shr_race_spin_exit();
	shr_spin_unlock(&l->lock);
}

static bool list_one_dead(struct shr_list_lru_one *l)
{
	return atomic_load_explicit(&l->nr_items, memory_order_relaxed) == LONG_MIN;
}

/* Add @delta to a list's count. Context: the list's lock. */
static long list_one_add_count(struct shr_list_lru_one *l, long delta)
{
	shr_lock_assert_held(&l->lock);
	return atomic_fetch_add_explicit(&l->nr_items, delta, memory_order_relaxed);
}

static size_t memcg_lists_size(const struct shr_host *host)
{
	return sizeof(struct shr_list_lru_memcg) +
	       (size_t)host->nr_nodes * sizeof(struct shr_list_lru_one);
}

/* Allocate the lists of one cgroup, all nodes, unpublished. */
static struct shr_list_lru_memcg *memcg_lists_alloc(struct shr_list_lru *lru, shr_gfp_t gfp)
{
	struct shr_host *host = lru->host;
	struct shr_list_lru_memcg *mlru;

	mlru = shr_kzalloc_node(host->slab, memcg_lists_size(host), gfp, SHR_NUMA_NO_NODE);
	if (!mlru)
		return NULL;
	mlru->lru = lru;
	mlru->host = host;
	mlru->owner_link.prev = NULL;
	for (int nid = 0; nid < host->nr_nodes; nid++)
		list_one_init(&mlru->node[nid]);
	return mlru;
}

/* Free lists no reader can reach (never published, or after a grace period). */
static void memcg_lists_free_now(struct shr_list_lru_memcg *mlru)
{
	struct shr_host *host = mlru->host;

	for (int nid = 0; nid < host->nr_nodes; nid++)
		shr_spin_destroy(&mlru->node[nid].lock);
	shr_kfree(host->slab, mlru);
}

static void memcg_lists_free_rcu_cb(struct rcu_head *head)
{
	shr_rcu_callback_enter(head);
	memcg_lists_free_now(shr_container_of(head, struct shr_list_lru_memcg, rcu));
	shr_rcu_callback_exit();
}

/* Free lists once RCU readers that may have looked them up are gone. */
static void memcg_lists_free_rcu(struct shr_list_lru_memcg *mlru)
{
	shr_call_rcu(&mlru->rcu, memcg_lists_free_rcu_cb);
}

/* -------------------------------------------------------------------------
 * Validation and lookup.
 */

static bool lru_valid(const struct shr_list_lru *lru)
{
	return lru && lru->magic == SHR_LIST_LRU_MAGIC;
}

/* Common argument check: 0 or -EINVAL. @memcg may be NULL. */
static int lru_check(const struct shr_list_lru *lru, int nid, const struct shr_mem_cgroup *memcg)
{
	if (!lru_valid(lru))
		return -EINVAL;
	if (nid < 0 || nid >= lru->host->nr_nodes)
		return -EINVAL;
	if (memcg && memcg->host != lru->host)
		return -EINVAL;
	return 0;
}

/* The XArray index of @memcg's lists, or -1 for the root lists. */
static int lru_memcg_index(const struct shr_list_lru *lru, const struct shr_mem_cgroup *memcg)
{
	if (!lru->memcg_aware || !memcg)
		return -1;
	return memcg->kmemcg_id;
}

/*
 * lru_lookup() - the list of (@nid, @memcg) as it is published now, or NULL
 * if @memcg has none (possibly dead: the caller checks under the lock).
 * Context: RCU read lock held (keeps a per-cgroup list's memory valid).
 */
static struct shr_list_lru_one *lru_lookup(struct shr_list_lru *lru, int nid,
					   const struct shr_mem_cgroup *memcg)
{
	int idx = lru_memcg_index(lru, memcg);
	struct shr_list_lru_memcg *mlru;

	if (idx < 0)
		return &lru->node[nid].lru;
	mlru = shr_xa_load(&lru->xa, (unsigned long)idx);
	return mlru ? &mlru->node[nid] : NULL;
}

/* Whether @memcg has its lists (kmemcg id < 0 means "uses the root lists"). */
static bool lru_memcg_has_lists(struct shr_list_lru *lru, const struct shr_mem_cgroup *memcg)
{
	int idx = lru_memcg_index(lru, memcg);

	return idx < 0 || shr_xa_load(&lru->xa, (unsigned long)idx) != NULL;
}

/*
 * lru_lock_for() - find and lock the list of (@nid, @memcg).
 * @skip_empty: if the cgroup has no live list, return NULL; otherwise climb
 *              to the nearest ancestor with one (the cgroup is dying, I1).
 * @owner:      if not NULL, receives the cgroup whose list it is.
 *
 * Context: Takes and releases the RCU read lock; returns with the list's
 *          lock held. @memcg pinned by the caller.
 * Return: the locked, live list, or NULL (only with @skip_empty).
 */
static struct shr_list_lru_one *lru_lock_for_owner(struct shr_list_lru *lru, int nid,
						   const struct shr_mem_cgroup *memcg,
						   bool skip_empty,
						   const struct shr_mem_cgroup **owner)
{
	struct shr_list_lru_one *l;

	shr_rcu_read_lock();
	for (;;) {
		l = lru_lookup(lru, nid, memcg);
		if (l) {
			/* Reparenting may splice it and mark it dead meanwhile. */
			shr_race_point(SHR_RACE_LRU_LOOKUP_LOCK);
			list_one_lock(l);
			if (!list_one_dead(l))
				break;
			list_one_unlock(l);
		}
		if (skip_empty) {
			l = NULL;
			break;
		}
		/* Root lists always exist and never die (I1). */
		SHR_BUG_ON(!memcg || !memcg->parent);
		memcg = memcg->parent;
	}
	/*
	 * Holding a live list's lock keeps it allocated after the RCU section:
	 * reparenting marks it dead under this lock before queueing its free.
	 */
	shr_rcu_read_unlock();
	if (owner)
		*owner = memcg;
	return l;
}

static struct shr_list_lru_one *lru_lock_for(struct shr_list_lru *lru, int nid,
					     const struct shr_mem_cgroup *memcg, bool skip_empty)
{
	return lru_lock_for_owner(lru, nid, memcg, skip_empty, NULL);
}

/*
 * A list @l of @memcg on @nid went 0 -> 1: set the bit that lets reclaim find
 * it, if that means anything: the cgroup's, or the root's for a root list
 * under root bits (lru_root_install() ran before any item could get there).
 * Context: @l's lock held.
 */
static void lru_set_bit(struct shr_list_lru *lru, struct shr_list_lru_one *l,
			struct shr_mem_cgroup *memcg, int nid)
{
	const struct shr_info_ops *ops = lru->host->info_ops;

	shr_lock_assert_held(&l->lock);
	if (lru->shrinker_id < 0)
		return;
	if (l == &lru->node[nid].lru && lru->root_bits)
		shr_info_set_bit(ops, lru->host->root, nid, lru->shrinker_id);
	if (!lru->memcg_aware || !memcg || shr_memcg_is_root(memcg))
		return;
	shr_info_set_bit(ops, memcg, nid, lru->shrinker_id);
}

/*
 * lru_root_install() - under root bits, install the root's bookkeeping for
 * the lru's shrinker once, before the first item can reach a root list:
 * called by every add and before any cgroup list exists (reparenting moves
 * items from those to the root lists). Idempotent; undone at destroy.
 * Context: No lock held; may allocate with @gfp.
 * Return: 0 or -ENOMEM (nothing installed).
 */
static int lru_root_install(struct shr_list_lru *lru, shr_gfp_t gfp)
{
	struct shr_host *host = lru->host;
	int ret = 0;

	/* Acquire: pairs with the release store below, so the bookkeeping is
	 * visible to this thread's set_bit. */
	if (!lru->root_bits || atomic_load_explicit(&lru->root_installed, memory_order_acquire))
		return 0;
	shr_mutex_lock(&host->list_lrus_mutex);
	if (!atomic_load_explicit(&lru->root_installed, memory_order_relaxed)) {
		ret = shr_info_install(host->info_ops, host->root, lru->shrinker_id, gfp);
		if (!ret)
			atomic_store_explicit(&lru->root_installed, true, memory_order_release);
	}
	shr_mutex_unlock(&host->list_lrus_mutex);
	return ret;
}

static void lru_node_total_add(struct shr_list_lru *lru, int nid, long delta)
{
	atomic_fetch_add_explicit(&lru->node[nid].nr_items, delta, memory_order_relaxed);
}

/* -------------------------------------------------------------------------
 * Init and destroy.
 */

static void lru_free_now(struct shr_list_lru *lru)
{
	struct shr_host *host = lru->host;

	if (lru->node) {
		for (int nid = 0; nid < host->nr_nodes; nid++)
			shr_spin_destroy(&lru->node[nid].lru.lock);
	}
	shr_kfree(host->slab, lru->node);
	shr_kfree(host->slab, lru);
}

int shr_list_lru_init_memcg(struct shr_host *host, struct shr_shrinker *shrinker,
			    struct shr_list_lru **out)
{
	struct shr_list_lru *lru;
	bool memcg_aware, root_bits;
	int id, err;

	if (!host || !out)
		return -EINVAL;
	err = shr_shrinker_lru_binding(host, shrinker, &id, &memcg_aware, &root_bits);
	if (err)
		return err;

	lru = shr_kzalloc_node(host->slab, sizeof(*lru), SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!lru)
		return -ENOMEM;
	lru->host = host;
	lru->node = shr_kzalloc_node(host->slab, (size_t)host->nr_nodes * sizeof(*lru->node),
				     SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!lru->node) {
		shr_kfree(host->slab, lru);
		return -ENOMEM;
	}
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		list_one_init(&lru->node[nid].lru);
		atomic_init(&lru->node[nid].nr_items, 0);
	}
	lru->memcg_aware = memcg_aware;
	lru->shrinker_id = id;
	lru->root_bits = root_bits;
	atomic_init(&lru->root_installed, false);
	shr_xa_init(&lru->xa, host->xa_node_cache, SHR_NUMA_NO_NODE, 0);
	shr_rcu_list_init(&lru->list);
	lru->magic = SHR_LIST_LRU_MAGIC;

	if (memcg_aware) {
		shr_mutex_lock(&host->list_lrus_mutex);
		shr_rcu_list_add_tail(&lru->list, &host->list_lrus);
		shr_mutex_unlock(&host->list_lrus_mutex);
	}
	atomic_fetch_add_explicit(&host->nr_list_lrus, 1, memory_order_relaxed);
	*out = lru;
	return 0;
}

int shr_list_lru_init(struct shr_host *host, struct shr_list_lru **out)
{
	return shr_list_lru_init_memcg(host, NULL, out);
}

/*
 * lru_drop_memcg_lists() - unpublish and free every per-cgroup list of @lru.
 * Context: host->list_lrus_mutex held; no concurrent users of @lru.
 */
static void lru_drop_memcg_lists(struct shr_list_lru *lru)
{
	const struct shr_info_ops *ops = lru->host->info_ops;
	struct shr_list_lru_memcg *mlru;
	unsigned long idx;

	shr_lock_assert_held(&lru->host->list_lrus_mutex);
	shr_xa_for_each(&lru->xa, idx, mlru) {
		shr_xa_erase(&lru->xa, idx);
		shr_rcu_list_del(&mlru->owner_link);
		if (lru->shrinker_id >= 0)
			shr_info_uninstall(ops, mlru->memcg, lru->shrinker_id);
		memcg_lists_free_rcu(mlru);
	}
	shr_xa_destroy(&lru->xa);
}

/* Items on every list of @lru. Exact with no concurrent user (node totals
 * lag list operations only while those run). */
static bool lru_holds_items(struct shr_list_lru *lru)
{
	for (int nid = 0; nid < lru->host->nr_nodes; nid++)
		if (atomic_load_explicit(&lru->node[nid].nr_items, memory_order_relaxed))
			return true;
	return false;
}

int shr_list_lru_destroy(struct shr_list_lru *lru)
{
	struct shr_host *host;

	if (!lru)
		return 0;
	if (!lru_valid(lru))
		return -EINVAL;
	if (lru_holds_items(lru))
		return -EBUSY;
	host = lru->host;
	shr_mutex_lock(&host->list_lrus_mutex);
	if (lru->memcg_aware) {
		shr_rcu_list_del(&lru->list);
		lru_drop_memcg_lists(lru);
	}
	if (atomic_load_explicit(&lru->root_installed, memory_order_relaxed))
		shr_info_uninstall(host->info_ops, host->root, lru->shrinker_id);
	shr_mutex_unlock(&host->list_lrus_mutex);
	lru->magic = 0;
	lru->shrinker_id = -1;
	/*
	 * Per-cgroup lists go after a grace period (above). The list_lru itself
	 * has no RCU readers once it is off host->list_lrus (walked only under
	 * list_lrus_mutex) and its users are gone (the contract), so it goes now.
	 */
	lru_free_now(lru);
	atomic_fetch_sub_explicit(&host->nr_list_lrus, 1, memory_order_relaxed);
	return 0;
}

bool shr_list_lru_memcg_aware(const struct shr_list_lru *lru)
{
	return lru_valid(lru) && lru->memcg_aware;
}

/* -------------------------------------------------------------------------
 * On-demand allocation.
 */

/*
 * lru_highest_missing() - the highest ancestor of @memcg (or @memcg) that
 * has no lists while its parent has (I1 makes it unique).
 * Context: @memcg pinned (its ancestors are then too); lockless.
 */
static struct shr_mem_cgroup *lru_highest_missing(struct shr_list_lru *lru,
						  struct shr_mem_cgroup *memcg)
{
	struct shr_mem_cgroup *pos = memcg;

	while (pos->parent && !lru_memcg_has_lists(lru, pos->parent))
		pos = pos->parent;
	return pos;
}

/*
 * lru_publish() - store @mlru as @pos's lists unless @pos is dying or
 * already has lists; link it on @pos->lru_lists.
 * Context: Takes host->list_lrus_mutex and the XArray lock.
 * Return: 1 published, 0 not (lost a race or dying), -ENOMEM.
 */
static int lru_publish(struct shr_list_lru *lru, struct shr_mem_cgroup *pos,
		       struct shr_list_lru_memcg *mlru, shr_gfp_t gfp)
{
	struct shr_host *host = lru->host;
	int ret = 0;

	shr_mutex_lock(&host->list_lrus_mutex);
	shr_xa_lock(&lru->xa);
	if (!shr_memcg_dying(pos)) {
		mlru->memcg = pos;
		ret = shr_xa_insert_locked(&lru->xa, (unsigned long)pos->kmemcg_id, mlru, gfp);
		if (ret == 0)
			ret = 1;
		else if (ret == -EBUSY)
			ret = 0;
	}
	shr_xa_unlock(&lru->xa);
	if (ret == 1)
		shr_rcu_list_add_tail(&mlru->owner_link, &pos->lru_lists);
	shr_mutex_unlock(&host->list_lrus_mutex);
	return ret;
}

/*
 * lru_alloc_one() - give @pos (whose parent has lists) its lists: allocate,
 * install the shrinker's bookkeeping, publish; undo all of it if the
 * publication does not happen.
 * Context: No lock held; may allocate with @gfp.
 * Return: 0 (published, or someone else's / dying: nothing to do), -ENOMEM.
 */
static int lru_alloc_one(struct shr_list_lru *lru, struct shr_mem_cgroup *pos, shr_gfp_t gfp)
{
	const struct shr_info_ops *ops = lru->host->info_ops;
	struct shr_list_lru_memcg *mlru;
	int ret;

	ret = lru_root_install(lru, gfp);
	if (ret)
		return ret;
	mlru = memcg_lists_alloc(lru, gfp);
	if (!mlru)
		return -ENOMEM;
	if (lru->shrinker_id >= 0) {
		ret = shr_info_install(ops, pos, lru->shrinker_id, gfp);
		if (ret) {
			memcg_lists_free_now(mlru);
			return ret;
		}
	}
	/* Offline may mark @pos dying before we publish (we then back off). */
	shr_race_point(SHR_RACE_LRU_PUBLISH);
	ret = lru_publish(lru, pos, mlru, gfp);
	if (ret == 1)
		return 0;
	if (lru->shrinker_id >= 0)
		shr_info_uninstall(ops, pos, lru->shrinker_id);
	memcg_lists_free_now(mlru);
	return ret;
}

int shr_memcg_list_lru_alloc(struct shr_mem_cgroup *memcg, struct shr_list_lru *lru,
			     shr_gfp_t gfp)
{
	struct shr_mem_cgroup *pos;
	int ret;

	if (!memcg || lru_check(lru, 0, memcg))
		return -EINVAL;
	if (!lru->memcg_aware || shr_memcg_is_root(memcg) || lru_memcg_has_lists(lru, memcg))
		return 0;
	do {
		pos = lru_highest_missing(lru, memcg);
		/* Dying: no lists, and no install for it (rechecked when publishing). */
		if (shr_memcg_dying(pos))
			break;
		ret = lru_alloc_one(lru, pos, gfp);
		if (ret)
			return ret;
	} while (pos != memcg && !shr_memcg_dying(pos));
	return 0;
}

/* -------------------------------------------------------------------------
 * Add, delete, count.
 */

/* Whether an add for @memcg must first give it its lists. */
static bool lru_add_needs_lists(struct shr_list_lru *lru, struct shr_mem_cgroup *memcg)
{
	return lru->memcg_aware && memcg && !shr_memcg_is_root(memcg) && memcg->kmemcg_id >= 0 &&
	       !shr_memcg_dying(memcg) && !lru_memcg_has_lists(lru, memcg);
}

/*
 * lru_nearest_live() - @memcg, or its nearest ancestor that is not dying
 * (the root at worst). Non-dying cgroups form an ancestor-closed set
 * (offline refuses a cgroup with live children).
 * Context: @memcg pinned (so are its ancestors); lockless.
 */
static struct shr_mem_cgroup *lru_nearest_live(struct shr_mem_cgroup *memcg)
{
	while (memcg && memcg->parent && shr_memcg_dying(memcg))
		memcg = memcg->parent;
	return memcg;
}

int shr_list_lru_add(struct shr_list_lru *lru, struct shr_list_head *item, int nid,
		     struct shr_mem_cgroup *memcg)
{
	const struct shr_mem_cgroup *owner;
	struct shr_list_lru_one *l;
	struct shr_mem_cgroup *live;
	int err;

	if (!item)
		return -EINVAL;
	err = lru_check(lru, nid, memcg);
	if (err)
		return err;
	/*
	 * Give lists to the nearest cgroup that is not dying, not only to
	 * @memcg: an add through a dying cgroup climbs to the first live list,
	 * and shr_list_lru_del() climbs again later. Every cgroup the climb
	 * passes must then be dying (dying cgroups never gain lists), or a
	 * list created meanwhile on a live cgroup in between would divert the
	 * del to a list that does not hold the item (it would unlink the item
	 * under the wrong lock and leave both counts wrong).
	 */
	err = lru_root_install(lru, SHR_GFP_KERNEL);
	if (err)
		return err;
	live = lru_nearest_live(memcg);
	if (lru_add_needs_lists(lru, live)) {
		err = shr_memcg_list_lru_alloc(live, lru, SHR_GFP_KERNEL);
		if (err)
			return err;
	}

	l = lru_lock_for_owner(lru, nid, memcg, false, &owner);
	if (!shr_list_head_empty(item)) {
		list_one_unlock(l);
		return 0;
	}
	shr_list_add_tail(item, &l->list);
	/*
	 * The bit goes to the cgroup whose list took the item. That is the
	 * caller's cgroup unless it is dying and the item fell back to an
	 * ancestor: the kernel then sets the dying cgroup's bit, which reclaim
	 * never reads, and the item can sit unseen on the ancestor's list
	 * (deliberate difference; the kernel's callers mostly avoid it because
	 * objcg reparenting hands them the live ancestor in the first place).
	 */
	if (list_one_add_count(l, 1) == 0)
		lru_set_bit(lru, l, (struct shr_mem_cgroup *)owner, nid); /* full barrier inside */
	list_one_unlock(l);
	lru_node_total_add(lru, nid, 1);
	return 1;
}

/*
 * lru_one_walk_finds() - whether @item (linked somewhere) is on @l: step
 * from @item in both directions at once until one side reaches @l's head
 * (it is on @l), comes back to @item or has taken more steps than @l holds
 * items (it is on another list). Exact; costs the distance of @item to the
 * nearer end of @l, or the length of the other list. Debug builds only.
 * Context: @l's lock held (when @item is on another list, that list is
 *          read without its lock: misuse, about to be refused).
 */
static bool lru_one_walk_finds(struct shr_list_lru_one *l, struct shr_list_head *item)
{
	long n = atomic_load_explicit(&l->nr_items, memory_order_relaxed);
	struct shr_list_head *fwd = item->next, *bwd = item->prev;

	shr_lock_assert_held(&l->lock);
	for (long step = 0; step <= n; step++) {
		if (fwd == &l->list || bwd == &l->list)
			return true;
		if (fwd == item || bwd == item)
			return false;
		fwd = fwd->next;
		bwd = bwd->prev;
	}
	return false;
}

/*
 * lru_one_holds() - whether the linked @item can be on @l, the list that
 * (@nid, @memcg) of a del resolved to. Every build: a list with no item
 * cannot hold it (the count would go negative: a del with the wrong node,
 * cgroup or list_lru). Debug builds: exactly (lru_one_walk_finds()).
 * Context: @l's lock held.
 */
static bool lru_one_holds(struct shr_list_lru_one *l, struct shr_list_head *item)
{
	shr_lock_assert_held(&l->lock);
	if (atomic_load_explicit(&l->nr_items, memory_order_relaxed) <= 0)
		return false;
	return !SHR_DEBUG_CHECKS || lru_one_walk_finds(l, item);
}

int shr_list_lru_del(struct shr_list_lru *lru, struct shr_list_head *item, int nid,
		     struct shr_mem_cgroup *memcg)
{
	struct shr_list_lru_one *l;
	int err;

	if (!item)
		return -EINVAL;
	err = lru_check(lru, nid, memcg);
	if (err)
		return err;

	l = lru_lock_for(lru, nid, memcg, false);
	if (shr_list_head_empty(item)) {
		list_one_unlock(l);
		return 0;
	}
	if (!lru_one_holds(l, item)) {
		/* Wrong node, cgroup or list_lru: nothing is touched. */
		list_one_unlock(l);
		return -EINVAL;
	}
	shr_list_del_init(item);
	list_one_add_count(l, -1);
	list_one_unlock(l);
	lru_node_total_add(lru, nid, -1);
	return 1;
}

static unsigned long clamp_count(long v)
{
	return v < 0 ? 0UL : (unsigned long)v;
}

unsigned long shr_list_lru_count_one(struct shr_list_lru *lru, int nid,
				     struct shr_mem_cgroup *memcg)
{
	struct shr_list_lru_one *l;
	long v = 0;

	if (lru_check(lru, nid, memcg))
		return 0;
	shr_rcu_read_lock();
	l = lru_lookup(lru, nid, memcg);
	if (l)
		v = atomic_load_explicit(&l->nr_items, memory_order_relaxed);
	shr_rcu_read_unlock();
	/* LONG_MIN marks a dead list; no other negative count can be left by
	 * del (which refuses an item that is not on the list) or by a walk. */
	if (SHR_DEBUG_CHECKS && v < 0 && v != LONG_MIN)
		SHR_MISUSE("shr_list_lru_count_one(): list count %ld: an isolate callback "
			   "removed an item from a list it was not on", v);
	return clamp_count(v);
}

unsigned long shr_list_lru_shrink_count(struct shr_list_lru *lru, struct shr_shrink_control *sc)
{
	if (!sc)
		return 0;
	return shr_list_lru_count_one(lru, sc->nid, sc->memcg);
}

unsigned long shr_list_lru_count_node(struct shr_list_lru *lru, int nid)
{
	if (lru_check(lru, nid, NULL))
		return 0;
	return clamp_count(atomic_load_explicit(&lru->node[nid].nr_items, memory_order_relaxed));
}

unsigned long shr_list_lru_count(struct shr_list_lru *lru)
{
	unsigned long total = 0;

	if (!lru_valid(lru))
		return 0;
	for (int nid = 0; nid < lru->host->nr_nodes; nid++)
		total += shr_list_lru_count_node(lru, nid);
	return total;
}

/* -------------------------------------------------------------------------
 * Walks.
 */

void shr_list_lru_isolate(struct shr_list_lru_one *list, struct shr_list_head *item)
{
	shr_list_del_init(item);
	list_one_add_count(list, -1);
}

void shr_list_lru_isolate_move(struct shr_list_lru_one *list, struct shr_list_head *item,
			       struct shr_list_head *head)
{
	shr_list_lru_isolate(list, item);
	shr_list_add_tail(item, head);
}

void shr_list_lru_one_unlock(struct shr_list_lru_one *list)
{
	list_one_unlock(list);
}

/*
 * lru_walk_one() - walk_one without argument checks (see the public doc).
 *
 * Iteration keeps the next item before each callback, so the callback may
 * remove the current one; a ROTATEd item (moved to the tail) may come up
 * again in the same pass. Every callback call, revisits after a restart
 * included, consumes one unit of budget, so RETRY cannot livelock.
 * Context: Takes and releases the list's lock (dropped by the callback for
 *          REMOVED_RETRY, RETRY and STOP).
 * Return: items removed.
 */
static unsigned long lru_walk_one(struct shr_list_lru *lru, int nid,
				  const struct shr_mem_cgroup *memcg, shr_list_lru_walk_cb isolate,
				  void *cb_arg, unsigned long *nr_to_walk)
{
	struct shr_list_head *item, *next;
	struct shr_list_lru_one *l;
	unsigned long isolated = 0;

restart:
	l = lru_lock_for(lru, nid, memcg, true);
	if (!l)
		return isolated;
	for (item = l->list.next, next = item->next; item != &l->list;
	     item = next, next = item->next) {
		if (*nr_to_walk == 0)
			break;
		(*nr_to_walk)--;

		switch (isolate(item, l, cb_arg)) {
		case SHR_LRU_REMOVED_RETRY:
			isolated++;
			lru_node_total_add(lru, nid, -1);
			goto restart;
		case SHR_LRU_REMOVED:
			isolated++;
			lru_node_total_add(lru, nid, -1);
			break;
		case SHR_LRU_ROTATE:
			shr_list_del_init(item);
			shr_list_add_tail(item, &l->list);
			break;
		case SHR_LRU_SKIP:
			break;
		case SHR_LRU_RETRY:
			goto restart;
		case SHR_LRU_STOP:
			return isolated;
		default:
			SHR_BUG("list_lru isolate callback returned an unknown status");
		}
	}
	list_one_unlock(l);
	return isolated;
}

unsigned long shr_list_lru_walk_one(struct shr_list_lru *lru, int nid,
				    struct shr_mem_cgroup *memcg, shr_list_lru_walk_cb isolate,
				    void *cb_arg, unsigned long *nr_to_walk)
{
	if (!isolate || !nr_to_walk || lru_check(lru, nid, memcg))
		return 0;
	return lru_walk_one(lru, nid, memcg, isolate, cb_arg, nr_to_walk);
}

unsigned long shr_list_lru_shrink_walk(struct shr_list_lru *lru, struct shr_shrink_control *sc,
				       shr_list_lru_walk_cb isolate, void *cb_arg)
{
	if (!sc)
		return 0;
	return shr_list_lru_walk_one(lru, sc->nid, sc->memcg, isolate, cb_arg, &sc->nr_to_scan);
}

/*
 * lru_pin_memcg_by_id() - the cgroup whose kmemcg id is @idx, with a
 * reference, or NULL if it is gone or being released.
 * Context: Takes the RCU read lock (the cgroup is freed after a grace period).
 */
static struct shr_mem_cgroup *lru_pin_memcg_by_id(struct shr_host *host, unsigned long idx)
{
	struct shr_mem_cgroup *memcg;

	shr_rcu_read_lock();
	memcg = shr_idr_find(&host->memcg_idr, idx);
	if (memcg && (memcg->kmemcg_id < 0 || (unsigned long)memcg->kmemcg_id != idx ||
		      !shr_mem_cgroup_tryget(memcg)))
		memcg = NULL;
	shr_rcu_read_unlock();
	return memcg;
}

unsigned long shr_list_lru_walk_node(struct shr_list_lru *lru, int nid,
				     shr_list_lru_walk_cb isolate, void *cb_arg,
				     unsigned long *nr_to_walk)
{
	struct shr_list_lru_memcg *mlru;
	struct shr_mem_cgroup *memcg;
	unsigned long isolated, idx;

	if (!isolate || !nr_to_walk || lru_check(lru, nid, NULL))
		return 0;
	isolated = lru_walk_one(lru, nid, NULL, isolate, cb_arg, nr_to_walk);
	if (!lru->memcg_aware)
		return isolated;

	shr_xa_for_each(&lru->xa, idx, mlru) {
		if (*nr_to_walk == 0)
			break;
		memcg = lru_pin_memcg_by_id(lru->host, idx);
		if (!memcg)
			continue;
		isolated += lru_walk_one(lru, nid, memcg, isolate, cb_arg, nr_to_walk);
		shr_mem_cgroup_put(memcg);
	}
	return isolated;
}

unsigned long shr_list_lru_walk(struct shr_list_lru *lru, shr_list_lru_walk_cb isolate,
				void *cb_arg, unsigned long nr_to_walk)
{
	unsigned long isolated = 0;

	if (!lru_valid(lru))
		return 0;
	for (int nid = 0; nid < lru->host->nr_nodes && nr_to_walk > 0; nid++)
		isolated += shr_list_lru_walk_node(lru, nid, isolate, cb_arg, &nr_to_walk);
	return isolated;
}

/* -------------------------------------------------------------------------
 * Reparenting at offline.
 */

/*
 * lru_lock_parent_list() - lock the live list of (@nid, @parent), climbing
 * if it has none (cannot happen while @parent is online, I1; kept total).
 * @child: the child's list, locked.
 * @owner: receives the cgroup whose list it is.
 * Context: @child's lock held (nesting order child -> parent); RCU.
 */
static struct shr_list_lru_one *lru_lock_parent_list(struct shr_list_lru *lru, int nid,
						     struct shr_list_lru_one *child,
						     struct shr_mem_cgroup *parent,
						     struct shr_mem_cgroup **owner)
{
	struct shr_list_lru_one *l;

	shr_lock_assert_held(&child->lock);
	for (;;) {
		l = lru_lookup(lru, nid, parent);
		if (l) {
			list_one_lock_nested(l);
			if (!list_one_dead(l))
				break;
			list_one_unlock(l);
		}
		SHR_BUG_ON(!parent->parent);
		parent = parent->parent;
	}
	*owner = parent;
	return l;
}

/*
 * lru_reparent_node() - move the child's items on @nid to the head of the
 * parent's list, add the count, set the parent's bit, mark the child dead.
 * Context: list_lrus_mutex held; takes both list locks.
 */
static void lru_reparent_node(struct shr_list_lru *lru, int nid, struct shr_list_lru_one *child,
			      struct shr_mem_cgroup *parent)
{
	struct shr_list_lru_one *dst;
	struct shr_mem_cgroup *owner;
	long nr;

	shr_lock_assert_held(&lru->host->list_lrus_mutex);
	shr_rcu_read_lock();
	list_one_lock(child);
	dst = lru_lock_parent_list(lru, nid, child, parent, &owner);
	shr_list_splice_init(&child->list, &dst->list);
	nr = atomic_load_explicit(&child->nr_items, memory_order_relaxed);
	if (nr > 0) {
		list_one_add_count(dst, nr);
		lru_set_bit(lru, dst, owner, nid);
	}
	atomic_store_explicit(&child->nr_items, LONG_MIN, memory_order_relaxed);
	list_one_unlock(dst);
	list_one_unlock(child);
	shr_rcu_read_unlock();
}

/*
 * lru_reparent_one() - reparent @memcg's lists on @lru (if it has any) to
 * @parent; unpublish, unlink from @memcg->lru_lists, uninstall, free after a
 * grace period. Context: list_lrus_mutex held.
 * Return: whether @memcg had lists on @lru.
 */
static bool lru_reparent_one(struct shr_list_lru *lru, struct shr_mem_cgroup *memcg,
			     struct shr_mem_cgroup *parent)
{
	struct shr_list_lru_memcg *mlru, *erased;

	shr_lock_assert_held(&lru->host->list_lrus_mutex);
	/*
	 * Splice and mark every node's list dead before unpublishing: a
	 * lookup that misses must find the items already on the parent's
	 * list. (Erasing first let a del that missed climb to the parent,
	 * lock it and unlink an item still on the child's list: the wrong
	 * lock, a race with walkers of the child list, and a count moved
	 * from the parent that the splice then added back.) The entry cannot
	 * change meanwhile: publishers hold list_lrus_mutex (held here) and
	 * back off for a dying cgroup.
	 */
	mlru = shr_xa_load(&lru->xa, (unsigned long)memcg->kmemcg_id);
	if (!mlru)
		return false;
	SHR_BUG_ON(mlru->memcg != memcg);
	for (int nid = 0; nid < lru->host->nr_nodes; nid++)
		lru_reparent_node(lru, nid, &mlru->node[nid], parent);
	/* Lookups still find the dead lists and climb to the parent. */
	shr_race_point(SHR_RACE_REPARENT_SPLICED);
	erased = shr_xa_erase(&lru->xa, (unsigned long)memcg->kmemcg_id);
	SHR_BUG_ON(erased != mlru);
	shr_rcu_list_del(&mlru->owner_link);
	if (lru->shrinker_id >= 0)
		shr_info_uninstall(lru->host->info_ops, memcg, lru->shrinker_id);
	memcg_lists_free_rcu(mlru);
	return true;
}

/* Kernel's way: every memcg-aware list_lru. Return: list_lrus visited. */
static unsigned long lru_reparent_all(struct shr_host *host, struct shr_mem_cgroup *memcg,
				      struct shr_mem_cgroup *parent)
{
	struct shr_rcu_list *pos;
	unsigned long visited = 0;

	for (pos = shr_rcu_list_next(&host->list_lrus); pos != &host->list_lrus;
	     pos = shr_rcu_list_next(pos)) {
		lru_reparent_one(shr_container_of(pos, struct shr_list_lru, list), memcg, parent);
		visited++;
	}
	return visited;
}

/* Only the lists @memcg owns. Return: lists visited. */
static unsigned long lru_reparent_owned(struct shr_mem_cgroup *memcg,
					struct shr_mem_cgroup *parent)
{
	struct shr_list_lru_memcg *mlru;
	unsigned long visited = 0;

	while (!shr_rcu_list_empty(&memcg->lru_lists)) {
		mlru = shr_container_of(shr_rcu_list_next(&memcg->lru_lists),
					struct shr_list_lru_memcg, owner_link);
		/* Linked on lru_lists <=> published in the lru's XArray. */
		if (!lru_reparent_one(mlru->lru, memcg, parent))
			SHR_BUG("cgroup's lru_lists entry is not published");
		visited++;
	}
	return visited;
}

/**
 * shr_list_lru_reparent_memcg() - offline step 1: hand @memcg's list_lru
 * items to @parent (memcg_reparent_list_lrus).
 * @memcg:  the cgroup going offline, already marked dying.
 * @parent: its parent (online).
 *
 * Per list_lru that has lists for @memcg: unpublish them, splice every
 * node's items onto the head of the parent's list, add the counts, set the
 * parent's bit where items arrived, mark the child lists dead, uninstall
 * and free them after a grace period. Node totals do not change.
 *
 * Context: host->cgroup_mutex held; takes list_lrus_mutex, list locks.
 */
void shr_list_lru_reparent_memcg(struct shr_mem_cgroup *memcg, struct shr_mem_cgroup *parent)
{
	struct shr_host *host = memcg->host;
	unsigned long visited;

	shr_lock_assert_held(&host->cgroup_mutex);
	if (memcg->kmemcg_id < 0)
		return;
	shr_mutex_lock(&host->list_lrus_mutex);
	if (host->params.lru_reparent == SHR_LRU_REPARENT_PER_CGROUP)
		visited = lru_reparent_owned(memcg, parent);
	else
		visited = lru_reparent_all(host, memcg, parent);
	shr_mutex_unlock(&host->list_lrus_mutex);
	atomic_fetch_add_explicit(&host->stats.lru_reparent_visits, visited,
				  memory_order_relaxed);
}

unsigned long shr_list_lru_reparent_visits(struct shr_host *host)
{
	return atomic_load_explicit(&host->stats.lru_reparent_visits, memory_order_relaxed);
}
