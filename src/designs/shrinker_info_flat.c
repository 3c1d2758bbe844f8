/* SPDX-License-Identifier: MIT */
/*
 * Design "flat" (5.13-6.6): per cgroup and node ONE allocation, a header
 * (rcu_head, map_nr_max), a bitmap of map_nr_max bits, then map_nr_max
 * deferred counters, sized exactly for shrinker_nr_max (or the second id
 * space with nonslab_ids). Registration grows shrinker_nr_max in steps of
 * expand_batch ids (default 1, one expansion per new id as in 6.6) and
 * reallocates and copies every cgroup's map on every node.
 *
 * Invariants
 *  - Each (cgroup, node) map covers shr_grow_memcg_nr_max() ids once the
 *    cgroup is online (NULL before); the root never gets bits.
 *  - No set bit and no deferred count is lost by a growth (below).
 *
 * The copy race and how it is closed
 *  In the kernel before 6.7 the counters were only touched under
 *  shrinker_rwsem (read) while growth held it for write, and 5.13 copied the
 *  old maps as all-ones so a racing set_bit could not be lost. Here reclaim
 *  and set_bit run under RCU only, so a writer may still hold the old map
 *  while growth copies it. Protocol ("publish, then fold"):
 *
 *      growth (shrinker_mutex)             writer (RCU)
 *      -----------------------             ------------
 *      new = zeroed copy: bits loaded,     info = deref(node)
 *        counters moved by xchg(old, 0)    or bit / add nr in info
 *      publish new (release)               full barrier (W)
 *      full barrier (G)                    cur = deref(node)
 *      fold: new.bits |= old.bits,         if cur != info: redo the or in
 *        new.ctr += xchg(old.ctr, 0)         cur / move xchg(info.ctr, 0)
 *      free old after a grace period         into cur, and look again
 *
 *  (G) pairs with (W) (store-buffering): either the fold sees the writer's
 *  update of the old map, or the writer sees the new pointer and moves its
 *  update itself. Counters move only by exchange, so every count is in
 *  exactly one place (old map, new map, or a mover's hands on its way to
 *  the new map): none is lost or counted twice. A bit cleared in the old
 *  map after the copy can come back in the new one: a spurious bit costs
 *  one extra count call and is cleared by the walk (SHRINK_EMPTY).
 *  An exchange on a stale map's counter returns what is still there; the
 *  rest is (or will be) in the new map. Growths are serialised by
 *  shrinker_mutex, so a fold is complete before the next growth copies the
 *  new map.
 *
 *  set_bit keeps its own full barrier before the or (SHRINK_EMPTY pairing
 *  with reclaim's barrier between clear_bit and the recount).
 */
#include <stddef.h>

#include "lock.h"
#include "race.h"
#include "shrinker_info_grow.h"

struct flat_info {
	struct rcu_head rcu; /* layout of the kernel's header; see shr_retire */
	int map_nr_max;      /* Sync: immutable after publication */
	/* words(map_nr_max) bitmap words, then map_nr_max counters.
	 * Sync: atomics. */
	atomic_ulong map[];
};

static struct flat_info **info_slot(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_memcg_info_area(memcg, nid);
}

static int words(int nr_max)
{
	return (nr_max + SHR_UNIT_BITS - 1) / SHR_UNIT_BITS;
}

static atomic_long *deferred(struct flat_info *info)
{
	return (atomic_long *)(info->map + words(info->map_nr_max));
}

static size_t info_size(int nr_max)
{
	return offsetof(struct flat_info, map) + (size_t)words(nr_max) * sizeof(atomic_ulong) +
	       (size_t)nr_max * sizeof(atomic_long);
}

static struct flat_info *info_deref(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference(*info_slot(memcg, nid));
}

/* The map as its writers see it. Context: shrinker_mutex held. */
static struct flat_info *info_protected(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference_protected(*info_slot(memcg, nid),
					     shr_lock_held(&memcg->host->shrinker_mutex));
}

/* The map of a cgroup no reader can reach (being freed, or never online). */
static struct flat_info *info_unreachable(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference_protected(*info_slot(memcg, nid), true);
}

static struct flat_info *info_alloc(struct shr_host *host, int nid, int nr_max)
{
	struct flat_info *info;

	info = shr_kvmalloc_node(host->slab, info_size(nr_max), SHR_GFP_KERNEL | SHR_GFP_ZERO,
				 nid);
	if (info)
		info->map_nr_max = nr_max;
	return info;
}

