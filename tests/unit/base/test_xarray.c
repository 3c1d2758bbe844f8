/* SPDX-License-Identifier: MIT */
/*
 * XArray API, path by path: the lone entry at index 0, value and internal
 * entries, insert/cmpxchg results, every mark and iteration path, the ALLOC
 * flavour, and -ENOMEM at every allocation a store makes (the array must be
 * unchanged and nothing leaked after each failure).
 *
 * Internal test (tests/meson.build): it enters RCU read-side sections with
 * src/base/rcu.h, as the library's own XArray users do.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <shrinker/xarray.h>

#include "rcu.h"
#include "harness.h"
#include "xa_test_util.h"

static _Alignas(8) uint64_t objs[16];
#define P(i) ((void *)&objs[(i)])

static void xa_new(struct xa_env *env, struct shr_xarray *xa, unsigned int flags)
{
	shr_xa_init(xa, env->cache, SHR_NUMA_NO_NODE, flags);
}

/* Empty the array by erasing and check no node is left. */
static void xa_drain(struct xa_env *env, struct shr_xarray *xa)
{
	unsigned long index;
	void *entry;

	shr_xa_for_each(xa, index, entry)
		assert_ptr_equal(shr_xa_erase(xa, index), entry);
	assert_true(shr_xa_empty(xa));
	assert_int_equal(shr_xa_nr_nodes(xa), 0);
	assert_int_equal(xa_env_live_nodes(env), 0);
	shr_xa_destroy(xa);
}

static void test_node_size(void **state)
{
	(void)state;
	printf("# node size %zu bytes\n", shr_xa_node_size());
	assert_true(shr_xa_node_size() >= sizeof(void *) * 4);
}

static void test_lone_entry(void **state)
{
	struct xa_env *env = *state;
	struct shr_xarray xa;
	unsigned long index;

	xa_new(env, &xa, 0);
	assert_true(shr_xa_empty(&xa));
	assert_null(shr_xa_store(&xa, 0, P(0), SHR_GFP_KERNEL));
	assert_false(shr_xa_empty(&xa));
	assert_int_equal(shr_xa_nr_nodes(&xa), 0);
	assert_int_equal(xa_env_live_nodes(env), 0);
	assert_ptr_equal(shr_xa_load(&xa, 0), P(0));
	assert_null(shr_xa_load(&xa, 1));
	assert_null(shr_xa_load(&xa, ULONG_MAX));
	/* Marks on the head entry survive growth and collapse. */
	shr_xa_set_mark(&xa, 0, SHR_XA_MARK_2);
	assert_true(shr_xa_get_mark(&xa, 0, SHR_XA_MARK_2));
	assert_true(shr_xa_marked(&xa, SHR_XA_MARK_2));
	assert_null(shr_xa_store(&xa, 1000, P(1), SHR_GFP_KERNEL));
	assert_true(shr_xa_nr_nodes(&xa) > 0);
	assert_true(shr_xa_get_mark(&xa, 0, SHR_XA_MARK_2));
	assert_false(shr_xa_get_mark(&xa, 1000, SHR_XA_MARK_2));
	index = 1;
	assert_null(shr_xa_find(&xa, &index, ULONG_MAX, SHR_XA_MARK_2));
	assert_ptr_equal(shr_xa_erase(&xa, 1000), P(1));
	assert_int_equal(shr_xa_nr_nodes(&xa), 0);
	assert_true(shr_xa_get_mark(&xa, 0, SHR_XA_MARK_2));
	index = 0;
	assert_ptr_equal(shr_xa_find(&xa, &index, ULONG_MAX, SHR_XA_MARK_2), P(0));
	assert_int_equal(index, 0);
	assert_null(shr_xa_find_after(&xa, &index, ULONG_MAX, SHR_XA_PRESENT));
	/* Replacing keeps the mark; erasing clears it. */
	assert_ptr_equal(shr_xa_store(&xa, 0, P(2), SHR_GFP_KERNEL), P(0));
	assert_true(shr_xa_get_mark(&xa, 0, SHR_XA_MARK_2));
	assert_ptr_equal(shr_xa_store(&xa, 0, NULL, SHR_GFP_KERNEL), P(2));
	assert_false(shr_xa_marked(&xa, SHR_XA_MARK_2));
	assert_true(shr_xa_empty(&xa));
	xa_drain(env, &xa);
}

