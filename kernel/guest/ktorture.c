// SPDX-License-Identifier: GPL-2.0
/*
 * ktorture: a bounded guest torture of shrinker registration, memcg
 * creation and removal, list_lru reparenting and reclaim, for the debug
 * kernel (KASAN, lockdep, PROVE_RCU, DEBUG_LIST, slub_debug, kmemleak).
 *
 * W worker processes share S tmpfs mount slots and C memory-cgroup slots and
 * each does K random operations: mount or unmount a slot, mkdir or rmdir a
 * cgroup, move itself into a cgroup, create files in a mounted slot (their
 * inodes and dentries are charged to the worker's cgroup and land on that
 * cgroup's list_lru lists), delete them, look up missing names (negative
 * dentries), write memory.reclaim of a cgroup, and echo 2 > drop_caches.
 * Races between workers are the point: an operation that loses one (EBUSY,
 * ENOENT, EEXIST, ...) is counted, not an error; so is memory.reclaim's
 * EAGAIN when it found too little to reclaim (the walk itself ran).
 *
 * Two operations drive the memcg-aware shrinkers outside list_lru's
 * dentry and inode lists, in whatever cgroup the worker is in: "thp" faults
 * in a transparent huge page and unmaps half of it, so it goes on the
 * memcg's deferred-split queue (the bit-setting path under the queue's
 * spinlock; the deferred-split shrinker splits them when reclaim runs), and
 * "swap" faults in 512 KiB of anonymous memory and reclaims it from the
 * worker's cgroup, so it goes to zswap (zswap's own list_lru and shrinker;
 * every other cgroup slot has a small memory.zswap.max, so stores there
 * write back to the swap device). Each worker keeps its last few such
 * mappings, so cgroups go offline and are reclaimed with THPs queued and
 * pages in zswap. With --swap DEV (a disk klab attaches) zswap is switched
 * on; without it the swap operation is not run. The run fails when these
 * paths were meant to run and the kernel's counters (thp_deferred_split_page,
 * zswpout) show they never did.
 *
 * Then everything is torn down, the parent waits until no cgroup is
 * dying, and when kmemleak is there it scans twice and prints what it
 * found. The host checks the guest's dmesg; this program fails on an
 * unexpected errno and on a THP or zswap path that was never driven.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kutil.h"
#include "kwlib.h"

#define CG_T CG_ROOT "/kt"
#define MNT_T "/mnt/kt"

enum op { OP_MOUNT, OP_UMOUNT, OP_MKDIR, OP_RMDIR, OP_ENTER, OP_CREATE, OP_DELETE,
	  OP_LOOKUP, OP_RECLAIM, OP_DROP, OP_THP, OP_SWAP, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"mount", "umount", "mkdir", "rmdir", "enter", "create", "delete", "lookup",
	"reclaim", "drop_caches", "thp", "swap"
};
/* Relative weights; drop_caches is a whole-host pass: keep it rare. */
/* thp and swap fault in and reclaim memory: under KASAN on TCG they cost
 * most of a run's time (2026-12-01, debug mainline, 4 x 300 operations:
 * 941 s of guest time at weight 4 with two THPs and a MiB per operation). */
static unsigned int op_weight[NR_OPS] = { 10, 8, 10, 8, 10, 16, 10, 8, 6, 1, 1, 1 };

static unsigned int workers = 4, ops = 1000, mslots = 24, cslots = 24, files = 16;
static unsigned long seed = 1;
static const char *swapdev;
static bool thp_on;

#define THP_SIZE (2ul << 20)
#define THP_PER_OP 1
#define SWAP_BYTES (512ul << 10)
/* Mappings a worker keeps (THP and swap each) before it unmaps the oldest. */
#define KEPT 4

struct kept {
	void *thp[KEPT], *anon[KEPT];
	unsigned int next_thp, next_anon;
};
static struct kept kept;

struct counts {
	unsigned long done[NR_OPS], lost[NR_OPS], bad;
};

static unsigned long rnd(unsigned long *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (*s * 2685821657736338717ull) >> 11;
}

