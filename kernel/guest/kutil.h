/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest programs: clocks, /proc and /sys files,
 * tmpfs mounts and memory cgroups (cgroup2 at /sys/fs/cgroup).
 */
#ifndef KLAB_KUTIL_H
#define KLAB_KUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CG_ROOT "/sys/fs/cgroup"

uint64_t now_ns(void);
/* Print to stderr and exit 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Progress line on stderr (the console), with the guest's uptime. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Write @s to @path; 0 or -errno. */
int write_str(const char *path, const char *s);
/* A "Key:   123 kB" field of /proc/meminfo, in kB; -1 when absent. */
long meminfo_kb(const char *key);
/* Active objects of slab cache @name from /proc/slabinfo; -1 when absent. */
long slab_objs(const char *name);
/* "key value" from a flat-keyed file (cgroup.stat); -1 when absent. */
long keyed_value(const char *path, const char *key);

/* Shrinkers registered (entries of /sys/kernel/debug/shrinker); -1 without. */
long debugfs_shrinkers(void);
/*
 * Flush every slab cache's per-CPU slabs to its node lists and free its
 * empty slabs (/sys/kernel/slab/<cache>/shrink): afterwards /proc/slabinfo's
 * active objects are the objects in use, exactly (a CPU slab's free objects
 * count as active until then), and SUnreclaim holds no empty slabs.
 */
void slab_shrink_all(void);

/* Enable +memory below @dir (cgroup2). */
void cg_enable_memory(const char *dir);
/* mkdir @dir/c<first..first+n-1>; dies on error. */
void cg_mkdir_range(const char *dir, unsigned long first, unsigned long n);
void cg_rmdir_range(const char *dir, unsigned long first, unsigned long n);
/* Wait until @dir's nr_dying_descendants is 0; dies after @timeout_s. */
void cg_wait_released(const char *dir, unsigned int timeout_s);

/* Mounts of tmpfs at /mnt/klab/m<i>; mountpoints are made on demand. */
int tmpfs_mount(unsigned long i);
int tmpfs_umount(unsigned long i);
void tmpfs_mkpoints(unsigned long first, unsigned long n);

/* echo @what > /proc/sys/vm/drop_caches; returns the ns it took. */
uint64_t drop_caches(int what);

/* Online CPUs and NUMA nodes. */
unsigned int online_cpus(void);
int online_nodes(void);

/* Statistics of @n samples (at most 64; @v is left in its order). */
struct kstats {
	double median, min, max;
	unsigned long n;
};
void stats_of(const double *v, size_t n, struct kstats *out);
/* The median alone. */
double median_of(const double *v, size_t n);

#endif