static void test_value_entries(void **state)
{
	struct xa_env *env = *state;
	unsigned long vals[] = { 0, 1, 12345, ULONG_MAX >> 1 };
	struct shr_xarray xa;

	xa_new(env, &xa, 0);
	for (unsigned int i = 0; i < 4; i++) {
		void *v = shr_xa_mk_value(vals[i]);

		assert_true(shr_xa_is_value(v));
		assert_false(shr_xa_is_err(v));
		assert_int_equal(shr_xa_to_value(v), vals[i]);
		assert_null(shr_xa_store(&xa, i * 77, v, SHR_GFP_KERNEL));
	}
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(shr_xa_to_value(shr_xa_load(&xa, i * 77)), vals[i]);
	assert_false(shr_xa_is_value(P(0)));
	xa_drain(env, &xa);
}

static void test_internal_rejected(void **state)
{
	struct xa_env *env = *state;
	void *bad[] = { (void *)2UL, (void *)0x402UL, (void *)0x10002UL };
	struct shr_xarray xa, xalloc;
	uint32_t id;

	xa_new(env, &xa, 0);
	xa_new(env, &xalloc, SHR_XA_FLAGS_ALLOC);
	assert_null(shr_xa_store(&xa, 5, P(0), SHR_GFP_KERNEL));
	for (unsigned int i = 0; i < 3; i++) {
		void *ret = shr_xa_store(&xa, 5, bad[i], SHR_GFP_KERNEL);

		assert_true(shr_xa_is_err(ret));
		assert_int_equal(shr_xa_err(ret), -EINVAL);
		assert_int_equal(shr_xa_insert(&xa, 6, bad[i], SHR_GFP_KERNEL), -EINVAL);
		ret = shr_xa_cmpxchg(&xa, 5, P(0), bad[i], SHR_GFP_KERNEL);
		assert_int_equal(shr_xa_err(ret), -EINVAL);
		assert_int_equal(shr_xa_alloc(&xalloc, &id, bad[i], 0, 10, SHR_GFP_KERNEL),
				 -EINVAL);
	}
	assert_int_equal(shr_xa_insert(&xa, 6, NULL, SHR_GFP_KERNEL), -EINVAL);
	assert_ptr_equal(shr_xa_load(&xa, 5), P(0));
	assert_null(shr_xa_load(&xa, 6));
	assert_true(shr_xa_empty(&xalloc));
	/* Error helpers on ordinary entries. */
	assert_false(shr_xa_is_err(NULL));
	assert_false(shr_xa_is_err(P(0)));
	assert_int_equal(shr_xa_err(P(0)), 0);
	xa_drain(env, &xa);
	xa_drain(env, &xalloc);
}

