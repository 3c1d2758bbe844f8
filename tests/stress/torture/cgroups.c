/* SPDX-License-Identifier: MIT */
/*
 * The cgroup table: create under live and dying parents, offline, release.
 */
#include "torture.h"

/* A referenced cgroup from the table (or the root), any state but EMPTY. */
static struct shr_mem_cgroup *cg_pick_from(uint64_t *rng, bool allow_root, unsigned int first)
{
	struct shr_mem_cgroup *memcg = NULL;
	unsigned int i = first + rng_below(rng, MAX_CGROUPS - first + (allow_root ? 4 : 0));

	if (i >= MAX_CGROUPS)
		return shr_host_root_mem_cgroup(T.host);
	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state != CG_EMPTY) {
		memcg = T.cgs[i].memcg;
		shr_mem_cgroup_get(memcg);
	}
	pthread_mutex_unlock(&T.cg_lock);
	return memcg;
}

struct shr_mem_cgroup *cg_pick(uint64_t *rng, bool allow_root)
{
	return cg_pick_from(rng, allow_root, 0);
}

/* Half the time a persistent cgroup (the busy containers), else any. */
struct shr_mem_cgroup *cg_pick_busy(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = NULL;
	unsigned int i = rng_below(rng, PERSISTENT_CGROUPS);

	if (rng_below(rng, 2))
		return cg_pick(rng, true);
	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state == CG_ONLINE) {
		memcg = T.cgs[i].memcg;
		shr_mem_cgroup_get(memcg);
	}
	pthread_mutex_unlock(&T.cg_lock);
	return memcg ? memcg : cg_pick(rng, true);
}

/*
 * A new cgroup's parent: the root or a cgroup that is not persistent, so
 * persistent ones stay leaves (no child's offline sets their bits for them,
 * which would hide a lost one).
 */
void op_cg_create(uint64_t *rng)
{
	struct shr_mem_cgroup *parent = cg_pick_from(rng, true, PERSISTENT_CGROUPS), *memcg;
	int ret, i;

	if (!parent)
		return;
	ret = shr_mem_cgroup_create(parent, &memcg);
	if (ret == -EINVAL && !shr_mem_cgroup_is_online(parent)) {
		shr_mem_cgroup_put(parent);
		count_op(OP_CG_CREATE_REFUSED);
		return;
	}
	shr_mem_cgroup_put(parent);
	if (ret) {
		enomem_ok(ret, "shr_mem_cgroup_create");
		return;
	}
	count_op(OP_CG_CREATE);
	pthread_mutex_lock(&T.cg_lock);
	for (i = 0; i < MAX_CGROUPS && T.cgs[i].state != CG_EMPTY; i++)
		;
	if (i < MAX_CGROUPS) {
		shr_mem_cgroup_get(memcg);
		T.cgs[i].memcg = memcg;
		T.cgs[i].state = CG_ONLINE;
	}
	pthread_mutex_unlock(&T.cg_lock);
	if (i == MAX_CGROUPS) { /* table full: rmdir it right away */
		ret = shr_mem_cgroup_offline(memcg);
		if (ret)
			violation("offline of a childless new cgroup: %d", ret);
	}
}

/* Offline the cgroup in slot @i (ONLINE); returns the library's result. */
int cg_offline_slot(int i)
{
	struct shr_mem_cgroup *memcg;
	int ret;

	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state != CG_ONLINE) {
		pthread_mutex_unlock(&T.cg_lock);
		return -EAGAIN;
	}
	T.cgs[i].state = CG_OFFLINING;
	memcg = T.cgs[i].memcg;
	pthread_mutex_unlock(&T.cg_lock);
	ret = shr_mem_cgroup_offline(memcg);
	if (ret && ret != -EBUSY)
		violation("shr_mem_cgroup_offline: %d", ret);
	if (!ret)
		tq_reparent_all(memcg);
	pthread_mutex_lock(&T.cg_lock);
	T.cgs[i].state = ret ? CG_ONLINE : CG_DYING;
	pthread_mutex_unlock(&T.cg_lock);
	return ret;
}

void op_cg_offline(uint64_t *rng)
{
	int slot = (int)rng_below(rng, MAX_CGROUPS);
	int ret;

	/* Persistent slots go offline only at the end (PERSISTENT_CGROUPS). */
	if (slot < PERSISTENT_CGROUPS)
		return;
	ret = cg_offline_slot(slot);

	if (ret == 0)
		count_op(OP_CG_OFFLINE);
	else if (ret == -EBUSY)
		count_op(OP_CG_OFFLINE_BUSY);
}

void op_cg_release(uint64_t *rng)
{
	unsigned int i = rng_below(rng, MAX_CGROUPS);
	struct shr_mem_cgroup *memcg = NULL;

	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state == CG_DYING) {
		memcg = T.cgs[i].memcg;
		T.cgs[i].memcg = NULL;
		T.cgs[i].state = CG_EMPTY;
	}
	pthread_mutex_unlock(&T.cg_lock);
	if (memcg) {
		shr_mem_cgroup_put(memcg);
		count_op(OP_CG_RELEASE);
	}
}
