/* SPDX-License-Identifier: MIT */
/*
 * One-liners the tests share around the fake shrinker (fake_shrinker.h):
 * a host of a design, a row of cgroups made and removed, a reclaim pass
 * that must succeed, a cgroup's bookkeeping report, a memcg-aware id taken
 * without registering. Each fails the test (cmocka) when the library
 * refuses. Public API only.
 */
#ifndef SHR_TEST_FIXTURES_H
#define SHR_TEST_FIXTURES_H

#include <stdbool.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/shrinker.h>

/* A host of @design on @nr_nodes nodes, kmem as given, defaults otherwise. */
struct shr_host *fix_host_of(enum shr_design design, int nr_nodes, bool kmem);
/* The same with nonslab_ids and expand_batch (0: the design's). */
struct shr_host *fix_host_with(enum shr_design design, int nr_nodes, bool kmem, bool nonslab,
			       unsigned int expand_batch);
/* A host of the default design. */
struct shr_host *fix_host(int nr_nodes, bool kmem);
/* shr_host_destroy() must succeed: nothing was left behind. */
void fix_host_done(struct shr_host *host);

/* @n children of the root, into @cgs; taken offline in reverse order. */
void fix_mkcgs(struct shr_host *host, struct shr_mem_cgroup **cgs, int n);
void fix_rmcgs(struct shr_mem_cgroup **cgs, int n);

/* shr_shrink_slab() that must succeed; the objects freed. */
unsigned long fix_shrink(struct shr_host *host, int nid, struct shr_mem_cgroup *memcg, int prio);
/* shr_mem_cgroup_bookkeeping() of (@memcg, @nid) (-1: every node). */
struct shr_memcg_bookkeeping fix_bookkeeping(struct shr_mem_cgroup *memcg, int nid);

/* A shrinker allocated and not registered: it takes an id (and grows the
 * bookkeeping as the design does) without callbacks. */
struct shr_shrinker *fix_take_id(struct shr_host *host, unsigned int flags);
void fix_free_all(struct shr_shrinker **s, int n);

#endif /* SHR_TEST_FIXTURES_H */
