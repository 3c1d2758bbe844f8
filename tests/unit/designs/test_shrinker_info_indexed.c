/* SPDX-License-Identifier: MIT */
/*
 * The promises of the indexed design (docs/design/INDEXED.md): costs follow only
 * what cgroups hold. Every figure is a delta of the host's real counters or
 * of the slab-backed bookkeeping attribution.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fake_shrinker.h"
#include "harness.h"
#include "superblock.h"

#define NODES 2

static struct shr_host *host_of(enum shr_design design, int nodes)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = nodes;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static struct shr_bookkeeping_stats stats(struct shr_host *host)
{
	struct shr_bookkeeping_stats st;

	shr_host_bookkeeping_stats(host, &st);
	return st;
}

static void mount_n(struct sb_fs *fs, struct sb **sbs, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(sb_mount(fs, "tmpfs", &sbs[i]), 0);
}

static void umount_n(struct sb **sbs, int n)
{
	for (int i = 0; i < n; i++)
		sb_umount(sbs[i]);
}

/* A walk of a cgroup with no objects looks at no unit, however many mounts
 * exist and however many units other cgroups hold. */
static void test_empty_cgroup_walk_visits_no_unit(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *busy = shr_test_mkcg(root), *empty = shr_test_mkcg(root);
	struct shr_bookkeeping_stats a, b;
	struct sb *sbs[130];
	struct sb_fs fs;
	unsigned long freed;

	(void)state;
	assert_int_equal(sb_fs_init(&fs, host), 0);
	mount_n(&fs, sbs, 130);
	for (int i = 0; i < 130; i++)
		assert_int_equal(sb_create_file(sbs[i], busy, i % NODES), 0);
	a = stats(host);
	for (int nid = 0; nid < NODES; nid++) {
		assert_int_equal(shr_shrink_slab(host, nid, empty, 0, &freed), 0);
		assert_int_equal(freed, 0);
	}
	b = stats(host);
	assert_int_equal(b.walks - a.walks, NODES);
	assert_int_equal(b.units_visited - a.units_visited, 0);
	assert_int_equal(b.words_visited - a.words_visited, 0);
	/* The busy cgroup's walk does find its objects (the test can fail). */
	a = stats(host);
	assert_int_equal(shr_shrink_slab(host, 0, busy, 0, &freed), 0);
	assert_int_equal(freed, 130);
	b = stats(host);
	assert_true(b.units_visited - a.units_visited >= 1);
	umount_n(sbs, 130);
	sb_fs_destroy(&fs);
	assert_int_equal(shr_mem_cgroup_offline(busy), 0);
	assert_int_equal(shr_mem_cgroup_offline(empty), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* drop_caches over a host whose cgroups hold nothing calls shrink_slab for
 * the root only: one call per node per pass; once the root is empty too, a
 * pass calls no superblock shrinker (root bits). */
static void test_drop_caches_skips_empty_cgroups(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cgs[60];
	struct shr_bookkeeping_stats a, b;
	struct sb *sbs[4];
	struct sb_fs fs;
	unsigned long freed;
	unsigned int passes;

	(void)state;
	for (int i = 0; i < 60; i++)
		cgs[i] = shr_test_mkcg(i < 20 ? root : cgs[i - 20]);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	mount_n(&fs, sbs, 4);
	/* Objects in the root only, and in a cgroup emptied again. */
	for (int i = 0; i < 10; i++)
		assert_int_equal(sb_create_file(sbs[i % 4], root, 0), 0);
	assert_int_equal(sb_create_file(sbs[0], cgs[45], 1), 0);
	assert_int_equal(shr_shrink_slab(host, 1, cgs[45], 0, &freed), 0);
	assert_int_equal(freed, 2); /* a dentry and an inode */
	/* The second walk sees SHRINK_EMPTY and clears the bit. */
	assert_int_equal(shr_shrink_slab(host, 1, cgs[45], 0, &freed), 0);
	a = stats(host);
	assert_int_equal(shr_drop_caches(host, &freed, &passes), 0);
	b = stats(host);
	assert_int_equal(freed, 20);
	assert_int_equal(b.reclaim_cgroups_visited - a.reclaim_cgroups_visited,
			 (unsigned long)NODES * passes);
	/* The root's bits went with its objects (SHRINK_EMPTY protocol): the
	 * next pass calls no superblock shrinker at all. */
	{
		struct shr_shrinker_stats st0[4], st1[4];

		for (int i = 0; i < 4; i++)
			assert_int_equal(shr_shrinker_get_stats(sbs[i]->shrinker, &st0[i]), 0);
		assert_int_equal(shr_drop_caches(host, &freed, &passes), 0);
		assert_int_equal(freed, 0);
		assert_int_equal(passes, 1);
		for (int i = 0; i < 4; i++) {
			assert_int_equal(shr_shrinker_get_stats(sbs[i]->shrinker, &st1[i]), 0);
			assert_int_equal(st1[i].calls, st0[i].calls);
		}
	}
	umount_n(sbs, 4);
	sb_fs_destroy(&fs);
	for (int i = 59; i >= 0; i--)
		assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

struct world {
	struct shr_host *host;
	struct shr_mem_cgroup *target;
	struct shr_mem_cgroup *cgs[40];
	struct sb_fs fs;
	struct sb *sbs[3];
};

/* target with 40 descendants (two levels); a few hold files. */
static void world_build(struct world *w, enum shr_design design)
{
	struct shr_mem_cgroup *root;

	w->host = host_of(design, NODES);
	root = shr_host_root_mem_cgroup(w->host);
	w->target = shr_test_mkcg(root);
	for (int i = 0; i < 40; i++)
		w->cgs[i] = shr_test_mkcg(i < 10 ? w->target : w->cgs[i % 10]);
	assert_int_equal(sb_fs_init(&w->fs, w->host), 0);
	mount_n(&w->fs, w->sbs, 3);
	for (int i = 0; i < 40; i += 7)
		for (int j = 0; j < 50 + i; j++)
			assert_int_equal(sb_create_file(w->sbs[j % 3], w->cgs[i], j % NODES), 0);
	for (int j = 0; j < 30; j++)
		assert_int_equal(sb_create_file(w->sbs[j % 3], w->target, 0), 0);
}

static void world_destroy(struct world *w)
{
	umount_n(w->sbs, 3);
	sb_fs_destroy(&w->fs);
	for (int i = 39; i >= 0; i--)
		assert_int_equal(shr_mem_cgroup_offline(w->cgs[i]), 0);
	assert_int_equal(shr_mem_cgroup_offline(w->target), 0);
	assert_int_equal(shr_host_destroy(w->host), 0);
}

/* memory.reclaim on a subtree frees exactly what the xarray design frees,
 * object for object per cgroup, while visiting fewer cgroups. */
static void test_subtree_reclaim_matches_xarray(void **state)
{
	struct world ix, xa;
	unsigned long goals[] = { 40, 150, 100000 };

	(void)state;
	world_build(&ix, SHR_DESIGN_INDEXED);
	world_build(&xa, SHR_DESIGN_XARRAY);
	for (size_t g = 0; g < sizeof(goals) / sizeof(goals[0]); g++) {
		struct shr_bookkeeping_stats ia = stats(ix.host), xa0 = stats(xa.host);
		unsigned long fi = 0, fx = 0;
		int ri = shr_mem_cgroup_reclaim(ix.target, goals[g], &fi);
		int rx = shr_mem_cgroup_reclaim(xa.target, goals[g], &fx);
		struct shr_bookkeeping_stats ib = stats(ix.host), xb = stats(xa.host);

		assert_int_equal(ri, rx);
		assert_int_equal(fi, fx);
		assert_true(fi > 0);
		assert_true(ib.reclaim_cgroups_visited - ia.reclaim_cgroups_visited <
			    xb.reclaim_cgroups_visited - xa0.reclaim_cgroups_visited);
		for (int s = 0; s < 3; s++)
			for (int nid = 0; nid < NODES; nid++) {
				assert_int_equal(sb_count(ix.sbs[s], nid, ix.target),
						 sb_count(xa.sbs[s], nid, xa.target));
				for (int i = 0; i < 40; i++)
					assert_int_equal(sb_count(ix.sbs[s], nid, ix.cgs[i]),
							 sb_count(xa.sbs[s], nid, xa.cgs[i]));
			}
	}
	world_destroy(&ix);
	world_destroy(&xa);
}

/* Registration touches no cgroup, the root included. */
static void test_registration_touches_no_cgroup(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cgs[10];
	struct shr_bookkeeping_stats a, b;
	struct sb *sbs[70];
	struct sb_fs fs;

	(void)state;
	for (int i = 0; i < 10; i++)
		cgs[i] = shr_test_mkcg(root);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	a = stats(host);
	mount_n(&fs, sbs, 70);
	b = stats(host);
	assert_int_equal(b.registrations - a.registrations, 70);
	assert_int_equal(b.cgroups_visited_by_registration, a.cgroups_visited_by_registration);
	assert_int_equal(b.units_installed, a.units_installed);
	assert_int_equal(shr_shrinker_nr_max(host), 128);
	umount_n(sbs, 70);
	sb_fs_destroy(&fs);
	for (int i = 0; i < 10; i++)
		assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

static struct shr_memcg_bookkeeping bk(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_bookkeeping out;

	shr_rcu_barrier();
	assert_int_equal(shr_mem_cgroup_bookkeeping(memcg, -1, &out), 0);
	return out;
}

/* After every mount a cgroup used is unmounted, its bookkeeping is back to
 * the empty figure (inline bytes only) and its units were freed. */
static void test_unmount_returns_bookkeeping_to_empty(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_memcg_bookkeeping e0, full, e1;
	struct shr_bookkeeping_stats a, b;
	struct sb *sbs[150];
	struct sb_fs fs;

	(void)state;
	e0 = bk(cg);
	assert_int_equal(e0.unit_bytes + e0.xa_node_bytes + e0.container_bytes, 0);
	assert_true(e0.inline_bytes <= 64UL * NODES);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	a = stats(host);
	mount_n(&fs, sbs, 150);
	for (int i = 0; i < 150; i += 3)
		assert_int_equal(sb_create_file(sbs[i], cg, i % NODES), 0);
	full = bk(cg);
	/* 50 mounts with ids 0..147: units 0, 1 and 2 on every node. */
	assert_int_equal(full.nr_units, 3 * NODES);
	assert_true(full.unit_bytes > 0 && full.container_bytes > 0);
	umount_n(sbs, 150);
	e1 = bk(cg);
	b = stats(host);
	assert_memory_equal(&e0, &e1, sizeof(e0));
	/* The cgroup's 3 units per node, and the root's (its bits for these
	 * ids, installed with the first cgroup list of each list_lru). */
	assert_int_equal(b.units_installed - a.units_installed, 2 * 3 * NODES);
	assert_int_equal(b.units_freed - a.units_freed, 2 * 3 * NODES);
	sb_fs_destroy(&fs);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* Offline of a cgroup that holds nothing visits no list_lru. */
static void test_offline_of_empty_cgroup_visits_no_lru(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *busy = shr_test_mkcg(root), *empty = shr_test_mkcg(root);
	struct shr_bookkeeping_stats a, b;
	struct sb *sbs[100];
	struct sb_fs fs;

	(void)state;
	assert_int_equal(sb_fs_init(&fs, host), 0);
	mount_n(&fs, sbs, 100);
	for (int i = 0; i < 100; i++)
		assert_int_equal(sb_create_file(sbs[i], root, 0), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sb_create_file(sbs[i], busy, 0), 0);
	a = stats(host);
	assert_int_equal(shr_mem_cgroup_offline(empty), 0);
	b = stats(host);
	assert_int_equal(b.lru_reparent_visits - a.lru_reparent_visits, 0);
	/* A cgroup with lists on 5 mounts (2 list_lrus each) visits those. */
	assert_int_equal(shr_mem_cgroup_offline(busy), 0);
	a = stats(host);
	assert_int_equal(a.lru_reparent_visits - b.lru_reparent_visits, 10);
	umount_n(sbs, 100);
	sb_fs_destroy(&fs);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A FAKE_FIXED shrinker counting a million objects and freeing none. */
static struct fake *one_new(struct shr_host *host)
{
	struct fake *f = fake_new(host, FAKE_FIXED, SHR_SHRINKER_MEMCG_AWARE |
				  SHR_SHRINKER_NUMA_AWARE, "one", false);

	f->count = 1000000;
	f->scan_ret = 0;
	assert_int_equal(shr_shrinker_register(f->shrinker), 0);
	return f;
}

/* A freed shrinker's id leaves the next owner no bit and no deferred work,
 * in the cgroup, in its dying child's parent and in the root. */
static void test_id_reuse_leaves_nothing(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cg = shr_test_mkcg(root);
	struct fake *a = one_new(host), *b;
	unsigned long freed;
	int id = shr_shrinker_id(a->shrinker);

	(void)state;
	assert_int_equal(shr_set_shrinker_bit(cg, 1, a->shrinker), 0);
	assert_int_equal(shr_shrink_slab(host, 1, cg, 12, &freed), 0);
	assert_int_equal(a->count_calls, 1);
	assert_true(shr_shrinker_nr_deferred(a->shrinker, cg, 1) > 0);
	assert_int_equal(shr_shrink_slab(host, 1, NULL, 12, &freed), 0);
	assert_true(shr_shrinker_nr_deferred(a->shrinker, NULL, 1) > 0);
	fake_delete(a);
	b = one_new(host);
	assert_int_equal(shr_shrinker_id(b->shrinker), id);
	assert_int_equal(shr_shrinker_nr_deferred(b->shrinker, cg, 1), 0);
	assert_int_equal(shr_shrinker_nr_deferred(b->shrinker, NULL, 1), 0);
	/* No stale bit: the cgroup's walk does not call the new shrinker. */
	assert_int_equal(shr_shrink_slab(host, 1, cg, 12, &freed), 0);
	assert_int_equal(b->count_calls, 0);
	fake_delete(b);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* ---- a freed cgroup must not stay among a shrinker's users ---------------- */

/*
 * Reparenting a child's deferred work on node 1 gives its parent a unit on
 * node 1 only (the child's unit came from shr_set_shrinker_bit(), so the
 * parent has no list, hence no unit, of the shrinker). Freeing the parent
 * must drop it from the shrinker's users for that node-1 unit too: the
 * shrinker's free scrubs every cgroup on users, and a stale entry points at
 * freed slab memory (ASan: use-after-poison in ix_scrub).
 */
static void test_parent_with_node1_unit_only_leaves_users_when_freed(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_mem_cgroup *parent = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_mem_cgroup *child = shr_test_mkcg(parent);
	struct fake *f = one_new(host);
	struct shr_shrinker *s = f->shrinker;
	struct shr_memcg_bookkeeping pb;
	unsigned long freed;

	(void)state;
	assert_int_equal(shr_set_shrinker_bit(child, 1, s), 0);
	assert_int_equal(shr_shrink_slab(host, 1, child, 12, &freed), 0);
	assert_true(shr_shrinker_nr_deferred(s, child, 1) > 0);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	/* The parent received the work, in a unit on node 1 only. */
	assert_true(shr_shrinker_nr_deferred(s, parent, 1) > 0);
	assert_int_equal(shr_mem_cgroup_bookkeeping(parent, 0, &pb), 0);
	assert_int_equal(pb.nr_units, 0);
	assert_int_equal(shr_mem_cgroup_bookkeeping(parent, 1, &pb), 0);
	assert_int_equal(pb.nr_units, 1);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	shr_rcu_barrier(); /* both cgroups are freed now */
	fake_delete(f); /* scrubs the id in every cgroup on users */
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A FAKE_FIXED memcg-aware shrinker that counts nothing. */
static struct shr_shrinker *plain_memcg_shrinker(struct shr_host *host, struct fake *f)
{
	fake_init(f, 0);
	return fake_make(host, f, SHR_SHRINKER_MEMCG_AWARE, "plain", true);
}

/*
 * A dying cgroup keeps its units (no list left, refs 0) until it is freed.
 * An install on it that fails with -ENOMEM must leave them there, as it
 * found them: here the install of a second shrinker of the same unit (id 1)
 * fails only when it records the cgroup among that shrinker's users, and
 * its undo used to free the kept units while the cgroup stayed among the
 * first shrinker's users; the cgroup, freed later without units, was never
 * dropped from them (ASan: use-after-poison in ix_scrub at the first
 * shrinker's free).
 */
static void test_failed_install_on_dying_cgroup_keeps_its_units(void **state)
{
	struct shr_host *host = host_of(SHR_DESIGN_INDEXED, NODES);
	struct shr_slab_allocator *sa = shr_host_slab(host);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake fa, fb;
	struct shr_shrinker *a = plain_memcg_shrinker(host, &fa);
	struct shr_shrinker *b = plain_memcg_shrinker(host, &fb);
	struct shr_memcg_bookkeeping before, after;
	struct shr_list_head item;
	struct shr_list_lru *lru;
	unsigned long injected;
	bool kept;

	(void)state;
	assert_int_equal(shr_shrinker_id(a), 0);
	assert_int_equal(shr_shrinker_id(b), 1);
	assert_int_equal(shr_list_lru_init_memcg(host, a, &lru), 0);
	shr_list_head_init(&item);
	assert_int_equal(shr_list_lru_add(lru, &item, 0, cg), 1);
	/* Dying, still referenced: its list went to the root, its units
	 * (unit 0 on both nodes) stay until it is freed. */
	shr_mem_cgroup_get(cg);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_list_lru_del(lru, &item, 0, cg), 1);
	shr_rcu_barrier();
	assert_int_equal(shr_mem_cgroup_bookkeeping(cg, -1, &before), 0);
	assert_int_equal(before.nr_units, NODES);
	/* The install of b needs no unit (they are there); the first
	 * allocation is recording cg among b's users. */
	injected = shr_slab_faults_injected(sa);
	shr_slab_fail_nth(sa, 1, false);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, b), -ENOMEM);
	shr_slab_fault_clear(sa);
	assert_int_equal(shr_slab_faults_injected(sa) - injected, 1);
	shr_rcu_barrier();
	assert_int_equal(shr_mem_cgroup_bookkeeping(cg, -1, &after), 0);
	/* Checked last, so that ASan sees what the plain build hides. */
	kept = memcmp(&before, &after, sizeof(before)) == 0;
	shr_mem_cgroup_put(cg);
	shr_rcu_barrier(); /* cg is freed now */
	assert_int_equal(shr_list_lru_destroy(lru), 0);
	shr_shrinker_free(a); /* scrubs id 0 in every cgroup on a's users */
	shr_shrinker_free(b);
	assert_int_equal(shr_host_destroy(host), 0);
	assert_true(kept);
}

/* ---- set_bit vs clear race ------------------------------------------------ */

struct race {
	struct shr_host *host;
	struct sb *sb;
	struct shr_mem_cgroup *cg;
	atomic_int stop;
	int nid;
};

static void *race_adder(void *arg)
{
	struct race *r = arg;

	shr_thread_register();
	for (int i = 0; i < 3000; i++)
		assert_int_equal(sb_create_file(r->sb, r->cg, (i + r->nid) % NODES), 0);
	shr_thread_unregister();
	return NULL;
}

static void *race_reclaimer(void *arg)
{
	struct race *r = arg;
	unsigned long freed;

	shr_thread_register();
	while (!atomic_load(&r->stop))
		for (int nid = 0; nid < NODES; nid++)
			assert_int_equal(shr_shrink_slab(r->host, nid, r->cg, 0, &freed), 0);
	shr_thread_unregister();
	return NULL;
}

/* Objects added while reclaim keeps emptying the cgroup (so bits and marks
 * flip all the time): afterwards drop_caches, which prunes by the subtree
 * counts, still finds every object. */
static void test_set_bit_races_clear_nothing_stranded(void **state)
{
	struct race r = { 0 };
	struct shr_mem_cgroup *root;
	struct sb_fs fs;
	pthread_t add[2], rec;
	struct shr_bookkeeping_stats a, b;
	unsigned long freed;
	unsigned int passes;

	(void)state;
	shr_test_widen();
	r.host = host_of(SHR_DESIGN_INDEXED, NODES);
	root = shr_host_root_mem_cgroup(r.host);
	r.cg = shr_test_mkcg(shr_test_mkcg(root));
	assert_int_equal(sb_fs_init(&fs, r.host), 0);
	assert_int_equal(sb_mount(&fs, "tmpfs", &r.sb), 0);
	assert_int_equal(pthread_create(&rec, NULL, race_reclaimer, &r), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&add[i], NULL, race_adder, &r), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(add[i], NULL);
	atomic_store(&r.stop, 1);
	pthread_join(rec, NULL);
	shr_test_widen_end();
	assert_int_equal(shr_drop_caches(r.host, &freed, NULL), 0);
	assert_int_equal(sb_count_all(r.sb), 0);
	/* Bits left by the last pass are cleared by the next one (SHRINK_EMPTY)
	 * and stale marks by the walk; then the counts are back to 0: a pass
	 * visits the root only. */
	assert_int_equal(shr_drop_caches(r.host, &freed, NULL), 0);
	assert_int_equal(freed, 0);
	a = stats(r.host);
	assert_int_equal(shr_drop_caches(r.host, &freed, &passes), 0);
	b = stats(r.host);
	assert_int_equal(b.reclaim_cgroups_visited - a.reclaim_cgroups_visited,
			 (unsigned long)NODES * passes);
	sb_umount(r.sb);
	sb_fs_destroy(&fs);
	assert_int_equal(shr_mem_cgroup_offline(r.cg), 0);
	assert_int_equal(shr_mem_cgroup_offline(shr_mem_cgroup_parent(r.cg)), 0);
	assert_int_equal(shr_host_destroy(r.host), 0);
}

/* ---- a clear of one id vs set_bit of another id in the same unit --------- */

struct gate {
	struct shr_host *host;
	struct shr_mem_cgroup *cg;
	struct shr_shrinker *slab_s;    /* not NONSLAB: the kmem gate clears its bit */
	struct shr_shrinker *nonslab_s; /* its objects are counted in @objects */
	atomic_long objects;
	atomic_int stop;
	/* Spin handshake (futex wake-ups would keep the threads apart). */
	atomic_int round, done;
};

/*
 * Wait until *@v >= @target: spin while the other thread is likely running
 * (both on a CPU: the rounds stay close together), then yield, so a
 * descheduled partner on a busy machine gets the CPU instead of this thread
 * burning its time slice.
 */
static void gate_wait(atomic_int *v, int target)
{
	for (unsigned int spins = 0; atomic_load(v) < target; spins++)
		if (spins >= 2000)
			sched_yield();
}

static unsigned long gate_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct gate *g = s->private_data;
	long n;

	if (shr_mem_cgroup_is_root(sc->memcg))
		return SHR_SHRINK_EMPTY;
	n = atomic_load(&g->objects);
	return n > 0 ? (unsigned long)n : SHR_SHRINK_EMPTY;
}

static unsigned long gate_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct gate *g = s->private_data;
	long n = atomic_load(&g->objects);

	while (n > 0 && !atomic_compare_exchange_weak(&g->objects, &n, 0))
		;
	(void)sc;
	return n > 0 ? (unsigned long)n : 0;
}

static struct shr_shrinker *gate_shrinker(struct gate *g, unsigned int extra)
{
	struct shr_shrinker *s;

	assert_int_equal(shr_shrinker_alloc(g->host, SHR_SHRINKER_MEMCG_AWARE | extra, "gate",
					    &s), 0);
	s->count_objects = gate_count;
	s->scan_objects = gate_scan;
	s->private_data = g;
	s->batch = 1;
	assert_int_equal(shr_shrinker_register(s), 0);
	return s;
}

/* Each round: set the slab shrinker's bit and walk; the walk clears that bit
 * through the kmem gate (no recount follows such a clear), often emptying the
 * unit's map while the main thread sets the NONSLAB shrinker's bit. */
static void *gate_clearer(void *arg)
{
	struct gate *g = arg;
	unsigned long freed;

	shr_thread_register();
	for (int r = 1;; r++) {
		gate_wait(&g->round, r);
		if (atomic_load(&g->stop))
			break;
		assert_int_equal(shr_set_shrinker_bit(g->cg, 0, g->slab_s), 0);
		assert_int_equal(shr_shrink_slab(g->host, 0, g->cg, 0, &freed), 0);
		atomic_store(&g->done, r);
	}
	shr_thread_unregister();
	return NULL;
}

/* With kmem off, the kmem gate clears a slab shrinker's bit without the
 * SHRINK_EMPTY recount, racing with a NONSLAB shrinker of the same unit
 * getting an object and its bit: the mark protocol alone must keep the unit
 * marked. After each round a walk (that sets no bit itself) must find the
 * object; a bit left in an unmarked unit would strand it. */
static void test_gate_clear_races_set_bit_same_unit(void **state)
{
	struct shr_host_params p;
	struct gate g = { 0 };
	struct shr_rng rng;
	pthread_t t;
	unsigned long freed;

	(void)state;
	shr_host_params_init(&p);
	p.design = SHR_DESIGN_INDEXED;
	p.nr_nodes = 1;
	p.kmem = false;
	assert_int_equal(shr_host_create(&p, &g.host), 0);
	g.cg = shr_test_mkcg(shr_host_root_mem_cgroup(g.host));
	g.slab_s = gate_shrinker(&g, 0);
	g.nonslab_s = gate_shrinker(&g, SHR_SHRINKER_NONSLAB);
	assert_int_equal(pthread_create(&t, NULL, gate_clearer, &g), 0);
	shr_rng_init(&rng, 1);
	for (int i = 0; i < 20000; i++) {
		unsigned long spin = shr_rng_below(&rng, 3000);

		atomic_store(&g.round, i + 1);
		/* Land anywhere in the clearer's round. */
		for (volatile unsigned long k = 0; k < spin; k++)
			;
		/* An object, then its bit (list_lru_add's order). */
		atomic_fetch_add(&g.objects, 1);
		assert_int_equal(shr_set_shrinker_bit(g.cg, 0, g.nonslab_s), 0);
		gate_wait(&g.done, i + 1);
		assert_int_equal(shr_shrink_slab(g.host, 0, g.cg, 0, &freed), 0);
		assert_int_equal(atomic_load(&g.objects), 0);
	}
	atomic_store(&g.stop, 1);
	atomic_store(&g.round, 20001);
	pthread_join(t, NULL);
	assert_int_equal(shr_drop_caches(g.host, &freed, NULL), 0);
	shr_shrinker_free(g.slab_s);
	shr_shrinker_free(g.nonslab_s);
	assert_int_equal(shr_mem_cgroup_offline(g.cg), 0);
	assert_int_equal(shr_host_destroy(g.host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_cgroup_walk_visits_no_unit),
		cmocka_unit_test(test_drop_caches_skips_empty_cgroups),
		cmocka_unit_test(test_subtree_reclaim_matches_xarray),
		cmocka_unit_test(test_registration_touches_no_cgroup),
		cmocka_unit_test(test_unmount_returns_bookkeeping_to_empty),
		cmocka_unit_test(test_offline_of_empty_cgroup_visits_no_lru),
		cmocka_unit_test(test_id_reuse_leaves_nothing),
		cmocka_unit_test(test_parent_with_node1_unit_only_leaves_users_when_freed),
		cmocka_unit_test(test_failed_install_on_dying_cgroup_keeps_its_units),
		cmocka_unit_test(test_set_bit_races_clear_nothing_stranded),
		cmocka_unit_test(test_gate_clear_races_set_bit_same_unit),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("indexed", tests);
}
