/* SPDX-License-Identifier: MIT */
/*
 * Per-cgroup shrinker bookkeeping: the one interface behind which every
 * design lives. The core (memcg, shrinker, list_lru, reclaim) calls the
 * designs only through it; the designs (src/designs/) implement it.
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

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>

#include "rcu.h"

struct shr_host;
struct shr_mem_cgroup;
struct shr_shrinker_impl;

/* Per-walk counters, summed into host->stats once per walk. */
struct shr_walk_counts {
	unsigned long units;
	unsigned long words;
};

/*
 * A design's operations. Those marked optional may be NULL: the design has
 * nothing to do there (the callers treat NULL as "nothing", never a no-op
 * stub in the design). The core calls the mandatory ops directly and the
 * optional ones only through the shr_info_*() wrappers below, which say
 * what NULL means (host_init/host_exit: designs.c, likewise).
 */
struct shr_info_ops {
	/* Bytes of the per-node area each cgroup embeds (0 allowed). */
	size_t memcg_node_size;

	/* Optional: host state of the design (after the unit cache, if the
	 * design's row has units): 0 or -ENOMEM. */
	int (*host_init)(struct shr_host *host);
	/* Optional, with host_init. */
	void (*host_exit)(struct shr_host *host);

	/* Optional: empty per-node areas of a cgroup not yet reachable. */
	void (*memcg_init)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* Optional: alloc_shrinker_info(): 0 or -ENOMEM (then nothing is left
	 * allocated). NULL: the areas memcg_init left are all there is. */
	int (*memcg_online)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* free_shrinker_info(). */
	void (*memcg_free)(struct shr_host *host, struct shr_mem_cgroup *memcg);
	/* reparent_shrinker_deferred(): parent's counters += child's. */
	void (*reparent_deferred)(struct shr_host *host, struct shr_mem_cgroup *memcg,
				  struct shr_mem_cgroup *parent);

	/*
	 * Registration side: make every cgroup able to hold ids below
	 * @new_nr_max (>= the current shrinker_nr_max, which the shrinker core
	 * owns and raises to @new_nr_max once this returns 0), and set up what
	 * the design keeps for @s. 0, -ENOSPC (a design id space is full) or
	 * -ENOMEM (then nothing changed).
	 */
	int (*shrinker_add)(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max);
	/* Optional: what the design keeps for @s goes. */
	void (*shrinker_remove)(struct shr_host *host, struct shr_shrinker_impl *s);

	/* Optional: on-demand installation for (memcg, every node, id): 0 or
	 * -ENOMEM. NULL: everything is allocated at online. */
	int (*install)(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp);
	/* Optional: one install fewer. NULL: installs last as long as the cgroup. */
	void (*uninstall)(struct shr_mem_cgroup *memcg, int id);

	/* Optional: set_shrinker_bit(); nothing for the root unless the design
	 * has root bits. NULL: the design keeps no bits (then clear_bit is NULL
	 * too, and reclaim skips the SHRINK_EMPTY protocol). */
	void (*set_bit)(struct shr_mem_cgroup *memcg, int nid, int id);
	/*
	 * The first id >= @pos whose bit is set for (memcg, nid), or -1 (a
	 * design without bits hands out every id that may hold objects).
	 * Adds what it looked at to @wc. RCU read lock held by the caller.
	 */
	int (*next_bit)(struct shr_mem_cgroup *memcg, int nid, int pos,
			struct shr_walk_counts *wc);
	/* Optional, with set_bit: clear the bit (the caller then does the
	 * barrier-and-recheck of the SHRINK_EMPTY protocol). */
	void (*clear_bit)(struct shr_mem_cgroup *memcg, int nid, int id);
	/* The shrinker behind an id of @memcg's id space. RCU held. */
	struct shr_shrinker_impl *(*lookup)(struct shr_mem_cgroup *memcg, int id);

