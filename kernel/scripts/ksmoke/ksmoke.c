// SPDX-License-Identifier: GPL-2.0
/*
 * ksmoke: guest smoke test for the shrinker series (run as the only job of a
 * QEMU guest, e.g. with `klab boot`).  Static, no dependencies.
 *
 *   ksmoke smoke  MOUNTS CGROUPS [ROUNDS]
 *       MOUNTS tmpfs mounts, CGROUPS empty memory cgroups (memory per empty
 *       cgroup from /proc/meminfo and /proc/slabinfo), drop_caches with
 *       them alive, 640 registrations with and without them, then cgroups
 *       that create files and dentries from inside, memory.reclaim,
 *       drop_caches, a concurrent stress phase (mount/umount, mkdir/rmdir,
 *       file creation, reclaim) for ROUNDS rounds, rmdir and umount.
 *   ksmoke reuse  ROUNDS
 *       the shrinker id reuse window: a procfs mount fills its dentry list
 *       in a memcg while drop_caches walks a stale bit of the same id (the
 *       window must be widened by a delay in the kernel to hit); at the end
 *       counts the dentries that reclaim cannot reach.
 *   ksmoke strand ROUNDS
 *       fills a memcg with dentries, reclaims, and counts what reclaim
 *       could not reach (0 expected).
 *
 * Output: "KSMOKE key value" lines on stdout.  Exit status 0 unless a check
 * failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
static int verbose;

static void out(const char *key, const char *fmt, ...)
{
	va_list ap;

	printf("KSMOKE %s ", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("KSMOKE FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	failures++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* kB value of a /proc/meminfo field */
static long meminfo(const char *field)
{
	char line[256];
	long v = -1;
	size_t len = strlen(field);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = atol(line + len + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

/* active objects of a slab cache, from /proc/slabinfo */
static long slab_objs(const char *cache)
{
	char line[512], name[64];
	long active = -1, v;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &v) == 2 && !strcmp(name, cache)) {
			active = v;
			break;
		}
	}
	fclose(f);
	return active;
}

static void settle(void)
{
	/* let RCU callbacks and deferred frees run */
	sync();
	usleep(300 * 1000);
}

struct snap {
	long sunreclaim, slab, k1k, k32, k16, k64, radix;
};

static void take(struct snap *s)
{
	settle();
	s->sunreclaim = meminfo("SUnreclaim");
	s->slab = meminfo("Slab");
	s->k1k = slab_objs("kmalloc-1k");
	s->k64 = slab_objs("kmalloc-64");
	s->k32 = slab_objs("kmalloc-32");
	s->k16 = slab_objs("kmalloc-16");
	s->radix = slab_objs("radix_tree_node");
}

static void per_cgroup(const char *tag, struct snap *a, struct snap *b, int n)
{
	char key[128];

	snprintf(key, sizeof(key), "%s.sunreclaim_bytes_per_cgroup", tag);
	out(key, "%.0f", (b->sunreclaim - a->sunreclaim) * 1024.0 / n);
	snprintf(key, sizeof(key), "%s.kmalloc1k_per_cgroup", tag);
	out(key, "%.2f", (double)(b->k1k - a->k1k) / n);
	snprintf(key, sizeof(key), "%s.kmalloc64_per_cgroup", tag);
	out(key, "%.2f", (double)(b->k64 - a->k64) / n);
	snprintf(key, sizeof(key), "%s.kmalloc32_per_cgroup", tag);
	out(key, "%.2f", (double)(b->k32 - a->k32) / n);
	snprintf(key, sizeof(key), "%s.kmalloc16_per_cgroup", tag);
	out(key, "%.2f", (double)(b->k16 - a->k16) / n);
	snprintf(key, sizeof(key), "%s.radix_tree_node_per_cgroup", tag);
	out(key, "%.2f", (double)(b->radix - a->radix) / n);
}

static int do_mount(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, type[0] == 't' ? "size=4m" : NULL)) {
		fail("mount %s %s: %s", type, dir, strerror(errno));
		return -1;
	}
	return 0;
}

static double mount_range(int from, int to)
{
	char dir[64];
	double t0 = now();

	for (int i = from; i < to; i++) {
		snprintf(dir, sizeof(dir), "/mnt/t/%d", i);
		do_mount("tmpfs", dir);
	}
	return now() - t0;
}

static void umount_range(int from, int to)
{
	char dir[64];

	for (int i = from; i < to; i++) {
		snprintf(dir, sizeof(dir), "/mnt/t/%d", i);
		if (umount2(dir, MNT_DETACH))
			fail("umount %s: %s", dir, strerror(errno));
		rmdir(dir);
	}
}

