/* SPDX-License-Identifier: MIT */
/*
 * Designs "prealloc" (mainline 6.7+) and "array-ondemand": per cgroup and
 * node a shrinker_info = header (rcu_head, map_nr_max) + an array of
 * map_nr_max / 64 pointers to units (64 deferred counters + a map word).
 *
 *   prealloc        every unit is allocated when the cgroup comes online
 *                   and when growth adds indices (alloc/expand_shrinker_info).
 *   array-ondemand  non-root units are allocated by install() only (the
 *                   cgroup got a list on the shrinker's list_lru, or
 *                   shr_set_shrinker_bit()); the root still gets every unit
 *                   at registration (global reclaim keeps its deferred work
 *                   there). A NULL slot is a unit never installed.
 *
 * Invariants
 *  - Each (cgroup, node) info covers shr_grow_memcg_nr_max() ids once the
 *    cgroup is online (NULL before); growth replaces it by a bigger one with
 *    the same unit pointers (units are shared, never copied or moved) and
 *    frees the old header after a grace period. Units live until the cgroup
 *    is freed.
 *  - The root never gets bits.
 *
 * Concurrency
 *  - Info pointers: RCU. Writers hold shrinker_mutex (online, growth);
 *    memcg_free runs when no reader can reach the cgroup. A reader on a
 *    stale info reaches the same units, so bits and counters written through
 *    it stay visible.
 *  - array-ondemand, the install/growth race: growth copies slot pointers
 *    from the old info; an install storing into the old info after that copy
 *    would be lost. Both run under the per-(cgroup, node) spinlock
 *    (struct arr_node.lock, lock order level 4): growth copies and publishes
 *    the new info inside it, install re-reads the current info inside it.
 *    So the install lands either in the old info before the copy (copied) or
 *    in the new one. A thread that installed then set a bit re-reads the
 *    info pointer after its own install, so it sees that info or a newer one
 *    (read-read coherence), which has the unit.
 *  - Slot stores in array-ondemand are release stores (the unit is zeroed
 *    first), paired with the acquire loads of readers (unit_load()).
 *  - set_bit: full barrier, then atomic or (shr_info_unit_set_bit()), paired
 *    with reclaim's barrier between clear_bit and its recount.
 */
#include <stddef.h>

#include "lock.h"
#include "race.h"
#include "shrinker_info_grow.h"

struct arr_info {
	struct rcu_head rcu; /* layout of the kernel's header; see shr_retire */
	int map_nr_max;      /* Sync: immutable after publication */
	/* Sync: prealloc: written before publication; array-ondemand: release
	 * stores under arr_node.lock, acquire loads (unit_load()). */
	struct shr_info_unit *_Atomic unit[];
};

/* Per-node area of array-ondemand; prealloc's is the pointer alone. */
struct arr_node {
	/* First: prealloc's area is this pointer alone. Sync: RCU; written
	 * under shrinker_mutex (online, growth; growth also holds @lock), or
	 * by memcg_free with no reader left. */
	struct arr_info *SHR_RCU info;
	/* Install vs growth (see above). Sync: initialised at online before
	 * @info is published, destroyed at free. */
	struct shr_spinlock lock;
	bool lock_ready; /* Sync: online (shrinker_mutex) and free only */
};

/* The install lock (lock order level 4, a spinning lock). */
static void arr_node_lock(struct arr_node *node)
{
	shr_spin_lock(&node->lock);
	shr_race_spin_enter();
}

static void arr_node_unlock(struct arr_node *node)
{
	shr_race_spin_exit();
	shr_spin_unlock(&node->lock);
}

static struct arr_info **info_slot(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_memcg_info_area(memcg, nid);
}

static struct arr_node *node_of(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_memcg_info_area(memcg, nid);
}

static size_t info_size(int nr_max)
{
	return offsetof(struct arr_info, unit) +
	       (size_t)(nr_max / SHR_UNIT_BITS) * sizeof(struct shr_info_unit *);
}