	/*
	 * The deferred-work counter of memcg-aware shrinker @s for (memcg,
	 * nid), or NULL when the design has nowhere to keep it (no unit: the
	 * cgroup never held objects of @s there; the work is dropped). The
	 * node index is already reduced (0 for non-NUMA-aware shrinkers).
	 * RCU read lock held by the caller; the counter is valid inside it.
	 * Callers go through shr_info_*_deferred() (below).
	 */
	atomic_long *(*deferred_counter)(struct shr_mem_cgroup *memcg, int nid,
					 struct shr_shrinker_impl *s);
	/*
	 * Optional: adding for a design whose counters can move while work is
	 * added (flat's superseded maps). NULL: add to deferred_counter's.
	 * Return: the counter's new value. Context: as *_deferred().
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
};

/*
 * One row of the designs' table, indexed by enum shr_design: everything the
 * library knows about a design. The core reads the row (names, defaults,
 * what the parameters may ask, the id step) and calls the ops; nothing else
 * tells one design from another.
 */
struct shr_design_row {
	/* Name, capabilities, defaults, id step (also public: shr_design_info_of()). */
	struct shr_design_info info;
	/* The design-specific race points this design reaches (with kmem on):
	 * a point listed by any row is reachable only under the rows that list
	 * it (shr_race_point_reachable()). Bit p: enum shr_race_point p. */
	uint64_t race_points;
	const struct shr_info_ops *ops;
};

/* The optional ops as their callers use them (NULL: nothing to do). */
static inline void shr_info_memcg_init(const struct shr_info_ops *ops, struct shr_host *host,
				       struct shr_mem_cgroup *memcg)
{
	if (ops->memcg_init)
		ops->memcg_init(host, memcg);
}

static inline int shr_info_memcg_online(const struct shr_info_ops *ops, struct shr_host *host,
					struct shr_mem_cgroup *memcg)
{
	return ops->memcg_online ? ops->memcg_online(host, memcg) : 0;
}

static inline void shr_info_shrinker_remove(const struct shr_info_ops *ops,
					    struct shr_host *host, struct shr_shrinker_impl *s)
{
	if (ops->shrinker_remove)
		ops->shrinker_remove(host, s);
}

static inline int shr_info_install(const struct shr_info_ops *ops, struct shr_mem_cgroup *memcg,
				   int id, shr_gfp_t gfp)
{
	return ops->install ? ops->install(memcg, id, gfp) : 0;
}

static inline void shr_info_uninstall(const struct shr_info_ops *ops,
				      struct shr_mem_cgroup *memcg, int id)
{
	if (ops->uninstall)
		ops->uninstall(memcg, id);
}

static inline void shr_info_set_bit(const struct shr_info_ops *ops, struct shr_mem_cgroup *memcg,
				    int nid, int id)
{
	if (ops->set_bit)
		ops->set_bit(memcg, nid, id);
}

/* Clear the bit; return whether the design keeps bits (so the caller must
 * do the barrier-and-recheck of the SHRINK_EMPTY protocol). */
static inline bool shr_info_clear_bit(const struct shr_info_ops *ops,
				      struct shr_mem_cgroup *memcg, int nid, int id)
{
	if (!ops->clear_bit)
		return false;
	ops->clear_bit(memcg, nid, id);
	return true;
}

/* Whether the design knows (memcg, nid)'s subtree, or what lies strictly
 * below it, to hold no bit (false: it does not know, so walk it). */
static inline bool shr_info_subtree_empty(const struct shr_info_ops *ops,
					  struct shr_mem_cgroup *memcg, int nid)
{
	return ops->subtree_empty && ops->subtree_empty(memcg, nid);
}

static inline bool shr_info_below_empty(const struct shr_info_ops *ops,
					struct shr_mem_cgroup *memcg, int nid)
{
	return ops->below_empty && ops->below_empty(memcg, nid);
}

/*
 * Deferred work of memcg-aware shrinker @s for (memcg, nid), through the
 * design's counter: take it out (xchg to 0), add @nr, read it. @nid is
 * already reduced (shr_deferred_nid()).
 * Context: any registered thread; @memcg pinned; takes the RCU read lock
 * inside which deferred_counter's answer is valid.
 * Return: the value taken out, the counter's new value, the value read;
 * 0 where the design keeps no counter for the pair (nothing is kept).
 */
static inline long shr_info_xchg_deferred(const struct shr_info_ops *ops,
					  struct shr_mem_cgroup *memcg, int nid,
					  struct shr_shrinker_impl *s)
{
	atomic_long *c;
	long ret = 0;

	shr_rcu_read_lock();
	c = ops->deferred_counter(memcg, nid, s);
	if (c)
		ret = atomic_exchange(c, 0);
	shr_rcu_read_unlock();
	return ret;
}

static inline long shr_info_add_deferred(const struct shr_info_ops *ops,
					 struct shr_mem_cgroup *memcg, int nid,
					 struct shr_shrinker_impl *s, long nr)
{
	atomic_long *c;
	long ret = 0;

	if (ops->add_deferred)
		return ops->add_deferred(memcg, nid, s, nr);
	shr_rcu_read_lock();
	c = ops->deferred_counter(memcg, nid, s);
	if (c)
		ret = atomic_fetch_add(c, nr) + nr;
	shr_rcu_read_unlock();
	return ret;
}

static inline long shr_info_read_deferred(const struct shr_info_ops *ops,
					  struct shr_mem_cgroup *memcg, int nid,
					  struct shr_shrinker_impl *s)
{
	atomic_long *c;
	long ret = 0;

	shr_rcu_read_lock();
	c = ops->deferred_counter(memcg, nid, s);
	if (c)
		ret = atomic_load(c);
	shr_rcu_read_unlock();
	return ret;
}

#endif /* SHR_SHRINKER_INFO_H */
