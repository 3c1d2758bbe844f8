// SPDX-License-Identifier: GPL-2.0
/*
 * kcheck: correctness checks of reclaim that a design must pass as mainline
 * does; `klab selftests` runs them in every design's guest after the
 * kernel's cgroup selftests, and judges them by the same rule (a check that
 * passes on mainline and fails twice on a design fails the run).
 *
 *   strand   memory cgroup "strand" fills procfs dentries (a procfs mount
 *            walked from inside it) and sysfs negative dentries; then
 *            memory.reclaim and drop_caches until the count stops going
 *            down: the procfs superblock's shrinker (debugfs) must count
 *            nothing left in the cgroup. A design that loses a shrinker
 *            bit (or a unit) strands what it lost the bit for.
 *   lists    cgroups in parent/child pairs create files on M tmpfs mounts
 *            (per-memcg lists on those superblocks' list_lrus) and files and
 *            negative dentries on the ext4 working disk; then the pairs are
 *            removed while a process unmounts and mounts again some tmpfs
 *            that hold their lists (list_lru_destroy racing offline). The
 *            ext4 superblock's shrinker must count as many objects after
 *            offline as before (reparenting moves items, neither loses nor
 *            makes any), all of them in the pairs' parent (/kcheck) or the
 *            root, and none after drop_caches (an item stranded on a dead
 *            cgroup's list would survive it).
 *   reuse    the shrinker id reuse window: cgroup "reuse" fills a procfs
 *            mount's dentries (the bit of its shrinker id is set), the mount
 *            goes (the bit stays, stale); a drop_caches meets the stale bit
 *            and waits before clearing it, while a new procfs mount takes
 *            the same id and fills its list in the cgroup (setting the bit
 *            again); then reclaim must reach everything. The wait needs
 *            kernel/patches/debug/stale-bit-delay.patch (its parameter is
 *            set here); without the patch the check is skipped. A kernel
 *            without the fix clears the new owner's bit and strands its
 *            objects.
 *   thp      cgroup "thp" (memory.swap.max 0) faults in anonymous THPs and
 *            unmaps half of each, which queues them on the memcg's deferred
 *            split queue (the one user of shrinker bits outside list_lru);
 *            memory.reclaim of the cgroup, repeated until the deferred split
 *            shrinker counts nothing left in the cgroup (debugfs) or
 *            THP_ROUNDS times, must split every one (thp_split_page grows by
 *            as many). Without swap, LRU reclaim cannot split them on the way
 *            to swap-out (shrink_folio_list() does so for a partially mapped
 *            THP), so only the memcg walk reaching the shrinker's bit does:
 *            a kernel that loses the bit leaves all of them queued. Skipped
 *            without THP.
 *   thpfail  the THP queue's shrinker unit comes with its list: with the
 *            allocations of shrinker units failing, a new cgroup "thpfail"
 *            (memory.swap.max 0) faults in THPs and unmaps half of each, as
 *            in thp; then, with the failures off, memory.reclaim as in thp.
 *            Every THP that was queued in the cgroup must be split (none
 *            stranded: queued without the shrinker's bit), and the failures
 *            must have hit (fewer THPs than faulted, the rest fallen back to
 *            small pages). Then the same cgroup, with the failures off, must
 *            queue and split all of them (it recovers). The failures come
 *            from kernel/patches/debug/unit-fail-7.3.patch (array-ondemand)
 *            or unit-fail-seed-xarray-7.3.patch when the kernel
 *            has it (its parameter, which counts the failures), else from
 *            failslab restricted to the cache "shrinker_info_unit"
 *            (kernel/config/failslab.config, boot with slab_nomerge).
 *            Skipped on a kernel with neither (mainline, a design whose
 *            units come from kmalloc).
 *   kmemgate cgroup "kmemgate" fills a procfs mount's dentries (the bit of
 *            its superblock's shrinker is set there), memory.reclaim walks
 *            the bit, then the procfs is unmounted: umount must return
 *            (shrinker_free() waits for every reference a walk took).
 *            With kernel/patches/debug/kmem-gate.patch (its parameter is set
 *            here) the walk goes through the branch of shrink_slab_memcg()
 *            taken when kmem accounting is off; a kernel without the fix
 *            leaks a reference there and umount never returns. Skipped
 *            without the patch.
 *   nokmem   with cgroup.memory=nokmem on the command line (skipped
 *            otherwise: boot with --append cgroup.memory=nokmem), where only
 *            SHRINKER_NONSLAB shrinkers have work in a memcg and the
 *            nokmem-noinfo and nonslab-ids series give slab shrinkers no id,
 *            or no id in non-root memcgs: (1) the THP deferred split queue,
 *            the NONSLAB memcg-aware shrinker of the lab config: a process
 *            of memcg "nokmem" faults THPs in and unmaps half of each, so
 *            each is queued on the memcg's deferred split queue (its
 *            shrinker's bit set in the memcg); memory.reclaim of the memcg
 *            (no swap for it, as in thp; up to THP_ROUNDS rounds) must then
 *            split every one (vmstat thp_split_page), which only the memcg
 *            walk finds them for; (2) superblocks under nokmem:
 *            memcgs mount a tmpfs and a procfs of their own and fill them,
 *            then reclaim, drop_caches, umount and rmdir. None of it may
 *            warn (klab fails a boot on any WARNING in dmesg): a list_lru
 *            given the stale id 0 of a shrinker that is not memcg aware
 *            would set another shrinker's bit, or warn in
 *            set_shrinker_bit() when no memcg-aware shrinker has an id. It
 *            also prints kmalloc-1k objects per new empty memcg before and
 *            after `--mounts` x 20 tmpfs mounts: they grow with the mounts
 *            on mainline, not with the series (a figure, not a check).
 *
 * Output: kselftest TAP on stdout (one test per check), progress on stderr.
 * Bounded by work (rounds, mounts, files). Exit status 0 when every check
 * passed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kutil.h"

#define CG_K CG_ROOT "/kcheck"
#define MNT_K "/mnt/kcheck"
#define SHRINKERS "/sys/kernel/debug/shrinker"
#define STALE_BIT_DELAY "/sys/module/shrinker/parameters/stale_bit_delay_ms"
#define KMEM_GATE "/sys/module/shrinker/parameters/dbg_kmem_gate"
#define KMEM_GATE_HITS "/sys/module/shrinker/parameters/dbg_kmem_gate_hits"
#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define FAILSLAB "/sys/kernel/debug/failslab"
#define UNIT_FAIL "/sys/module/shrinker/parameters/dbg_unit_fail"
#define UNIT_FAIL_HITS "/sys/module/shrinker/parameters/dbg_unit_fail_hits"
#define UNIT_FAILSLAB "/sys/kernel/slab/shrinker_info_unit/failslab"
#define DYING_WAIT_S 10

static unsigned int rounds = 3, mounts = 32, pairs = 4;
static const char *extdir = "/work/kcheck";
static int failures; /* of the check running now */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("kcheck: FAIL ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

/*
 * Objects the shrinkers whose debugfs names start with @prefix count in the
 * memcg of inode @ino (every memcg when @ino is 0; every memcg but @ino
 * and @ino2 when @others); *@memcgs: the memcgs that count any. The count
 * file has a line per online memcg: its inode, then one count per node.
 */
static long shrinker_count_of(const char *prefix, unsigned long ino, unsigned long ino2,
			      bool others, int *memcgs)
{
	char path[512], line[512];
	struct dirent *de;
	long total = 0;
	DIR *d = opendir(SHRINKERS);

	*memcgs = 0;
	if (!d)
		die(SHRINKERS ": %s", strerror(errno));
	while ((de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), SHRINKERS "/%s/count", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *p = line, *end;
			unsigned long cg = strtoul(p, &p, 10);

			if (others ? cg == ino || cg == ino2 : ino && cg != ino)
				continue;
			(*memcgs)++;
			for (;;) {
				long v = strtol(p, &end, 10);

				if (end == p)
					break;
				total += v;
				p = end;
			}
		}
		fclose(f);
	}
	closedir(d);
	return total;
}

