/* SPDX-License-Identifier: MIT */
/*
 * The kernel behaviours of reference §14, one test per item, plus isolation,
 * conservation and teardown properties. Design-parametrised: the same binary
 * runs against every design (--design NAME and options, see harness.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define MEMCG_NUMA (SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE)

/* With kmem off only NONSLAB shrinkers are reclaimed per cgroup (§12.2),
 * so bit-driven tests use NONSLAB ones there. */
static unsigned int cg_flags(struct shr_host *host, unsigned int flags)
{
	struct shr_host_params p;

	shr_host_get_params(host, &p);
	return p.kmem ? flags : flags | SHR_SHRINKER_NONSLAB;
}

static struct shr_host *host_new(void)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_test_host_params(&p);
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static struct shr_host *host_new_kmem(bool kmem)
{
	struct shr_host_params p;
	struct shr_host *host;

	/* A configuration that runs kmem off still runs these with kmem on
	 * (without nonslab_ids, which needs kmem off): they are about lists. */
	shr_test_host_params(&p);
	p.kmem = kmem;
	if (kmem)
		p.nonslab_ids = false;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

static void host_done(struct shr_host *host)
{
	assert_int_equal(shr_host_destroy(host), 0);
}

static unsigned long shrink(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg,
			    int prio)
{
	unsigned long freed = 0;

	assert_int_equal(shr_shrink_slab(host, nid, memcg, prio, &freed), 0);
	return freed;
}

/* §14.1: ids are allocated lowest-free at alloc time and reused at once. */
static void test_ids_lowest_free_at_alloc_and_reused(void **state)
{
	struct shr_host *host = host_new();
	struct fake *f[5];

	(void)state;
	for (int i = 0; i < 5; i++) {
		f[i] = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", i % 2 == 0);
		assert_int_equal(shr_shrinker_id(f[i]->shrinker), i);
	}
	fake_delete(f[1]);
	fake_delete(f[3]);
	f[1] = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", false);
	assert_int_equal(shr_shrinker_id(f[1]->shrinker), 1);
	f[3] = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	assert_int_equal(shr_shrinker_id(f[3]->shrinker), 3);
	/* Not memcg-aware: no id. */
	struct fake *plain = fake_new(host, FAKE_OBJECTS, 0, "fake", true);
	assert_int_equal(shr_shrinker_id(plain->shrinker), -1);
	fake_delete(plain);
	for (int i = 0; i < 5; i++)
		fake_delete(f[i]);
	host_done(host);
}

/* §14.1: shrinker_nr_max is a high-water mark, in the design's steps. */
static void test_nr_max_is_a_high_water_mark(void **state)
{
	struct shr_host *host = host_new();
	struct shr_host_params p;
	struct fake *f[70];
	int step, id_step;

	(void)state;
	shr_host_get_params(host, &p);
	/* The design's id step, or expand_batch rounded up to it. */
	id_step = (int)shr_design_info_of(p.design)->id_step;
	step = (int)p.expand_batch > id_step ? (int)p.expand_batch : id_step;
	step = (step + id_step - 1) / id_step * id_step;
	assert_int_equal(shr_shrinker_nr_max(host), 0);
	for (int i = 0; i < 70; i++) {
		f[i] = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", false);
		assert_int_equal(shr_shrinker_nr_max(host), (i / step + 1) * step);
	}
	for (int i = 0; i < 70; i++)
		fake_delete(f[i]);
	/* Never shrinks. */
	assert_int_equal(shr_shrinker_nr_max(host), (69 / step + 1) * step);
	host_done(host);
}

/* §14.2: global reclaim calls every registered shrinker, memcg-aware with
 * the root as memcg, and never calls an unregistered one. */
static void test_root_global_walk_calls_every_registered_shrinker(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct fake *aware = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	struct fake *plain = fake_new(host, FAKE_OBJECTS, 0, "fake", true);
	struct fake *unreg = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", false);
	unsigned long rino = shr_mem_cgroup_ino(root);

	(void)state;
	aware->objects[rino][1] = 10;
	plain->objects[rino][1] = 10;
	unreg->objects[rino][1] = 10;
	assert_int_equal(shrink(host, 1, NULL, 0), 20);
	assert_int_equal(aware->last_ino, rino);
	assert_int_equal(plain->last_nid, 1); /* nid passed unchanged */
	assert_int_equal(unreg->count_calls, 0);
	fake_delete(aware);
	fake_delete(plain);
	fake_delete(unreg);
	host_done(host);
}

/* Whether the host's design finds SHR_SHRINKER_ROOT_BITS shrinkers at the
 * root through the root's bits (the deliberate difference of indexed). */
static bool has_root_bits(struct shr_host *host)
{
	struct shr_host_params p;

	shr_host_get_params(host, &p);
	return shr_design_info_of(p.design)->root_bits;
}

/* Root bits (a deliberate difference, docs/design/INDEXED.md): every design frees
 * the same; a design with root bits calls a ROOT_BITS shrinker at the root
 * only on nodes whose root bit is set, clears it by the SHRINK_EMPTY
 * protocol, and still calls every other shrinker. */
static void test_root_bits_shrinker_is_called_only_where_the_root_holds_objects(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct fake *f = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA | SHR_SHRINKER_ROOT_BITS, "fake", true);
	struct fake *aware = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	unsigned long rino = shr_mem_cgroup_ino(root);
	bool bits = has_root_bits(host);
	int calls;

	(void)state;
	f->objects[rino][1] = 10;
	assert_int_equal(shr_set_shrinker_bit(root, 1, f->shrinker), 0);
	/* Node 0 holds nothing: called only without root bits. */
	assert_int_equal(shrink(host, 0, NULL, 0), 0);
	assert_int_equal(f->count_calls, bits ? 0 : 1);
	assert_int_equal(aware->count_calls, 1);
	calls = f->count_calls;
	assert_int_equal(shrink(host, 1, NULL, 0), 10);
	assert_int_equal(f->count_calls, calls + 1);
	/* Emptied: SHRINK_EMPTY clears the bit and recounts (2 calls) under
	 * root bits; the next pass does not call it at all. */
	calls = f->count_calls;
	assert_int_equal(shrink(host, 1, NULL, 0), 0);
	assert_int_equal(f->count_calls, calls + (bits ? 2 : 1));
	calls = f->count_calls;
	assert_int_equal(shrink(host, 1, root, 0), 0);
	assert_int_equal(f->count_calls, calls + (bits ? 0 : 1));
	/* Deferred work at the root is where it always is. */
	f->objects[rino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(root, 0, f->shrinker), 0);
	shrink(host, 0, root, 12);
	assert_int_equal(shr_shrinker_nr_deferred(f->shrinker, root, 0), 104);
	fake_delete(f);
	fake_delete(aware);
	host_done(host);
}

