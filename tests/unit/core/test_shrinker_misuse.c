/* SPDX-License-Identifier: MIT */
/*
 * Misuse of a shrinker handle that shr_shrinker_free() cannot refuse with an
 * error code: a stale handle (freed before, its memory possibly taken by a
 * new shrinker) and a free from inside the shrinker's own callback. Debug
 * builds (-Ddebug_checks=true) abort with a one-line message, which the
 * tests check in a forked child; the other builds report and ignore a stale
 * free, which is checked directly.
 */
#include <stdatomic.h>

#include <shrinker/host.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "harness.h"

/* The number the public header promises (SHR_SHRINKER_QUARANTINE). */
#define QUARANTINE 32

enum self_free { FREE_NEVER, FREE_IN_COUNT, FREE_IN_SCAN };

struct selfish {
	struct shr_shrinker *s;
	enum self_free when;
	atomic_ulong counts;
};

static unsigned long selfish_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct selfish *me = s->private_data;

	(void)sc;
	atomic_fetch_add(&me->counts, 1);
	if (me->when == FREE_IN_COUNT)
		shr_shrinker_free(s);
	return 100;
}

static unsigned long selfish_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct selfish *me = s->private_data;

	(void)sc;
	if (me->when == FREE_IN_SCAN)
		shr_shrinker_free(s);
	return 0;
}

static struct shr_host *new_host(void)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_test_host_params(&p);
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static void selfish_init(struct selfish *me, struct shr_host *host, unsigned int flags)
{
	atomic_init(&me->counts, 0);
	me->when = FREE_NEVER;
	assert_int_equal(shr_shrinker_alloc(host, flags, "selfish", &me->s), 0);
	me->s->count_objects = selfish_count;
	me->s->scan_objects = selfish_scan;
	me->s->private_data = me;
	assert_int_equal(shr_shrinker_register(me->s), 0);
}

static void free_stale(void *arg)
{
	shr_shrinker_free(arg);
}

/*
 * A freed shrinker's handle, used again after a new shrinker was allocated
 * where its memory may have gone (the allocator hands the slot straight
 * back otherwise): refused by every entry point, never taken for the new
 * shrinker, for as long as 31 more shrinkers have been freed after it.
 */
static void test_stale_handle_after_reuse_is_refused(void **state)
{
	struct shr_host *host = new_host();
	struct selfish a, b;
	struct shr_shrinker_stats st;
	struct shr_shrinker *stale;
	unsigned long freed;

	(void)state;
	selfish_init(&a, host, SHR_SHRINKER_MEMCG_AWARE);
	stale = a.s;
	shr_shrinker_free(a.s);
	shr_rcu_barrier(); /* a's memory would be back in the allocator now */
	selfish_init(&b, host, SHR_SHRINKER_MEMCG_AWARE);

	assert_int_equal(shr_shrinker_register(stale), -EINVAL);
	assert_int_equal(shr_shrinker_get_stats(stale, &st), -EINVAL);
	assert_int_equal(shr_shrinker_id(stale), -1);
	if (SHR_DEBUG_CHECKS)
		shr_test_expect_abort(free_stale, stale,
				      "libshrinker: API misuse: shr_shrinker_free");
	else
		shr_shrinker_free(stale); /* reported on stderr, ignored */
	/* b is untouched: registered, reclaimed, its own. */
	assert_int_equal(shr_shrinker_get_stats(b.s, &st), 0);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, 0, &freed), 0);
	assert_int_equal(atomic_load(&b.counts), 1);
	assert_int_equal(shr_shrinker_register(b.s), -EBUSY);

	/* Still recognised after 31 more frees (a is the oldest of 32). */
	for (int i = 0; i < QUARANTINE - 1; i++) {
		struct selfish other;

		selfish_init(&other, host, i % 2 ? SHR_SHRINKER_MEMCG_AWARE : 0);
		shr_shrinker_free(other.s);
	}
	shr_rcu_barrier();
	assert_int_equal(shr_shrinker_register(stale), -EINVAL);
	if (SHR_DEBUG_CHECKS)
		shr_test_expect_abort(free_stale, stale, "freed before (a stale handle");
	shr_shrinker_free(b.s);
	assert_int_equal(shr_host_destroy(host), 0);
}

static void reclaim_root(void *arg)
{
	unsigned long freed;

	(void)shr_shrink_slab(arg, 0, NULL, 0, &freed);
}

/* shr_shrinker_free() from the shrinker's own count or scan callback (it
 * would wait for its own call to end): debug builds abort with a message
 * instead of hanging. */
static void test_free_from_own_callback_aborts(void **state)
{
	static const enum self_free whens[] = { FREE_IN_COUNT, FREE_IN_SCAN };

	(void)state;
	if (!SHR_DEBUG_CHECKS) {
		/* Detected in debug builds only; the others hang. (cmocka's
		 * skip() reads as a failure in TAP for Meson.) */
		print_message("# not a debug build: nothing to check\n");
		return;
	}
	for (size_t i = 0; i < sizeof(whens) / sizeof(whens[0]); i++) {
		struct shr_host *host = new_host();
		struct selfish me;

		selfish_init(&me, host, SHR_SHRINKER_NUMA_AWARE);
		me.when = whens[i];
		shr_test_expect_abort(reclaim_root, host,
				      "from inside a count/scan callback of that shrinker");
		me.when = FREE_NEVER;
		shr_shrinker_free(me.s);
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stale_handle_after_reuse_is_refused),
		cmocka_unit_test(test_free_from_own_callback_aborts),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_misuse", tests);
}
