/* SPDX-License-Identifier: MIT */
/*
 * Byte charges of memory cgroups (src/core/page_counter.c, behind
 * memcg.h): hierarchical usage, high boundaries and their events, peak,
 * the misuse refused, and the reclaimer's notification when a charge
 * leaves a cgroup over its high (seen here through
 * shr_reclaimer_dispatch(), without a thread).
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaimer.h>
#include <shrinker/slab.h>

#include "harness.h"

static struct shr_host *make_host(void)
{
	struct shr_host_params params;
	struct shr_host *host;

	shr_test_host_params(&params);
	assert_int_equal(shr_host_create(&params, &host), 0);
	return host;
}

static struct shr_memcg_memory_stat stat_of(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory_stat st;

	assert_int_equal(shr_mem_cgroup_memory_stat(memcg, &st), 0);
	return st;
}

/* A charge counts in the cgroup and every ancestor; an uncharge undoes it;
 * siblings are independent; peak keeps the highest usage. */
static void test_charges_are_hierarchical(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root), *a1 = shr_test_mkcg(a);
	struct shr_mem_cgroup *b = shr_test_mkcg(root);

	(void)state;
	assert_int_equal(shr_mem_cgroup_usage(a1), 0);
	assert_int_equal(stat_of(a1).high, SHR_PAGE_COUNTER_MAX);
	assert_int_equal(shr_mem_cgroup_charge(a1, 1000), 0);
	assert_int_equal(shr_mem_cgroup_charge(a, 24), 0);
	assert_int_equal(shr_mem_cgroup_charge(b, 500), 0);
	assert_int_equal(shr_mem_cgroup_usage(a1), 1000);
	assert_int_equal(shr_mem_cgroup_usage(a), 1024);
	assert_int_equal(shr_mem_cgroup_usage(b), 500);
	assert_int_equal(shr_mem_cgroup_usage(root), 1524);
	assert_int_equal(shr_mem_cgroup_uncharge(a1, 600), 0);
	assert_int_equal(shr_mem_cgroup_usage(a1), 400);
	assert_int_equal(shr_mem_cgroup_usage(a), 424);
	assert_int_equal(shr_mem_cgroup_usage(root), 924);
	assert_int_equal(stat_of(a1).peak, 1000);
	assert_int_equal(stat_of(root).peak, 1524);
	/* Not under reclaim: nothing counts as reclaimed. */
	assert_int_equal(stat_of(root).reclaimed, 0);

	assert_int_equal(shr_mem_cgroup_uncharge(a1, 400), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 24), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(b, 500), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), 0);
	assert_int_equal(shr_mem_cgroup_offline(a1), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Two valid charges whose sum a level cannot hold: the second is refused
 * whole (no level changed), as the kernel's page_counter_try_charge()
 * refuses a charge past its max; usage and exact uncharges stay right. */
static void test_charge_past_the_counter_max_is_refused(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root), *b = shr_test_mkcg(root);

	(void)state;
	assert_int_equal(shr_mem_cgroup_charge(a, SHR_PAGE_COUNTER_MAX), 0);
	/* The same cgroup: a itself would overflow. */
	assert_int_equal(shr_mem_cgroup_charge(a, SHR_PAGE_COUNTER_MAX), -EOVERFLOW);
	assert_int_equal(shr_mem_cgroup_charge(a, 1), -EOVERFLOW);
	/* A sibling: b would hold it, their parent would not; b is left as
	 * it was. */
	assert_int_equal(shr_mem_cgroup_charge(b, SHR_PAGE_COUNTER_MAX), -EOVERFLOW);
	assert_int_equal(shr_mem_cgroup_usage(b), 0);
	assert_int_equal(shr_mem_cgroup_usage(a), SHR_PAGE_COUNTER_MAX);
	assert_int_equal(shr_mem_cgroup_usage(root), SHR_PAGE_COUNTER_MAX);
	assert_int_equal(stat_of(root).peak, SHR_PAGE_COUNTER_MAX);
	assert_int_equal(shr_mem_cgroup_uncharge(a, SHR_PAGE_COUNTER_MAX), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), 0);
	assert_int_equal(shr_mem_cgroup_charge(b, SHR_PAGE_COUNTER_MAX - 1), 0);
	assert_int_equal(shr_mem_cgroup_charge(a, 1), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), SHR_PAGE_COUNTER_MAX);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 1), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(b, SHR_PAGE_COUNTER_MAX - 1), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Bad calls are refused and change nothing. */
