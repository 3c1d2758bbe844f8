/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups: tree, life cycle, references, pre-order iteration.
 *
 * Invariants
 *  - A cgroup is linked in its parent's children list from alloc until its
 *    last reference is put (release); it holds a reference on its parent for
 *    that whole time, so a parent is released only after all its children.
 *  - refcnt counts the base reference (owned by the "directory" until
 *    offline) plus every get/tryget; 0 means released. tryget never revives
 *    a released cgroup (increment-unless-zero).
 *  - state: ONLINE between a successful online and the end of offline;
 *    DYING from the start of offline (rmdir) on. A dying cgroup gets no new
 *    list_lru lists. Reclaim skips cgroups that are not ONLINE.
 *  - id (memcg id) is allocated at alloc and released at release, so it is
 *    reused only after the cgroup is gone; kmemcg_id = id while kmem is on.
 *
 * Offline order (css_offline), under cgroup_mutex: mark DYING; list_lru
 * reparenting (items to the parent's lists); deferred-count reparenting
 * under shrinker_mutex; clear ONLINE; put the base reference.
 *
 * Release: unlink from the parent (RCU list delete), release the id, put
 * the parent; after a grace period free the design's bookkeeping and the
 * cgroup itself. Readers that walk the tree under RCU without a reference
 * (the iterator between two positions) may stand on a released cgroup; its
 * forward link and parent stay valid until the grace period ends.
 *
 * Locking: cgroup_mutex serialises tree shape and state transitions;
 * readers walk children lists under RCU. Lock order in host_state.h.
 *
 * Charges (memory.current / memory.high in bytes)
 *  - A cgroup's counters (struct shr_memcg_memory) exist from its first
 *    charge or set_high, or its first descendant's, on: they are installed
 *    top-down (the highest ancestor lacking them first, each with a release
 *    compare-exchange, a loser freeing its copy), so a cgroup that has them
 *    has an ancestor chain that has them, and each counter's parent is the
 *    parent cgroup's counter. They are freed with the cgroup; a cgroup freed
 *    with bytes still charged is the caller's misuse (reported).
 *  - A charge adds at every level, then, for each level over its high,
 *    counts a "high" event there (the kernel's memcg_memory_event(HIGH) per
 *    charge over high) and notifies the host's reclaimer: one eventfd write
 *    while host->high_pending is clear (exchange), so a burst of charges
 *    costs one write until the reclaimer acks. The fd is read inside an RCU
 *    read-side section; shr_memcg_high_notify_remove() clears it and waits
 *    a grace period, after which no charger can still be writing it.
 *  - An uncharge by a thread with a reclaim state installed (a reclaimer's
 *    round, shr_set_reclaim_state()) adds the bytes to that state and to the
 *    "reclaimed" statistic of the cgroup and its ancestors: the kernel's
 *    current->reclaim_state, which is how reclaim learns what the shrinkers
 *    it called have freed.
 */
#include <string.h>
#include <unistd.h>

#include "debug.h"
#include "list_lru_internal.h"
#include "memcg_internal.h"
#include "race.h"
#include "rcu.h"
#include "shrinker_info.h"

static struct shr_mem_cgroup *memcg_alloc_struct(struct shr_host *host)
{
	size_t size = sizeof(struct shr_mem_cgroup) + (size_t)host->nr_nodes * host->info_node_size;
	struct shr_mem_cgroup *memcg;

	memcg = shr_kzalloc_node(host->slab, size, SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!memcg)
		return NULL;
	memcg->host = host;
	memcg->kmemcg_id = -1;
	atomic_init(&memcg->refcnt, 1);
	atomic_init(&memcg->state, 0);
	shr_rcu_list_init(&memcg->children);
	shr_rcu_list_init(&memcg->lru_lists);
	/* The design's areas are valid (empty) before anyone can find the
	 * cgroup: iterators and id lookups see it from alloc on, not online. */
	shr_info_memcg_init(host->info_ops, host, memcg);
	return memcg;
}

/* alloc_shrinker_info(): the design's part of css_online. Context:
 * shrinker_mutex held. Return: 0 or -ENOMEM. */
static int memcg_info_online(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	return shr_info_memcg_online(host->info_ops, host, memcg);
}

/* Free @memcg's charges (it is being freed); report bytes left charged. */
static void memcg_memory_free(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *mem = shr_memcg_memory(memcg);
	unsigned long left;

	if (!mem)
		return;
	left = shr_page_counter_read(&mem->memory);
	if (left)
		SHR_MISUSE("cgroup %lu freed with %lu bytes still charged to it (uncharge "
			   "before the last reference goes)", memcg->ino, left);
	shr_kfree(memcg->host->slab, mem);
}

int shr_memcg_create_root(struct shr_host *host)
{
	struct shr_mem_cgroup *root = memcg_alloc_struct(host);
	int id, ret;

	if (!root)
		return -ENOMEM;
	id = shr_idr_alloc(&host->memcg_idr, root, 1, SHR_MEM_CGROUP_ID_MAX + 1, SHR_GFP_KERNEL);
	if (id < 0) {
		shr_kfree(host->slab, root);
		return id;
	}
	root->id = id;
	root->ino = host->next_ino++;
	host->root = root;
	shr_mutex_lock(&host->shrinker_mutex);
	ret = memcg_info_online(host, root);
	shr_mutex_unlock(&host->shrinker_mutex);
	if (ret) {
		shr_idr_remove(&host->memcg_idr, (unsigned long)id);
		shr_kfree(host->slab, root);
		host->root = NULL;
		return ret;
	}
	atomic_store(&root->state, SHR_MEMCG_ONLINE);
	atomic_store_explicit(&host->nr_memcgs, 1, memory_order_relaxed);
	return 0;
}

void shr_memcg_destroy_root(struct shr_host *host)
{
	struct shr_mem_cgroup *root = host->root;

	host->info_ops->memcg_free(host, root);
	memcg_memory_free(root);
	shr_idr_remove(&host->memcg_idr, (unsigned long)root->id);
	shr_kfree(host->slab, root);
	host->root = NULL;
	atomic_store_explicit(&host->nr_memcgs, 0, memory_order_relaxed);
}

static bool memcg_valid(const struct shr_mem_cgroup *memcg)
{
	return memcg && memcg->host && memcg->host->root;
}

int shr_mem_cgroup_alloc(struct shr_mem_cgroup *parent, struct shr_mem_cgroup **out)
{
	struct shr_host *host;
	struct shr_mem_cgroup *memcg;
	int id, ret = 0;

	if (!memcg_valid(parent) || !out)
		return -EINVAL;
	host = parent->host;
	shr_mutex_lock(&host->cgroup_mutex);
	if (!shr_memcg_online(parent) || shr_memcg_dying(parent)) {
		ret = -EINVAL;
		goto unlock;
	}
	memcg = memcg_alloc_struct(host);
	if (!memcg) {
		ret = -ENOMEM;
		goto unlock;
	}
	memcg->parent = parent;
	/* Fully initialised before the IDR makes it findable (tryget works). */
	id = shr_idr_alloc(&host->memcg_idr, memcg, 1, SHR_MEM_CGROUP_ID_MAX + 1, SHR_GFP_KERNEL);
	if (id < 0) {
		shr_kfree(host->slab, memcg);
		ret = id;
		goto unlock;
	}
	memcg->id = id;
	memcg->ino = host->next_ino++;
	shr_mem_cgroup_get(parent);
	/* Publish in the tree: pairs with shr_rcu_list_next() in the iterator. */
	shr_rcu_list_add_tail(&memcg->sibling, &parent->children);
	atomic_fetch_add_explicit(&host->nr_memcgs, 1, memory_order_relaxed);
	*out = memcg;
unlock:
	shr_mutex_unlock(&host->cgroup_mutex);
	return ret;
}

int shr_mem_cgroup_online(struct shr_mem_cgroup *memcg)
{
	struct shr_host *host;
	unsigned int state;
	int ret;

	if (!memcg_valid(memcg) || shr_memcg_is_root(memcg))
		return -EINVAL;
	host = memcg->host;
	shr_mutex_lock(&host->cgroup_mutex);
	state = atomic_load(&memcg->state);
	if (state & (SHR_MEMCG_ONLINE | SHR_MEMCG_DYING | SHR_MEMCG_RELEASED) ||
	    !shr_memcg_online(memcg->parent)) {
		ret = -EINVAL;
		goto unlock;
	}
	memcg->kmemcg_id = shr_host_kmem(host) ? memcg->id : -1;
	/* alloc_shrinker_info(): sized from shrinker_nr_max under the same mutex
	 * registration grows it under, so no registration is missed. */
	shr_mutex_lock(&host->shrinker_mutex);
	ret = memcg_info_online(host, memcg);
	shr_mutex_unlock(&host->shrinker_mutex);
	if (ret) {
		memcg->kmemcg_id = -1;
		goto unlock;
	}
	shr_race_point(SHR_RACE_MEMCG_ONLINE);
	/* Release: a reader that sees ONLINE sees the bookkeeping and kmemcg_id
	 * (pairs with the acquire in shr_memcg_online()). */
	atomic_fetch_or_explicit(&memcg->state, SHR_MEMCG_ONLINE, memory_order_release);
unlock:
	shr_mutex_unlock(&host->cgroup_mutex);
	return ret;
}

int shr_mem_cgroup_create(struct shr_mem_cgroup *parent, struct shr_mem_cgroup **out)
{
	struct shr_mem_cgroup *memcg;
	int ret;

	if (!out)
		return -EINVAL;
	ret = shr_mem_cgroup_alloc(parent, &memcg);
	if (ret)
		return ret;
	ret = shr_mem_cgroup_online(memcg);
	if (ret) {
		/* Never online: release the half-made cgroup. */
		(void)shr_mem_cgroup_offline(memcg);
		return ret;
	}
	*out = memcg;
	return 0;
}

/* Whether a child of @memcg is not dying. Context: cgroup_mutex held. */
static bool has_live_children(struct shr_mem_cgroup *memcg)
{
	struct shr_rcu_list *pos;

	shr_lock_assert_held(&memcg->host->cgroup_mutex);
	for (pos = shr_rcu_list_next(&memcg->children); pos != &memcg->children;
	     pos = shr_rcu_list_next(pos)) {
		struct shr_mem_cgroup *child = shr_container_of(pos, struct shr_mem_cgroup, sibling);

		if (!shr_memcg_dying(child))
			return true;
	}
	return false;
}

int shr_mem_cgroup_offline(struct shr_mem_cgroup *memcg)
{
	struct shr_host *host;
	unsigned int state;

	if (!memcg_valid(memcg) || shr_memcg_is_root(memcg))
		return -EINVAL;
	host = memcg->host;
	shr_mutex_lock(&host->cgroup_mutex);
	state = atomic_load(&memcg->state);
	if (state & (SHR_MEMCG_DYING | SHR_MEMCG_RELEASED)) {
		shr_mutex_unlock(&host->cgroup_mutex);
		return -EINVAL;
	}
	if (has_live_children(memcg)) {
		shr_mutex_unlock(&host->cgroup_mutex);
		return -EBUSY;
	}
	/* Dying first: list allocation refuses it from now on. */
	atomic_fetch_or(&memcg->state, SHR_MEMCG_DYING);
	if (state & SHR_MEMCG_ONLINE) {
		/* Adds racing the mark: they climb or back off. */
		shr_race_point(SHR_RACE_OFFLINE_DYING);
		shr_list_lru_reparent_memcg(memcg, memcg->parent);
		/* Reclaim in flight may still add deferred work to the child. */
		shr_race_point(SHR_RACE_OFFLINE_DEFERRED);
		shr_mutex_lock(&host->shrinker_mutex);
		host->info_ops->reparent_deferred(host, memcg, memcg->parent);
		shr_mutex_unlock(&host->shrinker_mutex);
		atomic_fetch_and(&memcg->state, ~SHR_MEMCG_ONLINE);
	}
	shr_mutex_unlock(&host->cgroup_mutex);
	shr_mem_cgroup_put(memcg);
	return 0;
}

void shr_mem_cgroup_get(struct shr_mem_cgroup *memcg)
{
	if (!memcg)
		return;
	atomic_fetch_add_explicit(&memcg->refcnt, 1, memory_order_relaxed);
}

bool shr_mem_cgroup_tryget(struct shr_mem_cgroup *memcg)
{
	long old;

	if (!memcg)
		return false;
	old = atomic_load_explicit(&memcg->refcnt, memory_order_relaxed);
	do {
		if (old == 0)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&memcg->refcnt, &old, old + 1,
							memory_order_acquire,
							memory_order_relaxed));
	return true;
}

