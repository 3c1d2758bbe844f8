/* SPDX-License-Identifier: MIT */
/*
 * Benches (bench.h): one host of one design configuration carrying the
 * superblock workload, and the memory-budget fit of cgroups across benches.
 *
 * Single-threaded: the lab drives every bench from the main thread, which
 * main.c registered with the library. A bench owns everything it created
 * and lab_bench_close() returns it all (umount, rmdir, deferred frees, host
 * destroy), so consecutive experiments do not add up in memory.
 *
 * A cgroup of a bench is the library's memory cgroup and the rest of a
 * kernel memcg beside it (memcg_body.h: the slab the kernel lab measured
 * for an empty memcg beyond the shrinker bookkeeping), allocated from the
 * host's slab allocator at mkdir and freed at rmdir.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "bench.h"
#include "design_label.h"
#include "stats.h"

/* Grow an array of pointers to hold @need entries. */
static int reserve(void ***v, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 64;
	void **nv;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	nv = realloc(*v, c * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

int lab_bench_open(struct lab_bench *b, const struct lab_design *d, const struct lab_scale *s)
{
	struct shr_slab_params sp = { 0 };
	struct shr_host_params p;
	int ret;

	memset(b, 0, sizeof(*b));
	b->cfg = *d;
	b->used = *s;
	lab_design_label(d, b->label, sizeof(b->label));
	lab_design_host_params(d, s, &p);
	if (shr_host_params_check(&p, &b->why))
		return -EINVAL;
	/* Our own allocator, prefaulted: a timed section never pays a
	 * first-touch page fault, whose cost here grows with the size of the
	 * whole process (other benches' hosts) and would be charged to
	 * whichever design happened to need a fresh page. */
	sp.nr_nodes = s->nodes;
	sp.geometry_cpus = s->cpus;
	sp.prefault = true;
	ret = shr_slab_allocator_create(&sp, &b->slab);
	if (ret) {
		b->why = "slab allocator creation failed";
		return ret;
	}
	p.slab = b->slab;
	ret = shr_host_create(&p, &b->host);
	if (ret) {
		b->why = "host creation failed";
		shr_slab_allocator_destroy(b->slab);
		b->slab = NULL;
		return ret;
	}
	ret = sb_fs_init(&b->fs, b->host);
	if (ret) {
		b->why = "cache creation failed";
		(void)shr_host_destroy(b->host);
		b->host = NULL;
		shr_slab_allocator_destroy(b->slab);
		b->slab = NULL;
		return ret;
	}
	b->fs_ready = true;
	b->fs.no_root_bits = d->no_root_bits;
	/* The host's own memcg-aware shrinkers (root file systems, caches of
	 * other subsystems): empty mounts that take the lowest ids and stay. */
	if (s->host_shrinkers) {
		b->host_sbs = calloc(s->host_shrinkers, sizeof(*b->host_sbs));
		if (!b->host_sbs) {
			b->why = "out of memory";
			lab_bench_close(b);
			b->why = "out of memory";
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < s->host_shrinkers; i++) {
		ret = sb_mount(&b->fs, "hostfs", &b->host_sbs[b->nr_host_sbs]);
		if (ret) {
			lab_bench_close(b);
			b->why = "host shrinkers could not be registered";
			return ret;
		}
		b->nr_host_sbs++;
	}
	b->ids_hw = b->nr_host_sbs;
	return 0;
}

bool lab_bench_ok(const struct lab_bench *b)
{
	return b->host && !b->why;
}

int lab_bench_mount(struct lab_bench *b, unsigned long n)
{
	int ret = reserve((void ***)&b->sbs, &b->cap_sbs, b->nr_sbs + n);

	for (unsigned long i = 0; !ret && i < n; i++) {
		ret = sb_mount(&b->fs, "tmpfs", &b->sbs[b->nr_sbs]);
		if (!ret)
			b->nr_sbs++;
	}
	if (b->nr_host_sbs + b->nr_sbs > b->ids_hw)
		b->ids_hw = b->nr_host_sbs + b->nr_sbs;
	return ret;
}

void lab_bench_umount(struct lab_bench *b, unsigned long n)
{
	while (n-- && b->nr_sbs)
		sb_umount(b->sbs[--b->nr_sbs]);
}

/* Room for @need bodies (zeroed beyond the cgroups). */
static int reserve_bodies(struct lab_bench *b, size_t need)
{
	size_t c = b->cap_bodies ? b->cap_bodies : 64;
	struct lab_memcg_body *nv;

	if (need <= b->cap_bodies)
		return 0;
	while (c < need)
		c *= 2;
	nv = realloc(b->bodies, c * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	memset(nv + b->cap_bodies, 0, (c - b->cap_bodies) * sizeof(*nv));
	b->bodies = nv;
	b->cap_bodies = c;
	return 0;
}

int lab_bench_mkcg(struct lab_bench *b, unsigned long n)
{
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(b->host);
	int ret = reserve((void ***)&b->cgs, &b->cap_cgs, b->nr_cgs + n);

	if (!ret)
		ret = reserve_bodies(b, b->nr_cgs + n);
	for (unsigned long i = 0; !ret && i < n; i++) {
		struct lab_memcg_body *body = &b->bodies[b->nr_cgs];

		ret = shr_mem_cgroup_create(root, &b->cgs[b->nr_cgs]);
		if (ret)
			break;
		ret = lab_memcg_body_alloc(b->slab, b->used.nodes, b->used.cpus, body);
		if (ret) {
			(void)shr_mem_cgroup_offline(b->cgs[b->nr_cgs]);
			break;
		}
		b->nr_cgs++;
	}
	return ret;
}

int lab_bench_rmcg(struct lab_bench *b, unsigned long n)
{
	int ret = 0;

	while (n-- && b->nr_cgs && !ret) {
		ret = shr_mem_cgroup_offline(b->cgs[--b->nr_cgs]);
		lab_memcg_body_free(b->slab, &b->bodies[b->nr_cgs]);
	}
	return ret;
}

int lab_bench_file(struct lab_bench *b, size_t sb, size_t cg, int nid)
{
	if (sb >= b->nr_sbs || cg >= b->nr_cgs)
		return -EINVAL;
	return sb_create_file(b->sbs[sb], b->cgs[cg], nid);
}

int lab_bench_tmpfs_file(struct lab_bench *b, size_t sb, size_t cg)
{
	int ret;

	if (sb >= b->nr_sbs || cg >= b->nr_cgs)
		return -EINVAL;
	ret = shr_memcg_list_lru_alloc(b->cgs[cg], b->sbs[sb]->dentry_lru, SHR_GFP_KERNEL);
	if (ret)
		return ret;
	return shr_memcg_list_lru_alloc(b->cgs[cg], b->sbs[sb]->inode_lru, SHR_GFP_KERNEL);
}

unsigned long lab_bench_sunreclaim(struct lab_bench *b)
{
	shr_rcu_barrier();
	return shr_slab_unreclaimable_bytes(shr_host_slab(b->host));
}

int lab_bench_walk(struct lab_bench *b, int priority, uint64_t *ns)
{
	int nodes = shr_host_nr_nodes(b->host);
	uint64_t t0 = lab_now_ns();

	for (size_t i = 0; i < b->nr_cgs; i++) {
		for (int nid = 0; nid < nodes; nid++) {
			unsigned long freed;
			int ret = shr_shrink_slab(b->host, nid, b->cgs[i], priority, &freed);

			if (ret)
				return ret;
		}
	}
	*ns = lab_now_ns() - t0;
	return 0;
}

void lab_bench_geometry(const struct lab_bench *b, struct lab_scale *out)
{
	*out = b->used;
	out->mounts = b->nr_sbs;
	out->cgroups = b->nr_cgs;
	out->host_shrinkers = (unsigned int)b->nr_host_sbs;
	out->units = (long)((b->ids_hw + 63) / 64);
	/* A design without bits (nobitmap) keeps no shrinker_nr_max. */
	out->shrinker_nr_max = b->host && shr_design_info_of(b->cfg.design)->bits
				       ? shr_shrinker_nr_max(b->host) : -1;
}

void lab_bench_close(struct lab_bench *b)
{
	if (b->host) {
		while (b->nr_sbs)
			sb_umount(b->sbs[--b->nr_sbs]);
		while (b->nr_host_sbs)
			sb_umount(b->host_sbs[--b->nr_host_sbs]);
		(void)lab_bench_rmcg(b, b->nr_cgs);
		shr_rcu_barrier();
		if (b->fs_ready)
			sb_fs_destroy(&b->fs);
		if (shr_host_destroy(b->host))
			fprintf(stderr, "shrinklab: host %s still busy at destroy\n", b->label);
		else
			shr_slab_allocator_destroy(b->slab);
	}
	b->slab = NULL;
	free(b->sbs);
	free(b->cgs);
	free(b->bodies);
	free(b->host_sbs);
	b->sbs = NULL;
	b->cgs = NULL;
	b->bodies = NULL;
	b->host_sbs = NULL;
	b->host = NULL;
}

void lab_fit_cgroups(struct lab_bench *b, size_t n, const double *per_cgroup,
		     unsigned long target, unsigned long least, unsigned long long budget)
{
	bool done[LAB_MAX_DESIGNS] = { false };
	double left = (double)budget;
	size_t nr_left = 0;

	if (least > target)
		least = target;
	for (size_t i = 0; i < n && i < LAB_MAX_DESIGNS; i++) {
		done[i] = !lab_bench_ok(&b[i]);
		nr_left += !done[i];
	}
	while (nr_left) {
		size_t k = n;

		for (size_t i = 0; i < n && i < LAB_MAX_DESIGNS; i++)
			if (!done[i] && (k == n || per_cgroup[i] < per_cgroup[k]))
				k = i;
		/* What is left never goes below zero, so the share is a count
		 * of cgroups between @least and @target, never a wrapped one. */
		double share = left > 0 ? left / (double)nr_left : 0;
		double cost = per_cgroup[k] > 1 ? per_cgroup[k] : 1;
		double fits = floor(share / cost);
		unsigned long fit = fits >= (double)target ? target : (unsigned long)fits;

		if (fit < least)
			fit = least;
		if (fit < target)
			snprintf(b[k].used.note, sizeof(b[k].used.note),
				 "cut to %lu of %lu cgroups by the memory budget: %.0f B per cgroup "
				 "on the pilot; %.0f MiB left after the mounts for %zu design(s)",
				 fit, target, per_cgroup[k], (double)budget / (1ull << 20), n);
		b[k].cgroups_target = fit;
		b[k].used.cgroups = fit;
		left -= (double)fit * cost;
		if (left < 0)
			left = 0;
		done[k] = true;
		nr_left--;
	}
}

