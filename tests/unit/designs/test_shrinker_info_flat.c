/* SPDX-License-Identifier: MIT */
/*
 * What the flat design (src/designs/shrinker_info_flat.c, 5.13-6.6: one
 * bitmap and counter array per cgroup and node) promises beyond the
 * semantic suite: one growth per new id by default and expand_batch=N
 * dividing them, every cgroup's map reallocated each time; bits and
 * deferred work survive growths; deferred work added by reclaim while the
 * maps are copied is neither lost nor counted twice. Public API only.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
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

/* flat: one expansion per new id by default (as in 6.6), every cgroup's map
 * reallocated each time; expand_batch=N divides the expansions by N. */
static void check_flat_expansions(unsigned int batch, unsigned long want_expansions,
				  int want_nr_max)
{
	struct shr_host *host = fix_host_with(SHR_DESIGN_FLAT, 2, true, false, batch);
	struct shr_mem_cgroup *cgs[5];
	struct shr_shrinker *s[100];
	struct shr_bookkeeping_stats st;

	fix_mkcgs(host, cgs, 5);
	for (int i = 0; i < 100; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st);
	assert_int_equal(st.expansions, want_expansions);
	assert_int_equal(st.arrays_reallocated, want_expansions * 6 * 2);
	assert_int_equal(shr_shrinker_nr_max(host), want_nr_max);
	assert_true(fix_bookkeeping(cgs[0], 0).container_bytes >=
		    (unsigned long)want_nr_max * 8 + (unsigned long)(want_nr_max + 63) / 64 * 8);
	fix_free_all(s, 100);
	fix_rmcgs(cgs, 5);
	fix_host_done(host);
}
static void test_flat_grows_once_per_new_id_and_batch_divides(void **state)
{
	(void)state;
	check_flat_expansions(0, 100, 100);
	check_flat_expansions(8, 13, 104);
}
/* flat: a bit and deferred work set before many growths are still there
 * after them (copied and moved). */
static void test_flat_growth_keeps_bits_and_deferred_work(void **state)
{
	struct shr_host *host = fix_host_with(SHR_DESIGN_FLAT, 1, true, false, 0);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *p = fake_new_objects(host, SHR_SHRINKER_MEMCG_AWARE, true, true);
	struct shr_shrinker *s[70];
	unsigned long ino = shr_mem_cgroup_ino(cg);

	(void)state;
	p->objects[ino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, p->shrinker), 0);
	fix_shrink(host, 0, cg, 12); /* defers 104 */
	assert_int_equal(shr_shrinker_nr_deferred(p->shrinker, cg, 0), 104);
	for (int i = 0; i < 70; i++)
		s[i] = fix_take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	assert_int_equal(shr_shrinker_nr_deferred(p->shrinker, cg, 0), 104);
	atomic_store(&p->count_calls_of[ino], 0);
	fix_shrink(host, 0, cg, 12);
	assert_int_equal(atomic_load(&p->count_calls_of[ino]), 1);
	fix_free_all(s, 70);
	fake_delete(p);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	fix_host_done(host);
}
/*
 * flat: deferred work added by reclaim while every map is being copied (one
 * growth per id) is neither lost nor counted twice. Each probe reports 2^40
 * objects with a batch no scan reaches, so each call at priority 12 takes
 * the deferred work out and gives it back plus exactly 2^29.
 */
#define DEF_CG 8
#define DEF_PROBES 4
#define DEF_CALLS 2000

struct def_race {
	struct shr_host *host;
	struct shr_mem_cgroup *cgs[DEF_CG];
	struct fake *p[DEF_PROBES];
	struct shr_shrinker *ids[512];
	atomic_bool started; /* the reclaimer made its first pass */
	atomic_bool done;
	int errors;
};

static void *def_register(void *arg)
{
	struct def_race *r = arg;

	shr_thread_register();
	/* Growths start once reclaim runs, however the threads are scheduled
	 * (else a loaded machine can run all 512 before the first call). */
	while (!atomic_load(&r->started))
		sched_yield();
	for (int i = 0; i < 512; i++)
		if (shr_shrinker_alloc(r->host, SHR_SHRINKER_MEMCG_AWARE, NULL, &r->ids[i]))
			r->errors++;
	atomic_store(&r->done, true);
	shr_thread_unregister();
	return NULL;
}

static void *def_reclaim(void *arg)
{
	struct def_race *r = arg;
	unsigned long freed;

	shr_thread_register();
	for (int n = 0; n < DEF_CALLS && !atomic_load(&r->done); n++) {
		for (int c = 0; c < DEF_CG; c++)
			if (shr_shrink_slab(r->host, 0, r->cgs[c], 12, &freed))
				r->errors++;
		atomic_store(&r->started, true);
	}
	atomic_store(&r->started, true);
	shr_thread_unregister();
	return NULL;
}

static void test_flat_deferred_work_racing_growth_is_conserved(void **state)
{
	struct def_race *r = calloc(1, sizeof(*r));
	pthread_t reg, rec;
	unsigned long calls = 0;

	(void)state;
	shr_test_widen();
	assert_non_null(r);
	r->host = fix_host_with(SHR_DESIGN_FLAT, 1, true, false, 0);
	fix_mkcgs(r->host, r->cgs, DEF_CG);
	for (int i = 0; i < DEF_PROBES; i++) {
		r->p[i] = fake_new_objects(r->host, SHR_SHRINKER_MEMCG_AWARE, false, true);
		r->p[i]->shrinker->batch = 1L << 62;
		for (int c = 0; c < DEF_CG; c++) {
			r->p[i]->objects[shr_mem_cgroup_ino(r->cgs[c])][0] = 1L << 40;
			assert_int_equal(shr_set_shrinker_bit(r->cgs[c], 0, r->p[i]->shrinker), 0);
		}
		assert_int_equal(shr_shrinker_register(r->p[i]->shrinker), 0);
	}
	assert_int_equal(pthread_create(&rec, NULL, def_reclaim, r), 0);
	assert_int_equal(pthread_create(&reg, NULL, def_register, r), 0);
	pthread_join(reg, NULL);
	pthread_join(rec, NULL);
	shr_test_widen_end();
	assert_int_equal(r->errors, 0);
	for (int i = 0; i < DEF_PROBES; i++) {
		for (int c = 0; c < DEF_CG; c++) {
			long n = atomic_load(&r->p[i]->count_calls_of[shr_mem_cgroup_ino(r->cgs[c])]);

			calls += (unsigned long)n;
			assert_int_equal(shr_shrinker_nr_deferred(r->p[i]->shrinker, r->cgs[c], 0),
					 n * (1L << 29));
		}
	}
	printf("# %lu calls deferred work during 512 growths\n", calls);
	assert_true(calls > 0);
	fix_free_all(r->ids, 512);
	for (int i = 0; i < DEF_PROBES; i++)
		fake_delete(r->p[i]);
	fix_rmcgs(r->cgs, DEF_CG);
	fix_host_done(r->host);
	free(r);
}
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_grows_once_per_new_id_and_batch_divides),
		cmocka_unit_test(test_flat_growth_keeps_bits_and_deferred_work),
		cmocka_unit_test(test_flat_deferred_work_racing_growth_is_conserved),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_info_flat", tests);
}
