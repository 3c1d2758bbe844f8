/* SPDX-License-Identifier: MIT */
/*
 * The unit storage of the "xarray" design (shrinker_info_xarray.c), shared
 * with designs that keep their deferred counters the same way but find
 * shrinkers differently ("nobitmap"): units on demand in a per-cgroup,
 * per-node XArray keyed by id / 64; the root keeps every unit.
 *
 * Each function is the shr_info_ops member of the same name; contexts,
 * locking and return values are those of shrinker_info.h. A design using
 * them must set memcg_node_size to SHR_INFO_XA_NODE_SIZE.
 */
#ifndef SHR_SHRINKER_INFO_XARRAY_H
#define SHR_SHRINKER_INFO_XARRAY_H

#include <shrinker/xarray.h>

#include "memcg_internal.h"
#include "shrinker_info.h"
#include "shrinker_info_unit.h"
#include "shrinker_internal.h"

/* Per-node area: one XArray of units. */
#define SHR_INFO_XA_NODE_SIZE sizeof(struct shr_xarray)

void shr_info_xa_memcg_init(struct shr_host *host, struct shr_mem_cgroup *memcg);
int shr_info_xa_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg);
void shr_info_xa_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg);
void shr_info_xa_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				   struct shr_mem_cgroup *parent);
int shr_info_xa_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max);
int shr_info_xa_install(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp);
struct shr_shrinker_impl *shr_info_xa_lookup(struct shr_mem_cgroup *memcg, int id);
atomic_long *shr_info_xa_deferred_counter(struct shr_mem_cgroup *memcg, int nid,
					  struct shr_shrinker_impl *s);
void shr_info_xa_bytes(struct shr_mem_cgroup *memcg, int nid,
		       struct shr_memcg_bookkeeping *acc);

/*
 * Unit-level helpers shared by the designs that keep per-(cgroup, node)
 * units in an XArray keyed by unit index ("xarray", "nobitmap", "indexed").
 * Each says what its caller must guarantee; none takes a lock of its own
 * beyond what the XArray readers take (the RCU read lock).
 */

/* The unit holding @id in @xa, or NULL. Context: RCU (taken if not held). */
static inline struct shr_info_unit *shr_units_unit_of(struct shr_xarray *xa, int id)
{
	return shr_xa_load(xa, (unsigned long)id / SHR_UNIT_BITS);
}

/*
 * The first id >= @pos whose bit is set among the units of @xa that match
 * @filter (SHR_XA_PRESENT, or a mark kept set on every unit whose map is
 * non-zero), or -1. Counts each unit looked at in @wc.
 * Context: RCU read lock held by the caller.
 */
static inline int shr_units_next_bit(struct shr_xarray *xa, int pos, shr_xa_mark_t filter,
				     struct shr_walk_counts *wc)
{
	unsigned long index = (unsigned long)pos / SHR_UNIT_BITS;
	struct shr_info_unit *unit;

	for (unit = shr_xa_find(xa, &index, ~0UL, filter); unit;
	     unit = shr_xa_find_after(xa, &index, ~0UL, filter)) {
		int id = shr_unit_first_bit(atomic_load_explicit(&unit->map, memory_order_relaxed),
					    index, pos);

		wc->units++;
		wc->words++;
		if (id >= 0)
			return id;
	}
	return -1;
}

/* Deferred counter of @id in @unit. Context: @unit reachable (RCU or owner). */
static inline atomic_long *shr_unit_counter(struct shr_info_unit *unit, int id)
{
	return &unit->nr_deferred[id % SHR_UNIT_BITS];
}

/* Whether any counter of @unit is non-zero. */
static inline bool shr_unit_has_deferred(struct shr_info_unit *unit)
{
	for (int i = 0; i < SHR_UNIT_BITS; i++)
		if (atomic_load(&unit->nr_deferred[i]))
			return true;
	return false;
}

/* @dst's counters += @src's (reparent_shrinker_deferred for one unit). */
static inline void shr_unit_add_counters(struct shr_info_unit *dst, struct shr_info_unit *src)
{
	for (int i = 0; i < SHR_UNIT_BITS; i++) {
		long nr = atomic_load(&src->nr_deferred[i]);

		if (nr)
			atomic_fetch_add(&dst->nr_deferred[i], nr);
	}
}

/* Units present in @xa. Context: Any (a snapshot under concurrent change). */
static inline unsigned long shr_units_count(struct shr_xarray *xa)
{
	struct shr_info_unit *unit;
	unsigned long index, nr = 0;

	shr_xa_for_each(xa, index, unit)
		nr++;
	return nr;
}

/* Add the units of @xa and the XArray nodes holding them to @acc. */
static inline void shr_units_bytes(struct shr_host *host, struct shr_xarray *xa,
				   struct shr_memcg_bookkeeping *acc)
{
	struct shr_slab_geometry geo;
	unsigned long nr = shr_units_count(xa);

	shr_kmem_cache_geometry(host->xa_node_cache, &geo);
	acc->nr_units += nr;
	acc->unit_bytes += nr * shr_info_unit_bytes(host);
	acc->xa_node_bytes += shr_xa_nr_nodes(xa) * geo.object_size;
}

#endif /* SHR_SHRINKER_INFO_XARRAY_H */
