/* SPDX-License-Identifier: MIT */
/*
 * Interleavings forced at named race points (<shrinker/race.h>), one test
 * per race and design configuration. A hook on a point runs the other
 * thread's side of the race exactly inside the window, so each test is
 * deterministic; without race points in the build (-Ddebug_checks=false)
 * the tests are skipped.
 *
 * Id reuse (issue 11, bug 2; docs/upstream/kernel-bug-id-reuse.md): a cgroup walk
 * finds a bit whose shrinker cannot be pinned (being freed) and clears it.
 * Inside that window the old owner's free finishes, a new shrinker gets the
 * same (lowest free) id and adds its first object in the cgroup, which sets
 * the bit the walk is about to clear. The walk must not leave that object
 * without its bit, whether the new owner is registered already or only
 * allocated (objects added before registration).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/race.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "harness.h"

#define NR_ITEMS 4

struct race_cfg {
	const char *name;
	enum shr_design design;
	bool nonslab; /* kmem off, nonslab ids, NONSLAB shrinkers, own bits */
};

/*
 * A cache of a few objects in one cgroup and node. With kmem on its
 * objects sit on a list_lru (which sets the bit on the first add); with
 * kmem off it is a NONSLAB user that counts its objects itself and calls
 * shr_set_shrinker_bit() on the first one, as the kernel's deferred split
 * queue does.
 */
struct cache {
	struct fake f; /* FAKE_LRU, or FAKE_OBJECTS for the NONSLAB user */
	struct shr_mem_cgroup *memcg;
	bool nonslab;
	struct shr_list_head items[NR_ITEMS];
	int nr_added;
};

/* Allocate (not register) a cache's shrinker and list. */
static void cache_alloc(struct cache *c, struct shr_host *host, struct shr_mem_cgroup *memcg,
			bool nonslab)
{
	unsigned int flags = SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE;

	memset(c, 0, sizeof(*c));
	c->memcg = memcg;
	c->nonslab = nonslab;
	if (nonslab) {
		fake_init_objects(&c->f);
		fake_make(host, &c->f, flags | SHR_SHRINKER_NONSLAB, "race", false);
	} else {
		fake_init_lru(&c->f);
		fake_make(host, &c->f, flags, "race", false);
		fake_bind_lru(host, &c->f);
	}
	for (int i = 0; i < NR_ITEMS; i++)
		shr_list_head_init(&c->items[i]);
}

/* One more object in (c->memcg, node 0); its add sets the bit. */
static void cache_add(struct cache *c)
{
	assert_true(c->nr_added < NR_ITEMS);
	if (c->nonslab) {
		long n = fake_objects(&c->f, c->memcg, 0);

		fake_set_objects(&c->f, c->memcg, 0, n + 1);
		if (n == 0)
			assert_int_equal(shr_set_shrinker_bit(c->memcg, 0, c->f.shrinker), 0);
	} else {
		assert_int_equal(shr_list_lru_add(c->f.lru, &c->items[c->nr_added], 0, c->memcg),
				 1);
	}
	c->nr_added++;
}

/* Objects of the cache still in (c->memcg, node 0). */
static unsigned long cache_left(struct cache *c)
{
	if (c->nonslab)
		return (unsigned long)fake_objects(&c->f, c->memcg, 0);
	return shr_list_lru_count_one(c->f.lru, 0, c->memcg);
}

/* Free the shrinker (if @free_shrinker) and drop what the cache holds. */
static void cache_destroy(struct cache *c, bool free_shrinker)
{
	if (free_shrinker)
		shr_shrinker_free(c->f.shrinker);
	if (!c->nonslab) {
		for (int i = 0; i < c->nr_added; i++)
			(void)shr_list_lru_del(c->f.lru, &c->items[i], 0, c->memcg);
		shr_list_lru_destroy(c->f.lru);
	}
}

/* ---- the forced interleaving ------------------------------------------- */

enum new_owner {
	NEW_NONE,       /* the id stays free */
	NEW_REGISTERED, /* alloc, register, first object */
	NEW_UNARMED,    /* alloc, first object, not registered (yet) */
};

struct reuse {
	struct shr_host *host;
	struct shr_mem_cgroup *memcg;
	const struct race_cfg *cfg;
	struct cache old, new;
	int old_id;
	enum new_owner mode;
	pthread_t freer;
	sem_t freer_stopped, freer_go;
	bool hook_ran;
};

static struct reuse *R;

/* In the freeing thread: the old owner cannot be pinned any more, its id
 * and bits are still there. Wait until the walk is inside its window. */
static void hook_shrinker_dead(enum shr_race_point p, void *arg)
{
	struct reuse *r = arg;

	(void)p;
	shr_race_set_hook(SHR_RACE_SHRINKER_DEAD, NULL, NULL);
	sem_post(&r->freer_stopped);
	sem_wait(&r->freer_go);
}

