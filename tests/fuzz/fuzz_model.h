/* SPDX-License-Identifier: MIT */
/*
 * The differential fuzzer's reference model (fuzz_model.c): the bounds of
 * an input, and per (mount, list, cgroup, node) the objects on each list in
 * order, the deferred counters, the cgroups' references, written from the
 * reference's semantics alone (fuzz_ops.c's header comment says what it
 * knows and how the hosts are compared with it).
 */
#ifndef SHR_FUZZ_MODEL_H
#define SHR_FUZZ_MODEL_H

#include <stdbool.h>

#include <shrinker/host.h>

#define FZ_MOUNTS 8
#define FZ_CGROUPS 16
#define FZ_NODES 2
#define FZ_FILES 250
#define FZ_OPS 256
#define FZ_HOSTS (SHR_NR_DESIGNS + 1)
#define FZ_DENTRY 0
#define FZ_INODE 1
/* A full comparison every this many operations (and at the end). */
#define FZ_FULL_EVERY 16
/* Ids the scale hosts' ballast holds: 2049 units, so the mounts start in
 * unit 2049, past 131072. */
#define FZ_ID_BASE 131136
/* The first byte's bits that make an input a scale input, all set. */
#define FZ_SCALE_BITS 0x1e

struct m_obj {
	bool alive;
	int mount;
	int cg;   /* owner of the list it is on */
	int node;
	long seq; /* position: smaller is nearer the head */
};

struct model {
	int nr_nodes;
	int nr_cg;
	int parent[FZ_CGROUPS];
	bool online[FZ_CGROUPS];
	bool held[FZ_CGROUPS];     /* the fuzzer's own reference */
	bool released[FZ_CGROUPS]; /* freed: no reference left */
	int pins[FZ_CGROUPS];      /* live objects added through it */
	bool mounted[FZ_MOUNTS];
	int id[FZ_MOUNTS];
	long batch[FZ_MOUNTS];
	int seeks[FZ_MOUNTS];
	bool id_used[FZ_MOUNTS];
	long def[FZ_CGROUPS][FZ_MOUNTS][FZ_NODES];
	struct m_obj obj[FZ_FILES][2];
	int orig_cg[FZ_FILES];
	int nr_files;
	long head_seq, tail_seq;
	/* Live objects per list, kept in step with obj[] by m_obj_*(). */
	long cnt[FZ_MOUNTS][2][FZ_CGROUPS][FZ_NODES];
	/*
	 * What the current operation may have changed (cleared per op):
	 * lists that gained objects (an add, offline's splice) and deferred
	 * counters that do_shrink_slab visited. Lists that only lost objects
	 * are checked object by object (which live) and by the full
	 * comparisons.
	 */
	bool lists_touched[FZ_MOUNTS][FZ_CGROUPS][FZ_NODES];
	bool deferred_touched[FZ_MOUNTS][FZ_CGROUPS][FZ_NODES];
	/* Files whose objects were added or freed by the current operation. */
	bool file_touched[FZ_FILES];
	int touched_files[FZ_FILES], nr_touched_files;
	/* The current operation dropped a cgroup reference. */
	bool refs_dropped;
	long nr_alive; /* live objects */
};

/* Objects on the list of (@mt, @type, @cg, @nid). */
long m_count(const struct model *m, int mt, int type, int cg, int nid);
/* The list of (@mt, @cg, @nid) gained objects: compare it after the op. */
void m_touch(struct model *m, int mt, int cg, int nid);
/* File @f's object of @type is added as @o / freed. */
void m_obj_add(struct model *m, int f, int type, struct m_obj o);
void m_obj_kill(struct model *m, int f, int type);
/* shrink_slab of @nid for @cg at @prio (reference §4): objects freed. */
long m_shrink_slab(struct model *m, int nid, int cg, int prio);
/* Reclaim of @cg's subtree for @target objects: 0 or the library's error;
 * *@freed what it freed. */
int m_reclaim(struct model *m, int cg, long target, long *freed);
/* drop_caches: objects freed. */
long m_drop_caches(struct model *m);
/* Offline @cg (its lists and deferred work to its parent): 0 or -errno. */
int m_offline(struct model *m, int cg);
/* The nearest online cgroup from @cg up: where its objects land. */
int m_live_owner(const struct model *m, int cg);
/* Release every cgroup no reference pins: the cgroups left alive. */
int m_settle_releases(struct model *m);

#endif /* SHR_FUZZ_MODEL_H */
