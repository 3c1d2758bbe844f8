/* SPDX-License-Identifier: MIT */
/*
 * tenant_cache: a cache shared by tenants, which gives memory back the way
 * the Linux kernel's caches do, with libshrinker.
 *
 * Each tenant is a memory cgroup. Every entry of the cache is charged to
 * the tenant that inserted it: it sits on that tenant's list of one
 * memcg-aware list_lru. A shrinker counts and frees entries from the list
 * of the cgroup under pressure, so:
 *
 *   - pressure on one tenant (memory.reclaim) frees only that tenant's
 *     entries, and the library calls the shrinker only for cgroups that
 *     hold entries of it;
 *   - a tenant that goes away (rmdir) leaves its entries to its parent:
 *     they move to the root's list, where global reclaim finds them;
 *   - entries pin the cgroup they are charged to, so a removed tenant's
 *     structure lives until its last entry is freed.
 *
 * One worker thread per tenant fills the cache; every thread that calls the
 * library registers with shr_thread_register() first.
 *
 * Build against an installed libshrinker:
 *   cc -std=c11 tenant_cache.c $(pkg-config --cflags --libs libshrinker)
 *   cc -static -std=c11 tenant_cache.c $(pkg-config --static --cflags --libs libshrinker)
 * It prints what it did and "tenant_cache: ok"; exit status 0, or 1 with
 * a line saying which check failed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

/* One cached object. */
struct entry {
	struct shr_list_head lru;     /* on its tenant's list; list lock */
	struct shr_mem_cgroup *owner; /* the tenant charged; a reference */
	unsigned long key;
	char value[64];
};

#define entry_of(item) ((struct entry *)(void *)((char *)(item) - offsetof(struct entry, lru)))

struct cache {
	struct shr_host *host;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *lru;
	atomic_ulong nr_freed;
};

struct tenant {
	const char *name;
	struct shr_mem_cgroup *memcg;
	struct cache *cache;
	unsigned long nr_inserts;
	int err;
};

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "tenant_cache: FAILED: %s\n", what);
		failures++;
	}
}

/* Free the entries of a private dispose list (no library lock held). */
static unsigned long dispose(struct cache *cache, struct shr_list_head *head)
{
	unsigned long n = 0;

	while (!shr_list_head_empty(head)) {
		struct shr_list_head *item = head->next;
		struct entry *e = entry_of(item);

		shr_list_del_init(item);
		shr_mem_cgroup_put(e->owner);
		free(e);
		n++;
	}
	atomic_fetch_add(&cache->nr_freed, n);
	return n;
}

/* Isolate callback: the list's lock is held; move the entry out. */
static enum shr_lru_status isolate(struct shr_list_head *item, struct shr_list_lru_one *list,
				   void *arg)
{
	shr_list_lru_isolate_move(list, item, arg);
	return SHR_LRU_REMOVED;
}

/* count_objects: entries of the cgroup (and node) under pressure. */
static unsigned long cache_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct cache *cache = s->private_data;
	unsigned long n = shr_list_lru_shrink_count(cache->lru, sc);

	return n ? n : SHR_SHRINK_EMPTY;
}

/* scan_objects: free up to sc->nr_to_scan of them, oldest first. */
static unsigned long cache_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct cache *cache = s->private_data;
	struct shr_list_head head;

	shr_list_head_init(&head);
	shr_list_lru_shrink_walk(cache->lru, sc, isolate, &head);
	return dispose(cache, &head);
}

static int cache_init(struct cache *cache, struct shr_host *host)
{
	int ret;

	memset(cache, 0, sizeof(*cache));
	cache->host = host;
	ret = shr_shrinker_alloc(host, SHR_SHRINKER_MEMCG_AWARE, "tenant-cache",
				 &cache->shrinker);
	if (ret)
		return ret;
	cache->shrinker->count_objects = cache_count;
	cache->shrinker->scan_objects = cache_scan;
	cache->shrinker->seeks = SHR_DEFAULT_SEEKS;
	cache->shrinker->private_data = cache;
	ret = shr_list_lru_init_memcg(host, cache->shrinker, &cache->lru);
	if (ret == 0)
		ret = shr_shrinker_register(cache->shrinker);
	if (ret) {
		shr_shrinker_free(cache->shrinker);
		(void)shr_list_lru_destroy(cache->lru);
	}
	return ret;
}

/* Insert an entry charged to @t (it pins the tenant's cgroup). */
static int cache_insert(struct cache *cache, struct tenant *t, unsigned long key)
{
	struct entry *e = calloc(1, sizeof(*e));
	int ret;

	if (!e)
		return -ENOMEM;
	shr_list_head_init(&e->lru);
	e->key = key;
	snprintf(e->value, sizeof(e->value), "%s/%lu", t->name, key);
	shr_mem_cgroup_get(t->memcg);
	e->owner = t->memcg;
	ret = shr_list_lru_add(cache->lru, &e->lru, 0, t->memcg);
	if (ret != 1) {
		shr_mem_cgroup_put(e->owner);
		free(e);
		return ret < 0 ? ret : -EEXIST;
	}
	return 0;
}

/* Evict everything (teardown): walk every list until it is empty. */
static void cache_evict_all(struct cache *cache)
{
	struct shr_list_head head;

	shr_list_head_init(&head);
	shr_list_lru_walk(cache->lru, isolate, &head, ~0UL);
	dispose(cache, &head);
}

static void *tenant_worker(void *arg)
{
	struct tenant *t = arg;

	shr_thread_register();
	for (unsigned long i = 0; i < t->nr_inserts && !t->err; i++)
		t->err = cache_insert(t->cache, t, i);
	shr_thread_unregister();
	return NULL;
}