static void memcg_free_rcu(struct rcu_head *head)
{
	struct shr_mem_cgroup *memcg = shr_container_of(head, struct shr_mem_cgroup, rcu);
	struct shr_host *host = memcg->host;

	shr_rcu_callback_enter(head);
	/* css_free: nobody can reach the cgroup any more. */
	host->info_ops->memcg_free(host, memcg);
	memcg_memory_free(memcg);
	shr_kfree(host->slab, memcg);
	atomic_fetch_sub_explicit(&host->nr_memcgs, 1, memory_order_relaxed);
	shr_rcu_callback_exit();
}

/*
 * css_release, deferred like the kernel's release work: the last put can
 * happen with shrinker_mutex held (a registration walking every cgroup), and
 * release takes cgroup_mutex, which ranks above it. Running it as an RCU
 * callback keeps the lock order: callbacks run with no library lock held (on
 * the callback thread, or inside shr_rcu_barrier(): src/base/rcu.c).
 */
static void memcg_release_rcu(struct rcu_head *head)
{
	struct shr_mem_cgroup *memcg = shr_container_of(head, struct shr_mem_cgroup, rcu);
	struct shr_host *host = memcg->host;
	struct shr_mem_cgroup *parent = memcg->parent;

	shr_rcu_callback_enter(head);
	shr_mutex_lock(&host->cgroup_mutex);
	atomic_fetch_or(&memcg->state, SHR_MEMCG_RELEASED);
	shr_rcu_list_del(&memcg->sibling);
	shr_mutex_unlock(&host->cgroup_mutex);
	/* The id becomes reusable; lookups by id fail from now on. */
	shr_idr_remove(&host->memcg_idr, (unsigned long)memcg->id);
	/* The head is ours again once this callback runs. */
	shr_call_rcu(&memcg->rcu, memcg_free_rcu);
	shr_mem_cgroup_put(parent);
	shr_rcu_callback_exit();
}

