/* SPDX-License-Identifier: MIT */
/*
 * Internal entry points of reclaim.c and debugfs.c, and the internal
 * helpers they need from other modules.
 *
 * Everything reclaim.c/debugfs.c use from other modules is already declared
 * in host_internal.h / shrinker_info.h (shr_shrinker_try_get/put,
 * host->info_ops) or in the public headers (cgroup iterator, from_ino), so
 * the "to be provided by memcg.c/shrinker.c" section below is empty.
 */
#ifndef SHR_RECLAIM_INTERNAL_H
#define SHR_RECLAIM_INTERNAL_H

#include "host_internal.h"

/**
 * shr_shrink_slab_nocheck() - shrink_slab() without argument checks: the
 * global walk for NULL or the root, the bit-driven walk otherwise.
 * @host:     the host.
 * @nid:      node, in range.
 * @memcg:    cgroup of @host (pinned) or NULL.
 * @priority: 0..SHR_DEF_PRIORITY.
 *
 * Context: Registered thread, not inside an RCU section or a shrinker
 *          callback.
 * Return: objects freed (a cgroup that is not online frees 0).
 */
unsigned long shr_shrink_slab_nocheck(struct shr_host *host, int nid,
				      struct shr_mem_cgroup *memcg, int priority);

/* To be provided by memcg.c/shrinker.c: nothing so far. */

#endif /* SHR_RECLAIM_INTERNAL_H */
