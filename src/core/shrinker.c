/* SPDX-License-Identifier: MIT */
/*
 * Shrinker life cycle: alloc, register, free; the reference protocol that
 * lets reclaim run without the registry mutex.
 *
 * States of a shrinker, and who may see it:
 *   allocated    in the id registry (memcg-aware), not on the list;
 *                refcount 0, so a walker that finds it by id cannot pin it
 *                (it keeps the bit: objects added before register need
 *                it once the shrinker is armed).
 *   registered   on host->shrinker_list (tail) and, unless the root's
 *                bits index it (SHR_SHRINKER_ROOT_BITS under a design with
 *                root bits), on host->root_walk_list; refcount >= 1; the
 *                registration owns one reference.
 *   being freed  `dying` set, then refcount dropped to 0 by free's put; no
 *                new pins possible (increment-unless-zero), and a walker
 *                that fails to pin it clears its bits (re-checking the id's
 *                owner after a barrier, see clear_stale_bit() in
 *                reclaim.c); free waits on `done` until every
 *                in-flight user has put its reference, then unlinks it,
 *                releases the id, and frees it after a grace period.
 *
 * Ordering:
 *   - register publishes the shrinker on the list (release, in the list add)
 *     before arming refcount = 1 (release store); a walker that pins it
 *     (acquire in try_get) sees its fields.
 *   - free's final put completes `done`; the completion's mutex orders
 *     every user's put before free's unlink and id release.
 *   - walkers keep the RCU read lock while they put a shrinker and step to
 *     the next list element, so the element they stand on is not freed
 *     under them (free's deferred kfree waits for that grace period).
 *
 * The registry mutex (host->shrinker_mutex) serialises alloc (id + growth of
 * the design's bookkeeping), register, free's unlink, and is timed for the
 * lab (time held per memcg-aware alloc).
 *
 * Handles: the handle is the shrinker's address, so once its memory is
 * reused a stale handle names the new shrinker. Free therefore marks the
 * shrinker SHR_SHRINKER_MAGIC_FREED and parks it in a per-host ring of the
 * last SHR_SHRINKER_QUARANTINE freed shrinkers; the one it pushes out goes
 * back to the allocator after a grace period. Every entry point checks the
 * magic, so a stale handle used within that many later frees is refused
 * (free reports it, the others return -EINVAL), in every build and with no
 * cost outside free. Older stale handles cannot be told from live ones.
 *
 * Debug builds also record, per thread, the shrinker callbacks being run
 * (shr_call_count()/shr_call_scan()), so that free from a shrinker's own
 * callback, which would wait for itself, is reported instead of hanging.
 */
#include <limits.h>
#include <string.h>
#include <time.h>

#include "debug.h"
#include "memcg_internal.h"
#include "race.h"
#include "rcu.h"
#include "shrinker_info.h"
#include "shrinker_internal.h"

#define SHR_SHRINKER_KNOWN_FLAGS                                                    \
	(SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NONSLAB | \
	 SHR_SHRINKER_ROOT_BITS)
/* Flags that only mean something for a memcg-aware shrinker. */
#define SHR_SHRINKER_MEMCG_ONLY_FLAGS (SHR_SHRINKER_NONSLAB | SHR_SHRINKER_ROOT_BITS)

_Thread_local struct shr_callback_frame *shr_callback_top;

static bool shrinker_alive(const struct shr_shrinker *shrinker)
{
	const struct shr_shrinker_impl *s;

	if (!shrinker)
		return false;
	s = shr_container_of(shrinker, const struct shr_shrinker_impl, pub);
	return s->magic == SHR_SHRINKER_MAGIC;
}

static int shrinker_set_name(struct shr_shrinker_impl *s, const char *name)
{
	size_t len;

	if (!name)
		return 0;
	len = strlen(name) + 1;
	s->name = shr_kmalloc(s->host->slab, len, SHR_GFP_KERNEL);
	if (!s->name)
		return -ENOMEM;
	memcpy(s->name, name, len);
	return 0;
}

/* Monotonic clock in ns. */
static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

