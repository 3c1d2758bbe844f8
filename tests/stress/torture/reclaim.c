/* SPDX-License-Identifier: MIT */
/*
 * Reclaim operations (shrink_slab, memory.reclaim, drop_caches), one
 * worker operation, the worker thread.
 */
#include "torture.h"

static void op_shrink_slab(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick_busy(rng);
	unsigned long freed;
	int ret;

	if (!memcg)
		return;
	ret = shr_shrink_slab(T.host, (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes),
			      memcg, (int)rng_below(rng, SHR_DEF_PRIORITY + 1), &freed);
	if (ret)
		violation("shr_shrink_slab: %d", ret);
	shr_mem_cgroup_put(memcg);
	count_op(OP_SHRINK_SLAB);
}

static void op_memcg_reclaim(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	int ret;

	if (!memcg)
		return;
	ret = shr_mem_cgroup_reclaim(memcg, 1 + rng_below(rng, 256), NULL);
	if (ret && ret != -EAGAIN && !(ret == -ENOENT && !shr_mem_cgroup_is_online(memcg)))
		violation("shr_mem_cgroup_reclaim: %d", ret);
	shr_mem_cgroup_put(memcg);
	count_op(OP_MEMCG_RECLAIM);
}

void op_drop_caches(void)
{
	int ret = shr_drop_caches(T.host, NULL, NULL);

	if (ret)
		violation("shr_drop_caches: %d", ret);
	count_op(OP_DROP_CACHES);
}

static void one_op(struct worker_state *w)
{
	uint64_t *rng = &w->rng;
	unsigned int r = rng_below(rng, 10000);

	if (r < 200)
		op_mount_toggle(w);
	else if (r < 400)
		op_cg_create(rng);
	else if (r < 700)
		op_cg_offline(rng);
	else if (r < 900)
		op_cg_release(rng);
	else if (r < 5700)
		op_add(w);
	else if (r < 6000 && T.cfg.readers)
		op_read(rng);
	else if (r < 8000)
		op_delete(w);
	else if (r < 9200)
		op_shrink_slab(rng);
	else if (r < 9990)
		op_memcg_reclaim(rng);
	else
		op_drop_caches();
}

void *worker(void *arg)
{
	struct worker_state w = { .rng = T.cfg.seed * 0x100000001b3ULL + (uint64_t)(uintptr_t)arg };

	shr_thread_register();
	while (!atomic_load(&T.stop)) {
		if (atomic_load(&T.pause)) {
			pthread_barrier_wait(&T.stopped);
			pthread_barrier_wait(&T.resume);
			continue;
		}
		one_op(&w);
	}
	shr_thread_unregister();
	return NULL;
}