static void test_insert_cmpxchg(void **state)
{
	struct xa_env *env = *state;
	struct shr_xarray xa;

	xa_new(env, &xa, 0);
	assert_int_equal(shr_xa_insert(&xa, 300, P(0), SHR_GFP_KERNEL), 0);
	assert_int_equal(shr_xa_insert(&xa, 300, P(1), SHR_GFP_KERNEL), -EBUSY);
	assert_ptr_equal(shr_xa_load(&xa, 300), P(0));
	/* Failure: returns the current entry, stores nothing. */
	assert_ptr_equal(shr_xa_cmpxchg(&xa, 300, P(5), P(1), SHR_GFP_KERNEL), P(0));
	assert_ptr_equal(shr_xa_load(&xa, 300), P(0));
	assert_null(shr_xa_cmpxchg(&xa, 301, P(5), P(1), SHR_GFP_KERNEL));
	assert_null(shr_xa_load(&xa, 301));
	/* Success. */
	assert_ptr_equal(shr_xa_cmpxchg(&xa, 300, P(0), P(1), SHR_GFP_KERNEL), P(0));
	assert_ptr_equal(shr_xa_load(&xa, 300), P(1));
	assert_null(shr_xa_cmpxchg(&xa, ULONG_MAX, NULL, P(2), SHR_GFP_KERNEL));
	assert_ptr_equal(shr_xa_load(&xa, ULONG_MAX), P(2));
	assert_ptr_equal(shr_xa_cmpxchg(&xa, ULONG_MAX, P(2), NULL, SHR_GFP_KERNEL), P(2));
	assert_null(shr_xa_load(&xa, ULONG_MAX));
	/* The _locked variants. */
	shr_xa_lock(&xa);
	assert_int_equal(shr_xa_insert_locked(&xa, 7, P(3), SHR_GFP_KERNEL), 0);
	assert_null(shr_xa_store_locked(&xa, 8, P(4), SHR_GFP_KERNEL));
	assert_ptr_equal(shr_xa_erase_locked(&xa, 7), P(3));
	shr_xa_set_mark_locked(&xa, 8, SHR_XA_MARK_1);
	shr_xa_unlock(&xa);
	assert_true(shr_xa_get_mark(&xa, 8, SHR_XA_MARK_1));
	shr_xa_lock(&xa);
	shr_xa_clear_mark_locked(&xa, 8, SHR_XA_MARK_1);
	shr_xa_unlock(&xa);
	assert_false(shr_xa_get_mark(&xa, 8, SHR_XA_MARK_1));
	assert_null(shr_xa_erase(&xa, 12345));
	xa_drain(env, &xa);
}

/* Entries spread over several levels; mark i % 3 on some of them. */
static const unsigned long spread[] = { 0, 1, 3, 4, 63, 64, 65, 4095, 4096, 1UL << 20,
					(1UL << 20) + 1, 1UL << 40, ULONG_MAX - 64,
					ULONG_MAX - 1, ULONG_MAX };
#define NR_SPREAD (sizeof(spread) / sizeof(spread[0]))

static bool spread_marked(unsigned int i, shr_xa_mark_t mark)
{
	return i % 3 == mark || i % 5 == mark;
}

static void test_marks_and_iteration(void **state)
{
	struct xa_env *env = *state;
	struct shr_xarray xa;
	unsigned long index;
	void *entry;

	xa_new(env, &xa, 0);
	for (unsigned int i = 0; i < NR_SPREAD; i++) {
		assert_null(shr_xa_store(&xa, spread[i], P(i), SHR_GFP_KERNEL));
		for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++)
			if (spread_marked(i, m))
				shr_xa_set_mark(&xa, spread[i], m);
	}
	/* No-ops: empty index, bad mark. */
	shr_xa_set_mark(&xa, 2, SHR_XA_MARK_0);
	assert_false(shr_xa_get_mark(&xa, 2, SHR_XA_MARK_0));
	shr_xa_set_mark(&xa, 1, 3);
	assert_false(shr_xa_get_mark(&xa, 1, 3));
	for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++) {
		unsigned int i = 0, seen = 0;

		shr_xa_for_each_marked(&xa, index, entry, m) {
			while (!spread_marked(i, m))
				i++;
			assert_int_equal(index, spread[i]);
			assert_ptr_equal(entry, P(i));
			assert_true(shr_xa_get_mark(&xa, index, m));
			i++;
			seen++;
		}
		for (unsigned int j = 0; j < NR_SPREAD; j++)
			seen -= spread_marked(j, m);
		assert_int_equal(seen, 0);
		assert_true(shr_xa_marked(&xa, m));
	}
	{
		unsigned int i = 0;

		shr_xa_for_each(&xa, index, entry) {
			assert_int_equal(index, spread[i]);
			assert_ptr_equal(entry, P(i));
			i++;
		}
		assert_int_equal(i, NR_SPREAD);
	}
	/* find: bounded by max, from the middle of a node, at the very end. */
	index = 5;
	assert_ptr_equal(shr_xa_find(&xa, &index, 63, SHR_XA_PRESENT), P(4));
	assert_int_equal(index, 63);
	index = 66;
	assert_null(shr_xa_find(&xa, &index, 4094, SHR_XA_PRESENT));
	index = 10;
	assert_null(shr_xa_find(&xa, &index, 9, SHR_XA_PRESENT));
	index = ULONG_MAX;
	assert_ptr_equal(shr_xa_find(&xa, &index, ULONG_MAX, SHR_XA_PRESENT), P(NR_SPREAD - 1));
	assert_null(shr_xa_find_after(&xa, &index, ULONG_MAX, SHR_XA_PRESENT));
	index = 64;
	assert_null(shr_xa_find_after(&xa, &index, 64, SHR_XA_PRESENT));
	assert_int_equal(index, 64);
	assert_ptr_equal(shr_xa_find_after(&xa, &index, 65, SHR_XA_PRESENT), P(6));
	assert_int_equal(index, 65);
	assert_null(shr_xa_find(&xa, &index, ULONG_MAX, 7)); /* bad filter */
	/* Clearing a mark updates the summaries. */
	for (unsigned int i = 0; i < NR_SPREAD; i++)
		shr_xa_clear_mark(&xa, spread[i], SHR_XA_MARK_1);
	assert_false(shr_xa_marked(&xa, SHR_XA_MARK_1));
	index = 0;
	assert_null(shr_xa_find(&xa, &index, ULONG_MAX, SHR_XA_MARK_1));
	/* Replace keeps marks; erase clears them (also through store NULL). */
	assert_true(shr_xa_get_mark(&xa, spread[0], SHR_XA_MARK_0));
	assert_ptr_equal(shr_xa_store(&xa, spread[0], P(15), SHR_GFP_KERNEL), P(0));
	assert_true(shr_xa_get_mark(&xa, spread[0], SHR_XA_MARK_0));
	assert_ptr_equal(shr_xa_store(&xa, spread[0], NULL, SHR_GFP_KERNEL), P(15));
	assert_null(shr_xa_store(&xa, spread[0], P(0), SHR_GFP_KERNEL));
	assert_false(shr_xa_get_mark(&xa, spread[0], SHR_XA_MARK_0));
	xa_drain(env, &xa);
}