/* Root bits through list_lru: items that reach a root list by a root add,
 * by kmem-off charging, or by reparenting are freed by global reclaim in
 * every design; with nothing left, the root pass calls no superblock
 * shrinker under root bits. */
static void test_root_lists_reach_global_reclaim_by_every_path(void **state)
{
	for (int kmem = 0; kmem <= 1; kmem++) {
		struct shr_host *host = host_new_kmem(kmem);
		struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
		struct shr_mem_cgroup *cg = shr_test_mkcg(root), *child = shr_test_mkcg(cg);
		int nodes = shr_host_nr_nodes(host);
		struct shr_shrinker_stats st0, st1;
		unsigned long freed = 0;
		unsigned int passes = 0;
		struct sb_fs fs;
		struct sb *sb[3];

		(void)state;
		assert_int_equal(sb_fs_init(&fs, host), 0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(sb_mount(&fs, "tmpfs", &sb[i]), 0);
		assert_int_equal(sb_create_file(sb[0], root, nodes - 1), 0);
		assert_int_equal(sb_create_file(sb[1], child, 0), 0);
		assert_int_equal(shr_mem_cgroup_offline(child), 0); /* to cg */
		assert_int_equal(shr_mem_cgroup_offline(cg), 0);    /* to the root */
		assert_int_equal(sb_count(sb[1], 0, root), 2);
		assert_int_equal(shrink(host, nodes - 1, NULL, 0), 2);
		assert_int_equal(shrink(host, 0, root, 0), 2);
		assert_int_equal(sb_count_all(sb[0]) + sb_count_all(sb[1]), 0);
		/* Clear the bits (SHRINK_EMPTY), then count the calls of a pass. */
		assert_int_equal(shr_drop_caches(host, &freed, &passes), 0);
		assert_int_equal(freed, 0);
		assert_int_equal(shr_shrinker_get_stats(sb[2]->shrinker, &st0), 0);
		assert_int_equal(shr_drop_caches(host, NULL, NULL), 0);
		assert_int_equal(shr_shrinker_get_stats(sb[2]->shrinker, &st1), 0);
		assert_int_equal(st1.calls - st0.calls,
				 has_root_bits(host) ? 0 : (unsigned long)nodes);
		for (int i = 0; i < 3; i++)
			sb_umount(sb[i]);
		sb_fs_destroy(&fs);
		host_done(host);
	}
}

/* §14.2: a memcg-aware shrinker's global deferred work lives in the root's
 * per-memcg slot; a plain one's in its own node slot. */
static void test_global_reclaim_defers_into_root_slots(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct fake *aware = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	struct fake *plain = fake_new(host, FAKE_OBJECTS, 0, "fake", true);
	unsigned long rino = shr_mem_cgroup_ino(root);

	(void)state;
	/* §4 row 4: 1,000,000 objects at priority 12 defer 104. */
	aware->objects[rino][0] = 1000000;
	plain->objects[rino][1] = 1000000;
	shrink(host, 0, root, 12);
	shrink(host, 1, root, 12);
	assert_int_equal(shr_shrinker_nr_deferred(aware->shrinker, root, 0), 104);
	assert_int_equal(shr_shrinker_nr_deferred(aware->shrinker, root, 1), 0);
	/* Not NUMA-aware: slot 0 whatever the node. */
	assert_int_equal(shr_shrinker_nr_deferred(plain->shrinker, NULL, 0), 104);
	fake_delete(aware);
	fake_delete(plain);
	host_done(host);
}

/* §14.2/3: the root never gets bits; a child is reclaimed through its bits. */
static void test_nonroot_walk_calls_only_shrinkers_with_bits(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	struct fake *b = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	struct fake *plain = fake_new(host, FAKE_OBJECTS, 0, "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);
	struct shr_host_params p;

	(void)state;
	shr_host_get_params(host, &p);
	a->objects[ino][0] = 5;
	b->objects[ino][0] = 7;
	plain->objects[ino][0] = 9;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	assert_int_equal(shrink(host, 0, cg, 0), shr_design_info_of(p.design)->bits ? 5 : 12);
	assert_int_equal(plain->count_calls, 0); /* plain shrinkers: root only */
	if (shr_design_info_of(p.design)->bits)
		assert_int_equal(b->count_calls, 0);
	fake_delete(a);
	fake_delete(b);
	fake_delete(plain);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* §14.3: offline (dying) cgroups free nothing. */
static void test_offline_cgroup_frees_nothing(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);

	(void)state;
	a->objects[ino][0] = 5;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	shr_mem_cgroup_get(cg);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_false(shr_mem_cgroup_is_online(cg));
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	assert_int_equal(a->count_calls, 0);
	shr_mem_cgroup_put(cg);
	fake_delete(a);
	host_done(host);
}

/* §14.3, with a deliberate difference: a bit of an allocated-only shrinker
 * (objects added before register) is kept by the walk, which does not call
 * it; once registered, the next walk does. (The kernel clears it and the
 * objects stay unseen until their list next goes 0 -> 1.) */
static void test_bit_of_unarmed_shrinker_is_kept(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", false);
	unsigned long ino = shr_mem_cgroup_ino(cg);
	struct shr_bookkeeping_stats st0, st1;

	(void)state;
	a->objects[ino][0] = 5;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	assert_int_equal(a->count_calls, 0);
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	assert_int_equal(a->count_calls, 0);
	/* Registered now: the bit is still there, so it is called. */
	assert_int_equal(shr_shrinker_register(a->shrinker), 0);
	shr_host_bookkeeping_stats(host, &st0);
	assert_int_equal(shrink(host, 0, cg, 0), 5);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.walks, st0.walks + 1);
	fake_delete(a);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/*
 * Objects added to a list_lru before its shrinker is registered (documented
 * at shr_shrinker_register()): the add sets the cgroup's bit as usual (the id
 * exists from alloc on). Reclaim never calls the unregistered shrinker, and a
 * cgroup walk that meets the bit keeps it (a deliberate difference: the
 * kernel's shrink_slab_memcg() clears it, docs/design/RACES.md R2), so once the
 * shrinker is registered its objects are found in every cgroup, reclaimed
 * before registration or not. Designs without bits (nobitmap) call every
 * memcg-aware shrinker. Root objects are found by global reclaim once the
 * shrinker is registered, with and without root bits.
 */
static void test_objects_added_before_register(void **state)
{
	struct shr_host *host = host_new_kmem(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *parent = shr_test_mkcg(root);
	struct shr_mem_cgroup *quiet = shr_test_mkcg(parent), *reclaimed = shr_test_mkcg(parent);
	struct shr_list_head ei[3], ri[1];
	struct fake *e, *r;

	(void)state;
	/* Allocated and bound to its list_lru, not registered (as a
	 * superblock between alloc_super() and the end of sget()). */
	e = fake_new(host, FAKE_LRU, MEMCG_NUMA, "early", false);
	r = fake_new(host, FAKE_LRU, MEMCG_NUMA | SHR_SHRINKER_ROOT_BITS, "early", false);
	for (int i = 0; i < 3; i++)
		shr_list_head_init(&ei[i]);
	shr_list_head_init(&ri[0]);
	assert_int_equal(shr_list_lru_add(e->lru, &ei[0], 0, quiet), 1);
	assert_int_equal(shr_list_lru_add(e->lru, &ei[1], 1, reclaimed), 1);
	assert_int_equal(shr_list_lru_add(e->lru, &ei[2], 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(r->lru, &ri[0], 1, NULL), 1);

	/* Before registration: never called, anywhere. */
	assert_int_equal(shrink(host, 1, reclaimed, 0), 0);
	assert_int_equal(shrink(host, 0, NULL, 0), 0);
	assert_int_equal(shrink(host, 1, NULL, 0), 0);
	assert_int_equal(e->count_calls + r->count_calls, 0);

	assert_int_equal(shr_shrinker_register(e->shrinker), 0);
	assert_int_equal(shr_shrinker_register(r->shrinker), 0);
	/* No reclaim of `quiet` ran: its bit is there. */
	assert_int_equal(shrink(host, 0, quiet, 0), 1);
	/* `reclaimed`'s bit survived the walk that could not pin e. */
	assert_int_equal(shrink(host, 1, reclaimed, 0), 1);
	/* Root objects: global reclaim, with or without root bits. */
	assert_int_equal(shrink(host, 0, NULL, 0), 1);
	assert_int_equal(shrink(host, 1, NULL, 0), 1);
	assert_int_equal(shr_list_lru_count(e->lru) + shr_list_lru_count(r->lru), 0);

	fake_delete(e);
	fake_delete(r);
	assert_int_equal(shr_mem_cgroup_offline(reclaimed), 0);
	assert_int_equal(shr_mem_cgroup_offline(quiet), 0);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	host_done(host);
}

/* §14.3: a bit of a freed shrinker is cleared by the walk (nothing is
 * called); the id's next owner, holding nothing there, is not called. */
static void test_bit_of_freed_shrinker_is_cleared(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);
	struct fake *b;
	int id = shr_shrinker_id(a->shrinker);

	(void)state;
	a->objects[ino][0] = 5;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	fake_delete(a);
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	b = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	assert_int_equal(shr_shrinker_id(b->shrinker), id);
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	/* nobitmap has no bits: it calls every memcg-aware shrinker. */
	assert_int_equal(b->count_calls, shr_design_info_of(shr_host_design(host))->bits ? 0 : 1);
	fake_delete(b);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* §14.3: SHRINK_EMPTY clears the bit; the recount after the barrier finds
 * new objects and sets it again. */
static void test_shrink_empty_clears_bit_and_recheck_sets_it_again(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);
	bool bits = shr_design_info_of(shr_host_design(host))->bits;

	(void)state;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	/* First count EMPTY, recount finds 3: freed by the second call. With
	 * no bits there is no recount; the next walk calls the shrinker anyway
	 * and frees them. */
	a->objects[ino][0] = 3;
	a->empty_first_counts = 1;
	if (bits) {
		assert_int_equal(shrink(host, 0, cg, 0), 3);
		assert_int_equal(a->count_calls, 2);
	} else {
		assert_int_equal(shrink(host, 0, cg, 0), 0);
		assert_int_equal(a->count_calls, 1);
		assert_int_equal(shrink(host, 0, cg, 0), 3);
	}
	/* Now empty for real: the bit goes (two counts), then no more calls. */
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	a->count_calls = 0;
	assert_int_equal(shrink(host, 0, cg, 0), 0);
	assert_int_equal(a->count_calls, bits ? 0 : 1);
	fake_delete(a);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* §14.3: a count of 0 (not SHRINK_EMPTY) keeps the bit. */
static void test_count_zero_keeps_the_bit(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);

	(void)state;
	a->zero_means_zero = true;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(shrink(host, 0, cg, 0), 0);
	assert_int_equal(a->count_calls, 3);
	fake_delete(a);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* §14.4: sc->nid is never rewritten; non-NUMA deferred work goes to slot 0. */
static void test_nid_unchanged_and_non_numa_defers_to_slot_zero(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, SHR_SHRINKER_MEMCG_AWARE), "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);

	(void)state;
	a->objects[ino][1] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cg, 1, a->shrinker), 0);
	shrink(host, 1, cg, 12);
	assert_int_equal(a->last_nid, 1);
	assert_int_equal(shr_shrinker_nr_deferred(a->shrinker, cg, 1), 104);
	assert_int_equal(shr_shrinker_nr_deferred(a->shrinker, cg, 0), 104); /* same slot 0 */
	fake_delete(a);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* §14.6: free waits for a reclaim call in flight. */
struct blocker {
	struct fake *f;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int in_scan;
	int release;
	int freed_done;
	struct shr_host *host;
};

static struct blocker *the_blocker;

static unsigned long blocking_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct blocker *b = the_blocker;

	(void)s;
	(void)sc;
	pthread_mutex_lock(&b->lock);
	b->in_scan = 1;
	pthread_cond_broadcast(&b->cond);
	while (!b->release)
		pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
	return 1;
}

static void *reclaimer(void *arg)
{
	struct blocker *b = arg;
	unsigned long freed;

	shr_thread_register();
	(void)shr_shrink_slab(b->host, 0, NULL, 0, &freed);
	shr_thread_unregister();
	return NULL;
}

static void *freer(void *arg)
{
	struct blocker *b = arg;

	shr_thread_register();
	shr_shrinker_free(b->f->shrinker);
	pthread_mutex_lock(&b->lock);
	b->freed_done = 1;
	pthread_mutex_unlock(&b->lock);
	shr_thread_unregister();
	return NULL;
}

static void test_free_waits_for_calls_in_flight(void **state)
{
	struct blocker b = { 0 };
	pthread_t t1, t2;
	int done;

	(void)state;
	shr_test_widen();
	b.host = host_new();
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.cond, NULL);
	the_blocker = &b;
	b.f = fake_new(b.host, FAKE_OBJECTS, MEMCG_NUMA, "fake", false);
	b.f->shrinker->scan_objects = blocking_scan;
	b.f->objects[1][0] = 10;
	assert_int_equal(shr_shrinker_register(b.f->shrinker), 0);
	pthread_create(&t1, NULL, reclaimer, &b);
	pthread_mutex_lock(&b.lock);
	while (!b.in_scan)
		pthread_cond_wait(&b.cond, &b.lock);
	pthread_mutex_unlock(&b.lock);
	pthread_create(&t2, NULL, freer, &b);
	usleep(50000);
	pthread_mutex_lock(&b.lock);
	done = b.freed_done;
	b.release = 1;
	pthread_cond_broadcast(&b.cond);
	pthread_mutex_unlock(&b.lock);
	assert_int_equal(done, 0); /* still waiting while the scan ran */
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	shr_test_widen_end();
	assert_int_equal(b.freed_done, 1);
	free(b.f); /* its shrinker is freed already (the freer) */
	host_done(b.host);
}

