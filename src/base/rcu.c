/* SPDX-License-Identifier: MIT */
/*
 * Thread registration, grace periods and the library's own call_rcu.
 *
 * Readers and grace periods are liburcu-memb's (plus the TSan token of
 * rcu.h). Callbacks are not: liburcu's call_rcu thread sleeps about 10 ms
 * between batches, so urcu_memb_barrier() costs a round of that sleep, and
 * a single-threaded program that needs its deferred frees done (a test
 * before reading slab statistics, the fuzzer before destroying a host) spent
 * its time waiting on it. shr_call_rcu() therefore queues on our own list,
 * and the list has two consumers:
 *
 *   - the callback thread, started with the first shr_call_rcu(): it sleeps
 *     until the queue is non-empty, then waits CB_BATCH_DELAY_NS more so that
 *     one grace period covers many callbacks (liburcu's batching), then runs
 *     a batch;
 *   - shr_rcu_barrier(), which runs batches inline in the calling thread
 *     until nothing is queued or running, and never waits for the callback
 *     thread's delay.
 *
 * Running a batch (run_batch()), by either consumer:
 *   1. take cb_run_lock (one batch at a time, process-wide);
 *   2. detach the whole queue under cb_queue_lock;
 *   3. shr_synchronize_rcu(): a grace period that starts after every
 *      callback of the batch was queued;
 *   4. call the callbacks in queue (FIFO) order; what they queue goes to the
 *      queue, for the next batch;
 *   5. drop cb_run_lock.
 *
 * Invariants and why this keeps RCU's guarantees:
 *   - a callback runs after a full grace period that started after it was
 *     queued (step 3 follows step 2, and an object is queued only after it
 *     was unpublished), so no reader can still hold what it frees, whichever
 *     thread runs it and however many threads exist;
 *   - callbacks run one at a time and in queue order (cb_run_lock), as on
 *     liburcu's single callback thread, so callbacks need no locking against
 *     each other beyond what they already take;
 *   - a callback runs in a registered thread outside any read-side section
 *     and with no libshrinker lock held: the callback thread registers
 *     itself, and shr_rcu_barrier()'s callers must meet the same conditions
 *     (its Context: line). A callback may take any library lock (cgroup
 *     release takes cgroup_mutex), queue more callbacks and call
 *     shr_synchronize_rcu(); it must not call shr_rcu_barrier() (it would
 *     wait for itself: caught by cb_running, SHR_BUG).
 *
 * Barrier. shr_rcu_pending counts callbacks queued and not yet returned
 * (rcu.h); 0 means nothing to do, the common case, and costs one load. While
 * it is not 0, the barrier runs a batch itself: holding cb_run_lock it knows
 * no other batch is half done, so after a batch that found the queue empty
 * every callback queued before the barrier, and every callback those queued,
 * has returned. A thread between the count's increment and its enqueue makes
 * the barrier find an empty queue with a non-zero count; it yields and looks
 * again.
 *
 * Locks: cb_run_lock ranks above every library lock (a callback takes them
 * under it); cb_queue_lock is a leaf (shr_call_rcu() runs under any lock and
 * takes only it).
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "debug.h"
#include "lock.h"
#include "rcu.h"

#ifdef SHR_TSAN
char shr_rcu_gp_token;
#endif

atomic_long shr_rcu_pending;

/* How long the callback thread lets callbacks collect before a batch
 * (liburcu's call_rcu thread sleeps 10 ms between batches too). */
#define CB_BATCH_DELAY_NS 10000000L

/*
 * The queue: rcu_heads linked through their own next field (liburcu's
 * struct rcu_head; our queue owns the head until its callback runs, and
 * liburcu's call_rcu never sees it). Sync: cb_queue_lock.
 */
static struct shr_mutex cb_queue_lock = SHR_MUTEX_INITIALIZER(SHR_LOCK_RCU_QUEUE);
static pthread_cond_t cb_queue_nonempty = PTHREAD_COND_INITIALIZER;
static struct cds_wfcq_node *cb_first;
static struct cds_wfcq_node **cb_tail = &cb_first;
static bool cb_thread_started;

