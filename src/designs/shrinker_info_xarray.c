/* SPDX-License-Identifier: MIT */
/*
 * Design "xarray" (seed 000): per cgroup and node, an XArray of units keyed
 * by unit index (id / 64), units allocated on demand.
 *
 * Invariants
 *  - A non-root cgroup has a unit for index i on node n iff it was
 *    installed: when the cgroup got a list on a list_lru of a shrinker whose
 *    id is in unit i (install runs before the list is published, so
 *    set_bit always finds its unit), or through shr_set_shrinker_bit().
 *    Units stay until the cgroup is freed.
 *  - The root has a unit for every index below shrinker_nr_max / 64 on every
 *    node: registration installs it. Registration visits no other cgroup.
 *    The root never gets bits; its units hold the deferred work of global
 *    reclaim for memcg-aware shrinkers.
 *
 * Concurrency
 *  - Installs are XArray inserts under the array's own lock; a lost race
 *    (-EBUSY) frees the spare unit. Nothing is ever copied, so no install can
 *    be lost to a concurrent growth (there is none).
 *  - Readers (set_bit, next_bit, clear_bit, deferred access) use
 *    shr_xa_load()/shr_xa_find() under RCU; a unit, once present, stays
 *    until the cgroup is freed, which no reader can race with (they pin it).
 *  - set_bit: full barrier, then atomic or (shr_info_unit_set_bit), paired
 *    with the barrier reclaim issues between clear_bit and its recount.
 *  - Root units are inserted under shrinker_mutex; their counters are
 *    atomics.
 *
 * Everything but the bits (set_bit/next_bit/clear_bit) is exported through
 * shrinker_info_xarray.h: the "nobitmap" design keeps its deferred counters
 * in the same units.
 */
#include "race.h"
#include "shrinker_info_xarray.h"

static struct shr_xarray *units_of(struct shr_mem_cgroup *memcg, int nid)
{
	return shr_memcg_info_area(memcg, nid);
}

/* Insert a zeroed unit at @index of (memcg, nid) unless one is there. */
static int install_one(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
		       unsigned long index, shr_gfp_t gfp)
{
	struct shr_xarray *xa = units_of(memcg, nid);
	struct shr_info_unit *unit;
	int ret;

	if (shr_xa_load(xa, index))
		return 0;
	unit = shr_info_unit_alloc(host, nid, gfp);
	if (!unit)
		return -ENOMEM;
	/* Another install may insert first (then ours is freed). */
	shr_race_point(SHR_RACE_INFO_PUBLISH);
	ret = shr_xa_insert(xa, index, unit, gfp);
	if (ret) {
		shr_info_unit_free(host, unit);
		return ret == -EBUSY ? 0 : ret;
	}
	return 0;
}

static void free_units(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid)
{
	struct shr_xarray *xa = units_of(memcg, nid);
	struct shr_info_unit *unit;
	unsigned long index;

	shr_xa_for_each(xa, index, unit)
		shr_info_unit_free(host, unit);
	shr_xa_destroy(xa);
}

/*
 * The per-node XArrays are initialised at alloc, before the cgroup can be
 * found: readers (get_stats's walk, bookkeeping, deferred reads) may look at
 * a cgroup that is not online yet, and an XArray must not be initialised
 * under them (shr_xa_init() wants it invisible).
 */
void shr_info_xa_memcg_init(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++)
		shr_xa_init(units_of(memcg, nid), host->xa_node_cache, nid, 0);
}

int shr_info_xa_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	int nr_units = shr_shrinker_nr_max(host) / SHR_UNIT_BITS;

	shr_lock_assert_held(&host->shrinker_mutex);
	if (!shr_memcg_is_root(memcg))
		return 0;
	/* The root holds every unit (only matters for a root created after
	 * registrations, which a host never does; kept for symmetry). */
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		for (int i = 0; i < nr_units; i++) {
			if (install_one(host, memcg, nid, (unsigned long)i, SHR_GFP_KERNEL)) {
				for (int n = 0; n < host->nr_nodes; n++)
					free_units(host, memcg, n);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

void shr_info_xa_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	for (int nid = 0; nid < host->nr_nodes; nid++)
		free_units(host, memcg, nid);
}

/* Registration: give the root its unit (no cgroup has arrays to grow). */
int shr_info_xa_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max)
{
	unsigned long index = (unsigned long)s->id / SHR_UNIT_BITS;
	bool inserted[SHR_MAX_NUMNODES] = { false };

	shr_lock_assert_held(&host->shrinker_mutex);
	atomic_fetch_add(&host->stats.cgroups_visited_by_registration, 1);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct shr_xarray *xa = units_of(host->root, nid);
		struct shr_info_unit *unit;

		if (shr_xa_load(xa, index))
			continue;
		unit = shr_info_unit_alloc(host, nid, SHR_GFP_KERNEL);
		if (!unit || shr_xa_insert(xa, index, unit, SHR_GFP_KERNEL)) {
			shr_info_unit_free(host, unit);
			goto undo;
		}
		inserted[nid] = true;
	}
	(void)new_nr_max;
	return 0;
