/* SPDX-License-Identifier: MIT */
/*
 * Per-cgroup shrinker bookkeeping: the one interface behind which every
 * design lives. Nothing outside shrinker_info*.c knows which design runs.
 *
 * What a design keeps, per cgroup and node: for each memcg-aware shrinker
 * id, a bit ("this cgroup holds objects of that shrinker on that node") and
 * a deferred-work counter. The root cgroup gets no bits (global reclaim
 * calls every shrinker) but does hold deferred counters for memcg-aware
 * shrinkers (global reclaim uses them). Exception: a design with root_bits
 * keeps root bits for the SHR_SHRINKER_ROOT_BITS shrinkers, and global
 * reclaim finds those through them (install, uninstall, set_bit, clear_bit,
 * next_bit and lookup then also take the root).
 *
 * Call contexts (each op's comment repeats its own):
 *   host_init/host_exit     host create/destroy, single-threaded.
 *   memcg_init              css_alloc, before the cgroup is reachable (the
 *                           tree, its id): puts every per-node area in its
 *                           empty state. From then on readers may look at the
 *                           areas at any time (get_stats walks cgroups that
 *                           are not online yet; bookkeeping takes any pinned
 *                           cgroup), so memcg_online must only publish into
 *                           them, never initialise them. Optional: NULL when
 *                           the zeroed areas are the empty state.
 *   memcg_online            css_online; shrinker_mutex held (it must not miss
 *                           a concurrent registration: shrinker_nr_max is read
 *                           under the same mutex).
 *   memcg_free              css_free; no reclaimer can reach the cgroup. Also
 *                           runs for a cgroup whose memcg_online never ran or
 *                           failed (its areas are then as memcg_init left
 *                           them, or as the failed online left them): must
 *                           cope.
 *   reparent_deferred       css_offline, after list_lru reparenting;
 *                           shrinker_mutex held.
 *   shrinker_add            shr_shrinker_alloc, shrinker_mutex held; for a
 *                           memcg-aware shrinker the id is allocated already.
 *   shrinker_remove         shr_shrinker_free, shrinker_mutex held, before
 *                           the id is released; no reclaimer holds it.
 *   install                 a cgroup gets a list on a list_lru of shrinker
 *                           @id (before the list is published), or
 *                           shr_set_shrinker_bit(); may allocate with @gfp.
 *   uninstall               a list of shrinker @id in this cgroup is gone.
 *   set_bit / clear_bit     any thread, RCU or not; set_bit issues the full
 *                           barrier the SHRINK_EMPTY protocol pairs with.
 *   next_bit / lookup       inside an RCU read-side section (the caller's).
 *   deferred_counter        any thread, RCU held; the cgroup is pinned.
 *   add_deferred            any thread; the cgroup is pinned.
 *   bytes                   the cgroup is pinned.
 *
 * Id spaces: install, uninstall and set_bit take the shrinker's own id
 * (s->id, what list_lrus copy); set_bit also takes an id next_bit returned
 * for the same cgroup (reclaim re-sets bits it cleared). next_bit,
 * clear_bit and lookup work in the cgroup's id space, which is the same
 * except with nonslab_ids (a non-root cgroup then numbers only NONSLAB
 * shrinkers, in a second id space; its ids carry an offset so the two
 * never collide: shrinker_info_grow.h).
 */
#ifndef SHR_SHRINKER_INFO_H
#define SHR_SHRINKER_INFO_H

#include "host_internal.h"

struct shr_info_ops {
	const char *name;
	/* Bytes of the per-node area each cgroup embeds (0 allowed). */
	size_t memcg_node_size;

	int (*host_init)(struct shr_host *host);
	void (*host_exit)(struct shr_host *host);

	/* Optional: empty per-node areas of a cgroup not yet reachable. */
	void (*memcg_init)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* alloc_shrinker_info(): 0 or -ENOMEM (then nothing is left allocated). */
	int (*memcg_online)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* free_shrinker_info(). */
	void (*memcg_free)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* reparent_shrinker_deferred(): parent's counters += child's. */
	void (*reparent_deferred)(struct shr_host *host, struct shr_mem_cgroup *memcg,
				  struct shr_mem_cgroup *parent);

	/* Registration side: 0, -ENOSPC (a design id space is full) or -ENOMEM
	 * (then nothing changed). */
	int (*shrinker_add)(struct shr_host *host, struct shr_shrinker_impl *s);
	void (*shrinker_remove)(struct shr_host *host, struct shr_shrinker_impl *s);

	/* On-demand installation for (memcg, every node, id): 0 or -ENOMEM. */
	int (*install)(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp);
	void (*uninstall)(struct shr_mem_cgroup *memcg, int id);

	/* set_shrinker_bit(); a no-op for the root and for designs without bits. */
	void (*set_bit)(struct shr_mem_cgroup *memcg, int nid, int id);
	/*
	 * The first id >= @pos whose bit is set for (memcg, nid), or -1.
	 * Adds what it looked at to @wc. RCU read lock held by the caller.
	 */
	int (*next_bit)(struct shr_mem_cgroup *memcg, int nid, int pos,
			struct shr_walk_counts *wc);
	/*
	 * Clear the bit; return true if the design keeps bits (so the caller
	 * must do the barrier-and-recheck of the SHRINK_EMPTY protocol).
	 */
	bool (*clear_bit)(struct shr_mem_cgroup *memcg, int nid, int id);
	/* The shrinker behind an id of @memcg's id space. RCU held. */
	struct shr_shrinker_impl *(*lookup)(struct shr_mem_cgroup *memcg, int id);