void shr_mem_cgroup_put(struct shr_mem_cgroup *memcg)
{
	long old;

	if (!memcg || shr_memcg_is_root(memcg))
		return;
	shr_race_point(SHR_RACE_MEMCG_PUT);
	/* acq_rel: every user's accesses happen before the release work of the
	 * last putter (release half in each put, acquire half in the last;
	 * not a fence, which TSan cannot see). */
	old = atomic_fetch_sub_explicit(&memcg->refcnt, 1, memory_order_acq_rel);
	SHR_BUG_ON(old <= 0);
	if (old == 1)
		shr_call_rcu(&memcg->rcu, memcg_release_rcu);
}

/* Pre-order successor of @pos's whole subtree within @root's subtree. */
static struct shr_mem_cgroup *next_after_subtree(struct shr_mem_cgroup *pos,
						 struct shr_mem_cgroup *root)
{
	while (pos != root) {
		struct shr_rcu_list *next = shr_rcu_list_next(&pos->sibling);

		if (next != &pos->parent->children)
			return shr_container_of(next, struct shr_mem_cgroup, sibling);
		pos = pos->parent;
	}
	return NULL;
}

/* Pre-order successor of @pos within @root's subtree, without references. */
static struct shr_mem_cgroup *next_pre(struct shr_mem_cgroup *pos, struct shr_mem_cgroup *root)
{
	struct shr_rcu_list *first = shr_rcu_list_next(&pos->children);