/* §2.4/§14.6: the next shrinker with a freed id inherits its deferred work
 * (kernel quirk); the indexed design resets it (documented difference). */
static void test_id_reuse_inherits_deferred_work(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);
	int id = shr_shrinker_id(a->shrinker);
	struct fake *b;

	(void)state;
	a->objects[ino][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, a->shrinker), 0);
	shrink(host, 0, cg, 12);
	assert_int_equal(shr_shrinker_nr_deferred(a->shrinker, cg, 0), 104);
	fake_delete(a);
	b = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	assert_int_equal(shr_shrinker_id(b->shrinker), id);
	assert_int_equal(shr_shrinker_nr_deferred(b->shrinker, cg, 0),
			 shr_design_info_of(shr_host_design(host))->scrubs_reused_ids ? 0 : 104);
	fake_delete(b);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* Conservation as get_stats reports it: the deferred work held for a
 * shrinker is counted once while a cgroup dies. Offline hands the child's
 * work to its parent; the dying child, which keeps its counters until it is
 * freed, is not counted again (nor is a cgroup that is not online yet). */
static void test_get_stats_counts_deferred_work_once_while_a_cgroup_dies(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *parent = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_mem_cgroup *child = shr_test_mkcg(parent), *unborn;
	struct fake *a = fake_new(host, FAKE_OBJECTS, cg_flags(host, MEMCG_NUMA), "fake", true);
	struct shr_shrinker_stats st;
	long held;

	(void)state;
	a->objects[shr_mem_cgroup_ino(child)][0] = 1000000;
	assert_int_equal(shr_set_shrinker_bit(child, 0, a->shrinker), 0);
	/* The parent has the shrinker's bookkeeping too (as a list_lru's
	 * ancestors-first rule would give it), so the work has a home. */
	assert_int_equal(shr_set_shrinker_bit(parent, 0, a->shrinker), 0);
	shrink(host, 0, child, 12);
	held = shr_shrinker_nr_deferred(a->shrinker, child, 0);
	assert_int_equal(held, 104);
	assert_int_equal(shr_shrinker_get_stats(a->shrinker, &st), 0);
	assert_int_equal(st.deferred, held);
	assert_int_equal(shr_mem_cgroup_alloc(parent, &unborn), 0);
	assert_int_equal(shr_shrinker_get_stats(a->shrinker, &st), 0);
	assert_int_equal(st.deferred, held);
	assert_int_equal(shr_mem_cgroup_offline(unborn), 0);
	shr_mem_cgroup_get(child);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(shr_shrinker_nr_deferred(a->shrinker, parent, 0), held);
	assert_int_equal(shr_shrinker_get_stats(a->shrinker, &st), 0);
	assert_int_equal(st.deferred, held);
	shr_mem_cgroup_put(child);
	shr_rcu_barrier();
	assert_int_equal(shr_shrinker_get_stats(a->shrinker, &st), 0);
	assert_int_equal(st.deferred, held);
	fake_delete(a);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	host_done(host);
}

