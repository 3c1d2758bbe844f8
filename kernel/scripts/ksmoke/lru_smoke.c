// SPDX-License-Identifier: GPL-2.0
/*
 * lru_smoke: guest program for the lru-index series (issue 12): list_lru
 * reparenting must move every item to the parent and strand none, while
 * superblocks holding per-memcg lists are destroyed concurrently.
 *
 * Static; boot it with kernel/boot (2 vCPUs, --nodes 4, an ext4 disk):
 *
 *   gcc -static -O2 -o lru_smoke kernel/scripts/ksmoke/lru_smoke.c
 *   truncate -s 64M ext4.img && mkfs.ext4 -q -F ext4.img
 *   kernel/boot --nodes 4 --mem 2048 --disk ext4.img BZIMAGE lru_smoke lists 300 20 3
 *
 * On a debug kernel (klab's debug config) add --append "pci=noacpi": under
 * TCG its ACPI interpreter gives up on the i440fx _PRT method (AML loop
 * timeout), the virtio disk then gets no interrupt and the guest hangs on
 * its first I/O.  The PCI BIOS routing table works.
 *
 * Modes:
 *
 *   lru_smoke rmdir M N R
 *	rmdir+release of N empty memory cgroups, R rounds at 0 tmpfs mounts,
 *	then M tmpfs mounts are made and R rounds more.  Each round: mkdir N,
 *	then time rmdir of all N plus the wait until the root's
 *	nr_dying_descendants is back to what it was.  One line per round:
 *	"ROUND mounts=<m> n=<N> mkdir_ms=<x> rmdir_ms=<y> release_ms=<z>"
 *	(release_ms: from the first rmdir).  Then the M mounts are unmounted
 *	and R rounds more run at 0 mounts with shrinker_nr_max still at its
 *	high water: what the per-memcg shrinker units cost, without lists.
 *	(klab-guest's churn experiment measures the first two parts.)
 *
 *   lru_smoke lists M N R
 *	Correctness churn: M tmpfs mounts, then R rounds of: N cgroups in
 *	pairs (parent/child), a process in each creating files in a few
 *	mounts (so per-memcg lists exist on those superblocks' list_lrus),
 *	rmdir children then parents in parallel with umount/mount of some of
 *	the mounts holding lists (list_lru_destroy racing offline); the ext4
 *	superblock shrinker's count (debugfs) must be the same before and
 *	after offline and held by the root alone, and drop_caches must then
 *	free every object (none stranded on a dead memcg's list).  Then
 *	everything is deleted and drop_caches runs again.
 *
 * Exit status 0 on success; "FAIL ..." lines otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CG "/sys/fs/cgroup"

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	failures++;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

static long read_key(const char *path, const char *key)
{
	char buf[4096], *p;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, key);
	if (!p)
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

static long dying(void)
{
	return read_key(CG "/cgroup.stat", "nr_dying_descendants ");
}

static void wait_dying(long target, int limit_ms)
{
	double start = now_ms();

	while (dying() > target) {
		usleep(1000);
		if (now_ms() - start > limit_ms) {
			printf("NOTE nr_dying_descendants stuck at %ld after %d ms\n",
			       dying(), limit_ms);
			return;
		}
	}
}

static void setup(void)
{
	mkdir("/proc", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mkdir("/sys", 0755);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("cgroup2", CG, "cgroup2", 0, NULL);
	if (write_file(CG "/cgroup.subtree_control", "+memory"))
		fail("enable memory controller");
	mkdir("/mnt", 0755);
}

static void mount_many(int from, int to)
{
	char path[64];
	int i;

	for (i = from; i < to; i++) {
		snprintf(path, sizeof(path), "/mnt/m%d", i);
		mkdir(path, 0755);
		if (mount("tmpfs", path, "tmpfs", 0, "size=1m,nr_inodes=1000")) {
			fail("mount %s: %s", path, strerror(errno));
			return;
		}
	}
}

static void cg_path(char *buf, size_t len, int i)
{
	snprintf(buf, len, CG "/c%d", i);
}

static void round_rmdir(int mounts, int n)
{
	char path[64];
	double t0, t1, t2, t3;
	long base = dying();
	int i;

	t0 = now_ms();
	for (i = 0; i < n; i++) {
		cg_path(path, sizeof(path), i);
		if (mkdir(path, 0755))
			fail("mkdir %s: %s", path, strerror(errno));
	}
	t1 = now_ms();
	for (i = 0; i < n; i++) {
		cg_path(path, sizeof(path), i);
		if (rmdir(path))
			fail("rmdir %s: %s", path, strerror(errno));
	}
	t2 = now_ms();
	wait_dying(base, 600000);
	t3 = now_ms();
	printf("ROUND mounts=%d n=%d mkdir_ms=%.1f rmdir_ms=%.1f release_ms=%.1f\n",
	       mounts, n, t1 - t0, t2 - t1, t3 - t1);
	fflush(stdout);
}

static void umount_many(int from, int to)
{
	char path[64];
	int i;

	for (i = from; i < to; i++) {
		snprintf(path, sizeof(path), "/mnt/m%d", i);
		if (umount(path))
			fail("umount %s: %s", path, strerror(errno));
	}
}

/*
 * The last R rounds run after the M mounts are gone again: their list_lrus
 * are destroyed, but shrinker_nr_max stays at its high water, so each new
 * memcg still gets (and offline still walks) the shrinker units of M ids.
 * What is left of the cost at M mounts there is not list_lru reparenting.
 */
