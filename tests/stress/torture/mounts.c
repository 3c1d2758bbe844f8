/* SPDX-License-Identifier: MIT */
/*
 * Mounts of every kind (superblocks with several shrinker kinds, queue
 * caches), and the workers' mount, unmount, add and delete.
 */
#include "torture.h"

const char *const kind_names[MK_NR] = {
	"sb", "sb, no root bits", "sb, not NUMA-aware", "sb, not memcg-aware",
	"sb, neither NUMA- nor memcg-aware", "queue (NONSLAB, own bits)",
	"queue (NONSLAB, own bits, root bits)",
};

/* Mount kinds drawn per 100 mounts. */
static const unsigned int kind_weight[MK_NR] = { 40, 12, 10, 8, 5, 15, 10 };

bool mnt_mounted(const struct mount_slot *m)
{
	return m->sb || m->q;
}

struct shr_shrinker *mnt_shrinker(const struct mount_slot *m)
{
	return m->sb ? m->sb->shrinker : m->q->shrinker;
}

bool mnt_memcg_aware(const struct mount_slot *m)
{
	return shr_shrinker_flags(mnt_shrinker(m)) & SHR_SHRINKER_MEMCG_AWARE;
}

unsigned long mnt_count(struct mount_slot *m, int nid, struct shr_mem_cgroup *memcg)
{
	return m->sb ? sb_count(m->sb, nid, memcg) : tq_count_one(m->q, nid, memcg);
}

unsigned long mnt_count_all(struct mount_slot *m)
{
	return m->sb ? sb_count_all(m->sb) : tq_count_all(m->q);
}

static int mnt_add(struct mount_slot *m, struct shr_mem_cgroup *memcg, int nid, bool is_inode,
		   unsigned long serial, struct sb_object **out)
{
	if (m->sb)
		return sb_add_object(m->sb, memcg, nid, is_inode, serial, out);
	return tq_add(m->q, memcg, nid, serial, out);
}

static int mnt_delete(struct mount_slot *m, struct sb_object *obj)
{
	return m->sb ? sb_delete_object(m->sb, obj) : tq_delete(m->q, obj);
}

/* Mount @kind in @m. Context: @m's lock held for writing, slot empty. */
int mnt_mount(struct mount_slot *m, enum mount_kind kind)
{
	/* Under kmem off, memcg-aware superblocks are NONSLAB (fs default). */
	unsigned int extra = T.fs.extra_shrinker_flags;
	const unsigned int numa_memcg = SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE;
	struct sb *sb = NULL;
	struct tq *q = NULL;
	int ret;

	switch (kind) {
	case MK_SB:
		ret = sb_mount(&T.fs, "tmpfs", &sb);
		break;
	case MK_SB_NOROOTBITS:
		ret = sb_mount_with(&T.fs, "tmpfs", numa_memcg | extra, &sb);
		break;
	case MK_SB_NONUMA:
		ret = sb_mount_with(&T.fs, "tmpfs",
					SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_ROOT_BITS | extra, &sb);
		break;
	case MK_PLAIN:
		ret = sb_mount_with(&T.fs, "tmpfs", SHR_SHRINKER_NUMA_AWARE, &sb);
		break;
	case MK_PLAIN_NONUMA:
		ret = sb_mount_with(&T.fs, "tmpfs", 0, &sb);
		break;
	case MK_QUEUE:
		ret = tq_mount(numa_memcg | SHR_SHRINKER_NONSLAB, &q);
		break;
	default:
		ret = tq_mount(numa_memcg | SHR_SHRINKER_NONSLAB | SHR_SHRINKER_ROOT_BITS, &q);
		break;
	}
	if (ret)
		return ret;
	m->kind = kind;
	atomic_store_explicit(&m->sb, sb, memory_order_relaxed);
	atomic_store_explicit(&m->q, q, memory_order_relaxed);
	atomic_fetch_add_explicit(&T.mounts_of_kind[kind], 1, memory_order_relaxed);
	return 0;
}

/* Context: @m's lock held for writing (or quiescent), mounted. */
void mnt_umount(struct mount_slot *m)
{
	if (m->sb)
		sb_umount(m->sb);
	else
		tq_umount(m->q);
	atomic_store_explicit(&m->sb, NULL, memory_order_relaxed);
	atomic_store_explicit(&m->q, NULL, memory_order_relaxed);
}