static void test_charge_misuse_is_refused(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root), *b = shr_test_mkcg(root);
	struct shr_memcg_memory_stat st;

	(void)state;
	assert_int_equal(shr_mem_cgroup_charge(NULL, 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_charge(a, 0), -EINVAL);
	assert_int_equal(shr_mem_cgroup_charge(a, SHR_PAGE_COUNTER_MAX + 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_uncharge(NULL, 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 0), -EINVAL);
	/* Nothing charged yet: nothing to uncharge. */
	assert_int_equal(shr_mem_cgroup_uncharge(a, 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_set_high(NULL, 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_set_high(a, SHR_PAGE_COUNTER_MAX + 1), -EINVAL);
	assert_int_equal(shr_mem_cgroup_memory_stat(NULL, &st), -EINVAL);
	assert_int_equal(shr_mem_cgroup_memory_stat(a, NULL), -EINVAL);
	assert_int_equal(shr_mem_cgroup_usage(NULL), 0);

	assert_int_equal(shr_mem_cgroup_charge(a, 100), 0);
	assert_int_equal(shr_mem_cgroup_charge(b, 100), 0);
	/* More than a holds, though its parent holds enough: refused whole. */
	assert_int_equal(shr_mem_cgroup_uncharge(a, 101), -EINVAL);
	assert_int_equal(shr_mem_cgroup_usage(a), 100);
	assert_int_equal(shr_mem_cgroup_usage(root), 200);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 100), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(b, 100), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A charge over high returns 1 and counts a high event in each cgroup of
 * the path that is over (the kernel's memcg_memory_event(HIGH) per charge);
 * a cgroup under its high, or without one, counts none. */
static void test_high_events_per_level(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root), *a1 = shr_test_mkcg(a);

	(void)state;
	assert_int_equal(shr_mem_cgroup_set_high(a, 1000), 0);
	assert_int_equal(shr_mem_cgroup_set_high(a1, 300), 0);
	assert_int_equal(stat_of(a).high, 1000);
	assert_int_equal(shr_mem_cgroup_charge(a1, 300), 0); /* at high: not over */
	assert_int_equal(shr_mem_cgroup_charge(a1, 1), 1);   /* a1 over */
	assert_int_equal(stat_of(a1).events_high, 1);
	assert_int_equal(stat_of(a).events_high, 0);
	assert_int_equal(shr_mem_cgroup_charge(a, 800), 1); /* a over; a1 not charged */
	assert_int_equal(stat_of(a).events_high, 1);
	assert_int_equal(stat_of(a1).events_high, 1);
	assert_int_equal(shr_mem_cgroup_charge(a1, 10), 1); /* both over */
	assert_int_equal(stat_of(a1).events_high, 2);
	assert_int_equal(stat_of(a).events_high, 2);
	assert_int_equal(stat_of(root).events_high, 0);
	/* Removing the boundary: charges stop counting. */
	assert_int_equal(shr_mem_cgroup_set_high(a1, SHR_PAGE_COUNTER_MAX), 0);
	assert_int_equal(shr_mem_cgroup_set_high(a, SHR_PAGE_COUNTER_MAX), 0);
	assert_int_equal(shr_mem_cgroup_charge(a1, 10), 0);
	assert_int_equal(stat_of(a1).events_high, 2);

	assert_int_equal(shr_mem_cgroup_uncharge(a1, 321), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 800), 0);
	assert_int_equal(shr_mem_cgroup_offline(a1), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A dying cgroup's charges stay counted (in it and its ancestors) until
 * uncharged through it, as the objects that pin it are freed. */
static void test_dying_cgroup_keeps_charges(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root);

	(void)state;
	assert_int_equal(shr_mem_cgroup_charge(a, 4096), 0);
	shr_mem_cgroup_get(a); /* an object's reference */
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_true(shr_mem_cgroup_is_dying(a));
	assert_int_equal(shr_mem_cgroup_usage(root), 4096);
	assert_int_equal(shr_mem_cgroup_charge(a, 4096), 0);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 8192), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), 0);
	shr_mem_cgroup_put(a);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Charges that leave a cgroup over its high wake the host's reclaimer, one
 * notification until it has run; a host has one reclaimer; destroy of a
 * host with one is refused. */
static void test_over_high_notifies_the_reclaimer(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root);
	struct shr_reclaimer_params params;
	struct shr_reclaimer *r, *r2;
	struct shr_reclaimer_stats st;
	struct shr_reclaim_report rep;

	(void)state;
	shr_reclaimer_params_init(&params);
	assert_int_equal(shr_reclaimer_create(host, &params, &r), 0);
	assert_int_equal(shr_reclaimer_create(host, &params, &r2), -EBUSY);
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);

	assert_int_equal(shr_mem_cgroup_set_high(a, 100), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(shr_mem_cgroup_charge(a, 50), i >= 2);
	/* One round for the burst (nothing to free: no shrinker holds it). */
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	assert_int_equal(rep.reasons, SHR_RECLAIM_HIGH);
	assert_false(rep.target_met);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);
	/* After the round, the next crossing notifies again. */
	assert_int_equal(shr_mem_cgroup_charge(a, 1), 1);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	/* Lowering high below the usage notifies too. */
	assert_int_equal(shr_mem_cgroup_set_high(root, 10), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	assert_int_equal(st.wakes_high, 3);
	assert_int_equal(st.rounds, 3);

	shr_reclaimer_destroy(r);
	assert_int_equal(shr_mem_cgroup_uncharge(a, 251), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	/* No reclaimer any more: charges over high only count. */
	assert_int_equal(shr_host_destroy(host), 0);
}

/* An allocation failure of the counters leaves everything as it was:
 * nothing charged, no boundary set; the next call succeeds. */
static void test_enomem_changes_nothing(void **state)
{
	(void)state;
	/* A first charge of a1 installs three counters (root, a, a1): fail
	 * each in turn, on a fresh host. */
	for (unsigned long nth = 1; nth <= 3; nth++) {
		struct shr_host *host = make_host();
		struct shr_slab_allocator *sa = shr_host_slab(host);
		struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
		struct shr_mem_cgroup *a = shr_test_mkcg(root), *a1 = shr_test_mkcg(a);
		struct shr_mem_cgroup *b = shr_test_mkcg(root);

		shr_slab_fail_nth(sa, nth, false);
		assert_int_equal(shr_mem_cgroup_charge(a1, 100), -ENOMEM);
		shr_slab_fault_clear(sa);
		assert_int_equal(shr_mem_cgroup_usage(a1), 0);
		assert_int_equal(shr_mem_cgroup_usage(a), 0);
		assert_int_equal(shr_mem_cgroup_usage(root), 0);
		shr_slab_fail_nth(sa, 1, true);
		assert_int_equal(shr_mem_cgroup_set_high(b, 10), -ENOMEM);
		shr_slab_fault_clear(sa);
		assert_int_equal(stat_of(b).high, SHR_PAGE_COUNTER_MAX);
		assert_int_equal(shr_mem_cgroup_charge(a1, 100), 0);
		assert_int_equal(shr_mem_cgroup_usage(root), 100);
		assert_int_equal(shr_mem_cgroup_uncharge(a1, 100), 0);
		assert_int_equal(shr_mem_cgroup_offline(a1), 0);
		assert_int_equal(shr_mem_cgroup_offline(a), 0);
		assert_int_equal(shr_mem_cgroup_offline(b), 0);
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

struct charger {
	struct shr_mem_cgroup *memcg;
	int rounds;
};

static void *charge_loop(void *arg)
{
	struct charger *c = arg;

	shr_thread_register();
	for (int i = 0; i < c->rounds; i++) {
		if (shr_mem_cgroup_charge(c->memcg, (unsigned long)(i % 7) + 1) < 0 ||
		    shr_mem_cgroup_uncharge(c->memcg, (unsigned long)(i % 7) + 1))
			abort();
	}
	shr_thread_unregister();
	return NULL;
}

/* Concurrent charges and uncharges from several threads into a tree
 * leave every level at exactly zero, and peak never exceeds the sum of
 * what can be charged at once. */
static void test_concurrent_charges_balance(void **state)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *a = shr_test_mkcg(root);
	struct shr_mem_cgroup *leaf[4];
	struct charger c[4];
	pthread_t t[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		leaf[i] = shr_test_mkcg(i < 2 ? a : root);
		c[i] = (struct charger){ leaf[i], 20000 };
	}
	assert_int_equal(shr_mem_cgroup_set_high(a, 4), 0); /* 5, 6 and 7 go over */
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, charge_loop, &c[i]), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(shr_mem_cgroup_usage(leaf[i]), 0);
		assert_true(stat_of(leaf[i]).peak <= 7);
	}
	assert_int_equal(shr_mem_cgroup_usage(a), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), 0);
	assert_true(stat_of(root).peak <= 28);
	assert_true(stat_of(a).events_high > 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(shr_mem_cgroup_offline(leaf[i]), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static __attribute__((unused)) void free_with_charges(void *arg)
{
	struct shr_host *host = make_host();
	struct shr_mem_cgroup *a;

	(void)arg;
	if (shr_mem_cgroup_create(shr_host_root_mem_cgroup(host), &a) ||
	    shr_mem_cgroup_charge(a, 64) < 0 || shr_mem_cgroup_offline(a))
		return;
	shr_rcu_barrier(); /* release and free run here */
}

/* A cgroup freed with bytes still charged is reported (debug builds
 * abort, and only they run this test; the others print the line and go
 * on). */
static __attribute__((unused)) void test_free_with_charges_is_misuse(void **state)
{
	(void)state;
	shr_test_expect_abort(free_with_charges, NULL, "bytes still charged");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_charges_are_hierarchical),
		cmocka_unit_test(test_charge_misuse_is_refused),
		cmocka_unit_test(test_charge_past_the_counter_max_is_refused),
		cmocka_unit_test(test_high_events_per_level),
		cmocka_unit_test(test_dying_cgroup_keeps_charges),
		cmocka_unit_test(test_over_high_notifies_the_reclaimer),
		cmocka_unit_test(test_enomem_changes_nothing),
		cmocka_unit_test(test_concurrent_charges_balance),
#if SHR_DEBUG_CHECKS
		cmocka_unit_test(test_free_with_charges_is_misuse),
#endif
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("memcg_charge", tests);
}