/* Held while a batch is detached and run (see run_batch()). */
static struct shr_mutex cb_run_lock = SHR_MUTEX_INITIALIZER(SHR_LOCK_RCU_RUNNER);
/* This thread is running a callback. */
static _Thread_local bool cb_running;

/* Sync: thread-local, read and written by its own thread only (rcu.h). */
_Thread_local bool shr_rcu_thread_registered;
/* Sync: as above. */
_Thread_local unsigned int shr_rcu_nesting;

/*
 * Thread exit. liburcu links each registered thread's reader state (its
 * TLS variable urcu_memb_reader) into a registry that every grace period
 * walks. A thread that exits registered leaves its node there: its TLS
 * block goes back to glibc's stack cache, a later thread reuses it and
 * registers the same node again (a cycle: synchronize_rcu() loops forever)
 * or the memory is unmapped (a crash). Either shows in another thread, far
 * from the cause. So registration also sets a pthread key whose destructor
 * runs at the thread's exit: if the thread is still registered, that is
 * reported as misuse (debug builds abort there, naming the cause) and, in
 * the other builds, the thread is unregistered on its behalf.
 *
 * The destructor runs in the exiting thread before glibc frees its static
 * TLS, so urcu_memb_reader (a real __thread variable in Debian's liburcu,
 * not a pthread-key emulation whose own destructor could have run first)
 * and shr_rcu_thread_registered are still valid there. Key destructors run
 * only for threads that end through pthread_exit() or by returning from
 * their start routine: the main thread returning from main() ends the
 * process, whose registry goes with it. shr_thread_unregister() clears the
 * key, so a thread that unregisters runs no destructor. Under TSan the
 * destructor is the exiting thread's own code, before TSan's thread-finish
 * (itself a key destructor it re-arms to run last); the registry's
 * accesses are inside liburcu (tests/tsan.supp).
 */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void thread_exit_check(void *marker)
{
	(void)marker;
	if (!shr_rcu_thread_registered)
		return;
	SHR_MISUSE("a thread exited without calling shr_thread_unregister(): its RCU reader "
		   "state would stay in liburcu's registry and hang or crash a later grace "
		   "period in another thread; unregistered now");
	urcu_memb_unregister_thread();
	shr_rcu_thread_registered = false;
}

static void exit_key_create(void)
{
	if (pthread_key_create(&exit_key, thread_exit_check))
		SHR_BUG("pthread_key_create for the thread-exit check");
}

/*
 * Registering twice, or unregistering a thread that is not registered,
 * trips liburcu's assertions (an abort naming urcu.c and a TLS field). Say
 * which call was wrong instead; debug builds then abort, the others ignore
 * the call (nothing to undo: the thread's state is what it was).
 */
void shr_thread_register(void)
{
	if (shr_rcu_thread_registered) {
		SHR_MISUSE("shr_thread_register(): this thread is registered already; ignored");
		return;
	}
	urcu_memb_register_thread();
	shr_rcu_thread_registered = true;
	pthread_once(&exit_key_once, exit_key_create);
	/* Any non-NULL value: glibc calls the destructor only for those. */
	if (pthread_setspecific(exit_key, &exit_key))
		SHR_BUG("pthread_setspecific for the thread-exit check");
}

void shr_thread_unregister(void)
{
	if (!shr_rcu_thread_registered) {
		SHR_MISUSE("shr_thread_unregister(): this thread is not registered; ignored");
		return;
	}
	urcu_memb_unregister_thread();
	shr_rcu_thread_registered = false;
	(void)pthread_setspecific(exit_key, NULL);
}

void shr_rcu_unregistered_reader(const char *func)
{
	SHR_MISUSE("this thread did not call shr_thread_register() before calling into "
		   "libshrinker: its RCU read-side sections are not waited for by grace "
		   "periods (section entered in %s())",
		   func);
}

void shr_rcu_unbalanced_unlock(void)
{
	SHR_BUG("shr_rcu_read_unlock() without a read-side section to leave");
}

void shr_synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}