/* §14.8 and conservation: offline moves objects to the parent's lists and
 * adds the child's deferred work to the parent's counters. */
static void test_offline_reparents_objects_and_deferred_work(void **state)
{
	struct shr_host *host = host_new_kmem(true);
	struct shr_mem_cgroup *root, *parent, *child;
	struct sb_fs fs;
	struct sb *sb;
	long before_parent, before_child;

	(void)state;
	root = shr_host_root_mem_cgroup(host);
	parent = shr_test_mkcg(root);
	child = shr_test_mkcg(parent);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	assert_int_equal(sb_mount(&fs, "tmpfs", &sb), 0);
	for (int i = 0; i < 3000; i++)
		assert_int_equal(sb_create_file(sb, child, 0), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(sb_create_file(sb, parent, 0), 0);
	/* Priority 12 with 6000 objects: delta 2, nothing scanned, 2 deferred. */
	shrink(host, 0, child, 12);
	before_child = shr_shrinker_nr_deferred(sb->shrinker, child, 0);
	before_parent = shr_shrinker_nr_deferred(sb->shrinker, parent, 0);
	assert_true(before_child > 0);
	assert_int_equal(sb_count(sb, 0, child), 6000);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	assert_int_equal(sb_count(sb, 0, parent), 6010);
	assert_int_equal(shr_shrinker_nr_deferred(sb->shrinker, parent, 0),
			 before_parent + before_child);
	/* The parent's walk now reaches the reparented objects. */
	assert_int_equal(shrink(host, 0, parent, 0), 6010);
	sb_umount(sb);
	sb_fs_destroy(&fs);
	assert_int_equal(shr_mem_cgroup_offline(parent), 0);
	host_done(host);
}

/* §12.2: with kmem off, non-root reclaim calls only NONSLAB shrinkers. */
static void test_kmem_off_calls_only_nonslab_for_children(void **state)
{
	struct shr_host *host = host_new_kmem(false);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct fake *slab = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	struct fake *nonslab = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA | SHR_SHRINKER_NONSLAB, "fake", true);
	unsigned long ino = shr_mem_cgroup_ino(cg);

	(void)state;
	slab->objects[ino][0] = 4;
	nonslab->objects[ino][0] = 6;
	assert_int_equal(shr_set_shrinker_bit(cg, 0, slab->shrinker), 0);
	assert_int_equal(shr_set_shrinker_bit(cg, 0, nonslab->shrinker), 0);
	assert_int_equal(shrink(host, 0, cg, 0), 6);
	assert_int_equal(slab->count_calls, 0);
	/* The gate also dropped its reference: free does not hang. */
	fake_delete(slab);
	fake_delete(nonslab);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	host_done(host);
}