static void test_alloc_flavour(void **state)
{
	struct xa_env *env = *state;
	struct shr_xarray xa, plain;
	uint32_t id = 99;

	xa_new(env, &xa, SHR_XA_FLAGS_ALLOC);
	xa_new(env, &plain, 0);
	assert_int_equal(shr_xa_alloc(&plain, &id, P(0), 0, 10, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(0), 5, 4, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_xa_alloc(&xa, &id, NULL, 0, 4, SHR_GFP_KERNEL), -EINVAL);
	for (uint32_t i = 0; i < 300; i++) {
		assert_int_equal(shr_xa_alloc(&xa, &id, P(1), 0, UINT32_MAX, SHR_GFP_KERNEL), 0);
		assert_int_equal(id, i);
	}
	assert_int_equal(shr_xa_alloc(&xa, &id, P(1), 10, 299, SHR_GFP_KERNEL), -EBUSY);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(1), 10, 300, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, 300);
	assert_ptr_equal(shr_xa_erase(&xa, 17), P(1));
	assert_ptr_equal(shr_xa_erase(&xa, 5), P(1));
	assert_int_equal(shr_xa_alloc(&xa, &id, P(2), 6, 100, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, 17);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(2), 0, 100, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, 5);
	/* Past the tree's capacity everything is free. */
	assert_int_equal(shr_xa_alloc(&xa, &id, P(3), 3000000000u, UINT32_MAX, SHR_GFP_KERNEL),
			 0);
	assert_int_equal(id, 3000000000u);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(3), UINT32_MAX, UINT32_MAX, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, UINT32_MAX);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(3), UINT32_MAX, UINT32_MAX, SHR_GFP_KERNEL),
			 -EBUSY);
	/* Mark 0 is reserved; marks 1 and 2 work. */
	shr_xa_set_mark(&xa, 1, SHR_XA_MARK_0);
	assert_false(shr_xa_get_mark(&xa, 1, SHR_XA_MARK_0));
	assert_false(shr_xa_marked(&xa, SHR_XA_MARK_0));
	shr_xa_set_mark(&xa, 1, SHR_XA_MARK_1);
	assert_true(shr_xa_get_mark(&xa, 1, SHR_XA_MARK_1));
	/* A lone entry at 0. */
	xa_drain(env, &xa);
	xa_new(env, &xa, SHR_XA_FLAGS_ALLOC);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(0), 0, 0, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, 0);
	assert_int_equal(shr_xa_nr_nodes(&xa), 0);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(0), 0, 0, SHR_GFP_KERNEL), -EBUSY);
	assert_int_equal(shr_xa_alloc(&xa, &id, P(0), 0, 1, SHR_GFP_KERNEL), 0);
	assert_int_equal(id, 1);
	xa_drain(env, &xa);
	xa_drain(env, &plain);
}

