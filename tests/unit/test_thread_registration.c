/* SPDX-License-Identifier: MIT */
/*
 * Every thread that calls into the library registers first
 * (shr_thread_register()). A thread that forgets reads RCU-protected data
 * that no grace period waits for: nothing fails until a free lands under
 * it. Debug builds (-Ddebug_checks=true) check the registration at the
 * entry of every read-side section and abort with a message naming the
 * function; the tests check that in a forked child, for a bare XArray load
 * and for a whole reclaim pass. Registering twice and unregistering a
 * thread that is not registered are reported in every build: debug builds
 * abort, the others ignore the call and the thread stays usable.
 */
#include <pthread.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/xarray.h>

#include "harness.h"

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

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_threads_pass_the_check),
		cmocka_unit_test(test_unregistered_reader_aborts_in_debug_builds),
		cmocka_unit_test(test_double_register_and_unregister_are_refused),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("thread_registration", tests);
}