/* Isolation: reclaiming G frees only G's subtree, never a sibling's or the
 * parent's own objects; the root path reaches objects reparented to it. */
static void test_reclaim_frees_only_the_target_subtree(void **state)
{
	struct shr_host *host = host_new_kmem(true);
	struct shr_mem_cgroup *root, *p, *g, *gc, *sib;
	struct sb_fs fs;
	struct sb *sb;
	unsigned long freed = 0;

	(void)state;
	root = shr_host_root_mem_cgroup(host);
	p = shr_test_mkcg(root);
	g = shr_test_mkcg(p);
	gc = shr_test_mkcg(g);
	sib = shr_test_mkcg(p);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	assert_int_equal(sb_mount(&fs, "tmpfs", &sb), 0);
	for (int nid = 0; nid < shr_host_nr_nodes(host); nid++) {
		assert_int_equal(sb_create_file(sb, p, nid), 0);
		assert_int_equal(sb_create_file(sb, g, nid), 0);
		assert_int_equal(sb_create_file(sb, gc, nid), 0);
		assert_int_equal(sb_create_file(sb, sib, nid), 0);
		assert_int_equal(sb_create_file(sb, root, nid), 0);
	}
	assert_int_equal(shr_mem_cgroup_reclaim(g, ~0UL >> 1, &freed), -EAGAIN);
	for (int nid = 0; nid < shr_host_nr_nodes(host); nid++) {
		assert_int_equal(sb_count(sb, nid, g), 0);
		assert_int_equal(sb_count(sb, nid, gc), 0);
		assert_int_equal(sb_count(sb, nid, p), 2);
		assert_int_equal(sb_count(sb, nid, sib), 2);
		assert_int_equal(sb_count(sb, nid, root), 2);
	}
	assert_int_equal(freed, 4 * (unsigned long)shr_host_nr_nodes(host));
	/* Objects of an offlined sibling land in p, and then in the root. */
	assert_int_equal(shr_mem_cgroup_offline(sib), 0);
	assert_int_equal(shr_mem_cgroup_offline(gc), 0);
	assert_int_equal(shr_mem_cgroup_offline(g), 0);
	assert_int_equal(shr_mem_cgroup_offline(p), 0);
	for (int nid = 0; nid < shr_host_nr_nodes(host); nid++)
		assert_int_equal(sb_count(sb, nid, root), 6);
	assert_int_equal(shrink(host, 0, root, 0), 6);
	sb_umount(sb);
	sb_fs_destroy(&fs);
	host_done(host);
}