static enum mount_kind pick_kind(uint64_t *rng)
{
	unsigned int total = 0, r;
	int k;

	for (k = 0; k < MK_NR; k++)
		total += kind_weight[k];
	r = rng_below(rng, total);
	for (k = 0; r >= kind_weight[k]; k++)
		r -= kind_weight[k];
	return (enum mount_kind)k;
}

/* @memcg went offline: every queue cache moves its queues up. */
void tq_reparent_all(struct shr_mem_cgroup *memcg)
{
	for (int s = 0; s < T.cfg.mounts; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (!atomic_load_explicit(&m->q, memory_order_relaxed))
			continue;
		pthread_rwlock_rdlock(&m->lock);
		if (m->q)
			tq_reparent(m->q, memcg);
		pthread_rwlock_unlock(&m->lock);
	}
}

static void op_add_to(struct worker_state *ws, int slot, bool lasting);

unsigned int mount_limit(void)
{
	return (unsigned int)atomic_load_explicit(&T.mount_limit, memory_order_relaxed);
}

void note_id(int id)
{
	int old = atomic_load(&T.max_id);

	while (id > old && !atomic_compare_exchange_weak(&T.max_id, &old, id))
		;
}

/*
 * Mount, unmount or remount (a container restart) a random open slot. A new
 * mount gets the lowest free id (often the one just released, whose bits
 * other cgroups may still hold) and its first objects right away, in random
 * cgroups: the moment the id-reuse race of docs/design/RACES.md R2 needs.
 */
void op_mount_toggle(struct worker_state *ws)
{
	int slot = (int)rng_below(&ws->rng, mount_limit());
	unsigned int what = rng_below(&ws->rng, 3);
	struct mount_slot *m = &T.mounts[slot];
	enum mount_kind kind = pick_kind(&ws->rng);
	bool mounted = false;
	int ret;

	pthread_rwlock_wrlock(&m->lock);
	/* Mounted: unmount, remount or leave it, a third each (about 3/4 of
	 * the open slots stay mounted). */
	if (mnt_mounted(m) && what == 0) {
		pthread_rwlock_unlock(&m->lock);
		return;
	}
	if (mnt_mounted(m)) {
		mnt_umount(m);
		m->gen++;
		count_op(OP_UMOUNT);
	}
	if (!mnt_mounted(m) && what != 1) {
		ret = mnt_mount(m, kind);
		if (ret) {
			enomem_ok(ret, "mount");
			pthread_rwlock_unlock(&m->lock);
			return;
		}
		m->gen++;
		note_id(shr_shrinker_id(mnt_shrinker(m)));
		count_op(OP_MOUNT);
		mounted = true;
	}
	pthread_rwlock_unlock(&m->lock);
	for (unsigned int n = mounted ? 2 + rng_below(&ws->rng, 15) : 0; n; n--)
		op_add_to(ws, slot, true);
}

/*
 * An add through dying @memcg lands on the list of some living ancestor,
 * with the bit set on @memcg (kernel behaviour): taint them all on @nid.
 * The chain is pinned by the caller's reference on @memcg.
 */
void taint_ancestors(struct shr_mem_cgroup *memcg, int nid)
{
	pthread_mutex_lock(&T.cg_lock);
	for (struct shr_mem_cgroup *a = shr_mem_cgroup_parent(memcg); a;
	     a = shr_mem_cgroup_parent(a))
		for (int i = 0; i < MAX_CGROUPS; i++)
			if (T.cgs[i].memcg == a)
				T.cgs[i].taint_nodes |= 1ULL << nid;
	pthread_mutex_unlock(&T.cg_lock);
}

/* Add one object to a random cgroup and node of the mount in @slot. */
/*
 * Add one object to a random cgroup and node of the mount in @slot. A
 * @lasting object (a new mount's first files) goes to a busy cgroup and is
 * not offered to the deleters: only reclaim or the unmount frees it, so if
 * its bit were lost the object would stay until a check sees it.
 */
