/* SPDX-License-Identifier: MIT */
/*
 * list_lru: add/del/count, per-node and per-cgroup lists, bits, top-down
 * allocation, dying cgroups, every isolate status of walk_one, walk order,
 * reparenting (both walks), -ENOMEM via fault injection, misuse.
 *
 * Mostly through the public API; white-box only for the reparent-visit
 * counter and the size of a cgroup's lists (to name its kmalloc class).
 * Internal test (tests/meson.build): it includes src/core/list_lru_internal.h
 * and src/base/debug.h.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "debug.h"
#include "fake_shrinker.h"
#include "harness.h"
#include "list_lru_internal.h"

#define NOBJ 16

struct obj {
	struct shr_list_head link;
	int tag;
	int mode;   /* enum shr_lru_status the walk callback returns */
	int visits; /* callback calls on this object */
};

static struct obj *obj_of(struct shr_list_head *item)
{
	return shr_container_of(item, struct obj, link);
}

struct fix {
	struct shr_host *host;
	struct shr_mem_cgroup *root;
	struct fake ts; /* a FAKE_LRU shrinker over one list_lru */
};

/* A registered NUMA- and memcg-aware FAKE_LRU shrinker named @name. */
static void ts_setup(struct shr_host *host, struct fake *ts, const char *name)
{
	fake_init_lru(ts);
	fake_make(host, ts, SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE, name, false);
	fake_bind_lru(host, ts);
	assert_int_equal(shr_shrinker_register(ts->shrinker), 0);
}

/* Unlink every item (the objects are the tests'), then destroy: a list_lru
 * that holds items is not destroyed. */
static void lru_drain_destroy(struct shr_list_lru *lru)
{
	while (shr_list_lru_count(lru))
		shr_list_lru_walk(lru, fake_isolate_remove, NULL, ~0UL);
	assert_int_equal(shr_list_lru_destroy(lru), 0);
}

static void fix_up_mode(struct fix *f, int nr_nodes, enum shr_lru_reparent mode)
{
	struct shr_host_params p;

	shr_host_params_init(&p);
	p.nr_nodes = nr_nodes;
	p.lru_reparent = mode;
	assert_int_equal(shr_host_create(&p, &f->host), 0);
	f->root = shr_host_root_mem_cgroup(f->host);
	ts_setup(f->host, &f->ts, "test-lru");
}

static void fix_up(struct fix *f, int nr_nodes)
{
	fix_up_mode(f, nr_nodes, SHR_LRU_REPARENT_DEFAULT);
}

static void fix_down(struct fix *f)
{
	fake_free(&f->ts);
	assert_int_equal(shr_host_destroy(f->host), 0);
}

static void objs_init(struct obj *o, int n)
{
	for (int i = 0; i < n; i++) {
		shr_list_head_init(&o[i].link);
		o[i].tag = i;
		o[i].mode = SHR_LRU_SKIP;
		o[i].visits = 0;
	}
}

/* Record the order of a list: a SKIP-only walk writing tags to @out. */
struct order {
	int tags[NOBJ * 4];
	int n;
};

static enum shr_lru_status record_cb(struct shr_list_head *item, struct shr_list_lru_one *list,
				     void *arg)
{
	struct order *o = arg;

	(void)list;
	o->tags[o->n++] = obj_of(item)->tag;
	return SHR_LRU_SKIP;
}

static struct order list_order(struct shr_list_lru *lru, int nid, struct shr_mem_cgroup *cg)
{
	struct order o = { .n = 0 };
	unsigned long budget = NOBJ * 4;

	shr_list_lru_walk_one(lru, nid, cg, record_cb, &o, &budget);
	return o;
}

static void assert_order(struct order o, const int *want, int n)
{
	assert_int_equal(o.n, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(o.tags[i], want[i]);
}

/* shrink_slab on (nid, cg) at priority 0; returns freed, counts calls. */
static unsigned long shrink(struct fix *f, int nid, struct shr_mem_cgroup *cg,
			    unsigned long *calls)
{
	unsigned long freed = 0, before = f->ts.count_calls;

	assert_int_equal(shr_shrink_slab(f->host, nid, cg, 0, &freed), 0);
	if (calls)
		*calls = f->ts.count_calls - before;
	return freed;
}

/* ------------------------------------------------------------------------ */

static void test_add_del_count(void **state)
{
	struct fix f;
	struct shr_list_lru *plain;
	struct obj o[3];

	(void)state;
	fix_up(&f, 1);
	objs_init(o, 3);
	assert_true(shr_list_lru_memcg_aware(f.ts.lru));
	assert_int_equal(shr_list_lru_init(f.host, &plain), 0);
	assert_false(shr_list_lru_memcg_aware(plain));

	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, NULL), 0);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, f.root), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 2);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, f.root), 2);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 2);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 2);

	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, NULL), 1);
	assert_true(shr_list_head_empty(&o[0].link));
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, NULL), 0);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 1);

	/* The plain list_lru. */
	assert_int_equal(shr_list_lru_add(plain, &o[2].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_count(plain), 1);
	assert_int_equal(shr_list_lru_del(plain, &o[2].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_count(plain), 0);

	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 0, f.root), 1);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);
	assert_int_equal(shr_list_lru_destroy(plain), 0);
	fix_down(&f);
}

