/* SPDX-License-Identifier: MIT */
/*
 * IDR and IDA: lowest-free allocation and reuse, ranges, -ENOSPC, the
 * lookup and update calls, a randomised run against a bitmap model, and
 * -ENOMEM (nothing changes, nothing leaks).
 */
#include <limits.h>
#include <string.h>

#include <shrinker/idr.h>

#include "harness.h"
#include "xa_test_util.h"

static _Alignas(8) uint64_t objs[8];
#define P(i) ((void *)&objs[(i)])

static void test_idr_basic(void **state)
{
	struct xa_env *env = *state;
	struct shr_idr idr;
	int id;

	shr_idr_init(&idr, env->cache);
	assert_true(shr_idr_is_empty(&idr));
	for (int i = 0; i < 200; i++)
		assert_int_equal(shr_idr_alloc(&idr, P(i % 8), 0, 0, SHR_GFP_KERNEL), i);
	assert_false(shr_idr_is_empty(&idr));
	assert_ptr_equal(shr_idr_find(&idr, 77), P(77 % 8));
	assert_null(shr_idr_find(&idr, 200));
	assert_null(shr_idr_find(&idr, ULONG_MAX));
	/* A freed id is the next one handed out. */
	assert_ptr_equal(shr_idr_remove(&idr, 77), P(77 % 8));
	assert_null(shr_idr_remove(&idr, 77));
	assert_ptr_equal(shr_idr_remove(&idr, 3), P(3));
	assert_int_equal(shr_idr_alloc(&idr, P(0), 0, 0, SHR_GFP_KERNEL), 3);
	assert_int_equal(shr_idr_alloc(&idr, P(0), 0, 0, SHR_GFP_KERNEL), 77);
	assert_int_equal(shr_idr_alloc(&idr, P(0), 0, 0, SHR_GFP_KERNEL), 200);
	/* Ranges: [start, end). */
	assert_int_equal(shr_idr_alloc(&idr, P(1), 1000, 1002, SHR_GFP_KERNEL), 1000);
	assert_int_equal(shr_idr_alloc(&idr, P(1), 1000, 1002, SHR_GFP_KERNEL), 1001);
	assert_int_equal(shr_idr_alloc(&idr, P(1), 1000, 1002, SHR_GFP_KERNEL), -ENOSPC);
	assert_int_equal(shr_idr_alloc(&idr, P(1), 10, 11, SHR_GFP_KERNEL), -ENOSPC);
	assert_int_equal(shr_idr_alloc(&idr, P(1), (int)SHR_IDR_MAX, 0, SHR_GFP_KERNEL),
			 (int)SHR_IDR_MAX);
	assert_int_equal(shr_idr_alloc(&idr, P(1), (int)SHR_IDR_MAX, 0, SHR_GFP_KERNEL),
			 -ENOSPC);
	/* Bad arguments. */
	assert_int_equal(shr_idr_alloc(&idr, NULL, 0, 0, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_idr_alloc(&idr, P(1), -1, 0, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_idr_alloc(&idr, P(1), 5, 5, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_idr_alloc(&idr, (void *)2UL, 5, 0, SHR_GFP_KERNEL), -EINVAL);
	/* Replace. */
	assert_ptr_equal(shr_idr_replace(&idr, P(7), 1000), P(1));
	assert_ptr_equal(shr_idr_find(&idr, 1000), P(7));
	assert_null(shr_idr_replace(&idr, P(7), 5000));
	assert_null(shr_idr_find(&idr, 5000));
	assert_null(shr_idr_replace(&idr, NULL, 1000));
	assert_ptr_equal(shr_idr_find(&idr, 1000), P(7));
	/* get_next. */
	id = 201;
	assert_ptr_equal(shr_idr_get_next(&idr, &id), P(7));
	assert_int_equal(id, 1000);
	id = 1002;
	assert_ptr_equal(shr_idr_get_next(&idr, &id), P(1));
	assert_int_equal(id, (int)SHR_IDR_MAX);
	id = -5;
	assert_ptr_equal(shr_idr_get_next(&idr, &id), P(0));
	assert_int_equal(id, 0);
	shr_idr_destroy(&idr);
	assert_true(shr_idr_is_empty(&idr));
	id = 0;
	assert_null(shr_idr_get_next(&idr, &id));
}

static void test_ida_basic(void **state)
{
	struct xa_env *env = *state;
	struct shr_ida ida;

	shr_ida_init(&ida, env->cache);
	for (int i = 0; i < 100; i++)
		assert_int_equal(shr_ida_alloc_range(&ida, 0, SHR_IDR_MAX, SHR_GFP_KERNEL), i);
	assert_true(shr_ida_exists(&ida, 42));
	assert_false(shr_ida_exists(&ida, 100));
	assert_int_equal(shr_ida_free(&ida, 42), 0);
	assert_int_equal(shr_ida_free(&ida, 42), -ENOENT);
	assert_int_equal(shr_ida_free(&ida, 100000), -ENOENT);
	assert_false(shr_ida_exists(&ida, 42));
	assert_int_equal(shr_ida_alloc_range(&ida, 0, SHR_IDR_MAX, SHR_GFP_KERNEL), 42);
	assert_int_equal(shr_ida_alloc_range(&ida, 10, 20, SHR_GFP_KERNEL), -ENOSPC);
	assert_int_equal(shr_ida_alloc_range(&ida, 50, 200, SHR_GFP_KERNEL), 100);
	assert_int_equal(shr_ida_alloc_range(&ida, 7, 6, SHR_GFP_KERNEL), -EINVAL);
	assert_int_equal(shr_ida_alloc_range(&ida, 0, SHR_IDR_MAX + 1u, SHR_GFP_KERNEL),
			 -EINVAL);
	assert_int_equal(shr_ida_alloc_range(&ida, SHR_IDR_MAX, SHR_IDR_MAX, SHR_GFP_KERNEL),
			 (int)SHR_IDR_MAX);
	assert_int_equal(shr_ida_alloc_range(&ida, SHR_IDR_MAX, SHR_IDR_MAX, SHR_GFP_KERNEL),
			 -ENOSPC);
	for (unsigned int i = 0; i <= 100; i++)
		assert_int_equal(shr_ida_free(&ida, i), 0);
	assert_int_equal(shr_ida_free(&ida, SHR_IDR_MAX), 0);
	assert_int_equal(shr_xa_nr_nodes(&ida.ida_idr.idr_xa), 0);
	shr_ida_destroy(&ida);
}

/* Randomised IDA against a bitmap of allocated ids in [0, MODEL_IDS). */
#define MODEL_IDS 2048u

static bool bit_get(const unsigned char *bm, unsigned int id)
{
	return (bm[id / 8] >> (id % 8)) & 1u;
}

static void bit_assign(unsigned char *bm, unsigned int id, bool on)
{
	if (on)
		bm[id / 8] |= (unsigned char)(1u << (id % 8));
	else
		bm[id / 8] &= (unsigned char)~(1u << (id % 8));
}

static int model_alloc(const unsigned char *bm, unsigned int min, unsigned int max)
{
	for (unsigned int id = min; id <= max; id++)
		if (!bit_get(bm, id))
			return (int)id;
	return -ENOSPC;
}

static void test_ida_random(void **state)
{
	struct xa_env *env = *state;
	unsigned char bm[MODEL_IDS / 8] = { 0 };
	unsigned int ops = shr_test_long() ? 200000 : 20000;
	struct shr_rng rng;
	struct shr_ida ida;

	shr_rng_init(&rng, 11);
	shr_ida_init(&ida, env->cache);
	for (unsigned int i = 0; i < ops; i++) {
		unsigned int id = (unsigned int)shr_rng_below(&rng, MODEL_IDS);

		if (shr_rng_below(&rng, 2)) {
			unsigned int max = id + (unsigned int)shr_rng_below(&rng, 64);

			if (max >= MODEL_IDS)
				max = MODEL_IDS - 1;
			assert_int_equal(shr_ida_alloc_range(&ida, id, max, SHR_GFP_KERNEL),
					 model_alloc(bm, id, max));
			if (model_alloc(bm, id, max) >= 0)
				bit_assign(bm, (unsigned int)model_alloc(bm, id, max), true);
		} else {
			assert_int_equal(shr_ida_free(&ida, id), bit_get(bm, id) ? 0 : -ENOENT);
			bit_assign(bm, id, false);
		}
		if (i % 64 == 0) {
			for (unsigned int j = 0; j < MODEL_IDS; j++)
				assert_int_equal(shr_ida_exists(&ida, j), bit_get(bm, j));
		}
	}
	shr_ida_destroy(&ida);
}

/* Randomised IDR: pointers, lowest-free from 0, removal, find, get_next. */
static void test_idr_random(void **state)
{
	struct xa_env *env = *state;
	unsigned char bm[MODEL_IDS / 8] = { 0 };
	struct shr_rng rng;
	struct shr_idr idr;

	shr_rng_init(&rng, 12);
	shr_idr_init(&idr, env->cache);
	for (unsigned int i = 0; i < 20000; i++) {
		if (shr_rng_below(&rng, 2)) {
			int want = model_alloc(bm, 0, MODEL_IDS - 1);

			if (want < 0)
				continue;
			assert_int_equal(shr_idr_alloc(&idr, P(want % 8), 0, (int)MODEL_IDS,
						       SHR_GFP_KERNEL),
					 want);
			bit_assign(bm, (unsigned int)want, true);
		} else {
			unsigned int id = (unsigned int)shr_rng_below(&rng, MODEL_IDS / 4);
			int next = (int)id;
			void *got = shr_idr_get_next(&idr, &next);
			int want = -1;

			for (unsigned int j = id; j < MODEL_IDS && want < 0; j++)
				if (bit_get(bm, j))
					want = (int)j;
			if (want < 0) {
				assert_null(got);
				continue;
			}
			assert_int_equal(next, want);
			assert_ptr_equal(got, P(want % 8));
			assert_ptr_equal(shr_idr_find(&idr, (unsigned long)want), got);
			assert_ptr_equal(shr_idr_remove(&idr, (unsigned long)want), got);
			bit_assign(bm, (unsigned int)want, false);
		}
	}
	shr_idr_destroy(&idr);
}

static void test_idr_enomem(void **state)
{
	struct xa_env *env = *state;
	struct shr_idr idr;
	struct shr_ida ida;
	int ret;

	shr_idr_init(&idr, env->cache);
	shr_ida_init(&ida, env->cache);
	for (int i = 0; i < 3; i++)
		assert_int_equal(shr_idr_alloc(&idr, P(1), 0, 0, SHR_GFP_KERNEL), i);
	for (unsigned long n = 1;; n++) {
		shr_slab_fail_nth(env->sa, n, false);
		ret = shr_idr_alloc(&idr, P(2), 100000, 0, SHR_GFP_KERNEL);
		shr_slab_fault_clear(env->sa);
		if (ret != -ENOMEM)
			break;
		assert_null(shr_idr_find(&idr, 100000));
		assert_int_equal(xa_env_live_nodes(env), shr_xa_nr_nodes(&idr.idr_xa));
	}
	assert_int_equal(ret, 100000);
	shr_slab_fail_nth(env->sa, 1, true);
	assert_int_equal(shr_ida_alloc_range(&ida, 5, 10, SHR_GFP_KERNEL), -ENOMEM);
	assert_false(shr_ida_exists(&ida, 5));
	assert_int_equal(shr_ida_alloc_range(&ida, 0, 0, SHR_GFP_KERNEL), 0); /* no node */
	shr_slab_fault_clear(env->sa);
	assert_int_equal(shr_ida_alloc_range(&ida, 5, 10, SHR_GFP_KERNEL), 5);
	shr_idr_destroy(&idr);
	shr_ida_destroy(&ida);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idr_basic, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_ida_basic, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_ida_random, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_idr_random, xa_env_cmocka_setup, xa_env_cmocka_teardown),
		cmocka_unit_test_setup_teardown(test_idr_enomem, xa_env_cmocka_setup, xa_env_cmocka_teardown),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("idr", tests);
}
