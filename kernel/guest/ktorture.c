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
 * EAGAIN when it found too little to reclaim (the walk itself ran). Then everything is torn
 * down, the parent waits until no cgroup is dying, and when kmemleak is
 * there it scans twice and prints what it found. The host checks the
 * guest's dmesg; this program fails only on an unexpected errno.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kutil.h"

#define CG_T CG_ROOT "/kt"
#define MNT_T "/mnt/kt"

enum op { OP_MOUNT, OP_UMOUNT, OP_MKDIR, OP_RMDIR, OP_ENTER, OP_CREATE, OP_DELETE,
	  OP_LOOKUP, OP_RECLAIM, OP_DROP, NR_OPS };
static const char *const op_name[NR_OPS] = {
	"mount", "umount", "mkdir", "rmdir", "enter", "create", "delete", "lookup",
	"reclaim", "drop_caches"
};
/* Relative weights; drop_caches is a whole-host pass: keep it rare. */
static const unsigned int op_weight[NR_OPS] = { 10, 8, 10, 8, 10, 16, 10, 8, 6, 1 };

static unsigned int workers = 4, ops = 1000, mslots = 24, cslots = 24, files = 16;
static unsigned long seed = 1;

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
		if (mkdir(path, 0755))
			err = errno;
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
	say("ktorture: mounts and cgroups removed; waiting for dying cgroups");
	cg_wait_released(CG_T, 1800);
	if (rmdir(CG_T))
		die("rmdir " CG_T ": %s", strerror(errno));
	cg_wait_released(CG_ROOT, 1800);
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
		{ 0, 0, 0, 0 }
	};
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
		default:
			fputs("usage: ktorture [--workers W] [--ops K] [--mounts S] [--cgroups C] "
			      "[--files F] [--seed N]\n", stderr);
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
	printf("ktorture: seed %lu, %u workers x %u ops in %.1f s\n", seed, workers, ops,
	       (double)(now_ns() - t0) / 1e9);
	for (int i = 0; i < NR_OPS; i++)
		printf("  %-12s %6lu done, %6lu ended in an expected errno\n", op_name[i],
		       total.done[i], total.lost[i]);
	printf("  unexpected errors: %lu\n", total.bad);
	if (kmemleak_report())
		bad = 1;
	return bad || total.bad ? 1 : 0;
}
