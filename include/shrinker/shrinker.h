/* SPDX-License-Identifier: MIT */
/*
 * Shrinkers: count/scan callbacks through which caches give memory back.
 *
 * Life cycle, as in Linux 6.7+:
 *   shr_shrinker_alloc()    zeroed shrinker, seeks = 2, batch = 0 (= 128);
 *                           a MEMCG_AWARE one gets the lowest free id now
 *                           (and may grow shrinker_nr_max). Not yet visible
 *                           to reclaim.
 *   set the public fields   count_objects, scan_objects, batch, seeks,
 *                           private_data; create list_lrus bound to it.
 *   shr_shrinker_register() appended to the host's shrinker list; reclaim
 *                           may call it from now on. Objects added
 *                           before (their bits set by list_lru or
 *                           shr_set_shrinker_bit()) keep their bits: a
 *                           cgroup walk skips a shrinker not registered
 *                           yet without clearing its bit (the kernel
 *                           clears it), so they are reclaimed once it is.
 *   shr_shrinker_free()     waits for every reclaim call in flight, releases
 *                           the id, frees after a grace period.
 *
 * Reclaim walks run without the registry mutex: a walker pins a shrinker
 * with a reference taken under RCU (increment-unless-zero); free drops the
 * registration's reference and waits for the count to reach zero.
 */
#ifndef SHRINKER_SHRINKER_H
#define SHRINKER_SHRINKER_H

#include <stdio.h>

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;

/* count_objects: no objects at all (the shrinker's bit may be cleared). */
#define SHR_SHRINK_EMPTY (~0UL - 1)
/* scan_objects: stop this reclaim context now. */
#define SHR_SHRINK_STOP (~0UL)
/* Objects per scan call when batch is 0. */
#define SHR_SHRINK_BATCH 128
#define SHR_DEFAULT_SEEKS 2
/* Reclaim priorities run from SHR_DEF_PRIORITY down to 0. */
#define SHR_DEF_PRIORITY 12

/* Shrinker flags (the kernel's values). */
#define SHR_SHRINKER_NUMA_AWARE (1u << 2)
#define SHR_SHRINKER_MEMCG_AWARE (1u << 3)
#define SHR_SHRINKER_NONSLAB (1u << 4)
/*
 * Ours, not the kernel's: the shrinker reports its root objects through the
 * root's bits, as it does for every other cgroup (its list_lrus do it on
 * their own; objects kept elsewhere need shr_set_shrinker_bit() on the
 * root). Designs that index the root (indexed) then call it in global
 * reclaim only on the nodes where that bit is set; the others ignore the
 * flag and call it always, as the kernel does. Requires
 * SHR_SHRINKER_MEMCG_AWARE. Set it only if count_objects counts nothing
 * but objects reported that way (a superblock whose filesystem adds
 * private objects to the count must not).
 */
#define SHR_SHRINKER_ROOT_BITS (1u << 8)

/**
 * struct shr_shrink_control - one call's context, built by reclaim.
 * @gfp_mask:   allocation context of the reclaim.
 * @nid:        node being reclaimed (passed unchanged to every shrinker).
 * @nr_to_scan: objects to scan in this call; the callee may consume it.
 * @nr_scanned: preset to @nr_to_scan; the callee may set what it scanned.
 * @memcg:      cgroup being reclaimed (the root for global reclaim).
 */
struct shr_shrink_control {
	shr_gfp_t gfp_mask;
	int nid;
	unsigned long nr_to_scan;
	unsigned long nr_scanned;
	struct shr_mem_cgroup *memcg;
};

struct shr_shrinker;

typedef unsigned long (*shr_count_objects_fn)(struct shr_shrinker *shrinker,
					      struct shr_shrink_control *sc);
typedef unsigned long (*shr_scan_objects_fn)(struct shr_shrinker *shrinker,
					     struct shr_shrink_control *sc);

/**
 * struct shr_shrinker - the public part of a shrinker.
 * @count_objects: objects that could be freed, 0 (skip now) or
 *                 SHR_SHRINK_EMPTY. Must not sleep long; may run under RCU
 *                 (debugfs count).
 * @scan_objects:  try to free up to sc->nr_to_scan; return objects freed or
 *                 SHR_SHRINK_STOP.
 * @batch:         objects per scan call; 0 = SHR_SHRINK_BATCH.
 * @seeks:         cost to recreate an object; 0 ignores priority.
 * @private_data:  the owner's.
 *
 * Only shr_shrinker_alloc() creates one; set the fields before
 * shr_shrinker_register() and do not change them afterwards. Never embed or
 * copy this struct: private state follows it.
 */
struct shr_shrinker {
	shr_count_objects_fn count_objects;
	shr_scan_objects_fn scan_objects;
	long batch;
	int seeks;
	void *private_data;
};