/* Nothing stranded: after a random sequence of adds, offlines and
 * reclaims, drop_caches leaves every list empty. */
static void test_drop_caches_leaves_nothing_after_random_sequence(void **state)
{
	struct shr_host *host = host_new_kmem(true);
	struct shr_mem_cgroup *cgs[24];
	int nr_cgs = 0;
	struct sb_fs fs;
	struct sb *sbs[6];
	struct shr_rng rng;
	int nodes;

	(void)state;
	nodes = shr_host_nr_nodes(host);
	shr_rng_init(&rng, 41);
	assert_int_equal(sb_fs_init(&fs, host), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(sb_mount(&fs, "tmpfs", &sbs[i]), 0);
	cgs[nr_cgs++] = shr_host_root_mem_cgroup(host);
	for (int step = 0; step < 4000; step++) {
		int op = (int)shr_rng_below(&rng, 100);
		struct shr_mem_cgroup *cg = cgs[shr_rng_below(&rng, (uint64_t)nr_cgs)];

		if (op < 8 && nr_cgs < 24) {
			if (shr_mem_cgroup_is_online(cg))
				cgs[nr_cgs++] = shr_test_mkcg(cg);
		} else if (op < 70) {
			struct sb *sb = sbs[shr_rng_below(&rng, 6)];

			if (!shr_mem_cgroup_is_dying(cg))
				assert_int_equal(sb_create_file(
							 sb, cg, (int)shr_rng_below(&rng, (uint64_t)nodes)),
						 0);
		} else if (op < 85) {
			unsigned long freed;

			(void)shr_shrink_slab(host, (int)shr_rng_below(&rng, (uint64_t)nodes), cg,
					      (int)shr_rng_below(&rng, 13), &freed);
		} else if (op < 90 && nr_cgs > 1) {
			/* offline a random leaf-most cgroup (the last created) */
			struct shr_mem_cgroup *victim = cgs[nr_cgs - 1];

			if (shr_mem_cgroup_offline(victim) == 0)
				nr_cgs--;
		}
	}
	assert_int_equal(shr_drop_caches(host, NULL, NULL), 0);
	for (int i = 0; i < 6; i++)
		assert_int_equal(sb_count_all(sbs[i]), 0);
	assert_int_equal(atomic_load(&fs.nr_alive), 0);
	for (int i = 0; i < 6; i++)
		sb_umount(sbs[i]);
	sb_fs_destroy(&fs);
	while (nr_cgs > 1)
		assert_int_equal(shr_mem_cgroup_offline(cgs[--nr_cgs]), 0);
	host_done(host);
}

/* Registration with many cgroups alive visits no cgroup but the root in the
 * designs that promise it (counted). */
static void test_registration_visits_only_the_root(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cgs[50];
	struct shr_bookkeeping_stats st0, st1;
	struct fake *f[130];
	enum shr_design d = shr_host_design(host);
	unsigned long long *hold_ns;
	size_t held0, held;

	(void)state;
	for (int i = 0; i < 50; i++)
		cgs[i] = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	shr_host_bookkeeping_stats(host, &st0);
	held0 = shr_host_registration_hold_ns(host, NULL, 0);
	for (int i = 0; i < 130; i++)
		f[i] = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	shr_host_bookkeeping_stats(host, &st1);
	assert_int_equal(st1.registrations - st0.registrations, 130);
	/* One registry hold time per registration, copied out in full. */
	held = shr_host_registration_hold_ns(host, NULL, 0);
	assert_int_equal(held - held0, 130);
	hold_ns = calloc(held, sizeof(*hold_ns));
	assert_non_null(hold_ns);
	assert_int_equal(shr_host_registration_hold_ns(host, hold_ns, held), held);
	free(hold_ns);
	if (d == SHR_DESIGN_XARRAY || d == SHR_DESIGN_NOBITMAP)
		assert_int_equal(st1.cgroups_visited_by_registration -
					 st0.cgroups_visited_by_registration,
				 130);
	else if (d == SHR_DESIGN_INDEXED)
		assert_int_equal(st1.cgroups_visited_by_registration,
				 st0.cgroups_visited_by_registration);
	for (int i = 0; i < 130; i++)
		fake_delete(f[i]);
	for (int i = 0; i < 50; i++)
		assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
	host_done(host);
}

/*
 * A reference taken with shr_mem_cgroup_tryget() keeps an offline cgroup
 * (dying) after its creator's reference is gone, past grace periods: the
 * host cannot be destroyed until it is put.
 */
static void test_tryget_reference_keeps_a_dying_cgroup(void **state)
{
	struct shr_host *host = host_new();
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));

	(void)state;
	assert_true(shr_mem_cgroup_tryget(cg));
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	shr_synchronize_rcu();
	shr_rcu_barrier();
	assert_true(shr_mem_cgroup_is_dying(cg));
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	shr_mem_cgroup_put(cg);
	host_done(host);
}

