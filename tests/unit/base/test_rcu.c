/* SPDX-License-Identifier: MIT */
/*
 * RCU (src/base/rcu.c): thread registration, call_rcu and the barrier.
 *
 * Every thread that calls into the library registers first
 * (shr_thread_register()). A thread that forgets reads RCU-protected data
 * that no grace period waits for: nothing fails until a free lands under
 * it. Debug builds (-Ddebug_checks=true) check the registration at the
 * entry of every read-side section and abort with a message naming the
 * function; the tests check that in a forked child, for a bare XArray load
 * and for a whole reclaim pass. Registering twice and unregistering a
 * thread that is not registered are reported in every build: debug builds
 * abort, the others ignore the call and the thread stays usable.
 *
 * The library's own call_rcu queue: a callback does not run while a reader
 * that was inside its section when it was queued is still there (also
 * after the reader left a nested section: only the outermost one counts,
 * and an unlock without a section is caught in debug builds); the
 * callback thread runs callbacks without being asked; shr_rcu_barrier()
 * runs everything queued, callbacks queued by callbacks included, and
 * leaves nothing pending.
 *
 * Internal test (tests/meson.build): call_rcu, the read-side section and
 * the pending count are src/base/rcu.h's.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/xarray.h>

#include "harness.h"
#include "rcu.h"

struct call {
	struct shr_xarray *xa;
	struct shr_host *host;
	bool register_first;
	unsigned long freed;
	void *loaded;
};

/* A thread that loads from the array, registered or not. */
static void *xa_loader(void *arg)
{
	struct call *c = arg;

	if (c->register_first)
		shr_thread_register();
	c->loaded = shr_xa_load(c->xa, 7);
	if (c->register_first)
		shr_thread_unregister();
	return NULL;
}

/* A thread that runs a whole reclaim pass (drop_caches), registered or not. */
static void *reclaimer(void *arg)
{
	struct call *c = arg;

	if (c->register_first)
		shr_thread_register();
	(void)shr_drop_caches(c->host, &c->freed, NULL);
	if (c->register_first)
		shr_thread_unregister();
	return NULL;
}

static void run_thread(void *(*fn)(void *), struct call *c)
{
	pthread_t t;

	if (pthread_create(&t, NULL, fn, c) == 0)
		pthread_join(t, NULL);
}

/* In the forked child: one call from a thread that never registered. */
static void unregistered_xa_load(void *arg)
{
	struct call *c = arg;

	c->register_first = false;
	run_thread(xa_loader, c);
}

static void unregistered_drop_caches(void *arg)
{
	struct call *c = arg;

	c->register_first = false;
	run_thread(reclaimer, c);
}

static void register_twice(void *arg)
{
	(void)arg;
	shr_thread_register(); /* the test runner's thread is registered */
}

static void unregister_twice(void *arg)
{
	(void)arg;
	shr_thread_unregister();
	shr_thread_unregister();
}

static struct shr_host *new_host(struct shr_mem_cgroup **child)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_test_host_params(&p);
	assert_int_equal(shr_host_create(&p, &host), 0);
	assert_int_equal(shr_mem_cgroup_create(shr_host_root_mem_cgroup(host), child), 0);
	return host;
}

