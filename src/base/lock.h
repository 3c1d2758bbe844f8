/* SPDX-License-Identifier: MIT */
/*
 * Locks with ranks: the lock order of docs/design/ARCHITECTURE.md as data, checked
 * at run time in debug builds (-Ddebug_checks=true: the ASan, TSan and fuzz
 * builds of `make check`), like jemalloc's witness and the kernel's lockdep.
 *
 * Every library lock belongs to a class (enum shr_lock_class), and every
 * class has a rank. A thread may take a lock only if every lock it already
 * holds ranks strictly below it; the one exception is a lock taken with
 * *_nested() while the thread holds another lock of the same class (the
 * list_lru reparenting's child-then-parent list locks). Leaf locks take no
 * other lock at all.
 *
 * In debug builds each thread keeps the locks it holds (at most
 * SHR_LOCK_MAX_HELD) and a lock taken out of order aborts with both locks'
 * names, before it can deadlock; shr_lock_held() answers whether this thread
 * holds a lock, so shr_lock_assert_held() backs every "Context: ... held"
 * of the code, and shr_rcu_dereference_protected() (rcu.h) takes it as its
 * condition. In the other builds the wrappers are the pthread calls, the
 * lock types are the pthread types alone (no field is added, so no
 * modelled structure changes size), and the checks compile to nothing.
 *
 * XArrays keep a plain pthread_mutex_t (struct shr_xarray is public and
 * embeddable: its layout is the same in every build); xarray.c reports its
 * lock to the checker with shr_lockdep_acquire()/release() and the class
 * SHR_LOCK_XA.
 */
#ifndef SHR_LOCK_H
#define SHR_LOCK_H

#include <pthread.h>
#include <stdbool.h>

#include "debug.h"

/*
 * The classes, in rank order: a lock may be taken while holding locks of
 * earlier classes only (docs/design/ARCHITECTURE.md's lock order, levels 0-7).
 * The leaves at the end take nothing, not even another leaf.
 */
enum shr_lock_class {
	SHR_LOCK_RCU_RUNNER,  /* 0: rcu.c's batch runner; callbacks run under it */
	SHR_LOCK_CGROUP,      /* 1: host->cgroup_mutex */
	SHR_LOCK_LIST_LRUS,   /* 2: host->list_lrus_mutex */
	SHR_LOCK_SHRINKER,    /* 3: host->shrinker_mutex */
	SHR_LOCK_DESIGN,      /* 4: design locks (array-ondemand's install lock) */
	SHR_LOCK_LRU_LIST,    /* 5: list_lru_one.lock; child then parent nest */
	SHR_LOCK_XA,          /* 6: any XArray's xa_lock */
	SHR_LOCK_SLAB_CACHES, /* 7: slab: the allocator's cache list, */
	SHR_LOCK_SLAB_NODE,   /*    a cache's node lock, */
	SHR_LOCK_PAGE_NODE,   /*    page allocator: a node's free lists, */
	SHR_LOCK_PAGE_CHUNK,  /*    its chunk table */
	/* Leaves. */
	SHR_LOCK_RCU_QUEUE,   /* rcu.c's callback queue (shr_call_rcu() runs under any lock) */
	SHR_LOCK_COMPLETION,  /* a completion's mutex */
	SHR_LOCK_SLAB_FAULT,  /* slab: fault injection rules */
	SHR_LOCK_SLAB_VM,     /* slab: kvmalloc's vmalloc record */
	SHR_LOCK_RECLAIMER,   /* pressure/reclaimer.c: a reclaimer's sources and statistics */
	SHR_NR_LOCK_CLASSES,
};

/* The first leaf class. */
#define SHR_LOCK_FIRST_LEAF SHR_LOCK_RCU_QUEUE

/* Most locks one thread holds at once (debug builds). */
#define SHR_LOCK_MAX_HELD 16

/* A mutex of a class. Sync: itself. */
struct shr_mutex {
	pthread_mutex_t mutex;
#if SHR_DEBUG_CHECKS
	enum shr_lock_class class; /* Sync: immutable after init */
#endif
};

/* A spinning lock of a class (held for a few instructions). Sync: itself. */
struct shr_spinlock {
	pthread_spinlock_t spin;
#if SHR_DEBUG_CHECKS
	enum shr_lock_class class; /* Sync: immutable after init */
#endif
};