	if (first != &pos->children)
		return shr_container_of(first, struct shr_mem_cgroup, sibling);
	return next_after_subtree(pos, root);
}

/*
 * Like next_pre(), but pruning with the design's counts on @nid (@ops NULL:
 * prune nothing): @pos's children are not entered when none below it has a
 * bit (below_empty), and a subtree without any is stepped over
 * (subtree_empty).
 */
static struct shr_mem_cgroup *next_pre_pruned(struct shr_mem_cgroup *pos,
					      struct shr_mem_cgroup *root, int nid,
					      const struct shr_info_ops *ops)
{
	if (ops && shr_info_below_empty(ops, pos, nid))
		pos = next_after_subtree(pos, root);
	else
		pos = next_pre(pos, root);
	while (pos && ops && shr_info_subtree_empty(ops, pos, nid))
		pos = next_after_subtree(pos, root);
	return pos;
}

/*
 * One step of a pre-order walk of @root's subtree from @prev (NULL: start),
 * pruning what @ops reports empty on @nid (NULL: prune nothing). Takes a
 * reference on the result (not on the host root) and drops @prev's.
 */
static struct shr_mem_cgroup *iter_step(struct shr_host *host, struct shr_mem_cgroup *root,
					struct shr_mem_cgroup *prev, int nid,
					const struct shr_info_ops *ops)
{
	struct shr_mem_cgroup *pos;

	if (!root) {
		if (!host)
			return NULL;
		root = host->root;
	}
	shr_rcu_read_lock();
	if (!prev) {
		pos = root;
		if (!shr_memcg_is_root(pos) && !shr_mem_cgroup_tryget(pos))
			pos = NULL;
	} else {
		pos = next_pre_pruned(prev, root, nid, ops);
		/* Found without a reference: its last put may run now. */
		shr_race_point(SHR_RACE_MEMCG_TRYGET);
		while (pos && !shr_mem_cgroup_tryget(pos))
			pos = next_pre_pruned(pos, root, nid, ops);
	}
	shr_rcu_read_unlock();
	/* No-op for the host root, which was returned without a reference. */
	shr_mem_cgroup_put(prev);
	return pos;
}

