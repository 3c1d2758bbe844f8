/* SPDX-License-Identifier: MIT */
/*
 * Design "indexed": costs follow only what cgroups hold. See docs/design/INDEXED.md.
 *
 * Data
 *  - Per (cgroup, node), inline (struct ix_node, 24 bytes): a pointer to a
 *    lazily allocated container (struct ix_units), `subtree`, the number of
 *    cgroups in this cgroup's subtree (itself included) that are counted on
 *    this node (see "counted" below), and `below`, the same without itself.
 *  - The container: an XArray unit index -> unit (the shared 520-byte unit),
 *    XArray mark 0 on a unit while its map word is non-zero (protocol below),
 *    `counted`, and refs[i] = lists (installs) holding unit i.
 *  - Per shrinker (s->info_data, struct ix_shrinker): the root's deferred
 *    counters (one per node) and `users`, an XArray ino -> cgroup of the
 *    cgroups that installed the shrinker's id.
 *
 * Invariants (at every release of the locks named)
 *  I1 refs[i] > 0 <=> unit i present, except in a dying cgroup (units kept
 *     until memcg_free, so reparent_deferred still sees them). No unit left
 *     <=> no container (its pointer NULL) for a cgroup that is not dying.
 *  I2 Mark: once a set_bit has returned, its unit is marked for as long as
 *     the bit stays set. A mark may outlive the bits (harmless: one visit).
 *  I3 counted == (the container has a marked unit && the cgroup is not
 *     dying), updated under the container's xa_lock with every mark change;
 *     subtree(c) == number of counted cgroups in c's subtree once the
 *     updates in flight have finished. Dying cgroups are never counted:
 *     reclaim of an offline cgroup frees nothing (shrink_slab_memcg step 1).
 *  I4 A cgroup appears in users of every live shrinker whose id it holds a
 *     unit for (inserted at install, or by reparent_deferred for the ids
 *     whose counters it receives), and only while it holds that unit on
 *     at least one node: ix_unit_remove() erases it when the unit goes
 *     from its last node, memcg_free() for every unit on every node. So a
 *     cgroup is off every users array before it is freed (the id-reuse
 *     scrub dereferences what it finds there); debug builds check it.
 *  I5 The root's deferred counters live in ix_shrinker.root_deferred;
 *     registration touches no cgroup. The root has a container only for
 *     the bits of SHR_SHRINKER_ROOT_BITS shrinkers (root_bits; installed by
 *     list_lru before an item can reach a root list, or by
 *     shr_set_shrinker_bit()); the counters of its units stay unused.
 *  I6 below(c) == subtree(c) minus c's own count: counted cgroups strictly
 *     below c, so a pass need not descend into a cgroup with nothing below.
 *
 * Locking
 *  - host->shrinker_mutex serialises unit and container life (install,
 *    uninstall, memcg_free, reparent_deferred, shrinker_remove) and users.
 *    install() and memcg_free() take it; uninstall() takes it under
 *    list_lrus_mutex (rank 2 -> 3); the others run under it already.
 *  - The container's xa_lock serialises marks and `counted` (I3).
 *  - Readers (set_bit, clear_bit, next_bit, deferred access) find the
 *    container and units under RCU; units and containers are freed after a
 *    grace period (memcg_free, which no reader can reach, frees at once).
 *
 * Ordering (set_bit vs the clear path; store buffering on two locations)
 *
 *      set_bit (any thread)               clear path (reclaim's clear_bit)
 *      --------------------               --------------------------------
 *      (A) fence                          fetch_and(map, ~bit) -> map now 0
 *      (M1) fetch_or(map, bit) seq_cst    lock xa_lock
 *      (M2) load mark of the unit         clear mark
 *        not marked: lock xa_lock,        (C2) v = fetch_or(map, 0) seq_cst
 *        set mark, update counted         v != 0: set the mark again
 *                                         update counted; unlock
 *
 *  M1 and C2 are read-modify-writes of the same word, so one precedes the
 *  other in its modification order. If M1 is first, C2 reads the bit (RMWs
 *  read the latest value) and re-marks. If C2 is first, M1 reads from C2's
 *  release sequence, so C2 (release) synchronises with M1 (acquire) and the
 *  mark clear, sequenced before C2, happens before M2: M2 sees the mark
 *  cleared (or a later set) and marks it itself. Either way the bit is never
 *  left set in an unmarked unit (I2). Pairs: M1 <-> C2; (A) <-> reclaim's
 *  (B) in recheck_empty() (the SHRINK_EMPTY protocol, unchanged).
 *
 *  counted/subtree: updated inside the same xa_lock section as the mark, so
 *  a completed set_bit has made its cgroup and every ancestor count >= 1,
 *  and a clear path subtracts only after its C2 found the map empty. The
 *  count can be transiently high (a mark left on an emptied unit, or an
 *  increment landing before a decrement of another cgroup) which costs a
 *  visit; it is 0 for a subtree only when no counted cgroup is in it, and by
 *  I2/I3 a bit set by a completed set_bit in a live cgroup keeps it counted.
 *  subtree_empty() reads with a relaxed load: it only prunes walks that
 *  would find no bit; a set_bit racing with the pass is ordered after the
 *  pass's read (the pass could equally have visited before the add).
 *  A stale mark (all bits gone) is removed by the next walk (ix_next_bit).
 *
 * Unit life vs readers: a unit leaves the XArray under xa_lock (with the
 * counted update) and is freed after a grace period; a reader that found it
 * under RCU keeps valid memory, and what it writes is lost with the unit,
 * which no list of its 64 ids needs any more. Diagram in docs/design/INDEXED.md.
 */