static long shrinker_count(const char *prefix, unsigned long ino, int *memcgs)
{
	return shrinker_count_of(prefix, ino, 0, false, memcgs);
}

static unsigned long ino_of(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		die("stat %s: %s", path, strerror(errno));
	return (unsigned long)st.st_ino;
}

/*
 * Wait up to @limit_s for @dir's dying cgroups to be freed; how many are
 * left. A dead cgroup may stay pinned for long by pages it charged; offline
 * (where its list_lrus are reparented) has run long before that.
 */
static long wait_dying(const char *dir, unsigned int limit_s)
{
	char path[256];
	uint64_t t0 = now_ns();
	long dying;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	while ((dying = keyed_value(path, "nr_dying_descendants")) > 0 &&
	       now_ns() - t0 < (uint64_t)limit_s * 1000000000ull)
		usleep(1000);
	return dying;
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

static void enter(const char *cg)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	if (write_str(path, "0"))
		_exit(3);
}

/* stat every entry of a tree to @depth: dentries on the superblock's LRU. */
static void walk(const char *dir, int depth)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (depth < 0 || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			walk(path, depth - 1);
	}
	closedir(d);
}

/* Run @fn(@arg) in a child that joined cgroup @cg; false when it failed. */
static bool in_cgroup(const char *cg, void (*fn)(const void *), const void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		enter(cg);
		fn(arg);
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st);
}

static void fill_proc(const void *procdir)
{
	char path[128];
	struct stat st;

	walk(procdir, 2);
	for (int j = 0; j < 200; j++) { /* sysfs negative dentries (kernfs LRU) */
		snprintf(path, sizeof(path), "/sys/kernel/kcheck-missing-%d", j);
		stat(path, &st);
	}
}

static void reclaim(const char *cg, const char *amount)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	write_str(path, amount); /* EAGAIN when it found less: the walk ran */
}

/* Reclaim until the count stops going down (a dentry tree goes a level per
 * pass); what is left. */
static long reclaim_until_stuck(const char *cg, unsigned long ino, const char *prefix)
{
	int memcgs, pass = 0;
	long left = shrinker_count(prefix, ino, &memcgs), prev;

	do {
		prev = left;
		reclaim(cg, "16M");
		drop_caches(2);
		left = shrinker_count(prefix, ino, &memcgs);
		pass++;
	} while (left > 0 && (left < prev || pass < 3) && pass < 16);
	return left;
}

