/* SPDX-License-Identifier: MIT */
/*
 * Reclaim: the callers of the shrinkers (the kernel's do_shrink_slab(),
 * shrink_slab(), shrink_slab_memcg(), drop_slab() and the slab part of
 * memory.reclaim).
 *
 * Design
 * ------
 * do_shrink_slab() reproduces the kernel's arithmetic to the integer: the
 * same signed/unsigned types, the same order of operations, the same loop
 * condition, deferred work taken out with an exchange and added back (never
 * stored), so concurrent callers merge their leftovers. Where C would make a
 * kernel overflow undefined (signed arithmetic) the value is computed in the
 * unsigned type of the same width and converted back, which is what the
 * kernel's two's-complement build does.
 *
 * Deliberate deviation (non-termination guard): the kernel loops for as long
 * as the callee reports nr_scanned == 0 and does not return SHRINK_STOP,
 * i.e. forever for such a callee. Here a run of SHR_ZERO_SCAN_LIMIT
 * consecutive scan calls that all report nr_scanned == 0 ends the loop as if
 * the last one had returned SHRINK_STOP after being counted (its freed
 * value is kept; it scanned nothing, so total_scan/scanned are unchanged).
 * A single call that reports progress resets the run. Therefore every
 * callee that reports nr_scanned > 0 at least once in any window of
 * SHR_ZERO_SCAN_LIMIT consecutive calls sees exactly the kernel's call
 * sequence and gets exactly the kernel's results; only callees that would
 * hang the kernel are cut short.
 *
 * Deliberate deviation (root bits): under a design with root bits
 * (indexed), a SHR_SHRINKER_ROOT_BITS shrinker is called at the root only
 * on the nodes where the root's bit for it is set, after the other
 * shrinkers, in id order. Its count there would be 0 or SHRINK_EMPTY
 * otherwise, which do_shrink_slab() returns without touching deferred work,
 * so what is freed and deferred is the kernel's; only the calls (and their
 * order at the root) differ. Every other shrinker is called as the kernel
 * calls it.
 *
 * Deferred slots: a memcg-aware shrinker called with a non-NULL sc->memcg
 * (always so in this library, the global walk passes the root) uses the
 * design's per-cgroup counter through host->info_ops (where the root's
 * counters live is the design's business); anything else uses the
 * shrinker's own atomic nr_deferred[] array, indexed by shr_deferred_nid().
 *
 * Locking and lifetime
 * --------------------
 * No lock is held while a shrinker runs. Walkers find shrinkers under RCU
 * (the registry list or the design's id lookup) and pin them with
 * shr_shrinker_try_get() (increment unless zero) before leaving the RCU
 * section; shr_shrinker_free() waits for the pin to be dropped. The global
 * walk re-enters RCU before dropping the pin, so the element it stands on
 * (and therefore its next pointer) outlives the put. Cgroups are pinned by
 * the caller (shr_shrink_slab) or by the cgroup iterator.
 *
 * Ordering
 * --------
 * The SHRINK_EMPTY protocol (clear bit / full barrier / recount) is drawn
 * at recheck_empty(); its barrier (B) pairs with the one in the design's
 * set_bit (A) (shr_info_unit_set_bit() in shrinker_info_unit.h). The clear of a
 * stale bit (its shrinker gone) has the same shape: clear / full barrier
 * (R) / look the id up again, (R) also pairing with (A)
 * (clear_stale_bit()). docs/design/RACES.md lists every race and its pair.
 */
#include <shrinker/reclaim.h>

#include "memcg_internal.h"
#include "race.h"
#include "rcu.h"
#include "shrinker_info.h"
#include "shrinker_internal.h"

/*
 * Consecutive zero-progress scan calls after which do_shrink_slab() gives up
 * (see "Deliberate deviation" above).
 */
#define SHR_ZERO_SCAN_LIMIT 1024

/**
 * shr_twice() - 2 * @x with the kernel's wrapping long arithmetic.
 * @x: a freeable count.
 *
 * Context: Any.
 * Return: 2 * @x, wrapped like two's-complement long (never UB).
 */