static void test_per_node_per_cgroup(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a, *b;
	struct obj o[6];

	(void)state;
	fix_up(&f, 2);
	objs_init(o, 6);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(f.root);

	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, a), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 1, a), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[2].link, 1, a), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[3].link, 0, b), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[4].link, 1, NULL), 1);

	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, a), 2);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, b), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, NULL), 1);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 2);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 1), 3);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 5);

	/* Deleting with the add's (nid, memcg) touches only that list. */
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 1, a), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, a), 1);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 1), 2);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[3].link, 0, b), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 1);

	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	/* Reparenting to the root kept every node total. */
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, NULL), 2);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 1);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 1), 2);
	fix_down(&f);
}

static void test_bits(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a;
	unsigned long calls;
	struct obj o[2];

	(void)state;
	fix_up(&f, 2);
	objs_init(o, 2);
	a = shr_test_mkcg(f.root);

	/* No item anywhere: no bit, the shrinker is not called for A. */
	assert_int_equal(shrink(&f, 1, a, &calls), 0);
	assert_int_equal(calls, 0);

	/* 0 -> 1 on node 1 sets A's bit on node 1 only. */
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 1, a), 1);
	assert_int_equal(shrink(&f, 0, a, &calls), 0);
	assert_int_equal(calls, 0);
	assert_int_equal(shrink(&f, 1, a, &calls), 1);
	assert_true(calls >= 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, a), 0);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 1), 0);

	/* Delete never clears: add, del, and the shrinker is still called
	 * (it answers SHRINK_EMPTY, reclaim clears the bit); then not. */
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, a), 1);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 0, a), 1);
	assert_int_equal(shrink(&f, 0, a, &calls), 0);
	assert_true(calls >= 1);
	assert_int_equal(shrink(&f, 0, a, &calls), 0);
	assert_int_equal(calls, 0);

	/* The bit goes to the caller's cgroup: B's add creates A's list too
	 * but sets only B's bit. */
	{
		struct shr_mem_cgroup *b = shr_test_mkcg(a);
		struct obj p[1];

		objs_init(p, 1);
		shr_mem_cgroup_get(b);
		assert_int_equal(shr_list_lru_add(f.ts.lru, &p[0].link, 0, b), 1);
		assert_int_equal(shrink(&f, 0, a, &calls), 0);
		assert_int_equal(calls, 0);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &p[0].link, 0, b), 1);
		/* Offline with an empty list: no parent bit. */
		assert_int_equal(shr_mem_cgroup_offline(b), 0);
		/* An add through the dying B lands on A's list (0 -> 1) and
		 * sets A's bit, the owner of the list that took it (the kernel
		 * sets B's, which reclaim never reads, stranding the item:
		 * deliberate difference). A's reclaim reaches it. */
		assert_int_equal(shr_list_lru_add(f.ts.lru, &p[0].link, 0, b), 1);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 1);
		assert_int_equal(shrink(&f, 0, a, &calls), 1);
		assert_true(calls >= 1);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &p[0].link, 0, b), 0);
		shr_mem_cgroup_put(b);
	}

	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	fix_down(&f);
}

static void test_top_down_lists(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a, *b;
	struct obj o[1];

	(void)state;
	fix_up(&f, 1);
	objs_init(o, 1);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(a);

	/* Only the grandchild gets an item: A's list must exist first. */
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, b), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 1);

	/* Offline B: its item lands on A's list (not the root's). */
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 0);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 1);

	/* A's bit was set by reparenting: reclaim of A frees it. */
	assert_int_equal(shrink(&f, 0, a, NULL), 1);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);

	/* Explicit allocation is a no-op for the root and for A now. */
	assert_int_equal(shr_memcg_list_lru_alloc(f.root, f.ts.lru, SHR_GFP_KERNEL), 0);
	assert_int_equal(shr_memcg_list_lru_alloc(a, f.ts.lru, SHR_GFP_KERNEL), 0);

	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	fix_down(&f);
}

