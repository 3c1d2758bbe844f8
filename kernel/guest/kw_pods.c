// SPDX-License-Identifier: GPL-2.0
/*
 * pods: seed 001's pod creation. A pod is a memory cgroup (with
 * cgroups_per_pod - 1 children: pause and app containers) plus its mounts
 * (default procfs and three tmpfs: /proc, /dev, /dev/shm, a scratch
 * volume; each a superblock, so a memcg-aware shrinker), made one pod after
 * another beside bg_cgroups cgroups and bg_mounts tmpfs mounts made first.
 * Boot with cgroup.memory=nokmem for the seed's case (the geometry's kmem
 * field says which it was): the per-memcg shrinker maps then serve only
 * the NONSLAB shrinkers, yet mainline grows them for every new superblock
 * over every memcg.
 *
 * Rows, in the lab's names where shrinklab's nonslab-2026-pods experiment
 * has the figure: pod_create_ns_total (all pods), pod_ns (one per pod),
 * pod_mount_ns (one per mount), registry_mutex_hold_ns_max (the longest
 * mount: the seed's "longest registration", the mount that holds
 * shrinker_mutex for the expansion), pod_mkdir_ns (the cgroups of one pod).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "kwork.h"

#define POD_CG KW_CG "/pods"
#define POD_MNT KW_MNT "/pods"
#define BG_CG KW_CG "/podbg"
#define BG_MNT KW_MNT "/podbg"
#define MAX_POD_MOUNTS 16

enum fskind { FS_TMPFS, FS_PROC };

static size_t parse_kinds(struct kw_exp *e, enum fskind *k)
{
	char buf[256], *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", kw_str(e, "mounts"));
	for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		if (n == MAX_POD_MOUNTS)
			die("pods: at most %d mounts per pod", MAX_POD_MOUNTS);
		if (!strcmp(t, "tmpfs"))
			k[n++] = FS_TMPFS;
		else if (!strcmp(t, "proc"))
			k[n++] = FS_PROC;
		else
			die("pods: mount kind %s is not tmpfs or proc", t);
	}
	return n;
}

static void bg_setup(unsigned long cgroups, unsigned long mounts)
{
	char path[256];

	kw_cg_make(BG_CG, true);
	say("pods: %lu background cgroups, %lu background mounts", cgroups, mounts);
	for (unsigned long i = 0; i < cgroups; i++) {
		snprintf(path, sizeof(path), BG_CG "/b%lu", i);
		kw_cg_make(path, false);
	}
	for (unsigned long i = 0; i < mounts; i++) {
		int err;

		snprintf(path, sizeof(path), BG_MNT "/m%lu", i);
		err = kw_mount_tmpfs(path, "size=1m,nr_inodes=64");
		if (err)
			die("mount %s: %s", path, strerror(-err));
	}
}

static void run_pods(struct kw_exp *e)
{
	unsigned long pods = kw_ul(e, "pods"), per = kw_ul(e, "cgroups_per_pod");
	unsigned long bgc = kw_ul(e, "bg_cgroups"), bgm = kw_ul(e, "bg_mounts");
	enum fskind kinds[MAX_POD_MOUNTS];
	size_t nk = parse_kinds(e, kinds), nm = 0;
	double *pod_ns, *mnt_ns, *mk_ns, total, maxm = 0;
	struct kscale sc;
	uint64_t t_all;
	long shr0;

	if (!pods || !per)
		die("pods: pods and cgroups_per_pod must be at least 1");
	pod_ns = calloc(pods, sizeof(*pod_ns));
	mk_ns = calloc(pods, sizeof(*mk_ns));
	mnt_ns = calloc(pods * (nk ? nk : 1), sizeof(*mnt_ns));
	if (!pod_ns || !mnt_ns || !mk_ns)
		die("out of memory");
	KW_PHASE("pods", bg_setup(bgc, bgm));
	kw_cg_make(POD_CG, true);
	shr0 = debugfs_shrinkers();
	say("pods: %lu pods of %lu cgroups and %zu mounts, %ld shrinkers registered", pods, per,
	    nk, shr0);
	t_all = now_ns();
	for (unsigned long p = 0; p < pods; p++) {
		char cg[256], path[320];
		uint64_t t0 = now_ns(), t1;

		snprintf(cg, sizeof(cg), POD_CG "/p%lu", p);
		kw_cg_make(cg, per > 1);
		for (unsigned long c = 1; c < per; c++) {
			snprintf(path, sizeof(path), "%s/c%lu", cg, c);
			kw_cg_make(path, false);
		}
		t1 = now_ns();
		mk_ns[p] = (double)(t1 - t0);
		for (size_t k = 0; k < nk; k++) {
			uint64_t m0;
			int err;

			snprintf(path, sizeof(path), POD_MNT "/p%lu/m%zu", p, k);
			kw_mkdir_p(path);
			m0 = now_ns();
			err = kinds[k] == FS_PROC ? (mount("proc", path, "proc", 0, NULL) ? -errno : 0)
						  : (mount("kw", path, "tmpfs", 0,
							   "size=1m,nr_inodes=64") ? -errno : 0);
			mnt_ns[nm] = (double)(now_ns() - m0);
			if (err)
				die("pods: mount %s: %s", path, strerror(-err));
			if (mnt_ns[nm] > maxm)
				maxm = mnt_ns[nm];
			nm++;
		}
		pod_ns[p] = (double)(now_ns() - t0);
		if ((p + 1) % 500 == 0)
			say("pods: %lu made", p + 1);
	}
	total = (double)(now_ns() - t_all);
	kjson_elapsed("pods", (uint64_t)total);
	kw_scale(&sc, bgm, bgc, "%lu pods made one after another, each %lu cgroup(s) and %zu "
		 "mounts (%s), beside %lu cgroups and %lu tmpfs mounts made first; %ld shrinkers "
		 "registered before the first pod; %s", pods, per, nk, kw_str(e, "mounts"), bgc,
		 bgm, shr0, kw_nokmem() ? "cgroup.memory=nokmem" : "kmem accounted");
	sc.host_shrinkers = shr0 > 0 ? (unsigned long)shr0 - bgm : 0;
	kw_row1("pods", "pod_create_ns_total", "ns", total, &sc);
	kw_row("pods", "pod_ns", "ns", pod_ns, pods, &sc);
	kw_row("pods", "pod_mkdir_ns", "ns", mk_ns, pods, &sc);
	if (nm) {
		kw_row("pods", "pod_mount_ns", "ns", mnt_ns, nm, &sc);
		kw_row1("pods", "registry_mutex_hold_ns_max", "ns", maxm, &sc);
	}
	say("pods: %lu pods in %.2f s, longest mount %.2f ms", pods, total / 1e9, maxm / 1e6);
	free(pod_ns);
	free(mnt_ns);
	free(mk_ns);
}

static struct kw_param pod_params[] = {
	{ "pods", "1000", "pods made one after another", NULL },
	{ "mounts", "proc+tmpfs+tmpfs+tmpfs", "each pod's mounts (tmpfs, proc), +-separated", NULL },
	{ "cgroups_per_pod", "1", "memory cgroups per pod (the pod's, then children)", NULL },
	{ "bg_cgroups", "0", "empty memory cgroups made before the first pod", NULL },
	{ "bg_mounts", "0", "tmpfs mounts made before the first pod", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_pods = {
	.name = "pods",
	.help = "seed 001: pods (a cgroup plus its mounts) made one after another",
	.params = pod_params,
	.run = run_pods,
};
