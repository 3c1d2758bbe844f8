/* SPDX-License-Identifier: MIT */
/*
 * The readers the public headers call safe at any time, racing the whole
 * life of cgroups, under every design: shr_shrinker_get_stats() (walks every
 * cgroup) and shr_mem_cgroup_bookkeeping() (on every cgroup an iterator
 * pins, whatever its state) while another thread allocates cgroups, brings
 * them online, gives them bits and deferred work, takes them offline and
 * lets them be released. Meant for the TSan build (`make check-tsan`),
 * where a reader that touches a design's per-node state while online
 * initialises it is a reported race; the other builds check that nothing
 * crashes and that the figures stay sane.
 *
 * Bounded by work: the churning thread runs a fixed number of cgroup
 * lives; the readers stop when it is done (each reads at least once).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "harness.h"

#define NODES 2
#define LIVES 320
#define BATCH 8
#define READERS 2

struct life {
	struct shr_host *host;
	struct shr_mem_cgroup *parent;
	struct fake f;
	struct shr_shrinker *s;
	atomic_int done;
	atomic_ulong reads;
};

/*
 * Cgroup lives in batches, so that each cgroup spends a while in every state
 * the readers may find it in: allocated (not online), online without a bit
 * (the design's state as online left it), online with a bit and deferred
 * work, dying, released (the last put runs release from the RCU callback
 * thread). Every seventh cgroup is never brought online.
 */
static void *churn(void *arg)
{
	struct life *l = arg;
	struct shr_mem_cgroup *cgs[BATCH];

	shr_thread_register();
	for (int b = 0; b < LIVES / BATCH; b++) {
		for (int i = 0; i < BATCH; i++)
			assert_int_equal(shr_mem_cgroup_alloc(l->parent, &cgs[i]), 0);
		sched_yield();
		for (int i = 0; i < BATCH; i++)
			if ((b * BATCH + i) % 7 != 6)
				assert_int_equal(shr_mem_cgroup_online(cgs[i]), 0);
		sched_yield();
		for (int i = 0; i < BATCH; i += 2) {
			unsigned long freed;
			int nid = (b + i) % NODES;

			if (!shr_mem_cgroup_is_online(cgs[i]))
				continue;
			assert_int_equal(shr_set_shrinker_bit(cgs[i], nid, l->s), 0);
			assert_int_equal(shr_shrink_slab(l->host, nid, cgs[i], 12, &freed), 0);
		}
		sched_yield();
		for (int i = 0; i < BATCH; i++)
			assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
	}
	atomic_store(&l->done, 1);
	shr_thread_unregister();
	return NULL;
}

static void read_once(struct life *l)
{
	struct shr_shrinker_stats st;
	struct shr_memcg_bookkeeping bk;
	struct shr_mem_cgroup *pos = NULL;

	assert_int_equal(shr_shrinker_get_stats(l->s, &st), 0);
	assert_true(st.deferred >= 0);
	while ((pos = shr_mem_cgroup_iter(l->host, NULL, pos))) {
		assert_int_equal(shr_mem_cgroup_bookkeeping(pos, -1, &bk), 0);
		assert_true(bk.nr_units <= 64UL * NODES);
	}
	atomic_fetch_add(&l->reads, 1);
}

static void *reader(void *arg)
{
	struct life *l = arg;

	shr_thread_register();
	do
		read_once(l);
	while (!atomic_load(&l->done));
	shr_thread_unregister();
	return NULL;
}

static void readers_race_cgroup_life(enum shr_design design)
{
	struct shr_host_params p;
	struct life l = { 0 };
	pthread_t ch, rd[READERS];

	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = NODES;
	p.geometry_cpus = 2;
	assert_int_equal(shr_host_create(&p, &l.host), 0);
	l.parent = shr_test_mkcg(shr_host_root_mem_cgroup(l.host));
	/* Counts 1000, frees nothing: the work is deferred. */
	fake_init(&l.f, 1000);
	l.f.scan_ret = 0;
	l.s = fake_make(l.host, &l.f, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE, "life",
			true);

	for (int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&rd[i], NULL, reader, &l), 0);
	assert_int_equal(pthread_create(&ch, NULL, churn, &l), 0);
	pthread_join(ch, NULL);
	for (int i = 0; i < READERS; i++)
		pthread_join(rd[i], NULL);
	assert_true(atomic_load(&l.reads) >= READERS);

	shr_shrinker_free(l.s);
	assert_int_equal(shr_mem_cgroup_offline(l.parent), 0);
	assert_int_equal(shr_host_destroy(l.host), 0);
}

static void test_readers_race_cgroup_life(void **state)
{
	readers_race_cgroup_life(*(enum shr_design *)*state);
}

static enum shr_design designs[SHR_NR_DESIGNS];
static char names[SHR_NR_DESIGNS][64];

int main(int argc, char **argv)
{
	struct CMUnitTest tests[SHR_NR_DESIGNS];

	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		designs[d] = (enum shr_design)d;
		snprintf(names[d], sizeof(names[d]), "test_readers_race_cgroup_life[%s]",
			 shr_design_name((enum shr_design)d));
		tests[d] = (struct CMUnitTest){
			.name = names[d],
			.test_func = test_readers_race_cgroup_life,
			.initial_state = &designs[d],
		};
	}
	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("cgroup_life_readers", tests);
}