static void test_dying_goes_to_parent(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a, *b;
	struct obj o[3];
	unsigned long calls;

	(void)state;
	fix_up(&f, 1);
	objs_init(o, 3);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(a);
	shr_mem_cgroup_get(b);

	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, b), 1);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_true(shr_mem_cgroup_is_dying(b));

	/* Adds for the dying B go to A; B gets no list back. */
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, b), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 2);
	assert_int_equal(shr_memcg_list_lru_alloc(b, f.ts.lru, SHR_GFP_KERNEL), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 0);

	/* Deletes with (0, B) resolve to A, which holds both items. */
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, b), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 1);

	/* A dying cgroup is not reclaimed. */
	assert_int_equal(shrink(&f, 0, b, &calls), 0);
	assert_int_equal(calls, 0);

	/* Walks of the dying cgroup's own list find nothing. */
	assert_int_equal(list_order(f.ts.lru, 0, b).n, 0);

	/*
	 * Dying cgroup whose live parent has no lists yet: the parent gets
	 * them and takes the item (not the root), so a list created for C
	 * later cannot divert a del through D. Regression (torture): the item
	 * went to the root, C then got a list from an add of its own, and the
	 * del through D climbed to C's list, unlinked the item from the root
	 * list under C's lock and left root counting 1 (empty list) and C 0
	 * (one item): both stranded.
	 */
	{
		struct shr_mem_cgroup *c = shr_test_mkcg(f.root), *d = shr_test_mkcg(c);
		struct obj y[1];

		objs_init(y, 1);
		shr_mem_cgroup_get(d);
		assert_int_equal(shr_mem_cgroup_offline(d), 0);
		assert_int_equal(shr_list_lru_add(f.ts.lru, &o[2].link, 0, d), 1);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 0);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, c), 1);
		assert_int_equal(shr_list_lru_add(f.ts.lru, &y[0].link, 0, c), 1);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &o[2].link, 0, d), 1);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 0);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, c), 1);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &y[0].link, 0, c), 1);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, c), 0);
		shr_mem_cgroup_put(d);
		assert_int_equal(shr_mem_cgroup_offline(c), 0);
	}

	fake_free(&f.ts);
	shr_mem_cgroup_put(b);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_host_destroy(f.host), 0);
}

/* ------------------------------------------------------------------------ */

struct script {
	struct shr_list_head dispose;
	int calls;
};

static enum shr_lru_status script_cb(struct shr_list_head *item, struct shr_list_lru_one *list,
				     void *arg)
{
	struct script *sc = arg;
	struct obj *o = obj_of(item);
	enum shr_lru_status st = (enum shr_lru_status)o->mode;

	sc->calls++;
	o->visits++;
	switch (st) {
	case SHR_LRU_REMOVED:
		shr_list_lru_isolate_move(list, item, &sc->dispose);
		break;
	case SHR_LRU_REMOVED_RETRY:
		shr_list_lru_isolate(list, item);
		shr_list_lru_one_unlock(list);
		break;
	case SHR_LRU_RETRY:
		o->mode = SHR_LRU_SKIP; /* the next pass goes on past it */
		shr_list_lru_one_unlock(list);
		break;
	case SHR_LRU_STOP:
		shr_list_lru_one_unlock(list);
		break;
	case SHR_LRU_ROTATE:
	case SHR_LRU_SKIP:
		break;
	}
	return st;
}

static void add_all(struct shr_list_lru *lru, struct obj *o, int n, int nid,
		    struct shr_mem_cgroup *cg)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(shr_list_lru_add(lru, &o[i].link, nid, cg), 1);
}