static long shr_twice(long x)
{
	return (long)((unsigned long)x * 2UL);
}

/**
 * deferred_xchg() - take the deferred work of @s for @sc out (set it to 0).
 * @s:  the shrinker, pinned.
 * @sc: the call's context (its memcg and nid select the slot).
 *
 * Context: Any registered thread; @sc->memcg pinned.
 * Return: the value the slot held.
 */
static long deferred_xchg(struct shr_shrinker_impl *s, const struct shr_shrink_control *sc)
{
	int idx = shr_deferred_nid(s, sc->nid);

	if ((s->flags & SHR_SHRINKER_MEMCG_AWARE) && sc->memcg)
		return shr_info_xchg_deferred(s->host->info_ops, sc->memcg, idx, s);
	return atomic_exchange_explicit(&s->nr_deferred[idx], 0, memory_order_relaxed);
}

/**
 * deferred_add() - add @nr to the deferred work of @s for @sc.
 * @s:  the shrinker, pinned.
 * @sc: the call's context.
 * @nr: work to give back (>= 0).
 *
 * Context: Any registered thread; @sc->memcg pinned.
 * Return: the slot's new value.
 */
static long deferred_add(struct shr_shrinker_impl *s, const struct shr_shrink_control *sc,
			 long nr)
{
	int idx = shr_deferred_nid(s, sc->nid);

	if ((s->flags & SHR_SHRINKER_MEMCG_AWARE) && sc->memcg)
		return shr_info_add_deferred(s->host->info_ops, sc->memcg, idx, s, nr);
	return atomic_fetch_add_explicit(&s->nr_deferred[idx], nr, memory_order_relaxed) + nr;
}

/**
 * scan_delta() - new work for this call from the current object count.
 * @freeable: count_objects' result (> 0).
 * @seeks:    the shrinker's seeks.
 * @priority: reclaim priority.
 *
 * Context: Any.
 * Return: (freeable >> priority) * 4 / seeks, or freeable / 2 when @seeks is
 *         0 (priority ignored), in unsigned 64-bit as the kernel has it.
 */
static uint64_t scan_delta(long freeable, int seeks, int priority)
{
	uint64_t delta;

	if (!seeks)
		return (uint64_t)(freeable / 2);
	delta = (uint64_t)(freeable >> priority);
	delta *= 4;
	return delta / (uint64_t)(long)seeks;
}

/**
 * struct scan_result - what the batch loop did.
 * @freed:   sum of scan_objects' results.
 * @scanned: sum of the nr_scanned values reported.
 */
struct scan_result {
	unsigned long freed;
	long scanned;
};

/**
 * scan_batches() - the batch loop of do_shrink_slab().
 * @s:          the shrinker, pinned.
 * @sc:         the call's context.
 * @freeable:   the object count.
 * @batch_size: objects per call.
 * @total_scan: work for this call.
 *
 * Context: Registered thread, no RCU section, no lock held.
 * Return: freed and scanned totals.
 */
static struct scan_result scan_batches(struct shr_shrinker_impl *s, struct shr_shrink_control *sc,
				       long freeable, long batch_size, long total_scan)
{
	struct scan_result r = { 0, 0 };
	unsigned int idle = 0;

	while (total_scan >= batch_size || total_scan >= freeable) {
		long nr_to_scan = batch_size < total_scan ? batch_size : total_scan;
		unsigned long ret;

		sc->nr_to_scan = (unsigned long)nr_to_scan;
		sc->nr_scanned = (unsigned long)nr_to_scan;
		ret = shr_call_scan(s, sc);
		if (ret == SHR_SHRINK_STOP)
			break;
		r.freed += ret;
		total_scan = (long)((unsigned long)total_scan - sc->nr_scanned);
		r.scanned = (long)((unsigned long)r.scanned + sc->nr_scanned);
		/* The non-termination guard (see the top of the file). */
		idle = sc->nr_scanned ? 0 : idle + 1;
		if (idle >= SHR_ZERO_SCAN_LIMIT)
			break;
	}
	return r;
}