/**
 * shr_shrinker_alloc() - allocate a shrinker.
 * @host:  the host.
 * @flags: SHR_SHRINKER_NUMA_AWARE | _MEMCG_AWARE | _NONSLAB | _ROOT_BITS,
 *         or 0.
 * @name:  debug name (copied), e.g. "sb-tmpfs"; NULL for none.
 * @out:   the shrinker.
 *
 * Context: Registered thread; takes the registry mutex. Blocks (a new id
 *          past shrinker_nr_max grows every cgroup's bookkeeping, as the
 *          design does it).
 * Return: 0, -EINVAL (NULL host/out, unknown flags, NONSLAB or ROOT_BITS
 *         without MEMCG_AWARE), -ENOSPC (no id left, in the shrinker id
 *         space or, with nonslab_ids, in the second one), -ENOMEM (nothing
 *         changed).
 */
SHR_API SHR_MUST_CHECK int shr_shrinker_alloc(struct shr_host *host, unsigned int flags,
					      const char *name, struct shr_shrinker **out);

/**
 * shr_shrinker_register() - make the shrinker visible to reclaim.
 * @shrinker: the shrinker, from shr_shrinker_alloc().
 *
 * Objects added before registration (to a list_lru bound to the shrinker,
 * or announced with shr_set_shrinker_bit()):
 *  - the bit of their cgroup and node is set as usual: a memcg-aware
 *    shrinker has its id from shr_shrinker_alloc() on;
 *  - reclaim never calls a shrinker that is not registered;
 *  - a reclaim of that cgroup and node that runs before registration finds
 *    the bit, cannot pin the shrinker and KEEPS the bit, because the id is
 *    owned by a shrinker that is not armed yet. This is a deliberate
 *    difference: the kernel's shrink_slab_memcg() clears it, and the objects
 *    are then not found through that cgroup until its list goes from 0 to 1
 *    again (docs/design/RACES.md, R2). Here they are found once it is registered;
 *  - root objects are found by global reclaim once the shrinker is
 *    registered (under indexed, the root's bit of a SHR_SHRINKER_ROOT_BITS
 *    shrinker is kept for it);
 *  - the nobitmap design keeps no bits: its cgroup reclaim calls every
 *    registered memcg-aware shrinker and finds them in any case.
 * Registering before the first object can be added, as the kernel's users
 * do, avoids the question altogether.
 *
 * Context: Registered thread; takes the registry mutex.
 * Return: 0, -EINVAL (NULL, no count/scan callback, negative batch or
 *         seeks, not from shr_shrinker_alloc), -EBUSY (already registered).
 */
SHR_API SHR_MUST_CHECK int shr_shrinker_register(struct shr_shrinker *shrinker);

/**
 * shr_shrinker_free() - unregister (if registered) and free. NULL is a no-op.
 * @shrinker: the shrinker.
 *
 * Waits until no reclaim call of this shrinker is in flight. Does not clear
 * its bits or per-cgroup deferred counts (the kernel's behaviour: a later
 * shrinker that gets the same id inherits them), except in the indexed
 * design, which resets them (documented difference). list_lrus bound to it
 * must be destroyed after this call, as the kernel's users do.
 *
 * Misuse it reports (one line on stderr, "libshrinker: API misuse: ...";
 * builds with -Ddebug_checks=true then abort, the others ignore the call):
 *  - a stale handle: the shrinker was freed before. The host keeps the last
 *    32 freed shrinkers back from the allocator, so a handle used again
 *    within 32 later frees of that host is recognised even where a new
 *    shrinker would otherwise have taken its memory (the other functions
 *    refuse it with -EINVAL); an older one is undefined behaviour, as is
 *    any pointer that is not a shrinker;
 *  - a call from inside a count/scan callback of this same shrinker (it
 *    would wait for itself): detected in debug builds only; the others
 *    block forever, as the kernel's shrinker_free() would.
 *
 * Context: Registered thread, not inside any callback of this shrinker and
 *          not inside an RCU read-side section. Blocks.
 */
SHR_API void shr_shrinker_free(struct shr_shrinker *shrinker);

/**
 * shr_shrinker_id() - the memcg-aware id.
 * @shrinker: the shrinker.
 *
 * Context: Any.
 * Return: the id, or -1 (not memcg-aware).
 */
SHR_API int shr_shrinker_id(const struct shr_shrinker *shrinker);

/**
 * shr_shrinker_flags() - the flags it runs with.
 * @shrinker: the shrinker.
 *
 * Context: Any.
 * Return: the SHR_SHRINKER_* flags.
 */
SHR_API unsigned int shr_shrinker_flags(const struct shr_shrinker *shrinker);

/**
 * struct shr_shrinker_stats - per-shrinker counters.
 * @calls:    do_shrink_slab calls that reached count_objects.
 * @scanned:  objects reported scanned.
 * @freed:    objects freed (sum of scan_objects results).
 * @deferred: deferred work now held for it (all nodes of the root and of
 *            every online cgroup: a dying cgroup's work was added to its
 *            parent's at offline, and one not yet online holds none): the
 *            sum of what shr_shrinker_nr_deferred() reports for each, >= 0,
 *            LONG_MAX if it would pass LONG_MAX.
 */
struct shr_shrinker_stats {
	unsigned long calls;
	unsigned long scanned;
	unsigned long freed;
	long deferred;
};