static void test_walk_one_statuses(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a;
	struct script sc;
	struct obj o[6];
	unsigned long budget, n;

	(void)state;
	fix_up(&f, 1);
	a = shr_test_mkcg(f.root);
	objs_init(o, 6);
	o[0].mode = SHR_LRU_REMOVED;
	o[1].mode = SHR_LRU_SKIP;
	o[2].mode = SHR_LRU_REMOVED_RETRY;
	o[3].mode = SHR_LRU_ROTATE;
	o[4].mode = SHR_LRU_RETRY;
	o[5].mode = SHR_LRU_SKIP;
	add_all(f.ts.lru, o, 6, 0, a);

	shr_list_head_init(&sc.dispose);
	sc.calls = 0;
	budget = 100;
	/*
	 * 0 removed, 1 skip, 2 removed+restart; 1 skip, 3 rotate (to tail),
	 * 4 retry (-> skip) + restart; 1, 4, 5 skip, 3 rotate (already last).
	 */
	n = shr_list_lru_walk_one(f.ts.lru, 0, a, script_cb, &sc, &budget);
	assert_int_equal(n, 2);
	assert_int_equal(sc.calls, 10);
	assert_int_equal(budget, 90);
	assert_int_equal(o[1].visits, 3);
	assert_int_equal(o[3].visits, 2);
	assert_int_equal(o[4].visits, 2);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 4);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 4);
	assert_ptr_equal(sc.dispose.next, &o[0].link);
	assert_ptr_equal(o[0].link.next, &sc.dispose);
	assert_true(shr_list_head_empty(&o[2].link));
	{
		const int want[] = { 1, 4, 5, 3 };

		assert_order(list_order(f.ts.lru, 0, a), want, 4);
	}

	/* Budget: 3 calls over 4 skipping items. */
	for (int i = 0; i < 6; i++)
		o[i].mode = SHR_LRU_SKIP;
	sc.calls = 0;
	budget = 3;
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, a, script_cb, &sc, &budget), 0);
	assert_int_equal(sc.calls, 3);
	assert_int_equal(budget, 0);
	/* A zero budget calls nothing. */
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, a, script_cb, &sc, &budget), 0);
	assert_int_equal(sc.calls, 3);

	/* STOP ends the walk at once, with the lock dropped by the callback. */
	o[4].mode = SHR_LRU_STOP;
	sc.calls = 0;
	budget = 100;
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, a, script_cb, &sc, &budget), 0);
	assert_int_equal(sc.calls, 2);
	assert_int_equal(budget, 98);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[4].link, 0, a), 1);

	/* Two rotating items keep coming back: only the budget stops them. */
	o[1].mode = SHR_LRU_ROTATE;
	o[5].mode = SHR_LRU_ROTATE;
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[3].link, 0, a), 1);
	o[1].visits = o[5].visits = 0;
	sc.calls = 0;
	budget = 5;
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, a, script_cb, &sc, &budget), 0);
	assert_int_equal(sc.calls, 5);
	assert_int_equal(o[1].visits, 3);
	assert_int_equal(o[5].visits, 2);

	/* shrink_walk consumes sc->nr_to_scan and leaves nr_scanned. */
	{
		struct shr_shrink_control ctl = { .nid = 0, .memcg = a, .nr_to_scan = 1,
						  .nr_scanned = 1 };

		o[1].mode = o[5].mode = SHR_LRU_REMOVED;
		assert_int_equal(shr_list_lru_shrink_walk(f.ts.lru, &ctl, script_cb, &sc), 1);
		assert_int_equal(ctl.nr_to_scan, 0);
		assert_int_equal(ctl.nr_scanned, 1);
		assert_int_equal(shr_list_lru_shrink_count(f.ts.lru, &ctl), 1);
	}

	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	fix_down(&f);
}

static void test_walk_node_order(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a, *b;
	struct order ord = { .n = 0 };
	struct obj o[6];
	unsigned long budget;

	(void)state;
	fix_up(&f, 2);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(f.root);
	assert_true(shr_mem_cgroup_kmemcg_id(a) < shr_mem_cgroup_kmemcg_id(b));
	objs_init(o, 6);
	/* Added in the "wrong" order: B first, then root, then A. */
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[2].link, 0, b), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, a), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[5].link, 1, b), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[3].link, 1, NULL), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[4].link, 1, a), 1);

	budget = 100;
	assert_int_equal(shr_list_lru_walk_node(f.ts.lru, 0, record_cb, &ord, &budget), 0);
	{
		const int want[] = { 0, 1, 2 };

		assert_order(ord, want, 3);
	}
	assert_int_equal(budget, 97);

	/* The budget stops it between lists. */
	ord.n = 0;
	budget = 2;
	shr_list_lru_walk_node(f.ts.lru, 1, record_cb, &ord, &budget);
	{
		const int want[] = { 3, 4 };

		assert_order(ord, want, 2);
	}

	/* walk: node 0 then node 1; removing everything. */
	assert_int_equal(shr_list_lru_walk(f.ts.lru, fake_isolate_remove, NULL, 100), 6);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);

	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	fix_down(&f);
}

static void test_reparent_splice(void **state)
{
	struct fix f;
	struct shr_mem_cgroup *a, *b;
	struct obj o[5];
	unsigned long calls;

	(void)state;
	fix_up(&f, 1);
	objs_init(o, 5);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(a);
	add_all(f.ts.lru, &o[0], 2, 0, a); /* A: 0 1 */
	add_all(f.ts.lru, &o[2], 2, 0, b); /* B: 2 3 */

	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	{
		const int want[] = { 2, 3, 0, 1 };

		assert_order(list_order(f.ts.lru, 0, a), want, 4);
	}
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), 4);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 4);

	/* The parent's reclaim sees them all. */
	assert_int_equal(shrink(&f, 0, a, &calls), 4);
	assert_true(calls >= 1);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);

	/* Top-level cgroup: its items go to the root list; global reclaim. */
	add_all(f.ts.lru, &o[4], 1, 0, a);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 1);
	assert_int_equal(shrink(&f, 0, NULL, NULL), 1);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);
	fix_down(&f);
}

/*
 * One scenario on a host with @mode: three list_lrus (two of shrinker 1,
 * one of shrinker 2), a tree root/A/{B, C/D}, items scattered, D then C
 * then B offline. Writes a digest of what every list holds to @out.
 */
