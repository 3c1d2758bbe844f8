/* SPDX-License-Identifier: MIT */
/*
 * Growth of every cgroup's arrays (src/designs/shrinker_info_grow.c, shared
 * by prealloc, array-ondemand and flat): installs and bits set while a
 * registration grows and copies the arrays are not lost (and none is
 * invented); nonslab_ids (kmem off) keeps plain registrations to the root
 * and gives NONSLAB shrinkers a second id space that works end to end;
 * -ENOMEM at each allocation of a growth leaves shrinker_nr_max and the
 * host intact. Public API only.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

/* The race: one thread registers shrinkers across many unit boundaries
 * (each growth copies every cgroup's pointers), the other installs units
 * and sets bits of the shrinkers registered so far on many cgroups. */
#define RACE_CG 64
#define RACE_SHRINKERS (64 * 48)

struct race {
	struct shr_host *host;
	struct shr_mem_cgroup *cgs[RACE_CG];
	struct fake *p[RACE_SHRINKERS];
	int nr_shrinkers;
	atomic_int ready;
	bool set[RACE_CG][RACE_SHRINKERS];
	unsigned long sets;
	int errors; /* failed calls in the installer (no cmocka asserts there) */
};

static void *race_register(void *arg)
{
	struct race *r = arg;

	shr_thread_register();
	/* Allocated only (registered after the race): ids come fast, so
	 * growths come often. */
	for (int i = 0; i < r->nr_shrinkers; i++) {
		r->p[i] = fake_new_objects(r->host, SHR_SHRINKER_MEMCG_AWARE, false, true);
		atomic_store_explicit(&r->ready, i + 1, memory_order_release);
	}
	shr_thread_unregister();
	return NULL;
}

static void *race_install(void *arg)
{
	struct race *r = arg;
	struct shr_rng rng;
	int ready, c = 0;

	shr_thread_register();
	shr_rng_init(&rng, 7);
	do {
		ready = atomic_load_explicit(&r->ready, memory_order_acquire);
		if (!ready)
			continue;
		for (int k = 0; k < 16; k++, c = (c + 1) % RACE_CG) {
			/* The newest shrinkers, cgroups in turn: installs of the
			 * newest unit are still going on when the next growth
			 * copies the arrays. */
			int i = ready - 1 - (int)shr_rng_below(&rng, ready < 8 ? (uint64_t)ready : 8);

			if (shr_set_shrinker_bit(r->cgs[c], 0, r->p[i]->shrinker)) {
				r->errors++;
				continue;
			}
			r->set[c][i] = true;
			r->sets++;
		}
	} while (ready < r->nr_shrinkers);
	shr_thread_unregister();
	return NULL;
}

static void race_run(enum shr_design design, int nr_shrinkers)
{
	struct race *r = calloc(1, sizeof(*r));
	pthread_t reg, ins;
	unsigned long missing = 0;

	assert_non_null(r);
	r->nr_shrinkers = nr_shrinkers;
	r->host = fix_host_with(design, 1, true, false, 0);
	fix_mkcgs(r->host, r->cgs, RACE_CG);
	shr_test_widen();
	assert_int_equal(pthread_create(&reg, NULL, race_register, r), 0);
	assert_int_equal(pthread_create(&ins, NULL, race_install, r), 0);
	pthread_join(reg, NULL);
	pthread_join(ins, NULL);
	shr_test_widen_end();
	for (int i = 0; i < r->nr_shrinkers; i++)
		assert_int_equal(shr_shrinker_register(r->p[i]->shrinker), 0);
	assert_int_equal(r->errors, 0);
	assert_true(r->sets > 0);
	for (int c = 0; c < RACE_CG; c++) {
		unsigned long ino = shr_mem_cgroup_ino(r->cgs[c]);

		fix_shrink(r->host, 0, r->cgs[c], 0);
		for (int i = 0; i < r->nr_shrinkers; i++) {
			int called = atomic_load(&r->p[i]->count_calls_of[ino]);

			if (r->set[c][i] && !called)
				missing++;
			/* No bit was invented either. */
			assert_true(r->set[c][i] || !called);
		}
	}
	printf("# %s: %lu bits set during %d registrations, %lu lost\n", shr_design_name(design),
	       r->sets, r->nr_shrinkers, missing);
	assert_int_equal(missing, 0);
	for (int i = 0; i < r->nr_shrinkers; i++)
		fake_delete(r->p[i]);
	fix_rmcgs(r->cgs, RACE_CG);
	fix_host_done(r->host);
	free(r);
}