static void check_strand(void)
{
	const char *cg = CG_K "/strand", *mnt = MNT_K "/proc";
	char procsys[64];
	struct stat st;
	int memcgs;

	snprintf(procsys, sizeof(procsys), "%s/sys", mnt);
	mkdir_or_die(cg);
	mkdir_or_die(mnt);
	if (stat(cg, &st))
		die("stat %s: %s", cg, strerror(errno));
	for (unsigned int r = 0; r < rounds; r++) {
		long before, left;

		if (mount("proc", mnt, "proc", 0, NULL))
			die("mount proc %s: %s", mnt, strerror(errno));
		if (!in_cgroup(cg, fill_proc, procsys))
			fail("strand: round %u: filling the cgroup failed", r);
		before = shrinker_count("sb-proc", st.st_ino, &memcgs);
		left = reclaim_until_stuck(cg, st.st_ino, "sb-proc");
		say("strand: round %u: %ld procfs objects in the cgroup, %ld left after reclaim",
		    r, before, left);
		if (before <= 0)
			fail("strand: round %u filled nothing (count %ld)", r, before);
		if (left > 0)
			fail("strand: round %u: %ld objects left after reclaim", r, left);
		if (umount(mnt))
			die("umount %s: %s", mnt, strerror(errno));
	}
	if (rmdir(cg))
		fail("rmdir %s: %s", cg, strerror(errno));
}

struct fill {
	unsigned int tag, first; /* files on tmpfs first.. (mod mounts), ext4 dir d<tag> */
};

#define FILES_PER_MOUNT 8
#define MOUNTS_PER_CGROUP 4

static void fill_lists(const void *arg)
{
	const struct fill *f = arg;
	char path[256];
	struct stat st;
	int fd;

	for (unsigned int i = 0; i < MOUNTS_PER_CGROUP; i++)
		for (unsigned int j = 0; j < FILES_PER_MOUNT; j++) {
			snprintf(path, sizeof(path), MNT_K "/m%u/f%d-%u", (f->first + i) % mounts,
				 getpid(), j);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			if (fd < 0)
				_exit(4);
			close(fd);
		}
	snprintf(path, sizeof(path), "%s/d%u", extdir, f->tag);
	if (mkdir(path, 0755) && errno != EEXIST)
		_exit(5);
	for (unsigned int j = 0; j < 4 * FILES_PER_MOUNT; j++) {
		snprintf(path, sizeof(path), "%s/d%u/f%u", extdir, f->tag, j);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			_exit(6);
		close(fd);
		snprintf(path, sizeof(path), "%s/d%u/missing%u", extdir, f->tag, j);
		stat(path, &st);
	}
}

static void tmpfs_at(unsigned int i, bool up)
{
	char path[64];

	snprintf(path, sizeof(path), MNT_K "/m%u", i);
	if (!up && umount2(path, MNT_DETACH))
		fail("lists: umount %s: %s", path, strerror(errno));
	if (up && mount("kcheck", path, "tmpfs", 0, "size=1m,nr_inodes=1000"))
		fail("lists: mount %s: %s", path, strerror(errno));
}

static void remount_some(unsigned int r)
{
	for (unsigned int j = 0; j < 6; j++) {
		unsigned int victim = (r * 7 + j * 5) % mounts;

		tmpfs_at(victim, false);
		tmpfs_at(victim, true);
	}
}

