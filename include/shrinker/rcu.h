/* SPDX-License-Identifier: MIT */
/*
 * Thread registration and grace periods.
 *
 * The library's readers are lockless under RCU (liburcu, memb flavour). Every
 * thread that calls into libshrinker must be registered first; the thread
 * that creates a host is no exception. Deferred frees (objects retired after
 * a grace period) run on a callback thread of the library, or earlier in
 * shr_rcu_barrier(), which leak checks call before reading allocator
 * statistics.
 */
#ifndef SHRINKER_RCU_H
#define SHRINKER_RCU_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * shr_thread_register() - make the calling thread an RCU reader.
 *
 * A thread that forgets it is unprotected: its lockless reads are not waited
 * for by grace periods, so what it reads can be freed under it. Builds with
 * -Ddebug_checks=true catch that: the first library call of such a thread
 * that enters an RCU read-side section prints "libshrinker: API misuse:
 * this thread did not call shr_thread_register() before calling into
 * libshrinker ..." and aborts. Registering a thread twice is reported the
 * same way (debug builds abort; the others ignore the call).
 *
 * Context: Any thread, once, before its first libshrinker call.
 */
SHR_API void shr_thread_register(void);

/**
 * shr_thread_unregister() - undo shr_thread_register().
 *
 * Every registered thread must call it before it exits. A thread that exits
 * registered would leave its reader state in liburcu's registry, and a
 * later grace period in another thread (any library call that waits for
 * one: freeing a shrinker or a cgroup, shr_synchronize_rcu(),
 * shr_rcu_barrier()) would hang or crash, far from the cause. The library
 * catches it when such a thread exits (through pthread_exit() or by
 * returning from its start routine): it prints "libshrinker: API misuse: a
 * thread exited without calling shr_thread_unregister() ..."; builds with
 * -Ddebug_checks=true then abort, the others unregister the thread on its
 * behalf and go on. (The main thread returning from main() ends the
 * process: nothing is left to hang.)
 *
 * A thread that is not registered is reported as misuse (debug builds
 * abort; the others ignore the call).
 *
 * Context: The registered thread, outside any libshrinker call.
 */
SHR_API void shr_thread_unregister(void);

/**
 * shr_synchronize_rcu() - wait for a full grace period.
 *
 * Context: Registered thread, not inside an RCU read-side section. Blocks.
 */
SHR_API void shr_synchronize_rcu(void);

/**
 * shr_rcu_barrier() - wait until every callback queued so far has run.
 *
 * After it returns, every object the library retired "after a grace period"
 * has been freed back to its slab cache. The barrier runs the queued
 * callbacks itself, in the calling thread, after a grace period (it does not
 * wait for the library's callback thread to come round), so it costs about
 * one grace period plus the callbacks' own work, and nothing when none is
 * queued.
 *
 * Context: Registered thread, not inside an RCU read-side section, holding
 * no libshrinker lock, not from an RCU callback. Blocks.
 */
SHR_API void shr_rcu_barrier(void);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_RCU_H */