/**
 * next_deferred() - the work to give back: max(nr + delta - scanned, 0),
 * computed in 64 bits and read as signed, then capped at 2 * freeable.
 * @nr:       deferred work taken out.
 * @delta:    new work.
 * @scanned:  work done.
 * @freeable: the object count.
 *
 * Context: Any.
 * Return: the value to add back.
 */
static long next_deferred(long nr, uint64_t delta, long scanned, long freeable)
{
	long next = (long)((uint64_t)nr + delta - (uint64_t)scanned);
	long cap = shr_twice(freeable);

	if (next < 0)
		next = 0;
	return next < cap ? next : cap;
}

/**
 * do_shrink_slab() - count, then scan in batches, carrying deferred work.
 * @sc:       context; @sc->nid and @sc->memcg set by the caller.
 * @s:        the shrinker, pinned by the caller.
 * @priority: 0..SHR_DEF_PRIORITY.
 *
 * Context: Registered thread, no RCU section, no lock held; may sleep in the
 *          callbacks.
 * Return: objects freed, or count_objects' 0 / SHR_SHRINK_EMPTY unchanged
 *         (then the deferred work is untouched).
 */
static unsigned long do_shrink_slab(struct shr_shrink_control *sc, struct shr_shrinker_impl *s,
				    int priority)
{
	long batch_size = s->pub.batch ? s->pub.batch : SHR_SHRINK_BATCH;
	unsigned long count;
	long freeable, nr, total_scan, cap;
	uint64_t delta;
	struct scan_result r;

	atomic_fetch_add_explicit(&s->stat_calls, 1, memory_order_relaxed);
	count = shr_call_count(s, sc);
	if (count == 0 || count == SHR_SHRINK_EMPTY)
		return count;
	freeable = (long)count;

	nr = deferred_xchg(s, sc);
	/* The work is in our hands: offline may reparent the counters now. */
	shr_race_point(SHR_RACE_DEFERRED_TAKEN);
	delta = scan_delta(freeable, s->pub.seeks, priority);
	total_scan = (long)((uint64_t)(nr >> priority) + delta);
	cap = shr_twice(freeable);
	if (total_scan > cap)
		total_scan = cap;

	r = scan_batches(s, sc, freeable, batch_size, total_scan);

	deferred_add(s, sc, next_deferred(nr, delta, r.scanned, freeable));
	/* Most calls of a cgroup walk scan nothing (the work is below a batch
	 * and deferred): adding 0 would cost two locked instructions on a
	 * line every walker shares. */
	if (r.scanned)
		atomic_fetch_add_explicit(&s->stat_scanned, (unsigned long)r.scanned,
					  memory_order_relaxed);
	if (r.freed)
		atomic_fetch_add_explicit(&s->stat_freed, r.freed, memory_order_relaxed);
	return r.freed;
}

static unsigned long shrink_slab_bits(struct shr_mem_cgroup *memcg, int nid, int priority);

/**
 * shrink_slab_global() - the root/global walk: every registered shrinker, in
 * registration order, memcg-aware ones with sc->memcg = the root; under a
 * design with root bits, the SHR_SHRINKER_ROOT_BITS shrinkers come after
 * the others, in id order, and only those whose root bit is set on @nid.
 * @host: the host.
 * @nid:  node.
 * @priority: priority.
 *
 * Steps:
 *  1. Enter RCU and step along host->root_walk_list (every registered
 *     shrinker but those the root's bits index).
 *  2. Pin the shrinker (increment unless zero); one that is not armed yet or
 *     is being freed is skipped.
 *  3. Leave RCU (the pin keeps it alive) and run do_shrink_slab();
 *     SHRINK_EMPTY counts as 0.
 *  4. Re-enter RCU, then drop the pin: even if that was the last user and
 *     shr_shrinker_free() unlinks it now, its memory (and its next pointer)
 *     stays valid until we leave RCU, so step 1 can go on from it.
 *  5. With root bits: the bit-driven walk of shrink_slab_memcg() on the
 *     root (the same SHRINK_EMPTY protocol keeps the root's bits exact).
 *
 * Context: Registered thread, no RCU section.
 * Return: objects freed.
 */