/* Record a registration's mutex hold for the lab. Context: shrinker_mutex held. */
static void record_hold(struct shr_host *host, unsigned long long ns)
{
	shr_lock_assert_held(&host->shrinker_mutex);
	host->stats.mutex_hold_ns_total += ns;
	if (ns > host->stats.mutex_hold_ns_max)
		host->stats.mutex_hold_ns_max = ns;
	if (host->stats.hold_ns_len == host->stats.hold_ns_cap) {
		size_t cap = host->stats.hold_ns_cap ? host->stats.hold_ns_cap * 2 : 256;
		unsigned long long *p = realloc(host->stats.hold_ns, cap * sizeof(*p));

		if (!p)
			return; /* instrumentation only: drop the sample */
		host->stats.hold_ns = p;
		host->stats.hold_ns_cap = cap;
	}
	host->stats.hold_ns[host->stats.hold_ns_len++] = ns;
}

/* shrinker_nr_max once id @id exists: rounded up to the host's id step. */
static int nr_max_for(const struct shr_host *host, int id)
{
	int nr_max = (id / host->id_step + 1) * host->id_step;
	int cur = atomic_load_explicit(&host->shrinker_nr_max, memory_order_relaxed);

	return nr_max > cur ? nr_max : cur;
}

/*
 * shrinker_memcg_alloc(): lowest free id; then the design makes room for
 * it in every cgroup, and shrinker_nr_max grows (expand_shrinker_info()).
 */
static int shrinker_memcg_alloc(struct shr_shrinker_impl *s)
{
	struct shr_host *host = s->host;
	unsigned long long t0;
	int id, ret, nr_max;

	shr_mutex_lock(&host->shrinker_mutex);
	t0 = now_ns();
	id = shr_idr_alloc(&host->shrinker_idr, s, 0, 0, SHR_GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto unlock;
	}
	s->id = id;
	/* Walkers may find the id now (and fail to pin it). */
	shr_race_point(SHR_RACE_SHRINKER_ID_PUBLISHED);
	nr_max = nr_max_for(host, id);
	ret = host->info_ops->shrinker_add(host, s, nr_max);
	if (ret) {
		shr_idr_remove(&host->shrinker_idr, (unsigned long)id);
		s->id = -1;
		goto unlock;
	}
	atomic_store_explicit(&host->shrinker_nr_max, nr_max, memory_order_relaxed);
	atomic_fetch_add(&host->stats.registrations, 1);
	record_hold(host, now_ns() - t0);
	host->nr_shrinkers++;
unlock:
	shr_mutex_unlock(&host->shrinker_mutex);
	return ret;
}

static int shrinker_plain_alloc(struct shr_shrinker_impl *s)
{
	struct shr_host *host = s->host;
	size_t slots = (s->flags & SHR_SHRINKER_NUMA_AWARE) ? (size_t)host->nr_nodes : 1;

	s->nr_deferred = shr_kzalloc_node(host->slab, slots * sizeof(*s->nr_deferred),
					  SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!s->nr_deferred)
		return -ENOMEM;
	shr_mutex_lock(&host->shrinker_mutex);
	host->nr_shrinkers++;
	shr_mutex_unlock(&host->shrinker_mutex);
	return 0;
}

int shr_shrinker_alloc(struct shr_host *host, unsigned int flags, const char *name,
		       struct shr_shrinker **out)
{
	struct shr_shrinker_impl *s;
	int ret;

	if (!host || !out || (flags & ~SHR_SHRINKER_KNOWN_FLAGS) ||
	    ((flags & SHR_SHRINKER_MEMCG_ONLY_FLAGS) && !(flags & SHR_SHRINKER_MEMCG_AWARE)))
		return -EINVAL;
	s = shr_kzalloc_node(host->slab, sizeof(*s), SHR_GFP_KERNEL, SHR_NUMA_NO_NODE);
	if (!s)
		return -ENOMEM;
	s->host = host;
	s->flags = flags;
	s->id = -1;
	s->debugfs_id = -1;
	s->pub.seeks = SHR_DEFAULT_SEEKS;
	atomic_init(&s->refcount, 0);
	atomic_init(&s->dying, false);
	shr_completion_init(&s->done);
	ret = shrinker_set_name(s, name);
	if (ret)
		goto fail;
	if (flags & SHR_SHRINKER_MEMCG_AWARE)
		ret = shrinker_memcg_alloc(s);
	else
		ret = shrinker_plain_alloc(s);
	if (ret)
		goto fail;
	s->magic = SHR_SHRINKER_MAGIC;
	*out = &s->pub;
	return 0;
fail:
	shr_completion_destroy(&s->done);
	shr_kfree(host->slab, s->name);
	shr_kfree(host->slab, s);
	return ret;
}