#define DIGEST_LEN 64
static unsigned long reparent_scenario(enum shr_lru_reparent mode, long *out)
{
	struct fix f;
	struct fake t2;
	struct shr_list_lru *extra, *lrus[3];
	struct shr_mem_cgroup *a, *b, *c, *d, *cgs[5];
	static struct obj o[3][NOBJ];
	unsigned long visits;
	int k = 0;

	fix_up_mode(&f, 2, mode);
	ts_setup(f.host, &t2, "test-lru-2");
	assert_int_equal(shr_list_lru_init_memcg(f.host, f.ts.shrinker, &extra), 0);
	lrus[0] = f.ts.lru;
	lrus[1] = extra;
	lrus[2] = t2.lru;
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(a);
	c = shr_test_mkcg(a);
	d = shr_test_mkcg(c);
	cgs[0] = NULL;
	cgs[1] = a;
	cgs[2] = b;
	cgs[3] = c;
	cgs[4] = d;
	for (int l = 0; l < 3; l++) {
		objs_init(o[l], NOBJ);
		for (int i = 0; i < NOBJ; i++) {
			/* lru 2 only ever sees D: few lists on it */
			int cg = l == 2 ? 4 : (i * 7 + l) % 5;

			o[l][i].tag = l * 100 + i;
			assert_int_equal(shr_list_lru_add(lrus[l], &o[l][i].link, i % 2, cgs[cg]), 1);
		}
	}

	visits = shr_list_lru_reparent_visits(f.host);
	assert_int_equal(shr_mem_cgroup_offline(d), 0);
	assert_int_equal(shr_mem_cgroup_offline(c), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	visits = shr_list_lru_reparent_visits(f.host) - visits;

	for (int l = 0; l < 3; l++) {
		for (int nid = 0; nid < 2; nid++) {
			struct order ord = list_order(lrus[l], nid, a);
			long h = 0;

			for (int i = 0; i < ord.n; i++)
				h = h * 131 + ord.tags[i] + 1;
			out[k++] = h;
			out[k++] = (long)shr_list_lru_count_one(lrus[l], nid, a);
			out[k++] = (long)shr_list_lru_count_one(lrus[l], nid, NULL);
			out[k++] = (long)shr_list_lru_count_node(lrus[l], nid);
		}
	}
	/* Parent bits: reclaim of A on each node frees what A holds. */
	for (int nid = 0; nid < 2; nid++)
		out[k++] = (long)shrink(&f, nid, a, NULL);
	while (k < DIGEST_LEN)
		out[k++] = 0;

	fake_free(&f.ts);
	fake_free(&t2);
	lru_drain_destroy(extra);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_host_destroy(f.host), 0);
	return visits;
}

static void test_reparent_walks_agree(void **state)
{
	long all[DIGEST_LEN], own[DIGEST_LEN];
	unsigned long v_all, v_own;

	(void)state;
	v_all = reparent_scenario(SHR_LRU_REPARENT_ALL_LRUS, all);
	v_own = reparent_scenario(SHR_LRU_REPARENT_PER_CGROUP, own);
	assert_memory_equal(all, own, sizeof(all));
	/* All: 3 offlines x 3 memcg-aware lrus. Own: D and C (D's ancestor)
	 * have lists on all three, B on the two of shrinker 1. */
	assert_int_equal(v_all, 9);
	assert_int_equal(v_own, 8);
	/* Per (lru, nid): A's list + the root list hold the node total, and
	 * reclaim of A on a node freed A's items of the two scanned lrus
	 * (the shrinkers walk lrus[0] and lrus[2]; lrus[1] is not scanned). */
	for (int l = 0; l < 3; l++)
		for (int nid = 0; nid < 2; nid++) {
			const long *e = &all[(l * 2 + nid) * 4];

			assert_int_equal(e[1] + e[2], e[3]);
		}
	for (int nid = 0; nid < 2; nid++)
		assert_int_equal(all[24 + nid], all[(0 * 2 + nid) * 4 + 1] +
						all[(2 * 2 + nid) * 4 + 1]);
	assert_true(all[24] + all[25] > 0);
}

/* ------------------------------------------------------------------------ */

static long kmalloc_class_in_use(struct shr_slab_allocator *sa, size_t size)
{
	struct shr_kmem_cache_stats st;

	shr_rcu_barrier();
	shr_kmem_cache_stats(shr_kmalloc_cache_for(sa, size), -1, &st);
	return (long)st.objects_in_use;
}

