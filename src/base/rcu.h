/* SPDX-License-Identifier: MIT */
/*
 * The only file that includes liburcu. Everything else uses these wrappers,
 * so the RCU flavour (memb) and the ThreadSanitizer shim live in one place.
 *
 * Under TSan (SHR_TSAN, set by the build when b_sanitize has "thread"), the
 * installed liburcu 0.13 is not instrumented, so its happens-before edges are
 * invisible. The shim makes them visible:
 *   - pointer publication and dereference use __atomic release/acquire;
 *   - every read-side unlock releases a global token; every grace-period wait
 *     and every call_rcu callback acquires it, so a free after a grace period
 *     is ordered after every reader that could have seen the object.
 * Outside TSan the wrappers are plain liburcu calls.
 */
#ifndef SHR_RCU_INTERNAL_H
#define SHR_RCU_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * rcu_dereference() and rcu_assign_pointer() as liburcu's inline versions (a
 * load, a store and their barriers) rather than calls into the shared
 * library: liburcu offers this to code that is not LGPL for these small
 * functions only. Readers' lock and unlock stay calls (see
 * shr_rcu_read_lock_from()).
 */
#define URCU_INLINE_SMALL_FUNCTIONS 1
#include <urcu/urcu-memb.h>
#include <urcu/compiler.h>
#include <urcu/pointer.h>

#include <shrinker/rcu.h>

#include "debug.h"

/* Marks a pointer published under RCU (greppable, like the kernel's __rcu). */
#define SHR_RCU

#ifdef SHR_TSAN
#include <sanitizer/tsan_interface.h>
extern char shr_rcu_gp_token;
#define SHR_TSAN_RELEASE(addr) __tsan_release((void *)(addr))
#define SHR_TSAN_ACQUIRE(addr) __tsan_acquire((void *)(addr))
#define shr_rcu_dereference(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define shr_rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#else
#define SHR_TSAN_RELEASE(addr) ((void)0)
#define SHR_TSAN_ACQUIRE(addr) ((void)0)
#define shr_rcu_dereference(p) rcu_dereference(p)
#define shr_rcu_assign_pointer(p, v) rcu_assign_pointer(p, v)
#endif

/* Initialise an RCU pointer that no reader can see yet (or store NULL). */
#define SHR_RCU_INIT_POINTER(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)

/*
 * The RCU pointer @p as its updaters see it, without ordering (the lock
 * they hold provides it): the kernel's rcu_dereference_protected(p,
 * lockdep_is_held(&lock)). @held says whether this thread holds that lock
 * (shr_lock_held(), lock.h) and is checked in debug builds; pass true where
 * no reader can be left (a structure being freed).
 */
#define shr_rcu_dereference_protected(p, held) \
	(shr_rcu_check_protected((held), #held, __FILE__, __LINE__), \
	 __atomic_load_n(&(p), __ATOMIC_RELAXED))

/* The value of RCU pointer @p, not to be dereferenced (a NULL test): the
 * kernel's rcu_access_pointer(). */
#define shr_rcu_access_pointer(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)

static inline void shr_rcu_check_protected(bool held, const char *what, const char *file,
					   int line)
{
	if (SHR_DEBUG_CHECKS && !held) {
		fprintf(stderr, "libshrinker BUG at %s:%d: RCU pointer read for update without %s\n",
			file, line, what);
		abort();
	}
}

/*
 * Whether this thread called shr_thread_register() (and not yet
 * shr_thread_unregister()). Only this thread reads or writes it. liburcu
 * cannot tell: a read-side section of an unregistered thread runs, but no
 * grace period waits for it, so what it reads may be freed under it. Debug
 * builds (SHR_DEBUG_CHECKS) check it at the entry of every read-side
 * section: every public call that reads RCU-protected data comes through
 * here, so a thread that forgot to register aborts at its first such call
 * (the message names the library function that entered the section).
 */
extern _Thread_local bool shr_rcu_thread_registered;

/* rcu.c: report a read-side section entered by an unregistered thread. */
void shr_rcu_unregistered_reader(const char *func);

/*
 * Read-side sections this thread has entered and not left. Sync:
 * thread-local, read and written by its own thread only.
 *
 * Only the outermost section enters and leaves liburcu's: a nested one is a
 * thread-local increment, as the kernel's rcu_read_lock() is a per-task
 * counter (or nothing). liburcu's own nesting is invisible to grace periods
 * too (they look at whether the reader's count is 0 and at its phase, which
 * only the outermost lock sets), so grace periods wait for exactly the same
 * readers. What it saves: a call into the shared library and its TLS lookup
 * (__tls_get_addr) per nested section, about 60 instructions each; a
 * shrinker called by a cgroup walk enters up to 10 sections (the design's
 * lookups, the deferred counters, each list_lru count and its XArray load).
 */
extern _Thread_local unsigned int shr_rcu_nesting;

/* rcu.c: report an unlock without a matching lock. */
void shr_rcu_unbalanced_unlock(void);

static inline void shr_rcu_read_lock_from(const char *func)
{
	if (SHR_DEBUG_CHECKS && !shr_rcu_thread_registered)
		shr_rcu_unregistered_reader(func);
	if (shr_rcu_nesting++ == 0)
		urcu_memb_read_lock();
}

/* Enter a read-side section; debug builds name the caller on misuse. */
#define shr_rcu_read_lock() shr_rcu_read_lock_from(__func__)

static inline void shr_rcu_read_unlock(void)
{
	if (SHR_DEBUG_CHECKS && shr_rcu_nesting == 0)
		shr_rcu_unbalanced_unlock();
	SHR_TSAN_RELEASE(&shr_rcu_gp_token);
	if (--shr_rcu_nesting == 0)
		urcu_memb_read_unlock();
}

/*
 * Callbacks queued and not yet finished, process-wide (rcu.c's design
 * comment). It rises in shr_call_rcu() before the callback is queued and
 * drops when the callback returns (shr_rcu_callback_exit(), its last
 * statement): a 0 then means nothing is queued or running, and a callback
 * that queues more raises the count before it lowers its own.
 */
extern atomic_long shr_rcu_pending;

/*
 * Queue fn(head) to run after a grace period, on the library's callback
 * thread or inside a shr_rcu_barrier() (rcu.c). The callback must call
 * shr_rcu_callback_enter(head) first and shr_rcu_callback_exit() last.
 * Context: any thread, under any lock (takes only a leaf lock).
 */
void shr_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *));

static inline void shr_rcu_callback_enter(struct rcu_head *head)
{
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
	SHR_TSAN_ACQUIRE(head);
	(void)head;
}

/* Last statement of every callback queued with shr_call_rcu(). Release:
 * the callback's work happens before a barrier that reads 0 returns (pairs
 * with the acquire load in shr_rcu_barrier()). */
static inline void shr_rcu_callback_exit(void)
{
	atomic_fetch_sub_explicit(&shr_rcu_pending, 1, memory_order_release);
}

#endif /* SHR_RCU_INTERNAL_H */