static void check_lists(void)
{
	char parent[96], child[112], path[128];
	int memcgs1, memcgs2, memcgs3, elsewhere_memcgs;
	unsigned long root_ino = ino_of(CG_ROOT), top_ino = ino_of(CG_K);

	mkdir_or_die(extdir);
	for (unsigned int i = 0; i < mounts; i++) {
		snprintf(path, sizeof(path), MNT_K "/m%u", i);
		mkdir_or_die(path);
		tmpfs_at(i, true);
	}
	for (unsigned int r = 0; r < rounds; r++) {
		long c1, c2, c3, dying, elsewhere;
		pid_t churn;
		int st;

		for (unsigned int i = 0; i < pairs; i++) {
			struct fill fp = { 2 * i, i * 3 }, fc = { 2 * i + 1, i * 3 + 2 };

			snprintf(parent, sizeof(parent), CG_K "/p%u", i);
			snprintf(child, sizeof(child), "%s/c", parent);
			mkdir_or_die(parent);
			if (!in_cgroup(parent, fill_lists, &fp))
				fail("lists: filling %s failed", parent);
			cg_enable_memory(parent);
			mkdir_or_die(child);
			if (!in_cgroup(child, fill_lists, &fc))
				fail("lists: filling %s failed", child);
		}
		sync();
		c1 = shrinker_count("sb-ext4", 0, &memcgs1);
		churn = fork();
		if (churn == 0) {
			remount_some(r);
			_exit(failures ? 1 : 0);
		}
		for (unsigned int i = 0; i < pairs; i++) {
			snprintf(child, sizeof(child), CG_K "/p%u/c", i);
			if (rmdir(child))
				fail("lists: rmdir %s: %s", child, strerror(errno));
		}
		for (unsigned int i = 0; i < pairs; i++) {
			snprintf(parent, sizeof(parent), CG_K "/p%u", i);
			if (rmdir(parent))
				fail("lists: rmdir %s: %s", parent, strerror(errno));
		}
		if (waitpid(churn, &st, 0) != churn || !WIFEXITED(st) || WEXITSTATUS(st))
			fail("lists: round %u: remounting the tmpfs failed", r);
		/* Clean page cache pins dead memcgs: drop it, not the slab. */
		sync();
		if (write_str("/proc/sys/vm/drop_caches", "1"))
			fail("lists: drop_caches 1");
		dying = wait_dying(CG_K, DYING_WAIT_S);
		if (dying)
			say("lists: round %u: %ld cgroups still dying after %u s (pinned by what "
			    "they charged; offline ran)", r, dying, DYING_WAIT_S);
		c2 = shrinker_count("sb-ext4", 0, &memcgs2);
		if (c1 != c2)
			fail("lists: round %u: ext4 shrinker count %ld before rmdir, %ld after", r,
			     c1, c2);
		elsewhere = shrinker_count_of("sb-ext4", root_ino, top_ino, true, &elsewhere_memcgs);
		if (elsewhere)
			fail("lists: round %u: %ld ext4 objects in %d memcgs below " CG_K
			     " after offline", r, elsewhere, elsewhere_memcgs);
		drop_caches(2);
		c3 = shrinker_count("sb-ext4", 0, &memcgs3);
		if (c3)
			fail("lists: round %u: %ld ext4 objects left after drop_caches", r, c3);
		say("lists: round %u: ext4 count %ld (%d memcgs) -> %ld (%d) after offline -> %ld "
		    "after drop_caches", r, c1, memcgs1, c2, memcgs2, c3);
	}
	for (unsigned int i = 0; i < mounts; i++)
		tmpfs_at(i, false);
	drop_caches(2);
}

/* The procfs mount of a reuse round: A before the walk, B after. */
static void mount_proc(const char *mnt)
{
	if (mount("proc", mnt, "proc", 0, NULL))
		die("mount proc %s: %s", mnt, strerror(errno));
}

static void walk_sys(const void *procdir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/sys", (const char *)procdir);
	walk(path, 2);
}

static void check_reuse(void)
{
	const char *cg = CG_K "/reuse", *a = MNT_K "/a", *b = MNT_K "/b";
	struct stat st;
	int err;

	mkdir_or_die(cg);
	mkdir_or_die(a);
	mkdir_or_die(b);
	if (stat(cg, &st))
		die("stat %s: %s", cg, strerror(errno));
	err = write_str(STALE_BIT_DELAY, "1500");
	if (err)
		die(STALE_BIT_DELAY ": %s", strerror(-err));
	for (unsigned int r = 0; r < rounds; r++) {
		pid_t walker;
		long left;

		mount_proc(a);
		if (!in_cgroup(cg, walk_sys, a))
			fail("reuse: round %u: filling %s failed", r, a);
		if (umount(a))
			die("umount %s: %s", a, strerror(errno));
		walker = fork();
		if (walker == 0) {
			drop_caches(2); /* meets the stale bit, waits 1.5 s */
			_exit(0);
		}
		usleep(50 * 1000);
		mount_proc(b); /* takes the id a had */
		if (!in_cgroup(cg, walk_sys, b))
			fail("reuse: round %u: filling %s failed", r, b);
		waitpid(walker, NULL, 0);
		left = reclaim_until_stuck(cg, st.st_ino, "sb-proc");
		say("reuse: round %u: %ld objects left after reclaim", r, left);
		if (left > 0)
			fail("reuse: round %u: %ld objects stranded (the new owner's bit was "
			     "cleared)", r, left);
		if (umount(b))
			die("umount %s: %s", b, strerror(errno));
	}
	write_str(STALE_BIT_DELAY, "0");
	if (rmdir(cg))
		fail("rmdir %s: %s", cg, strerror(errno));
}

#define THP_SIZE (2ul << 20)
#define NR_THP 8
#define NOKMEM_RELEASE_S 600
/*
 * memory.reclaim rounds before a THP check gives up. With no swap for the
 * cgroup, one round walks the priorities down to 0 (nothing else there is
 * reclaimable), where the deferred split shrinker scans the whole queue; a
 * folio whose split failed (its lock or an extra reference held for a
 * moment) stays queued for the next round. Mainline empties the queue in
 * the first round or the second; a lost bit keeps it full through all.
 */
#define THP_ROUNDS 16

static long vmstat(const char *key)
{
	return keyed_value("/proc/vmstat", key);
}

/*
 * No swap for the THP checks' cgroup @cg: LRU reclaim would otherwise split
 * a partially mapped THP on its way to swap (shrink_folio_list()), and free
 * its unmapped half without the deferred split shrinker, so a kernel that
 * loses the shrinker's bit would pass, and how many a round of 1M splits
 * by either path depends on what the LRU scan met first. False (and a
 * failure) when the cgroup has no memory.swap.max.
 */
static bool thp_no_swap(const char *cg, const char *check)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	if (!write_str(path, "0"))
		return true;
	fail("%s: %s: cannot write 0 (the lab config has swap and memcg)", check, path);
	return false;
}

