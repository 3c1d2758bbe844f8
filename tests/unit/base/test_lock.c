/* SPDX-License-Identifier: MIT */
/*
 * The lock-order checker (src/base/lock.h) in debug builds: a lock taken
 * out of the documented order aborts, naming both locks, before it can
 * deadlock; so does a second lock of a class not taken nested, anything
 * taken under a leaf, a lock taken twice, and an unlock or an
 * shr_lock_assert_held() of a lock the thread does not hold. The order
 * itself is checked against real use by every other test of the debug
 * builds; here each rule is broken once on purpose, in a forked child
 * (shr_test_expect_abort()). One inversion goes through the public API: a
 * list_lru isolate callback (run under the list's lock) that creates a
 * cgroup (which takes host->cgroup_mutex).
 *
 * Internal test: it includes src/base/lock.h.
 */
#include <stdio.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>

#include "harness.h"
#include "lock.h"

static struct shr_mutex cgroup_mutex, shrinker_mutex, completion;
static struct shr_spinlock list_a, list_b, list_c;

static void init_locks(void)
{
	shr_mutex_init(&cgroup_mutex, SHR_LOCK_CGROUP);
	shr_mutex_init(&shrinker_mutex, SHR_LOCK_SHRINKER);
	shr_mutex_init(&completion, SHR_LOCK_COMPLETION);
	shr_spin_init(&list_a, SHR_LOCK_LRU_LIST);
	shr_spin_init(&list_b, SHR_LOCK_LRU_LIST);
	shr_spin_init(&list_c, SHR_LOCK_LRU_LIST);
}

/* Ranks up: allowed; held is tracked; locks need not go in reverse order. */
static void test_documented_order_is_allowed(void **state)
{
	(void)state;
	init_locks();
	assert_false(shr_lock_held(&cgroup_mutex));
	shr_mutex_lock(&cgroup_mutex);
	shr_mutex_lock(&shrinker_mutex);
	shr_spin_lock(&list_a);
	shr_spin_lock_nested(&list_b);
	shr_mutex_lock(&completion);
	assert_true(shr_lock_held(&cgroup_mutex));
	assert_true(shr_lock_held(&list_b));
	shr_lock_assert_held(&shrinker_mutex);
	shr_mutex_unlock(&completion);
	shr_mutex_unlock(&cgroup_mutex); /* not the last taken */
	shr_spin_unlock(&list_b);
	shr_spin_unlock(&list_a);
	shr_mutex_unlock(&shrinker_mutex);
	assert_false(shr_lock_held(&cgroup_mutex));
	assert_false(shr_lock_held(&shrinker_mutex));
}

static void inverted(void *arg)
{
	(void)arg;
	init_locks();
	shr_mutex_lock(&shrinker_mutex);
	shr_mutex_lock(&cgroup_mutex); /* rank 1 under rank 3 */
}

static void test_inverted_order_aborts_naming_both_locks(void **state)
{
	(void)state;
	shr_test_expect_abort(inverted, NULL,
			      "lock order violation: taking host->cgroup_mutex (class 1) while "
			      "holding host->shrinker_mutex (class 3)");
}

static void same_class_not_nested(void *arg)
{
	(void)arg;
	init_locks();
	shr_spin_lock(&list_a);
	shr_spin_lock(&list_b);
}

static void nested_twice(void *arg)
{
	(void)arg;
	init_locks();
	shr_spin_lock(&list_a);
	shr_spin_lock_nested(&list_b);
	shr_spin_lock_nested(&list_c);
}

static void under_a_leaf(void *arg)
{
	(void)arg;
	init_locks();
	shr_mutex_lock(&completion);
	shr_spin_lock(&list_a);
}

static void twice(void *arg)
{
	(void)arg;
	init_locks();
	shr_mutex_lock(&cgroup_mutex);
	shr_mutex_lock(&cgroup_mutex);
}

static void unlock_unheld(void *arg)
{
	(void)arg;
	init_locks();
	shr_mutex_unlock(&shrinker_mutex);
}

static void assert_unheld(void *arg)
{
	(void)arg;
	init_locks();
	shr_lock_assert_held(&shrinker_mutex);
}

static void test_every_other_rule_aborts(void **state)
{
	(void)state;
	shr_test_expect_abort(same_class_not_nested, NULL,
			      "taking list_lru_one.lock (class 5) while holding list_lru_one.lock "
			      "(class 5): same class, not taken nested");
	shr_test_expect_abort(nested_twice, NULL, "only one level of nesting");
	shr_test_expect_abort(under_a_leaf, NULL,
			      "while holding completion lock (class 12): nothing may be taken "
			      "under a leaf lock");
	shr_test_expect_abort(twice, NULL, "this thread holds it already");
	shr_test_expect_abort(unlock_unheld, NULL, "unlocking a lock this thread does not hold");
	shr_test_expect_abort(assert_unheld, NULL, "&shrinker_mutex is not held by this thread");
}

/* ---- the same through the library ------------------------------------ */

struct misuse {
	struct shr_mem_cgroup *root;
};

/* Runs under the list's lock (list_lru_one.lock), then takes cgroup_mutex. */
static enum shr_lru_status create_cgroup_cb(struct shr_list_head *item,
					    struct shr_list_lru_one *list, void *arg)
{
	struct misuse *m = arg;
	struct shr_mem_cgroup *cg;

	(void)item;
	(void)list;
	if (shr_mem_cgroup_create(m->root, &cg) == 0)
		fprintf(stderr, "the cgroup was created: no abort\n");
	return SHR_LRU_SKIP;
}

static void callback_takes_cgroup_mutex(void *arg)
{
	struct shr_host_params p;
	struct shr_list_head item;
	struct shr_list_lru *lru;
	struct shr_host *host;
	struct misuse m;
	unsigned long nr = 1;

	(void)arg;
	/* The test runner registered this thread before the fork. */
	shr_host_params_init(&p);
	if (shr_host_create(&p, &host) || shr_list_lru_init(host, &lru))
		return;
	m.root = shr_host_root_mem_cgroup(host);
	shr_list_head_init(&item);
	if (shr_list_lru_add(lru, &item, 0, NULL) != 1)
		return;
	(void)shr_list_lru_walk_one(lru, 0, NULL, create_cgroup_cb, &m, &nr);
}

static void test_isolate_callback_taking_cgroup_mutex_aborts(void **state)
{
	(void)state;
	shr_test_expect_abort(callback_takes_cgroup_mutex, NULL,
			      "taking host->cgroup_mutex (class 1) while holding "
			      "list_lru_one.lock (class 5)");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_order_is_allowed),
		cmocka_unit_test(test_inverted_order_aborts_naming_both_locks),
		cmocka_unit_test(test_every_other_rule_aborts),
		cmocka_unit_test(test_isolate_callback_taking_cgroup_mutex_aborts),
	};

	shr_test_init(argc, argv);
	if (!SHR_DEBUG_CHECKS) {
		/* TAP's "skip the whole file": the checker is in debug builds only. */
		printf("1..0 # SKIP the lock checker needs a build with -Ddebug_checks=true\n");
		return 0;
	}
	return SHR_RUN_TESTS("lock_order", tests);
}
