/* SPDX-License-Identifier: MIT */
/*
 * What the designs that grow per-cgroup arrays share (prealloc,
 * array-ondemand, flat): the registration step that grows shrinker_nr_max,
 * the second id space of nonslab_ids (seed 001, patch 3/4), and the deferred
 * free of retired arrays after a grace period.
 *
 * Id spaces. Without nonslab_ids every cgroup is indexed by the shrinker id.
 * With nonslab_ids (kmem off) the root keeps the shrinker id space, and every
 * non-root cgroup keeps only NONSLAB shrinkers, indexed by a second id (the
 * "nonslab id", lowest-free from its own IDR). The ids a non-root cgroup
 * hands out through next_bit are SHR_NONSLAB_ID_BASE + nonslab id, so they
 * never collide with shrinker ids: set_bit and clear_bit are called both with
 * shrinker ids (shr_set_shrinker_bit, list_lru) and with ids next_bit
 * returned (reclaim's SHRINK_EMPTY re-set), and the offset tells them apart.
 * A shrinker id >= SHR_NONSLAB_ID_BASE is refused (-ENOSPC) in that mode.
 */
#ifndef SHR_SHRINKER_INFO_GROW_H
#define SHR_SHRINKER_INFO_GROW_H

#include <shrinker/xarray.h>

#include "memcg_internal.h"
#include "rcu.h"
#include "shrinker_info.h"
#include "shrinker_info_unit.h"
#include "shrinker_internal.h"

#define SHR_NONSLAB_ID_BASE (1 << 30)

/* The design's host state (host->info_priv) when nonslab_ids is on. */
struct shr_nonslab {
	/* nonslab id -> shrinker. Sync: updates under shrinker_mutex; RCU lookup. */
	struct shr_idr idr;
	/*
	 * nonslab id -> shrinker id of its last owner (value entries), kept
	 * after the owner is freed: a child's stale counter in a freed nonslab
	 * slot then reparents into the root under the shrinker id it had, as
	 * it does in the one-id-space designs (the kernel's id-reuse quirk,
	 * reproduced in both spaces alike). Sync: shrinker_mutex.
	 */
	struct shr_xarray last_owner;
	/* High-water mark of the second id space. Sync: written under
	 * shrinker_mutex, read atomically. */
	atomic_int nr_max;
};

/* Which cgroups a growth step reallocates. */
enum shr_grow_scope {
	SHR_GROW_ALL,     /* every cgroup (one id space) */
	SHR_GROW_ROOT,    /* the root only (shrinker ids, nonslab_ids on) */
	SHR_GROW_NONROOT, /* every cgroup but the root (nonslab ids) */
};

struct shr_retire;

/*
 * Reallocate the bookkeeping of (@memcg, @nid) so it holds @new_nr_max ids
 * (a no-op if it already does or the cgroup is not online yet), queueing the
 * replaced array on *@retire. shrinker_mutex held. 0, 1 (nothing to do) or
 * -ENOMEM (nothing changed for this cgroup and node).
 */
typedef int (*shr_expand_one_fn)(struct shr_host *host, struct shr_mem_cgroup *memcg, int nid,
				 int new_nr_max, struct shr_retire **retire);

/* host_init/host_exit part: the nonslab IDR when nonslab_ids is on. */
int shr_grow_host_init(struct shr_host *host);
void shr_grow_host_exit(struct shr_host *host);

/*
 * shrinker_add for a growing design: allocate the nonslab id (NONSLAB
 * shrinkers, nonslab_ids on), grow the second id space (in steps of the
 * host's id step), then every cgroup of the shrinker id space to
 * @new_nr_max ids. shrinker_mutex held.
 * Return: 0, -ENOSPC (an id space is full) or -ENOMEM; on failure nothing
 * grew (the shrinker core then leaves shrinker_nr_max as it was) and no
 * nonslab id is held.
 */
int shr_grow_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max,
			  shr_expand_one_fn expand_one);
/* shrinker_remove: release the nonslab id. shrinker_mutex held. */
void shr_grow_shrinker_remove(struct shr_host *host, struct shr_shrinker_impl *s);

/* Ids (shrinker_nr_max or the second space's) @memcg's arrays are sized for.
 * shrinker_mutex held (or an approximate read). */
int shr_grow_memcg_nr_max(struct shr_mem_cgroup *memcg);

/* Whether @memcg is indexed by nonslab ids. */
static inline bool shr_grow_nonslab_space(const struct shr_mem_cgroup *memcg)
{
	return memcg->host->info_priv && !shr_memcg_is_root(memcg);
}

/*
 * Slot of @id (a shrinker id, or an id next_bit returned) in @memcg's
 * arrays, or -1 when @memcg keeps nothing for it. Takes RCU itself.
 */
int shr_grow_slot(struct shr_mem_cgroup *memcg, int id);
/* Slot of shrinker @s in @memcg's arrays, or -1. */
int shr_grow_slot_of(struct shr_mem_cgroup *memcg, struct shr_shrinker_impl *s);
/* First slot a walk from @pos (an id of @memcg's space) looks at. */
int shr_grow_slot_from_pos(struct shr_mem_cgroup *memcg, int pos);
/* The id of @memcg's space next_bit returns for @slot. */
int shr_grow_id_of_slot(struct shr_mem_cgroup *memcg, int slot);
/* lookup op: the shrinker behind an id of @memcg's space. RCU held. */
struct shr_shrinker_impl *shr_grow_lookup(struct shr_mem_cgroup *memcg, int id);
/*
 * Slot in @parent's arrays of @memcg's @slot, for reparenting (a nonslab
 * slot maps to the shrinker id when the parent is the root), or -1 when the
 * shrinker is gone. shrinker_mutex held.
 */
int shr_grow_reparent_slot(struct shr_mem_cgroup *memcg, struct shr_mem_cgroup *parent,
			   int slot);

/*
 * Retired arrays of one registration, freed together after a grace period
 * (the kernel's kvfree_rcu batches; the array headers keep their rcu_head for
 * layout fidelity, but the callback needs the allocator, which the batch
 * carries). The batch itself is RCU machinery, not modelled bookkeeping, so
 * it comes from malloc; if malloc fails the retire waits for a grace period
 * and frees at once, as kvfree_rcu's fallback does.
 */
/* Sync: built by one registration under shrinker_mutex, then owned by the
 * RCU callback. */
struct shr_retire {
	struct rcu_head rcu;
	struct shr_slab_allocator *slab;
	size_t nr, cap;
	void **objs;
};

/* Queue @obj (kvmalloc'd, unpublished already) into *@batch. */
void shr_retire_add(struct shr_host *host, struct shr_retire **batch, void *obj);
/* Free everything in @batch after a grace period (NULL: nothing). */
void shr_retire_commit(struct shr_retire *batch);

#endif /* SHR_SHRINKER_INFO_GROW_H */