static void flat_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		shr_kvfree(host->slab, info_unreachable(memcg, nid));
		SHR_RCU_INIT_POINTER(*info_slot(memcg, nid), NULL);
	}
}

/* alloc_shrinker_info(). shrinker_mutex held. */
static int flat_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	int nr_max = shr_grow_memcg_nr_max(memcg);

	shr_lock_assert_held(&host->shrinker_mutex);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct flat_info *info = info_alloc(host, nid, nr_max);

		if (!info) {
			flat_memcg_free(host, memcg);
			return -ENOMEM;
		}
		shr_race_point(SHR_RACE_INFO_PUBLISH);
		shr_rcu_assign_pointer(*info_slot(memcg, nid), info);
	}
	return 0;
}

/* Copy (bits) and move (counters) what @old holds into @new. */
static void transfer(struct flat_info *old, struct flat_info *new)
{
	atomic_long *od = deferred(old), *nd = deferred(new);

	for (int w = 0; w < words(old->map_nr_max); w++) {
		unsigned long bits = atomic_load(&old->map[w]);

		if (bits)
			atomic_fetch_or(&new->map[w], bits);
	}
	for (int i = 0; i < old->map_nr_max; i++) {
		long nr = atomic_exchange(&od[i], 0);

		if (nr)
			atomic_fetch_add(&nd[i], nr);
	}
}

/* Return 0, 1 (cgroup not online yet: skip it), -ENOMEM. shrinker_mutex held. */
static int expand_one(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
		      int new_nr_max, struct shr_retire **retire)
{
	struct flat_info *old = info_protected(memcg, nid), *new;

	if (!old)
		return 1;
	if (new_nr_max <= old->map_nr_max)
		return 0;
	new = info_alloc(host, nid, new_nr_max);
	if (!new)
		return -ENOMEM;
	transfer(old, new);
	shr_rcu_assign_pointer(*info_slot(memcg, nid), new);
	shr_race_point(SHR_RACE_FLAT_GROW_G);
	/* (G): pairs with (W) in the writers (see the top of the file). */
	atomic_thread_fence(memory_order_seq_cst);
	transfer(old, new);
	atomic_fetch_add(&host->stats.arrays_reallocated, 1);
	atomic_fetch_add(&host->stats.bytes_copied,
			 (unsigned long)words(old->map_nr_max) * sizeof(atomic_ulong) +
				 (unsigned long)old->map_nr_max * sizeof(atomic_long));
	shr_retire_add(host, retire, old);
	return 0;
}

static int flat_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max)
{
	return shr_grow_shrinker_add(host, s, new_nr_max, expand_one);
}

/* The current map of (memcg, nid) if it covers @slot. RCU held. */
static struct flat_info *map_for(struct shr_mem_cgroup *memcg, int nid, int slot)
{
	struct flat_info *info = info_deref(memcg, nid);

	if (!info || slot < 0 || slot >= info->map_nr_max)
		return NULL;
	return info;
}

/* (W) then: is @info still the published map? Returns the newer one or NULL. */
static struct flat_info *superseded(struct shr_mem_cgroup *memcg, int nid, struct flat_info *info)
{
	struct flat_info *cur;

	shr_race_point(SHR_RACE_FLAT_WRITER_W);
	/* (W): pairs with (G) in expand_one(). */
	atomic_thread_fence(memory_order_seq_cst);
	cur = info_deref(memcg, nid);
	return cur == info ? NULL : cur;
}

static void flat_set_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct flat_info *info;
	int slot;

	if (id < 0 || shr_memcg_is_root(memcg))
		return;
	slot = shr_grow_slot(memcg, id);
	shr_rcu_read_lock();
	info = map_for(memcg, nid, slot);
	if (info) {
		shr_race_point(SHR_RACE_SET_BIT_A);
		/* set_shrinker_bit()'s barrier: pairs with reclaim's between
		 * clear_bit and the recount. */
		atomic_thread_fence(memory_order_seq_cst);
		do {
			atomic_fetch_or(&info->map[slot / SHR_UNIT_BITS],
					1UL << (slot % SHR_UNIT_BITS));
		} while ((info = superseded(memcg, nid, info)));
	}
	shr_rcu_read_unlock();
}