static void test_destroy_reuse(void **state)
{
	struct xa_env *env = *state;
	struct shr_xarray xa;

	xa_new(env, &xa, 0);
	for (unsigned long i = 0; i < 1000; i += 7)
		assert_null(shr_xa_store(&xa, i * i, P(i % 16), SHR_GFP_KERNEL));
	shr_xa_set_mark(&xa, 49, SHR_XA_MARK_0);
	shr_xa_destroy(&xa);
	assert_true(shr_xa_empty(&xa));
	assert_false(shr_xa_marked(&xa, SHR_XA_MARK_0));
	assert_int_equal(xa_env_live_nodes(env), 0);
	/* Still usable after destroy. */
	assert_null(shr_xa_store(&xa, 12345, P(1), SHR_GFP_KERNEL));
	assert_ptr_equal(shr_xa_load(&xa, 12345), P(1));
	xa_drain(env, &xa);
}

/* Removed nodes are freed only after a grace period. */
static void test_rcu_deferred_free(void **state)
{
	struct xa_env *env = *state;
	struct shr_kmem_cache_stats st;
	struct shr_xarray xa;
	unsigned long nodes;

	xa_new(env, &xa, 0);
	for (unsigned long i = 0; i < 40; i++)
		assert_null(shr_xa_store(&xa, i * 1000003UL, P(i % 16), SHR_GFP_KERNEL));
	nodes = shr_xa_nr_nodes(&xa);
	assert_int_equal(xa_env_live_nodes(env), nodes);
	shr_rcu_read_lock();
	for (unsigned long i = 0; i < 40; i++)
		assert_ptr_equal(shr_xa_erase(&xa, i * 1000003UL), P(i % 16));
	assert_int_equal(shr_xa_nr_nodes(&xa), 0);
	/* Our read-side section holds the grace period: nothing freed yet. */
	shr_kmem_cache_stats(env->cache, -1, &st);
	assert_int_equal(st.objects_in_use, nodes);
	shr_rcu_read_unlock();
	assert_int_equal(xa_env_live_nodes(env), 0);
	shr_xa_destroy(&xa);
}

/* ---- -ENOMEM at every allocation -------------------------------------- */

#define SNAP_MAX 64

struct snap {
	unsigned int n;
	unsigned long index[SNAP_MAX];
	void *entry[SNAP_MAX];
	unsigned int marks[SNAP_MAX];
	unsigned long nr_nodes;
};

static void snap_take(struct shr_xarray *xa, struct snap *s)
{
	unsigned long index;
	void *entry;

	s->n = 0;
	shr_xa_for_each(xa, index, entry) {
		assert_true(s->n < SNAP_MAX);
		s->index[s->n] = index;
		s->entry[s->n] = entry;
		s->marks[s->n] = 0;
		for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++)
			s->marks[s->n] |= (unsigned int)shr_xa_get_mark(xa, index, m) << m;
		s->n++;
	}
	s->nr_nodes = shr_xa_nr_nodes(xa);
}

static void snap_check(struct shr_xarray *xa, const struct snap *s)
{
	struct snap now;

	snap_take(xa, &now);
	assert_int_equal(now.n, s->n);
	assert_int_equal(now.nr_nodes, s->nr_nodes);
	for (unsigned int i = 0; i < s->n; i++) {
		assert_int_equal(now.index[i], s->index[i]);
		assert_ptr_equal(now.entry[i], s->entry[i]);
		assert_int_equal(now.marks[i], s->marks[i]);
	}
}

enum nomem_op { OP_STORE, OP_INSERT, OP_CMPXCHG, OP_ALLOC };