static void test_enomem(void **state)
{
	struct fix f;
	struct shr_slab_allocator *sa;
	struct shr_mem_cgroup *a, *b, *c;
	struct obj o[2];
	size_t lists_size;
	unsigned long nth;
	int failures = 0, r = 0;

	(void)state;
	fix_up(&f, 1);
	sa = shr_host_slab(f.host);
	objs_init(o, 2);
	a = shr_test_mkcg(f.root);
	b = shr_test_mkcg(a);
	lists_size = sizeof(struct shr_list_lru_memcg) + sizeof(struct shr_list_lru_one);

	/* Fail the 1st, 2nd, ... allocation of a grandchild add until it
	 * succeeds; each failure leaves the item off every list. */
	for (nth = 1; nth < 32; nth++) {
		long in_use = kmalloc_class_in_use(sa, lists_size);
		unsigned long in_a = shr_list_lru_count_one(f.ts.lru, 0, a);

		shr_slab_fail_nth(sa, nth, false);
		r = shr_list_lru_add(f.ts.lru, &o[0].link, 0, b);
		shr_slab_fault_clear(sa);
		if (r == 1)
			break;
		failures++;
		assert_int_equal(r, -ENOMEM);
		assert_true(shr_list_head_empty(&o[0].link));
		assert_int_equal(shr_list_lru_count(f.ts.lru), 0);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, a), in_a);
		/* At most A's list was kept (published, consistent). */
		assert_true(kmalloc_class_in_use(sa, lists_size) <= in_use + 1);
	}
	assert_int_equal(r, 1);
	assert_true(failures >= 2);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, b), 1);

	/* Failing the lists' kmalloc class: -ENOMEM; the root needs none. */
	c = shr_test_mkcg(f.root);
	assert_int_equal(shr_slab_fail_site(sa, shr_kmem_cache_name(
					shr_kmalloc_cache_for(sa, lists_size))), 0);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, c), -ENOMEM);
	assert_int_equal(shr_memcg_list_lru_alloc(c, f.ts.lru, SHR_GFP_KERNEL), -ENOMEM);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, NULL), 1);
	shr_slab_fault_clear(sa);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, c), 1);

	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(c), 0);
	fix_down(&f);
}

static void test_misuse(void **state)
{
	struct fix f, g;
	struct shr_list_lru *lru = NULL;
	struct shr_mem_cgroup *foreign;
	struct obj o[1];
	unsigned long budget = 10;

	(void)state;
	fix_up(&f, 2);
	fix_up(&g, 1);
	objs_init(o, 1);
	foreign = shr_test_mkcg(g.root);

	assert_int_equal(shr_list_lru_init(NULL, &lru), -EINVAL);
	assert_int_equal(shr_list_lru_init(f.host, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_init_memcg(f.host, g.ts.shrinker, &lru), -EINVAL);
	assert_null(lru);

	assert_int_equal(shr_list_lru_add(NULL, &o[0].link, 0, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_add(f.ts.lru, NULL, 0, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, -1, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 2, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, foreign), -EINVAL);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, g.root), -EINVAL);
	assert_true(shr_list_head_empty(&o[0].link));
	assert_int_equal(shr_list_lru_del(NULL, &o[0].link, 0, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_del(f.ts.lru, NULL, 0, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 5, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, foreign), -EINVAL);
	assert_int_equal(shr_memcg_list_lru_alloc(NULL, f.ts.lru, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_memcg_list_lru_alloc(foreign, f.ts.lru, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_memcg_list_lru_alloc(f.root, NULL, SHR_GFP_KERNEL), -EINVAL);

	assert_int_equal(shr_list_lru_count_one(NULL, 0, NULL), 0);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 7, NULL), 0);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, -1), 0);
	assert_int_equal(shr_list_lru_count(NULL), 0);
	assert_int_equal(shr_list_lru_shrink_count(f.ts.lru, NULL), 0);
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, NULL, NULL, NULL, &budget), 0);
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, NULL, record_cb, NULL, NULL), 0);
	assert_int_equal(shr_list_lru_walk_one(f.ts.lru, 0, foreign, record_cb, NULL, &budget), 0);
	assert_int_equal(shr_list_lru_walk_node(f.ts.lru, 3, record_cb, NULL, &budget), 0);
	assert_int_equal(shr_list_lru_walk(NULL, record_cb, NULL, 10), 0);
	assert_int_equal(budget, 10);
	assert_false(shr_list_lru_memcg_aware(NULL));
	assert_int_equal(shr_list_lru_destroy(NULL), 0);

	assert_int_equal(shr_mem_cgroup_offline(foreign), 0);
	fix_down(&g);
	fix_down(&f);
}

/* A del naming another list than the item's (node, cgroup or list_lru) is
 * refused with nothing changed: always when that list is empty (its count
 * would go negative), in every case in debug builds. */