#include <string.h>

#include "debug.h"
#include "race.h"
#include "shrinker_info_xarray.h"

/* Per (cgroup, node), inline in the cgroup. */
struct ix_node {
	/* Sync: RCU; written under shrinker_mutex. */
	struct ix_units *SHR_RCU units;
	/* Counted cgroups in the subtree on this node. Sync: atomic. */
	atomic_long subtree;
	/* The same without this cgroup: counted cgroups strictly below it.
	 * Sync: atomic. */
	atomic_long below;
};

struct ix_units {
	/* index -> unit, mark 0 per I2. Sync: the XArray's. */
	struct shr_xarray xa;
	/* I3. Sync: written under xa.xa_lock; read there. */
	bool counted;
	/* Capacity of refs. Sync: shrinker_mutex. */
	unsigned int nr_refs;
	/* Installs per unit index. Sync: shrinker_mutex. */
	unsigned int *refs;
	/* Sync: immutable. */
	struct shr_host *host;
	struct rcu_head rcu;
};

struct ix_shrinker {
	/* ino -> memcg (I4). Sync: writers hold shrinker_mutex. */
	struct shr_xarray users;
	/* The root's deferred work per node. Sync: atomic. */
	atomic_long root_deferred[];
};

/* A unit waiting for its grace period. */
struct ix_unit_retire {
	struct rcu_head rcu;
	struct shr_host *host;
	struct shr_info_unit *unit;
};

_Static_assert(sizeof(struct ix_node) <= 64, "at most 64 bytes per node in the cgroup");

static struct ix_node *ix_node_of(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_memcg_info_area(memcg, nid);
}

/* Context: RCU read lock or shrinker_mutex. */
static struct ix_units *ix_units_of(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference(ix_node_of(memcg, nid)->units);
}

static struct ix_shrinker *ix_shrinker_of(struct shr_shrinker_impl *s)
{
	return atomic_load_explicit(&s->info_data, memory_order_relaxed);
}

/* Add @delta to the subtree counts of @memcg and its ancestors, and to the
 * below counts of its ancestors. Context: the caller owns the change of
 * @memcg's counted state (its xa_lock, or memcg_free). */
static void ix_count_subtree(struct shr_mem_cgroup *memcg, int nid, long delta)
{
	atomic_fetch_add_explicit(&ix_node_of(memcg, nid)->subtree, delta, memory_order_relaxed);
	for (struct shr_mem_cgroup *c = memcg->parent; c; c = c->parent) {
		atomic_fetch_add_explicit(&ix_node_of(c, nid)->subtree, delta,
					  memory_order_relaxed);
		atomic_fetch_add_explicit(&ix_node_of(c, nid)->below, delta,
					  memory_order_relaxed);
	}
}

/*
 * ix_sync_counted() - bring cont->counted in line with I3 and propagate a
 * change to @memcg and every ancestor.
 * Context: cont->xa's xa_lock held.
 */
static void ix_sync_counted(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont)
{
	bool want = shr_xa_marked(&cont->xa, SHR_XA_MARK_0) && !shr_memcg_dying(memcg);
	long delta;

	shr_lock_assert_held(&cont->xa.xa_lock);
	if (want == cont->counted)
		return;
	cont->counted = want;
	delta = want ? 1 : -1;
	ix_count_subtree(memcg, nid, delta);
}

