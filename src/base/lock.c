/* SPDX-License-Identifier: MIT */
/*
 * The lock-order checker of lock.h (debug builds).
 *
 * Each thread keeps the locks it holds in a small array (its own, so no
 * synchronisation): the lock's address and class, in the order taken.
 * Before a lock is taken, every held lock is compared with it: a held lock
 * of a later class, or of the same class unless the new one is taken
 * nested (and no two of that class are held yet), or any held leaf, is an
 * order violation; so is taking a lock this thread already holds. The
 * report names both locks and aborts, so a test can expect it
 * (tests/unit/base/test_lock.c) and an inversion never gets to deadlock.
 * Release removes the entry wherever it is (locks need not be released in
 * reverse order).
 */
#include <stdio.h>
#include <stdlib.h>

#include "lock.h"

#if SHR_DEBUG_CHECKS

static const char *const class_names[SHR_NR_LOCK_CLASSES] = {
	[SHR_LOCK_RCU_RUNNER] = "rcu callback runner lock",
	[SHR_LOCK_CGROUP] = "host->cgroup_mutex",
	[SHR_LOCK_LIST_LRUS] = "host->list_lrus_mutex",
	[SHR_LOCK_SHRINKER] = "host->shrinker_mutex",
	[SHR_LOCK_DESIGN] = "design lock (array-ondemand install lock)",
	[SHR_LOCK_LRU_LIST] = "list_lru_one.lock",
	[SHR_LOCK_XA] = "xa_lock",
	[SHR_LOCK_SLAB_CACHES] = "slab caches_lock",
	[SHR_LOCK_SLAB_NODE] = "slab cache node lock",
	[SHR_LOCK_PAGE_NODE] = "page allocator node lock",
	[SHR_LOCK_PAGE_CHUNK] = "page allocator chunk lock",
	[SHR_LOCK_RCU_QUEUE] = "rcu callback queue lock",
	[SHR_LOCK_COMPLETION] = "completion lock",
	[SHR_LOCK_SLAB_FAULT] = "slab fault_lock",
	[SHR_LOCK_SLAB_VM] = "slab vm_lock",
	[SHR_LOCK_RECLAIMER] = "reclaimer->lock",
};

/* Name of @cls, as the checker's messages print it. */
static const char *lock_class_name(enum shr_lock_class cls)
{
	if ((unsigned int)cls >= SHR_NR_LOCK_CLASSES)
		return "?";
	return class_names[cls];
}

struct held_lock {
	const void *lock;
	enum shr_lock_class class;
};

/* The locks this thread holds, oldest first. Sync: thread-local. */
static _Thread_local struct held_lock held[SHR_LOCK_MAX_HELD];
static _Thread_local int nr_held;

static void order_violation(const char *what, enum shr_lock_class taking,
			    const struct held_lock *h)
{
	fprintf(stderr,
		"libshrinker BUG: lock order violation: taking %s (class %d) while holding %s "
		"(class %d): %s\n",
		lock_class_name(taking), (int)taking, lock_class_name(h->class),
		(int)h->class, what);
	fflush(stderr);
	abort();
}

void shr_lockdep_acquire(const void *lock, enum shr_lock_class cls, bool nested)
{
	int same = 0;

	SHR_BUG_ON((unsigned int)cls >= SHR_NR_LOCK_CLASSES);
	for (int i = 0; i < nr_held; i++) {
		const struct held_lock *h = &held[i];

		if (h->lock == lock)
			order_violation("this thread holds it already", cls, h);
		if (h->class >= SHR_LOCK_FIRST_LEAF)
			order_violation("nothing may be taken under a leaf lock", cls, h);
		if (h->class > cls)
			order_violation("it ranks below the held lock", cls, h);
		if (h->class == cls && (!nested || same++))
			order_violation(nested ? "only one level of nesting" :
						 "same class, not taken nested",
					cls, h);
	}
	if (nr_held == SHR_LOCK_MAX_HELD)
		SHR_BUG("a thread holds more than SHR_LOCK_MAX_HELD locks");
	held[nr_held].lock = lock;
	held[nr_held].class = cls;
	nr_held++;
}

void shr_lockdep_release(const void *lock)
{
	for (int i = nr_held - 1; i >= 0; i--) {
		if (held[i].lock != lock)
			continue;
		for (int j = i + 1; j < nr_held; j++)
			held[j - 1] = held[j];
		nr_held--;
		return;
	}
	SHR_BUG("unlocking a lock this thread does not hold");
}

bool shr_lockdep_held(const void *lock)
{
	for (int i = 0; i < nr_held; i++)
		if (held[i].lock == lock)
			return true;
	return false;
}

void shr_lockdep_assert_held(const void *lock, const char *what, const char *file, int line)
{
	if (shr_lockdep_held(lock))
		return;
	fprintf(stderr, "libshrinker BUG at %s:%d: %s is not held by this thread\n", file, line,
		what);
	fflush(stderr);
	abort();
}

#endif /* SHR_DEBUG_CHECKS */