static void op_add_to(struct worker_state *ws, int slot, bool lasting)
{
	uint64_t *rng = &ws->rng;
	struct mount_slot *m = &T.mounts[slot];
	struct shr_mem_cgroup *memcg, *target;
	struct record *rec;
	unsigned int idx;
	uint64_t gen, expect;
	int nid = (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes);
	int ret;

	memcg = lasting ? cg_pick_busy(rng) : cg_pick(rng, true);
	if (!memcg)
		return;
	/*
	 * Mostly charge like the kernel's objcg reparenting does: to the
	 * nearest ancestor that is not dying (pinned through @memcg's
	 * reference on its parent); sometimes add through the dying cgroup
	 * itself to exercise the library's climb.
	 */
	target = memcg;
	if (rng_below(rng, 8))
		while (shr_mem_cgroup_is_dying(target))
			target = shr_mem_cgroup_parent(target);
	pthread_rwlock_rdlock(&m->lock);
	if (!mnt_mounted(m) || !record_get(&idx)) {
		pthread_rwlock_unlock(&m->lock);
		shr_mem_cgroup_put(memcg);
		return;
	}
	rec = &T.ledger[idx];
	gen = word_gen(atomic_load(&rec->word));
	atomic_store_explicit(&rec->slot, slot, memory_order_relaxed);
	atomic_store_explicit(&rec->mount_gen, m->gen, memory_order_relaxed);
	atomic_store(&rec->word, mkword(gen, REC_ADDING));
	ret = mnt_add(m, target, nid, rng_below(rng, 2), mkserial(idx, gen), &rec->obj);
	if (ret) {
		/* Nothing was added, so no scan saw the object: the record is
		 * still ours, in ADDING. */
		enomem_ok(ret, "add");
		atomic_store(&rec->word, mkword(gen + 1, REC_FREE));
		record_put(idx);
		pthread_rwlock_unlock(&m->lock);
		shr_mem_cgroup_put(memcg);
		return;
	}
	expect = mkword(gen, REC_ADDING);
	/* Release: pairs with the deleter's CAS, so it sees obj. Fails if a
	 * scan already took it (then the record may already be recycled:
	 * touch nothing of it any more). */
	atomic_compare_exchange_strong(&rec->word, &expect, mkword(gen, REC_ON_LIST));
	if (m->sb && shr_mem_cgroup_is_dying(target))
		taint_ancestors(target, nid);
	pthread_rwlock_unlock(&m->lock);
	shr_mem_cgroup_put(memcg);
	if (!lasting)
		ws->recent[ws->nr_recent++ % RECENT] = idx;
	count_op(OP_ADD);
}

/* A few tries at a mounted slot (racy peek; op_add_to() locks). */
void op_add(struct worker_state *ws)
{
	unsigned int limit = mount_limit();
	int slot = 0;

	for (int tries = 0; tries < 4; tries++) {
		slot = (int)rng_below(&ws->rng, limit);
		if (atomic_load_explicit(&T.mounts[slot].sb, memory_order_relaxed) ||
		    atomic_load_explicit(&T.mounts[slot].q, memory_order_relaxed))
			break;
	}
	op_add_to(ws, slot, false);
}

void op_delete(struct worker_state *ws)
{
	unsigned int n = ws->nr_recent < RECENT ? ws->nr_recent : RECENT;

	for (int tries = 0; n && tries < 8; tries++) {
		struct record *rec = &T.ledger[ws->recent[rng_below(&ws->rng, n)]];
		uint64_t w = atomic_load(&rec->word);
		struct mount_slot *m;
		struct sb_object *obj;
		int ret;

		if (word_state(w) != REC_ON_LIST)
			continue;
		m = &T.mounts[atomic_load_explicit(&rec->slot, memory_order_relaxed)];
		pthread_rwlock_rdlock(&m->lock);
		if (!mnt_mounted(m) ||
		    m->gen != atomic_load_explicit(&rec->mount_gen, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&rec->word, &w,
						    mkword(word_gen(w), REC_DELETING))) {
			pthread_rwlock_unlock(&m->lock);
			continue;
		}
		/* Claimed: no scan may isolate it now, so it must be on a list. */
		obj = rec->obj;
		ret = mnt_delete(m, obj);
		if (ret != 1)
			violation("object %td claimed ON_LIST but shr_list_lru_del returned %d",
				  rec - T.ledger, ret);
		pthread_rwlock_unlock(&m->lock);
		count_op(OP_DELETE);
		return;
	}
}