static void *freer_main(void *arg)
{
	struct reuse *r = arg;

	shr_thread_register();
	shr_shrinker_free(r->old.f.shrinker);
	shr_thread_unregister();
	return NULL;
}

/* In the walker, between its failed pin of the old owner and the clear:
 * the old owner's free finishes, a new owner takes the id and adds its
 * first object in the cgroup (so sets the very bit the walk will clear). */
static void hook_walk_stale(enum shr_race_point p, void *arg)
{
	struct reuse *r = arg;

	(void)p;
	shr_race_set_hook(SHR_RACE_WALK_STALE_LOOKUP, NULL, NULL);
	r->hook_ran = true;
	sem_post(&r->freer_go);
	assert_int_equal(pthread_join(r->freer, NULL), 0);
	if (r->mode == NEW_NONE)
		return;
	cache_alloc(&r->new, r->host, r->memcg, r->cfg->nonslab);
	assert_int_equal(shr_shrinker_id(r->new.f.shrinker), r->old_id);
	if (r->mode == NEW_REGISTERED)
		assert_int_equal(shr_shrinker_register(r->new.f.shrinker), 0);
	cache_add(&r->new);
}

static struct shr_host *race_host(const struct race_cfg *cfg)
{
	struct shr_host_params p;
	struct shr_host *host = NULL;

