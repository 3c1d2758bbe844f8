/* SPDX-License-Identifier: MIT */
/*
 * Benches: a host of one design configuration with the superblock workload
 * on it (mounts, cgroups, files), and the fit of cgroups to a memory
 * budget across the benches of a run.
 */
#ifndef SHRINKLAB_BENCH_H
#define SHRINKLAB_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memcg_body.h"
#include "superblock.h"
#include "types.h"

/* A host of one design with the superblock workload. */
struct lab_bench {
	struct lab_design cfg;
	char label[LAB_LABEL_LEN];
	const char *why; /* why the design is unavailable, or NULL */
	struct shr_host *host;
	struct shr_slab_allocator *slab; /* the host's, prefaulted (lab_bench_open) */
	struct sb_fs fs;
	bool fs_ready;
	struct sb **host_sbs; /* the host's own shrinkers, never unmounted */
	size_t nr_host_sbs;
	struct sb **sbs;
	size_t nr_sbs, cap_sbs;
	struct shr_mem_cgroup **cgs;
	/* The rest of each cgroup's memcg (memcg_body.h), by cgs' index. */
	struct lab_memcg_body *bodies;
	size_t nr_cgs, cap_cgs, cap_bodies;
	unsigned long ids_hw;         /* high-water of memcg-aware shrinkers */
	unsigned long cgroups_target; /* after the memory budget */
	struct lab_scale used;
};

/* Create the host and its host shrinkers; 0, or -errno with b->why set. */
int lab_bench_open(struct lab_bench *b, const struct lab_design *d, const struct lab_scale *s);
int lab_bench_mount(struct lab_bench *b, unsigned long n);
/* Unmount the last @n workload mounts. */
void lab_bench_umount(struct lab_bench *b, unsigned long n);
int lab_bench_mkcg(struct lab_bench *b, unsigned long n);
/* rmdir the last @n cgroups. */
int lab_bench_rmcg(struct lab_bench *b, unsigned long n);
int lab_bench_file(struct lab_bench *b, size_t sb, size_t cg, int nid);
/*
 * A tmpfs file of cgroup @cg on mount @sb: its dentry and inode are charged
 * to the cgroup, so the cgroup gets its lists on the mount's two list_lrus
 * (and, in the on-demand designs, its unit for the mount's shrinker), but
 * tmpfs pins both objects, so nothing goes on a list and no bit is set.
 */
int lab_bench_tmpfs_file(struct lab_bench *b, size_t sb, size_t cg);
/* SUnreclaim after deferred frees have run. */
unsigned long lab_bench_sunreclaim(struct lab_bench *b);
/* shrink_slab() every cgroup of the bench once on every node; ns taken. */
int lab_bench_walk(struct lab_bench *b, int priority, uint64_t *ns);
void lab_bench_close(struct lab_bench *b);
bool lab_bench_ok(const struct lab_bench *b);
/* The geometry the bench is at now (note kept from b->used). */
void lab_bench_geometry(const struct lab_bench *b, struct lab_scale *out);

/*
 * Give each bench as many of @target cgroups as @budget allows, from the
 * per-cgroup cost each really showed on its pilot cgroups (water-filling,
 * cheapest first; never fewer than @least). Sets cgroups_target and a note
 * where it had to cut.
 */
void lab_fit_cgroups(struct lab_bench *b, size_t n, const double *per_cgroup,
		     unsigned long target, unsigned long least, unsigned long long budget);

#endif /* SHRINKLAB_BENCH_H */
