/* SPDX-License-Identifier: MIT */
/*
 * What the array-growth designs (prealloc, array-ondemand, flat) promise
 * beyond the semantic suite: where their units and arrays come from, what a
 * registration costs them (counted), that no install, bit or deferred count
 * is lost to a growth, nonslab_ids, and -ENOMEM during growth.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "harness.h"

#define MAX_CG 48
#define MAX_INO 256

/* Counts per (cgroup ino) which shrinkers were called; holds @objects per
 * (ino, node) and frees them on scan. */
struct probe {
	struct shr_shrinker *s;
	atomic_int called[MAX_INO];
	long objects[MAX_INO][2];
	bool zero_when_empty; /* count 0 (keeps the bit) instead of SHRINK_EMPTY */
	pthread_mutex_t lock;
};

static unsigned long probe_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct probe *p = s->private_data;
	unsigned long ino = shr_mem_cgroup_ino(sc->memcg);
	long n;

	atomic_fetch_add(&p->called[ino], 1);
	pthread_mutex_lock(&p->lock);
	n = p->objects[ino][sc->nid];
	pthread_mutex_unlock(&p->lock);
	if (n)
		return (unsigned long)n;
	return p->zero_when_empty ? 0 : SHR_SHRINK_EMPTY;
}

static unsigned long probe_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct probe *p = s->private_data;
	unsigned long ino = shr_mem_cgroup_ino(sc->memcg);
	long take;

	pthread_mutex_lock(&p->lock);
	take = p->objects[ino][sc->nid];
	if ((unsigned long)take > sc->nr_to_scan)
		take = (long)sc->nr_to_scan;
	p->objects[ino][sc->nid] -= take;
	pthread_mutex_unlock(&p->lock);
	return (unsigned long)take;
}

static struct probe *probe_alloc(struct shr_host *host, unsigned int flags)
{
	struct probe *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	pthread_mutex_init(&p->lock, NULL);
	assert_int_equal(shr_shrinker_alloc(host, flags, "probe", &p->s), 0);
	p->s->count_objects = probe_count;
	p->s->scan_objects = probe_scan;
	p->s->private_data = p;
	p->zero_when_empty = true;
	return p;
}

static struct probe *probe_new(struct shr_host *host, unsigned int flags)
{
	struct probe *p = probe_alloc(host, flags);

	assert_int_equal(shr_shrinker_register(p->s), 0);
	return p;
}