int shr_shrinker_register(struct shr_shrinker *shrinker)
{
	struct shr_shrinker_impl *s;
	struct shr_host *host;
	int debugfs_id;

	if (!shrinker_alive(shrinker))
		return -EINVAL;
	s = to_impl(shrinker);
	host = s->host;
	if (!shrinker->count_objects || !shrinker->scan_objects || shrinker->batch < 0 ||
	    shrinker->seeks < 0)
		return -EINVAL;
	shr_mutex_lock(&host->shrinker_mutex);
	if (s->ever_registered) {
		shr_mutex_unlock(&host->shrinker_mutex);
		return -EBUSY;
	}
	/* Debugfs directory: failure is ignored, as the kernel does. */
	debugfs_id = shr_ida_alloc_range(&host->debugfs_ida, 0, SHR_IDR_MAX, SHR_GFP_KERNEL);
	s->debugfs_id = debugfs_id < 0 ? -1 : debugfs_id;
	shr_rcu_list_add_tail(&s->list, &host->shrinker_list);
	if (!shr_shrinker_root_indexed(s))
		shr_rcu_list_add_tail(&s->root_walk, &host->root_walk_list);
	s->registered = true;
	s->ever_registered = true;
	shr_mutex_unlock(&host->shrinker_mutex);
	/* On the lists, not pinnable yet. */
	shr_race_point(SHR_RACE_SHRINKER_ARM);
	/* Arm: from now on walkers can pin it. Release pairs with the acquire
	 * of a successful shr_shrinker_try_get(). */
	atomic_store_explicit(&s->refcount, 1, memory_order_release);
	return 0;
}

bool shr_shrinker_try_get(struct shr_shrinker_impl *s)
{
	long old = atomic_load_explicit(&s->refcount, memory_order_relaxed);

	do {
		if (old == 0)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&s->refcount, &old, old + 1,
							memory_order_acquire,
							memory_order_relaxed));
	return true;
}

void shr_shrinker_put(struct shr_shrinker_impl *s)
{
	/*
	 * acq_rel: the release half orders this user's accesses to the shrinker
	 * before the count drops; the acquire half makes the last putter see
	 * every earlier user's, so they all happen before shr_complete() and
	 * hence before free's unlink and deferred kfree (free's own put may be
	 * the last one). An acquire fence would do, but TSan ignores fences.
	 */
	if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) == 1)
		shr_complete(&s->done);
}

static void shrinker_free_rcu(struct rcu_head *head)
{
	struct shr_shrinker_impl *s = shr_container_of(head, struct shr_shrinker_impl, rcu);
	struct shr_slab_allocator *slab = s->host->slab;

	shr_rcu_callback_enter(head);
	shr_completion_destroy(&s->done);
	shr_kfree(slab, s->nr_deferred);
	shr_kfree(slab, s->name);
	shr_kfree(slab, s);
	shr_rcu_callback_exit();
}

/* Whether this thread is inside a count/scan callback of @s (debug builds;
 * always false in the others, which record no frames). */
static bool in_own_callback(const struct shr_shrinker_impl *s)
{
	for (const struct shr_callback_frame *f = shr_callback_top; f; f = f->outer)
		if (f->s == s)
			return true;
	return false;
}

/* Park @s (just freed) in the quarantine; return the shrinker it pushes
 * out, to be given back, or NULL. Context: shrinker_mutex held. */
static struct shr_shrinker_impl *quarantine_push(struct shr_host *host,
						 struct shr_shrinker_impl *s)
{
	struct shr_shrinker_impl *old = host->quarantine[host->quarantine_next];

	shr_lock_assert_held(&host->shrinker_mutex);
	host->quarantine[host->quarantine_next] = s;
	host->quarantine_next = (host->quarantine_next + 1) % SHR_SHRINKER_QUARANTINE;
	return old;
}

void shr_shrinker_quarantine_flush(struct shr_host *host)
{
	shr_mutex_lock(&host->shrinker_mutex);
	for (int i = 0; i < SHR_SHRINKER_QUARANTINE; i++) {
		if (host->quarantine[i])
			shr_call_rcu(&host->quarantine[i]->rcu, shrinker_free_rcu);
		host->quarantine[i] = NULL;
	}
	host->quarantine_next = 0;
	shr_mutex_unlock(&host->shrinker_mutex);
}