/* ---- the mark protocol (see the top of the file) ---------------------- */

static void ix_mark_unit(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont,
			 unsigned long index)
{
	shr_xa_lock(&cont->xa);
	shr_xa_set_mark_locked(&cont->xa, index, SHR_XA_MARK_0);
	ix_sync_counted(memcg, nid, cont);
	shr_xa_unlock(&cont->xa);
}

/* The clear path once a unit's map was seen 0. Context: RCU read lock. */
static void ix_unmark_unit(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont,
			   unsigned long index, struct shr_info_unit *unit)
{
	shr_xa_lock(&cont->xa);
	shr_xa_clear_mark_locked(&cont->xa, index, SHR_XA_MARK_0);
	shr_race_point(SHR_RACE_IX_UNMARK_C2);
	/* (C2): pairs with (M1) in ix_set_bit(). */
	if (atomic_fetch_or_explicit(&unit->map, 0UL, memory_order_seq_cst))
		shr_xa_set_mark_locked(&cont->xa, index, SHR_XA_MARK_0);
	ix_sync_counted(memcg, nid, cont);
	shr_xa_unlock(&cont->xa);
}

static void ix_set_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	unsigned long index = (unsigned long)id / SHR_UNIT_BITS;
	struct shr_info_unit *unit;
	struct ix_units *cont;

	if (id < 0)
		return;
	shr_rcu_read_lock();
	cont = ix_units_of(memcg, nid);
	unit = cont ? shr_xa_load(&cont->xa, index) : NULL;
	if (unit) {
		shr_race_point(SHR_RACE_SET_BIT_A);
		/* (A): pairs with (B) in reclaim's recheck_empty(). */
		atomic_thread_fence(memory_order_seq_cst);
		/* (M1): pairs with (C2) in ix_unmark_unit(). */
		atomic_fetch_or_explicit(&unit->map, 1UL << (id % SHR_UNIT_BITS),
					 memory_order_seq_cst);
		shr_race_point(SHR_RACE_IX_SET_M1_M2);
		/* (M2) */
		if (!shr_xa_get_mark(&cont->xa, index, SHR_XA_MARK_0))
			ix_mark_unit(memcg, nid, cont, index);
	}
	shr_rcu_read_unlock();
}

static void ix_clear_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	unsigned long index = (unsigned long)id / SHR_UNIT_BITS;
	unsigned long bit = 1UL << (id % SHR_UNIT_BITS);
	struct shr_info_unit *unit;
	struct ix_units *cont;

	shr_rcu_read_lock();
	cont = ix_units_of(memcg, nid);
	unit = cont ? shr_xa_load(&cont->xa, index) : NULL;
	if (unit) {
		unsigned long old = atomic_fetch_and_explicit(&unit->map, ~bit,
							      memory_order_seq_cst);

		if (!(old & ~bit) && shr_xa_get_mark(&cont->xa, index, SHR_XA_MARK_0))
			ix_unmark_unit(memcg, nid, cont, index, unit);
	}
	shr_rcu_read_unlock();
}

/*
 * Walk only the marked units. A marked unit whose whole map is 0 carries a
 * stale mark (a set_bit marked it after a clear emptied it): run the clear
 * path on it, so an emptied cgroup leaves the subtree counts after one walk.
 * Context: RCU read lock held by the caller (xa_lock may be taken inside).
 */
static int ix_next_bit(struct shr_mem_cgroup *memcg, int nid, int pos,
		       struct shr_walk_counts *wc)
{
	struct ix_units *cont = ix_units_of(memcg, nid);
	unsigned long index = (unsigned long)pos / SHR_UNIT_BITS;
	struct shr_info_unit *unit;

	if (!cont)
		return -1;
	for (unit = shr_xa_find(&cont->xa, &index, ~0UL, SHR_XA_MARK_0); unit;
	     unit = shr_xa_find_after(&cont->xa, &index, ~0UL, SHR_XA_MARK_0)) {
		unsigned long map = atomic_load_explicit(&unit->map, memory_order_relaxed);
		int id = shr_unit_first_bit(map, index, pos);

		wc->units++;
		wc->words++;
		if (id >= 0)
			return id;
		if (!map)
			ix_unmark_unit(memcg, nid, cont, index, unit);
	}
	return -1;
}

