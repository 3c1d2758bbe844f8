/* SPDX-License-Identifier: MIT */
/*
 * Superblock model (reference §8), the workload of the tests and the lab.
 *
 * count: dentries + inodes on (sc->nid, sc->memcg)'s lists; 0 -> SHRINK_EMPTY
 * (vfs_cache_pressure 100, so no scaling).
 * scan: recount, split nr_to_scan between the two lists proportionally
 * (mult_frac with the total, 0 treated as 1), walk each with share + 1 so at
 * least one object is scanned, free what was isolated.
 *
 * Objects pin the cgroup they are charged to until they are freed, so a
 * deletion can name (nid, memcg) even after the cgroup went offline (its
 * lists then resolve to the ancestor that holds the object).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/slab.h>

#include "superblock.h"

int sb_fs_init(struct sb_fs *fs, struct shr_host *host)
{
	struct shr_slab_allocator *sa = shr_host_slab(host);
	int ret;

	memset(fs, 0, sizeof(*fs));
	fs->host = host;
	ret = shr_kmem_cache_create(sa, "dentry", SB_DENTRY_SIZE, 0, SHR_SLAB_RECLAIM_ACCOUNT,
				    &fs->dentry_cache);
	if (ret)
		return ret;
	ret = shr_kmem_cache_create(sa, "shmem_inode_cache", SB_INODE_SIZE, 0,
				    SHR_SLAB_RECLAIM_ACCOUNT, &fs->inode_cache);
	if (ret) {
		(void)shr_kmem_cache_destroy(fs->dentry_cache);
		return ret;
	}
	return 0;
}

void sb_fs_destroy(struct sb_fs *fs)
{
	(void)shr_kmem_cache_destroy(fs->inode_cache);
	(void)shr_kmem_cache_destroy(fs->dentry_cache);
}

static void object_free(struct sb_fs *fs, struct sb_object *obj, enum sb_free_reason why)
{
	struct shr_mem_cgroup *memcg = obj->memcg;

	if (fs->on_free)
		fs->on_free(obj, why, fs->hook_arg);

	shr_kmem_cache_free(obj->is_inode ? fs->inode_cache : fs->dentry_cache, obj);
	shr_mem_cgroup_put(memcg);
	atomic_fetch_sub(&fs->nr_alive, 1);
}

struct dispose_ctx {
	struct sb_fs *fs;
	struct shr_list_head head;
	bool scan; /* a shrinker scan (isolate_status applies), not an unmount */
};

static enum shr_lru_status isolate_to_dispose(struct shr_list_head *item,
					      struct shr_list_lru_one *list, void *arg)
{
	struct dispose_ctx *ctx = arg;
	struct sb_fs *fs = ctx->fs;
	struct sb_object *obj = (struct sb_object *)(void *)item;
	enum shr_lru_status st = SHR_LRU_REMOVED;

	if (ctx->scan && fs->isolate_status)
		st = fs->isolate_status(obj, fs->hook_arg);
	switch (st) {
	case SHR_LRU_ROTATE:
	case SHR_LRU_SKIP:
		return st;
	case SHR_LRU_RETRY:
	case SHR_LRU_STOP:
		shr_list_lru_one_unlock(list);
		return st;
	case SHR_LRU_REMOVED:
	case SHR_LRU_REMOVED_RETRY:
	default:
		break;
	}
	if (fs->may_isolate && !fs->may_isolate(obj, fs->hook_arg))
		return SHR_LRU_SKIP;
	shr_list_lru_isolate_move(list, item, &ctx->head);
	if (st == SHR_LRU_REMOVED_RETRY) {
		shr_list_lru_one_unlock(list);
		return st;
	}
	return SHR_LRU_REMOVED;
}

/* Free every object on a private dispose list. */
static unsigned long dispose(struct sb_fs *fs, struct shr_list_head *head,
			     enum sb_free_reason why)
{
	unsigned long n = 0;

	while (!shr_list_head_empty(head)) {
		struct shr_list_head *item = head->next;

		shr_list_del_init(item);
		object_free(fs, (struct sb_object *)(void *)item, why);
		n++;
	}
	atomic_fetch_add(&fs->nr_freed, (long)n);
	return n;
}

static unsigned long prune(struct sb *sb, struct shr_list_lru *lru,
			   struct shr_shrink_control *sc)
{
	struct dispose_ctx ctx = { .fs = sb->fs, .scan = true };

