/* SPDX-License-Identifier: MIT */
/*
 * Internal layout of a list_lru (see the design notes at the top of
 * list_lru.c), for list_lru.c and white-box tests; and the offline step
 * memcg.c calls.
 */
#ifndef SHR_LIST_LRU_INTERNAL_H
#define SHR_LIST_LRU_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <shrinker/list_lru.h>
#include <shrinker/xarray.h>

#include "lock.h"
#include "rcu.h"
#include "rculist.h"

/* "LISTLRU1": set while a list_lru is initialised. */
#define SHR_LIST_LRU_MAGIC 0x4c4953544c525531UL

/**
 * struct shr_list_lru_one - one list: of a node, or of a (cgroup, node).
 * @list:     the items. Sync: @lock.
 * @nr_items: items on @list; LONG_MIN once reparented (dead). Sync: written
 *            under @lock, read locklessly (count_one).
 * @lock:     protects @list and writes of @nr_items (SHR_LOCK_LRU_LIST).
 */
struct shr_list_lru_one {
	struct shr_list_head list;
	atomic_long nr_items;
	struct shr_spinlock lock;
};

/**
 * struct shr_list_lru_node - per-node part of a list_lru.
 * @lru:      the root list (root cgroup, NULL, and plain list_lrus).
 * @nr_items: items of this node on every list (root + cgroups). Sync: atomic.
 */
struct shr_list_lru_node {
	struct shr_list_lru_one lru;
	atomic_long nr_items;
};

/**
 * struct shr_list_lru_memcg - one cgroup's lists on one list_lru.
 * @rcu:        frees it after a grace period (readers look it up under RCU).
 * @owner_link: link in @memcg->lru_lists while published. Sync:
 *              host->list_lrus_mutex.
 * @memcg:      the owning cgroup. Sync: set before publication, immutable.
 * @lru:        the list_lru it belongs to. Sync: immutable.
 * @host:       for the deferred free. Sync: immutable.
 * @node:       per-node lists, host->nr_nodes of them.
 */
struct shr_list_lru_memcg {
	struct rcu_head rcu;
	struct shr_rcu_list owner_link;
	struct shr_mem_cgroup *memcg;
	struct shr_list_lru *lru;
	struct shr_host *host;
	struct shr_list_lru_one node[];
};

/**
 * struct shr_list_lru - a list_lru.
 * @magic:       SHR_LIST_LRU_MAGIC while alive. Sync: immutable between
 *               init and destroy.
 * @host:        owner. Sync: immutable.
 * @node:        host->nr_nodes entries. Sync: immutable pointer.
 * @memcg_aware: keeps per-cgroup lists. Sync: immutable.
 * @shrinker_id: the bound shrinker's id, -1 if none. Sync: immutable.
 * @root_bits:   the bound shrinker is found at the root through the root's
 *               bits (shr_shrinker_root_indexed()): a root list going
 *               0 -> 1 sets the root's bit. Sync: immutable.
 * @root_installed: the root's bookkeeping for @shrinker_id is installed
 *               (once, before any item can reach a root list; uninstalled
 *               at destroy). Sync: set under host->list_lrus_mutex with a
 *               release store, read with acquire (lru_root_install()).
 *               Not set before the bookkeeping exists, so readers that see
 *               it may set the root's bit.
 * @xa:          kmemcg id -> struct shr_list_lru_memcg. Sync: RCU readers;
 *               writers take its xa_lock (publication additionally under
 *               host->list_lrus_mutex, see list_lru.c).
 * @list:        link in host->list_lrus (memcg-aware only). Sync:
 *               host->list_lrus_mutex.
 */
struct shr_list_lru {
	unsigned long magic;
	struct shr_host *host;
	struct shr_list_lru_node *node;
	bool memcg_aware;
	int shrinker_id;
	bool root_bits;
	atomic_bool root_installed;
	struct shr_xarray xa;
	struct shr_rcu_list list;
};

/**
 * shr_list_lru_reparent_visits() - list_lrus (or per-cgroup lists) that
 * offline reparenting has visited on @host so far: every memcg-aware
 * list_lru per offline with SHR_LRU_REPARENT_ALL_LRUS, only the cgroup's own
 * lists with SHR_LRU_REPARENT_PER_CGROUP.
 * Context: Any. Return: the cumulative count.
 */
unsigned long shr_list_lru_reparent_visits(struct shr_host *host);


/*
 * shr_list_lru_reparent_memcg() - offline step 1 (memcg_reparent_list_lrus):
 * hand @memcg's list_lru items to @parent. The one call from memcg.c up to
 * list_lru.c, as in the kernel (memcontrol.c calls into list_lru.c): the
 * single upward edge of the module graph (docs/design/ARCHITECTURE.md).
 * Context: host->cgroup_mutex held; takes list_lrus_mutex and list locks.
 */
void shr_list_lru_reparent_memcg(struct shr_mem_cgroup *memcg, struct shr_mem_cgroup *parent);

/*
 * Also required from memcg.c: every cgroup,
 * including the root, has memcg->lru_lists initialised with
 * shr_rcu_list_init() at alloc time, and offline calls
 * shr_list_lru_reparent_memcg() after setting SHR_MEMCG_DYING (with
 * cgroup_mutex held, before reparent_deferred). A cgroup freed with lists
 * still linked on lru_lists is a bug (offline unlinks them all).
 */

#endif /* SHR_LIST_LRU_INTERNAL_H */