static int nr_units(const struct arr_info *info)
{
	return info->map_nr_max / SHR_UNIT_BITS;
}

static struct shr_info_unit *unit_load(struct arr_info *info, int i)
{
	return atomic_load_explicit(&info->unit[i], memory_order_acquire);
}

/* The info of (memcg, nid) as readers see it (RCU held). */
static struct arr_info *info_deref(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference(*info_slot(memcg, nid));
}

/* The info as its writers see it. Context: shrinker_mutex held. */
static struct arr_info *info_protected(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference_protected(*info_slot(memcg, nid),
					     shr_lock_held(&memcg->host->shrinker_mutex));
}

/* The info as install sees it: growth publishes under the install lock.
 * Context: array-ondemand's install lock of (memcg, nid) held. */
static struct arr_info *info_locked(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference_protected(*info_slot(memcg, nid),
					     shr_lock_held(&node_of(memcg, nid)->lock));
}

/* The info of a cgroup no reader can reach (being freed, or never online). */
static struct arr_info *info_unreachable(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_rcu_dereference_protected(*info_slot(memcg, nid), true);
}

static struct arr_info *info_alloc(struct shr_host *host, int nid, int nr_max)
{
	struct arr_info *info;

	info = shr_kvmalloc_node(host->slab, info_size(nr_max), SHR_GFP_KERNEL | SHR_GFP_ZERO,
				 nid);
	if (info)
		info->map_nr_max = nr_max;
	return info;
}

/* Store into a slot of an info no reader can see yet (or no longer). */
static void unit_init(struct arr_info *info, int i, struct shr_info_unit *unit)
{
	atomic_store_explicit(&info->unit[i], unit, memory_order_relaxed);
}

/* Fill unpublished slots [from, to) with zeroed units; all or nothing. */
static int units_fill(struct shr_host *host, struct arr_info *info, int nid, int from, int to)
{
	for (int i = from; i < to; i++) {
		struct shr_info_unit *unit = shr_info_unit_alloc(host, nid, SHR_GFP_KERNEL);

		unit_init(info, i, unit);
		if (!unit) {
			for (int j = from; j < i; j++) {
				shr_info_unit_free(host, unit_load(info, j));
				unit_init(info, j, NULL);
			}
			return -ENOMEM;
		}
	}
	return 0;
}

static void info_free_all(struct shr_host *host, struct arr_info *info)
{
	for (int i = 0; i < nr_units(info); i++)
		shr_info_unit_free(host, unit_load(info, i));
	shr_kvfree(host->slab, info);
}

/* Whether @memcg gets units when its arrays are allocated or grown: every
 * cgroup in prealloc, the root alone in array-ondemand. */
static bool gets_units(struct shr_mem_cgroup *memcg, bool ondemand)
{
	return !ondemand || shr_memcg_is_root(memcg);
}

static void prealloc_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct arr_info *info = info_unreachable(memcg, nid);

		if (info)
			info_free_all(host, info);
		SHR_RCU_INIT_POINTER(*info_slot(memcg, nid), NULL);
	}
}

/* The same, and the install locks. */
static void ondemand_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	prealloc_memcg_free(host, memcg);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		if (node_of(memcg, nid)->lock_ready) {
			shr_spin_destroy(&node_of(memcg, nid)->lock);
			node_of(memcg, nid)->lock_ready = false;
		}
	}
}

/* alloc_shrinker_info(): every node's info, and its units unless
 * @ondemand (a non-root cgroup then installs them). shrinker_mutex held.
 * 0 or -ENOMEM (the caller frees what was published). */