static struct shr_shrinker_impl *ix_lookup(struct shr_mem_cgroup *memcg, int id)
{
	return shr_idr_find(&memcg->host->shrinker_idr, (unsigned long)id);
}

static bool ix_subtree_empty(struct shr_mem_cgroup *memcg, int nid)
{
	return atomic_load_explicit(&ix_node_of(memcg, nid)->subtree, memory_order_relaxed) == 0;
}

static bool ix_below_empty(struct shr_mem_cgroup *memcg, int nid)
{
	return atomic_load_explicit(&ix_node_of(memcg, nid)->below, memory_order_relaxed) == 0;
}

/* ---- unit and container life (shrinker_mutex held) --------------------- */

static void ix_unit_retire_rcu(struct rcu_head *head)
{
	struct ix_unit_retire *r = shr_container_of(head, struct ix_unit_retire, rcu);
	struct shr_host *host = r->host;

	shr_rcu_callback_enter(head);
	shr_info_unit_free(host, r->unit);
	shr_kfree(host->slab, r);
	shr_rcu_callback_exit();
}

/* Free @unit once no RCU reader can hold it. */
static void ix_unit_free_rcu(struct shr_host *host, struct shr_info_unit *unit)
{
	struct ix_unit_retire *r = shr_kmalloc_node(host->slab, sizeof(*r), SHR_GFP_KERNEL,
						    SHR_NUMA_NO_NODE);

	if (!r) {
		/* No memory for the record: wait for the readers instead. */
		shr_synchronize_rcu();
		shr_info_unit_free(host, unit);
		return;
	}
	r->host = host;
	r->unit = unit;
	shr_call_rcu(&r->rcu, ix_unit_retire_rcu);
}

static void ix_units_free_now(struct ix_units *cont)
{
	struct shr_host *host = cont->host;

	shr_xa_destroy(&cont->xa);
	pthread_mutex_destroy(&cont->xa.xa_lock);
	shr_kvfree(host->slab, cont->refs);
	shr_kfree(host->slab, cont);
}

static void ix_units_free_rcu(struct rcu_head *head)
{
	struct ix_units *cont = shr_container_of(head, struct ix_units, rcu);

	shr_rcu_callback_enter(head);
	ix_units_free_now(cont);
	shr_rcu_callback_exit();
}

/* Unpublish @memcg's empty container on @nid; free it after a grace period. */
static void ix_units_retire(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont)
{
	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	shr_rcu_assign_pointer(ix_node_of(memcg, nid)->units, NULL);
	shr_kvfree(cont->host->slab, cont->refs);
	cont->refs = NULL;
	cont->nr_refs = 0;
	shr_call_rcu(&cont->rcu, ix_units_free_rcu);
}

/* The container of (memcg, nid), allocated and published if missing. */
static struct ix_units *ix_units_get(struct shr_mem_cgroup *memcg, int nid, shr_gfp_t gfp)
{
	struct shr_host *host = memcg->host;
	struct ix_units *cont = ix_units_of(memcg, nid);

	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	if (cont)
		return cont;
	cont = shr_kzalloc_node(host->slab, sizeof(*cont), gfp, nid);
	if (!cont)
		return NULL;
	shr_xa_init(&cont->xa, host->xa_node_cache, nid, 0);
	cont->host = host;
	shr_race_point(SHR_RACE_INFO_PUBLISH);
	/* Publish initialised: pairs with shr_rcu_dereference in ix_units_of(). */
	shr_rcu_assign_pointer(ix_node_of(memcg, nid)->units, cont);
	return cont;
}

/* Make refs[] hold @index. 0 or -ENOMEM (unchanged). */
static int ix_refs_reserve(struct ix_units *cont, unsigned long index, int nid, shr_gfp_t gfp)
{
	struct shr_host *host = cont->host;
	unsigned int cap = cont->nr_refs ? cont->nr_refs : 4;
	unsigned int *refs;

	shr_lock_assert_held(&cont->host->shrinker_mutex);
	if (index < cont->nr_refs)
		return 0;
	while (cap <= index)
		cap *= 2;
	/* kvmalloc: past 4 MiB (a million units, ids past 64M) the page
	 * allocator has no order left and the array is mapped (vmalloc). */
	refs = shr_kvmalloc_node(host->slab, cap * sizeof(*refs), gfp | SHR_GFP_ZERO, nid);
	if (!refs)
		return -ENOMEM;
	if (cont->refs)
		memcpy(refs, cont->refs, cont->nr_refs * sizeof(*refs));
	shr_kvfree(host->slab, cont->refs);
	cont->refs = refs;
	cont->nr_refs = cap;
	return 0;
}