static bool expected_errno(int e)
{
	switch (e) {
	case EEXIST: case ENOENT: case EBUSY: case EINVAL: case ENODEV: case EAGAIN:
	case ENOTEMPTY: case ENOSPC: case EINTR: case ESTALE: case ENOTDIR:
		return true;
	}
	return false;
}

static void home(unsigned int w)
{
	char path[128];

	snprintf(path, sizeof(path), CG_T "/home%u/cgroup.procs", w);
	write_str(path, "0");
}

/* The worker's own cgroup's @file, from /proc/self/cgroup ("0::/kt/c3"). */
static int own_cgroup_file(const char *file, char *path, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/cgroup", "r");
	int err = ENOENT, n;

	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		n = snprintf(path, len, CG_ROOT "%s/%s", line + 3, file);
		err = n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
		break;
	}
	fclose(f);
	return err;
}

/* Replace kept mapping @slot (unmapping what it held) with @p of @len. */
static void keep(void **slot, void *p, size_t len)
{
	if (*slot)
		munmap(*slot, len);
	*slot = p;
}

/*
 * THP_PER_OP huge pages in the worker's cgroup, half of each unmapped, so
 * each is queued for a deferred split (thp_deferred_split_page). The map is
 * aligned by hand: one huge page more is mapped and the ends trimmed.
 */
