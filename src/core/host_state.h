/* SPDX-License-Identifier: MIT */
/*
 * The state of one host (one instance of the subsystem, in place of the
 * kernel's globals), shared by the core modules (memcg, shrinker, list_lru,
 * reclaim, debugfs, host) and the bookkeeping designs. Only the structure:
 * each module's own internals are in its <module>_internal.h.
 *
 * Locks: the three host mutexes are classes SHR_LOCK_CGROUP (cgroup tree
 * shape, online/offline transitions), SHR_LOCK_LIST_LRUS (the set of
 * memcg-aware list_lrus, the per-cgroup list index) and SHR_LOCK_SHRINKER
 * (the registry: ids, shrinker_nr_max, shrinker lists, growth of
 * bookkeeping, deferred reparenting). The lock order is enum
 * shr_lock_class (base/lock.h), checked in debug builds, and
 * docs/design/ARCHITECTURE.md. RCU read-side sections may be entered under any
 * lock; inside one only xa_lock and the slab and page allocator locks are
 * taken.
 */
#ifndef SHR_HOST_STATE_H
#define SHR_HOST_STATE_H

#include <pthread.h>
#include <stdatomic.h>

#include <shrinker/host.h>
#include <shrinker/idr.h>
#include <shrinker/slab.h>

#include "lock.h"
#include "rculist.h"

struct shr_design_row;
struct shr_info_ops;
struct shr_mem_cgroup;
struct shr_shrinker_impl;

/*
 * Freed shrinkers whose memory the host keeps back (magic FREED) before it
 * returns to the allocator, so that a stale handle used within that many
 * later frees is recognised instead of naming a new shrinker at the same
 * address (shrinker.c).
 */
#define SHR_SHRINKER_QUARANTINE 32

struct shr_host {
	/* Sync: immutable after create. */
	struct shr_host_params params;
	struct shr_slab_allocator *slab;
	bool owns_slab;
	int nr_nodes;
	/* The design's row of the table, and its ops (design->ops). */
	const struct shr_design_row *design;
	const struct shr_info_ops *info_ops;
	/* shrinker_nr_max grows in multiples of this (the row's id step, or
	 * expand_batch rounded up to it). */
	int id_step;
	size_t info_node_size;  /* bytes of each per-node design area, 16-aligned */
	struct shr_kmem_cache *xa_node_cache; /* "radix_tree_node" */
	/* "shrinker_info_unit" (520 bytes), or NULL when units come from
	 * kmalloc or the design has none. */
	struct shr_kmem_cache *unit_cache;
	struct shr_mem_cgroup *root;
	/* The design's host-wide state. Sync: the design's (documented there). */
	void *info_priv;

	/* Cgroup tree. */
	struct shr_mutex cgroup_mutex;
	struct shr_idr memcg_idr;   /* id -> memcg; RCU lookup */
	unsigned long next_ino;     /* Sync: cgroup_mutex */
	atomic_ulong nr_memcgs;     /* allocated, not yet freed. Sync: atomic */

	/* Shrinker registry. */
	struct shr_mutex shrinker_mutex;
	struct shr_rcu_list shrinker_list; /* Sync: RCU; writers shrinker_mutex */
	/* The registered shrinkers global reclaim calls on every node: all of
	 * them, except those the root's bits index (SHR_SHRINKER_ROOT_BITS
	 * under a design with root bits). Registration order. Sync: as above. */
	struct shr_rcu_list root_walk_list;
	struct shr_idr shrinker_idr;       /* id -> shrinker; RCU lookup */
	struct shr_ida debugfs_ida;        /* Sync: its own xa_lock */
	/* High-water mark of memcg-aware ids, rounded up to id_step; owned by
	 * the shrinker core (shrinker.c). Sync: written under shrinker_mutex,
	 * read atomically. */
	atomic_int shrinker_nr_max;
	unsigned long nr_shrinkers;        /* allocated, not freed. Sync: shrinker_mutex */
	/* Freed shrinkers not yet given back (a ring; oldest at the cursor).
	 * Sync: shrinker_mutex. */
	struct shr_shrinker_impl *quarantine[SHR_SHRINKER_QUARANTINE];
	unsigned int quarantine_next;

	/* Charges (memcg.c): the reclaimer's eventfd, -1 when none; written
	 * by a charge that leaves a cgroup over its high. Sync: set and
	 * cleared by the reclaimer (install/remove); chargers read it inside
	 * an RCU read-side section, and remove waits a grace period before the
	 * fd may be closed. high_pending: a notification is outstanding.
	 * Sync: atomic exchange by chargers, cleared by the reclaimer. */
	atomic_int high_eventfd;
	atomic_bool high_pending;

	/* list_lrus. */
	struct shr_mutex list_lrus_mutex;
	struct shr_rcu_list list_lrus;     /* memcg-aware ones. Sync: list_lrus_mutex */
	atomic_ulong nr_list_lrus;         /* all, for destroy checks. Sync: atomic */

	/* Counters for the lab. Sync: atomic unless noted. */
	struct {
		atomic_ulong expansions;
		atomic_ulong arrays_reallocated;
		atomic_ulong bytes_copied;
		atomic_ulong cgroups_visited_by_registration;
		atomic_ulong registrations;
		atomic_ulong walks;
		atomic_ulong units_visited;
		atomic_ulong words_visited;
		atomic_ulong units_installed;
		atomic_ulong units_freed;
		atomic_ulong lru_reparent_visits; /* list_lrus visited by offline */
		atomic_ulong reclaim_cgroups_visited; /* shrink_slab calls of passes */
		/* Sync: shrinker_mutex. */
		unsigned long long mutex_hold_ns_total;
		unsigned long long mutex_hold_ns_max;
		unsigned long long *hold_ns;   /* per registration (malloc'd: lab
						* instrumentation, not modelled memory) */
		size_t hold_ns_len, hold_ns_cap;
	} stats;
};

static inline bool shr_host_kmem(const struct shr_host *host)
{
	return host->params.kmem;
}

#endif /* SHR_HOST_STATE_H */