struct shr_mem_cgroup *shr_mem_cgroup_iter(struct shr_host *host, struct shr_mem_cgroup *root,
					   struct shr_mem_cgroup *prev)
{
	return iter_step(host, root, prev, 0, NULL);
}

void shr_mem_cgroup_iter_break(struct shr_mem_cgroup *root, struct shr_mem_cgroup *prev)
{
	(void)root;
	shr_mem_cgroup_put(prev);
}

struct shr_mem_cgroup *shr_memcg_iter_all(struct shr_host *host, struct shr_mem_cgroup *prev)
{
	return shr_mem_cgroup_iter(host, NULL, prev);
}

struct shr_mem_cgroup *shr_memcg_reclaim_iter(struct shr_host *host, struct shr_mem_cgroup *root,
					      struct shr_mem_cgroup *prev, int nid)
{
	return iter_step(host, root, prev, nid, host ? host->info_ops : NULL);
}

struct shr_mem_cgroup *shr_mem_cgroup_parent(const struct shr_mem_cgroup *memcg)
{
	return memcg ? memcg->parent : NULL;
}

struct shr_host *shr_mem_cgroup_host(const struct shr_mem_cgroup *memcg)
{
	return memcg ? memcg->host : NULL;
}

bool shr_mem_cgroup_is_root(const struct shr_mem_cgroup *memcg)
{
	return memcg && shr_memcg_is_root(memcg);
}

bool shr_mem_cgroup_is_online(const struct shr_mem_cgroup *memcg)
{
	return memcg && shr_memcg_online(memcg);
}

bool shr_mem_cgroup_is_dying(const struct shr_mem_cgroup *memcg)
{
	return memcg && shr_memcg_dying(memcg);
}

int shr_mem_cgroup_id(const struct shr_mem_cgroup *memcg)
{
	return memcg ? memcg->id : -EINVAL;
}

int shr_mem_cgroup_kmemcg_id(const struct shr_mem_cgroup *memcg)
{
	return memcg ? memcg->kmemcg_id : -1;
}

unsigned long shr_mem_cgroup_ino(const struct shr_mem_cgroup *memcg)
{
	return memcg ? memcg->ino : 0;
}

struct shr_mem_cgroup *shr_mem_cgroup_from_ino(struct shr_host *host, unsigned long ino)
{
	struct shr_mem_cgroup *pos = NULL;