static int run_rmdir(int m, int n, int rounds)
{
	int r;

	for (r = 0; r < rounds; r++)
		round_rmdir(0, n);
	mount_many(0, m);
	for (r = 0; r < rounds; r++)
		round_rmdir(m, n);
	umount_many(0, m);
	printf("UNMOUNTED %d\n", m);
	for (r = 0; r < rounds; r++)
		round_rmdir(0, n);
	return failures;
}

/*
 * Join @cg; create @files files in each of tmpfs mounts first..first+k-1
 * (per-memcg lists get allocated on those superblocks' list_lrus); on the
 * ext4 mount create files and look up missing names, so that unused
 * dentries and inodes charged to @cg sit on its lists.
 */
static void populate(const char *cg, int tag, int first, int k, int files, int total)
{
	char path[128], pid[32];
	struct stat st;
	int i, j, fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(path, pid))
		_exit(3);
	for (i = 0; i < k && total; i++) {
		int m = (first + i) % total;

		for (j = 0; j < files; j++) {
			snprintf(path, sizeof(path), "/mnt/m%d/f%d-%d", m, getpid(), j);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			if (fd < 0) {
				if (errno == ENOENT)
					continue;	/* concurrently remounted */
				_exit(4);
			}
			close(fd);
		}
	}
	snprintf(path, sizeof(path), "/mnt/ext/d%d", tag);
	if (mkdir(path, 0755) && errno != EEXIST)
		return;		/* no ext4 disk */
	for (j = 0; j < 4 * files; j++) {
		snprintf(path, sizeof(path), "/mnt/ext/d%d/f%d", tag, j);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			_exit(5);
		close(fd);
		snprintf(path, sizeof(path), "/mnt/ext/d%d/missing%d", tag, j);
		stat(path, &st);
	}
	_exit(0);
}

static void run_child(const char *cg, int tag, int first, int k, int files, int total)
{
	pid_t p = fork();
	int st;

	if (p == 0)
		populate(cg, tag, first, k, files, total);
	if (p < 0 || waitpid(p, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		fail("populate %s", cg);
}

static long slab_objs(const char *cache)
{
	char line[512], name[64];
	long active;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &active) == 2 && !strcmp(name, cache)) {
			fclose(f);
			return active;
		}
	}
	fclose(f);
	return -1;
}

/* Sum of the ext4 superblock shrinker's per-memcg counts; @lines: memcgs. */
static long ext4_count(int *lines)
{
	char cmd[] = "cat /sys/kernel/debug/shrinker/sb-ext4*/count 2>/dev/null";
	char line[512], *p, *end;
	long sum = 0;
	FILE *f = popen(cmd, "r");

	*lines = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		strtoul(line, &p, 10);		/* memcg inode number */
		(*lines)++;
		for (;;) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			sum += v;
			p = end;
		}
	}
	pclose(f);
	return sum;
}

static void drop_caches(void)
{
	if (write_file("/proc/sys/vm/drop_caches", "2"))
		fail("drop_caches");
}