/* Detach the queue; returns its first node or NULL. */
static struct cds_wfcq_node *queue_take_all(void)
{
	struct cds_wfcq_node *first;

	shr_mutex_lock(&cb_queue_lock);
	first = cb_first;
	cb_first = NULL;
	cb_tail = &cb_first;
	shr_mutex_unlock(&cb_queue_lock);
	return first;
}

/*
 * Run everything queued now, after a grace period. Caller holds cb_run_lock.
 * Returns false if the queue was empty.
 */
static bool run_batch(void)
{
	struct cds_wfcq_node *node;

	shr_lock_assert_held(&cb_run_lock);
	node = queue_take_all();
	if (!node)
		return false;
	shr_synchronize_rcu();
	cb_running = true;
	while (node) {
		struct rcu_head *head = caa_container_of(node, struct rcu_head, next);

		/* Read the link first: the callback may free or requeue the head. */
		node = node->next;
		head->func(head);
	}
	cb_running = false;
	return true;
}

static void *callback_thread(void *arg)
{
	const struct timespec delay = { 0, CB_BATCH_DELAY_NS };

	(void)arg;
	shr_thread_register();
	for (;;) {
		shr_mutex_lock(&cb_queue_lock);
		while (!cb_first)
			shr_mutex_cond_wait(&cb_queue_lock, &cb_queue_nonempty);
		shr_mutex_unlock(&cb_queue_lock);
		/* Nothing held while callbacks collect: a barrier meanwhile runs
		 * them itself. */
		nanosleep(&delay, NULL);
		shr_mutex_lock(&cb_run_lock);
		run_batch();
		shr_mutex_unlock(&cb_run_lock);
	}
	return NULL;
}

/* Caller holds cb_queue_lock. */
static void start_callback_thread(void)
{
	pthread_attr_t attr;
	pthread_t tid;
	int ret;

	shr_lock_assert_held(&cb_queue_lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&tid, &attr, callback_thread, NULL);
	pthread_attr_destroy(&attr);
	if (ret) {
		/* liburcu's call_rcu dies the same way when it cannot start its
		 * thread: without one, callbacks would wait for a barrier. */
		fprintf(stderr, "libshrinker: cannot start the RCU callback thread: %s\n",
			strerror(ret));
		abort();
	}
	cb_thread_started = true;
}

void shr_call_rcu(struct rcu_head *head, void (*fn)(struct rcu_head *))
{
	bool was_empty;

	atomic_fetch_add_explicit(&shr_rcu_pending, 1, memory_order_relaxed);
	head->func = fn;
	head->next.next = NULL;
	SHR_TSAN_RELEASE(head);
	shr_mutex_lock(&cb_queue_lock);
	if (!cb_thread_started)
		start_callback_thread();
	was_empty = !cb_first;
	*cb_tail = &head->next;
	cb_tail = &head->next.next;
	if (was_empty)
		pthread_cond_signal(&cb_queue_nonempty);
	shr_mutex_unlock(&cb_queue_lock);
}

void shr_rcu_barrier(void)
{
	unsigned long idle_rounds = 0;

	if (cb_running)
		SHR_BUG("shr_rcu_barrier() called from an RCU callback");
	while (atomic_load_explicit(&shr_rcu_pending, memory_order_acquire) != 0) {
		bool ran;

		shr_mutex_lock(&cb_run_lock);
		ran = run_batch();
		shr_mutex_unlock(&cb_run_lock);
		if (ran) {
			idle_rounds = 0;
			continue;
		}
		/* Pending but not queued: a shr_call_rcu() between its count
		 * and its enqueue, or a callback that never called
		 * shr_rcu_callback_exit(). */
		if (++idle_rounds == 10000000) {
			fprintf(stderr, "libshrinker BUG: shr_rcu_barrier(): %ld callbacks never "
					"finished (missing shr_rcu_callback_exit()?)\n",
				atomic_load(&shr_rcu_pending));
			abort();
		}
		sched_yield();
	}
	SHR_TSAN_ACQUIRE(&shr_rcu_gp_token);
}