/* In memcg @cg: THPs, each half unmapped (queued for a deferred split),
 * kept until the parent has reclaimed. */
static void thp_child(const char *cg, int ready, int done)
{
	size_t len = NR_THP * THP_SIZE;
	char *raw, *p, c = 0;

	enter(cg);
	raw = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (raw == MAP_FAILED)
		_exit(3);
	p = (char *)(((unsigned long)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (madvise(p, len, MADV_HUGEPAGE))
		_exit(3);
	for (size_t off = 0; off < len; off += 4096)
		p[off] = 1;
	for (size_t i = 0; i < NR_THP; i++)
		if (madvise(p + i * THP_SIZE, THP_SIZE / 2, MADV_DONTNEED))
			_exit(3);
	if (write(ready, &c, 1) != 1 || read(done, &c, 1) != 1)
		_exit(3);
	_exit(0);
}

static void nokmem_thp(const char *cg)
{
	long alloc0 = vmstat("thp_fault_alloc"), queued0 = vmstat("thp_deferred_split_page");
	long split0 = vmstat("thp_split_page"), alloc, queued, split;
	int ready[2], done[2], st;
	char c = 0;
	pid_t pid;

	if (alloc0 < 0 || queued0 < 0 || split0 < 0) {
		fail("nokmem: /proc/vmstat has no thp_* counters (the lab config has THP)");
		return;
	}
	write_str("/sys/kernel/mm/transparent_hugepage/enabled", "always");
	if (!thp_no_swap(cg, "nokmem"))
		return;
	if (pipe(ready) || pipe(done))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid)
		thp_child(cg, ready[1], done[0]);
	if (read(ready[0], &c, 1) != 1) {
		fail("nokmem: the THP process failed");
		waitpid(pid, &st, 0);
		return;
	}
	alloc = vmstat("thp_fault_alloc") - alloc0;
	queued = vmstat("thp_deferred_split_page") - queued0;
	for (int i = 0; i < THP_ROUNDS && vmstat("thp_split_page") - split0 < queued; i++)
		reclaim(cg, "1M");
	split = vmstat("thp_split_page") - split0;
	if (write(done[1], &c, 1) != 1 || waitpid(pid, &st, 0) != pid)
		die("THP process: %s", strerror(errno));
	fprintf(stderr, "kcheck: nokmem: %ld THPs faulted in, %ld queued for a deferred split, "
		"%ld split by memory.reclaim of the memcg\n", alloc, queued, split);
	if (alloc < 1 || queued < 1)
		fail("nokmem: no THP was faulted in and queued (%ld, %ld)", alloc, queued);
	else if (split < queued)
		fail("nokmem: memcg reclaim split %ld of the %ld THPs on the memcg's queue", split,
		     queued);
	close(ready[0]);
	close(ready[1]);
	close(done[0]);
	close(done[1]);
}

static void fill_superblocks(const void *arg)
{
	const char *dir = arg;
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/t", dir);
	if (mount("kcheck", path, "tmpfs", 0, "size=4m"))
		_exit(3);
	for (int f = 0; f < 32; f++) {
		int fd;

		snprintf(path, sizeof(path), "%s/t/f%d", dir, f);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1 || close(fd))
			_exit(3);
		snprintf(path, sizeof(path), "%s/t/missing%d", dir, f);
		stat(path, &st);
	}
	snprintf(path, sizeof(path), "%s/p", dir);
	if (mount("proc", path, "proc", 0, NULL))
		_exit(3);
	walk(path, 1);
}

static void nokmem_superblocks(void)
{
	char cg[128], dir[128], path[160];

	for (unsigned int i = 0; i < pairs; i++) {
		snprintf(cg, sizeof(cg), CG_K "/nokmem-sb%u", i);
		snprintf(dir, sizeof(dir), MNT_K "/nokmem-sb%u", i);
		mkdir_or_die(cg);
		mkdir_or_die(dir);
		snprintf(path, sizeof(path), "%s/t", dir);
		mkdir_or_die(path);
		snprintf(path, sizeof(path), "%s/p", dir);
		mkdir_or_die(path);
		if (!in_cgroup(cg, fill_superblocks, dir))
			fail("nokmem: memcg %s could not mount and fill its superblocks", cg);
		reclaim(cg, "1M");
	}
	drop_caches(2);
	for (unsigned int i = 0; i < pairs; i++) {
		snprintf(path, sizeof(path), MNT_K "/nokmem-sb%u/t", i);
		if (umount(path))
			fail("nokmem: umount %s: %s", path, strerror(errno));
		snprintf(path, sizeof(path), MNT_K "/nokmem-sb%u/p", i);
		if (umount(path))
			fail("nokmem: umount %s: %s", path, strerror(errno));
		snprintf(cg, sizeof(cg), CG_K "/nokmem-sb%u", i);
		if (rmdir(cg))
			fail("nokmem: rmdir %s: %s", cg, strerror(errno));
	}
	drop_caches(2);
}

