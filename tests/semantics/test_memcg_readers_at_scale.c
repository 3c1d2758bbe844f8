/* SPDX-License-Identifier: MIT */
/*
 * Every reader of a cgroup's shrinker bookkeeping works on a cgroup that
 * holds a shrinker id past every size-class boundary the designs use.
 *
 * The designs keep per-cgroup arrays whose length follows the highest id
 * (flat and prealloc: one slot per id; array-ondemand: a pointer per unit
 * of 64 ids; indexed: a reference count per unit). Those arrays cross
 * kmalloc's largest class (8 KiB) and become large kmallocs, whole pages
 * from the page allocator: at 1024 ids for an id-sized array of longs, at
 * 65536 ids for a pointer per unit, at 131072 ids for a 4-byte count per
 * unit. A reader that assumes every allocation comes from a kmalloc cache
 * dereferences a cache that does not exist (the indexed design's
 * bookkeeping did, at id 131072).
 *
 * For every design of the table, one host with 2 nodes, NR_SHRINKERS
 * memcg-aware shrinkers (ids 0..NR_SHRINKERS-1, the last past 131072),
 * then two cgroups: one that held a cgroup before the shrinkers existed
 * (its arrays grew with every id), one created after (allocated at full
 * size). Each gets a bit of the last shrinker (shr_set_shrinker_bit() on
 * node 0) and an object of it on a list_lru (node 1), and then every
 * reader runs on it: shr_mem_cgroup_bookkeeping() per node and for all,
 * shr_shrinker_get_stats(), shr_shrinker_nr_deferred(), the debugfs count
 * and scan files, the host's counters, and reclaim of the cgroup, which
 * must find and free the object. Checks:
 *  - no reader fails or crashes (the indexed crash was a NULL dereference
 *    in the bookkeeping, found by UBSan and by SIGSEGV);
 *  - what the bookkeeping reports for the cgroups is really allocated: the
 *    sum over them is not more than what SUnreclaim grew by since before
 *    they existed (large kmallocs are counted by both);
 *  - indexed: the bookkeeping counts the refs array of a cgroup holding id
 *    NR_SHRINKERS-1 (2049 units: at least 2049 four-byte counts);
 *  - the debugfs count file names the cgroup with its object.
 * Bounded by work: NR_SHRINKERS allocations per design, a few hundred
 * milliseconds each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "harness.h"

#define NODES 2
/* ids 0..131072: the last one's unit is index 2048. */
#define NR_SHRINKERS (131072 + 1)
#define UNIT_IDS 64

struct scale_host {
	struct shr_host *host;
	struct shr_shrinker **shrinkers;
	struct shr_list_lru *lru;
	struct shr_mem_cgroup *early, *late;
	struct shr_list_head item_early, item_late;
};

static struct shr_list_lru *scan_lru;

static unsigned long count_lru(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	unsigned long n = shr_list_lru_shrink_count(scan_lru, sc);

	(void)s;
	return n ? n : SHR_SHRINK_EMPTY;
}

static enum shr_lru_status isolate(struct shr_list_head *item, struct shr_list_lru_one *list,
				   void *arg)
{
	(void)arg;
	shr_list_lru_isolate(list, item);
	return SHR_LRU_REMOVED;
}

static unsigned long scan_lru_objects(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	return shr_list_lru_shrink_walk(scan_lru, sc, isolate, NULL);
}

