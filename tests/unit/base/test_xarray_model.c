/* SPDX-License-Identifier: MIT */
/*
 * Randomised XArray operation sequences checked, after every operation,
 * against a trivial reference model: a sorted array of (index, entry, marks).
 * Indices mix small, clustered and huge (up to ULONG_MAX) values, so trees
 * grow, shrink and collapse at every height. Replay with --seed N.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <shrinker/xarray.h>

#include "harness.h"
#include "xa_test_util.h"

#define MODEL_MAX 512
#define NR_OBJS 64

struct model_ent {
	unsigned long index;
	void *entry;
	unsigned int marks; /* bit m: mark m */
};

struct model {
	size_t n;
	bool alloc;
	struct model_ent e[MODEL_MAX];
};

struct ctx {
	struct xa_env env;
	struct shr_xarray xa;
	struct model m;
	struct shr_rng rng;
	unsigned long clusters[4];
	unsigned long step; /* operation counter, for failure messages */
};

static _Alignas(8) uint64_t objs[NR_OBJS];

/* ---- the model ------------------------------------------------------------ */

/* First position whose index is >= @index. */
static size_t model_lower(const struct model *m, unsigned long index)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct model_ent *model_get(struct model *m, unsigned long index)
{
	size_t pos = model_lower(m, index);

	return pos < m->n && m->e[pos].index == index ? &m->e[pos] : NULL;
}

static void *model_load(struct model *m, unsigned long index)
{
	struct model_ent *e = model_get(m, index);

	return e ? e->entry : NULL;
}

/* Store semantics of shr_xa_store(): NULL erases, marks kept on replace. */
static void model_store(struct model *m, unsigned long index, void *entry)
{
	size_t pos = model_lower(m, index);
	bool present = pos < m->n && m->e[pos].index == index;

	if (!entry) {
		if (present) {
			memmove(&m->e[pos], &m->e[pos + 1], (m->n - pos - 1) * sizeof(m->e[0]));
			m->n--;
		}
		return;
	}
	if (present) {
		m->e[pos].entry = entry;
		return;
	}
	assert_true(m->n < MODEL_MAX);
	memmove(&m->e[pos + 1], &m->e[pos], (m->n - pos) * sizeof(m->e[0]));
	m->e[pos] = (struct model_ent){ .index = index, .entry = entry };
	m->n++;
}

static bool ent_matches(const struct model_ent *e, shr_xa_mark_t filter)
{
	return filter == SHR_XA_PRESENT || (e->marks >> filter) & 1u;
}

/* What shr_xa_find(start, max, filter) must return. */
static const struct model_ent *model_find(struct model *m, unsigned long start,
					  unsigned long max, shr_xa_mark_t filter)
{
	if (start > max)
		return NULL;
	for (size_t pos = model_lower(m, start); pos < m->n && m->e[pos].index <= max; pos++)
		if (ent_matches(&m->e[pos], filter))
			return &m->e[pos];
	return NULL;
}

/* Lowest index in [min, max] not present, or -1UL... as a bool. */
static bool model_lowest_free(struct model *m, unsigned long min, unsigned long max,
			      unsigned long *out)
{
	unsigned long cand = min;

	for (size_t pos = model_lower(m, min); pos < m->n && m->e[pos].index == cand; pos++) {
		if (cand == max)
			return false;
		cand++;
	}
	*out = cand;
	return cand <= max;
}

/* ---- random inputs -------------------------------------------------------- */

static unsigned long rnd(struct ctx *c, unsigned long bound)
{
	return (unsigned long)shr_rng_below(&c->rng, bound);
}

static unsigned long rand_index(struct ctx *c)
{
	switch (rnd(c, 7)) {
	case 0:
		return rnd(c, 16);
	case 1:
		return rnd(c, 1000);
	case 2:
	case 3:
		return c->clusters[rnd(c, 4)] + rnd(c, 300);
	case 4:
		return ULONG_MAX - rnd(c, 100);
	case 5:
		return (unsigned long)shr_rng_next(&c->rng);
	default:
		return (1UL << rnd(c, 64)) + rnd(c, 3) - 1;
	}
}

/* Mostly an index that is present, so erase/mark hit something. */
static unsigned long rand_target(struct ctx *c)
{
	if (c->m.n && rnd(c, 4) != 0)
		return c->m.e[rnd(c, c->m.n)].index;
	return rand_index(c);
}

static void *rand_entry(struct ctx *c)
{
	if (rnd(c, 2))
		return shr_xa_mk_value((unsigned long)shr_rng_next(&c->rng) >> 1);
	return &objs[rnd(c, NR_OBJS)];
}

static shr_xa_mark_t rand_user_mark(struct ctx *c)
{
	if (c->m.alloc)
		return 1 + (shr_xa_mark_t)rnd(c, 2);
	return (shr_xa_mark_t)rnd(c, SHR_XA_MAX_MARKS);
}

static shr_xa_mark_t rand_filter(struct ctx *c)
{
	return rnd(c, 3) == 0 ? SHR_XA_PRESENT : rand_user_mark(c);
}

/* ---- checks --------------------------------------------------------------- */