#if !SHR_DEBUG_CHECKS
/* The wrappers add nothing to modelled structures outside debug builds. */
_Static_assert(sizeof(struct shr_mutex) == sizeof(pthread_mutex_t), "shr_mutex is the mutex");
_Static_assert(sizeof(struct shr_spinlock) == sizeof(pthread_spinlock_t),
	       "shr_spinlock is the spinlock");
#endif

/* Static initialiser of a struct shr_mutex of class @cls. */
#if SHR_DEBUG_CHECKS
#define SHR_MUTEX_INITIALIZER(cls) { PTHREAD_MUTEX_INITIALIZER, (cls) }
#else
#define SHR_MUTEX_INITIALIZER(cls) { PTHREAD_MUTEX_INITIALIZER }
#endif

#if SHR_DEBUG_CHECKS
/*
 * The checker. acquire: record that this thread is about to take @lock of
 * @cls (@nested: it may hold one of the same class); aborts, naming both
 * locks, if a lock it holds ranks at or above @cls. release: forget @lock
 * (aborts if this thread does not hold it). held: whether it holds @lock.
 * Context: any thread.
 */
void shr_lockdep_acquire(const void *lock, enum shr_lock_class cls, bool nested);
void shr_lockdep_release(const void *lock);
bool shr_lockdep_held(const void *lock);
/* Abort with @what unless this thread holds @lock. */
void shr_lockdep_assert_held(const void *lock, const char *what, const char *file, int line);
#else
static inline void shr_lockdep_acquire(const void *lock, enum shr_lock_class cls, bool nested)
{
	(void)lock;
	(void)cls;
	(void)nested;
}

static inline void shr_lockdep_release(const void *lock)
{
	(void)lock;
}
#endif

/*
 * shr_lock_held() - whether this thread holds @lock (a struct shr_mutex,
 * struct shr_spinlock or an XArray's xa_lock). Always true in builds
 * without the checker, so it can only be used to assert.
 */
#if SHR_DEBUG_CHECKS
#define shr_lock_held(lock) shr_lockdep_held(lock)
#define shr_lock_assert_held(lock) shr_lockdep_assert_held((lock), #lock, __FILE__, __LINE__)
#else
#define shr_lock_held(lock) ((void)(lock), true)
#define shr_lock_assert_held(lock) ((void)(lock))
#endif

static inline void shr_mutex_init(struct shr_mutex *m, enum shr_lock_class cls)
{
	pthread_mutex_init(&m->mutex, NULL);
#if SHR_DEBUG_CHECKS
	m->class = cls;
#else
	(void)cls;
#endif
}

static inline void shr_mutex_destroy(struct shr_mutex *m)
{
	pthread_mutex_destroy(&m->mutex);
}

static inline void shr_mutex_lock(struct shr_mutex *m)
{
#if SHR_DEBUG_CHECKS
	shr_lockdep_acquire(m, m->class, false);
#endif
	pthread_mutex_lock(&m->mutex);
}

static inline void shr_mutex_unlock(struct shr_mutex *m)
{
	shr_lockdep_release(m);
	pthread_mutex_unlock(&m->mutex);
}

/* pthread_cond_wait() on @m (held; still held, as far as the checker
 * knows, while the thread waits). */
static inline void shr_mutex_cond_wait(struct shr_mutex *m, pthread_cond_t *cond)
{
	pthread_cond_wait(cond, &m->mutex);
}

static inline void shr_spin_init(struct shr_spinlock *l, enum shr_lock_class cls)
{
	pthread_spin_init(&l->spin, PTHREAD_PROCESS_PRIVATE);
#if SHR_DEBUG_CHECKS
	l->class = cls;
#else
	(void)cls;
#endif
}

static inline void shr_spin_destroy(struct shr_spinlock *l)
{
	pthread_spin_destroy(&l->spin);
}

static inline void shr_spin_lock(struct shr_spinlock *l)
{
#if SHR_DEBUG_CHECKS
	shr_lockdep_acquire(l, l->class, false);
#endif
	pthread_spin_lock(&l->spin);
}

/* Take @l while holding another lock of its class (one level). */
static inline void shr_spin_lock_nested(struct shr_spinlock *l)
{
#if SHR_DEBUG_CHECKS
	shr_lockdep_acquire(l, l->class, true);
#endif
	pthread_spin_lock(&l->spin);
}

static inline void shr_spin_unlock(struct shr_spinlock *l)
{
	shr_lockdep_release(l);
	pthread_spin_unlock(&l->spin);
}

#endif /* SHR_LOCK_H */