static int arr_alloc_infos(struct shr_host *host, struct shr_mem_cgroup *memcg, bool ondemand)
{
	int nr_max = shr_grow_memcg_nr_max(memcg);

	shr_lock_assert_held(&host->shrinker_mutex);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct arr_info *info = info_alloc(host, nid, nr_max);

		if (!info)
			return -ENOMEM;
		if (gets_units(memcg, ondemand) && units_fill(host, info, nid, 0, nr_units(info))) {
			shr_kvfree(host->slab, info);
			return -ENOMEM;
		}
		shr_race_point(SHR_RACE_INFO_PUBLISH);
		/* Release: the zeroed units before the pointer (pairs with the
		 * readers' dereference). */
		shr_rcu_assign_pointer(*info_slot(memcg, nid), info);
	}
	return 0;
}

static int prealloc_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	if (!arr_alloc_infos(host, memcg, false))
		return 0;
	/* No reader reaches a cgroup that is not online yet. */
	prealloc_memcg_free(host, memcg);
	return -ENOMEM;
}

static int ondemand_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		if (!node_of(memcg, nid)->lock_ready) {
			shr_spin_init(&node_of(memcg, nid)->lock, SHR_LOCK_DESIGN);
			node_of(memcg, nid)->lock_ready = true;
		}
	}
	if (!arr_alloc_infos(host, memcg, true))
		return 0;
	ondemand_memcg_free(host, memcg);
	return -ENOMEM;
}

/*
 * expand_one_shrinker_info() for (memcg, nid); @ondemand: array-ondemand
 * (units only for the root; copy under the install lock). Return 0, 1 when
 * the cgroup is not online yet (skip it), -ENOMEM (nothing of this step
 * allocated stays). shrinker_mutex held.
 */
static int expand_one(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
		      int new_nr_max, struct shr_retire **retire, bool ondemand)
{
	struct arr_info *old = info_protected(memcg, nid), *new;
	int old_units;

	if (!old)
		return 1;
	if (new_nr_max <= old->map_nr_max)
		return 0;
	new = info_alloc(host, nid, new_nr_max);
	if (!new)
		return -ENOMEM;
	old_units = nr_units(old);
	if (gets_units(memcg, ondemand) && units_fill(host, new, nid, old_units, nr_units(new))) {
		shr_kvfree(host->slab, new);
		return -ENOMEM;
	}
	shr_race_point(SHR_RACE_ARR_GROW_COPY);
	if (ondemand)
		arr_node_lock(node_of(memcg, nid));
	/* The old pointers, NULL ones included; no install can slip in
	 * between this copy and the publication (the lock). */
	for (int i = 0; i < old_units; i++)
		unit_init(new, i, unit_load(old, i));
	shr_rcu_assign_pointer(*info_slot(memcg, nid), new);
	if (ondemand)
		arr_node_unlock(node_of(memcg, nid));
	atomic_fetch_add(&host->stats.arrays_reallocated, 1);
	atomic_fetch_add(&host->stats.bytes_copied,
			 (unsigned long)old_units * sizeof(struct shr_info_unit *));
	shr_retire_add(host, retire, old);
	return 0;
}

static int prealloc_expand_one(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
			       int new_nr_max, struct shr_retire **retire)
{
	return expand_one(host, memcg, nid, new_nr_max, retire, false);
}

static int ondemand_expand_one(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
			       int new_nr_max, struct shr_retire **retire)
{
	return expand_one(host, memcg, nid, new_nr_max, retire, true);
}

static int prealloc_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s,
				 int new_nr_max)
{
	return shr_grow_shrinker_add(host, s, new_nr_max, prealloc_expand_one);
}

static int ondemand_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s,
				 int new_nr_max)
{
	return shr_grow_shrinker_add(host, s, new_nr_max, ondemand_expand_one);
}

