/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the workload programs (kwork): cgroups that hold objects,
 * work run from inside a cgroup by a forked child, mounts of every kind the
 * containers use (tmpfs, procfs, ext4 on a loop device), tree walks, the
 * counters reclaim is judged by (memory.stat, /proc/vmstat, PSI, slab
 * objects, kswapd's CPU time) and the rows they become.
 *
 * Everything here is bounded by work (counts), never by time, except the
 * waits for the kernel's asynchronous work (cgroup release), which give up
 * after a timeout and say so.
 */
#ifndef KLAB_KWLIB_H
#define KLAB_KWLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kjson.h"
#include "kutil.h"

#define KW_CG CG_ROOT "/kw"  /* every cgroup of a workload lives below */
#define KW_MNT "/mnt/kw"     /* every mount of a workload lives below */

/* mkdir -p; dies on an error other than EEXIST. */
void kw_mkdir_p(const char *path);
/* mkdir @path as a memory cgroup (cgroup2), +memory below when @parent. */
void kw_cg_make(const char *path, bool parent);
/* Write @val to @cg/@file; 0 or -errno. */
int kw_cg_write(const char *cg, const char *file, const char *val);
/* A number file of @cg (memory.current, memory.high, ...); -1 for "max" or
 * when absent. */
long long kw_cg_read(const char *cg, const char *file);
/* One key of @cg's memory.stat (or memory.events with @file); -1 absent. */
long long kw_cg_stat(const char *cg, const char *file, const char *key);
/* Move the calling process into @cg; 0 or -errno. */
int kw_cg_join(const char *cg);

/*
 * Run @fn(@arg) in a forked child that first joins @cg, so that what it
 * allocates is charged to @cg and the caller stays where it is (its own
 * page faults never charge @cg). Returns the child's exit status (@fn's
 * return), or -1 when it died; *@cpu_ns (may be NULL) gets the child's CPU
 * time (user + system).
 */
int kw_in_cgroup(const char *cg, int (*fn)(void *), void *arg, uint64_t *cpu_ns);
/* The same without waiting: the child's pid (dies when fork fails). */
pid_t kw_spawn_in_cgroup(const char *cg, int (*fn)(void *), void *arg);
/* Wait for @pid: its exit status (-1 when it died), CPU time in *@cpu_ns. */
int kw_wait(pid_t pid, uint64_t *cpu_ns);

/* Mounts; 0 or -errno. The mount point is made. */
int kw_mount_tmpfs(const char *dir, const char *opts);
int kw_mount_proc(const char *dir);
int kw_mount_ext4(const char *dev, const char *dir);
int kw_umount(const char *dir);

/*
 * A loop device over @len bytes of @backing from @offset, with direct I/O
 * (no second copy of the data in the backing device's page cache); its
 * path in @dev. Returns an open fd of the device, or -errno: close it once
 * the device is mounted (the device detaches itself when its last user
 * goes, so it must be held until the mount holds it).
 */
int kw_loop_attach(const char *backing, unsigned long long offset, unsigned long long len,
		   char *dev, size_t devlen);

/* lstat every entry below @dir, at most @depth levels down (symlinks are
 * not followed); the number of entries. Read @read_bytes of each regular
 * file when @read_bytes > 0. */
long kw_walk(const char *dir, int depth, size_t read_bytes);

/* /proc/vmstat @key; -1 absent. */
long long kw_vmstat(const char *key);
/* Total stall time of /proc/pressure/memory, us ("some" and "full"). */
void kw_psi_memory(long long *some_us, long long *full_us);
/* A watermark (@which: "min", "low", "high") of every zone, summed
 * (/proc/zoneinfo), bytes: an allocation wakes kswapd once every zone it
 * may use is below its low watermark. */
long long kw_watermark_bytes(const char *which);
/* Pages on the per-CPU free lists of every zone (/proc/zoneinfo), bytes:
 * free memory that MemFree does not count. */
long long kw_pcp_bytes(void);
/* CPU time of task @pid (se.sum_exec_runtime of /proc/PID/sched), ns; 0
 * when unreadable. */
uint64_t kw_task_cpu_ns(pid_t pid);
/* Sum of kswapd threads' CPU time, ns; *@nr (may be NULL) gets how many. */
uint64_t kw_kswapd_cpu_ns(int *nr);
/* Wait (at most @max_ms) until no kswapd thread is running. */
void kw_kswapd_settle(unsigned int max_ms);

/* Active objects of the caches that hold dentries and inodes (flushed
 * first, so per-CPU slabs' free objects do not count), once the frees
 * that wait for RCU are done. */
struct kw_objs {
	long dentry, inodes; /* inodes: ext4, proc, shmem and plain inodes */
};
void kw_objs_read(struct kw_objs *o);

/* Write a swap header on @dev and swapon it; 0 or -errno. */
int kw_swap_on(const char *dev);

/* The guest's swap in KiB (/proc/meminfo SwapTotal), -1 if unreadable. */
long long kw_swap_total_kib(void);

/* Statistics of any number of samples. */
void kw_stats(const double *v, size_t n, struct kstats *out);

/* Rows (see kjson.h): @n clock samples, or one reading. */
void kw_row(const char *exp, const char *metric, const char *unit, const double *v, size_t n,
	    const struct kscale *sc);
void kw_row1(const char *exp, const char *metric, const char *unit, double v,
	     const struct kscale *sc);
/* A geometry: the background mounts, the cgroups alive, a note. */
void kw_scale(struct kscale *sc, unsigned long mounts, unsigned long cgroups, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Sub-second sleeps. */
void kw_sleep_ms(unsigned int ms);

/* True when the kernel runs with cgroup.memory=nokmem. */
bool kw_nokmem(void);

#endif