static unsigned long shrink_slab_global(struct shr_host *host, int nid, int priority)
{
	struct shr_rcu_list *head = &host->root_walk_list;
	struct shr_rcu_list *pos;
	unsigned long freed = 0;

	shr_rcu_read_lock();
	for (pos = shr_rcu_list_next(head); pos != head; pos = shr_rcu_list_next(pos)) {
		struct shr_shrinker_impl *s =
			shr_container_of(pos, struct shr_shrinker_impl, root_walk);
		struct shr_shrink_control sc = {
			.gfp_mask = SHR_GFP_KERNEL, .nid = nid, .memcg = host->root,
		};
		unsigned long ret;

		shr_race_point(SHR_RACE_WALK_PIN);
		if (!shr_shrinker_try_get(s))
			continue;
		shr_rcu_read_unlock();
		ret = do_shrink_slab(&sc, s, priority);
		if (ret == SHR_SHRINK_EMPTY)
			ret = 0;
		freed += ret;
		shr_rcu_read_lock();
		/* Free may unlink @s once we put it; RCU keeps its next. */
		shr_race_point(SHR_RACE_GLOBAL_WALK_PUT);
		shr_shrinker_put(s);
	}
	shr_rcu_read_unlock();
	if (host->design->info.root_bits)
		freed += shrink_slab_bits(host->root, nid, priority);
	return freed;
}

/**
 * recheck_empty() - the SHRINK_EMPTY protocol for one (memcg, nid, id).
 * @sc:       the call's context.
 * @s:        the shrinker, pinned.
 * @id:       its id in @sc->memcg's id space.
 * @priority: priority.
 *
 * Race being closed (left: a user adding the first object, e.g.
 * list_lru_add(); right: this walker, whose first count saw nothing):
 *
 *      list_lru_add()                 shrink_slab_memcg()
 *      --------------                 -------------------
 *      add object to the list         count -> SHRINK_EMPTY
 *      full barrier (A)               clear bit
 *      set bit                        full barrier (B)
 *                                     count again
 *
 * (A) is the fence in shr_info_unit_set_bit() (shrinker_info_unit.h), (B) the
 * fence below. Either the second count sees the object (so we re-set the
 * bit ourselves), or the adder's set bit lands after our clear; the bit is
 * never left clear with an object on the list.
 *
 * Context: Registered thread, no RCU section; @sc->memcg pinned.
 * Return: the second call's result, SHRINK_EMPTY mapped to 0.
 */
static unsigned long recheck_empty(struct shr_shrink_control *sc, struct shr_shrinker_impl *s,
				   int id, int priority)
{
	const struct shr_info_ops *ops = s->host->info_ops;
	unsigned long ret;

	if (!shr_info_clear_bit(ops, sc->memcg, sc->nid, id))
		return 0; /* the design keeps no bits: nothing to race with */
	shr_race_point(SHR_RACE_EMPTY_CLEAR_B);
	/* (B): pairs with (A), the fence in shr_info_unit_set_bit(). */
	atomic_thread_fence(memory_order_seq_cst);
	ret = do_shrink_slab(sc, s, priority);
	if (ret == SHR_SHRINK_EMPTY)
		return 0;
	/* set_bit takes the shrinker's own id, @id is in the cgroup's id space
	 * (they differ with nonslab_ids). */
	shr_info_set_bit(ops, sc->memcg, sc->nid, s->id);
	return ret;
}