	if (!host)
		return NULL;
	/* The iterator's reference on the match becomes the caller's. */
	while ((pos = shr_mem_cgroup_iter(host, NULL, pos)))
		if (pos->ino == ino)
			return pos;
	return NULL;
}

bool shr_mem_cgroup_is_descendant(const struct shr_mem_cgroup *memcg,
				  const struct shr_mem_cgroup *root)
{
	for (; memcg; memcg = memcg->parent)
		if (memcg == root)
			return true;
	return false;
}

int shr_mem_cgroup_bookkeeping(struct shr_mem_cgroup *memcg, int nid,
			       struct shr_memcg_bookkeeping *out)
{
	struct shr_host *host;

	if (!memcg_valid(memcg) || !out)
		return -EINVAL;
	host = memcg->host;
	if (nid < -1 || nid >= host->nr_nodes)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (int n = 0; n < host->nr_nodes; n++) {
		if (nid >= 0 && n != nid)
			continue;
		host->info_ops->bytes(memcg, n, out);
	}
	return 0;
}

/* Charges. */

/* This thread's reclaim state (shr_set_reclaim_state()). */
static _Thread_local struct shr_reclaim_state *current_reclaim_state;

struct shr_reclaim_state *shr_set_reclaim_state(struct shr_reclaim_state *rs)
{
	struct shr_reclaim_state *old = current_reclaim_state;

	current_reclaim_state = rs;
	return old;
}

/*
 * Install counters on @memcg, whose parent has them (or which is the root).
 * Context: Registered thread. Return: the cgroup's counters (ours or a
 * racing installer's), or NULL on allocation failure.
 */
static struct shr_memcg_memory *memcg_memory_install(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *parent_mem = memcg->parent ? shr_memcg_memory(memcg->parent) : NULL;
	struct shr_memcg_memory *mem, *expected = NULL;

	mem = shr_kzalloc_node(memcg->host->slab, sizeof(*mem), SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!mem)
		return NULL;
	shr_page_counter_init(&mem->memory, parent_mem ? &parent_mem->memory : NULL);
	atomic_init(&mem->events_high, 0);
	atomic_init(&mem->reclaimed, 0);
	/* Release: a reader that finds the pointer sees it initialised. */
	if (!atomic_compare_exchange_strong_explicit(&memcg->memory, &expected, mem,
						     memory_order_acq_rel, memory_order_acquire)) {
		shr_kfree(memcg->host->slab, mem);
		return expected;
	}
	return mem;
}

/*
 * @memcg's counters, installed top-down with its ancestors' where missing.
 * Context: Registered thread; @memcg pinned (so are its ancestors).
 * Return: the counters, or NULL (-ENOMEM; what was installed stays, empty).
 */
static struct shr_memcg_memory *memcg_memory_get(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *mem;

	while (!(mem = shr_memcg_memory(memcg))) {
		struct shr_mem_cgroup *top = memcg;

		/* The highest ancestor without counters. */
		while (top->parent && !shr_memcg_memory(top->parent))
			top = top->parent;
		if (!memcg_memory_install(top))
			return NULL;
	}
	return mem;
}

/*
 * Tell the host's reclaimer a cgroup went over its high: one eventfd write
 * unless one is pending already. Context: Registered thread.
 */
static void memcg_notify_high(struct shr_host *host)
{
	static const uint64_t one = 1;
	int fd;

	if (atomic_exchange_explicit(&host->high_pending, true, memory_order_acq_rel))
		return;
	shr_rcu_read_lock();
	fd = atomic_load_explicit(&host->high_eventfd, memory_order_acquire);
	if (fd >= 0) {
		ssize_t n = write(fd, &one, sizeof(one));

		/* Non-blocking eventfd: EAGAIN (a full counter) is a pending wake. */
		(void)n;
	}
	shr_rcu_read_unlock();
}

/*
 * Count a "high" event in every cgroup from @memcg up that is over its
 * high. Context: Any. Return: whether any was.
 */
static bool memcg_count_high_events(struct shr_mem_cgroup *memcg)
{
	bool over = false;

	for (; memcg; memcg = memcg->parent) {
		struct shr_memcg_memory *mem = shr_memcg_memory(memcg);

		if (shr_page_counter_over_high(&mem->memory)) {
			atomic_fetch_add_explicit(&mem->events_high, 1, memory_order_relaxed);
			over = true;
		}
	}
	return over;
}