static double drop_caches(void)
{
	double t0 = now();

	if (write_file("/proc/sys/vm/drop_caches", "2"))
		fail("drop_caches: %s", strerror(errno));
	return now() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_drop_caches(int n)
{
	double t[16];

	for (int i = 0; i < n; i++)
		t[i] = drop_caches();
	qsort(t, n, sizeof(t[0]), cmp_double);
	return t[n / 2];
}

static int mkcg(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST) {
		fail("mkdir %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void rmcg(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s", name);
	/* a cgroup whose last task just exited may still be busy briefly */
	for (int i = 0; i < 100; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return;
		usleep(10 * 1000);
	}
	fail("rmdir %s: %s", path, strerror(errno));
}

static void enter_cg(const char *name)
{
	char path[128], pid[32];

	snprintf(path, sizeof(path), CG "/%s/cgroup.procs", name);
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (write_file(path, pid))
		_exit(3);
}

/* stat every entry of a directory tree, to a depth: dentries on an LRU */
static void walk(const char *dir, int depth)
{
	char path[512];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (depth < 0)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, depth - 1);
	}
	closedir(d);
}

/* from inside cgroup @name: files in tmpfs mounts, dentries in /proc and /sys */
static void fill_in_cgroup(const char *name, int first_mount, int nr_mounts,
			   const char *procdir)
{
	pid_t pid = fork();

	if (pid == 0) {
		char path[128];
		struct stat st;

		enter_cg(name);
		for (int i = first_mount; i < first_mount + nr_mounts; i++) {
			for (int j = 0; j < 4; j++) {
				snprintf(path, sizeof(path), "/mnt/t/%d/%s.%d", i, name, j);
				int fd = open(path, O_CREAT | O_WRONLY, 0644);

				if (fd >= 0) {
					if (write(fd, path, sizeof(path)) < 0)
						_exit(4);
					close(fd);
				}
			}
		}
		/* negative dentries of sysfs (kernfs keeps them on its LRU) */
		for (int j = 0; j < 200; j++) {
			snprintf(path, sizeof(path), "/sys/kernel/nonexistent-%s-%d", name, j);
			stat(path, &st);
		}
		if (procdir)
			walk(procdir, 2);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void memory_reclaim(const char *name, const char *amount)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s/memory.reclaim", name);
	/* EAGAIN when it cannot reclaim the amount: fine for a smoke test */
	write_file(path, amount);
}

/* --------------------------------------------------------------- stress */

static void stress_mounts(int rounds, int base)
{
	char dir[64];

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 16; i++) {
			snprintf(dir, sizeof(dir), "/mnt/s/%d", base + i);
			mkdir(dir, 0755);
			if (mount("tmpfs", dir, "tmpfs", 0, "size=1m"))
				_exit(5);
		}
		snprintf(dir, sizeof(dir), "/mnt/s/p%d", base);
		mkdir(dir, 0755);
		if (mount("proc", dir, "proc", 0, NULL))
			_exit(5);
		walk(dir, 1);
		umount2(dir, MNT_DETACH);
		for (int i = 0; i < 16; i++) {
			snprintf(dir, sizeof(dir), "/mnt/s/%d", base + i);
			umount2(dir, MNT_DETACH);
		}
	}
}

static void stress_cgroups(int rounds, int first_mount, int nr_mounts)
{
	char name[32];

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "s%d", i);
			if (mkcg(name))
				_exit(6);
			fill_in_cgroup(name, first_mount + (r * 8 + i) % nr_mounts, 2, NULL);
		}
		for (int i = 0; i < 8; i++) {
			snprintf(name, sizeof(name), "s%d", i);
			if (i & 1)
				memory_reclaim(name, "1M");
			rmcg(name);
		}
	}
}

static void stress_reclaim(int rounds)
{
	for (int r = 0; r < rounds * 4; r++) {
		drop_caches();
		memory_reclaim("w0", "2M");
		usleep(20 * 1000);
	}
}

static void stress(int rounds, int nr_mounts)
{
	pid_t pids[3];
	int status, bad = 0;

	mkdir("/mnt/s", 0755);
	for (int k = 0; k < 3; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			if (k == 0)
				stress_mounts(rounds, 0);
			else if (k == 1)
				stress_cgroups(rounds, 0, nr_mounts < 64 ? nr_mounts : 64);
			else
				stress_reclaim(rounds);
			_exit(0);
		}
	}
	for (int k = 0; k < 3; k++) {
		waitpid(pids[k], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fail("stress worker %d: status %#x", k, status);
			bad++;
		}
	}
	out("stress.rounds", "%d", rounds);
}