/* Put a zeroed unit at @index of (memcg, nid) unless one is there. */
static int install_unit(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid, int index,
			shr_gfp_t gfp)
{
	struct arr_node *node = node_of(memcg, nid);
	struct shr_info_unit *unit, *spare = NULL;
	struct arr_info *info;
	bool present;

	shr_rcu_read_lock();
	info = info_deref(memcg, nid);
	present = !info || index >= nr_units(info) || unit_load(info, index);
	shr_rcu_read_unlock();
	if (present)
		return 0; /* installed, or nothing to install into (not online) */
	unit = shr_info_unit_alloc(host, nid, gfp);
	if (!unit)
		return -ENOMEM;
	/* A growth may copy the slots and publish a new info meanwhile. */
	shr_race_point(SHR_RACE_ARR_INSTALL);
	arr_node_lock(node);
	/* The current info: growth publishes under this lock. */
	info = info_locked(memcg, nid);
	if (info && index < nr_units(info) && !unit_load(info, index))
		atomic_store_explicit(&info->unit[index], unit, memory_order_release);
	else
		spare = unit;
	arr_node_unlock(node);
	shr_info_unit_free(host, spare);
	return 0;
}

/* array-ondemand only (prealloc has every unit already). */
static int ondemand_install(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp)
{
	struct shr_host *host = memcg->host;
	int slot;

	if (shr_memcg_is_root(memcg))
		return 0; /* the root has every unit */
	slot = shr_grow_slot(memcg, id);
	if (slot < 0)
		return 0;
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		int ret = install_unit(host, memcg, nid, slot / SHR_UNIT_BITS, gfp);

		if (ret)
			return ret;
	}
	return 0;
}

/* The unit of @slot in (memcg, nid), or NULL. RCU held. */
static struct shr_info_unit *unit_of(struct shr_mem_cgroup *memcg, int nid, int slot)
{
	struct arr_info *info = info_deref(memcg, nid);

	if (!info || slot < 0 || slot >= info->map_nr_max)
		return NULL;
	return unit_load(info, slot / SHR_UNIT_BITS);
}

static void arr_set_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct shr_info_unit *unit;
	int slot;

	if (id < 0 || shr_memcg_is_root(memcg))
		return;
	slot = shr_grow_slot(memcg, id);
	shr_rcu_read_lock();
	unit = unit_of(memcg, nid, slot);
	if (unit)
		shr_info_unit_set_bit(unit, slot % SHR_UNIT_BITS);
	shr_rcu_read_unlock();
}

static int arr_next_bit(struct shr_mem_cgroup *memcg, int nid, int pos,
			struct shr_walk_counts *wc)
{
	struct arr_info *info = info_deref(memcg, nid);
	int start = shr_grow_slot_from_pos(memcg, pos);

	if (!info)
		return -1;
	/* Every slot up to map_nr_max is looked at: an empty cgroup's walk
	 * costs shrinker_nr_max / 64 units in prealloc. */
	for (int i = start / SHR_UNIT_BITS; i < nr_units(info); i++) {
		struct shr_info_unit *unit = unit_load(info, i);
		int slot;

		if (!unit)
			continue;
		wc->units++;
		wc->words++;
		slot = shr_unit_first_bit(atomic_load_explicit(&unit->map, memory_order_relaxed),
					  (unsigned long)i, start);
		if (slot >= 0)
			return shr_grow_id_of_slot(memcg, slot);
	}
	return -1;
}

static void arr_clear_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct shr_info_unit *unit;
	int slot = shr_grow_slot(memcg, id);

	shr_rcu_read_lock();
	unit = unit_of(memcg, nid, slot);
	if (unit)
		atomic_fetch_and_explicit(&unit->map, ~(1UL << (slot % SHR_UNIT_BITS)),
					  memory_order_relaxed);
	shr_rcu_read_unlock();
}

static atomic_long *counter_of(struct shr_mem_cgroup *memcg, int nid,
			       struct shr_shrinker_impl *s)
{
	int slot = shr_grow_slot_of(memcg, s);
	struct shr_info_unit *unit = unit_of(memcg, nid, slot);

	/* No unit (array-ondemand): the cgroup never held objects of this
	 * shrinker; the work has nowhere to go, as in the xarray design. */
	return unit ? &unit->nr_deferred[slot % SHR_UNIT_BITS] : NULL;
}