/**
 * clear_stale_bit() - clear the bit of an id whose shrinker is gone or going
 * away, without losing a bit that the id's next owner sets meanwhile.
 * @memcg: the cgroup (not the root), pinned.
 * @nid:   node.
 * @id:    the id, in @memcg's id space.
 *
 * Race being closed (id reuse; docs/design/RACES.md R2 and
 * docs/upstream/kernel-bug-id-reuse.md). Left: this walker, which found the bit set
 * but could not pin the id's shrinker; right: other threads.
 *
 *      walk_pin_next()                  shr_shrinker_free(old): id released
 *      lookup(id) -> old (dying)/NULL   shr_shrinker_alloc(new): same id
 *      ... delayed ...                  list_lru_add(): first object in
 *                                         @memcg; full barrier (A); set bit
 *      clear bit
 *      full barrier (R)
 *      lookup(id) again
 *
 * Without the second half the clear removes the new owner's bit and reclaim
 * never reaches its object. (R) pairs with (A), the fence in
 * set_shrinker_bit() (shr_info_unit_set_bit(), flat_set_bit(), ix_set_bit()):
 * the new owner is in the IDR (and, if registered, armed) before its first
 * add, so either the lookup after (R) sees it, or the new owner's bit set
 * comes after our clear in the map word's modification order and survives.
 * What the second lookup finds:
 *  - nothing, or a shrinker being freed (the old one, or a new one already
 *    going): the bit stays clear;
 *  - a shrinker not armed yet: objects it added before registering need the
 *    bit: set it again and leave the shrinker alone;
 *  - an armed shrinker: set the bit again and hand the shrinker, pinned, to
 *    the walk, which calls it now; if it holds nothing here, the SHRINK_EMPTY
 *    protocol clears the bit again (recheck_empty()).
 * A re-set bit whose new owner holds nothing costs one count call.
 *
 * Context: Registered thread, inside the caller's RCU read-side section
 *          (the shrinkers looked up stay allocated).
 * Return: the new owner, pinned, or NULL.
 */
static struct shr_shrinker_impl *clear_stale_bit(struct shr_mem_cgroup *memcg, int nid, int id)
{
	const struct shr_info_ops *ops = memcg->host->info_ops;
	struct shr_shrinker_impl *s;

	if (!shr_info_clear_bit(ops, memcg, nid, id))
		return NULL; /* the design keeps no bits */
	shr_race_point(SHR_RACE_WALK_STALE_RECHECK);
	/* (R): pairs with (A), the fence of set_shrinker_bit(). */
	atomic_thread_fence(memory_order_seq_cst);
	s = ops->lookup(memcg, id);
	if (!s || shr_shrinker_dying(s))
		return NULL;
	/*
	 * @id, not s->id: a shrinker not armed yet may still be having its
	 * id written (the IDR publishes it first); set_bit also takes an id
	 * of @memcg's space (shrinker_info.h).
	 */
	shr_info_set_bit(ops, memcg, nid, id);
	return shr_shrinker_try_get(s) ? s : NULL;
}

/**
 * walk_pin_next() - find the next set bit at or after *@pos and pin its
 * shrinker.
 * @memcg: the cgroup, pinned and online.
 * @nid:   node.
 * @pos:   in: first id to look at; out: the id after the one returned.
 * @wc:    walk counters.
 * @id:    receives the id of the returned shrinker.
 *
 * A bit whose shrinker cannot be pinned is
 *  - kept if the shrinker exists and is not being freed (allocated, not
 *    armed yet: objects it added before registering must find their bit
 *    when it is; the kernel clears it, deliberate difference), and in the
 *    root (a root bit is only ever set for a shrinker that exists, the
 *    design scrubs a freed shrinker's root bits);
 *  - cleared otherwise (no shrinker, or one being freed: unregister leaves
 *    bits), by clear_stale_bit(), which keeps a bit the id's next owner set
 *    meanwhile and may return that owner pinned.
 *
 * Context: Registered thread, no RCU section (enters and leaves one).
 * Return: the pinned shrinker, or NULL when no set bit is left.
 */
static struct shr_shrinker_impl *walk_pin_next(struct shr_mem_cgroup *memcg, int nid, int *pos,
					       struct shr_walk_counts *wc, int *id)
{
	const struct shr_info_ops *ops = memcg->host->info_ops;
	struct shr_shrinker_impl *s;