/* The public API rejects what it cannot honour, with no side effect. */
static void test_api_misuse_returns_errno(void **state)
{
	struct shr_host *host = host_new();
	struct shr_host *other = host_new();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host);
	struct shr_mem_cgroup *cg, *child, *out;
	struct shr_shrinker *s;
	struct fake *f = fake_new(host, FAKE_OBJECTS, MEMCG_NUMA, "fake", true);
	unsigned long freed;
	struct shr_host_params p;

	(void)state;
	shr_host_params_init(&p);
	p.nr_nodes = 0;
	assert_int_equal(shr_host_create(&p, &other), -EINVAL);
	shr_host_params_init(&p);
	p.design = SHR_NR_DESIGNS;
	assert_int_equal(shr_host_create(&p, &other), -EINVAL);
	other = host_new();
	assert_int_equal(shr_mem_cgroup_create(NULL, &out), -EINVAL);
	assert_int_equal(shr_mem_cgroup_offline(root), -EINVAL);
	cg = shr_test_mkcg(root);
	child = shr_test_mkcg(cg);
	assert_int_equal(shr_mem_cgroup_offline(cg), -EBUSY); /* has a live child */
	assert_true(shr_mem_cgroup_is_online(cg));
	assert_int_equal(shr_shrinker_alloc(NULL, 0, NULL, &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, 1u << 9, NULL, &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, SHR_SHRINKER_NONSLAB, NULL, &s), -EINVAL);
	assert_int_equal(shr_shrinker_alloc(host, SHR_SHRINKER_ROOT_BITS, NULL, &s), -EINVAL);
	assert_int_equal(shr_shrinker_register(f->shrinker), -EBUSY); /* double register */
	assert_int_equal(shr_shrinker_register(NULL), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, shr_host_nr_nodes(host), NULL, 0, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, -1, NULL, 0, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(host, 0, NULL, 13, &freed), -EINVAL);
	assert_int_equal(shr_shrink_slab(other, 0, cg, 0, &freed), -EINVAL); /* foreign */
	assert_int_equal(shr_set_shrinker_bit(cg, 99, f->shrinker), -EINVAL);
	assert_int_equal(shr_set_shrinker_bit(shr_host_root_mem_cgroup(other), 0, f->shrinker), -EINVAL);
	assert_int_equal(shr_mem_cgroup_reclaim(NULL, 1, &freed), -EINVAL);
	assert_int_equal(shr_mem_cgroup_reclaim(cg, 0, &freed), -EINVAL);
	/* A host in use cannot be destroyed. */
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_mem_cgroup_offline(child), 0);
	shr_mem_cgroup_get(cg);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_mem_cgroup_offline(cg), -EINVAL); /* twice */
	assert_int_equal(shr_mem_cgroup_reclaim(cg, 1, &freed), -ENOENT); /* offline */
	shr_mem_cgroup_put(cg);
	fake_delete(f);
	host_done(host);
	host_done(other);
}

/* A scripted life of a host, run with the N-th allocation failing for every
 * N until it runs clean: each step either succeeds or returns -ENOMEM, and at
 * the end everything is torn down with the allocator back where it started. */
