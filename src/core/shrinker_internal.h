/* SPDX-License-Identifier: MIT */
/*
 * Internals of shrinkers (shrinker.c) that other modules use: the shrinker
 * structure, the pin protocol (try_get/put) and the debug-build record of
 * the callbacks a thread is inside of. Life cycle, states and ordering: the
 * design comment of shrinker.c.
 */
#ifndef SHR_SHRINKER_INTERNAL_H
#define SHR_SHRINKER_INTERNAL_H

#include <stdatomic.h>

#include <shrinker/shrinker.h>

#include "completion.h"
#include "debug.h"
#include "host_state.h"
#include "rcu.h"
#include "rculist.h"
#include "shrinker_info.h"

/* internal state of a shrinker; the public part comes first */
struct shr_shrinker_impl {
	struct shr_shrinker pub;
	/* Sync: immutable after alloc. */
	struct shr_host *host;
	unsigned int flags;   /* SHR_SHRINKER_* as requested */
	int id;               /* memcg-aware id, -1 otherwise */
	/* SHR_SHRINKER_MAGIC while alive, then SHR_SHRINKER_MAGIC_FREED in the
	 * host's quarantine. Sync: written at alloc (before the handle is
	 * returned) and by free under shrinker_mutex; read unlocked by the
	 * entry points (a call racing the free of its own handle is misuse). */
	unsigned long magic;
	char *name;           /* kmalloc'd, or NULL */
	int debugfs_id;       /* from host->debugfs_ida, -1 before register */
	/* 1 while registered and not being freed, plus in-flight users.
	 * Sync: atomic; 0 -> 1 only in register. */
	atomic_long refcount;
	/* Set once, by shr_shrinker_free() before it drops the registration's
	 * reference: tells a shrinker going away (its bits are stale) from one
	 * not armed yet (its bits stand for objects added before register).
	 * Sync: atomic, relaxed: a walker that reads false for a dying
	 * shrinker only keeps its stale bit one walk longer. */
	atomic_bool dying;
	struct shr_completion done;
	/* Sync: shrinker_mutex. */
	bool registered;
	bool ever_registered;
	/* Link in host->shrinker_list. Sync: RCU; writers hold shrinker_mutex. */
	struct shr_rcu_list list;
	/* Link in host->root_walk_list unless the root's bits find it
	 * (shr_shrinker_root_indexed()). Sync: as @list. */
	struct shr_rcu_list root_walk;
	/* Non-memcg-aware deferred work: 1 slot, or nr_nodes if NUMA-aware.
	 * NULL for memcg-aware shrinkers. Sync: atomic elements. */
	atomic_long *nr_deferred;
	/* The design's per-shrinker data (e.g. a second id, root counters).
	 * Sync: written under shrinker_mutex (while the shrinker's id may
	 * already be found by a walker); read atomically. */
	void *_Atomic info_data;
	/* Counters. Sync: atomic. */
	atomic_ulong stat_calls;
	atomic_ulong stat_scanned;
	atomic_ulong stat_freed;
	struct rcu_head rcu;
};

#define SHR_SHRINKER_MAGIC 0x5348524b52303031UL /* "SHRKR001" */
/* A freed shrinker waiting in the host's quarantine ("SHRKRFRE"). */
#define SHR_SHRINKER_MAGIC_FREED 0x5348524b52465245UL

static inline struct shr_shrinker_impl *to_impl(struct shr_shrinker *s)
{
	return shr_container_of(s, struct shr_shrinker_impl, pub);
}

bool shr_shrinker_try_get(struct shr_shrinker_impl *s);
/* Whether shr_shrinker_free() has started on @s (see the field). Context:
 * any; @s reachable (RCU or pinned). */
static inline bool shr_shrinker_dying(const struct shr_shrinker_impl *s)
{
	return atomic_load_explicit(&s->dying, memory_order_relaxed);
}
void shr_shrinker_put(struct shr_shrinker_impl *s);
/* Give every quarantined shrinker back (after a grace period). Host
 * destroy, no other user of the host. */
void shr_shrinker_quarantine_flush(struct shr_host *host);

/*
 * Debug builds: the count/scan calls this thread is inside of, innermost
 * first, so that shr_shrinker_free() from a shrinker's own callback (which
 * would wait for itself forever) is reported. A frame lives on the stack of
 * the caller of the callback. Sync: thread-local.
 */
struct shr_callback_frame {
	const struct shr_shrinker_impl *s;
	struct shr_callback_frame *outer;
};
extern _Thread_local struct shr_callback_frame *shr_callback_top;

/* s->pub.count_objects(), recorded on this thread's frames in debug builds. */
static inline unsigned long shr_call_count(struct shr_shrinker_impl *s,
					   struct shr_shrink_control *sc)
{
	struct shr_callback_frame frame = { s, shr_callback_top };
	unsigned long ret;

	if (!SHR_DEBUG_CHECKS)
		return s->pub.count_objects(&s->pub, sc);
	shr_callback_top = &frame;
	ret = s->pub.count_objects(&s->pub, sc);
	shr_callback_top = frame.outer;
	return ret;
}

/* s->pub.scan_objects(), likewise. */
static inline unsigned long shr_call_scan(struct shr_shrinker_impl *s,
					  struct shr_shrink_control *sc)
{
	struct shr_callback_frame frame = { s, shr_callback_top };
	unsigned long ret;

	if (!SHR_DEBUG_CHECKS)
		return s->pub.scan_objects(&s->pub, sc);
	shr_callback_top = &frame;
	ret = s->pub.scan_objects(&s->pub, sc);
	shr_callback_top = frame.outer;
	return ret;
}

/* The deferred slot index of @s for node @nid (reclaim and the getters). */
static inline int shr_deferred_nid(const struct shr_shrinker_impl *s, int nid)
{
	return (s->flags & SHR_SHRINKER_NUMA_AWARE) ? nid : 0;
}

/* Whether global reclaim finds @s through the root's bits rather than the
 * root walk list. Context: any; both inputs are immutable. */
static inline bool shr_shrinker_root_indexed(const struct shr_shrinker_impl *s)
{
	return (s->flags & SHR_SHRINKER_ROOT_BITS) && s->host->design->info.root_bits;
}

/*
 * shr_shrinker_lru_binding() - what a list_lru bound to @shrinker takes
 * from it (list_lru init): the shrinker's memcg-aware id (-1: none),
 * whether the list_lru keeps per-cgroup lists (memcg-aware shrinker, kmem
 * on, id held), and whether its root lists set the root's bits
 * (shr_shrinker_root_indexed()). A NULL @shrinker binds nothing.
 * Context: any; @shrinker allocated and not freed.
 * Return: 0, or -EINVAL for a stale handle or another host's shrinker
 * (the outputs then say "nothing").
 */
int shr_shrinker_lru_binding(struct shr_host *host, struct shr_shrinker *shrinker, int *id,
			     bool *memcg_aware, bool *root_bits);

#endif /* SHR_SHRINKER_INTERNAL_H */