	for (;;) {
		shr_rcu_read_lock();
		*id = ops->next_bit(memcg, nid, *pos, wc);
		if (*id < 0) {
			shr_rcu_read_unlock();
			return NULL;
		}
		*pos = *id + 1;
		s = ops->lookup(memcg, *id);
		shr_race_point(SHR_RACE_WALK_PIN);
		if (s && shr_shrinker_try_get(s)) {
			shr_rcu_read_unlock();
			return s;
		}
		if (shr_memcg_is_root(memcg) || (s && !shr_shrinker_dying(s))) {
			shr_rcu_read_unlock();
			continue;
		}
		/* Gone or going: the bit is stale, unless the id changed
		 * hands since the lookup. */
		shr_race_point(SHR_RACE_WALK_STALE_LOOKUP);
		s = clear_stale_bit(memcg, nid, *id);
		shr_rcu_read_unlock();
		if (s)
			return s;
	}
}

/**
 * shrink_slab_bits() - the bit-driven walk of one cgroup and node: a
 * non-root cgroup's (shrink_slab_memcg()), or the root's part of the
 * global walk under a design with root bits.
 * @memcg:    the cgroup, pinned (online, or the root).
 * @nid:      node.
 * @priority: priority.
 *
 * Steps:
 *  1. (shrink_slab_memcg() has returned 0 for a cgroup that is not online.)
 *  2. From id 0 upwards, under RCU: ask the design for the next set bit,
 *     map the id to a shrinker and pin it; a missing or dying shrinker has
 *     its bit cleared, unless the id's next owner set it meanwhile (not in
 *     the root; a shrinker not armed yet keeps its bits: walk_pin_next()),
 *     and the walk goes on. Leave RCU.
 *  3. kmem gate (the 7.x fix), not for the root: with kmem accounting off
 *     only NONSLAB shrinkers run in a cgroup; for the others the bit is
 *     cleared and the pin dropped.
 *  4. Run do_shrink_slab(). SHRINK_EMPTY starts the clear / barrier /
 *     recount protocol (recheck_empty()); a count of 0 keeps the bit.
 *  5. Add what was freed, drop the pin, continue after the id (the design
 *     re-reads its structures each step, so growth made meanwhile is seen).
 *  6. Add the walk's counters to the host's once (non-root walks only:
 *     the host's counters describe cgroup walks).
 *
 * Context: Registered thread, no RCU section.
 * Return: objects freed.
 */
static unsigned long shrink_slab_bits(struct shr_mem_cgroup *memcg, int nid, int priority)
{
	struct shr_host *host = memcg->host;
	bool root = shr_memcg_is_root(memcg);
	struct shr_walk_counts wc = { 0, 0 };
	struct shr_shrinker_impl *s;
	unsigned long freed = 0;
	int pos = 0, id;

	while ((s = walk_pin_next(memcg, nid, &pos, &wc, &id))) {
		struct shr_shrink_control sc = {
			.gfp_mask = SHR_GFP_KERNEL, .nid = nid, .memcg = memcg,
		};
		unsigned long ret;

		if (!root && !shr_host_kmem(host) && !(s->flags & SHR_SHRINKER_NONSLAB)) {
			shr_info_clear_bit(host->info_ops, memcg, nid, id);
			shr_shrinker_put(s);
			continue;
		}
		ret = do_shrink_slab(&sc, s, priority);
		if (ret == SHR_SHRINK_EMPTY)
			ret = recheck_empty(&sc, s, id, priority);
		freed += ret;
		shr_shrinker_put(s);
	}

	if (root)
		return freed;
	atomic_fetch_add_explicit(&host->stats.walks, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&host->stats.units_visited, wc.units, memory_order_relaxed);
	atomic_fetch_add_explicit(&host->stats.words_visited, wc.words, memory_order_relaxed);
	return freed;
}

/* The walk for a non-root cgroup: a cgroup that is not online frees nothing
 * (iterators hand out dying cgroups; their objects were reparented).
 * Context: Registered thread, no RCU section; @memcg pinned. */
static unsigned long shrink_slab_memcg(struct shr_mem_cgroup *memcg, int nid, int priority)
{
	if (!shr_memcg_online(memcg))
		return 0;
	return shrink_slab_bits(memcg, nid, priority);
}

