/* SPDX-License-Identifier: MIT */
/*
 * Design "nobitmap": shrink_slab() before Linux 4.19. There are no
 * per-cgroup bits; reclaim of a non-root cgroup calls every memcg-aware
 * registered shrinker and lets its count say whether the cgroup holds
 * anything.
 *
 * What 4.18 really did
 *  - shrink_slab() walked the whole shrinker_list under shrinker_rwsem for
 *    every (memcg, node) it was asked about, skipping shrinkers that were
 *    not memcg-aware when a non-root memcg was given. There were no shrinker
 *    ids, no shrinker_nr_max, no SHRINK_EMPTY, no bitmap.
 *  - Deferred work was per shrinker only: one global nr_deferred[] slot per
 *    node, shared by every cgroup. There were no per-memcg counters and
 *    nothing to reparent on offline.
 *  So the cost of a non-root reclaim was one count call per registered
 *  memcg-aware shrinker, whatever the cgroup held: what Tkhai's 4.19 series
 *  removed with the per-memcg bitmap.
 *
 * What this design keeps instead, and why
 *  - The walk is the 4.18 one: next_bit() hands out every allocated
 *    memcg-aware id in order (from host->shrinker_idr, which exists in our
 *    host whatever the design), one visit per id counted in wc->units.
 *    Unarmed or dying shrinkers fail try_get in reclaim and are skipped.
 *  - Deferred work stays per cgroup and node, in the units of the "xarray"
 *    design (shrinker_info_xarray.h: units on demand per cgroup and node in
 *    an XArray, the root keeps every unit). A global per-shrinker counter
 *    would change the results of reclaim (how much is scanned, what
 *    offline reparents), and the differential test requires every design to
 *    give identical observable results on the same operations; only the
 *    walk's cost may differ. Deferred work of a cgroup without a unit for
 *    the id is dropped exactly as in "xarray". Here the walk does reach
 *    such cgroups, but a list_lru-backed shrinker counts 0 there (no list,
 *    so no objects) and returns before deferred work is computed; only a
 *    shrinker that counts objects it never told us about (no list, no
 *    shr_set_shrinker_bit) gets called where a bit design would not call
 *    it, and its deferred work there is dropped.
 *
 * Invariants: those of the xarray unit storage; the map word of each unit
 * stays 0 (nothing sets it).
 *
 * Concurrency
 *  - No set_bit and no clear_bit (NULL ops): no barrier is needed since no
 *    bit is ever cleared, and reclaim skips the clear / barrier / recount
 *    protocol: a shrinker is called again on the next walk anyway, so no
 *    object can be stranded.
 *  - next_bit runs under the caller's RCU read lock; shr_idr_get_next() is
 *    an RCU lookup of the IDR's XArray. An id allocated or freed during the
 *    walk may or may not be seen, as with the bitmap designs.
 *  - Everything else: see shrinker_info_xarray.c.
 */
#include "shrinker_info_xarray.h"

static int nb_next_bit(struct shr_mem_cgroup *memcg, int nid, int pos,
		       struct shr_walk_counts *wc)
{
	int id = pos;

	(void)nid;
	if (!shr_idr_get_next(&memcg->host->shrinker_idr, &id))
		return -1;
	/* Every id from @pos up to the one returned costs one visit; free ids
	 * in between are skipped by the IDR's XArray search, not counted. */
	wc->units++;
	return id;
}

/* No set_bit/clear_bit: there are no bits. */
const struct shr_info_ops shr_info_nobitmap_ops = {
	.memcg_node_size = SHR_INFO_XA_NODE_SIZE,
	.memcg_init = shr_info_xa_memcg_init,
	.memcg_online = shr_info_xa_memcg_online,
	.memcg_free = shr_info_xa_memcg_free,
	.reparent_deferred = shr_info_xa_reparent_deferred,
	.shrinker_add = shr_info_xa_shrinker_add,
	.install = shr_info_xa_install,
	.next_bit = nb_next_bit,
	.lookup = shr_info_xa_lookup,
	.deferred_counter = shr_info_xa_deferred_counter,
	.bytes = shr_info_xa_bytes,
};
