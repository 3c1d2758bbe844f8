/* SPDX-License-Identifier: MIT */
/*
 * Internals of memory cgroups (memcg.c) that other modules use: the cgroup
 * structure, its state bits and the iterators the designs and reclaim walk
 * with. Life cycle and locking: the design comment of memcg.c.
 */
#ifndef SHR_MEMCG_INTERNAL_H
#define SHR_MEMCG_INTERNAL_H

#include <stdatomic.h>

#include <shrinker/memcg.h>

#include "host_state.h"
#include "page_counter.h"
#include "rcu.h"
#include "rculist.h"

/* Largest memcg id, as MEM_CGROUP_ID_MAX. */
#define SHR_MEM_CGROUP_ID_MAX 65535

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
	/* Byte charges, NULL until the first charge or set_high of this
	 * cgroup or of a descendant (memcg.c). Sync: published once with a
	 * release compare-exchange, read with acquire; freed with the cgroup.
	 * (It fills the padding before info_area: the structure keeps its
	 * size, so the lab's figures per cgroup do not move.) */
	struct shr_memcg_memory *_Atomic memory;
	/* The design's per-node areas, host->info_node_size bytes each. */
	_Alignas(16) unsigned char info_area[];
};

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

/*
 * struct shr_memcg_memory - a cgroup's charges (memcg.c).
 * @memory:      usage, high and peak; its parent is the parent cgroup's.
 * @events_high: charges that left this cgroup over its high. Sync: atomic.
 * @reclaimed:   bytes uncharged under a reclaim state, here and below.
 *               Sync: atomic.
 */
struct shr_memcg_memory {
	struct shr_page_counter memory;
	atomic_ulong events_high;
	atomic_ulong reclaimed;
};

/* The cgroup's charges, or NULL if it never had any. Context: Any. */
static inline struct shr_memcg_memory *shr_memcg_memory(struct shr_mem_cgroup *memcg)
{
	return atomic_load_explicit(&memcg->memory, memory_order_acquire);
}

/*
 * struct shr_reclaim_state - what a reclaiming thread has freed (the
 * kernel's current->reclaim_state): bytes uncharged by this thread since
 * the state was installed. Sync: the thread's own.
 */
struct shr_reclaim_state {
	unsigned long reclaimed;
};

/* Install @rs as this thread's reclaim state (NULL: none). Returns the
 * previous one. Context: Any thread. */
struct shr_reclaim_state *shr_set_reclaim_state(struct shr_reclaim_state *rs);

/*
 * The over-high notification: @fd (an eventfd) is written when a charge
 * leaves a cgroup over its high and no notification is pending.
 * install: -EBUSY if the host has one. remove: after it returns no charger
 * writes the old fd any more (waits a grace period). ack: clear the
 * pending mark before scanning, so a later crossing notifies again.
 * Context: Registered thread; remove not inside an RCU read-side section.
 */
int shr_memcg_high_notify_install(struct shr_host *host, int fd);
void shr_memcg_high_notify_remove(struct shr_host *host);
void shr_memcg_high_notify_ack(struct shr_host *host);

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

#endif /* SHR_MEMCG_INTERNAL_H */