static unsigned long count_nothing(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

static unsigned long scan_nothing(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

static unsigned long bookkeeping_bytes(const struct shr_memcg_bookkeeping *b)
{
	return b->container_bytes + b->unit_bytes + b->xa_node_bytes;
}

static void open_host(enum shr_design design, struct scale_host *h)
{
	struct shr_host_params p;

	memset(h, 0, sizeof(*h));
	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = NODES;
	p.geometry_cpus = 4;
	/* flat grows one id at a time by default: with a cgroup alive that is
	 * quadratic in copies; 64 at a time as prealloc (growth is not what
	 * this test is about, the size of the result is). */
	if (design == SHR_DESIGN_FLAT)
		p.expand_batch = 64;
	assert_int_equal(shr_host_create(&p, &h->host), 0);
	h->shrinkers = calloc(NR_SHRINKERS, sizeof(*h->shrinkers));
	assert_non_null(h->shrinkers);
}

static void alloc_shrinkers(struct scale_host *h)
{
	struct shr_shrinker *last;

	for (int i = 0; i < NR_SHRINKERS; i++) {
		struct shr_shrinker *s;

		assert_int_equal(shr_shrinker_alloc(h->host, SHR_SHRINKER_MEMCG_AWARE |
						    SHR_SHRINKER_NUMA_AWARE, NULL, &s), 0);
		assert_int_equal(shr_shrinker_id(s), i);
		h->shrinkers[i] = s;
	}
	last = h->shrinkers[NR_SHRINKERS - 1];
	for (int i = 0; i < NR_SHRINKERS - 1; i++) {
		h->shrinkers[i]->count_objects = count_nothing;
		h->shrinkers[i]->scan_objects = scan_nothing;
	}
	last->count_objects = count_lru;
	last->scan_objects = scan_lru_objects;
	/* Only the last is registered: reclaim walks reach it through its bit
	 * (nobitmap: through the list of registered shrinkers). */
	assert_int_equal(shr_shrinker_register(last), 0);
	assert_int_equal(shr_list_lru_init_memcg(h->host, last, &h->lru), 0);
	scan_lru = h->lru;
}

/* A bit of the last shrinker on node 0, an object of it on node 1. */
static void populate(struct scale_host *h, struct shr_mem_cgroup *cg, struct shr_list_head *item)
{
	struct shr_shrinker *last = h->shrinkers[NR_SHRINKERS - 1];

	assert_int_equal(shr_set_shrinker_bit(cg, 0, last), 0);
	shr_list_head_init(item);
	assert_int_equal(shr_list_lru_add(h->lru, item, 1, cg), 1);
}

static void read_everything(struct scale_host *h, struct shr_mem_cgroup *cg,
			    struct shr_memcg_bookkeeping *all)
{
	struct shr_shrinker *last = h->shrinkers[NR_SHRINKERS - 1];
	struct shr_memcg_bookkeeping one, sum = { 0 };
	struct shr_bookkeeping_stats hs;
	struct shr_shrinker_stats st;
	char line[64], *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (int nid = 0; nid < NODES; nid++) {
		assert_int_equal(shr_mem_cgroup_bookkeeping(cg, nid, &one), 0);
		sum.container_bytes += one.container_bytes;
		sum.unit_bytes += one.unit_bytes;
		sum.xa_node_bytes += one.xa_node_bytes;
		assert_true(shr_shrinker_nr_deferred(last, cg, nid) >= 0);
	}
	assert_int_equal(shr_mem_cgroup_bookkeeping(cg, -1, all), 0);
	assert_int_equal(bookkeeping_bytes(all), bookkeeping_bytes(&sum));
	assert_int_equal(shr_shrinker_get_stats(last, &st), 0);
	assert_true(st.deferred >= 0);
	shr_host_bookkeeping_stats(h->host, &hs);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(shr_shrinker_debugfs_count(last, f), 0);
	fclose(f);
	snprintf(line, sizeof(line), "%lu 0 1\n", shr_mem_cgroup_ino(cg));
	if (!strstr(buf, line))
		fail_msg("debugfs count of id %d lacks cgroup %lu's object: %s", NR_SHRINKERS - 1,
			 shr_mem_cgroup_ino(cg), buf);
	free(buf);
	/* Scans nothing away: node 0 holds only the bit. */
	snprintf(line, sizeof(line), "%lu 0 1", shr_mem_cgroup_ino(cg));
	assert_int_equal(shr_shrinker_debugfs_scan(last, line), 0);
}

static void reclaim_finds(struct scale_host *h, struct shr_mem_cgroup *cg)
{
	unsigned long freed = 0;

	assert_int_equal(shr_shrink_slab(h->host, 0, cg, 0, &freed), 0);
	assert_int_equal(freed, 0);
	assert_int_equal(shr_shrink_slab(h->host, 1, cg, 0, &freed), 0);
	if (freed != 1)
		fail_msg("%s: reclaim of a cgroup with an object of id %d freed %lu",
			 shr_design_name(shr_host_design(h->host)), NR_SHRINKERS - 1, freed);
}

static void close_host(struct scale_host *h)
{
	assert_int_equal(shr_mem_cgroup_offline(h->early), 0);
	assert_int_equal(shr_mem_cgroup_offline(h->late), 0);
	for (int i = 0; i < NR_SHRINKERS; i++)
		shr_shrinker_free(h->shrinkers[i]);
	assert_int_equal(shr_list_lru_destroy(h->lru), 0);
	assert_int_equal(shr_host_destroy(h->host), 0);
	free(h->shrinkers);
}

static void one_design(enum shr_design design)
{
	struct shr_memcg_bookkeeping be, bl;
	struct shr_slab_allocator *sa;
	unsigned long before, after;
	struct scale_host h;

	open_host(design, &h);
	sa = shr_host_slab(h.host);
	before = shr_slab_unreclaimable_bytes(sa);
	h.early = shr_test_mkcg(shr_host_root_mem_cgroup(h.host));
	alloc_shrinkers(&h);
	h.late = shr_test_mkcg(shr_host_root_mem_cgroup(h.host));
	populate(&h, h.early, &h.item_early);
	populate(&h, h.late, &h.item_late);
	read_everything(&h, h.early, &be);
	read_everything(&h, h.late, &bl);
	after = shr_slab_unreclaimable_bytes(sa);
	printf("# %-14s id %d: bookkeeping %lu B (early cgroup), %lu B (late), "
	       "SUnreclaim +%lu B with the shrinkers\n", shr_design_name(design),
	       NR_SHRINKERS - 1, bookkeeping_bytes(&be), bookkeeping_bytes(&bl), after - before);
	if (bookkeeping_bytes(&be) + bookkeeping_bytes(&bl) > after - before)
		fail_msg("%s: the bookkeeping reports %lu B, more than SUnreclaim grew (%lu B)",
			 shr_design_name(design), bookkeeping_bytes(&be) + bookkeeping_bytes(&bl),
			 after - before);
	if (design == SHR_DESIGN_INDEXED &&
	    be.container_bytes < (NR_SHRINKERS / UNIT_IDS + 1) * sizeof(unsigned int))
		fail_msg("indexed: container bytes %lu leave out the refs of %d units",
			 be.container_bytes, NR_SHRINKERS / UNIT_IDS + 1);
	reclaim_finds(&h, h.early);
	reclaim_finds(&h, h.late);
	close_host(&h);
}

static void test_every_reader_past_131072_ids(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		one_design((enum shr_design)d);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_reader_past_131072_ids),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("memcg_readers_at_scale", tests);
}