static int flat_next_bit(struct shr_mem_cgroup *memcg, int nid, int pos,
			 struct shr_walk_counts *wc)
{
	struct flat_info *info = info_deref(memcg, nid);
	int start = shr_grow_slot_from_pos(memcg, pos);

	if (!info)
		return -1;
	for (int w = start / SHR_UNIT_BITS; w < words(info->map_nr_max); w++) {
		int slot = shr_unit_first_bit(atomic_load_explicit(&info->map[w], memory_order_relaxed),
					      (unsigned long)w, start);

		wc->units++;
		wc->words++;
		if (slot >= 0)
			return shr_grow_id_of_slot(memcg, slot);
	}
	return -1;
}

static void flat_clear_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct flat_info *info;
	int slot = shr_grow_slot(memcg, id);

	shr_rcu_read_lock();
	info = map_for(memcg, nid, slot);
	if (info)
		atomic_fetch_and_explicit(&info->map[slot / SHR_UNIT_BITS],
					  ~(1UL << (slot % SHR_UNIT_BITS)), memory_order_relaxed);
	shr_rcu_read_unlock();
}

/* The counter of @s in the current map, or NULL. Context: RCU read lock. */
static atomic_long *flat_counter(struct shr_mem_cgroup *memcg, int nid,
				 struct shr_shrinker_impl *s)
{
	int slot = shr_grow_slot_of(memcg, s);
	struct flat_info *info = map_for(memcg, nid, slot);

	return info ? &deferred(info)[slot] : NULL;
}

static long flat_add_deferred(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s,
			      long nr)
{
	int slot = shr_grow_slot_of(memcg, s);
	struct flat_info *info, *cur;
	long ret = 0;

	shr_rcu_read_lock();
	info = map_for(memcg, nid, slot);
	if (info) {
		ret = atomic_fetch_add(&deferred(info)[slot], nr) + nr;
		/* Superseded meanwhile: move what is left in the old map (ours
		 * unless a fold took it) to the new one, and check again. */
		while ((cur = superseded(memcg, nid, info))) {
			long left = atomic_exchange(&deferred(info)[slot], 0);

			if (!left)
				break;
			atomic_fetch_add(&deferred(cur)[slot], left);
			info = cur;
		}
	}
	shr_rcu_read_unlock();
	return ret;
}

/* reparent_shrinker_deferred(). shrinker_mutex held: no growth runs. */
static void flat_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				   struct shr_mem_cgroup *parent)
{
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct flat_info *cinfo = info_protected(memcg, nid);
		struct flat_info *pinfo = info_protected(parent, nid);

		for (int i = 0; cinfo && pinfo && i < cinfo->map_nr_max; i++) {
			long nr = atomic_load(&deferred(cinfo)[i]);
			int pslot;

			if (!nr)
				continue;
			pslot = shr_grow_reparent_slot(memcg, parent, i);
			if (pslot >= 0 && pslot < pinfo->map_nr_max)
				atomic_fetch_add(&deferred(pinfo)[pslot], nr);
		}
	}
}

static void flat_bytes(struct shr_mem_cgroup *memcg, int nid, struct shr_memcg_bookkeeping *acc)
{
	struct shr_host *host = memcg->host;
	struct flat_info *info;

	shr_rcu_read_lock();
	info = info_deref(memcg, nid);
	if (info)
		acc->container_bytes += shr_ksize(host->slab, info);
	shr_rcu_read_unlock();
	acc->inline_bytes += host->info_node_size;
}

/* No install/uninstall: everything is allocated with the map. */
const struct shr_info_ops shr_info_flat_ops = {
	/* The per-node area is the map pointer. Sync: RCU; written under
	 * shrinker_mutex (online, growth) or by memcg_free with no reader. */
	.memcg_node_size = sizeof(struct flat_info *),
	.host_init = shr_grow_host_init,
	.host_exit = shr_grow_host_exit,
	.memcg_online = flat_memcg_online,
	.memcg_free = flat_memcg_free,
	.reparent_deferred = flat_reparent_deferred,
	.shrinker_add = flat_shrinker_add,
	.shrinker_remove = shr_grow_shrinker_remove,
	.set_bit = flat_set_bit,
	.next_bit = flat_next_bit,
	.clear_bit = flat_clear_bit,
	.lookup = shr_grow_lookup,
	.deferred_counter = flat_counter,
	.add_deferred = flat_add_deferred,
	.bytes = flat_bytes,
};