static void probe_free(struct probe *p)
{
	shr_shrinker_free(p->s);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static struct shr_host *host_of(enum shr_design design, int nodes, bool kmem, bool nonslab,
				unsigned int batch)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = nodes;
	p.kmem = kmem;
	p.nonslab_ids = nonslab;
	p.expand_batch = batch;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static void mkcgs(struct shr_host *host, struct shr_mem_cgroup **cgs, int n)
{
	for (int i = 0; i < n; i++)
		cgs[i] = shr_test_mkcg(shr_host_root_mem_cgroup(host));
}

static void rmcgs(struct shr_mem_cgroup **cgs, int n)
{
	for (int i = n - 1; i >= 0; i--)
		assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
}

/* A memcg-aware shrinker allocated (not registered): takes an id, grows. */
static struct shr_shrinker *take_id(struct shr_host *host, unsigned int flags)
{
	struct shr_shrinker *s;

	assert_int_equal(shr_shrinker_alloc(host, flags, NULL, &s), 0);
	return s;
}

static void free_all(struct shr_shrinker **s, int n)
{
	for (int i = 0; i < n; i++)
		shr_shrinker_free(s[i]);
}

static unsigned long shrink(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg,
			    int prio)
{
	unsigned long freed = 0;

	assert_int_equal(shr_shrink_slab(host, nid, memcg, prio, &freed), 0);
	return freed;
}

static struct shr_memcg_bookkeeping bk(struct shr_mem_cgroup *memcg, int nid)
{
	struct shr_memcg_bookkeeping b;

	assert_int_equal(shr_mem_cgroup_bookkeeping(memcg, nid, &b), 0);
	return b;
}

static void host_done(struct shr_host *host)
{
	assert_int_equal(shr_host_destroy(host), 0);
}

/* prealloc: a cgroup onlined after 130 registrations holds every unit (3
 * per node), and an empty cgroup's walk reads all of them. */
static void test_prealloc_allocates_every_unit_at_online(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_PREALLOC, 2, true, false, 0);
	struct shr_shrinker *s[130];
	struct shr_bookkeeping_stats st0, st1;
	struct shr_mem_cgroup *cg;

	(void)state;
	for (int i = 0; i < 130; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	assert_int_equal(shr_shrinker_nr_max(host), 192);
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	for (int nid = 0; nid < 2; nid++) {
		struct shr_memcg_bookkeeping b = bk(cg, nid);

		assert_int_equal(b.nr_units, 192 / 64);
		assert_true(b.unit_bytes >= 3 * 520);
		assert_true(b.container_bytes >= 24 + 3 * 8);
		assert_int_equal(bk(shr_host_root_mem_cgroup(host), nid).nr_units, 3);
	}
	shr_host_bookkeeping_stats(host, &st0);
	assert_int_equal(shrink(host, 1, cg, 0), 0);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.units_visited - st0.units_visited, 3);
	free_all(s, 130);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* prealloc: crossing a unit boundary reallocates one info per cgroup and
 * node (root included, a dying cgroup too) and copies the old pointers. */
static void test_prealloc_growth_reallocates_every_cgroup_node(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_PREALLOC, 2, true, false, 0);
	struct shr_mem_cgroup *cgs[10], *dying;
	struct shr_shrinker *s[129];
	struct shr_bookkeeping_stats st0, st1;
	const unsigned long cgroups = 10 + 1 + 1; /* + dying + root */

	(void)state;
	mkcgs(host, cgs, 10);
	dying = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	shr_mem_cgroup_get(dying);
	assert_int_equal(shr_mem_cgroup_offline(dying), 0);
	for (int i = 0; i < 128; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st0);
	s[128] = take_id(host, SHR_SHRINKER_MEMCG_AWARE); /* id 128: third unit */
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(shr_shrinker_nr_max(host), 192);
	assert_int_equal(st1.expansions - st0.expansions, 1);
	assert_int_equal(st1.arrays_reallocated - st0.arrays_reallocated, cgroups * 2);
	assert_int_equal(st1.bytes_copied - st0.bytes_copied, cgroups * 2 * 2 * sizeof(void *));
	assert_int_equal(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration,
			 cgroups);
	assert_int_equal(bk(dying, 0).nr_units, 3);
	/* Within the unit: nothing is touched. */
	shr_shrinker_free(s[128]);
	shr_host_bookkeeping_stats(host, &st0);
	s[128] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.arrays_reallocated, st0.arrays_reallocated);
	assert_int_equal(st1.expansions, st0.expansions);
	free_all(s, 129);
	shr_mem_cgroup_put(dying);
	rmcgs(cgs, 10);
	host_done(host);
}

/* array-ondemand: a cgroup gets a unit (on every node) only when it gets a
 * bit of a shrinker in that unit; the root holds every unit. */