/* Prepare @xa with @nr_pre entries from @pre (marked), then fail-nth @op. */
static void nomem_case(struct xa_env *env, unsigned int flags, const unsigned long *pre,
		       unsigned int nr_pre, enum nomem_op op, unsigned long index)
{
	struct shr_xarray xa;
	unsigned long n;
	struct snap s;
	int ret = 0;

	xa_new(env, &xa, flags);
	for (unsigned int i = 0; i < nr_pre; i++) {
		assert_null(shr_xa_store(&xa, pre[i], P(i % 16), SHR_GFP_KERNEL));
		shr_xa_set_mark(&xa, pre[i], SHR_XA_MARK_1 + i % 2);
	}
	snap_take(&xa, &s);
	for (n = 1;; n++) {
		unsigned long faults = shr_slab_faults_injected(env->sa);
		uint32_t id;
		void *old;

		shr_slab_fail_nth(env->sa, n, false);
		switch (op) {
		case OP_STORE:
			old = shr_xa_store(&xa, index, P(15), SHR_GFP_KERNEL);
			ret = shr_xa_err(old);
			break;
		case OP_INSERT:
			ret = shr_xa_insert(&xa, index, P(15), SHR_GFP_KERNEL);
			break;
		case OP_CMPXCHG:
			old = shr_xa_cmpxchg(&xa, index, NULL, P(15), SHR_GFP_KERNEL);
			ret = shr_xa_err(old);
			break;
		case OP_ALLOC:
			ret = shr_xa_alloc(&xa, &id, P(15), (uint32_t)index, UINT32_MAX,
					   SHR_GFP_KERNEL);
			if (!ret)
				assert_int_equal(id, index);
			break;
		}
		shr_slab_fault_clear(env->sa);
		if (ret != -ENOMEM)
			break;
		assert_int_equal(shr_slab_faults_injected(env->sa), faults + 1);
		snap_check(&xa, &s);
		assert_int_equal(xa_env_live_nodes(env), s.nr_nodes);
	}
	assert_int_equal(ret, 0);
	assert_ptr_equal(shr_xa_load(&xa, index), P(15));
	assert_int_equal(xa_env_live_nodes(env), shr_xa_nr_nodes(&xa));
	/* n - 1 allocations failed: as many as the store made. */
	assert_int_equal(n - 1, shr_xa_nr_nodes(&xa) - s.nr_nodes);
	xa_drain(env, &xa);
}

static void test_enomem(void **state)
{
	struct xa_env *env = *state;
	const unsigned long lone[] = { 0 };
	const unsigned long some[] = { 0, 5, 70, 5000, 1UL << 33 };
	const unsigned long targets[] = { 0, 1, 64, 4097, 1UL << 33 | 17, ULONG_MAX };

	for (unsigned int t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		unsigned long idx = targets[t];

		nomem_case(env, 0, NULL, 0, OP_STORE, idx);
		nomem_case(env, 0, lone, 1, OP_STORE, idx == 0 ? 1 : idx);
		nomem_case(env, 0, some, 5, OP_STORE, idx == 0 ? 6 : idx);
		nomem_case(env, 0, some, 5, OP_INSERT, idx == ULONG_MAX ? idx - 1 : idx + 1);
		nomem_case(env, 0, lone, 1, OP_CMPXCHG, idx + 2);
	}
	nomem_case(env, SHR_XA_FLAGS_ALLOC, NULL, 0, OP_ALLOC, 0);
	nomem_case(env, SHR_XA_FLAGS_ALLOC, lone, 1, OP_ALLOC, 1);
	nomem_case(env, SHR_XA_FLAGS_ALLOC, some, 4, OP_ALLOC, 1);
	nomem_case(env, SHR_XA_FLAGS_ALLOC, some, 4, OP_ALLOC, 100000);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_node_size, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_lone_entry, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_value_entries, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_internal_rejected, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_insert_cmpxchg, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_marks_and_iteration, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_alloc_flavour, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_destroy_reuse, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_rcu_deferred_free, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_enomem, xa_env_cmocka_setup, xa_env_cmocka_teardown),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("xarray_api", tests);
}