/* Retire the container if it holds no unit (I1). */
static void ix_units_maybe_retire(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont)
{
	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	if (shr_xa_empty(&cont->xa))
		ix_units_retire(memcg, nid, cont);
}

/*
 * One more install of unit @index on (memcg, nid); *@created (may be NULL)
 * says whether the unit was allocated by this call. 0 or -ENOMEM
 * (unchanged).
 */
static int ix_ref_node(struct shr_mem_cgroup *memcg, int nid, unsigned long index, shr_gfp_t gfp,
		       bool *created)
{
	struct shr_host *host = memcg->host;
	struct shr_info_unit *unit;
	struct ix_units *cont;
	bool new_unit = false;

	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	cont = ix_units_get(memcg, nid, gfp);
	if (!cont)
		return -ENOMEM;
	if (ix_refs_reserve(cont, index, nid, gfp))
		goto fail;
	if (!shr_xa_load(&cont->xa, index)) {
		unit = shr_info_unit_alloc(host, nid, gfp);
		if (!unit)
			goto fail;
		shr_race_point(SHR_RACE_INFO_PUBLISH);
		if (shr_xa_insert(&cont->xa, index, unit, gfp)) {
			shr_info_unit_free(host, unit);
			goto fail;
		}
		new_unit = true;
	}
	cont->refs[index]++;
	if (created)
		*created = new_unit;
	return 0;
fail:
	ix_units_maybe_retire(memcg, nid, cont);
	return -ENOMEM;
}

/* Whether @memcg holds unit @index on one of nodes 0..@nr_nodes-1.
 * Context: shrinker_mutex held. */
static bool ix_holds_unit(struct shr_mem_cgroup *memcg, unsigned long index, int nr_nodes)
{
	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	for (int nid = 0; nid < nr_nodes; nid++) {
		struct ix_units *cont = ix_units_of(memcg, nid);

		if (cont && shr_xa_load(&cont->xa, index))
			return true;
	}
	return false;
}

static void ix_users_forget_unit(struct shr_mem_cgroup *memcg, unsigned long index);

/*
 * Remove unit @index of (memcg, nid) and free it after a grace period. The
 * only way a unit leaves a cgroup that is not being freed: when it was the
 * cgroup's last unit of that index, the cgroup leaves the users of its ids
 * (I4), whatever path (uninstall, an install's undo) removed it.
 * Context: shrinker_mutex held.
 */
static void ix_unit_remove(struct shr_mem_cgroup *memcg, int nid, struct ix_units *cont,
			   unsigned long index)
{
	struct shr_info_unit *unit;

	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	shr_xa_lock(&cont->xa);
	unit = shr_xa_erase_locked(&cont->xa, index);
	ix_sync_counted(memcg, nid, cont);
	shr_xa_unlock(&cont->xa);
	/* Readers that found the unit before the erase may still use it. */
	shr_race_point(SHR_RACE_IX_UNIT_ERASED);
	if (!unit)
		return;
	ix_unit_free_rcu(memcg->host, unit);
	if (!ix_holds_unit(memcg, index, memcg->host->nr_nodes))
		ix_users_forget_unit(memcg, index);
}

/* One install fewer; frees the unit when @free_empty and none is left. */
static void ix_unref_node(struct shr_mem_cgroup *memcg, int nid, unsigned long index,
			  bool free_empty)
{
	struct ix_units *cont = ix_units_of(memcg, nid);

	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	if (!cont || index >= cont->nr_refs || !cont->refs[index])
		SHR_BUG("uninstall without install");
	if (--cont->refs[index] || !free_empty)
		return;
	ix_unit_remove(memcg, nid, cont, index);
	ix_units_maybe_retire(memcg, nid, cont);
}

/* Drop @memcg from the users of every live shrinker with an id in unit
 * @index. Context: shrinker_mutex held. */
static void ix_users_forget_unit(struct shr_mem_cgroup *memcg, unsigned long index)
{
	struct shr_host *host = memcg->host;

	shr_lock_assert_held(&host->shrinker_mutex);
	for (int i = 0; i < SHR_UNIT_BITS; i++) {
		unsigned long id = index * SHR_UNIT_BITS + (unsigned long)i;
		struct shr_shrinker_impl *s = shr_idr_find(&host->shrinker_idr, id);

		if (s && ix_shrinker_of(s))
			shr_xa_erase(&ix_shrinker_of(s)->users, memcg->ino);
	}
}