/* ---------------------------------------------------------------- smoke */

static int smoke(int nr_mounts, int nr_cgroups, int rounds)
{
	struct snap a, b, c, d;
	char name[32];
	double t, t_reg_alive, t_reg_none, dc0, dc1;
	const int reg = 640;

	mkdir("/mnt/t", 0755);
	write_file(CG "/cgroup.subtree_control", "+memory");

	t = mount_range(0, nr_mounts);
	out("mounts", "%d", nr_mounts);
	out("mount.seconds", "%.3f", t);

	/* registration crossing 10 unit boundaries (640 new ids), no cgroups */
	t_reg_none = mount_range(nr_mounts, nr_mounts + reg);
	out("register640.no_cgroups.seconds", "%.3f", t_reg_none);

	dc0 = median_drop_caches(5);

	take(&a);
	t = now();
	for (int i = 0; i < nr_cgroups; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		mkcg(name);
	}
	out("cgroups", "%d", nr_cgroups);
	out("mkdir.seconds", "%.3f", now() - t);
	take(&b);
	per_cgroup("empty", &a, &b, nr_cgroups);
	dc1 = median_drop_caches(5);
	out("drop_caches.0cg.median_ms", "%.2f", dc0 * 1e3);
	out("drop_caches.cgroups.median_ms", "%.2f", dc1 * 1e3);
	out("drop_caches.ratio", "%.2f", dc1 / dc0);

	/* the same, with the cgroups alive */
	t_reg_alive = mount_range(nr_mounts + reg, nr_mounts + 2 * reg);
	out("register640.cgroups_alive.seconds", "%.3f", t_reg_alive);
	out("register640.ratio", "%.2f", t_reg_alive / t_reg_none);

	/* workload cgroups: files, dentries */
	mkdir("/mnt/p", 0755);
	do_mount("proc", "/mnt/p");
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		mkcg(name);
		fill_in_cgroup(name, i * 8 % nr_mounts, 8, "/mnt/p/sys");
	}
	take(&c);
	out("workload.slab_kb", "%ld", c.slab);
	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		memory_reclaim(name, "4M");
	}
	drop_caches();
	take(&d);
	out("workload.after_reclaim.slab_kb", "%ld", d.slab);

	stress(rounds, nr_mounts);

	t = now();
	for (int i = 0; i < nr_cgroups; i++) {
		snprintf(name, sizeof(name), "e%d", i);
		rmcg(name);
	}
	out("rmdir.seconds", "%.3f", now() - t);

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		rmcg(name);
	}
	umount2("/mnt/p", MNT_DETACH);
	t = now();
	umount_range(0, nr_mounts + 2 * reg);
	out("umount.seconds", "%.3f", now() - t);

	/* high-water: a new empty cgroup after all mounts are gone */
	take(&a);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		mkcg(name);
	}
	take(&b);
	per_cgroup("after_umount", &a, &b, 200);
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		rmcg(name);
	}
	drop_caches();
	return 0;
}

/* ---------------------------------------------------------------- reuse */

/*
 * Per round: mount proc at A, fill its dentry LRU from cgroup "r" (this sets
 * the bit of A's id in r), umount A (the bit stays, stale).  Start a
 * drop_caches in a child: it walks r and stops on the stale bit (kernel
 * delay).  Meanwhile mount proc at B, which gets the id A had, and fill its
 * LRU from r (first object: list_lru_add sets the bit).  When the walk goes
 * on, it clears the bit unless the kernel rechecks.  Then drop_caches twice
 * and count B's dentries that remain in r, through B's debugfs count file.
 */
static long shrinker_count_of(const char *prefix, unsigned long ino)
{
	char path[512], line[512];
	long total = 0;
	struct dirent *de;
	DIR *d = opendir("/sys/kernel/debug/shrinker");

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		FILE *f;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/shrinker/%s/count", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *p = line;
			unsigned long cg = strtoul(p, &p, 10);

			if (cg != ino)
				continue;
			if (verbose)
				out("count", "%s %s", de->d_name, line);
			while (*p) {
				long v = strtol(p, &p, 10);

				total += v;
				while (*p == ' ' || *p == '\n')
					p++;
			}
		}
		fclose(f);
	}
	closedir(d);
	return total;
}

