/* SPDX-License-Identifier: MIT */
/*
 * Internal layout of a host, its memory cgroups and its shrinkers, shared by
 * host.c, memcg.c, shrinker.c, list_lru.c, reclaim.c, debugfs.c and the
 * bookkeeping designs (shrinker_info_*.c).
 *
 * Lock order (a lock may be taken while holding any lock above it):
 *   1. host->cgroup_mutex      cgroup tree shape, online/offline transitions
 *   2. host->list_lrus_mutex   the set of memcg-aware list_lrus
 *   3. host->shrinker_mutex    the registry: ids, shrinker_nr_max, shrinker
 *                              list, growth of bookkeeping, deferred reparenting
 *   4. design spinlocks        (array-ondemand install lock)
 *   5. list_lru_one.lock       one list (two nest only in reparenting:
 *                              child's, then parent's)
 *   6. xa_lock                 any XArray
 *   7. slab / page allocator   leaves
 * RCU read-side sections may be entered under any of them; no lock above is
 * taken inside an RCU section except the leaves (slab) and xa_lock.
 */
#ifndef SHR_HOST_INTERNAL_H
#define SHR_HOST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/idr.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "completion.h"
#include "debug.h"
#include "race.h"
#include "rcu.h"
#include "rculist.h"

struct shr_info_ops;

/* Largest memcg id, as MEM_CGROUP_ID_MAX. */
#define SHR_MEM_CGROUP_ID_MAX 65535
/* Ids per unit and granularity of shrinker_nr_max (SHRINKER_UNIT_BITS). */
#define SHR_UNIT_BITS 64

/* memcg->state bits. Sync: atomic. */
#define SHR_MEMCG_ONLINE (1u << 0)   /* CSS_ONLINE */
#define SHR_MEMCG_DYING (1u << 1)    /* rmdir'ed: no new lists */
#define SHR_MEMCG_RELEASED (1u << 2) /* unlinked; freed after a grace period */

struct shr_mem_cgroup {
	/* Sync: immutable after alloc. */
	struct shr_host *host;
	struct shr_mem_cgroup *parent;
	int id;            /* memcg id in host->memcg_idr */
	unsigned long ino; /* never reused */
	/* -1 until online with kmem; then == id. Sync: written once at online
	 * under cgroup_mutex before ONLINE is published; read after. */
	int kmemcg_id;
	/* Link in parent->children. Sync: RCU; writers hold cgroup_mutex. */
	struct shr_rcu_list sibling;
	struct shr_rcu_list children;
	/* css reference count; 0 means released. Sync: atomic. */
	atomic_long refcnt;
	/* SHR_MEMCG_* bits. Sync: atomic; transitions under cgroup_mutex. */
	atomic_uint state;
	/* Lists of list_lrus this cgroup owns (per-cgroup reparent index).
	 * Sync: list_lrus_mutex for adds at alloc time and for the walk. */
	struct shr_rcu_list lru_lists;
	struct rcu_head rcu;
	/* The design's per-node areas, host->info_node_size bytes each. */
	_Alignas(16) unsigned char info_area[];
};

/* internal state of a shrinker; the public part comes first */
struct shr_shrinker_impl {
	struct shr_shrinker pub;
	/* Sync: immutable after alloc. */
	struct shr_host *host;
	unsigned int flags;   /* SHR_SHRINKER_* as requested */
	int id;               /* memcg-aware id, -1 otherwise */
	/* SHR_SHRINKER_MAGIC while alive, then SHR_SHRINKER_MAGIC_FREED in the
	 * host's quarantine. Sync: written at alloc (before the handle is
	 * returned) and by free under shrinker_mutex; read unlocked by the
	 * entry points (a call racing the free of its own handle is misuse). */
	unsigned long magic;
	char *name;           /* kmalloc'd, or NULL */
	int debugfs_id;       /* from host->debugfs_ida, -1 before register */
	/* 1 while registered and not being freed, plus in-flight users.
	 * Sync: atomic; 0 -> 1 only in register. */
	atomic_long refcount;
	/* Set once, by shr_shrinker_free() before it drops the registration's
	 * reference: tells a shrinker going away (its bits are stale) from one
	 * not armed yet (its bits stand for objects added before register).
	 * Sync: atomic, relaxed: a walker that reads false for a dying
	 * shrinker only keeps its stale bit one walk longer. */
	atomic_bool dying;
	struct shr_completion done;
	/* Sync: shrinker_mutex. */
	bool registered;
	bool ever_registered;
	/* Link in host->shrinker_list. Sync: RCU; writers hold shrinker_mutex. */
	struct shr_rcu_list list;
	/* Link in host->root_walk_list unless the root's bits find it
	 * (shr_shrinker_root_indexed()). Sync: as @list. */
	struct shr_rcu_list root_walk;
	/* Non-memcg-aware deferred work: 1 slot, or nr_nodes if NUMA-aware.
	 * NULL for memcg-aware shrinkers. Sync: atomic elements. */
	atomic_long *nr_deferred;
	/* The design's per-shrinker data (e.g. a second id, root counters).
	 * Sync: set under shrinker_mutex before the shrinker is visible. */
	void *info_data;
	/* Counters. Sync: atomic. */
	atomic_ulong stat_calls;
	atomic_ulong stat_scanned;
	atomic_ulong stat_freed;
	struct rcu_head rcu;
};