/*
 * @memcg now holds counters of the ids of unit @index that are non-zero in
 * @src (reparented): make it a user of their shrinkers (I4), so the id-reuse
 * scrub finds it. Failure to record leaves at worst stale counts (-ENOMEM in
 * offline, which cannot fail), reported nowhere else.
 */
static void ix_users_add_unit(struct shr_mem_cgroup *memcg, unsigned long index,
			      struct shr_info_unit *src)
{
	struct shr_host *host = memcg->host;

	shr_lock_assert_held(&host->shrinker_mutex);
	for (int i = 0; i < SHR_UNIT_BITS; i++) {
		unsigned long id = index * SHR_UNIT_BITS + (unsigned long)i;
		struct shr_shrinker_impl *s;

		if (!atomic_load(&src->nr_deferred[i]))
			continue;
		s = shr_idr_find(&host->shrinker_idr, id);
		if (s && ix_shrinker_of(s) && !shr_xa_load(&ix_shrinker_of(s)->users, memcg->ino))
			(void)shr_xa_store(&ix_shrinker_of(s)->users, memcg->ino, memcg,
					   SHR_GFP_KERNEL);
	}
}

static int ix_install(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp)
{
	struct shr_host *host = memcg->host;
	unsigned long index = (unsigned long)id / SHR_UNIT_BITS;
	bool created[SHR_MAX_NUMNODES];
	struct shr_shrinker_impl *s;
	int nid, ret = -ENOMEM;

	if (id < 0)
		return 0;
	shr_mutex_lock(&host->shrinker_mutex);
	for (nid = 0; nid < host->nr_nodes; nid++)
		if (ix_ref_node(memcg, nid, index, gfp, &created[nid]))
			goto undo;
	s = shr_idr_find(&host->shrinker_idr, (unsigned long)id);
	if (s && ix_shrinker_of(s)) {
		struct shr_xarray *users = &ix_shrinker_of(s)->users;

		if (!shr_xa_load(users, memcg->ino) &&
		    shr_xa_insert(users, memcg->ino, memcg, gfp))
			goto undo;
	}
	shr_mutex_unlock(&host->shrinker_mutex);
	return 0;
undo:
	/*
	 * Leave everything as it was: the units this call created go again,
	 * and only those. A unit that was there stays even with no install
	 * left: a dying cgroup keeps its units until it is freed (I1).
	 */
	while (nid-- > 0)
		ix_unref_node(memcg, nid, index, created[nid]);
	shr_mutex_unlock(&host->shrinker_mutex);
	return ret;
}

static void ix_uninstall(struct shr_mem_cgroup *memcg, int id)
{
	struct shr_host *host = memcg->host;
	unsigned long index = (unsigned long)id / SHR_UNIT_BITS;
	/* A dying cgroup keeps its units until memcg_free: offline uninstalls
	 * (list_lru reparenting) before reparent_deferred reads the counters. */
	bool free_empty;

	if (id < 0)
		return;
	shr_mutex_lock(&host->shrinker_mutex);
	free_empty = !shr_memcg_dying(memcg);
	/* A unit that goes from its last node takes the cgroup off users. */
	for (int nid = 0; nid < host->nr_nodes; nid++)
		ix_unref_node(memcg, nid, index, free_empty);
	shr_mutex_unlock(&host->shrinker_mutex);
}

static bool ix_has_units(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++)
		if (shr_rcu_access_pointer(ix_node_of(memcg, nid)->units))
			return true;
	return false;
}

/*
 * Debug builds: no users array of a live shrinker holds @memcg, which is
 * about to be freed (I4; the id-reuse scrub would write into it).
 * Context: shrinker_mutex held.
 */
static void ix_check_not_a_user(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	struct shr_shrinker_impl *s;
	int id = 0;

	shr_lock_assert_held(&host->shrinker_mutex);
	if (!SHR_DEBUG_CHECKS)
		return;
	for (; (s = shr_idr_get_next(&host->shrinker_idr, &id)); id++)
		if (ix_shrinker_of(s) && shr_xa_load(&ix_shrinker_of(s)->users, memcg->ino))
			SHR_BUG("indexed: a cgroup being freed is still among a shrinker's users");
}

