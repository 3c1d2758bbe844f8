/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's world (tools/shrinklab/scripts/world.h): the ops an
 * experiment script drives, on the guest's syscalls and files (kutil.h):
 * one design (the kernel booted), tmpfs mounts (one memcg-aware shrinker
 * each), memory cgroups under CG_LAB, drop_caches, /proc/meminfo and
 * /proc/slabinfo; the rows go to kjson.h. Errors end the program (die()),
 * saying what failed, so every op returns 0.
 */
#ifndef KLAB_WORLD_KERNEL_H
#define KLAB_WORLD_KERNEL_H

#include "../../tools/shrinklab/scripts/world.h"

#define CG_LAB CG_ROOT "/klab"

/*
 * Memcg-aware shrinker ids the unit ladder assumes taken before the first
 * tmpfs: the shrinkers in debugfs at start plus 4 (kmalloc-1k objects per
 * empty cgroup, 1 + nodes x units on mainline, confirm the units of each
 * rung).
 */
#define KW_HOST_IDS_EXTRA 4

struct kworld {
	struct world w;
	const char *design;          /* "kernel:<series>" */
	double mem_fraction;         /* of MemAvailable that N cgroups may take */
	unsigned long mounts;        /* tmpfs mounted now: m0 .. m<mounts-1> */
	unsigned long mounts_hw;     /* the most there have been (ids' high water) */
	unsigned long points_made;   /* mountpoints that exist */
	unsigned long cgroups;       /* CG_LAB/c0 .. c<cgroups-1> exist */
	long boot_shrinkers;         /* entries in debugfs/shrinker at start */
	unsigned long host_ids;      /* boot_shrinkers + KW_HOST_IDS_EXTRA */
	unsigned int cpus;
	int nodes;
};

/*
 * The guest as a world for design @design: its CPUs, nodes and shrinkers
 * at boot, the caches it counts (kmalloc-1k, radix_tree_node, every cache
 * named *shrinker*), +memory enabled down to CG_LAB. Dies when the lab
 * config lacks what it reads (SLUB_DEBUG's slabinfo, SHRINKER_DEBUG).
 */
void kworld_open(struct kworld *kw, const char *design, double mem_fraction);

#endif
