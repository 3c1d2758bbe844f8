/* SPDX-License-Identifier: MIT */
/*
 * Shared parts of the designs that grow per-cgroup arrays (prealloc,
 * array-ondemand, flat): see shrinker_info_grow.h for the id spaces.
 *
 * Invariants
 *  - shrinker_nr_max (and the second space's nr_max) only grow, and only
 *    after every cgroup in scope holds that many ids; a cgroup onlined later
 *    is sized from them under the same mutex (alloc_shrinker_info()).
 *  - A NONSLAB shrinker has a nonslab id (in s->info_data, + 1, NULL for
 *    none) from shrinker_add to shrinker_remove, iff nonslab_ids is on.
 *
 * Locking: everything that writes runs under shrinker_mutex. Translations
 * read the IDRs under RCU; the shrinker they find stays allocated for the
 * caller's RCU section (freed after a grace period).
 */
#include <stdint.h>

#include "debug.h"
#include "shrinker_info_grow.h"

int shr_grow_host_init(struct shr_host *host)
{
	struct shr_nonslab *ns;

	host->info_priv = NULL;
	if (!host->params.nonslab_ids)
		return 0;
	/* Like the kernel's globals, the design's host state is not modelled
	 * memory: malloc, as the host structure itself. */
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	shr_idr_init(&ns->idr, host->xa_node_cache);
	shr_xa_init(&ns->last_owner, host->xa_node_cache, SHR_NUMA_NO_NODE, 0);
	host->info_priv = ns;
	return 0;
}

void shr_grow_host_exit(struct shr_host *host)
{
	struct shr_nonslab *ns = host->info_priv;

	if (!ns)
		return;
	shr_idr_destroy(&ns->idr);
	shr_xa_destroy(&ns->last_owner);
	pthread_mutex_destroy(&ns->last_owner.xa_lock);
	free(ns);
	host->info_priv = NULL;
}

static bool in_scope(struct shr_mem_cgroup *memcg, enum shr_grow_scope scope)
{
	if (scope == SHR_GROW_ALL)
		return true;
	return shr_memcg_is_root(memcg) == (scope == SHR_GROW_ROOT);
}

/* expand_shrinker_info(): every cgroup in @scope, root first.
 * Context: shrinker_mutex held. */
static int grow(struct shr_host *host, int new_nr_max, enum shr_grow_scope scope,
		shr_expand_one_fn expand_one)
{
	struct shr_retire *retire = NULL;
	struct shr_mem_cgroup *memcg = NULL;
	int ret = 0;

	shr_lock_assert_held(&host->shrinker_mutex);
	while ((memcg = shr_memcg_iter_all(host, memcg))) {
		bool touched = false;

		if (!in_scope(memcg, scope)) {
			if (scope == SHR_GROW_ROOT)
				break; /* the root came first */
			continue;
		}
		for (int nid = 0; nid < host->nr_nodes; nid++) {
			ret = expand_one(host, memcg, nid, new_nr_max, &retire);
			if (ret)
				break;
			touched = true;
		}
		if (touched)
			atomic_fetch_add(&host->stats.cgroups_visited_by_registration, 1);
		if (ret < 0)
			break;
		ret = 0;
	}
	shr_mem_cgroup_iter_break(NULL, memcg);
	shr_retire_commit(retire);
	return ret < 0 ? -ENOMEM : 0;
}

static int round_up_step(int id, int step)
{
	return (id + 1 + step - 1) / step * step;
}

static int nonslab_id(const struct shr_shrinker_impl *s)
{
	uintptr_t v = (uintptr_t)atomic_load_explicit(&s->info_data, memory_order_relaxed);

	return v ? (int)(v - 1) : -1;
}

int shr_grow_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s, int new_nr_max,
			  shr_expand_one_fn expand_one)
{
	struct shr_nonslab *ns = host->info_priv;
	int nsid = -1, new_max;
	bool grew = false;

	shr_lock_assert_held(&host->shrinker_mutex);
	if (ns && s->id >= SHR_NONSLAB_ID_BASE)
		return -ENOSPC; /* would collide with the offset nonslab ids */
	if (ns && (s->flags & SHR_SHRINKER_NONSLAB)) {
		nsid = shr_idr_alloc(&ns->idr, s, 0, SHR_NONSLAB_ID_BASE, SHR_GFP_KERNEL);
		if (nsid < 0)
			return nsid; /* -ENOSPC (second space full) or -ENOMEM */
		/* The second space first: if the shrinker id space cannot grow
		 * afterwards, shr_shrinker_nr_max() is still unchanged. */
		if (nsid >= atomic_load_explicit(&ns->nr_max, memory_order_relaxed)) {
			new_max = round_up_step(nsid, host->id_step);
			if (grow(host, new_max, SHR_GROW_NONROOT, expand_one))
				goto undo;
			atomic_store_explicit(&ns->nr_max, new_max, memory_order_relaxed);
			grew = true;
		}
	}
	if (new_nr_max > atomic_load_explicit(&host->shrinker_nr_max, memory_order_relaxed)) {
		if (grow(host, new_nr_max, ns ? SHR_GROW_ROOT : SHR_GROW_ALL, expand_one))
			goto undo;
		grew = true;
	}
	if (nsid >= 0) {
		void *old = shr_xa_store(&ns->last_owner, (unsigned long)nsid,
					 shr_xa_mk_value((unsigned long)s->id), SHR_GFP_KERNEL);

		if (shr_xa_is_err(old))
			goto undo;
		atomic_store_explicit(&s->info_data, (void *)(uintptr_t)(nsid + 1),
				      memory_order_relaxed);
	}
	if (grew)
		atomic_fetch_add(&host->stats.expansions, 1);
	return 0;
undo:
	if (nsid >= 0)
		shr_idr_remove(&ns->idr, (unsigned long)nsid);
	return -ENOMEM;
}