void shr_shrinker_free(struct shr_shrinker *shrinker)
{
	struct shr_shrinker_impl *s, *evicted;
	struct shr_host *host;
	bool registered;

	if (!shrinker)
		return;
	s = to_impl(shrinker);
	if (s->magic == SHR_SHRINKER_MAGIC_FREED) {
		SHR_MISUSE("shr_shrinker_free(%p): that shrinker was freed before (a stale "
			   "handle: double free, or a free after its memory was reused); ignored",
			   (void *)shrinker);
		return;
	}
	if (s->magic != SHR_SHRINKER_MAGIC) {
		SHR_MISUSE("shr_shrinker_free(%p): not a shrinker; ignored", (void *)shrinker);
		return;
	}
	if (in_own_callback(s)) {
		SHR_MISUSE("shr_shrinker_free(%p) from inside a count/scan callback of that "
			   "shrinker: it would wait for itself forever; ignored",
			   (void *)shrinker);
		return;
	}
	host = s->host;
	/* Walkers that cannot pin it from now on treat its bits as stale. */
	atomic_store_explicit(&s->dying, true, memory_order_relaxed);
	shr_mutex_lock(&host->shrinker_mutex);
	registered = s->registered;
	shr_mutex_unlock(&host->shrinker_mutex);
	if (registered) {
		shr_shrinker_put(s);
		shr_wait_for_completion(&s->done);
	}
	/* Nobody can pin it; its id still maps to it (and its bits stay). */
	shr_race_point(SHR_RACE_SHRINKER_DEAD);
	shr_mutex_lock(&host->shrinker_mutex);
	if (s->registered) {
		shr_rcu_list_del(&s->list);
		if (!shr_shrinker_root_indexed(s))
			shr_rcu_list_del(&s->root_walk);
		s->registered = false;
	}
	if (s->debugfs_id >= 0)
		(void)shr_ida_free(&host->debugfs_ida, (unsigned int)s->debugfs_id);
	if (s->flags & SHR_SHRINKER_MEMCG_AWARE) {
		shr_info_shrinker_remove(host->info_ops, host, s);
		shr_idr_remove(&host->shrinker_idr, (unsigned long)s->id);
	}
	host->nr_shrinkers--;
	s->magic = SHR_SHRINKER_MAGIC_FREED;
	evicted = quarantine_push(host, s);
	shr_mutex_unlock(&host->shrinker_mutex);
	/* Off every list and registry since its own free: a grace period from
	 * now covers any reader that could still hold it. */
	if (evicted)
		shr_call_rcu(&evicted->rcu, shrinker_free_rcu);
}

int shr_shrinker_lru_binding(struct shr_host *host, struct shr_shrinker *shrinker, int *id,
			     bool *memcg_aware, bool *root_bits)
{
	struct shr_shrinker_impl *s;

	*id = -1;
	*memcg_aware = false;
	*root_bits = false;
	if (!shrinker)
		return 0;
	if (!shrinker_alive(shrinker))
		return -EINVAL;
	s = to_impl(shrinker);
	if (s->host != host)
		return -EINVAL;
	*id = s->id;
	*memcg_aware = (s->flags & SHR_SHRINKER_MEMCG_AWARE) && shr_host_kmem(host) && s->id >= 0;
	*root_bits = shr_shrinker_root_indexed(s) && s->id >= 0;
	return 0;
}

int shr_shrinker_id(const struct shr_shrinker *shrinker)
{
	if (!shrinker_alive(shrinker))
		return -1;
	return shr_container_of(shrinker, const struct shr_shrinker_impl, pub)->id;
}

unsigned int shr_shrinker_flags(const struct shr_shrinker *shrinker)
{
	if (!shrinker_alive(shrinker))
		return 0;
	return shr_container_of(shrinker, const struct shr_shrinker_impl, pub)->flags;
}

static long read_deferred(struct shr_shrinker_impl *s, struct shr_mem_cgroup *memcg, int nid)
{
	int slot = shr_deferred_nid(s, nid);

	if ((s->flags & SHR_SHRINKER_MEMCG_AWARE) && memcg)
		return shr_info_read_deferred(s->host->info_ops, memcg, slot, s);
	return atomic_load(&s->nr_deferred[slot]);
}