/* kmalloc-1k objects per new empty memcg (over 20), per-CPU slabs flushed. */
static double kmalloc1k_per_memcg(const char *dir)
{
	long a, b;

	cg_wait_released(dir, NOKMEM_RELEASE_S);
	slab_shrink_all();
	a = slab_objs("kmalloc-1k");
	cg_mkdir_range(dir, 0, 20);
	slab_shrink_all();
	b = slab_objs("kmalloc-1k");
	cg_rmdir_range(dir, 0, 20);
	cg_wait_released(dir, NOKMEM_RELEASE_S);
	return (double)(b - a) / 20;
}

static void check_nokmem(void)
{
	const char *cg = CG_K "/nokmem", *units = CG_K "/nokmem-units";
	unsigned long n = 20ul * mounts;
	double before, after;

	mkdir_or_die(cg);
	nokmem_thp(cg);
	nokmem_superblocks();
	mkdir_or_die(units);
	cg_enable_memory(units);
	before = kmalloc1k_per_memcg(units);
	tmpfs_mkpoints(0, n);
	for (unsigned long i = 0; i < n; i++)
		if (tmpfs_mount(i))
			die("mount tmpfs #%lu: %s", i, strerror(errno));
	after = kmalloc1k_per_memcg(units);
	fprintf(stderr, "kcheck: nokmem: kmalloc-1k objects per empty memcg: %.2f before and "
		"%.2f after %lu tmpfs mounts (%d nodes)\n", before, after, n, online_nodes());
	for (unsigned long i = 0; i < n; i++)
		if (tmpfs_umount(i))
			die("umount tmpfs #%lu: %s", i, strerror(errno));
	if (rmdir(units) || rmdir(cg))
		fail("nokmem: rmdir: %s", strerror(errno));
}

static const char *nokmem_skip(void)
{
	char buf[4096];
	size_t n = 0;
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return strstr(buf, "cgroup.memory=nokmem") ? NULL : "needs cgroup.memory=nokmem";
}

static const char *reuse_skip(void)
{
	return access(STALE_BIT_DELAY, W_OK) ?
	       "needs kernel/patches/debug/stale-bit-delay.patch" : NULL;
}

/* A number in a sysfs or procfs file; -1 when absent. */
static long read_long(const char *path)
{
	char buf[64];
	long v = -1;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		v = strtol(buf, NULL, 10);
	}
	close(fd);
	return v;
}

#define HPAGE (2UL << 20)
#define THP_FOLIOS 16

/* What one round of the THP checks saw: vmstat deltas and the cgroup's count */
struct thp_round {
	long faulted, queued, count, split, left;
	int rounds;
};

/*
 * A child of @cg faults in THP_FOLIOS THPs and unmaps half of each; while
 * it keeps them, @before (if any) runs, then memory.reclaim of @cg until
 * the deferred split shrinker counts nothing left there, at most
 * THP_ROUNDS times.
 */
static struct thp_round thp_fault_reclaim(const char *cg, void (*before)(void))
{
	unsigned long n = THP_FOLIOS, ino = ino_of(cg);
	long faulted = vmstat("thp_fault_alloc"), queued = vmstat("thp_deferred_split_page");
	long split = vmstat("thp_split_page");
	struct thp_round r = { 0 };
	int memcgs, pfd[2];
	pid_t pid;
	char c;