	shr_list_head_init(&ctx.head);
	shr_list_lru_shrink_walk(lru, sc, isolate_to_dispose, &ctx);
	return dispose(sb->fs, &ctx.head, SB_FREE_SCAN);
}

static unsigned long super_cache_count(struct shr_shrinker *shrinker, struct shr_shrink_control *sc)
{
	struct sb *sb = shrinker->private_data;
	unsigned long total = shr_list_lru_shrink_count(sb->dentry_lru, sc) +
			      shr_list_lru_shrink_count(sb->inode_lru, sc);

	atomic_fetch_add_explicit(&sb->count_calls, 1, memory_order_relaxed);
	return total ? total : SHR_SHRINK_EMPTY;
}

static unsigned long mult_frac(unsigned long x, unsigned long num, unsigned long den)
{
	return (x / den) * num + ((x % den) * num) / den;
}

static unsigned long super_cache_scan(struct shr_shrinker *shrinker, struct shr_shrink_control *sc)
{
	struct sb *sb = shrinker->private_data;
	unsigned long dentries, inodes, total, freed;

	if (sb->refuse_scan)
		return SHR_SHRINK_STOP;
	dentries = shr_list_lru_shrink_count(sb->dentry_lru, sc);
	inodes = shr_list_lru_shrink_count(sb->inode_lru, sc);
	total = dentries + inodes;
	if (!total)
		total = 1;
	dentries = mult_frac(sc->nr_to_scan, dentries, total);
	inodes = mult_frac(sc->nr_to_scan, inodes, total);
	sc->nr_to_scan = dentries + 1;
	freed = prune(sb, sb->dentry_lru, sc);
	sc->nr_to_scan = inodes + 1;
	freed += prune(sb, sb->inode_lru, sc);
	return freed;
}

int sb_mount(struct sb_fs *fs, const char *fstype, struct sb **out)
{
	return sb_mount_flags(fs, fstype, 0, out);
}

int sb_mount_flags(struct sb_fs *fs, const char *fstype, unsigned int extra_flags,
		       struct sb **out)
{
	/* ROOT_BITS: super_cache_count counts the two list_lrus and nothing else, so
	 * their bits stand for the count at the root too (unless the fs
	 * stands for a kernel that keeps no root bits). */
	return sb_mount_with(fs, fstype,
				 SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE |
					 (fs->no_root_bits ? 0 : SHR_SHRINKER_ROOT_BITS) |
					 extra_flags |
					 fs->extra_shrinker_flags,
				 out);
}

int sb_mount_with(struct sb_fs *fs, const char *fstype, unsigned int flags,
		      struct sb **out)
{
	char name[64];
	struct sb *sb = calloc(1, sizeof(*sb));
	int ret;

	if (!sb)
		return -ENOMEM;
	sb->fs = fs;
	snprintf(name, sizeof(name), "sb-%s", fstype ? fstype : "tmpfs");
	ret = shr_shrinker_alloc(fs->host, flags, name, &sb->shrinker);
	if (ret)
		goto fail;
	sb->shrinker->count_objects = super_cache_count;
	sb->shrinker->scan_objects = super_cache_scan;
	sb->shrinker->batch = 1024;
	sb->shrinker->private_data = sb;
	ret = shr_list_lru_init_memcg(fs->host, sb->shrinker, &sb->dentry_lru);
	if (ret)
		goto fail_shrinker;
	ret = shr_list_lru_init_memcg(fs->host, sb->shrinker, &sb->inode_lru);
	if (ret)
		goto fail_dentry;
	ret = shr_shrinker_register(sb->shrinker);
	if (ret)
		goto fail_inode;
	*out = sb;
	return 0;
fail_inode:
	shr_list_lru_destroy(sb->inode_lru);
fail_dentry:
	shr_list_lru_destroy(sb->dentry_lru);
fail_shrinker:
	shr_shrinker_free(sb->shrinker);
fail:
	free(sb);
	return ret;
}

static void free_all(struct sb *sb, struct shr_list_lru *lru)
{
	struct dispose_ctx ctx = { .fs = sb->fs };

	/*
	 * A walk visits the root list, then cgroup lists in id order; a cgroup
	 * going offline meanwhile moves its items to its parent's list, which
	 * the walk may have passed already. So walk until the lists are empty
	 * (node totals do not change when items are reparented).
	 */
	do {
		shr_list_head_init(&ctx.head);
		shr_list_lru_walk(lru, isolate_to_dispose, &ctx, ~0UL);
		dispose(sb->fs, &ctx.head, SB_FREE_UMOUNT);
	} while (shr_list_lru_count(lru));
}