	/*
	 * The deferred-work counter of memcg-aware shrinker @s for (memcg,
	 * nid), or NULL when the design has nowhere to keep it (no unit: the
	 * cgroup never held objects of @s there; the work is dropped). The
	 * node index is already reduced (0 for non-NUMA-aware shrinkers).
	 * RCU read lock held by the caller; the counter is valid inside it.
	 * Callers go through shr_info_*_deferred() below.
	 */
	atomic_long *(*deferred_counter)(struct shr_mem_cgroup *memcg, int nid,
					 struct shr_shrinker_impl *s);
	/*
	 * Optional: adding for a design whose counters can move while work is
	 * added (flat's superseded maps). NULL: add to deferred_counter's.
	 * Return: the counter's new value. Context: as *_deferred() below.
	 */
	long (*add_deferred)(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s,
			     long nr);

	/* Bytes of bookkeeping of (memcg, nid), added to @acc. */
	void (*bytes)(struct shr_mem_cgroup *memcg, int nid, struct shr_memcg_bookkeeping *acc);

	/*
	 * Optional. Whether reclaim on node @nid may skip @memcg's whole
	 * subtree because no cgroup in it has a bit set there. Passes over
	 * many cgroups (drop_caches, memory.reclaim) then visit the others in
	 * the same pre-order (the order is observable: subtree reclaim stops
	 * at its target). NULL: visit every cgroup, as the kernel does.
	 * Context: RCU read lock held by the caller; @memcg may be dying.
	 */
	bool (*subtree_empty)(struct shr_mem_cgroup *memcg, int nid);
	/*
	 * Optional, with subtree_empty. Whether no cgroup strictly below
	 * @memcg has a bit set on @nid, so a pass that visits @memcg need not
	 * descend (the root holding objects must not cost a look at each of
	 * its children). Same context and the same racing rules.
	 */
	bool (*below_empty)(struct shr_mem_cgroup *memcg, int nid);
	/*
	 * Whether the design keeps root bits for SHR_SHRINKER_ROOT_BITS
	 * shrinkers (see the top of this file). Global reclaim then calls
	 * those only where the root's bit is set.
	 */
	bool root_bits;
};

/* Whether global reclaim finds @s through the root's bits rather than the
 * root walk list. Context: any; both inputs are immutable. */
static inline bool shr_shrinker_root_indexed(const struct shr_shrinker_impl *s)
{
	return (s->flags & SHR_SHRINKER_ROOT_BITS) && s->host->info_ops->root_bits;
}

/* The ops of a design (shrinker_info.c). */
const struct shr_info_ops *shr_info_ops_for(enum shr_design design);

/* Designs. */
extern const struct shr_info_ops shr_info_xarray_ops;
extern const struct shr_info_ops shr_info_nobitmap_ops;
extern const struct shr_info_ops shr_info_prealloc_ops;
extern const struct shr_info_ops shr_info_array_ondemand_ops;
extern const struct shr_info_ops shr_info_flat_ops;
extern const struct shr_info_ops shr_info_indexed_ops;

/*
 * Deferred work of memcg-aware shrinker @s for (memcg, nid), through the
 * design's counter: take it out (xchg to 0), add @nr (return: the new
 * value), read it. 0 where the design keeps no counter.
 * Context: any registered thread; @memcg pinned; @nid already reduced.
 */
long shr_info_xchg_deferred(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s);
long shr_info_add_deferred(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s,
			   long nr);
long shr_info_read_deferred(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker_impl *s);

/* Helpers shared by the designs (shrinker_info.c). */

/* The 520-byte unit: 64 deferred counters then the map word. */
struct shr_info_unit {
	atomic_long nr_deferred[SHR_UNIT_BITS];
	atomic_ulong map;
};

/* Allocate a zeroed unit on @nid from the host's unit source; NULL on failure. */
struct shr_info_unit *shr_info_unit_alloc(struct shr_host *host, int nid, shr_gfp_t gfp);
void shr_info_unit_free(struct shr_host *host, struct shr_info_unit *unit);
/* Slot bytes one unit really takes. */
size_t shr_info_unit_bytes(struct shr_host *host);
/* Unit cache creation/destruction for designs with units. */
int shr_info_units_init(struct shr_host *host);
void shr_info_units_exit(struct shr_host *host);

/* Record a registration's mutex hold for the lab. shrinker_mutex held. */
void shr_info_record_hold(struct shr_host *host, unsigned long long ns);

/* set_shrinker_bit()'s barrier + atomic or; pairs with the full barrier in
 * shrink_slab_memcg() between clear_bit and the second count. */
static inline void shr_info_unit_set_bit(struct shr_info_unit *unit, int offset)
{
	shr_race_point(SHR_RACE_SET_BIT_A);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_fetch_or_explicit(&unit->map, 1UL << offset, memory_order_relaxed);
}

#endif /* SHR_SHRINKER_INFO_H */