	shr_host_params_init(&p);
	p.design = cfg->design;
	p.nr_nodes = 1;
	p.geometry_cpus = 2;
	if (cfg->nonslab) {
		p.kmem = false;
		p.nonslab_ids = true;
	}
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static unsigned long shrink(struct shr_host *host, struct shr_mem_cgroup *memcg)
{
	unsigned long freed = ~0UL;

	assert_int_equal(shr_shrink_slab(host, 0, memcg, 0, &freed), 0);
	return freed;
}

/*
 * The scenario: the old owner holds an object in the cgroup (its bit set),
 * its free stops where it cannot be pinned; the cgroup's walk finds the bit,
 * fails to pin, and at SHR_RACE_WALK_STALE_LOOKUP the hook finishes the free
 * and makes the new owner per @mode. Returns after the walk; the caller
 * checks what the walk left.
 */
static void run_reuse(struct reuse *r, const struct race_cfg *cfg, enum new_owner mode)
{
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->mode = mode;
	r->host = race_host(cfg);
	r->memcg = shr_test_mkcg(shr_host_root_mem_cgroup(r->host));
	cache_alloc(&r->old, r->host, r->memcg, cfg->nonslab);
	assert_int_equal(shr_shrinker_register(r->old.f.shrinker), 0);
	cache_add(&r->old);
	r->old_id = shr_shrinker_id(r->old.f.shrinker);
	assert_true(r->old_id >= 0);

	sem_init(&r->freer_stopped, 0, 0);
	sem_init(&r->freer_go, 0, 0);
	R = r;
	assert_int_equal(shr_race_set_hook(SHR_RACE_SHRINKER_DEAD, hook_shrinker_dead, r), 0);
	assert_int_equal(pthread_create(&r->freer, NULL, freer_main, r), 0);
	sem_wait(&r->freer_stopped);

	assert_int_equal(shr_race_set_hook(SHR_RACE_WALK_STALE_LOOKUP, hook_walk_stale, r), 0);
	(void)shrink(r->host, r->memcg);
	shr_race_set_hook(SHR_RACE_WALK_STALE_LOOKUP, NULL, NULL);
	if (!r->hook_ran) {
		/* A design whose walk never sees the stale id (no bits): finish
		 * the same steps outside the walk. */
		hook_walk_stale(SHR_RACE_WALK_STALE_LOOKUP, r);
	}
	sem_destroy(&r->freer_stopped);
	sem_destroy(&r->freer_go);
}

static void finish_reuse(struct reuse *r)
{
	cache_destroy(&r->old, false);
	if (r->mode != NEW_NONE)
		cache_destroy(&r->new, true);
	assert_int_equal(shr_mem_cgroup_offline(r->memcg), 0);
	assert_int_equal(shr_host_destroy(r->host), 0);
	R = NULL;
}

static bool designs_keep_bits(const struct race_cfg *cfg)
{
	return shr_design_info_of(cfg->design)->bits;
}

/* The new owner registered before its first add: the walk must leave its
 * bit, so the next walk of the cgroup reclaims the object. */
static void test_id_reuse_keeps_new_owners_bit(void **state)
{
	const struct race_cfg *cfg = *state;
	struct reuse r;
	unsigned long freed, left;

	run_reuse(&r, cfg, NEW_REGISTERED);
	if (designs_keep_bits(cfg))
		assert_true(r.hook_ran);
	freed = shrink(r.host, r.memcg);
	left = cache_left(&r.new);
	if (left)
		print_error("[%s] id %d reused during a walk: %lu object(s) of the new owner "
			       "left after shrink_slab (freed %lu, count calls %lu): its bit was "
			       "cleared by the walk that could not pin the old owner\n",
			       cfg->name, r.old_id, left, freed, r.new.f.count_calls);
	assert_int_equal(left, 0);
	finish_reuse(&r);
}

/* The new owner adds its first object before it is registered: the walk
 * must not clear that bit either; once registered, reclaim reaches it. */
static void test_id_reuse_keeps_unregistered_owners_bit(void **state)
{
	const struct race_cfg *cfg = *state;
	struct reuse r;
	unsigned long freed, left;

	run_reuse(&r, cfg, NEW_UNARMED);
	if (designs_keep_bits(cfg))
		assert_true(r.hook_ran);
	/* Not armed: a walk neither calls it nor drops its bit. */
	(void)shrink(r.host, r.memcg);
	assert_int_equal(r.new.f.count_calls, 0);
	assert_int_equal(shr_shrinker_register(r.new.f.shrinker), 0);
	freed = shrink(r.host, r.memcg);
	left = cache_left(&r.new);
	if (left)
		print_error("[%s] id %d reused during a walk by an unregistered shrinker: "
			       "%lu object(s) left after register + shrink_slab (freed %lu): "
			       "its bit was cleared\n",
			       cfg->name, r.old_id, left, freed);
	assert_int_equal(left, 0);
	finish_reuse(&r);
}

/* Nobody takes the id: the stale bit goes (the recheck does not invent a
 * bit), so a later owner that holds nothing in the cgroup is not called. */
static void test_stale_bit_of_freed_shrinker_is_cleared(void **state)
{
	const struct race_cfg *cfg = *state;
	struct reuse r;
	struct cache later;

	run_reuse(&r, cfg, NEW_NONE);
	cache_alloc(&later, r.host, r.memcg, cfg->nonslab);
	assert_int_equal(shr_shrinker_id(later.f.shrinker), r.old_id);
	assert_int_equal(shr_shrinker_register(later.f.shrinker), 0);
	assert_int_equal(shrink(r.host, r.memcg), 0);
	/* nobitmap calls every memcg-aware shrinker: once, empty. */
	assert_int_equal(later.f.count_calls, designs_keep_bits(cfg) ? 0 : 1);
	cache_destroy(&later, true);
	finish_reuse(&r);
}

/* Every design of the table, then those that take nonslab_ids with it. */
#define MAX_CONFIGS (2 * SHR_NR_DESIGNS)
static struct race_cfg configs[MAX_CONFIGS];
static char config_names[MAX_CONFIGS][64];

static size_t make_configs(void)
{
	size_t n = 0;

	for (int nonslab = 0; nonslab <= 1; nonslab++) {
		for (int d = 0; d < SHR_NR_DESIGNS; d++) {
			const struct shr_design_info *info = shr_design_info_of((enum shr_design)d);

			if (nonslab && !info->nonslab_ids)
				continue;
			configs[n].design = (enum shr_design)d;
			configs[n].nonslab = nonslab;
			snprintf(config_names[n], sizeof(config_names[n]), "%s%s", info->name,
				 nonslab ? "+nonslab_ids" : "");
			configs[n].name = config_names[n];
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[3 * MAX_CONFIGS];
	static char names[3 * MAX_CONFIGS][128];
	size_t n = 0, nr_configs = make_configs();

	shr_test_init(argc, argv);
	if (!shr_race_available()) {
		/* TAP's "skip the whole file" (cmocka would mark each test failed). */
		printf("1..0 # SKIP race points need a build with -Ddebug_checks=true\n");
		return 0;
	}
	for (size_t i = 0; i < nr_configs; i++) {
		static const struct {
			const char *name;
			CMUnitTestFunction fn;
		} kinds[] = {
			{ "test_id_reuse_keeps_new_owners_bit", test_id_reuse_keeps_new_owners_bit },
			{ "test_id_reuse_keeps_unregistered_owners_bit",
			  test_id_reuse_keeps_unregistered_owners_bit },
			{ "test_stale_bit_of_freed_shrinker_is_cleared",
			  test_stale_bit_of_freed_shrinker_is_cleared },
		};

		for (size_t k = 0; k < 3; k++, n++) {
			snprintf(names[n], sizeof(names[n]), "%s[%s]", kinds[k].name, configs[i].name);
			tests[n] = (struct CMUnitTest){ .name = names[n], .test_func = kinds[k].fn,
							.initial_state = (void *)&configs[i] };
		}
	}
	return shr_test_run_group("races", tests, n);
}