/*
 * drop_caches until the count of @prefix shrinkers in the memcg stops going
 * down (dentries go a level of the tree per pass); return what is left.
 */
static long reclaim_until_stuck(const char *name, unsigned long ino,
				const char *prefix)
{
	long left = shrinker_count_of(prefix, ino), prev;
	int pass = 0;

	do {
		prev = left;
		memory_reclaim(name, "16M");
		drop_caches();
		left = shrinker_count_of(prefix, ino);
		pass++;
	} while (left > 0 && (left < prev || pass < 3) && pass < 16);
	if (verbose)
		out("reclaim_passes", "%d left %ld", pass, left);
	return left;
}

static int reuse(int rounds, int with_walker)
{
	struct stat st;
	int stranded_rounds = 0;

	mkdir("/mnt/a", 0755);
	mkdir("/mnt/b", 0755);
	write_file(CG "/cgroup.subtree_control", "+memory");
	mkcg("r");
	if (stat(CG "/r", &st))
		return 1;

	for (int r = 0; r < rounds; r++) {
		pid_t walker, filler;
		long left;

		do_mount("proc", "/mnt/a");
		filler = fork();
		if (!filler) {
			enter_cg("r");
			walk("/mnt/a/sys", 2);
			_exit(0);
		}
		waitpid(filler, NULL, 0);
		umount2("/mnt/a", 0);

		walker = with_walker ? fork() : 1;
		if (!walker) {
			drop_caches();
			_exit(0);
		}
		usleep(50 * 1000);
		do_mount("proc", "/mnt/b");
		filler = fork();
		if (!filler) {
			enter_cg("r");
			walk("/mnt/b/sys", 2);
			_exit(0);
		}
		waitpid(filler, NULL, 0);
		if (with_walker)
			waitpid(walker, NULL, 0);

		left = reclaim_until_stuck("r", st.st_ino, "sb-proc");
		out("reuse.round_left", "%d %ld", r, left);
		if (left > 0)
			stranded_rounds++;
		umount2("/mnt/b", 0);
	}
	out("reuse.rounds", "%d", rounds);
	out("reuse.stranded_rounds", "%d", stranded_rounds);
	rmcg("r");
	return 0;
}

/*
 * Objects that reclaim cannot reach: fill cgroup "m" with procfs and sysfs
 * dentries, then drop_caches and memory.reclaim, and count what is left in
 * "m" on those superblocks' shrinkers (debugfs).  0 is expected; with a
 * kernel that loses bits, what lost its bit stays.
 */
static int strand(int rounds)
{
	struct stat st;
	int bad = 0;

	mkdir("/mnt/m", 0755);
	write_file(CG "/cgroup.subtree_control", "+memory");
	mkcg("m");
	if (stat(CG "/m", &st))
		return 1;
	for (int r = 0; r < rounds; r++) {
		long before, left;

		do_mount("proc", "/mnt/m");
		fill_in_cgroup("m", 0, 0, "/mnt/m/sys");
		before = shrinker_count_of("sb-proc", st.st_ino);
		left = reclaim_until_stuck("m", st.st_ino, "sb-proc");
		out("strand.round", "%d before %ld left %ld", r, before, left);
		if (before <= 0)
			fail("strand: round %d filled nothing", r);
		if (left > 0)
			bad++;
		umount2("/mnt/m", 0);
	}
	out("strand.rounds_with_objects_left", "%d", bad);
	if (bad)
		fail("strand: objects left after reclaim in %d rounds", bad);
	rmcg("m");
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	if (access(CG "/cgroup.controllers", F_OK))
		mount("cgroup2", CG, "cgroup2", 0, NULL);
	if (access("/sys/kernel/debug/shrinker", F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	out("cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (argc > 1 && !strcmp(argv[argc - 1], "-v")) {
		verbose = 1;
		argc--;
	}

	if (argc >= 4 && !strcmp(argv[1], "smoke"))
		ret = smoke(atoi(argv[2]), atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 10);
	else if (argc >= 3 && !strcmp(argv[1], "reuse"))
		ret = reuse(atoi(argv[2]), !(argc > 3 && !strcmp(argv[3], "nowalker")));
	else if (argc >= 3 && !strcmp(argv[1], "strand"))
		ret = strand(atoi(argv[2]));
	else
		fprintf(stderr, "usage: ksmoke smoke MOUNTS CGROUPS [ROUNDS] | reuse ROUNDS | strand ROUNDS\n");

	out("failures", "%d", failures);
	return ret ? ret : !!failures;
}