static void check_iteration(struct ctx *c, shr_xa_mark_t filter)
{
	unsigned long index;
	size_t pos = 0;
	void *entry;

	if (filter == SHR_XA_PRESENT) {
		shr_xa_for_each(&c->xa, index, entry) {
			assert_true(pos < c->m.n);
			assert_int_equal(index, c->m.e[pos].index);
			assert_ptr_equal(entry, c->m.e[pos].entry);
			pos++;
		}
		assert_int_equal(pos, c->m.n);
		return;
	}
	shr_xa_for_each_marked(&c->xa, index, entry, filter) {
		while (pos < c->m.n && !ent_matches(&c->m.e[pos], filter))
			pos++;
		assert_true(pos < c->m.n);
		assert_int_equal(index, c->m.e[pos].index);
		assert_ptr_equal(entry, c->m.e[pos].entry);
		pos++;
	}
	while (pos < c->m.n && !ent_matches(&c->m.e[pos], filter))
		pos++;
	assert_int_equal(pos, c->m.n);
}

static void check_all(struct ctx *c)
{
	bool any[SHR_XA_MAX_MARKS] = { false };

	check_iteration(c, SHR_XA_PRESENT);
	for (shr_xa_mark_t mk = c->m.alloc ? 1 : 0; mk < SHR_XA_MAX_MARKS; mk++)
		check_iteration(c, mk);
	for (size_t i = 0; i < c->m.n; i++) {
		const struct model_ent *e = &c->m.e[i];

		assert_ptr_equal(shr_xa_load(&c->xa, e->index), e->entry);
		for (shr_xa_mark_t mk = 0; mk < SHR_XA_MAX_MARKS; mk++) {
			bool want = (e->marks >> mk) & 1u;

			if (c->m.alloc && mk == SHR_XA_MARK_0)
				want = false;
			assert_int_equal(shr_xa_get_mark(&c->xa, e->index, mk), want);
			any[mk] |= want;
		}
	}
	for (shr_xa_mark_t mk = 0; mk < SHR_XA_MAX_MARKS; mk++)
		assert_int_equal(shr_xa_marked(&c->xa, mk), any[mk]);
	assert_int_equal(shr_xa_empty(&c->xa), c->m.n == 0);
	if (c->m.n == 0 || (c->m.n == 1 && c->m.e[0].index == 0))
		assert_int_equal(shr_xa_nr_nodes(&c->xa), 0);
	else
		assert_true(shr_xa_nr_nodes(&c->xa) > 0);
}

static void check_find(struct ctx *c)
{
	unsigned long start = rnd(c, 2) ? rand_target(c) : rand_index(c);
	unsigned long max = rnd(c, 3) ? ULONG_MAX : start + rnd(c, 1000);
	shr_xa_mark_t filter = rand_filter(c);
	const struct model_ent *want;
	unsigned long index = start;
	void *got;

	if (max < start)
		max = ULONG_MAX;
	if (rnd(c, 2)) {
		got = shr_xa_find(&c->xa, &index, max, filter);
		want = model_find(&c->m, start, max, filter);
	} else {
		got = shr_xa_find_after(&c->xa, &index, max, filter);
		want = (start >= max) ? NULL : model_find(&c->m, start + 1, max, filter);
	}
	assert_ptr_equal(got, want ? want->entry : NULL);
	if (want)
		assert_int_equal(index, want->index);
}

/* ---- operations ----------------------------------------------------------- */

static void op_store(struct ctx *c)
{
	unsigned long index = rnd(c, 3) ? rand_index(c) : rand_target(c);
	void *entry = rnd(c, 10) ? rand_entry(c) : NULL;
	void *old = shr_xa_store(&c->xa, index, entry, SHR_GFP_KERNEL);

	assert_false(shr_xa_is_err(old));
	assert_ptr_equal(old, model_load(&c->m, index));
	model_store(&c->m, index, entry);
}

static void op_insert(struct ctx *c)
{
	unsigned long index = rnd(c, 2) ? rand_index(c) : rand_target(c);
	void *entry = rand_entry(c);
	int ret = shr_xa_insert(&c->xa, index, entry, SHR_GFP_KERNEL);

	if (model_load(&c->m, index)) {
		assert_int_equal(ret, -EBUSY);
		return;
	}
	assert_int_equal(ret, 0);
	model_store(&c->m, index, entry);
}

static void op_cmpxchg(struct ctx *c)
{
	unsigned long index = rand_target(c);
	void *cur = model_load(&c->m, index);
	void *old = rnd(c, 2) ? cur : rand_entry(c);
	void *entry = rnd(c, 5) ? rand_entry(c) : NULL;
	void *ret = shr_xa_cmpxchg(&c->xa, index, old, entry, SHR_GFP_KERNEL);

	assert_ptr_equal(ret, cur);
	if (cur == old)
		model_store(&c->m, index, entry);
}

static void op_erase(struct ctx *c)
{
	unsigned long index = rand_target(c);

	assert_ptr_equal(shr_xa_erase(&c->xa, index), model_load(&c->m, index));
	model_store(&c->m, index, NULL);
}