static void test_del_from_the_wrong_list_is_refused(void **state)
{
	struct fix f;
	struct shr_list_lru *plain;
	struct shr_mem_cgroup *cg;
	struct obj o[3];

	(void)state;
	fix_up(&f, 2);
	objs_init(o, 3);
	cg = shr_test_mkcg(f.root);
	assert_int_equal(shr_list_lru_init(f.host, &plain), 0);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 0, cg), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(plain, &o[2].link, 0, NULL), 1);

	/* Empty lists: the wrong node, of the right and of another cgroup. */
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 1, cg), -EINVAL);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 1, NULL), -EINVAL);
	assert_int_equal(shr_list_lru_del(plain, &o[0].link, 1, NULL), -EINVAL);
	if (SHR_DEBUG_CHECKS) {
		/* Non-empty lists: the root's, another list_lru's. */
		assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, NULL), -EINVAL);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, f.root), -EINVAL);
		assert_int_equal(shr_list_lru_del(plain, &o[0].link, 0, NULL), -EINVAL);
		assert_int_equal(shr_list_lru_del(f.ts.lru, &o[2].link, 0, cg), -EINVAL);
	}
	/* Nothing moved. */
	assert_false(shr_list_head_empty(&o[0].link));
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, cg), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, cg), 0);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 0), 2);
	assert_int_equal(shr_list_lru_count_node(f.ts.lru, 1), 0);
	assert_int_equal(shr_list_lru_count(plain), 1);
	{
		const int want_cg[] = { 0 }, want_root[] = { 1 };

		assert_order(list_order(f.ts.lru, 0, cg), want_cg, 1);
		assert_order(list_order(f.ts.lru, 0, NULL), want_root, 1);
	}
	/* The right lists. */
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[0].link, 0, cg), 1);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_del(plain, &o[2].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);
	assert_int_equal(shr_list_lru_count(plain), 0);
	assert_int_equal(shr_list_lru_destroy(plain), 0);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	fix_down(&f);
}

/* A list_lru that still holds items is not destroyed (-EBUSY) and stays
 * usable; once emptied it is. */
static void test_destroy_with_items_is_refused(void **state)
{
	struct fix f;
	struct shr_list_lru *plain;
	struct shr_mem_cgroup *cg;
	struct obj o[3];

	(void)state;
	fix_up(&f, 2);
	objs_init(o, 3);
	cg = shr_test_mkcg(f.root);
	assert_int_equal(shr_list_lru_init(f.host, &plain), 0);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[0].link, 1, cg), 1);
	assert_int_equal(shr_list_lru_add(f.ts.lru, &o[1].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_add(plain, &o[2].link, 1, NULL), 1);

	assert_int_equal(shr_list_lru_destroy(f.ts.lru), -EBUSY);
	assert_int_equal(shr_list_lru_destroy(plain), -EBUSY);
	/* Unchanged and usable: the items are where they were. */
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 1, cg), 1);
	assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, NULL), 1);
	assert_int_equal(shr_list_lru_count(plain), 1);
	assert_int_equal(shr_list_lru_del(f.ts.lru, &o[1].link, 0, NULL), 1);
	assert_int_equal(shr_list_lru_destroy(f.ts.lru), -EBUSY);
	/* The cgroup's item is found by reclaim (its bit is still set). */
	assert_int_equal(shrink(&f, 1, cg, NULL), 1);
	assert_true(shr_list_head_empty(&o[0].link));
	assert_int_equal(shr_list_lru_del(plain, &o[2].link, 1, NULL), 1);
	assert_int_equal(shr_list_lru_destroy(plain), 0);
	assert_int_equal(shr_list_lru_destroy(NULL), 0);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	fix_down(&f); /* destroys the emptied f.ts.lru */
}

static void test_nokmem_plain(void **state)
{
	struct shr_host_params p;
	struct shr_host *host;
	struct fake ts;
	struct shr_mem_cgroup *a;
	struct obj o[1];

	(void)state;
	shr_host_params_init(&p);
	p.kmem = false;
	assert_int_equal(shr_host_create(&p, &host), 0);
	ts_setup(host, &ts, "nokmem");
	assert_false(shr_list_lru_memcg_aware(ts.lru));
	a = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	objs_init(o, 1);
	/* Everything goes to the root list. */
	assert_int_equal(shr_list_lru_add(ts.lru, &o[0].link, 0, a), 1);
	assert_int_equal(shr_list_lru_count_one(ts.lru, 0, NULL), 1);
	assert_int_equal(shr_list_lru_del(ts.lru, &o[0].link, 0, NULL), 1);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	fake_free(&ts);
	assert_int_equal(shr_host_destroy(host), 0);
}

/* ------------------------------------------------------------------------ */

#define NWORKERS 4
#define WOBJ 32