/**
 * shrink_slab() - shrink_slab() without argument checks: the global walk
 * for NULL or the root, the bit-driven walk otherwise.
 * @host:     the host.
 * @nid:      node, in range.
 * @memcg:    cgroup of @host (pinned) or NULL.
 * @priority: 0..SHR_DEF_PRIORITY.
 *
 * Context: Registered thread, not inside an RCU section or a shrinker
 *          callback.
 * Return: objects freed (a cgroup that is not online frees 0).
 */
static unsigned long shrink_slab(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg,
				 int priority)
{
	if (!memcg || shr_memcg_is_root(memcg))
		return shrink_slab_global(host, nid, priority);
	return shrink_slab_memcg(memcg, nid, priority);
}

int shr_shrink_slab(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg, int priority,
		    unsigned long *freed)
{
	if (!host || !freed || nid < 0 || nid >= host->nr_nodes)
		return -EINVAL;
	if (priority < 0 || priority > SHR_DEF_PRIORITY)
		return -EINVAL;
	if (memcg && memcg->host != host)
		return -EINVAL;
	*freed = shrink_slab(host, nid, memcg, priority);
	return 0;
}

/**
 * drop_slab_node() - one node of drop_slab: every cgroup, root first,
 * dying ones included (they free 0), at priority 0; subtrees the design
 * knows hold no bit on @nid are skipped (they would free 0).
 * @host: the host.
 * @nid:  node.
 *
 * Context: Registered thread, no RCU section.
 * Return: objects freed.
 */
static unsigned long drop_slab_node(struct shr_host *host, int nid)
{
	struct shr_mem_cgroup *memcg = NULL;
	unsigned long freed = 0;

	while ((memcg = shr_memcg_reclaim_iter(host, NULL, memcg, nid))) {
		atomic_fetch_add_explicit(&host->stats.reclaim_cgroups_visited, 1,
					  memory_order_relaxed);
		freed += shrink_slab(host, nid, memcg, 0);
	}
	return freed;
}

int shr_drop_caches(struct shr_host *host, unsigned long *freed, unsigned int *passes)
{
	unsigned long total = 0, pass_freed;
	unsigned int shift = 0, nr_passes = 0;

	if (!host)
		return -EINVAL;
	do {
		pass_freed = 0;
		for (int nid = 0; nid < host->nr_nodes; nid++)
			pass_freed += drop_slab_node(host, nid);
		total += pass_freed;
		nr_passes++;
	} while ((pass_freed >> shift++) > 1);

	if (freed)
		*freed = total;
	if (passes)
		*passes = nr_passes;
	return 0;
}

/**
 * reclaim_subtree() - one priority of memory.reclaim: every node, every
 * cgroup of @target's subtree (pre-order, @target first).
 * @target:   the subtree root, pinned.
 * @priority: priority.
 * @freed:    in/out: objects freed so far.
 * @goal:     stop as soon as *@freed reaches it.
 *
 * Context: Registered thread, no RCU section.
 * Return: true when the goal was reached.
 */
static bool reclaim_subtree(struct shr_mem_cgroup *target, int priority, unsigned long *freed,
			    unsigned long goal)
{
	struct shr_host *host = target->host;

	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct shr_mem_cgroup *memcg = NULL;

		while ((memcg = shr_memcg_reclaim_iter(host, target, memcg, nid))) {
			atomic_fetch_add_explicit(&host->stats.reclaim_cgroups_visited, 1,
						  memory_order_relaxed);
			*freed += shrink_slab(host, nid, memcg, priority);
			if (*freed >= goal) {
				shr_mem_cgroup_iter_break(target, memcg);
				return true;
			}
		}
	}
	return false;
}

int shr_mem_cgroup_reclaim(struct shr_mem_cgroup *memcg, unsigned long nr_objects,
			   unsigned long *freed)
{
	unsigned long total = 0;
	int ret = -EAGAIN;

	if (!memcg || !nr_objects)
		return -EINVAL;
	if (!shr_memcg_online(memcg))
		return -ENOENT;
	for (int priority = SHR_DEF_PRIORITY; priority >= 0; priority--) {
		if (reclaim_subtree(memcg, priority, &total, nr_objects)) {
			ret = 0;
			break;
		}
	}
	if (freed)
		*freed = total;
	return ret;
}