#define SHR_SHRINKER_MAGIC 0x5348524b52303031UL /* "SHRKR001" */
/* A freed shrinker waiting in the host's quarantine ("SHRKRFRE"). */
#define SHR_SHRINKER_MAGIC_FREED 0x5348524b52465245UL
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
	const struct shr_info_ops *info_ops;
	size_t info_node_size;  /* bytes of each per-node design area, 16-aligned */
	struct shr_kmem_cache *xa_node_cache; /* "radix_tree_node" */
	/* "shrinker_info_unit" (520 bytes), or NULL when units come from
	 * kmalloc or the design has none. */
	struct shr_kmem_cache *unit_cache;
	struct shr_mem_cgroup *root;
	/* The design's host-wide state. Sync: the design's (documented there). */
	void *info_priv;

	/* Cgroup tree. */
	pthread_mutex_t cgroup_mutex;
	struct shr_idr memcg_idr;   /* id -> memcg; RCU lookup */
	unsigned long next_ino;     /* Sync: cgroup_mutex */
	unsigned long nr_memcgs;    /* allocated, not yet freed. Sync: atomic ops */

	/* Shrinker registry. */
	pthread_mutex_t shrinker_mutex;
	struct shr_rcu_list shrinker_list; /* Sync: RCU; writers shrinker_mutex */
	/* The registered shrinkers global reclaim calls on every node: all of
	 * them, except those the root's bits index (SHR_SHRINKER_ROOT_BITS
	 * under a design with root bits). Registration order. Sync: as above. */
	struct shr_rcu_list root_walk_list;
	struct shr_idr shrinker_idr;       /* id -> shrinker; RCU lookup */
	struct shr_ida debugfs_ida;        /* Sync: its own xa_lock */
	int shrinker_nr_max;               /* Sync: shrinker_mutex; read atomically */
	unsigned long nr_shrinkers;        /* allocated, not freed. Sync: shrinker_mutex */
	/* Freed shrinkers not yet given back (a ring; oldest at the cursor).
	 * Sync: shrinker_mutex. */
	struct shr_shrinker_impl *quarantine[SHR_SHRINKER_QUARANTINE];
	unsigned int quarantine_next;

	/* list_lrus. */
	pthread_mutex_t list_lrus_mutex;
	struct shr_rcu_list list_lrus;     /* memcg-aware ones. Sync: list_lrus_mutex */
	unsigned long nr_list_lrus;        /* all, for destroy checks. Sync: atomic ops */

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

/* Per-walk counters, summed into host->stats once per walk. */
struct shr_walk_counts {
	unsigned long units;
	unsigned long words;
};

static inline struct shr_shrinker_impl *to_impl(struct shr_shrinker *s)
{
	return shr_container_of(s, struct shr_shrinker_impl, pub);
}

static inline bool shr_memcg_is_root(const struct shr_mem_cgroup *memcg)
{
	return memcg == memcg->host->root;
}

static inline bool shr_memcg_online(const struct shr_mem_cgroup *memcg)
{
	return atomic_load_explicit(&memcg->state, memory_order_acquire) & SHR_MEMCG_ONLINE;
}

