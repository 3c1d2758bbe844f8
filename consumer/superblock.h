/* SPDX-License-Identifier: MIT */
/*
 * The reference consumer of the shrinker subsystem (reference §8): a
 * superblock model. Each mount has a NUMA- and memcg-aware shrinker
 * ("sb-<fstype>", batch 1024, seeks 2) over a dentry list_lru and an inode
 * list_lru. A file in a cgroup is one dentry object and one inode object,
 * really allocated from "dentry" and "inode" slab caches (reclaimable, like
 * the kernel's), added to the mount's lists for that cgroup and node.
 *
 * Object sizes (objsize of /proc/slabinfo on a 6.x x86-64 kernel):
 * dentry 192 bytes; shmem_inode_cache (tmpfs inodes) 776 bytes.
 */
#ifndef SHR_CONSUMER_SUPERBLOCK_H
#define SHR_CONSUMER_SUPERBLOCK_H

#include <stdatomic.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/shrinker.h>

#define SB_DENTRY_SIZE 192
#define SB_INODE_SIZE 776

struct sb_object;

/* Why an object is being freed (for the ledger hook). */
enum sb_free_reason {
	SB_FREE_SCAN,    /* isolated by the shrinker's scan */
	SB_FREE_UMOUNT,  /* isolated by sb_umount() */
	SB_FREE_DELETE,  /* removed by sb_delete_object() */
	SB_FREE_FAILED,  /* never made it onto a list (add failed) */
};

/* Per-host caches every mount of the host allocates from. */
struct sb_fs {
	struct shr_host *host;
	struct shr_kmem_cache *dentry_cache;
	struct shr_kmem_cache *inode_cache;
	/* Objects alive and freed by scans, all mounts. Sync: atomic. */
	atomic_long nr_alive;
	atomic_long nr_freed;
	/*
	 * Optional ledger hooks (the torture test); NULL = none. may_isolate
	 * runs with the object's list lock held and may veto the isolation
	 * (the item is skipped); on_free runs just before the object's memory
	 * goes back to its cache. Sync: set before the first mount, then
	 * immutable.
	 */
	bool (*may_isolate)(struct sb_object *obj, void *arg);
	void (*on_free)(struct sb_object *obj, enum sb_free_reason why, void *arg);
	/*
	 * Optional (the torture test): what a scan's isolate callback does with
	 * @obj before asking may_isolate: SHR_LRU_REMOVED (the default),
	 * SHR_LRU_REMOVED_RETRY (remove it, drop the lock, restart the walk),
	 * SHR_LRU_ROTATE, SHR_LRU_SKIP, SHR_LRU_RETRY (drop the lock, restart)
	 * or SHR_LRU_STOP (drop the lock, end the walk). Unmount always
	 * removes. Runs with the object's list lock held.
	 */
	enum shr_lru_status (*isolate_status)(struct sb_object *obj, void *arg);
	void *hook_arg;
	/* Extra shrinker flags for later mounts (e.g. SHR_SHRINKER_NONSLAB).
	 * Sync: set before the mount it applies to, by the mounting thread. */
	unsigned int extra_shrinker_flags;
	/*
	 * Later mounts do not ask for root bits (no SHR_SHRINKER_ROOT_BITS):
	 * under a design with root bits, global reclaim then calls their
	 * shrinker at the root on every node, as a kernel without root bits
	 * does. Sync: as extra_shrinker_flags.
	 */
	bool no_root_bits;
};

struct sb {
	struct sb_fs *fs;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *dentry_lru;
	struct shr_list_lru *inode_lru;
	/* When set, scan returns SHR_SHRINK_STOP (tests). */
	bool refuse_scan;
	/* count_objects calls (the lab's walk notes read it: the library's
	 * shr_shrinker_get_stats() sums the deferred work of every cgroup and
	 * node too, which at 20000 mounts x 500 cgroups x 4 nodes was most of
	 * a compare's CPU). Sync: atomic, relaxed (a count, nothing ordered
	 * by it). */
	atomic_ulong count_calls;
};

/* One cached object: a dentry or an inode of a file. */
struct sb_object {
	struct shr_list_head lru;
	struct shr_mem_cgroup *memcg; /* charged to; pinned by the file */
	int nid;
	bool is_inode;
	/* The creator's tag (sb_add_object()), set before the object is
	 * on a list; the ledger hooks read it while the object is alive. */
	unsigned long serial;
};

int sb_fs_init(struct sb_fs *fs, struct shr_host *host);
void sb_fs_destroy(struct sb_fs *fs);

/* Mount: alloc + bind lists + register the shrinker. */
int sb_mount(struct sb_fs *fs, const char *fstype, struct sb **out);
/* The same with @extra_flags added to the shrinker's (SHR_SHRINKER_NONSLAB
 * for a mount that stands for a non-slab memcg-aware user). */
int sb_mount_flags(struct sb_fs *fs, const char *fstype, unsigned int extra_flags,
		       struct sb **out);
/* The same with the shrinker's flags given whole (@fs->extra_shrinker_flags
 * not added): a superblock whose shrinker is not memcg-aware (its lists are
 * then the root lists only) or not NUMA-aware, or lacks ROOT_BITS. */
int sb_mount_with(struct sb_fs *fs, const char *fstype, unsigned int flags,
		      struct sb **out);
/* Unmount: free the shrinker, free every object left, destroy the lists. */
void sb_umount(struct sb *sb);

/*
 * Create a file in (memcg, nid): a dentry and an inode on the mount's lists.
 * Returns 0 or -errno (nothing left behind on failure).
 */
int sb_create_file(struct sb *sb, struct shr_mem_cgroup *memcg, int nid);

/*
 * Delete one file of (memcg, nid): free the oldest dentry and the oldest
 * inode on that cgroup's own lists (either may be gone already, freed by a
 * scan). Returns the objects freed (0, 1 or 2).
 */
unsigned long sb_delete_one(struct sb *sb, struct shr_mem_cgroup *memcg, int nid);

/*
 * Add one object (a dentry or an inode) tagged @serial to (memcg, nid).
 * *@out is written before the object goes on its list (a scan may free it
 * at once), so it is valid only while the caller knows no scan can free it
 * (the ledger hooks decide); meaningless on failure. Returns 0 or -errno
 * (nothing left behind).
 */
int sb_add_object(struct sb *sb, struct shr_mem_cgroup *memcg, int nid,
		      bool is_inode, unsigned long serial, struct sb_object **out);

/*
 * Remove @obj from its list and free it. Returns 1 (freed), 0 (it was on
 * no list; nothing done), or -errno.
 */
int sb_delete_object(struct sb *sb, struct sb_object *obj);

/* Objects on this mount's lists for (nid, memcg) / in total. */
unsigned long sb_count(struct sb *sb, int nid, struct shr_mem_cgroup *memcg);
unsigned long sb_count_all(struct sb *sb);

#endif /* SHR_CONSUMER_SUPERBLOCK_H */