undo:
	for (int nid = 0; nid < host->nr_nodes; nid++)
		if (inserted[nid])
			shr_info_unit_free(host, shr_xa_erase(units_of(host->root, nid), index));
	return -ENOMEM;
}

int shr_info_xa_install(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp)
{
	struct shr_host *host = memcg->host;

	if (id < 0 || shr_memcg_is_root(memcg))
		return 0;
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		int ret = install_one(host, memcg, nid, (unsigned long)id / SHR_UNIT_BITS, gfp);

		if (ret)
			return ret;
	}
	return 0;
}

static struct shr_info_unit *unit_of(struct shr_mem_cgroup *memcg, int nid, int id)
{
	return shr_units_unit_of(units_of(memcg, nid), id);
}

static void xa_set_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct shr_info_unit *unit;

	if (id < 0 || shr_memcg_is_root(memcg))
		return;
	unit = unit_of(memcg, nid, id);
	if (unit)
		shr_info_unit_set_bit(unit, id % SHR_UNIT_BITS);
}

static int xa_next_bit(struct shr_mem_cgroup *memcg, int nid, int pos,
		       struct shr_walk_counts *wc)
{
	return shr_units_next_bit(units_of(memcg, nid), pos, SHR_XA_PRESENT, wc);
}

static void xa_clear_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	struct shr_info_unit *unit = unit_of(memcg, nid, id);

	if (unit)
		atomic_fetch_and_explicit(&unit->map, ~(1UL << (id % SHR_UNIT_BITS)),
					  memory_order_relaxed);
}

struct shr_shrinker_impl *shr_info_xa_lookup(struct shr_mem_cgroup *memcg, int id)
{
	return shr_idr_find(&memcg->host->shrinker_idr, (unsigned long)id);
}

atomic_long *shr_info_xa_deferred_counter(struct shr_mem_cgroup *memcg, int nid,
					  struct shr_shrinker_impl *s)
{
	struct shr_info_unit *unit = unit_of(memcg, nid, s->id);

	/* No unit: the cgroup never held objects of this shrinker on this
	 * node; there is nowhere to keep the work (documented in ARCHITECTURE). */
	return unit ? shr_unit_counter(unit, s->id) : NULL;
}

void shr_info_xa_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				   struct shr_mem_cgroup *parent)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct shr_info_unit *unit, *punit;
		unsigned long index;

		shr_xa_for_each(units_of(memcg, nid), index, unit) {
			if (!shr_unit_has_deferred(unit))
				continue;
			/* The parent has lists wherever the child had (ancestors
			 * first), so it has the unit; install covers the rest. */
			if (install_one(host, parent, nid, index, SHR_GFP_KERNEL))
				continue;
			punit = shr_xa_load(units_of(parent, nid), index);
			shr_unit_add_counters(punit, unit);
		}
	}
}

void shr_info_xa_bytes(struct shr_mem_cgroup *memcg, int nid,
		       struct shr_memcg_bookkeeping *acc)
{
	shr_units_bytes(memcg->host, units_of(memcg, nid), acc);
	acc->inline_bytes += memcg->host->info_node_size;
}

/* No shrinker_remove: the kernel's behaviour, bits and counters of a freed
 * id stay. No uninstall: units live as long as the cgroup. */
const struct shr_info_ops shr_info_xarray_ops = {
	.memcg_node_size = SHR_INFO_XA_NODE_SIZE,
	.memcg_init = shr_info_xa_memcg_init,
	.memcg_online = shr_info_xa_memcg_online,
	.memcg_free = shr_info_xa_memcg_free,
	.reparent_deferred = shr_info_xa_reparent_deferred,
	.shrinker_add = shr_info_xa_shrinker_add,
	.install = shr_info_xa_install,
	.set_bit = xa_set_bit,
	.next_bit = xa_next_bit,
	.clear_bit = xa_clear_bit,
	.lookup = shr_info_xa_lookup,
	.deferred_counter = shr_info_xa_deferred_counter,
	.bytes = shr_info_xa_bytes,
};
