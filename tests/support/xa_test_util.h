/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the XArray and IDR tests: one slab allocator and node
 * cache per test, and the leak check (after a grace period every node must
 * be back in the cache).
 */
#ifndef SHR_XA_TEST_UTIL_H
#define SHR_XA_TEST_UTIL_H

#include <stdlib.h>

#include <shrinker/rcu.h>
#include <shrinker/slab.h>
#include <shrinker/xarray.h>

#include "harness.h"

struct xa_env {
	struct shr_slab_allocator *sa;
	struct shr_kmem_cache *cache;
};

static inline void xa_env_setup(struct xa_env *env)
{
	struct shr_slab_params params = { .nr_nodes = 1, .geometry_cpus = 4 };

	assert_int_equal(shr_slab_allocator_create(&params, &env->sa), 0);
	assert_int_equal(shr_kmem_cache_create(env->sa, "xa_node", shr_xa_node_size(), 0, 0,
					       &env->cache),
			 0);
}

/* Objects of the node cache still allocated once deferred frees ran. */
static inline unsigned long xa_env_live_nodes(struct xa_env *env)
{
	struct shr_kmem_cache_stats st;

	shr_rcu_barrier();
	shr_kmem_cache_stats(env->cache, -1, &st);
	return st.objects_in_use;
}

static inline void xa_env_teardown(struct xa_env *env)
{
	assert_int_equal(xa_env_live_nodes(env), 0);
	assert_int_equal(shr_kmem_cache_destroy(env->cache), 0);
	shr_slab_allocator_destroy(env->sa);
}

/* cmocka setup/teardown: a fresh environment per test in *state. */
static inline int xa_env_cmocka_setup(void **state)
{
	struct xa_env *env = calloc(1, sizeof(*env));

	if (!env)
		return -1;
	xa_env_setup(env);
	*state = env;
	return 0;
}

static inline int xa_env_cmocka_teardown(void **state)
{
	struct xa_env *env = *state;

	xa_env_teardown(env);
	free(env);
	return 0;
}

#endif /* SHR_XA_TEST_UTIL_H */