static int run_lists(int m, int n, int rounds)
{
	const int k = 4, files = 8;
	char parent[64], child[80], path[96];
	int r, i, pairs = n / 2, lines1, lines2, lines3;
	long base, c1, c2, c3;
	pid_t churn;

	mount_many(0, m);
	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mkdir("/mnt/ext", 0755);
	if (mount("/dev/vda", "/mnt/ext", "ext4", 0, NULL))
		printf("NOTE no ext4 disk: %s\n", strerror(errno));
	for (r = 0; r < rounds; r++) {
		base = dying();
		for (i = 0; i < pairs; i++) {
			snprintf(parent, sizeof(parent), CG "/p%d", i);
			snprintf(child, sizeof(child), "%s/c", parent);
			if (mkdir(parent, 0755))
				fail("mkdir %s", parent);
			run_child(parent, 2 * i, i * 3, k, files, m);
			snprintf(path, sizeof(path), "%s/cgroup.subtree_control", parent);
			if (write_file(path, "+memory"))
				fail("subtree_control %s", parent);
			if (mkdir(child, 0755))
				fail("mkdir %s", child);
			run_child(child, 2 * i + 1, i * 3 + 2, k, files, m);
		}
		sync();
		c1 = ext4_count(&lines1);
		/* In parallel: remount mounts that hold lists (list_lru_destroy). */
		churn = fork();
		if (churn == 0) {
			int j;

			for (j = 0; j < 6 && m; j++) {
				char mp[64];
				int victim = (r * 7 + j * 5) % m;

				snprintf(mp, sizeof(mp), "/mnt/m%d", victim);
				umount2(mp, MNT_DETACH);
				mount("tmpfs", mp, "tmpfs", 0, "size=1m,nr_inodes=1000");
			}
			_exit(0);
		}
		for (i = 0; i < pairs; i++) {
			snprintf(child, sizeof(child), CG "/p%d/c", i);
			if (rmdir(child))
				fail("rmdir %s: %s", child, strerror(errno));
		}
		for (i = 0; i < pairs; i++) {
			snprintf(parent, sizeof(parent), CG "/p%d", i);
			if (rmdir(parent))
				fail("rmdir %s: %s", parent, strerror(errno));
		}
		waitpid(churn, NULL, 0);
		/* Clean page cache pins dead memcgs; drop it, not the slab. */
		sync();
		if (write_file("/proc/sys/vm/drop_caches", "1"))
			fail("drop_caches 1");
		wait_dying(base, 60000);
		c2 = ext4_count(&lines2);
		/* Reparenting moves items, it neither loses nor makes any. */
		if (c1 != c2)
			fail("ext4 shrinker count %ld before rmdir, %ld after", c1, c2);
		/* Only the root's lists may hold them now. */
		if (lines2 > 1)
			fail("%d memcgs still count ext4 objects after offline", lines2);
		drop_caches();
		c3 = ext4_count(&lines3);
		/* Items stranded on a dead memcg's list would survive this. */
		if (c3)
			fail("%ld ext4 objects left after drop_caches", c3);
		printf("ROUND lists r=%d ext4_count=%ld (%d memcgs) -> %ld (%d memcgs) -> %ld after drop, dentry=%ld dying=%ld\n",
		       r, c1, lines1, c2, lines2, c3, slab_objs("dentry"), dying());
		fflush(stdout);
	}
	/* Delete everything: list_lru_del must find items where they moved. */
	if (system("rm -rf /mnt/ext/d* /mnt/m*/*"))
		fail("rm");
	drop_caches();
	printf("END lists dentry=%ld ext4_count=%ld\n", slab_objs("dentry"),
	       ext4_count(&lines1));
	return failures;
}

int main(int argc, char **argv)
{
	int m, n, r, ret;

	if (argc != 5) {
		fprintf(stderr, "usage: %s rmdir|lists M N R\n", argv[0]);
		return 2;
	}
	m = atoi(argv[2]);
	n = atoi(argv[3]);
	r = atoi(argv[4]);
	setup();
	if (!strcmp(argv[1], "rmdir"))
		ret = run_rmdir(m, n, r);
	else if (!strcmp(argv[1], "lists"))
		ret = run_lists(m, n, r);
	else
		return 2;
	printf("RESULT %s failures=%d\n", argv[1], ret);
	return ret ? 1 : 0;
}