static inline bool shr_memcg_dying(const struct shr_mem_cgroup *memcg)
{
	return atomic_load_explicit(&memcg->state, memory_order_acquire) & SHR_MEMCG_DYING;
}

static inline void *shr_memcg_info_area(struct shr_mem_cgroup *memcg, int nid)
{
	return memcg->info_area + (size_t)nid * memcg->host->info_node_size;
}

static inline bool shr_host_kmem(const struct shr_host *host)
{
	return host->params.kmem;
}

/* memcg.c */
int shr_memcg_create_root(struct shr_host *host);
void shr_memcg_destroy_root(struct shr_host *host);
/* Walk helpers for the designs: pre-order over every cgroup incl. dying. */
struct shr_mem_cgroup *shr_memcg_iter_all(struct shr_host *host, struct shr_mem_cgroup *prev);
/*
 * The iterator reclaim passes use on node @nid: shr_mem_cgroup_iter(), minus
 * the subtrees the design says hold no set bit on @nid (@root is always
 * returned). Same references and contract as shr_mem_cgroup_iter().
 */
struct shr_mem_cgroup *shr_memcg_reclaim_iter(struct shr_host *host, struct shr_mem_cgroup *root,
					      struct shr_mem_cgroup *prev, int nid);

/* shrinker.c */
bool shr_shrinker_try_get(struct shr_shrinker_impl *s);
/* Whether shr_shrinker_free() has started on @s (see the field). Context:
 * any; @s reachable (RCU or pinned). */
static inline bool shr_shrinker_dying(const struct shr_shrinker_impl *s)
{
	return atomic_load_explicit(&s->dying, memory_order_relaxed);
}
void shr_shrinker_put(struct shr_shrinker_impl *s);
/* Give every quarantined shrinker back (after a grace period). Host
 * destroy, no other user of the host. */
void shr_shrinker_quarantine_flush(struct shr_host *host);

/*
 * Debug builds: the count/scan calls this thread is inside of, innermost
 * first, so that shr_shrinker_free() from a shrinker's own callback (which
 * would wait for itself forever) is reported. A frame lives on the stack of
 * the caller of the callback. Sync: thread-local.
 */
struct shr_callback_frame {
	const struct shr_shrinker_impl *s;
	struct shr_callback_frame *outer;
};
extern _Thread_local struct shr_callback_frame *shr_callback_top;

/* s->pub.count_objects(), recorded on this thread's frames in debug builds. */
static inline unsigned long shr_call_count(struct shr_shrinker_impl *s,
					   struct shr_shrink_control *sc)
{
	struct shr_callback_frame frame = { s, shr_callback_top };
	unsigned long ret;

	if (!SHR_DEBUG_CHECKS)
		return s->pub.count_objects(&s->pub, sc);
	shr_callback_top = &frame;
	ret = s->pub.count_objects(&s->pub, sc);
	shr_callback_top = frame.outer;
	return ret;
}

/* s->pub.scan_objects(), likewise. */
static inline unsigned long shr_call_scan(struct shr_shrinker_impl *s,
					  struct shr_shrink_control *sc)
{
	struct shr_callback_frame frame = { s, shr_callback_top };
	unsigned long ret;

	if (!SHR_DEBUG_CHECKS)
		return s->pub.scan_objects(&s->pub, sc);
	shr_callback_top = &frame;
	ret = s->pub.scan_objects(&s->pub, sc);
	shr_callback_top = frame.outer;
	return ret;
}
/* Sum of every shrinker's in-flight state for leak checks. */
bool shr_shrinker_belongs(struct shr_host *host, struct shr_shrinker *s);

/* list_lru.c: offline step 1 (memcg_reparent_list_lrus). */
void shr_list_lru_reparent_memcg(struct shr_mem_cgroup *memcg, struct shr_mem_cgroup *parent);

/* reclaim.c: the deferred slot index of a shrinker for node @nid. */
static inline int shr_deferred_nid(const struct shr_shrinker_impl *s, int nid)
{
	return (s->flags & SHR_SHRINKER_NUMA_AWARE) ? nid : 0;
}

/* Monotonic clock in ns. */
unsigned long long shr_now_ns(void);

#endif /* SHR_HOST_INTERNAL_H */