	if (pipe(pfd))
		die("thp: pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		char *p, *a;

		enter(cg);
		p = mmap(NULL, (n + 1) * HPAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(7);
		a = (char *)(((unsigned long)p + HPAGE - 1) & ~(HPAGE - 1));
		if (madvise(a, n * HPAGE, MADV_HUGEPAGE))
			_exit(8);
		memset(a, 1, n * HPAGE);
		/* the second half of each THP: the folio goes on the queue */
		for (unsigned long i = 0; i < n; i++)
			munmap(a + i * HPAGE + HPAGE / 2, HPAGE / 2);
		if (write(pfd[1], "x", 1) != 1)
			_exit(9);
		pause();
		_exit(0);
	}
	if (pid < 0 || read(pfd[0], &c, 1) != 1)
		die("thp: the cgroup's process did not get ready");
	r.faulted = vmstat("thp_fault_alloc") - faulted;
	r.queued = vmstat("thp_deferred_split_page") - queued;
	if (before)
		before();
	r.count = shrinker_count("thp-deferred_split", ino, &memcgs);
	r.left = r.count;
	while (r.left > 0 && r.rounds < THP_ROUNDS) {
		reclaim(cg, "1M");
		r.rounds++;
		r.left = shrinker_count("thp-deferred_split", ino, &memcgs);
	}
	r.split = vmstat("thp_split_page") - split;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	close(pfd[1]);
	return r;
}

static void check_thp(void)
{
	const char *cg = CG_K "/thp";
	unsigned long n = THP_FOLIOS;
	struct thp_round r;

	mkdir_or_die(cg);
	if (!thp_no_swap(cg, "thp")) {
		rmdir(cg);
		return;
	}
	r = thp_fault_reclaim(cg, NULL);
	say("thp: %ld of %lu THPs queued for deferred split (count %ld in the cgroup, summed "
	    "over nodes); memory.reclaim x %d split %ld, left %ld", r.queued, n, r.count,
	    r.rounds, r.split, r.left);
	if (r.queued < (long)n || r.count < (long)n)
		fail("thp: %ld THPs queued, %ld counted in the cgroup, of %lu", r.queued,
		     r.count, n);
	if (r.left || r.split < r.queued)
		fail("thp: %d rounds of memory.reclaim split %ld of %ld, %ld left queued",
		     r.rounds, r.split, r.queued, r.left);
	if (rmdir(cg))
		fail("rmdir %s: %s", cg, strerror(errno));
}

/*
 * Every allocation of a shrinker unit fails while @on (the debug patch's
 * parameter, or failslab restricted to the unit cache, sleeping
 * allocations too); false when a knob would not take the value.
 */
static bool unit_failslab(bool on)
{
	static const char *const knobs[][2] = {
		{ FAILSLAB "/probability", "100" }, { FAILSLAB "/interval", "1" },
		{ FAILSLAB "/times", "-1" }, { FAILSLAB "/space", "0" },
		{ FAILSLAB "/verbose", "0" }, { FAILSLAB "/task-filter", "N" },
		{ FAILSLAB "/ignore-gfp-wait", "N" }, { FAILSLAB "/cache-filter", "Y" },
	};

	if (!access(UNIT_FAIL, W_OK)) {
		if (!write_str(UNIT_FAIL, on ? "1" : "0"))
			return true;
		fail("thpfail: %s: cannot write %d", UNIT_FAIL, on);
		return false;
	}
	for (size_t i = 0; on && i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		if (write_str(knobs[i][0], knobs[i][1])) {
			fail("thpfail: %s: cannot write %s", knobs[i][0], knobs[i][1]);
			return false;
		}
	}
	if (write_str(UNIT_FAILSLAB, on ? "1" : "0")) {
		fail("thpfail: %s: cannot write %d (boot with slab_nomerge)", UNIT_FAILSLAB, on);
		return false;
	}
	return true;
}

static void unit_failslab_off(void)
{
	unit_failslab(false);
}

static void check_thpfail(void)
{
	const char *cg = CG_K "/thpfail";
	unsigned long n = THP_FOLIOS;
	struct thp_round r;

	long hits = read_long(UNIT_FAIL_HITS);

	mkdir_or_die(cg);
	if (!thp_no_swap(cg, "thpfail") || !unit_failslab(true)) {
		unit_failslab(false);
		rmdir(cg);
		return;
	}
	r = thp_fault_reclaim(cg, unit_failslab_off);
	if (hits >= 0)
		hits = read_long(UNIT_FAIL_HITS) - hits;
	say("thpfail: unit allocations failing (%ld failed, -1: not counted): %ld of %lu THP "
	    "faults got a THP, %ld queued (count %ld in the cgroup); memory.reclaim x %d split "
	    "%ld, left %ld", hits, r.faulted, n, r.queued, r.count, r.rounds, r.split, r.left);
	if (!hits)
		fail("thpfail: no unit allocation failed");
	if (r.faulted >= (long)n)
		fail("thpfail: the unit allocation failures did not hit: %ld of %lu THPs",
		     r.faulted, n);
	if (r.left || r.split < r.queued)
		fail("thpfail: %ld THPs stranded: %d rounds of memory.reclaim split %ld of %ld "
		     "queued", r.left, r.rounds, r.split, r.queued);
	r = thp_fault_reclaim(cg, NULL);
	say("thpfail: then without failures: %ld of %lu THPs queued (count %ld); "
	    "memory.reclaim x %d split %ld, left %ld", r.queued, n, r.count, r.rounds,
	    r.split, r.left);
	if (r.queued < (long)n || r.count < (long)n || r.left || r.split < r.queued)
		fail("thpfail: the cgroup did not recover: %ld queued, %ld counted, %ld split, "
		     "%ld left, of %lu", r.queued, r.count, r.split, r.left, n);
	if (rmdir(cg))
		fail("rmdir %s: %s", cg, strerror(errno));
}

static const char *thpfail_skip(void)
{
	if (access(THP_DIR, F_OK))
		return "no transparent hugepages";
	if (!access(UNIT_FAIL, W_OK))
		return NULL;
	if (access(FAILSLAB, F_OK))
		return "neither kernel/patches/debug/unit-fail-*7.3.patch nor failslab";
	if (access(UNIT_FAILSLAB, F_OK))
		return "no shrinker_info_unit cache (or it is merged: boot with slab_nomerge)";
	return NULL;
}

static const char *thp_skip(void)
{
	return access(THP_DIR, F_OK) ? "no transparent hugepages" : NULL;
}

/* Debugfs shrinker directories whose names start with @prefix. */
static int shrinker_dirs(const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(SHRINKERS);
	int n = 0;

	if (!d)
		die(SHRINKERS ": %s", strerror(errno));
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

#define UMOUNT_WAIT_S 30

static void check_kmemgate(void)
{
	const char *cg = CG_K "/kmemgate", *mnt = MNT_K "/kmemgate";
	long hits;
	int before, err, st;
	uint64_t t0;
	pid_t pid;

	mkdir_or_die(cg);
	mkdir_or_die(mnt);
	err = write_str(KMEM_GATE, "1");
	if (err)
		die(KMEM_GATE ": %s", strerror(-err));
	before = shrinker_dirs("sb-proc");
	mount_proc(mnt);
	if (!in_cgroup(cg, walk_sys, mnt))
		fail("kmemgate: filling %s failed", mnt);
	hits = read_long(KMEM_GATE_HITS);
	for (int i = 0; i < 4; i++)
		reclaim(cg, "1M");
	hits = read_long(KMEM_GATE_HITS) - hits;
	write_str(KMEM_GATE, "0");
	if (hits <= 0)
		fail("kmemgate: the walk never took the kmem gate (%ld)", hits);
	t0 = now_ns();
	pid = fork();
	if (pid == 0)
		_exit(umount(mnt) ? 1 : 0);
	while (waitpid(pid, &st, WNOHANG) != pid) {
		if (now_ns() - t0 > UMOUNT_WAIT_S * 1000000000ULL) {
			fail("kmemgate: umount has not returned after %d s (%d procfs shrinkers "
			     "left registered): the walk leaked a shrinker reference",
			     UMOUNT_WAIT_S, shrinker_dirs("sb-proc") - before);
			return;
		}
		usleep(100 * 1000);
	}
	say("kmemgate: %ld walks took the gate; umount returned in %.1f ms, %d procfs "
	    "shrinkers left", hits, (now_ns() - t0) / 1e6, shrinker_dirs("sb-proc") - before);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail("kmemgate: umount %s failed", mnt);
	if (rmdir(cg))
		fail("rmdir %s: %s", cg, strerror(errno));
}

static const char *kmemgate_skip(void)
{
	return access(KMEM_GATE, W_OK) ? "needs kernel/patches/debug/kmem-gate.patch" : NULL;
}

static const struct check {
	const char *name;
	void (*run)(void);
	const char *(*skip)(void); /* why it cannot run here, or NULL */
} checks[] = {
	{ "kcheck_strand", check_strand, NULL },
	{ "kcheck_lists", check_lists, NULL },
	{ "kcheck_reuse", check_reuse, reuse_skip },
	{ "kcheck_thp", check_thp, thp_skip },
	{ "kcheck_thpfail", check_thpfail, thpfail_skip },
	{ "kcheck_kmemgate", check_kmemgate, kmemgate_skip },
	{ "kcheck_nokmem", check_nokmem, nokmem_skip },
};
#define NR_CHECKS (sizeof(checks) / sizeof(checks[0]))

static void usage(void)
{
	fputs("usage: kcheck [--rounds R] [--mounts M] [--pairs P] [--dir EXT4DIR] [CHECK...]\n"
	      "checks: kcheck_strand kcheck_lists kcheck_reuse kcheck_nokmem kcheck_thp\n"
	      "        kcheck_thpfail kcheck_kmemgate (default: all)\n", stderr);
	exit(2);
}

/* Whether the root cgroup offers the memory controller (not with
 * cgroup_disable=memory or CONFIG_MEMCG=n). */
static bool memory_controller(void)
{
	char buf[512] = "";
	FILE *f = fopen(CG_ROOT "/cgroup.controllers", "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (char *w = strtok(buf, " \n"); w; w = strtok(NULL, " \n"))
		if (!strcmp(w, "memory"))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rounds", 1, 0, 'r' }, { "mounts", 1, 0, 'm' }, { "pairs", 1, 0, 'p' },
		{ "dir", 1, 0, 'd' }, { 0, 0, 0, 0 }
	};
	bool want[NR_CHECKS];
	unsigned int n = 0, bad = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'r': rounds = (unsigned int)atoi(optarg); break;
		case 'm': mounts = (unsigned int)atoi(optarg); break;
		case 'p': pairs = (unsigned int)atoi(optarg); break;
		case 'd': extdir = optarg; break;
		default: usage();
		}
	}
	if (!rounds || mounts < 8 || !pairs)
		usage();
	for (size_t i = 0; i < NR_CHECKS; i++)
		want[i] = optind == argc;
	for (int a = optind; a < argc; a++) {
		size_t i = 0;

		while (i < NR_CHECKS && strcmp(argv[a], checks[i].name))
			i++;
		if (i == NR_CHECKS)
			usage();
		want[i] = true;
	}
	if (!memory_controller()) {
		/* kselftest's whole-suite skip: the host reports it as skipped */
		printf("TAP version 13\n1..0 # SKIP memory controller isn't available\n");
		return 4;
	}
	cg_enable_memory(CG_ROOT);
	mkdir_or_die(CG_K);
	cg_enable_memory(CG_K);
	mkdir_or_die("/mnt");
	mkdir_or_die(MNT_K);
	for (size_t i = 0; i < NR_CHECKS; i++)
		n += want[i];
	printf("TAP version 13\n1..%u\n", n);
	n = 0;
	for (size_t i = 0; i < NR_CHECKS; i++) {
		const char *why = checks[i].skip ? checks[i].skip() : NULL;

		if (!want[i])
			continue;
		if (why) {
			printf("ok %u %s # SKIP %s\n", ++n, checks[i].name, why);
			continue;
		}
		failures = 0;
		checks[i].run();
		printf("%s %u %s\n", failures ? "not ok" : "ok", ++n, checks[i].name);
		fflush(stdout);
		bad += failures != 0;
	}
	return bad ? 1 : 0;
}