static void test_array_ondemand_install_racing_registration_loses_nothing(void **state)
{
	(void)state;
	race_run(SHR_DESIGN_ARRAY_ONDEMAND, RACE_SHRINKERS);
}
/* flat: set_bit racing with the copy of every map (one growth per id). */
static void test_flat_set_bit_racing_growth_loses_nothing(void **state)
{
	(void)state;
	race_run(SHR_DESIGN_FLAT, 512);
}
/* nonslab_ids (kmem off): plain memcg-aware registrations grow the root
 * only; non-root cgroups' bookkeeping does not grow; a NONSLAB shrinker
 * grows the second id space and works end to end (bits, deferred work,
 * reparenting to the root's shrinker-id slot). */
static void check_nonslab_ids(enum shr_design design)
{
	struct shr_host *host = fix_host_with(design, 1, false, true, 0);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cgs[30];
	struct shr_memcg_bookkeeping b0, b1;
	struct shr_bookkeeping_stats st0, st1;
	struct shr_shrinker *s[130];
	struct fake *p;
	unsigned long ino;

	fix_mkcgs(host, cgs, 30);
	b0 = fix_bookkeeping(cgs[0], 0);
	shr_host_bookkeeping_stats(host, &st0);
	for (int i = 0; i < 130; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st1);
	b1 = fix_bookkeeping(cgs[0], 0);
	assert_true(st1.expansions > st0.expansions);
	/* Only the root, once per expansion. */
	assert_int_equal(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration,
			 st1.expansions - st0.expansions);
	assert_int_equal(st1.arrays_reallocated - st0.arrays_reallocated,
			 st1.expansions - st0.expansions);
	assert_int_equal(b1.container_bytes, b0.container_bytes);
	assert_int_equal(b1.unit_bytes, 0);
	assert_true(b1.container_bytes <= 32); /* a header for zero ids */
	assert_true(fix_bookkeeping(root, 0).container_bytes > b1.container_bytes);

	/* A NONSLAB one: primary id 130, nonslab id 0; grows every cgroup. */
	shr_host_bookkeeping_stats(host, &st0);
	p = fake_new_objects(host, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NONSLAB, true, true);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(shr_shrinker_id(p->shrinker), 130);
	assert_true(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration >= 30);
	assert_true(fix_bookkeeping(cgs[0], 0).container_bytes > b1.container_bytes ||
		    fix_bookkeeping(cgs[0], 0).unit_bytes > 0 || design == SHR_DESIGN_ARRAY_ONDEMAND);
	ino = shr_mem_cgroup_ino(cgs[3]);
	p->zero_means_zero = false;
	p->objects[ino][0] = 5;
	assert_int_equal(shr_set_shrinker_bit(cgs[3], 0, p->shrinker), 0);
	assert_int_equal(fix_shrink(host, 0, cgs[3], 0), 5);
	/* Empty now: the bit goes; the next walk calls nothing. */
	assert_int_equal(fix_shrink(host, 0, cgs[3], 0), 0);
	atomic_store(&p->count_calls_of[ino], 0);
	assert_int_equal(fix_shrink(host, 0, cgs[3], 0), 0);
	assert_int_equal(atomic_load(&p->count_calls_of[ino]), 0);
	/* Deferred work in the child's nonslab slot, reparented to the root's
	 * shrinker-id slot. */
	p->objects[ino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cgs[3], 0, p->shrinker), 0);
	fix_shrink(host, 0, cgs[3], 12);
	assert_int_equal(shr_shrinker_nr_deferred(p->shrinker, cgs[3], 0), 104);
	assert_int_equal(shr_shrinker_nr_deferred(p->shrinker, root, 0), 0);
	assert_int_equal(shr_shrinker_nr_deferred(s[0], cgs[3], 0), 0);
	assert_int_equal(shr_mem_cgroup_offline(cgs[3]), 0);
	cgs[3] = shr_test_mkcg(root);
	assert_int_equal(shr_shrinker_nr_deferred(p->shrinker, root, 0), 104);
	fake_delete(p);
	fix_free_all(s, 130);
	fix_rmcgs(cgs, 30);
	fix_host_done(host);
}
static void test_nonslab_ids_plain_registration_touches_only_the_root(void **state)
{
	(void)state;
	check_nonslab_ids(SHR_DESIGN_FLAT);
	check_nonslab_ids(SHR_DESIGN_PREALLOC);
	check_nonslab_ids(SHR_DESIGN_ARRAY_ONDEMAND);
}
/* -ENOMEM at every allocation of a growth in turn: shrinker_nr_max stays,
 * the host stays consistent, the next registration succeeds and works. */
