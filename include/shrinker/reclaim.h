/* SPDX-License-Identifier: MIT */
/*
 * Reclaim: the callers of the shrinkers.
 *
 * shr_shrink_slab() is the kernel's shrink_slab(): for the root cgroup the
 * global walk over every registered shrinker; for another cgroup the walk
 * over the shrinkers whose bit it has set (what a design keeps). Each call
 * of a shrinker goes through do_shrink_slab(), whose arithmetic (deferred
 * work, priority, batches) is the kernel's to the integer.
 */
#ifndef SHRINKER_RECLAIM_H
#define SHRINKER_RECLAIM_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;

/**
 * shr_shrink_slab() - shrink_slab(gfp, nid, memcg, priority).
 * @host:     the host.
 * @nid:      node, 0..nr_nodes-1.
 * @memcg:    cgroup of @host (NULL = the root).
 * @priority: 0..SHR_DEF_PRIORITY.
 * @freed:    receives the objects freed.
 *
 * A cgroup that is not online frees nothing (0), as in the kernel.
 * Context: Registered thread, not inside an RCU section or a shrinker callback.
 * Return: 0, -EINVAL (NULL host/freed, node or priority out of range,
 *         foreign cgroup).
 */
SHR_API int shr_shrink_slab(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg,
			    int priority, unsigned long *freed);

/**
 * shr_drop_caches() - echo 2 > /proc/sys/vm/drop_caches: per pass, every
 * cgroup (pre-order from the root) on every node at priority 0; another pass
 * while (freed >> shift++) > 1.
 * @host:   the host.
 * @freed:  receives the total freed (may be NULL).
 * @passes: receives the number of passes (may be NULL).
 *
 * Context: Registered thread.
 * Return: 0, -EINVAL.
 */
SHR_API int shr_drop_caches(struct shr_host *host, unsigned long *freed, unsigned int *passes);

/**
 * shr_mem_cgroup_reclaim() - memory.reclaim in objects: shrink @memcg's
 * subtree on every node, priority 12 down to 0, until @nr_objects have been
 * freed or priority 0 is done.
 * @memcg:      the cgroup whose subtree is shrunk.
 * @nr_objects: the target, in objects freed.
 * @freed:      receives the objects freed (may be NULL).
 *
 * Context: Registered thread; @memcg pinned.
 * Return: 0 (target met), -EAGAIN (priority 0 done, target not met),
 *         -EINVAL (NULL, zero target), -ENOENT (@memcg is offline).
 */
SHR_API int shr_mem_cgroup_reclaim(struct shr_mem_cgroup *memcg, unsigned long nr_objects,
				   unsigned long *freed);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_RECLAIM_H */