/*
 * A slot as the API reports it. The kernel's arithmetic (do_shrink_slab(),
 * kept to the integer in reclaim.c) leaves a negative value in a slot when
 * count_objects() returned more than LONG_MAX / 2: the cap 2 * freeable
 * wraps below zero and min() picks it. No work is deferred then (the next
 * call on the slot with a sane count scans nothing and puts back
 * max(nr + delta - 0, 0) = 0), so it reads as 0; the slot itself keeps the
 * kernel's value.
 */
static long reported_deferred(long slot)
{
	return slot < 0 ? 0 : slot;
}

/* @sum + @v for @v >= 0, saturating at LONG_MAX (slots of up to 2 *
 * freeable each can sum past it). */
static long sum_deferred(long sum, long v)
{
	return v > LONG_MAX - sum ? LONG_MAX : sum + v;
}

long shr_shrinker_nr_deferred(struct shr_shrinker *shrinker, struct shr_mem_cgroup *memcg,
			      int nid)
{
	struct shr_shrinker_impl *s;

	if (!shrinker_alive(shrinker))
		return -EINVAL;
	s = to_impl(shrinker);
	if (nid < 0 || nid >= s->host->nr_nodes || (memcg && memcg->host != s->host))
		return -EINVAL;
	return reported_deferred(read_deferred(s, memcg ? memcg : s->host->root, nid));
}

static long total_deferred(struct shr_shrinker_impl *s)
{
	struct shr_host *host = s->host;
	int slots = (s->flags & SHR_SHRINKER_NUMA_AWARE) ? host->nr_nodes : 1;
	struct shr_mem_cgroup *memcg = NULL;
	long sum = 0;

	if (!(s->flags & SHR_SHRINKER_MEMCG_AWARE)) {
		for (int n = 0; n < slots; n++)
			sum = sum_deferred(sum, reported_deferred(atomic_load(&s->nr_deferred[n])));
		return sum;
	}
	/*
	 * Online cgroups only (the root is): offline added a dying cgroup's
	 * counters to its parent's and the dying cgroup keeps its copy until it
	 * is freed, so counting it would count that work twice; a cgroup not
	 * yet online holds none. (The debugfs count file skips the same.)
	 */
	while ((memcg = shr_mem_cgroup_iter(host, NULL, memcg))) {
		if (!shr_memcg_online(memcg))
			continue;
		for (int n = 0; n < slots; n++)
			sum = sum_deferred(sum, reported_deferred(shr_info_read_deferred(host->info_ops,
											  memcg, n, s)));
	}
	return sum;
}

int shr_shrinker_get_stats(struct shr_shrinker *shrinker, struct shr_shrinker_stats *out)
{
	struct shr_shrinker_impl *s;

	if (!shrinker_alive(shrinker) || !out)
		return -EINVAL;
	s = to_impl(shrinker);
	out->calls = atomic_load(&s->stat_calls);
	out->scanned = atomic_load(&s->stat_scanned);
	out->freed = atomic_load(&s->stat_freed);
	out->deferred = total_deferred(s);
	return 0;
}

int shr_set_shrinker_bit(struct shr_mem_cgroup *memcg, int nid, struct shr_shrinker *shrinker)
{
	struct shr_shrinker_impl *s;
	struct shr_host *host;
	int ret;

	if (!memcg || !shrinker_alive(shrinker))
		return -EINVAL;
	s = to_impl(shrinker);
	host = s->host;
	if (memcg->host != host || nid < 0 || nid >= host->nr_nodes)
		return -EINVAL;
	if (!(s->flags & SHR_SHRINKER_MEMCG_AWARE))
		return 0;
	if (shr_memcg_is_root(memcg) && !shr_shrinker_root_indexed(s))
		return 0;
	ret = shr_info_install(host->info_ops, memcg, s->id, SHR_GFP_KERNEL);
	if (ret)
		return ret;
	shr_info_set_bit(host->info_ops, memcg, nid, s->id);
	return 0;
}

int shr_shrinker_nr_max(struct shr_host *host)
{
	return atomic_load_explicit(&host->shrinker_nr_max, memory_order_relaxed);
}