static int op_thp(void)
{
	size_t len = THP_PER_OP * THP_SIZE;
	char *raw, *p;
	int err = 0;

	raw = mmap(NULL, len + THP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (raw == MAP_FAILED)
		return errno;
	p = (char *)(((unsigned long)raw + THP_SIZE - 1) & ~(THP_SIZE - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (p + len < raw + len + THP_SIZE)
		munmap(p + len, (size_t)(raw + len + THP_SIZE - (p + len)));
	if (madvise(p, len, MADV_HUGEPAGE))
		err = errno;
	for (size_t i = 0; !err && i < len; i += 4096)
		p[i] = (char)i;
	for (unsigned int i = 0; !err && i < THP_PER_OP; i++)
		if (madvise(p + i * THP_SIZE + THP_SIZE / 2, THP_SIZE / 2, MADV_DONTNEED))
			err = errno;
	if (err) {
		munmap(p, len);
		return err;
	}
	keep(&kept.thp[kept.next_thp++ % KEPT], p, len);
	return 0;
}

/*
 * SWAP_BYTES of anonymous memory (no THP), filled so it compresses, then
 * reclaimed from the worker's cgroup: its pages go to zswap (zswpout), and
 * past the cgroup's memory.zswap.max back out to the swap device (zswpwb).
 * memory.reclaim's EAGAIN (it reclaimed less than asked) is a lost race.
 */
static int op_swap(unsigned long *rs)
{
	char path[200];
	char *p;
	int err;

	p = mmap(NULL, SWAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return errno;
	madvise(p, SWAP_BYTES, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < SWAP_BYTES; i += 64)
		p[i] = (char)(rnd(rs) & 7);
	keep(&kept.anon[kept.next_anon++ % KEPT], p, SWAP_BYTES);
	err = own_cgroup_file("memory.reclaim", path, sizeof(path));
	if (!err)
		err = -write_str(path, "1M");
	/* Touch an older mapping again: its pages come back from zswap. */
	p = kept.anon[rnd(rs) % KEPT];
	for (size_t i = 0; p && i < SWAP_BYTES; i += 4096)
		p[i]++;
	return err;
}

/* One operation; returns 0, or the errno it met. */
static int do_op(enum op op, unsigned int w, unsigned long *rs)
{
	unsigned int m = (unsigned int)(rnd(rs) % mslots), c = (unsigned int)(rnd(rs) % cslots);
	char path[160], name[200];
	int err = 0;

	switch (op) {
	case OP_MOUNT:
		snprintf(path, sizeof(path), MNT_T "/m%u", m);
		if (mount("kt", path, "tmpfs", 0, "size=4m,nr_inodes=256"))
			err = errno;
		break;
	case OP_UMOUNT:
		snprintf(path, sizeof(path), MNT_T "/m%u", m);
		if (umount(path))
			err = errno;
		break;
	case OP_MKDIR:
		snprintf(path, sizeof(path), CG_T "/c%u", c);
		if (mkdir(path, 0755)) {
			err = errno;
			break;
		}
		/* Odd slots: a small zswap limit, so stores there write back. */
		snprintf(path, sizeof(path), CG_T "/c%u/memory.zswap.max", c);
		if (swapdev && (c & 1))
			write_str(path, "256K");
		break;
	case OP_RMDIR:
		home(w); /* never rmdir the cgroup we are in */
		snprintf(path, sizeof(path), CG_T "/c%u", c);
		if (rmdir(path))
			err = errno;
		break;
	case OP_ENTER:
		snprintf(path, sizeof(path), CG_T "/c%u/cgroup.procs", c);
		err = -write_str(path, "0");
		break;
	case OP_CREATE:
		for (unsigned int i = 0; i < files && !err; i++) {
			int fd;

			snprintf(name, sizeof(name), MNT_T "/m%u/w%u-%u", m, w, i);
			fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
			if (fd < 0) {
				err = errno;
				break;
			}
			if (write(fd, name, strlen(name)) < 0)
				err = errno;
			close(fd);
		}
		break;
	case OP_DELETE:
		for (unsigned int i = 0; i < files; i++) {
			snprintf(name, sizeof(name), MNT_T "/m%u/w%u-%u", m, w, i);
			if (unlink(name) && errno != ENOENT) {
				err = errno;
				break;
			}
		}
		break;
	case OP_LOOKUP:
		for (unsigned int i = 0; i < files; i++) {
			struct stat st;

			snprintf(name, sizeof(name), MNT_T "/m%u/missing-%u-%lu", m, w,
				 rnd(rs) % 1000);
			stat(name, &st);
		}
		break;
	case OP_RECLAIM:
		/* Slot 0 means the parent: reclaim over all the children. */
		if (c)
			snprintf(path, sizeof(path), CG_T "/c%u/memory.reclaim", c);
		else
			snprintf(path, sizeof(path), CG_T "/memory.reclaim");
		err = -write_str(path, "1M");
		break;
	case OP_DROP:
		drop_caches(2);
		break;
	case OP_THP:
		err = op_thp();
		break;
	case OP_SWAP:
		err = op_swap(rs);
		break;
	default:
		break;
	}
	return err;
}

static enum op pick(unsigned long *rs)
{
	unsigned int total = 0, x;

	for (int i = 0; i < NR_OPS; i++)
		total += op_weight[i];
	x = (unsigned int)(rnd(rs) % total);
	for (int i = 0; i < NR_OPS; i++) {
		if (x < op_weight[i])
			return (enum op)i;
		x -= op_weight[i];
	}
	return OP_LOOKUP;
}

static void worker(unsigned int w, int fd)
{
	unsigned long rs = seed * 0x9e3779b97f4a7c15ull + w + 1;
	struct counts ct = { 0 };

	for (unsigned int i = 0; i < ops; i++) {
		enum op op = pick(&rs);
		int err = do_op(op, w, &rs);

		if (!err) {
			ct.done[op]++;
		} else if (expected_errno(err)) {
			ct.lost[op]++;
		} else {
			ct.bad++;
			fprintf(stderr, "ktorture: worker %u: %s: %s\n", w, op_name[op],
				strerror(err));
		}
	}
	for (unsigned int i = 0; i < KEPT; i++) {
		keep(&kept.thp[i], NULL, THP_PER_OP * THP_SIZE);
		keep(&kept.anon[i], NULL, SWAP_BYTES);
	}
	home(w);
	if (write(fd, &ct, sizeof(ct)) != (ssize_t)sizeof(ct))
		_exit(3);
	_exit(0);
}

static void teardown(void)
{
	char path[160];

	write_str(CG_ROOT "/cgroup.procs", "0");
	for (unsigned int m = 0; m < mslots; m++) {
		snprintf(path, sizeof(path), MNT_T "/m%u", m);
		while (!umount(path))
			;
		/*
		 * Files created while the slot had no mount live in the root
		 * filesystem (itself a tmpfs) and pin their cgroups: delete.
		 */
		for (unsigned int w = 0; w < workers; w++)
			for (unsigned int i = 0; i < files; i++) {
				char name[200];

				snprintf(name, sizeof(name), "%s/w%u-%u", path, w, i);
				unlink(name);
			}
	}
	for (unsigned int c = 0; c < cslots; c++) {
		snprintf(path, sizeof(path), CG_T "/c%u", c);
		rmdir(path);
	}
	for (unsigned int w = 0; w < workers; w++) {
		snprintf(path, sizeof(path), CG_T "/home%u", w);
		rmdir(path);
	}
	drop_caches(2);
	/*
	 * A swap entry pins the id (and so the css) of the cgroup it was
	 * charged to until it is freed, and the entries the workers' exits
	 * gave back wait in the per-CPU swap slot caches for a batch: with
	 * no memory left in them, three cgroups stayed dying for 20 minutes
	 * on mainline. swapoff drains those caches and frees every entry.
	 */
	if (swapdev && swapoff(swapdev))
		die("swapoff %s: %s", swapdev, strerror(errno));
	say("ktorture: mounts and cgroups removed; waiting for dying cgroups");
	cg_wait_released(CG_T, 1800);
	if (rmdir(CG_T))
		die("rmdir " CG_T ": %s", strerror(errno));
	cg_wait_released(CG_ROOT, 1800);
}

/* THP on madvise and zswap on (with --swap); the operations that cannot
 * run here get weight 0 and say why. */
static void setup_thp_and_zswap(void)
{
	int err;

	thp_on = !write_str("/sys/kernel/mm/transparent_hugepage/enabled", "madvise");
	if (!thp_on) {
		op_weight[OP_THP] = 0;
		say("ktorture: no THP in this kernel: the thp operation is off");
	}
	if (!swapdev) {
		op_weight[OP_SWAP] = 0;
		say("ktorture: no --swap device: the swap (zswap) operation is off");
		return;
	}
	err = write_str("/sys/module/zswap/parameters/enabled", "Y");
	if (err)
		die("zswap: enabling it: %s (the lab config has CONFIG_ZSWAP)", strerror(-err));
	write_str("/sys/module/zswap/parameters/shrinker_enabled", "Y");
	err = kw_swap_on(swapdev);
	if (err)
		die("swapon %s: %s", swapdev, strerror(-err));
}

struct kcounters {
	long long deferred, split, zswpout, zswpin, zswpwb;
};

static void read_counters(struct kcounters *k)
{
	k->deferred = kw_vmstat("thp_deferred_split_page");
	k->split = kw_vmstat("thp_split_page");
	k->zswpout = kw_vmstat("zswpout");
	k->zswpin = kw_vmstat("zswpin");
	k->zswpwb = kw_vmstat("zswpwb");
}

/* Print what the thp and swap operations drove; 1 when an operation ran
 * and its kernel path never did. */
static int report_driven(const struct kcounters *a, const struct kcounters *b,
			 const struct counts *t)
{
	int bad = 0;

	printf("  THP: %lld queued for deferred split, %lld split; zswap: %lld stored, "
	       "%lld loaded, %lld written back\n", b->deferred - a->deferred,
	       b->split - a->split, b->zswpout - a->zswpout, b->zswpin - a->zswpin,
	       b->zswpwb - a->zswpwb);
	if (t->done[OP_THP] && b->deferred - a->deferred <= 0) {
		printf("ktorture: %lu thp operations queued no THP for a deferred split\n",
		       t->done[OP_THP]);
		bad = 1;
	}
	if (t->done[OP_SWAP] + t->lost[OP_SWAP] && b->zswpout - a->zswpout <= 0) {
		printf("ktorture: %lu swap operations stored nothing in zswap\n",
		       t->done[OP_SWAP] + t->lost[OP_SWAP]);
		bad = 1;
	}
	return bad;
}

/* kmemleak: two scans (objects younger than 5 s are not reported). */
static int kmemleak_report(void)
{
	const char *kl = "/sys/kernel/debug/kmemleak";
	char buf[4096];
	size_t n, total = 0;
	FILE *f;

	if (access(kl, F_OK))
		return 0;
	for (int i = 0; i < 2; i++) {
		sleep(6);
		if (write_str(kl, "scan"))
			return 0; /* kmemleak disabled itself (e.g. out of pool) */
	}
	f = fopen(kl, "r");
	if (!f)
		return 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		fwrite(buf, 1, n, stdout);
		total += n;
	}
	fclose(f);
	printf("kmemleak: %zu bytes of report\n", total);
	return total > 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "workers", 1, 0, 'w' }, { "ops", 1, 0, 'o' }, { "mounts", 1, 0, 'm' },
		{ "cgroups", 1, 0, 'c' }, { "files", 1, 0, 'f' }, { "seed", 1, 0, 's' },
		{ "swap", 1, 0, 'S' }, { 0, 0, 0, 0 }
	};
	struct kcounters before, after;
	struct counts total = { 0 };
	int opt, pfd[2], bad = 0;
	char path[160];
	uint64_t t0;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'w': workers = (unsigned int)atoi(optarg); break;
		case 'o': ops = (unsigned int)atoi(optarg); break;
		case 'm': mslots = (unsigned int)atoi(optarg); break;
		case 'c': cslots = (unsigned int)atoi(optarg); break;
		case 'f': files = (unsigned int)atoi(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'S': swapdev = optarg; break;
		default:
			fputs("usage: ktorture [--workers W] [--ops K] [--mounts S] [--cgroups C] "
			      "[--files F] [--seed N] [--swap DEV]\n", stderr);
			return 2;
		}
	}
	if (!workers || workers > 64 || !mslots || !cslots || !ops)
		die("bad arguments");
	cg_enable_memory(CG_ROOT);
	if (mkdir(CG_T, 0755) && errno != EEXIST)
		die("mkdir " CG_T ": %s", strerror(errno));
	cg_enable_memory(CG_T);
	for (unsigned int w = 0; w < workers; w++) {
		snprintf(path, sizeof(path), CG_T "/home%u", w);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
	mkdir("/mnt", 0755);
	mkdir(MNT_T, 0755);
	for (unsigned int m = 0; m < mslots; m++) {
		snprintf(path, sizeof(path), MNT_T "/m%u", m);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
	setup_thp_and_zswap();
	read_counters(&before);
	if (pipe(pfd))
		die("pipe: %s", strerror(errno));
	say("ktorture: seed %lu, %u workers x %u ops, %u mount slots, %u cgroup slots",
	    seed, workers, ops, mslots, cslots);
	t0 = now_ns();
	for (unsigned int w = 0; w < workers; w++) {
		pid_t p = fork();

		if (p < 0)
			die("fork: %s", strerror(errno));
		if (!p) {
			close(pfd[0]);
			home(w);
			worker(w, pfd[1]);
		}
	}
	close(pfd[1]);
	for (unsigned int w = 0; w < workers; w++) {
		struct counts ct;

		if (read(pfd[0], &ct, sizeof(ct)) != (ssize_t)sizeof(ct)) {
			bad = 1;
			continue;
		}
		for (int i = 0; i < NR_OPS; i++) {
			total.done[i] += ct.done[i];
			total.lost[i] += ct.lost[i];
		}
		total.bad += ct.bad;
	}
	while (wait(NULL) > 0)
		;
	say("ktorture: workers done in %.1f s; tearing down", (double)(now_ns() - t0) / 1e9);
	teardown();
	read_counters(&after);
	printf("ktorture: seed %lu, %u workers x %u ops in %.1f s\n", seed, workers, ops,
	       (double)(now_ns() - t0) / 1e9);
	for (int i = 0; i < NR_OPS; i++)
		printf("  %-12s %6lu done, %6lu ended in an expected errno\n", op_name[i],
		       total.done[i], total.lost[i]);
	printf("  unexpected errors: %lu\n", total.bad);
	if (report_driven(&before, &after, &total))
		bad = 1;
	if (kmemleak_report())
		bad = 1;
	return bad || total.bad ? 1 : 0;
}
