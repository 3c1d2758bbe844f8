/* SPDX-License-Identifier: MIT */
/*
 * Race-window widening: named race points with injectable delays, in the
 * spirit of liburcu's DEBUG_YIELD and rcutorture's stutter.
 *
 * The library marks each place where another thread's interleaving matters
 * with a named point (enum shr_race_point; docs/design/RACES.md lists the races and
 * the barrier or lock that closes each). In a build configured with
 * -Ddebug_checks=true (the ASan, TSan and fuzz builds of `make check`) every
 * point counts its hits and, once shr_race_delays_enable() has armed it,
 * sleeps or yields with a configurable probability, so that a race that
 * needs bad luck shows in a short run. A point reached with a spinning lock
 * held (a list_lru list lock, array-ondemand's install lock) only busy-waits.
 * In other builds the points compile to nothing and the functions below
 * report -EOPNOTSUPP (or 0 hits).
 *
 * Tests can also hang a hook on a point (shr_race_set_hook()) to run a
 * chosen interleaving exactly there, deterministically.
 */
#ifndef SHRINKER_RACE_H
#define SHRINKER_RACE_H

#include <shrinker/common.h>
#include <shrinker/host.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum shr_race_point - the named race points. Each comment says which
 * window the point widens (docs/design/RACES.md has the races in full).
 */
enum shr_race_point {
	/* set_shrinker_bit(): the caller's store (item on the list, list count)
	 * is done, barrier (A) and the bit's atomic or are not (SHRINK_EMPTY
	 * protocol, adder's side). */
	SHR_RACE_SET_BIT_A = 0,
	/* shrink_slab_memcg(): count said SHRINK_EMPTY and the bit is clear;
	 * barrier (B) and the recount are not done (reclaimer's side). */
	SHR_RACE_EMPTY_CLEAR_B,
	/* shrink_slab_memcg(): a set bit whose id maps to no shrinker that can
	 * be pinned; the bit is not cleared yet (id reuse: a new owner may set
	 * it for its first object meanwhile; docs/upstream/kernel-bug-id-reuse.md). */
	SHR_RACE_WALK_STALE_LOOKUP,
	/* The same walker after clearing that bit, before its barrier and the
	 * second lookup that re-sets the bit for a new owner. */
	SHR_RACE_WALK_STALE_RECHECK,
	/* A walker found a shrinker by id or on a list, before its
	 * increment-unless-zero pin (the count may drop to 0 meanwhile). */
	SHR_RACE_WALK_PIN,
	/* shrink_slab's root walk: back in RCU after a call, before dropping
	 * the pin (free may unlink the element the walk stands on). */
	SHR_RACE_GLOBAL_WALK_PUT,
	/* shr_shrinker_free(): the count reached 0 (no pin possible any more),
	 * the shrinker is not unlinked and its id not released yet. */
	SHR_RACE_SHRINKER_DEAD,
	/* shr_shrinker_register(): on the lists, count still 0 (not armed). */
	SHR_RACE_SHRINKER_ARM,
	/* shr_shrinker_alloc(): the id is in the IDR (findable), the design's
	 * bookkeeping for it is not ready yet. */
	SHR_RACE_SHRINKER_ID_PUBLISHED,
	/* do_shrink_slab(): deferred work taken out, not added back yet
	 * (offline may reparent the counters meanwhile). */
	SHR_RACE_DEFERRED_TAKEN,
	/* indexed: set_bit's M1 (bit or) done, M2 (mark load) not. */
	SHR_RACE_IX_SET_M1_M2,
	/* indexed: the clear path removed the mark, C2 (re-read of the map)
	 * not done yet. */
	SHR_RACE_IX_UNMARK_C2,
	/* indexed: a unit left its container (last list gone), it is not
	 * queued for freeing yet; readers may still hold it. */
	SHR_RACE_IX_UNIT_ERASED,
	/* flat: a growth published the new map, barrier (G) and the fold of
	 * what writers put in the old map are not done. */
	SHR_RACE_FLAT_GROW_G,
	/* flat: a writer updated a map (bit or counter), barrier (W) and the
	 * check for a newer map are not done. */
	SHR_RACE_FLAT_WRITER_W,
	/* array-ondemand: install saw the unit slot empty, before taking the
	 * per-(cgroup, node) install lock that growth publishes under. */
	SHR_RACE_ARR_INSTALL,
	/* prealloc, array-ondemand: growth allocated the bigger array, before
	 * copying the old slots and publishing it. */
	SHR_RACE_ARR_GROW_COPY,
	/* An on-demand unit (xarray, nobitmap, indexed) or a per-cgroup info
	 * (prealloc, array-ondemand, flat) is initialised, before its
	 * publication (xa store / rcu_assign_pointer). */
	SHR_RACE_INFO_PUBLISH,
	/* list_lru: the cgroup's bookkeeping is installed, its lists are not
	 * published yet (offline may mark the cgroup dying meanwhile). */
	SHR_RACE_LRU_PUBLISH,
	/* list_lru: a list was looked up under RCU, before taking its lock
	 * (reparenting may splice it and mark it dead meanwhile). */
	SHR_RACE_LRU_LOOKUP_LOCK,
	/* list_lru reparenting: items spliced to the parent and the child's
	 * lists marked dead, before they are unpublished. */
	SHR_RACE_REPARENT_SPLICED,
	/* Offline: the cgroup is marked dying, its lists are not reparented
	 * yet (adds racing the mark climb or back off). */
	SHR_RACE_OFFLINE_DYING,
	/* Offline: lists reparented, deferred counters not yet. */
	SHR_RACE_OFFLINE_DEFERRED,
	/* Online: the design's bookkeeping is in place, ONLINE not published. */
	SHR_RACE_MEMCG_ONLINE,
	/* A cgroup found under RCU (iterator), before its increment-unless-zero
	 * tryget (the last put may run meanwhile). */
	SHR_RACE_MEMCG_TRYGET,
	/* shr_mem_cgroup_put(): before the decrement that may be the last. */
	SHR_RACE_MEMCG_PUT,
	/* XArray reader: a node pointer was loaded, before its slot is read
	 * (the node may be retired and poisoned meanwhile). */
	SHR_RACE_XA_READER_DESCEND,
	/* XArray writer: a node was unlinked, before its slots are poisoned
	 * with RETRY and it is queued for freeing. */
	SHR_RACE_XA_NODE_RETIRE,
	/* XArray writer: new nodes are linked, the entry is not stored yet. */
	SHR_RACE_XA_NODE_PUBLISH,
	SHR_RACE_NR
};