static void test_registered_threads_pass_the_check(void **state)
{
	struct shr_mem_cgroup *child;
	struct shr_host *host = new_host(&child);
	struct shr_xarray xa;
	struct call c = { .xa = &xa, .host = host, .register_first = true };

	(void)state;
	shr_xa_init(&xa, NULL, SHR_NUMA_NO_NODE, 0);
	run_thread(xa_loader, &c);
	assert_null(c.loaded);
	run_thread(reclaimer, &c);
	assert_int_equal(c.freed, 0);
	shr_xa_destroy(&xa);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_unregistered_reader_aborts_in_debug_builds(void **state)
{
	struct shr_mem_cgroup *child;
	struct shr_host *host;
	struct shr_xarray xa;
	struct call c = { .xa = &xa };

	(void)state;
	if (!SHR_DEBUG_CHECKS) {
		/* Not checked outside debug builds (a load per read-side
		 * section on the hottest paths). (cmocka's skip() reads as a
		 * failure in TAP for Meson.) */
		print_message("# not a debug build: nothing to check\n");
		return;
	}
#ifdef SHR_TSAN
	/* The child must start a thread, which TSan refuses after a fork of a
	 * multi-threaded process; the other builds check it. */
	print_message("# TSan cannot start threads in a forked child: not checked here\n");
	return;
#endif
	shr_xa_init(&xa, NULL, SHR_NUMA_NO_NODE, 0);
	shr_test_expect_abort(unregistered_xa_load, &c,
			      "libshrinker: API misuse: this thread did not call "
			      "shr_thread_register() before calling into libshrinker: its RCU "
			      "read-side sections are not waited for by grace periods (section "
			      "entered in shr_xa_load())");
	shr_xa_destroy(&xa);

	host = new_host(&child);
	c.host = host;
	shr_test_expect_abort(unregistered_drop_caches, &c,
			      "libshrinker: API misuse: this thread did not call "
			      "shr_thread_register() before calling into libshrinker");
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_double_register_and_unregister_are_refused(void **state)
{
	struct shr_xarray xa;
	struct call c = { .xa = &xa, .register_first = true };

	(void)state;
	if (SHR_DEBUG_CHECKS) {
		shr_test_expect_abort(register_twice, NULL,
				      "shr_thread_register(): this thread is registered already");
		shr_test_expect_abort(unregister_twice, NULL,
				      "shr_thread_unregister(): this thread is not registered");
		return;
	}
	/* Other builds report and ignore: liburcu's assertions are not hit,
	 * and the thread is still registered (once) afterwards. */
	shr_thread_register();
	shr_xa_init(&xa, NULL, SHR_NUMA_NO_NODE, 0);
	assert_null(shr_xa_load(&xa, 7));
	shr_thread_unregister();
	shr_thread_unregister();
	shr_thread_register();
	run_thread(xa_loader, &c);
	assert_null(shr_xa_load(&xa, 7));
	shr_xa_destroy(&xa);
}

/* ---- call_rcu and the barrier (internal: src/base/rcu.h) ---- */

struct cb {
	struct rcu_head head;
	atomic_int *ran;
	struct cb *then; /* queued from inside this callback, or NULL */
};

static void cb_run(struct rcu_head *head)
{
	struct cb *c = caa_container_of(head, struct cb, head);

	shr_rcu_callback_enter(head);
	if (c->then)
		shr_call_rcu(&c->then->head, cb_run);
	atomic_fetch_add(c->ran, 1);
	shr_rcu_callback_exit();
}

struct holder {
	atomic_int entered, release;
	/* Enter two sections, leave the inner one, then wait in the outer. */
	bool nested;
};

/* A reader that stays inside its read-side section until told. */
static void *holding_reader(void *arg)
{
	struct holder *h = arg;

	shr_thread_register();
	shr_rcu_read_lock();
	if (h->nested) {
		shr_rcu_read_lock();
		shr_rcu_read_unlock();
	}
	atomic_store(&h->entered, 1);
	while (!atomic_load(&h->release))
		sched_yield();
	shr_rcu_read_unlock();
	shr_thread_unregister();
	return NULL;
}

/* Queue a callback while @h's reader is inside its section: it does not
 * run until the reader leaves (the callback thread is given every chance);
 * the barrier then runs it. */
static void check_callback_waits_for(struct holder *h)
{
	atomic_int ran = 0;
	struct cb c = { .ran = &ran };
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, holding_reader, h), 0);
	while (!atomic_load(&h->entered))
		sched_yield();
	shr_call_rcu(&c.head, cb_run);
	for (int i = 0; i < 50; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&ran), 0);
	atomic_store(&h->release, 1);
	shr_rcu_barrier();
	assert_int_equal(atomic_load(&ran), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* A callback queued while a reader is inside its section does not run
 * until that reader leaves (the callback thread is given every chance);
 * the barrier then runs it. */
static void test_callback_waits_for_a_reader_in_its_section(void **state)
{
	struct holder h = { 0, 0, false };

	(void)state;
	check_callback_waits_for(&h);
}

/* Only the outermost section enters liburcu's (rcu.h): leaving a nested
 * one must not end the reader's section for grace periods. */
static void test_callback_waits_for_a_reader_that_left_a_nested_section(void **state)
{
	struct holder h = { 0, 0, true };

	(void)state;
	check_callback_waits_for(&h);
}

static void unbalanced_unlock(void *arg)
{
	(void)arg;
	shr_rcu_read_unlock();
}

/* Debug builds catch an unlock without a section to leave. */
static void test_unbalanced_unlock_aborts_in_debug_builds(void **state)
{
	(void)state;
	if (!SHR_DEBUG_CHECKS) {
		print_message("# not a debug build: nothing to check\n");
		return;
	}
	shr_test_expect_abort(unbalanced_unlock, NULL,
			      "shr_rcu_read_unlock() without a read-side section to leave");
}

/* One barrier runs what was queued and what those callbacks queued in
 * turn, and leaves nothing pending. */
static void test_barrier_runs_chained_callbacks(void **state)
{
	atomic_int ran = 0;
	struct cb third = { .ran = &ran }, second = { .ran = &ran, .then = &third };
	struct cb first = { .ran = &ran, .then = &second }, other = { .ran = &ran };

	(void)state;
	shr_call_rcu(&first.head, cb_run);
	shr_call_rcu(&other.head, cb_run);
	shr_rcu_barrier();
	assert_int_equal(atomic_load(&ran), 4);
	assert_int_equal(atomic_load(&shr_rcu_pending), 0);
}

/* Without a barrier, the library's callback thread runs the callbacks
 * (waited for by work: until they ran, with a generous cap). */
static void test_callback_thread_runs_callbacks(void **state)
{
	atomic_int ran = 0;
	struct cb c[8];

	(void)state;
	for (int i = 0; i < 8; i++) {
		c[i] = (struct cb){ .ran = &ran };
		shr_call_rcu(&c[i].head, cb_run);
	}
	for (int i = 0; i < 60000 && atomic_load(&ran) < 8; i++)
		usleep(1000);
	assert_int_equal(atomic_load(&ran), 8);
	shr_rcu_barrier();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_threads_pass_the_check),
		cmocka_unit_test(test_unregistered_reader_aborts_in_debug_builds),
		cmocka_unit_test(test_double_register_and_unregister_are_refused),
		cmocka_unit_test(test_callback_waits_for_a_reader_in_its_section),
		cmocka_unit_test(test_callback_waits_for_a_reader_that_left_a_nested_section),
		cmocka_unit_test(test_unbalanced_unlock_aborts_in_debug_builds),
		cmocka_unit_test(test_barrier_runs_chained_callbacks),
		cmocka_unit_test(test_callback_thread_runs_callbacks),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("rcu", tests);
}