void sb_umount(struct sb *sb)
{
	if (!sb)
		return;
	/* As generic_shutdown_super: the shrinker goes first. */
	shr_shrinker_free(sb->shrinker);
	free_all(sb, sb->dentry_lru);
	free_all(sb, sb->inode_lru);
	shr_list_lru_destroy(sb->dentry_lru);
	shr_list_lru_destroy(sb->inode_lru);
	free(sb);
}

static int add_object(struct sb *sb, struct shr_list_lru *lru, bool is_inode,
		      struct shr_mem_cgroup *memcg, int nid, unsigned long serial,
		      struct sb_object **out)
{
	struct sb_fs *fs = sb->fs;
	struct shr_kmem_cache *cache = is_inode ? fs->inode_cache : fs->dentry_cache;
	struct sb_object *obj = shr_kmem_cache_alloc_node(cache, nid, SHR_GFP_ZERO);
	int ret;

	if (!obj)
		return -ENOMEM;
	shr_list_head_init(&obj->lru);
	obj->is_inode = is_inode;
	obj->nid = nid;
	obj->memcg = memcg;
	obj->serial = serial;
	shr_mem_cgroup_get(memcg);
	atomic_fetch_add(&fs->nr_alive, 1);
	/* Before the add: once on a list, a scan may free it at once. */
	*out = obj;
	ret = shr_list_lru_add(lru, &obj->lru, nid, memcg);
	if (ret != 1) {
		object_free(fs, obj, SB_FREE_FAILED);
		return ret < 0 ? ret : -EEXIST;
	}
	return 0;
}

int sb_create_file(struct sb *sb, struct shr_mem_cgroup *memcg, int nid)
{
	struct sb_object *dentry, *inode;
	int ret;

	ret = add_object(sb, sb->dentry_lru, false, memcg, nid, 0, &dentry);
	if (ret)
		return ret;
	ret = add_object(sb, sb->inode_lru, true, memcg, nid, 0, &inode);
	if (ret) {
		if (shr_list_lru_del(sb->dentry_lru, &dentry->lru, nid, memcg) == 1)
			object_free(sb->fs, dentry, SB_FREE_DELETE);
		return ret;
	}
	return 0;
}

static unsigned long delete_head(struct sb *sb, struct shr_list_lru *lru,
				 struct shr_mem_cgroup *memcg, int nid)
{
	struct dispose_ctx ctx = { .fs = sb->fs };
	unsigned long one = 1;

	shr_list_head_init(&ctx.head);
	shr_list_lru_walk_one(lru, nid, memcg, isolate_to_dispose, &ctx, &one);
	return dispose(sb->fs, &ctx.head, SB_FREE_DELETE);
}

unsigned long sb_delete_one(struct sb *sb, struct shr_mem_cgroup *memcg, int nid)
{
	return delete_head(sb, sb->dentry_lru, memcg, nid) +
	       delete_head(sb, sb->inode_lru, memcg, nid);
}

int sb_add_object(struct sb *sb, struct shr_mem_cgroup *memcg, int nid,
		      bool is_inode, unsigned long serial, struct sb_object **out)
{
	if (!sb || !out)
		return -EINVAL;
	return add_object(sb, is_inode ? sb->inode_lru : sb->dentry_lru, is_inode, memcg, nid,
			  serial, out);
}

int sb_delete_object(struct sb *sb, struct sb_object *obj)
{
	int ret;

	if (!sb || !obj)
		return -EINVAL;
	ret = shr_list_lru_del(obj->is_inode ? sb->inode_lru : sb->dentry_lru, &obj->lru,
			       obj->nid, obj->memcg);
	if (ret == 1)
		object_free(sb->fs, obj, SB_FREE_DELETE);
	return ret;
}

unsigned long sb_count(struct sb *sb, int nid, struct shr_mem_cgroup *memcg)
{
	return shr_list_lru_count_one(sb->dentry_lru, nid, memcg) +
	       shr_list_lru_count_one(sb->inode_lru, nid, memcg);
}

unsigned long sb_count_all(struct sb *sb)
{
	return shr_list_lru_count(sb->dentry_lru) + shr_list_lru_count(sb->inode_lru);
}