/**
 * shr_race_available() - whether this build has race points.
 *
 * Context: Any.
 * Return: true in builds configured with -Ddebug_checks=true.
 */
SHR_API bool shr_race_available(void);

/**
 * shr_race_delays_enable() - arm random delays at race points.
 * @mask:     bit p set: point p may delay (SHR_RACE_ALL for every point).
 * @seed:     seed of the per-thread generators (each thread derives its
 *            own stream from it and its registration order).
 * @max_us:   longest delay in microseconds (1..1000000); busy-waits at
 *            points inside a spinning lock are capped at 20 us.
 * @permille: probability of a delay at each hit, in 1/1000 (1..1000),
 *            scaled per point: 1/8 of it at the points nearly every
 *            operation passes (XArray loads, walk steps, cgroup iterator
 *            steps and puts), 1/2 at list lookups, 100 times it (at most
 *            1) at the rarely passed windows (stale bits, growth,
 *            registration and free), where a sleep may also last up to
 *            10 * @max_us.
 *
 * A delay is a sched_yield() or a sleep of up to @max_us, half and half
 * (always a sleep, of up to 10 * @max_us, at the rare windows).
 * Replaces any earlier setting; threads pick the new seed up at their next
 * point.
 *
 * Context: Any; safe while other threads run through points.
 * Return: 0, -EINVAL (bad argument), -EOPNOTSUPP (no race points in this
 *         build).
 */
SHR_API int shr_race_delays_enable(uint64_t mask, uint64_t seed, unsigned int max_us,
				   unsigned int permille);

/* Every point. */
#define SHR_RACE_ALL ((UINT64_C(1) << SHR_RACE_NR) - 1)

/**
 * shr_race_delays_disable() - no more delays (counters and hooks stay).
 *
 * Context: Any.
 */
SHR_API void shr_race_delays_disable(void);

/**
 * shr_race_delays_from_env() - arm delays from SHR_RACE_DELAYS, whose value
 * is "max_us,permille[,seed]" (e.g. "200,20"), or "0" to keep them off.
 * @default_seed: the seed when the variable names none.
 *
 * Context: Any.
 * Return: 1 (armed), 0 (variable unset or "0"), -EINVAL (malformed),
 *         -EOPNOTSUPP (no race points in this build).
 */
SHR_API int shr_race_delays_from_env(uint64_t default_seed);

/**
 * shr_race_delays_enabled() - whether delays are armed now.
 *
 * Context: Any.
 * Return: true while armed.
 */
SHR_API bool shr_race_delays_enabled(void);

/**
 * shr_race_hits() - how often point @p was reached since the last reset.
 * @p: the point.
 *
 * Context: Any (a relaxed snapshot).
 * Return: the count; 0 for an unknown point or a build without points.
 */
SHR_API unsigned long shr_race_hits(enum shr_race_point p);

/**
 * shr_race_hits_reset() - zero every hit counter.
 *
 * Context: Any; hits racing the reset may or may not be counted.
 */
SHR_API void shr_race_hits_reset(void);

/**
 * shr_race_point_name() - the point's name without the SHR_RACE_ prefix.
 * @p: the point.
 *
 * Context: Any.
 * Return: a static string; "?" for an unknown point.
 */
SHR_API const char *shr_race_point_name(enum shr_race_point p);

/**
 * shr_race_point_reachable() - whether a host made with @params can reach
 * @p.
 * @p:      the point.
 * @params: the host's parameters (design, kmem).
 *
 * The design-specific points (indexed marks, flat's growth fold,
 * array-ondemand's install lock, array growth, bit-walk points of designs
 * with bits) are reachable only under their designs; per-cgroup list_lru
 * lists (their publication, reparenting, indexed's unit removal with the
 * last list) only with kmem on; the others always. Whether a given run
 * reaches a reachable point still depends on its work.
 *
 * Context: Any.
 * Return: true when @p lies on a path such a host has.
 */
SHR_API bool shr_race_point_reachable(enum shr_race_point p, const struct shr_host_params *params);

/*
 * A test hook: runs at point @p in whichever thread reaches it, before any
 * delay. It may block, but must not wait for an RCU grace period (the
 * point may be inside a read-side section) nor take a lock the reaching
 * thread may hold (see the point's comment).
 */
typedef void (*shr_race_hook_fn)(enum shr_race_point p, void *arg);

/**
 * shr_race_set_hook() - hang @fn(@p, @arg) on point @p (NULL removes it).
 * @p:   the point.
 * @fn:  the hook, or NULL.
 * @arg: its argument.
 *
 * Context: Any; a thread already inside the old hook finishes it.
 * Return: 0, -EINVAL (unknown point), -EOPNOTSUPP (no race points).
 */
SHR_API int shr_race_set_hook(enum shr_race_point p, shr_race_hook_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_RACE_H */