/* Take @memcg off the users of every id it holds a unit for, on any node
 * (I4). Each index once. Context: shrinker_mutex held. */
static void ix_users_forget_all(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct ix_units *cont = ix_units_of(memcg, nid);
		struct shr_info_unit *unit;
		unsigned long index;

		if (!cont)
			continue;
		shr_xa_for_each(&cont->xa, index, unit)
			if (!ix_holds_unit(memcg, index, nid))
				ix_users_forget_unit(memcg, index);
	}
}

static void ix_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	/* An empty cgroup costs nothing here, not even the lock: it holds no
	 * unit, so it is among no shrinker's users (I4). */
	if (!ix_has_units(host, memcg)) {
		if (SHR_DEBUG_CHECKS) {
			shr_mutex_lock(&host->shrinker_mutex);
			ix_check_not_a_user(host, memcg);
			shr_mutex_unlock(&host->shrinker_mutex);
		}
		return;
	}
	shr_mutex_lock(&host->shrinker_mutex);
	ix_users_forget_all(host, memcg);
	ix_check_not_a_user(host, memcg);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct ix_units *cont = ix_units_of(memcg, nid);
		struct shr_info_unit *unit;
		unsigned long index;

		if (!cont)
			continue;
		/* Counted only if offline never ran (a cgroup never onlined got
		 * a bit through shr_set_shrinker_bit()); its ancestors are still
		 * allocated: each is freed after this callback (queued later). */
		if (cont->counted)
			ix_count_subtree(memcg, nid, -1);
		/* No reader can reach the cgroup any more. */
		shr_xa_for_each(&cont->xa, index, unit)
			shr_info_unit_free(host, unit);
		SHR_RCU_INIT_POINTER(ix_node_of(memcg, nid)->units, NULL);
		ix_units_free_now(cont);
	}
	shr_mutex_unlock(&host->shrinker_mutex);
}

/* ---- deferred work ------------------------------------------------------ */

/* The counter of @s for (memcg, nid), or NULL (no unit: no list of the
 * shrinker in the cgroup; nowhere to keep the work, as in the xarray
 * design). Context: RCU read lock. */
static atomic_long *ix_counter(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s)
{
	struct ix_units *cont;
	struct shr_info_unit *unit;

	if (shr_memcg_is_root(memcg))
		return &ix_shrinker_of(s)->root_deferred[nid];
	cont = ix_units_of(memcg, nid);
	unit = cont ? shr_units_unit_of(&cont->xa, s->id) : NULL;
	return unit ? shr_unit_counter(unit, s->id) : NULL;
}

/* The root's counters += @unit's (ids without a live shrinker were zeroed
 * when their shrinker went). */
static void ix_reparent_to_root(struct shr_host *host, int nid, unsigned long index,
				struct shr_info_unit *unit)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	for (int i = 0; i < SHR_UNIT_BITS; i++) {
		long nr = atomic_load(&unit->nr_deferred[i]);
		struct shr_shrinker_impl *s;

		if (!nr)
			continue;
		s = shr_idr_find(&host->shrinker_idr, index * SHR_UNIT_BITS + (unsigned long)i);
		if (s && ix_shrinker_of(s))
			atomic_fetch_add(&ix_shrinker_of(s)->root_deferred[nid], nr);
	}
}

static void ix_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				 struct shr_mem_cgroup *parent)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct ix_units *cont = ix_units_of(memcg, nid);
		struct shr_info_unit *unit;
		unsigned long index;

		if (!cont)
			continue;
		/* Dying now: leave the subtree counts (I3). */
		shr_xa_lock(&cont->xa);
		ix_sync_counted(memcg, nid, cont);
		shr_xa_unlock(&cont->xa);
		shr_xa_for_each(&cont->xa, index, unit) {
			struct ix_units *pcont;

			if (!shr_unit_has_deferred(unit))
				continue;
			if (shr_memcg_is_root(parent)) {
				ix_reparent_to_root(host, nid, index, unit);
				continue;
			}
			/* The parent has lists wherever the child had (list_lru's
			 * ancestors-first rule), so it has the unit; a unit made
			 * by shr_set_shrinker_bit() alone is installed here and
			 * stays until the parent is freed. */
			pcont = ix_units_of(parent, nid);
			if (!pcont || !shr_xa_load(&pcont->xa, index)) {
				if (ix_ref_node(parent, nid, index, SHR_GFP_KERNEL, NULL))
					continue;
				pcont = ix_units_of(parent, nid);
			}
			shr_unit_add_counters(shr_xa_load(&pcont->xa, index), unit);
			ix_users_add_unit(parent, index, unit);
		}
	}
}