/* The parent's unit for @pslot, installing it in array-ondemand. */
static struct shr_info_unit *parent_unit(struct shr_host *host, struct shr_mem_cgroup *parent,
					 int nid, int pslot)
{
	struct arr_info *pinfo = info_protected(parent, nid);

	if (!pinfo || pslot < 0 || pslot >= pinfo->map_nr_max)
		return NULL;
	if (!unit_load(pinfo, pslot / SHR_UNIT_BITS) &&
	    install_unit(host, parent, nid, pslot / SHR_UNIT_BITS, SHR_GFP_KERNEL))
		return NULL; /* out of memory: the work is dropped */
	/* Growth cannot run (shrinker_mutex held): pinfo is still current. */
	return unit_load(pinfo, pslot / SHR_UNIT_BITS);
}

/* reparent_shrinker_deferred(). shrinker_mutex held. */
static void arr_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				  struct shr_mem_cgroup *parent)
{
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct arr_info *cinfo = info_protected(memcg, nid);

		for (int i = 0; cinfo && i < nr_units(cinfo); i++) {
			struct shr_info_unit *cu = unit_load(cinfo, i);

			for (int off = 0; cu && off < SHR_UNIT_BITS; off++) {
				long nr = atomic_load(&cu->nr_deferred[off]);
				struct shr_info_unit *pu;
				int pslot;

				if (!nr)
					continue;
				pslot = shr_grow_reparent_slot(memcg, parent, i * SHR_UNIT_BITS + off);
				pu = parent_unit(host, parent, nid, pslot);
				if (pu)
					atomic_fetch_add(&pu->nr_deferred[pslot % SHR_UNIT_BITS], nr);
			}
		}
	}
}

static void arr_bytes(struct shr_mem_cgroup *memcg, int nid, struct shr_memcg_bookkeeping *acc)
{
	struct shr_host *host = memcg->host;
	struct arr_info *info;
	unsigned long nr = 0;

	shr_rcu_read_lock();
	info = info_deref(memcg, nid);
	if (info) {
		for (int i = 0; i < nr_units(info); i++)
			if (unit_load(info, i))
				nr++;
		acc->container_bytes += shr_ksize(host->slab, info);
	}
	shr_rcu_read_unlock();
	acc->nr_units += nr;
	acc->unit_bytes += nr * shr_info_unit_bytes(host);
	acc->inline_bytes += host->info_node_size;
}

/*
 * The two differ in what a cgroup gets at online and growth (every unit, or
 * the root's alone), in install (array-ondemand only) and in the install
 * lock. No uninstall: units live as long as the cgroup.
 */
const struct shr_info_ops shr_info_prealloc_ops = {
	.memcg_node_size = sizeof(struct arr_info *),
	.host_init = shr_grow_host_init,
	.host_exit = shr_grow_host_exit,
	.memcg_online = prealloc_memcg_online,
	.memcg_free = prealloc_memcg_free,
	.reparent_deferred = arr_reparent_deferred,
	.shrinker_add = prealloc_shrinker_add,
	.shrinker_remove = shr_grow_shrinker_remove,
	.set_bit = arr_set_bit,
	.next_bit = arr_next_bit,
	.clear_bit = arr_clear_bit,
	.lookup = shr_grow_lookup,
	.deferred_counter = counter_of,
	.bytes = arr_bytes,
};

const struct shr_info_ops shr_info_array_ondemand_ops = {
	.memcg_node_size = sizeof(struct arr_node),
	.host_init = shr_grow_host_init,
	.host_exit = shr_grow_host_exit,
	.memcg_online = ondemand_memcg_online,
	.memcg_free = ondemand_memcg_free,
	.reparent_deferred = arr_reparent_deferred,
	.shrinker_add = ondemand_shrinker_add,
	.shrinker_remove = shr_grow_shrinker_remove,
	.install = ondemand_install,
	.set_bit = arr_set_bit,
	.next_bit = arr_next_bit,
	.clear_bit = arr_clear_bit,
	.lookup = shr_grow_lookup,
	.deferred_counter = counter_of,
	.bytes = arr_bytes,
};