static int scripted_life(struct shr_slab_allocator *sa, unsigned long fail_at, bool *failed)
{
	struct shr_host_params p;
	struct shr_host *host;
	struct shr_mem_cgroup *a = NULL, *b = NULL;
	struct sb_fs fs;
	struct sb *sb[3] = { NULL };
	struct fake *extra[70] = { NULL };
	int ret, nr_sb = 0;
	bool fs_ok = false;

	shr_test_host_params(&p);
	p.slab = sa;
	p.nonslab_ids = false;
	p.kmem = true;
	shr_slab_fail_nth(sa, fail_at, false);
	ret = shr_host_create(&p, &host);
	if (ret) {
		shr_slab_fault_clear(sa);
		*failed = true;
		assert_int_equal(ret, -ENOMEM);
		return 0;
	}
	ret = shr_mem_cgroup_create(shr_host_root_mem_cgroup(host), &a);
	assert_true(ret == 0 || ret == -ENOMEM);
	if (a) {
		ret = shr_mem_cgroup_create(a, &b);
		assert_true(ret == 0 || ret == -ENOMEM);
	}
	if (sb_fs_init(&fs, host) == 0) {
		fs_ok = true;
		for (int i = 0; i < 3; i++) {
			ret = sb_mount(&fs, "tmpfs", &sb[nr_sb]);
			assert_true(ret == 0 || ret == -ENOMEM);
			if (!ret)
				nr_sb++;
		}
		/* Cross a 64-id boundary so growth paths run. */
		for (int i = 0; i < 70; i++) {
			struct shr_shrinker *s;

			ret = shr_shrinker_alloc(host, MEMCG_NUMA, NULL, &s);
			assert_true(ret == 0 || ret == -ENOMEM);
			if (!ret)
				shr_shrinker_free(s);
		}
		for (int i = 0; i < nr_sb; i++) {
			struct shr_mem_cgroup *cg = b ? b : shr_host_root_mem_cgroup(host);

			ret = sb_create_file(sb[i], cg, 0);
			assert_true(ret == 0 || ret == -ENOMEM);
		}
	}
	(void)extra;
	shr_slab_fault_clear(sa);
	*failed = shr_slab_faults_injected(sa) > 0;
	/* Consistency after the failures: drop_caches empties every list. */
	assert_int_equal(shr_drop_caches(host, NULL, NULL), 0);
	for (int i = 0; i < nr_sb; i++) {
		assert_int_equal(sb_count_all(sb[i]), 0);
		sb_umount(sb[i]);
	}
	if (fs_ok)
		sb_fs_destroy(&fs);
	if (b)
		assert_int_equal(shr_mem_cgroup_offline(b), 0);
	if (a)
		assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_host_destroy(host), 0);
	return 0;
}

static void shrink_cache(struct shr_kmem_cache *cache, void *arg)
{
	(void)arg;
	shr_kmem_cache_shrink(cache);
}

static void test_every_allocation_failure_leaves_host_consistent(void **state)
{
	struct shr_slab_params sp = { .nr_nodes = 2, .geometry_cpus = 2 };
	struct shr_slab_allocator *sa;
	struct shr_slab_totals t0, t1;
	unsigned long n;
	bool failed = true;

	(void)state;
	assert_int_equal(shr_slab_allocator_create(&sp, &sa), 0);
	shr_slab_totals(sa, &t0);
	for (n = 1; failed; n++) {
		unsigned long injected_before = shr_slab_faults_injected(sa);

		failed = false;
		scripted_life(sa, n, &failed);
		failed = shr_slab_faults_injected(sa) != injected_before;
		shr_rcu_barrier();
		shr_slab_totals(sa, &t1);
		if (t1.sunreclaim_bytes != t0.sunreclaim_bytes ||
		    t1.sreclaimable_bytes != t0.sreclaimable_bytes) {
			/* Retained empty slabs are not leaks: shrink them first. */
			shr_slab_for_each_cache(sa, shrink_cache, NULL);
			shr_slab_totals(sa, &t1);
		}
		assert_int_equal(t1.sunreclaim_bytes, t0.sunreclaim_bytes);
		assert_int_equal(t1.sreclaimable_bytes, t0.sreclaimable_bytes);
		assert_true(n < 100000);
	}
	printf("# fault injection: %lu allocation sites failed in turn\n", n - 1);
	shr_slab_allocator_destroy(sa);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_lowest_free_at_alloc_and_reused),
		cmocka_unit_test(test_nr_max_is_a_high_water_mark),
		cmocka_unit_test(test_root_global_walk_calls_every_registered_shrinker),
		cmocka_unit_test(test_global_reclaim_defers_into_root_slots),
		cmocka_unit_test(test_root_bits_shrinker_is_called_only_where_the_root_holds_objects),
		cmocka_unit_test(test_root_lists_reach_global_reclaim_by_every_path),
		cmocka_unit_test(test_nonroot_walk_calls_only_shrinkers_with_bits),
		cmocka_unit_test(test_offline_cgroup_frees_nothing),
		cmocka_unit_test(test_bit_of_unarmed_shrinker_is_kept),
		cmocka_unit_test(test_bit_of_freed_shrinker_is_cleared),
		cmocka_unit_test(test_objects_added_before_register),
		cmocka_unit_test(test_shrink_empty_clears_bit_and_recheck_sets_it_again),
		cmocka_unit_test(test_count_zero_keeps_the_bit),
		cmocka_unit_test(test_nid_unchanged_and_non_numa_defers_to_slot_zero),
		cmocka_unit_test(test_free_waits_for_calls_in_flight),
		cmocka_unit_test(test_id_reuse_inherits_deferred_work),
		cmocka_unit_test(test_offline_reparents_objects_and_deferred_work),
		cmocka_unit_test(test_get_stats_counts_deferred_work_once_while_a_cgroup_dies),
		cmocka_unit_test(test_kmem_off_calls_only_nonslab_for_children),
		cmocka_unit_test(test_reclaim_frees_only_the_target_subtree),
		cmocka_unit_test(test_drop_caches_leaves_nothing_after_random_sequence),
		cmocka_unit_test(test_registration_visits_only_the_root),
		cmocka_unit_test(test_tryget_reference_keeps_a_dying_cgroup),
		cmocka_unit_test(test_api_misuse_returns_errno),
		cmocka_unit_test(test_every_allocation_failure_leaves_host_consistent),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("semantics", tests);
}
