// SPDX-License-Identifier: GPL-2.0
/*
 * tar: the multi-cgroup tar test of small files that Kairui Song's
 * list_lru rework (6.13, "mm/list_lru: Split list_lru lock into
 * per-cgroup scope") was measured with ("~15% performance gain for simple
 * multi-cgroup tar test of small files"; the posting gives no script, so
 * this is our reading of it): `cgroups` memory cgroups, each limited to
 * limit_mib, extract one archive of small files at once, each into its
 * own directory of one shared ext4 filesystem. Every cgroup's dentries,
 * inodes and page cache land on the same superblock's list_lrus, and each
 * cgroup's limit makes it reclaim its own share of them while the others
 * add theirs: memcg slab shrinking of one superblock from many cgroups at
 * once.
 *
 * The archive (ustar, made by the host: kernel/py/klab/workloads.py) is
 * extracted by busybox tar, the guest's own. Per round (a new directory
 * per cgroup and round): the round's wall time, the extractors' CPU time,
 * pgscan and pgsteal of the cgroups' parent, slabs_scanned and kswapd's
 * CPU time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kwork.h"

#define EXP "tar"
#define TAR_CG KW_CG "/tar"
#define TAR_MNT KW_MNT "/tar"
#define MAX_TAR_CG 256

struct tar_job {
	const char *bin, *archive;
	char dir[256];
};

static int tar_child(void *arg)
{
	const struct tar_job *j = arg;

	execl(j->bin, j->bin, "tar", "-xf", j->archive, "-C", j->dir, NULL);
	return 127;
}

static void run_tar(struct kw_exp *e)
{
	unsigned long n = kw_ul(e, "cgroups"), limit = kw_ul(e, "limit_mib");
	unsigned long rounds = kw_ul(e, "rounds");
	const char *disk = kw_str(e, "disk");
	struct tar_job job = { .bin = kw_str(e, "busybox"), .archive = kw_str(e, "archive") };
	double *wall, *cpu, *scan, *steal, *slabs, *ksw;
	pid_t pid[MAX_TAR_CG];
	struct kscale sc;
	char path[256], lim[32];
	int err;

	if (!n || n > MAX_TAR_CG || !limit || !rounds)
		die("tar: 1 <= cgroups <= %d, limit_mib and rounds >= 1", MAX_TAR_CG);
	if (access(job.archive, R_OK) || access(job.bin, X_OK))
		die("tar: %s or %s: %s (the host puts the archive in the guest)", job.archive,
		    job.bin, strerror(errno));
	err = kw_mount_ext4(disk, TAR_MNT);
	if (err)
		die("tar: mount %s: %s", disk, strerror(-err));
	kw_cg_make(TAR_CG, true);
	snprintf(lim, sizeof(lim), "%lu", limit << 20);
	for (unsigned long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), TAR_CG "/t%lu", i);
		kw_cg_make(path, false);
		if (kw_cg_write(path, "memory.max", lim))
			die("tar: memory.max of %s", path);
	}
	wall = calloc(rounds * 6, sizeof(double));
	if (!wall)
		die("out of memory");
	cpu = wall + rounds;
	scan = cpu + rounds;
	steal = scan + rounds;
	slabs = steal + rounds;
	ksw = slabs + rounds;
	for (unsigned long r = 0; r < rounds; r++) {
		long long scan0 = kw_cg_stat(TAR_CG, NULL, "pgscan");
		long long steal0 = kw_cg_stat(TAR_CG, NULL, "pgsteal");
		long long slabs0 = kw_vmstat("slabs_scanned");
		uint64_t k0 = kw_kswapd_cpu_ns(NULL), t0, sum = 0;

		for (unsigned long i = 0; i < n; i++) {
			snprintf(path, sizeof(path), TAR_MNT "/r%lu/t%lu", r, i);
			kw_mkdir_p(path);
		}
		sync();
		t0 = now_ns();
		for (unsigned long i = 0; i < n; i++) {
			char cg[128];

			snprintf(cg, sizeof(cg), TAR_CG "/t%lu", i);
			snprintf(job.dir, sizeof(job.dir), TAR_MNT "/r%lu/t%lu", r, i);
			pid[i] = kw_spawn_in_cgroup(cg, tar_child, &job);
		}
		for (unsigned long i = 0; i < n; i++) {
			uint64_t c = 0;
			int st = kw_wait(pid[i], &c);

			if (st)
				die("tar: round %lu: the extractor in t%lu exited %d", r, i, st);
			sum += c;
		}
		wall[r] = (double)(now_ns() - t0);
		cpu[r] = (double)sum;
		scan[r] = (double)(kw_cg_stat(TAR_CG, NULL, "pgscan") - scan0);
		steal[r] = (double)(kw_cg_stat(TAR_CG, NULL, "pgsteal") - steal0);
		slabs[r] = (double)(kw_vmstat("slabs_scanned") - slabs0);
		ksw[r] = (double)(kw_kswapd_cpu_ns(NULL) - k0);
		kjson_elapsed(EXP, (uint64_t)wall[r]);
		say("tar: round %lu: %lu extractions in %.2f s (%.2f s CPU), %.0f pages scanned, "
		    "%.0f slab objects scanned", r, n, wall[r] / 1e9, cpu[r] / 1e9, scan[r],
		    slabs[r]);
	}
	kw_scale(&sc, 1, n, "%lu memory cgroups limited to %lu MiB each extract %s at once "
		 "(busybox tar), each into its own directory of one ext4 on %s; %lu rounds, a "
		 "new directory each", n, limit, job.archive, disk, rounds);
	kw_row(EXP, "tar_round_ns", "ns", wall, rounds, &sc);
	kw_row(EXP, "tar_cpu_ns", "ns", cpu, rounds, &sc);
	kw_row(EXP, "tar_pgscan", "count", scan, rounds, &sc);
	kw_row(EXP, "tar_pgsteal", "count", steal, rounds, &sc);
	kw_row(EXP, "tar_slabs_scanned", "count", slabs, rounds, &sc);
	kw_row(EXP, "tar_kswapd_cpu_ns", "ns", ksw, rounds, &sc);
	free(wall);
}

static struct kw_param tar_params[] = {
	{ "cgroups", "16", "memory cgroups extracting at once", NULL },
	{ "limit_mib", "16", "each cgroup's memory.max, MiB", NULL },
	{ "rounds", "3", "rounds (samples), each into new directories", NULL },
	{ "archive", "/klab/small.tar", "the archive of small files (the host makes it)", NULL },
	{ "busybox", "/bin/busybox", "busybox, whose tar extracts", NULL },
	{ "disk", "/dev/vda", "the shared ext4 disk", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_tar = {
	.name = "tar",
	.help = "Kairui Song's multi-cgroup tar of small files: limited memcgs extracting at "
		"once onto one ext4",
	.params = tar_params,
	.run = run_tar,
};