static void op_mark(struct ctx *c, bool set)
{
	unsigned long index = rand_target(c);
	shr_xa_mark_t mark = rand_user_mark(c);
	struct model_ent *e = model_get(&c->m, index);

	if (set)
		shr_xa_set_mark(&c->xa, index, mark);
	else
		shr_xa_clear_mark(&c->xa, index, mark);
	if (!e)
		return;
	if (set)
		e->marks |= 1u << mark;
	else
		e->marks &= ~(1u << mark);
}

static void op_load(struct ctx *c)
{
	unsigned long index = rnd(c, 2) ? rand_index(c) : rand_target(c);

	assert_ptr_equal(shr_xa_load(&c->xa, index), model_load(&c->m, index));
}

static void op_alloc(struct ctx *c)
{
	uint32_t min = rnd(c, 2) ? (uint32_t)rnd(c, 40) : (uint32_t)rnd(c, 5000);
	uint32_t max = rnd(c, 3) ? min + (uint32_t)rnd(c, 8) : UINT32_MAX;
	void *entry = rand_entry(c);
	unsigned long want;
	uint32_t id = 0;
	int ret = shr_xa_alloc(&c->xa, &id, entry, min, max, SHR_GFP_KERNEL);

	if (!model_lowest_free(&c->m, min, max, &want)) {
		assert_int_equal(ret, -EBUSY);
		return;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(id, want);
	model_store(&c->m, id, entry);
}

static void do_op(struct ctx *c)
{
	bool full = c->m.n >= 150;
	unsigned long op = rnd(c, c->m.alloc ? 12 : 11);

	if (full && op <= 3)
		op = 4; /* erase instead of growing further */
	switch (op) {
	case 0:
	case 1:
		op_store(c);
		break;
	case 2:
		op_insert(c);
		break;
	case 3:
		op_cmpxchg(c);
		break;
	case 4:
	case 5:
		op_erase(c);
		break;
	case 6:
		op_mark(c, true);
		break;
	case 7:
		op_mark(c, false);
		break;
	case 8:
		op_load(c);
		break;
	case 9:
	case 10:
		check_find(c);
		break;
	default:
		if (!full)
			op_alloc(c);
		break;
	}
}

/* Erase everything (in model order or reverse) and check nothing is left. */
static void drain(struct ctx *c)
{
	bool reverse = rnd(c, 2);

	assert_int_equal(xa_env_live_nodes(&c->env), shr_xa_nr_nodes(&c->xa));
	while (c->m.n) {
		size_t pos = reverse ? c->m.n - 1 : rnd(c, c->m.n);
		unsigned long index = c->m.e[pos].index;

		assert_ptr_equal(shr_xa_erase(&c->xa, index), c->m.e[pos].entry);
		model_store(&c->m, index, NULL);
		if (rnd(c, 8) == 0)
			check_all(c);
	}
	assert_true(shr_xa_empty(&c->xa));
	assert_int_equal(shr_xa_nr_nodes(&c->xa), 0);
	assert_int_equal(xa_env_live_nodes(&c->env), 0);
}

static void run_model(bool alloc, uint64_t stream)
{
	unsigned int seqs = shr_test_long() ? 200 : 24;
	unsigned int ops = shr_test_long() ? 3000 : 400;
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	xa_env_setup(&c->env);
	shr_rng_init(&c->rng, stream);
	for (unsigned int s = 0; s < seqs; s++) {
		for (unsigned int i = 0; i < 4; i++)
			c->clusters[i] = (unsigned long)shr_rng_next(&c->rng) >> rnd(c, 64);
		c->m.alloc = alloc;
		c->m.n = 0;
		shr_xa_init(&c->xa, c->env.cache, SHR_NUMA_NO_NODE,
			    alloc ? SHR_XA_FLAGS_ALLOC : 0);
		for (unsigned int i = 0; i < ops; i++, c->step++) {
			do_op(c);
			check_all(c);
		}
		drain(c);
		shr_xa_destroy(&c->xa);
	}
	xa_env_teardown(&c->env);
	free(c);
}

static void test_model_plain(void **state)
{
	(void)state;
	run_model(false, 1);
}

static void test_model_alloc(void **state)
{
	(void)state;
	run_model(true, 2);
}

/* Sequences that end with shr_xa_destroy() instead of erasing. */
static void test_model_destroy(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	(void)state;
	assert_non_null(c);
	xa_env_setup(&c->env);
	shr_rng_init(&c->rng, 3);
	for (unsigned int s = 0; s < 8; s++) {
		c->m.n = 0;
		shr_xa_init(&c->xa, c->env.cache, SHR_NUMA_NO_NODE, 0);
		for (unsigned int i = 0; i < 100; i++)
			op_store(c);
		check_all(c);
		shr_xa_destroy(&c->xa);
		assert_true(shr_xa_empty(&c->xa));
		assert_int_equal(shr_xa_nr_nodes(&c->xa), 0);
		assert_int_equal(xa_env_live_nodes(&c->env), 0);
	}
	xa_env_teardown(&c->env);
	free(c);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_plain),
		cmocka_unit_test(test_model_alloc),
		cmocka_unit_test(test_model_destroy),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("xarray_model", tests);
}
