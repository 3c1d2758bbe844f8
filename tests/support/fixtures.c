/* SPDX-License-Identifier: MIT */
/* The tests' one-liners (fixtures.h). */
#include <shrinker/reclaim.h>

#include "fixtures.h"
#include "harness.h"

struct shr_host *fix_host_with(enum shr_design design, int nr_nodes, bool kmem, bool nonslab,
			       unsigned int expand_batch)
{
	struct shr_host_params p;
	struct shr_host *host = NULL;

	shr_host_params_init(&p);
	p.design = design;
	p.nr_nodes = nr_nodes;
	p.kmem = kmem;
	p.nonslab_ids = nonslab;
	p.expand_batch = expand_batch;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

struct shr_host *fix_host_of(enum shr_design design, int nr_nodes, bool kmem)
{
	return fix_host_with(design, nr_nodes, kmem, false, 0);
}

struct shr_host *fix_host(int nr_nodes, bool kmem)
{
	struct shr_host_params p;

	shr_host_params_init(&p);
	return fix_host_of(p.design, nr_nodes, kmem);
}

void fix_host_done(struct shr_host *host)
{
	assert_int_equal(shr_host_destroy(host), 0);
}

void fix_mkcgs(struct shr_host *host, struct shr_mem_cgroup **cgs, int n)
{
	for (int i = 0; i < n; i++)
		cgs[i] = shr_test_mkcg(shr_host_root_mem_cgroup(host));
}

void fix_rmcgs(struct shr_mem_cgroup **cgs, int n)
{
	for (int i = n - 1; i >= 0; i--)
		assert_int_equal(shr_mem_cgroup_offline(cgs[i]), 0);
}

unsigned long fix_shrink(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg, int prio)
{
	unsigned long freed = ~0UL;

	assert_int_equal(shr_shrink_slab(host, nid, memcg, prio, &freed), 0);
	return freed;
}

struct shr_memcg_bookkeeping fix_bookkeeping(struct shr_mem_cgroup *memcg, int nid)
{
	struct shr_memcg_bookkeeping b;

	assert_int_equal(shr_mem_cgroup_bookkeeping(memcg, nid, &b), 0);
	return b;
}

struct shr_shrinker *fix_take_id(struct shr_host *host, unsigned int flags)
{
	struct shr_shrinker *s = NULL;

	assert_int_equal(shr_shrinker_alloc(host, flags, NULL, &s), 0);
	return s;
}

void fix_free_all(struct shr_shrinker **s, int n)
{
	for (int i = 0; i < n; i++)
		shr_shrinker_free(s[i]);
}