/**
 * shr_shrinker_get_stats() - read the counters of a shrinker (registered or
 * not).
 * @shrinker: the shrinker.
 * @out:      receives the counters.
 * Context: Registered thread; takes no lock but walks every cgroup. Safe
 *          while cgroups are created, brought online, taken offline and
 *          released: a cgroup's bookkeeping is initialised when it is
 *          allocated, before the walk can find it.
 * Return: 0 or -EINVAL (NULL @shrinker or @out, freed shrinker).
 */
SHR_API int shr_shrinker_get_stats(struct shr_shrinker *shrinker, struct shr_shrinker_stats *out);

/**
 * shr_shrinker_nr_deferred() - deferred work held for (@memcg, @nid): the
 * memcg slot for memcg-aware shrinkers, the node slot (or slot 0 when not
 * NUMA-aware) otherwise; @memcg NULL means the root.
 * @shrinker: the shrinker.
 * @memcg:    the cgroup (NULL: the root).
 * @nid:      the node.
 *
 * Counts above LONG_MAX / 2: reclaim keeps the kernel's arithmetic to the
 * integer, whose cap on deferred work (2 * freeable, a long) wraps below
 * zero for them, so the slot is left negative. No work is deferred then
 * (the next reclaim of the slot with a count below LONG_MAX / 2 scans
 * nothing in that call and leaves 0), and it is reported as 0: a count,
 * never to be mistaken for an error. The value
 * is clamped rather than returned through an out-parameter because a
 * negative slot has no other reading, and callers keep one signature.
 *
 * Context: Registered thread; @memcg pinned.
 * Return: the count (0..LONG_MAX), or -EINVAL (NULL or freed shrinker, @nid
 *         out of range, @memcg of another host).
 */
SHR_API long shr_shrinker_nr_deferred(struct shr_shrinker *shrinker, struct shr_mem_cgroup *memcg,
				      int nid);

/**
 * shr_set_shrinker_bit() - record that @memcg holds objects of @shrinker on
 * node @nid, for users that keep objects without a list_lru (the kernel's
 * set_shrinker_bit). Installs the cgroup's bookkeeping for the shrinker when
 * the design allocates it on demand. No-op for shrinkers that are not
 * memcg-aware, for designs without bits, and for the root unless the
 * shrinker has SHR_SHRINKER_ROOT_BITS and the design indexes the root.
 * @memcg:    the cgroup holding the objects.
 * @nid:      their node.
 * @shrinker: the shrinker that frees them.
 *
 * A shrinker that is allocated but not registered yet gets its bit like a
 * registered one (its id exists from shr_shrinker_alloc() on; the kernel's
 * set_shrinker_bit() does not look at the shrinker at all): 0 is returned.
 * What reclaim then does with that bit is described at
 * shr_shrinker_register().
 *
 * Context: Registered thread; @memcg pinned.
 * Return: 0, -EINVAL (NULL @memcg or @shrinker, a shrinker that was freed
 *         or is not one, @memcg and @shrinker of different hosts, @nid out
 *         of range), -ENOMEM (install failed; nothing set).
 */
SHR_API int shr_set_shrinker_bit(struct shr_mem_cgroup *memcg, int nid,
				 struct shr_shrinker *shrinker);

/*
 * Debugfs interface (CONFIG_SHRINKER_DEBUG) as functions writing the text
 * the kernel's files hold.
 */

/**
 * shr_shrinker_debugfs_name() - "<name>-<N>", N from a per-host IDA.
 * @shrinker: a registered shrinker.
 * @buf:      receives the name.
 * @len:      the size of @buf.
 * Context: Registered thread.
 * Return: 0, -EINVAL (NULL, or a shrinker that is not registered: only
 *         registered shrinkers have a debugfs directory), -ENOSPC (@len too
 *         small).
 */
SHR_API int shr_shrinker_debugfs_name(const struct shr_shrinker *shrinker, char *buf, size_t len);

/**
 * shr_shrinker_debugfs_count() - write the "count" file: one line per online
 * cgroup with a non-zero total, "<ino> <count-node0> <count-node1> ...".
 * @shrinker: a registered shrinker.
 * @out:      where to write.
 *
 * Context: Registered thread.
 * Return: 0, -EINVAL (NULL, or a shrinker that is not registered), -EIO
 *         (write error).
 */
SHR_API int shr_shrinker_debugfs_count(struct shr_shrinker *shrinker, FILE *out);

/**
 * shr_shrinker_debugfs_scan() - the "scan" file: parse
 * "<cgroup ino> <nid> <nr_to_scan>" and call scan_objects once.
 * @shrinker: a registered shrinker.
 * @input:    the line written to the file.
 *
 * Context: Registered thread.
 * Return: 0, -EINVAL (NULL, a shrinker that is not registered, parse error,
 *         bad node, non-zero ino for a shrinker that is not memcg-aware),
 *         -ENOENT (no online cgroup with that ino).
 */
SHR_API int shr_shrinker_debugfs_scan(struct shr_shrinker *shrinker, const char *input);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_SHRINKER_H */