static void check_growth_enomem(enum shr_design design, bool nonslab)
{
	struct shr_host *host = fix_host_with(design, 2, !nonslab, nonslab, 0);
	struct shr_slab_allocator *sa = shr_host_slab(host);
	unsigned int flags = SHR_SHRINKER_MEMCG_AWARE | (nonslab ? SHR_SHRINKER_NONSLAB : 0);
	struct shr_mem_cgroup *cgs[6];
	struct shr_shrinker *s[64], *extra;
	struct fake *p;
	unsigned long n, failures = 0;
	int nr_max, ret;

	fix_mkcgs(host, cgs, 6);
	for (int i = 0; i < 64; i++)
		s[i] = fix_take_id(host, flags);
	nr_max = shr_shrinker_nr_max(host);
	for (n = 1;; n++) {
		shr_slab_fail_nth(sa, n, false);
		ret = shr_shrinker_alloc(host, flags, NULL, &extra);
		shr_slab_fault_clear(sa);
		if (!ret)
			break;
		assert_int_equal(ret, -ENOMEM);
		assert_int_equal(shr_shrinker_nr_max(host), nr_max);
		failures++;
		assert_true(n < 10000);
	}
	/* The shrinker itself, then the growth's infos and units. */
	assert_true(failures >= 3);
	assert_true(shr_shrinker_nr_max(host) > nr_max);
	/* Semantics intact: a new shrinker's bit on a cgroup gets it called. */
	p = fake_new_objects(host, flags, true, true);
	p->objects[shr_mem_cgroup_ino(cgs[2])][1] = 7;
	assert_int_equal(shr_set_shrinker_bit(cgs[2], 1, p->shrinker), 0);
	assert_int_equal(fix_shrink(host, 1, cgs[2], 0), 7);
	fake_delete(p);
	shr_shrinker_free(extra);
	fix_free_all(s, 64);
	fix_rmcgs(cgs, 6);
	fix_host_done(host);
}
static void test_enomem_during_growth_leaves_nr_max_and_host_intact(void **state)
{
	(void)state;
	check_growth_enomem(SHR_DESIGN_PREALLOC, false);
	check_growth_enomem(SHR_DESIGN_ARRAY_ONDEMAND, false);
	check_growth_enomem(SHR_DESIGN_FLAT, false);
	check_growth_enomem(SHR_DESIGN_FLAT, true);
	check_growth_enomem(SHR_DESIGN_PREALLOC, true);
}
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_ondemand_install_racing_registration_loses_nothing),
		cmocka_unit_test(test_flat_set_bit_racing_growth_loses_nothing),
		cmocka_unit_test(test_nonslab_ids_plain_registration_touches_only_the_root),
		cmocka_unit_test(test_enomem_during_growth_leaves_nr_max_and_host_intact),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_grow", tests);
}