struct worker {
	struct shr_list_lru *lru;
	struct shr_mem_cgroup *cg; /* pinned by the test */
	struct obj o[WOBJ];
	int nr_nodes, iters;
	int bad;           /* adds/dels that did not return 1 */
	atomic_int *stop;
	atomic_int progress;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	shr_thread_register();
	for (int it = 0; it < w->iters || !atomic_load(w->stop); it++) {
		for (int j = 0; j < WOBJ; j++)
			w->bad += shr_list_lru_add(w->lru, &w->o[j].link, j % w->nr_nodes, w->cg) != 1;
		for (int j = 0; j < WOBJ; j++)
			w->bad += shr_list_lru_del(w->lru, &w->o[j].link, j % w->nr_nodes, w->cg) != 1;
		atomic_fetch_add(&w->progress, 1);
	}
	/* Leave the even items on the lists. */
	for (int j = 0; j < WOBJ; j += 2)
		w->bad += shr_list_lru_add(w->lru, &w->o[j].link, j % w->nr_nodes, w->cg) != 1;
	shr_thread_unregister();
	return NULL;
}

struct walker {
	struct shr_list_lru *lru;
	atomic_int *stop;
	unsigned long seen;
};

static enum shr_lru_status count_cb(struct shr_list_head *item, struct shr_list_lru_one *list,
				    void *arg)
{
	(void)item;
	(void)list;
	(*(unsigned long *)arg)++;
	return SHR_LRU_SKIP;
}

static void *walker_fn(void *arg)
{
	struct walker *w = arg;

	shr_thread_register();
	while (!atomic_load(w->stop)) {
		unsigned long budget = 1000;

		shr_list_lru_walk_node(w->lru, 0, count_cb, &w->seen, &budget);
	}
	shr_thread_unregister();
	return NULL;
}

/* Adds and deletes race with offline (lists erased, marked dead, freed). */
static void test_concurrent_offline(void **state)
{
	static struct worker w[NWORKERS];
	struct walker wk;
	pthread_t th[NWORKERS], wth;
	atomic_int stop = 0;
	struct shr_mem_cgroup *a;
	struct fix f;
	unsigned long total = 0;

	(void)state;
	shr_test_widen();
	fix_up(&f, 2);
	a = shr_test_mkcg(f.root);
	for (int i = 0; i < NWORKERS; i++) {
		w[i].lru = f.ts.lru;
		w[i].cg = shr_test_mkcg(a);
		shr_mem_cgroup_get(w[i].cg);
		objs_init(w[i].o, WOBJ);
		w[i].nr_nodes = 2;
		w[i].iters = shr_test_long() ? 20000 : 500;
		w[i].bad = 0;
		w[i].stop = &stop;
		atomic_init(&w[i].progress, 0);
		assert_int_equal(pthread_create(&th[i], NULL, worker_fn, &w[i]), 0);
	}
	wk.lru = f.ts.lru;
	wk.stop = &stop;
	wk.seen = 0;
	assert_int_equal(pthread_create(&wth, NULL, walker_fn, &wk), 0);

	for (int i = 0; i < NWORKERS; i++) {
		while (atomic_load(&w[i].progress) < 10)
			sched_yield();
		assert_int_equal(shr_mem_cgroup_offline(w[i].cg), 0);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NWORKERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(pthread_join(wth, NULL), 0);
	shr_test_widen_end();

	for (int i = 0; i < NWORKERS; i++) {
		assert_int_equal(w[i].bad, 0);
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, 0, w[i].cg), 0);
		total += WOBJ / 2;
	}
	/* Everything ended on A's lists; node totals agree. */
	assert_int_equal(shr_list_lru_count(f.ts.lru), total);
	for (int nid = 0; nid < 2; nid++)
		assert_int_equal(shr_list_lru_count_one(f.ts.lru, nid, a),
				 shr_list_lru_count_node(f.ts.lru, nid));
	for (int i = 0; i < NWORKERS; i++) {
		for (int j = 0; j < WOBJ; j += 2)
			assert_int_equal(shr_list_lru_del(f.ts.lru, &w[i].o[j].link, j % 2,
							  w[i].cg), 1);
		shr_mem_cgroup_put(w[i].cg);
	}
	assert_int_equal(shr_list_lru_count(f.ts.lru), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	fix_down(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_del_count),
		cmocka_unit_test(test_per_node_per_cgroup),
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_top_down_lists),
		cmocka_unit_test(test_dying_goes_to_parent),
		cmocka_unit_test(test_walk_one_statuses),
		cmocka_unit_test(test_walk_node_order),
		cmocka_unit_test(test_reparent_splice),
		cmocka_unit_test(test_reparent_walks_agree),
		cmocka_unit_test(test_enomem),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_del_from_the_wrong_list_is_refused),
		cmocka_unit_test(test_destroy_with_items_is_refused),
		cmocka_unit_test(test_nokmem_plain),
		cmocka_unit_test(test_concurrent_offline),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("list_lru", tests);
}