void shr_grow_shrinker_remove(struct shr_host *host, struct shr_shrinker_impl *s)
{
	struct shr_nonslab *ns = host->info_priv;
	int nsid = nonslab_id(s);

	shr_lock_assert_held(&host->shrinker_mutex);
	/* The kernel's behaviour otherwise: bits and counters of the ids stay. */
	if (ns && nsid >= 0)
		shr_idr_remove(&ns->idr, (unsigned long)nsid);
}

int shr_grow_memcg_nr_max(struct shr_mem_cgroup *memcg)
{
	struct shr_host *host = memcg->host;
	struct shr_nonslab *ns = host->info_priv;

	if (shr_grow_nonslab_space(memcg))
		return atomic_load_explicit(&ns->nr_max, memory_order_relaxed);
	return atomic_load_explicit(&host->shrinker_nr_max, memory_order_relaxed);
}

int shr_grow_slot_of(struct shr_mem_cgroup *memcg, struct shr_shrinker_impl *s)
{
	if (!shr_grow_nonslab_space(memcg))
		return s->id;
	return (s->flags & SHR_SHRINKER_NONSLAB) ? nonslab_id(s) : -1;
}

int shr_grow_slot(struct shr_mem_cgroup *memcg, int id)
{
	struct shr_shrinker_impl *s;
	int slot = -1;

	if (id < 0)
		return -1;
	if (!shr_grow_nonslab_space(memcg))
		return id;
	if (id >= SHR_NONSLAB_ID_BASE)
		return id - SHR_NONSLAB_ID_BASE;
	/* A shrinker id: its nonslab id, if it has one. */
	shr_rcu_read_lock();
	s = shr_idr_find(&memcg->host->shrinker_idr, (unsigned long)id);
	if (s)
		slot = shr_grow_slot_of(memcg, s);
	shr_rcu_read_unlock();
	return slot;
}

int shr_grow_slot_from_pos(struct shr_mem_cgroup *memcg, int pos)
{
	if (!shr_grow_nonslab_space(memcg))
		return pos;
	return pos < SHR_NONSLAB_ID_BASE ? 0 : pos - SHR_NONSLAB_ID_BASE;
}

int shr_grow_id_of_slot(struct shr_mem_cgroup *memcg, int slot)
{
	return shr_grow_nonslab_space(memcg) ? SHR_NONSLAB_ID_BASE + slot : slot;
}

struct shr_shrinker_impl *shr_grow_lookup(struct shr_mem_cgroup *memcg, int id)
{
	struct shr_host *host = memcg->host;
	struct shr_nonslab *ns = host->info_priv;

	if (!shr_grow_nonslab_space(memcg))
		return shr_idr_find(&host->shrinker_idr, (unsigned long)id);
	if (id < SHR_NONSLAB_ID_BASE)
		return NULL;
	return shr_idr_find(&ns->idr, (unsigned long)(id - SHR_NONSLAB_ID_BASE));
}

int shr_grow_reparent_slot(struct shr_mem_cgroup *memcg, struct shr_mem_cgroup *parent,
			   int slot)
{
	struct shr_nonslab *ns = memcg->host->info_priv;
	struct shr_shrinker_impl *s;
	int id = -1;

	shr_lock_assert_held(&memcg->host->shrinker_mutex);
	if (shr_grow_nonslab_space(memcg) == shr_grow_nonslab_space(parent))
		return slot;
	/* Non-root child, root parent: back to the shrinker id. */
	shr_rcu_read_lock();
	s = shr_idr_find(&ns->idr, (unsigned long)slot);
	if (s) {
		id = s->id;
	} else {
		void *owner = shr_xa_load(&ns->last_owner, (unsigned long)slot);

		id = owner ? (int)shr_xa_to_value(owner) : -1;
	}
	shr_rcu_read_unlock();
	return id;
}

/* ----------------------------------------------------------- retirement */

static void retire_free(struct shr_slab_allocator *slab, struct shr_retire *batch)
{
	for (size_t i = 0; i < batch->nr; i++)
		shr_kvfree(slab, batch->objs[i]);
	free(batch->objs);
	free(batch);
}

static void retire_rcu(struct rcu_head *head)
{
	struct shr_retire *batch = shr_container_of(head, struct shr_retire, rcu);

	shr_rcu_callback_enter(head);
	retire_free(batch->slab, batch);
	shr_rcu_callback_exit();
}

void shr_retire_add(struct shr_host *host, struct shr_retire **batchp, void *obj)
{
	struct shr_retire *batch = *batchp;

	if (!batch) {
		batch = calloc(1, sizeof(*batch));
		if (!batch)
			goto sync_free;
		batch->slab = host->slab;
		*batchp = batch;
	}
	if (batch->nr == batch->cap) {
		size_t cap = batch->cap ? batch->cap * 2 : 16;
		void **objs = realloc(batch->objs, cap * sizeof(*objs));

		if (!objs)
			goto sync_free;
		batch->objs = objs;
		batch->cap = cap;
	}
	batch->objs[batch->nr++] = obj;
	return;
sync_free:
	/* kvfree_rcu's fallback: wait for the readers, then free. */
	shr_synchronize_rcu();
	shr_kvfree(host->slab, obj);
}

void shr_retire_commit(struct shr_retire *batch)
{
	if (batch)
		shr_call_rcu(&batch->rcu, retire_rcu);
}