int shr_mem_cgroup_charge(struct shr_mem_cgroup *memcg, unsigned long bytes)
{
	struct shr_memcg_memory *mem;

	if (!memcg_valid(memcg) || !bytes || bytes > SHR_PAGE_COUNTER_MAX)
		return -EINVAL;
	mem = memcg_memory_get(memcg);
	if (!mem)
		return -ENOMEM;
	if (!shr_page_counter_try_charge(&mem->memory, (long)bytes))
		return -EOVERFLOW;
	if (!memcg_count_high_events(memcg))
		return 0;
	memcg_notify_high(memcg->host);
	return 1;
}

int shr_mem_cgroup_uncharge(struct shr_mem_cgroup *memcg, unsigned long bytes)
{
	struct shr_memcg_memory *mem;
	struct shr_reclaim_state *rs = current_reclaim_state;

	if (!memcg_valid(memcg) || !bytes || bytes > SHR_PAGE_COUNTER_MAX)
		return -EINVAL;
	mem = shr_memcg_memory(memcg);
	if (!mem || !shr_page_counter_uncharge(&mem->memory, (long)bytes))
		return -EINVAL;
	if (!rs)
		return 0;
	rs->reclaimed += bytes;
	for (; memcg; memcg = memcg->parent)
		atomic_fetch_add_explicit(&shr_memcg_memory(memcg)->reclaimed, bytes,
					  memory_order_relaxed);
	return 0;
}

int shr_mem_cgroup_set_high(struct shr_mem_cgroup *memcg, unsigned long high)
{
	struct shr_memcg_memory *mem;

	if (!memcg_valid(memcg) || high > SHR_PAGE_COUNTER_MAX)
		return -EINVAL;
	mem = memcg_memory_get(memcg);
	if (!mem)
		return -ENOMEM;
	shr_page_counter_set_high(&mem->memory, (long)high);
	if (shr_page_counter_over_high(&mem->memory))
		memcg_notify_high(memcg->host);
	return 0;
}

unsigned long shr_mem_cgroup_usage(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *mem = memcg ? shr_memcg_memory(memcg) : NULL;

	return mem ? shr_page_counter_read(&mem->memory) : 0;
}

int shr_mem_cgroup_memory_stat(struct shr_mem_cgroup *memcg, struct shr_memcg_memory_stat *out)
{
	struct shr_memcg_memory *mem;

	if (!memcg_valid(memcg) || !out)
		return -EINVAL;
	mem = shr_memcg_memory(memcg);
	memset(out, 0, sizeof(*out));
	out->high = SHR_PAGE_COUNTER_MAX;
	if (!mem)
		return 0;
	out->usage = shr_page_counter_read(&mem->memory);
	out->high = shr_page_counter_high(&mem->memory);
	out->peak = shr_page_counter_watermark(&mem->memory);
	out->events_high = atomic_load_explicit(&mem->events_high, memory_order_relaxed);
	out->reclaimed = atomic_load_explicit(&mem->reclaimed, memory_order_relaxed);
	return 0;
}

int shr_memcg_high_notify_install(struct shr_host *host, int fd)
{
	int none = -1;

	atomic_store_explicit(&host->high_pending, false, memory_order_relaxed);
	if (!atomic_compare_exchange_strong_explicit(&host->high_eventfd, &none, fd,
						     memory_order_release, memory_order_relaxed))
		return -EBUSY;
	return 0;
}

void shr_memcg_high_notify_remove(struct shr_host *host)
{
	atomic_store_explicit(&host->high_eventfd, -1, memory_order_release);
	/* Chargers that read the old fd did so inside a read-side section. */
	shr_synchronize_rcu();
}

void shr_memcg_high_notify_ack(struct shr_host *host)
{
	/* An exchange, not a store: it reads the last charger's exchange, so
	 * that charger's charge happens before the caller's reads of the
	 * counters (reclaimer.c, "Ordering"). */
	(void)atomic_exchange_explicit(&host->high_pending, false, memory_order_acq_rel);
}