/* ---- registration --------------------------------------------------------- */

/* Registration touches no cgroup: shrinker_nr_max only counts ids (I5). */
static int ix_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max)
{
	struct ix_shrinker *ixs;

	shr_lock_assert_held(&host->shrinker_mutex);
	ixs = shr_kzalloc_node(host->slab,
			       sizeof(*ixs) + (size_t)host->nr_nodes * sizeof(atomic_long),
			       SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!ixs)
		return -ENOMEM;
	shr_xa_init(&ixs->users, host->xa_node_cache, SHR_NUMA_NO_NODE, 0);
	atomic_store_explicit(&s->info_data, ixs, memory_order_relaxed);
	(void)new_nr_max;
	return 0;
}

/* Zero @id's counter and clear its bit in (memcg, every node). */
static void ix_scrub(struct shr_mem_cgroup *memcg, int id)
{
	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	for (int nid = 0; nid < memcg->host->nr_nodes; nid++) {
		struct ix_units *cont = ix_units_of(memcg, nid);
		struct shr_info_unit *unit = cont ? shr_units_unit_of(&cont->xa, id) : NULL;

		if (!unit)
			continue;
		atomic_store(shr_unit_counter(unit, id), 0);
		ix_clear_bit(memcg, nid, id);
	}
}

/*
 * The id-reuse fix: the next shrinker that gets this id starts with no bit
 * and no deferred work anywhere. Visits only the cgroups that installed the
 * id (users); memcg_free cannot free one meanwhile (it takes shrinker_mutex,
 * which we hold), so the pointers are valid. No reclaimer holds @s.
 */
static void ix_shrinker_remove(struct shr_host *host, struct shr_shrinker_impl *s)
{
	struct ix_shrinker *ixs = ix_shrinker_of(s);
	struct shr_mem_cgroup *memcg;
	unsigned long ino;

	shr_lock_assert_held(&host->shrinker_mutex);
	if (!ixs)
		return;
	shr_xa_for_each(&ixs->users, ino, memcg)
		ix_scrub(memcg, s->id);
	shr_xa_destroy(&ixs->users);
	pthread_mutex_destroy(&ixs->users.xa_lock);
	/* Readers of root_deferred pin @s (reclaim, debugfs) or own it (the
	 * API); none is left, so no grace period is needed. */
	atomic_store_explicit(&s->info_data, NULL, memory_order_relaxed);
	shr_kfree(host->slab, ixs);
}

/* ---- attribution --------------------------------------------------------- */

static void ix_bytes(struct shr_mem_cgroup *memcg, int nid, struct shr_memcg_bookkeeping *acc)
{
	struct shr_host *host = memcg->host;
	struct ix_units *cont;

	acc->inline_bytes += host->info_node_size;
	shr_mutex_lock(&host->shrinker_mutex);
	cont = ix_units_of(memcg, nid);
	if (cont) {
		/* What the allocator really reserved: a slot of a kmalloc cache,
		 * or, for a refs[] past the largest cache (2048 units, id
		 * 131072), the whole pages of a large kmalloc. */
		acc->container_bytes += shr_ksize(host->slab, cont);
		if (cont->refs)
			acc->container_bytes += shr_ksize(host->slab, cont->refs);
		shr_units_bytes(host, &cont->xa, acc);
	}
	shr_mutex_unlock(&host->shrinker_mutex);
}

/* No memcg_online: the inline areas are zeroed at alloc, nothing else is
 * allocated before a cgroup's first list. */
const struct shr_info_ops shr_info_indexed_ops = {
	.memcg_node_size = sizeof(struct ix_node),
	.memcg_free = ix_memcg_free,
	.reparent_deferred = ix_reparent_deferred,
	.shrinker_add = ix_shrinker_add,
	.shrinker_remove = ix_shrinker_remove,
	.install = ix_install,
	.uninstall = ix_uninstall,
	.set_bit = ix_set_bit,
	.next_bit = ix_next_bit,
	.clear_bit = ix_clear_bit,
	.lookup = ix_lookup,
	.deferred_counter = ix_counter,
	.bytes = ix_bytes,
	.subtree_empty = ix_subtree_empty,
	.below_empty = ix_below_empty,
};