static void test_array_ondemand_allocates_units_only_on_install(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_ARRAY_ONDEMAND, 2, true, false, 0);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_shrinker *s[130];
	struct probe *p;

	(void)state;
	for (int i = 0; i < 130; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	p = probe_new(host, SHR_SHRINKER_MEMCG_AWARE); /* id 130, unit 2 */
	assert_int_equal(shr_shrinker_id(p->s), 130);
	assert_int_equal(bk(cg, -1).nr_units, 0);
	assert_int_equal(bk(cg, -1).unit_bytes, 0);
	assert_int_equal(bk(shr_host_root_mem_cgroup(host), -1).nr_units, 2 * 3);
	assert_int_equal(shr_set_shrinker_bit(cg, 1, p->s), 0);
	assert_int_equal(bk(cg, 0).nr_units, 1);
	assert_int_equal(bk(cg, 1).nr_units, 1);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, s[129]), 0); /* same unit */
	assert_int_equal(bk(cg, -1).nr_units, 2);
	p->objects[shr_mem_cgroup_ino(cg)][1] = 9;
	assert_int_equal(shrink(host, 1, cg, 0), 9);
	probe_free(p);
	free_all(s, 130);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* The race: one thread registers shrinkers across many unit boundaries
 * (each growth copies every cgroup's pointers), the other installs units
 * and sets bits of the shrinkers registered so far on many cgroups. */
#define RACE_CG 64
#define RACE_SHRINKERS (64 * 48)

struct race {
	struct shr_host *host;
	struct shr_mem_cgroup *cgs[RACE_CG];
	struct probe *p[RACE_SHRINKERS];
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
		r->p[i] = probe_alloc(r->host, SHR_SHRINKER_MEMCG_AWARE);
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

			if (shr_set_shrinker_bit(r->cgs[c], 0, r->p[i]->s)) {
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
	r->host = host_of(design, 1, true, false, 0);
	mkcgs(r->host, r->cgs, RACE_CG);
	shr_test_widen();
	assert_int_equal(pthread_create(&reg, NULL, race_register, r), 0);
	assert_int_equal(pthread_create(&ins, NULL, race_install, r), 0);
	pthread_join(reg, NULL);
	pthread_join(ins, NULL);
	shr_test_widen_end();
	for (int i = 0; i < r->nr_shrinkers; i++)
		assert_int_equal(shr_shrinker_register(r->p[i]->s), 0);
	assert_int_equal(r->errors, 0);
	assert_true(r->sets > 0);
	for (int c = 0; c < RACE_CG; c++) {
		unsigned long ino = shr_mem_cgroup_ino(r->cgs[c]);

		shrink(r->host, 0, r->cgs[c], 0);
		for (int i = 0; i < r->nr_shrinkers; i++) {
			int called = atomic_load(&r->p[i]->called[ino]);

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
		probe_free(r->p[i]);
	rmcgs(r->cgs, RACE_CG);
	host_done(r->host);
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
	struct probe *p[DEF_PROBES];
	struct shr_shrinker *ids[512];
	atomic_bool done;
	int errors;
};

static void *def_register(void *arg)
{
	struct def_race *r = arg;

	shr_thread_register();
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
	for (int n = 0; n < DEF_CALLS && !atomic_load(&r->done); n++)
		for (int c = 0; c < DEF_CG; c++)
			if (shr_shrink_slab(r->host, 0, r->cgs[c], 12, &freed))
				r->errors++;
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
	r->host = host_of(SHR_DESIGN_FLAT, 1, true, false, 0);
	mkcgs(r->host, r->cgs, DEF_CG);
	for (int i = 0; i < DEF_PROBES; i++) {
		r->p[i] = probe_alloc(r->host, SHR_SHRINKER_MEMCG_AWARE);
		r->p[i]->s->batch = 1L << 62;
		for (int c = 0; c < DEF_CG; c++) {
			r->p[i]->objects[shr_mem_cgroup_ino(r->cgs[c])][0] = 1L << 40;
			assert_int_equal(shr_set_shrinker_bit(r->cgs[c], 0, r->p[i]->s), 0);
		}
		assert_int_equal(shr_shrinker_register(r->p[i]->s), 0);
	}
	assert_int_equal(pthread_create(&rec, NULL, def_reclaim, r), 0);
	assert_int_equal(pthread_create(&reg, NULL, def_register, r), 0);
	pthread_join(reg, NULL);
	pthread_join(rec, NULL);
	shr_test_widen_end();
	assert_int_equal(r->errors, 0);
	for (int i = 0; i < DEF_PROBES; i++) {
		for (int c = 0; c < DEF_CG; c++) {
			long n = atomic_load(&r->p[i]->called[shr_mem_cgroup_ino(r->cgs[c])]);

			calls += (unsigned long)n;
			assert_int_equal(shr_shrinker_nr_deferred(r->p[i]->s, r->cgs[c], 0),
					 n * (1L << 29));
		}
	}
	printf("# %lu calls deferred work during 512 growths\n", calls);
	assert_true(calls > 0);
	free_all(r->ids, 512);
	for (int i = 0; i < DEF_PROBES; i++)
		probe_free(r->p[i]);
	rmcgs(r->cgs, DEF_CG);
	host_done(r->host);
	free(r);
}

/* flat: one expansion per new id by default (as in 6.6), every cgroup's map
 * reallocated each time; expand_batch=N divides the expansions by N. */
static void check_flat_expansions(unsigned int batch, unsigned long want_expansions,
				  int want_nr_max)
{
	struct shr_host *host = host_of(SHR_DESIGN_FLAT, 2, true, false, batch);
	struct shr_mem_cgroup *cgs[5];
	struct shr_shrinker *s[100];
	struct shr_bookkeeping_stats st;

	mkcgs(host, cgs, 5);
	for (int i = 0; i < 100; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st);
	assert_int_equal(st.expansions, want_expansions);
	assert_int_equal(st.arrays_reallocated, want_expansions * 6 * 2);
	assert_int_equal(shr_shrinker_nr_max(host), want_nr_max);
	assert_true(bk(cgs[0], 0).container_bytes >=
		    (unsigned long)want_nr_max * 8 + (unsigned long)(want_nr_max + 63) / 64 * 8);
	free_all(s, 100);
	rmcgs(cgs, 5);
	host_done(host);
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
	struct shr_host *host = host_of(SHR_DESIGN_FLAT, 1, true, false, 0);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct probe *p = probe_new(host, SHR_SHRINKER_MEMCG_AWARE);
	struct shr_shrinker *s[70];
	unsigned long ino = shr_mem_cgroup_ino(cg);

	(void)state;
	p->objects[ino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, p->s), 0);
	shrink(host, 0, cg, 12); /* defers 104 */
	assert_int_equal(shr_shrinker_nr_deferred(p->s, cg, 0), 104);
	for (int i = 0; i < 70; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	assert_int_equal(shr_shrinker_nr_deferred(p->s, cg, 0), 104);
	atomic_store(&p->called[ino], 0);
	shrink(host, 0, cg, 12);
	assert_int_equal(atomic_load(&p->called[ino]), 1);
	free_all(s, 70);
	probe_free(p);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* nonslab_ids (kmem off): plain memcg-aware registrations grow the root
 * only; non-root cgroups' bookkeeping does not grow; a NONSLAB shrinker
 * grows the second id space and works end to end (bits, deferred work,
 * reparenting to the root's shrinker-id slot). */
static void check_nonslab_ids(enum shr_design design)
{
	struct shr_host *host = host_of(design, 1, false, true, 0);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cgs[30];
	struct shr_memcg_bookkeeping b0, b1;
	struct shr_bookkeeping_stats st0, st1;
	struct shr_shrinker *s[130];
	struct probe *p;
	unsigned long ino;

	mkcgs(host, cgs, 30);
	b0 = bk(cgs[0], 0);
	shr_host_bookkeeping_stats(host, &st0);
	for (int i = 0; i < 130; i++)
		s[i] = take_id(host, SHR_SHRINKER_MEMCG_AWARE);
	shr_host_bookkeeping_stats(host, &st1);
	b1 = bk(cgs[0], 0);
	assert_true(st1.expansions > st0.expansions);
	/* Only the root, once per expansion. */
	assert_int_equal(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration,
			 st1.expansions - st0.expansions);
	assert_int_equal(st1.arrays_reallocated - st0.arrays_reallocated,
			 st1.expansions - st0.expansions);
	assert_int_equal(b1.container_bytes, b0.container_bytes);
	assert_int_equal(b1.unit_bytes, 0);
	assert_true(b1.container_bytes <= 32); /* a header for zero ids */
	assert_true(bk(root, 0).container_bytes > b1.container_bytes);

	/* A NONSLAB one: primary id 130, nonslab id 0; grows every cgroup. */
	shr_host_bookkeeping_stats(host, &st0);
	p = probe_new(host, SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NONSLAB);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(shr_shrinker_id(p->s), 130);
	assert_true(st1.cgroups_visited_by_registration - st0.cgroups_visited_by_registration >= 30);
	assert_true(bk(cgs[0], 0).container_bytes > b1.container_bytes ||
		    bk(cgs[0], 0).unit_bytes > 0 || design == SHR_DESIGN_ARRAY_ONDEMAND);
	ino = shr_mem_cgroup_ino(cgs[3]);
	p->zero_when_empty = false;
	p->objects[ino][0] = 5;
	assert_int_equal(shr_set_shrinker_bit(cgs[3], 0, p->s), 0);
	assert_int_equal(shrink(host, 0, cgs[3], 0), 5);
	/* Empty now: the bit goes; the next walk calls nothing. */
	assert_int_equal(shrink(host, 0, cgs[3], 0), 0);
	atomic_store(&p->called[ino], 0);
	assert_int_equal(shrink(host, 0, cgs[3], 0), 0);
	assert_int_equal(atomic_load(&p->called[ino]), 0);
	/* Deferred work in the child's nonslab slot, reparented to the root's
	 * shrinker-id slot. */
	p->objects[ino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cgs[3], 0, p->s), 0);
	shrink(host, 0, cgs[3], 12);
	assert_int_equal(shr_shrinker_nr_deferred(p->s, cgs[3], 0), 104);
	assert_int_equal(shr_shrinker_nr_deferred(p->s, root, 0), 0);
	assert_int_equal(shr_shrinker_nr_deferred(s[0], cgs[3], 0), 0);
	assert_int_equal(shr_mem_cgroup_offline(cgs[3]), 0);
	cgs[3] = shr_test_mkcg(root);
	assert_int_equal(shr_shrinker_nr_deferred(p->s, root, 0), 104);
	probe_free(p);
	free_all(s, 130);
	rmcgs(cgs, 30);
	host_done(host);
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
	struct shr_host *host = host_of(design, 2, !nonslab, nonslab, 0);
	struct shr_slab_allocator *sa = shr_host_slab(host);
	unsigned int flags = SHR_SHRINKER_MEMCG_AWARE | (nonslab ? SHR_SHRINKER_NONSLAB : 0);
	struct shr_mem_cgroup *cgs[6];
	struct shr_shrinker *s[64], *extra;
	struct probe *p;
	unsigned long n, failures = 0;
	int nr_max, ret;

	mkcgs(host, cgs, 6);
	for (int i = 0; i < 64; i++)
		s[i] = take_id(host, flags);
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
	p = probe_new(host, flags);
	p->objects[shr_mem_cgroup_ino(cgs[2])][1] = 7;
	assert_int_equal(shr_set_shrinker_bit(cgs[2], 1, p->s), 0);
	assert_int_equal(shrink(host, 1, cgs[2], 0), 7);
	probe_free(p);
	shr_shrinker_free(extra);
	free_all(s, 64);
	rmcgs(cgs, 6);
	host_done(host);
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
		cmocka_unit_test(test_prealloc_allocates_every_unit_at_online),
		cmocka_unit_test(test_prealloc_growth_reallocates_every_cgroup_node),
		cmocka_unit_test(test_array_ondemand_allocates_units_only_on_install),
		cmocka_unit_test(test_array_ondemand_install_racing_registration_loses_nothing),
		cmocka_unit_test(test_flat_set_bit_racing_growth_loses_nothing),
		cmocka_unit_test(test_flat_deferred_work_racing_growth_is_conserved),
		cmocka_unit_test(test_flat_grows_once_per_new_id_and_batch_divides),
		cmocka_unit_test(test_flat_growth_keeps_bits_and_deferred_work),
		cmocka_unit_test(test_nonslab_ids_plain_registration_touches_only_the_root),
		cmocka_unit_test(test_enomem_during_growth_leaves_nr_max_and_host_intact),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("array_designs", tests);
}