static unsigned long held_by(struct cache *cache, struct shr_mem_cgroup *memcg)
{
	return shr_list_lru_count_one(cache->lru, 0, memcg);
}

int main(void)
{
	struct tenant tenants[] = {
		{ .name = "alice", .nr_inserts = 3000 },
		{ .name = "bob", .nr_inserts = 2000 },
		{ .name = "carol", .nr_inserts = 1000 },
	};
	enum { ALICE, BOB, CAROL, NR_TENANTS };
	pthread_t workers[NR_TENANTS];
	struct shr_host_params params;
	struct shr_mem_cgroup *root;
	unsigned long freed, before[NR_TENANTS];
	struct shr_host *host;
	struct cache cache;
	int ret;

	shr_thread_register();
	shr_host_params_init(&params);
	ret = shr_host_create(&params, &host);
	if (ret) {
		fprintf(stderr, "tenant_cache: shr_host_create: %s\n", strerror(-ret));
		return 1;
	}
	root = shr_host_root_mem_cgroup(host);
	ret = cache_init(&cache, host);
	if (ret) {
		fprintf(stderr, "tenant_cache: cache_init: %s\n", strerror(-ret));
		return 1;
	}
	printf("host: design %s, %d node(s); cache shrinker id %d\n",
	       shr_design_name(shr_host_design(host)), shr_host_nr_nodes(host),
	       shr_shrinker_id(cache.shrinker));

	/* A cgroup per tenant, then one worker per tenant fills the cache. */
	for (int i = 0; i < NR_TENANTS; i++) {
		tenants[i].cache = &cache;
		ret = shr_mem_cgroup_create(root, &tenants[i].memcg);
		if (ret) {
			fprintf(stderr, "tenant_cache: mkdir %s: %s\n", tenants[i].name,
				strerror(-ret));
			return 1;
		}
	}
	for (int i = 0; i < NR_TENANTS; i++)
		if (pthread_create(&workers[i], NULL, tenant_worker, &tenants[i]) != 0)
			return 1;
	for (int i = 0; i < NR_TENANTS; i++) {
		pthread_join(workers[i], NULL);
		check(tenants[i].err == 0, "a worker's inserts failed");
		before[i] = held_by(&cache, tenants[i].memcg);
		printf("%s: %lu entries\n", tenants[i].name, before[i]);
		check(before[i] == tenants[i].nr_inserts, "entries are charged to their tenant");
	}

	/* Pressure on bob alone: only bob's entries go. */
	ret = shr_mem_cgroup_reclaim(tenants[BOB].memcg, 500, &freed);
	printf("reclaim 500 from bob: %s, %lu freed; bob %lu, alice %lu, carol %lu left\n",
	       ret == 0 ? "met" : "not met", freed, held_by(&cache, tenants[BOB].memcg),
	       held_by(&cache, tenants[ALICE].memcg), held_by(&cache, tenants[CAROL].memcg));
	check(ret == 0 && freed >= 500, "reclaim from bob frees what was asked");
	check(held_by(&cache, tenants[BOB].memcg) == before[BOB] - freed,
	      "what was freed came from bob's entries");
	check(held_by(&cache, tenants[ALICE].memcg) == before[ALICE] &&
		      held_by(&cache, tenants[CAROL].memcg) == before[CAROL],
	      "alice's and carol's entries are untouched");

	/* carol leaves: her entries move to the root's list, her cgroup stays
	 * (dying) while entries still pin it. */
	ret = shr_mem_cgroup_offline(tenants[CAROL].memcg);
	check(ret == 0, "carol's cgroup goes offline");
	printf("carol removed: %lu of her entries reparented to the root, dying %s\n",
	       held_by(&cache, root), shr_mem_cgroup_is_dying(tenants[CAROL].memcg) ? "yes" : "no");
	check(held_by(&cache, root) == before[CAROL], "carol's entries are on the root's list");

	/* Global reclaim (the root, priority 0) finds the orphans, and only them. */
	freed = 0;
	for (int pass = 0; pass < 16 && held_by(&cache, root); pass++) {
		unsigned long n = 0;

		ret = shr_shrink_slab(host, 0, root, 0, &n);
		check(ret == 0, "shr_shrink_slab of the root");
		freed += n;
	}
	printf("global reclaim: %lu freed; root %lu, alice %lu, bob %lu left\n", freed,
	       held_by(&cache, root), held_by(&cache, tenants[ALICE].memcg),
	       held_by(&cache, tenants[BOB].memcg));
	check(freed == before[CAROL] && held_by(&cache, root) == 0,
	      "global reclaim frees carol's orphaned entries");
	check(held_by(&cache, tenants[ALICE].memcg) == before[ALICE],
	      "global reclaim of the root leaves the tenants' lists alone");

	/* Teardown: evict, free the shrinker, then its list_lru; remove the
	 * tenants; wait for deferred frees; destroy the host. */
	cache_evict_all(&cache);
	check(shr_list_lru_count(cache.lru) == 0, "teardown evicts every entry");
	printf("evicted the rest; %lu entries freed in all\n", atomic_load(&cache.nr_freed));
	check(atomic_load(&cache.nr_freed) == 6000, "every entry was freed once");
	shr_shrinker_free(cache.shrinker);
	check(shr_list_lru_destroy(cache.lru) == 0, "the list_lru is destroyed");
	check(shr_mem_cgroup_offline(tenants[ALICE].memcg) == 0 &&
		      shr_mem_cgroup_offline(tenants[BOB].memcg) == 0,
	      "alice's and bob's cgroups go offline");
	shr_rcu_barrier();
	check(shr_host_destroy(host) == 0, "the host is destroyed");
	shr_thread_unregister();

	if (failures)
		return 1;
	printf("tenant_cache: ok\n");
	return 0;
}
