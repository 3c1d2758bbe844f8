/* SPDX-License-Identifier: MIT */
/*
 * The seeds' experiments (experiments.h): their table (fixed ids, seed
 * scale, default scale, design lists, metric names with the geometry each
 * depends on) and one runner per experiment, built on the lockstep sampler
 * (lockstep.h): the benches of every design open side by side, are brought
 * up together and sampled round by round.
 *
 * The benches' own memcg-aware shrinkers (empty mounts that keep the lowest
 * ids) make N mounts give the seeds' shrinker_nr_max. Every row records the
 * geometry it was measured at (lab_lockstep_geometry() when its phase
 * starts). Every figure comes from the clock or the slab allocator. Runners
 * never fill a row of a bench that could not run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "bench.h"
#include "experiments.h"
#include "lockstep.h"
#include "rows.h"
#include "stats.h"

#define MAX_BENCHES LAB_MAX_DESIGNS
/* memcg-aware shrinkers the seeds' hosts had besides their tmpfs mounts:
 * the xarray-2026 thread reports shrinker_nr_max 20096 for 20000 mounts and 50112 for
 * 50000, so 49..96 others; 64 gives both. */
#define SEED_HOST_SHRINKERS 64
#define POD_MOUNTS 4

static void add_slab_per_cgroup(struct lab_run *run, struct lab_bench *b, size_t n,
				const unsigned long *before, const struct lab_scale *geo)
{
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_ok(&b[i]) || !b[i].nr_cgs)
			continue;
		lab_run_add_value(run, &b[i], "slab_bytes_per_empty_cgroup",
			  (double)(lab_bench_sunreclaim(&b[i]) - before[i]) / (double)b[i].nr_cgs,
			  &geo[i]);
	}
}

/* ---- samplers ---- */

/* A walk: every cgroup of the bench on every node; value per cgroup-node. */
static int sample_walk(struct lab_bench *b, void *ctx, double *value)
{
	int priority = *(const int *)ctx;
	uint64_t ns;
	int ret = lab_bench_walk(b, priority, &ns);
	double visits = (double)b->nr_cgs * shr_host_nr_nodes(b->host);

	*value = visits ? (double)ns / visits : 0;
	return ret;
}

static int sample_mounts_per_mount(struct lab_bench *b, void *ctx, double *value)
{
	int ret = lab_sample_mounts(b, ctx, value);

	*value /= (double)*(const unsigned long *)ctx;
	return ret;
}

/* Each walk sample visits every cgroup of the bench on every node. */
static void walk_resolution(struct lab_run *run, const struct lab_bench *b, size_t n,
			    const char *metric)
{
	double visits[MAX_BENCHES];

	for (size_t i = 0; i < n; i++)
		visits[i] = lab_bench_ok(&b[i]) ? (double)b[i].nr_cgs * shr_host_nr_nodes(b[i].host)
						: 1;
	lab_lockstep_resolution(run, b, n, metric, LAB_CLOCK_WALL, visits, 1);
}

/* The churn rows, by the value of lab_sample_churn() each takes. */
static const char *const churn_metrics[4] = {
	[LAB_CHURN_MKDIR_RMDIR] = "mkdir_rmdir_ns_per_cgroup",
	[LAB_CHURN_MKDIR] = "mkdir_ns_per_cgroup",
	[LAB_CHURN_RMDIR] = "rmdir_ns_per_cgroup",
	[LAB_CHURN_RELEASE_CPU] = "release_cpu_ns_per_cgroup",
};

/* Churn value @k's rows: @churn cgroups per sample, on its clock. */
static void churn_resolution(struct lab_run *run, const struct lab_bench *b, size_t n,
			     size_t k, unsigned long churn)
{
	lab_lockstep_resolution(run, b, n, churn_metrics[k],
				k == LAB_CHURN_RELEASE_CPU ? LAB_CLOCK_CPU : LAB_CLOCK_WALL, NULL,
				(double)churn);
}

/* ---- xarray-2026-vm ---- */

/* Calls of the workload mounts' shrinkers that reached count_objects, as
 * the consumer counts them (struct sb's count_calls: the library's
 * get_stats() would also sum every cgroup's deferred work, per mount). */
static unsigned long shrinker_calls(const struct lab_bench *b)
{
	unsigned long sum = 0;

	for (size_t k = 0; k < b->nr_sbs; k++)
		sum += atomic_load_explicit(&b->sbs[k]->count_calls, memory_order_relaxed);
	return sum;
}

/*
 * The walk rounds of @metric at priority SHR_DEF_PRIORITY, with the
 * shrinkers the walks called (counted by the library, warm-up included)
 * per cgroup and node in the rows' note: what the timed walk did.
 */
static int walk_rounds_counted(struct lab_run *run, struct lab_bench *b, size_t n,
			       const struct lab_options *opt, const char *metric, const char *what)
{
	static lab_samples_t v[1];
	struct lab_scale geo[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	int prio = SHR_DEF_PRIORITY;
	int ret;

	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			before[i] = shrinker_calls(&b[i]);
	lab_lockstep_geometry(b, n, geo);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, what, sample_walk, &prio, 1, v);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		double walks = (double)(opt->samples + 1) * (double)b[i].nr_cgs;
		size_t used = strlen(geo[i].note);

		if (!lab_bench_ok(&b[i]) || !b[i].nr_cgs)
			continue;
		walks *= shr_host_nr_nodes(b[i].host);
		snprintf(geo[i].note + used, sizeof(geo[i].note) - used,
			 "%s%.1f shrinkers called per cgroup and node", used ? "; " : "",
			 (double)(shrinker_calls(&b[i]) - before[i]) / walks);
	}
	lab_lockstep_add_samples(run, b, n, metric, v[0], opt->samples, geo);
	walk_resolution(run, b, n, metric);
	return 0;
}

/* A file in every cgroup of every bench on 100 mounts spread over the id
 * range: a tmpfs file (@tmpfs) or one whose objects are on the lists. */
static int fill_100_mounts(struct lab_bench *b, size_t n, bool tmpfs)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		size_t mounts = b[i].nr_sbs < 100 ? b[i].nr_sbs : 100;
		size_t stride = mounts ? b[i].nr_sbs / mounts : 1;

		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: %s in %zu cgroups", b[i].label, tmpfs ? "tmpfs files" : "files",
			     b[i].nr_cgs);
		for (size_t c = 0; c < b[i].nr_cgs && !ret; c++)
			for (size_t m = 0; m < mounts && !ret; m++)
				ret = tmpfs ? lab_bench_tmpfs_file(&b[i], m * stride, c)
					    : lab_bench_file(&b[i], m * stride, c, 0);
	}
	return ret;
}

static int run_xarray_vm(struct lab_run *run, const struct lab_options *opt)
{
	static lab_samples_t v[4];
	struct lab_bench b[MAX_BENCHES];
	struct lab_scale geo[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int prio = SHR_DEF_PRIORITY;
	unsigned long churn = s->cgroups / 10 ? s->cgroups / 10 : 1;
	/* The seed's 4000 more mounts per 20000, spread over the rounds. */
	unsigned long extra = (unsigned long)lround(4000.0 * (double)s->mounts / 20000.0) /
			      (opt->samples + 1);
	int ret;

	lab_lockstep_open_run(run, b, s);
	ret = lab_lockstep_populate(run, b, n, s, opt, before);
	if (ret)
		goto out;
	lab_lockstep_record_hosts(run, b, n);
	lab_lockstep_geometry(b, n, geo);
	add_slab_per_cgroup(run, b, n, before, geo);

	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "empty walk", sample_walk, &prio, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "walk_ns_empty_cgroup", v[0], opt->samples, geo);
	walk_resolution(run, b, n, "walk_ns_empty_cgroup");

	lab_lockstep_note(geo, n, "%lu cgroups made and removed per sample", churn);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "mkdir/rmdir", lab_sample_churn, &churn, 4, v);
	if (ret)
		goto out;
	for (size_t k = 0; k < 4; k++) {
		lab_lockstep_add_samples(run, b, n, churn_metrics[k], v[k], opt->samples, geo);
		churn_resolution(run, b, n, k, churn);
	}

	/*
	 * 100 mounts spread over the id range, in every cgroup, first with
	 * tmpfs files (the seed's mounts are tmpfs: the cgroup has its lists
	 * and, on demand, its units there, but tmpfs pins its dentries and
	 * inodes, so no object is on a list, no bit is set and the walk calls
	 * no shrinker), then with a file whose dentry and inode are on the
	 * lists (a disk filesystem's or procfs's: the walk calls the 100
	 * shrinkers). Both walks are measured before the registration rounds
	 * add mounts, at the geometry of the other rows.
	 */
	ret = fill_100_mounts(b, n, true);
	if (!ret)
		ret = walk_rounds_counted(run, b, n, opt, "walk_ns_cgroup_tmpfs_100",
					  "walk with tmpfs files");
	if (!ret)
		ret = fill_100_mounts(b, n, false);
	if (!ret)
		ret = walk_rounds_counted(run, b, n, opt, "walk_ns_cgroup_objects_100",
					  "walk with objects");
	if (ret)
		goto out;

	extra = extra ? extra : 1;
	lab_lockstep_geometry(b, n, geo);
	lab_lockstep_note(geo, n, "%lu mounts per sample, from %lu mounts on", extra, s->mounts);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "register", sample_mounts_per_mount,
				  &extra, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "register_ns_per_mount_cgroups_alive", v[0],
				 opt->samples, geo);
	lab_lockstep_resolution(run, b, n, "register_ns_per_mount_cgroups_alive", LAB_CLOCK_WALL,
				NULL, (double)extra);
out:
	lab_lockstep_close(b, n);
	return ret;
}

/* ---- xarray-2026-host ---- */

/*
 * The shrinker bookkeeping of the bench's cgroups, per cgroup: containers,
 * units, XArray nodes and the bytes inside the cgroup structure, as the slab
 * allocator reserved them for these very cgroups (SUnreclaim deltas cannot
 * show it after a mass rmdir: new objects fill the slots the old ones left).
 */
static void add_bookkeeping_per_cgroup(struct lab_run *run, struct lab_bench *b,
				       const char *metric, const struct lab_scale *geo)
{
	double sum = 0;

	for (size_t c = 0; c < b->nr_cgs; c++) {
		struct shr_memcg_bookkeeping bk;

		if (!shr_mem_cgroup_bookkeeping(b->cgs[c], -1, &bk))
			sum += (double)(bk.container_bytes + bk.unit_bytes + bk.xa_node_bytes +
					bk.inline_bytes);
	}
	lab_run_add_value(run, b, metric, b->nr_cgs ? sum / (double)b->nr_cgs : 0, geo);
}

static void add_container_per_cgroup(struct lab_run *run, struct lab_bench *b,
				     const struct lab_scale *geo)
{
	double sum = 0;

	for (size_t c = 0; c < b->nr_cgs; c++) {
		struct shr_memcg_bookkeeping bk;

		if (!shr_mem_cgroup_bookkeeping(b->cgs[c], -1, &bk))
			sum += (double)bk.container_bytes;
	}
	lab_run_add_value(run, b, "container_bytes_per_empty_cgroup",
		  b->nr_cgs ? sum / (double)b->nr_cgs : 0, geo);
}

/*
 * After every mount is gone (the cgroups too): what a new empty cgroup
 * costs. The kernel never lowers shrinker_nr_max, so prealloc keeps paying
 * for the ids of mounts that no longer exist.
 */
static int after_umount(struct lab_run *run, struct lab_bench *b, size_t n,
			const struct lab_options *opt, unsigned long churn)
{
	static lab_samples_t v[4];
	struct lab_scale geo[MAX_BENCHES];
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		unsigned long mounts = b[i].nr_sbs;

		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: umount %lu mounts", b[i].label, mounts);
		lab_bench_umount(&b[i], mounts);
		ret = lab_bench_rmcg(&b[i], b[i].nr_cgs);
		if (ret)
			break;
		ret = lab_bench_mkcg(&b[i], churn);
		if (ret)
			break;
		lab_bench_geometry(&b[i], &geo[i]);
		snprintf(geo[i].note, sizeof(geo[i].note),
			 "all %lu mounts unmounted; shrinker_nr_max %ld afterwards", mounts,
			 geo[i].shrinker_nr_max);
		add_bookkeeping_per_cgroup(run, &b[i], "bookkeeping_bytes_per_empty_cgroup_after_umount",
					   &geo[i]);
		ret = lab_bench_rmcg(&b[i], churn);
	}
	if (ret)
		return ret;
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "mkdir/rmdir after umount", lab_sample_churn,
				  &churn, 2, v);
	if (!ret) {
		lab_lockstep_add_samples(run, b, n, "mkdir_ns_per_cgroup_after_umount",
					 v[LAB_CHURN_MKDIR],
					 opt->samples, geo);
		lab_lockstep_resolution(run, b, n, "mkdir_ns_per_cgroup_after_umount",
					LAB_CLOCK_WALL, NULL, (double)churn);
	}
	return ret;
}

/* The rows without cgroups, on fresh hosts with the stated mounts. */
static int no_cgroups(struct lab_run *run, struct lab_bench *b, size_t n,
		      const struct lab_options *opt, unsigned long batch)
{
	static lab_samples_t v[1];
	struct lab_scale geo[MAX_BENCHES];
	const struct lab_scale *s = &run->scale;
	int ret = 0;

	lab_lockstep_open(b, run->designs, n, s);
	for (size_t i = 0; i < n && !ret; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: %lu mounts, no cgroups", b[i].label, s->mounts);
		ret = lab_bench_mount(&b[i], s->mounts);
	}
	if (ret)
		goto out;
	lab_lockstep_geometry(b, n, geo);
	lab_lockstep_note(geo, n, "a fresh host with no cgroups");
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "drop_caches, no cgroups",
				  lab_sample_drop_caches, NULL, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "drop_caches_ns_no_cgroups", v[0], opt->samples, geo);
	lab_lockstep_note(geo, n, "sample k registers mounts %lu+%lu*k.. as with cgroups",
			  s->mounts, batch);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "640 mounts, no cgroups",
				  lab_sample_mounts, &batch, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "register_640_mounts_ns_no_cgroups", v[0], opt->samples,
				 geo);
out:
	lab_lockstep_close(b, n);
	return ret;
}

static int run_xarray_host(struct lab_run *run, const struct lab_options *opt)
{
	static lab_samples_t v[4];
	struct lab_bench b[MAX_BENCHES];
	struct lab_scale geo[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int prio = 0;
	unsigned long batch = 640; /* ten 64-id unit boundaries */
	unsigned long churn = s->cgroups / 100 ? s->cgroups / 100 : 1;
	int ret;

	lab_lockstep_open_run(run, b, s);
	/* Issue 6 of 6's baselines: cgroup churn before any mount exists. */
	lab_lockstep_geometry(b, n, geo);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "mkdir/rmdir, no mounts", lab_sample_churn,
				  &churn, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "mkdir_rmdir_ns_per_cgroup_no_mounts",
				 v[LAB_CHURN_MKDIR_RMDIR],
				 opt->samples, geo);
	lab_lockstep_resolution(run, b, n, "mkdir_rmdir_ns_per_cgroup_no_mounts", LAB_CLOCK_WALL,
				NULL, (double)churn);
	ret = lab_lockstep_populate(run, b, n, s, opt, before);
	if (ret)
		goto out;
	lab_lockstep_record_hosts(run, b, n);
	lab_lockstep_geometry(b, n, geo);
	add_slab_per_cgroup(run, b, n, before, geo);
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		add_container_per_cgroup(run, &b[i], &geo[i]);
		add_bookkeeping_per_cgroup(run, &b[i], "bookkeeping_bytes_per_empty_cgroup", &geo[i]);
	}

	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "drop_caches", lab_sample_drop_caches,
				  NULL, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "drop_caches_ns", v[0], opt->samples, geo);

	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "walk", sample_walk, &prio, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "walk_ns_per_cgroup_node", v[0], opt->samples, geo);
	walk_resolution(run, b, n, "walk_ns_per_cgroup_node");

	{
		struct lab_scale cg[MAX_BENCHES];

		memcpy(cg, geo, sizeof(cg));
		lab_lockstep_note(cg, n, "%lu cgroups made and removed per sample", churn);
		ret = lab_lockstep_rounds(b, n, 1, opt->samples, "mkdir/rmdir", lab_sample_churn,
					  &churn, 4, v);
		if (ret)
			goto out;
		for (size_t k = 0; k < 4; k++) {
			lab_lockstep_add_samples(run, b, n, churn_metrics[k], v[k], opt->samples,
						 cg);
			churn_resolution(run, b, n, k, churn);
		}
	}

	/* Each sample crosses ten fresh unit boundaries, so each starts where
	 * the last one ended (the kernel never lowers shrinker_nr_max). */
	lab_lockstep_note(geo, n, "sample k registers mounts %lu+%lu*k..", s->mounts, batch);
	ret = lab_lockstep_rounds(b, n, 1, opt->samples, "640 mounts", lab_sample_mounts, &batch, 1, v);
	if (ret)
		goto out;
	lab_lockstep_add_samples(run, b, n, "register_640_mounts_ns_cgroups_alive", v[0],
				 opt->samples, geo);

	ret = after_umount(run, b, n, opt, churn);
	if (ret)
		goto out;
	lab_lockstep_close(b, n);
	return no_cgroups(run, b, n, opt, batch);
out:
	lab_lockstep_close(b, n);
	return ret;
}

/* ---- unit-cache-2026 ---- */

/* objects_in_use of every cache of an allocator, to tell which one grew. */
struct cache_snapshot {
	struct shr_kmem_cache *cache[64];
	unsigned long in_use[64];
	size_t n;
};

static unsigned long in_use(struct shr_kmem_cache *cache)
{
	struct shr_kmem_cache_stats st;

	shr_kmem_cache_stats(cache, -1, &st);
	return st.objects_in_use;
}

static void snapshot_one(struct shr_kmem_cache *cache, void *arg)
{
	struct cache_snapshot *snap = arg;

	if (snap->n < 64) {
		snap->cache[snap->n] = cache;
		snap->in_use[snap->n++] = in_use(cache);
	}
}

static unsigned long grown(const struct cache_snapshot *snap, struct shr_kmem_cache *cache)
{
	if (!cache)
		return 0;
	for (size_t i = 0; i < snap->n; i++)
		if (snap->cache[i] == cache)
			return in_use(cache) - snap->in_use[i];
	return in_use(cache); /* created since the snapshot */
}

static void find_unit_cache(struct shr_kmem_cache *cache, void *arg)
{
	if (!strcmp(shr_kmem_cache_name(cache), "shrinker_info_unit"))
		*(struct shr_kmem_cache **)arg = cache;
}

/*
 * The cache the units came from: of the dedicated unit cache and the kmalloc
 * cache of the unit's measured slot size (bookkeeping bytes / units of the
 * root), the one whose objects in use grew most since @snap.
 */
static struct shr_kmem_cache *unit_source(struct lab_bench *b, const struct cache_snapshot *snap)
{
	struct shr_slab_allocator *sa = shr_host_slab(b->host);
	struct shr_memcg_bookkeeping bk;
	struct shr_kmem_cache *named = NULL, *km = NULL;

	shr_slab_for_each_cache(sa, find_unit_cache, &named);
	if (!shr_mem_cgroup_bookkeeping(shr_host_root_mem_cgroup(b->host), -1, &bk) &&
	    bk.nr_units)
		km = shr_kmalloc_cache_for(sa, bk.unit_bytes / bk.nr_units);
	if (!named && !km)
		return NULL;
	return grown(snap, named) >= grown(snap, km) ? (named ? named : km) : km;
}

static int run_unit_cache(struct lab_run *run, const struct lab_options *opt)
{
	static struct cache_snapshot snap[MAX_BENCHES];
	struct lab_bench b[MAX_BENCHES];
	struct lab_scale geo[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int ret;

	lab_lockstep_open_run(run, b, s);
	for (size_t i = 0; i < n; i++) {
		snap[i].n = 0;
		if (lab_bench_ok(&b[i]))
			shr_slab_for_each_cache(shr_host_slab(b[i].host), snapshot_one, &snap[i]);
	}
	ret = lab_lockstep_populate(run, b, n, s, opt, before);
	if (ret)
		goto out;
	lab_lockstep_record_hosts(run, b, n);
	lab_lockstep_geometry(b, n, geo);
	add_slab_per_cgroup(run, b, n, before, geo);
	for (size_t i = 0; i < n; i++) {
		struct shr_kmem_cache *src;
		struct shr_slab_geometry g;
		struct lab_scale at = geo[i];
		size_t used = strlen(at.note);

		if (!lab_bench_ok(&b[i]))
			continue;
		src = unit_source(&b[i], &snap[i]);
		if (!src)
			continue;
		shr_kmem_cache_geometry(src, &g);
		snprintf(at.note + used, sizeof(at.note) - used,
			 "%sunits came from %s (%u B slots, order %u)", used ? "; " : "",
			 shr_kmem_cache_name(src), g.object_size, g.order);
		lab_run_add_value(run, &b[i], "units_per_slab", g.objects_per_slab, &at);
	}
out:
	lab_lockstep_close(b, n);
	return ret;
}

/* ---- nonslab-2026-pods ---- */

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* The registry hold times of this round's registrations: max and median. */
static int round_holds(struct lab_bench *b, double *max, double *median)
{
	size_t total = shr_host_registration_hold_ns(b->host, NULL, 0);
	unsigned long long *h = malloc((total + 1) * sizeof(*h));

	if (!h)
		return -ENOMEM;
	total = shr_host_registration_hold_ns(b->host, h, total);
	qsort(h, total, sizeof(*h), cmp_ull);
	*max = total ? (double)h[total - 1] : 0;
	*median = total ? (double)h[total / 2] : 0;
	free(h);
	return 0;
}

/* Create the pods one after another on every bench, interleaved; @total
 * receives each bench's wall time of cgroup creation plus mounts. */
static int pods_round(struct lab_run *run, struct lab_bench *b, unsigned int rep,
		      unsigned int reps, double *total)
{
	unsigned long pods = run->scale.cgroups;
	int ret = 0;

	for (unsigned long p = 0; p < pods && !ret; p++) {
		lab_progress("pods: round %u/%u, pod %lu/%lu", rep, reps, p, pods);
		for (size_t i = 0; i < run->nr_designs && !ret; i++) {
			uint64_t t0 = lab_now_ns();

			if (!lab_bench_ok(&b[i]))
				continue;
			ret = lab_bench_mkcg(&b[i], 1);
			if (!ret)
				ret = lab_bench_mount(&b[i], run->exp->mounts_per_cgroup);
			total[i] += (double)(lab_now_ns() - t0);
		}
	}
	return ret;
}

static int run_nonslab_pods(struct lab_run *run, const struct lab_options *opt)
{
	static lab_samples_t v[3];
	struct lab_bench b[MAX_BENCHES];
	struct lab_scale geo[MAX_BENCHES];
	size_t n = run->nr_designs;
	int ret = 0;

	/* A sample is a whole pod sequence on fresh hosts; round 0 warms up. */
	for (unsigned int rep = 0; rep <= opt->samples && !ret; rep++) {
		double total[MAX_BENCHES] = { 0 };

		memset(b, 0, sizeof(b));
		if (rep == 0)
			lab_lockstep_open_run(run, b, &run->scale);
		else
			for (size_t i = 0; i < n; i++)
				(void)lab_bench_open(&b[i], &run->designs[i], &run->scale);
		ret = pods_round(run, b, rep, opt->samples, total);
		for (size_t i = 0; i < n && rep && !ret; i++) {
			if (!lab_bench_ok(&b[i]))
				continue;
			v[0][i][rep - 1] = total[i];
			ret = round_holds(&b[i], &v[1][i][rep - 1], &v[2][i][rep - 1]);
		}
		if (rep == opt->samples && !ret) {
			lab_lockstep_record_hosts(run, b, n);
			lab_lockstep_geometry(b, n, geo);
			lab_lockstep_note(geo, n,
					  "%lu pods of a cgroup and %u mounts, made one after another",
					  run->scale.cgroups, run->exp->mounts_per_cgroup);
			lab_lockstep_add_samples(run, b, n, "pod_create_ns_total", v[0],
						 opt->samples, geo);
			lab_lockstep_note(geo, n, "per round: the longest and the median hold");
			lab_lockstep_add_samples(run, b, n, "registry_mutex_hold_ns_max", v[1],
						 opt->samples, geo);
			lab_lockstep_add_samples(run, b, n, "registry_mutex_hold_ns_median", v[2],
						 opt->samples, geo);
		}
		lab_lockstep_close(b, n);
	}
	return ret;
}

/* ---- bitmap-2018 ---- */

/* Each cgroup i gets a file on its own mount i. */
static int one_file_each(struct lab_bench *b)
{
	int ret = 0;

	for (size_t c = 0; c < b->nr_cgs && !ret; c++)
		ret = lab_bench_file(b, c, c, 0);
	return ret;
}

static int run_bitmap(struct lab_run *run, const struct lab_options *opt)
{
	static lab_samples_t first, repeat;
	struct lab_bench b[MAX_BENCHES];
	struct lab_scale geo[MAX_BENCHES];
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int ret = 0;

	lab_lockstep_open_run(run, b, s);
	for (size_t i = 0; i < n && !ret; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: %lu cgroups with a mount each", b[i].label, s->cgroups);
		ret = lab_bench_mount(&b[i], s->cgroups);
		if (!ret)
			ret = lab_bench_mkcg(&b[i], s->cgroups);
	}
	if (!ret) {
		lab_lockstep_record_hosts(run, b, n);
		lab_lockstep_geometry(b, n, geo);
	}
	/* Round 0 warms up; each round refills the files, then five calls. */
	for (unsigned int rep = 0; rep <= opt->samples && !ret; rep++) {
		for (size_t i = 0; i < n && !ret; i++) {
			double calls[5];

			if (!lab_bench_ok(&b[i]))
				continue;
			lab_progress("%s: drop_caches round %u/%u", b[i].label, rep, opt->samples);
			ret = one_file_each(&b[i]);
			shr_rcu_barrier(); /* as in sample_all() */
			for (int k = 0; k < 5 && !ret; k++)
				ret = lab_sample_drop_caches(&b[i], NULL, &calls[k]);
			if (rep && !ret) {
				struct lab_stats st;

				lab_stats_of(calls + 1, 4, &st);
				first[i][rep - 1] = calls[0];
				repeat[i][rep - 1] = st.median;
			}
		}
	}
	if (!ret) {
		lab_lockstep_note(geo, n, "first of 5 calls after a file in every cgroup");
		lab_lockstep_add_samples(run, b, n, "drop_caches_ns_first", first, opt->samples,
					 geo);
		for (size_t i = 0; i < n; i++)
			geo[i].note[0] = '\0';
		lab_lockstep_note(geo, n, "median of the next 4 calls");
		lab_lockstep_add_samples(run, b, n, "drop_caches_ns_repeat", repeat, opt->samples,
					 geo);
	}
	lab_lockstep_close(b, n);
	return ret;
}

/* ---- the table ---- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Each table: the seed's designs in the seed's order (the first is the
 * base), then ours. */
static const struct lab_design vm_designs[] = {
	/* The seed's base: v7.3-rc7 with the dedicated unit cache patch. */
	{ .design = SHR_DESIGN_PREALLOC, .units = SHR_UNITS_CACHE },
	{ .design = SHR_DESIGN_XARRAY },
	{ .design = SHR_DESIGN_ARRAY_ONDEMAND },
	/* Mainline as it is (kmalloc-1k units), not in the seed's table. */
	{ .design = SHR_DESIGN_PREALLOC },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric vm_metrics[] = {
	{ "slab_bytes_per_empty_cgroup", "B", LAB_G_PER_CGROUP,
	  "unreclaimable slab per empty cgroup" },
	{ "walk_ns_empty_cgroup", "ns", LAB_G_PER_CGROUP,
	  "shrink_slab() of an empty cgroup (per cgroup and node)" },
	{ "walk_ns_cgroup_tmpfs_100", "ns", LAB_G_PER_CGROUP,
	  "shrink_slab() of a cgroup with tmpfs files on 100 mounts (no shrinker called)" },
	{ "walk_ns_cgroup_objects_100", "ns", LAB_G_PER_CGROUP,
	  "shrink_slab() of a cgroup with objects on 100 mounts (100 shrinkers called)" },
	{ "mkdir_rmdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP, "mkdir + rmdir per cgroup" },
	{ "mkdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP, "mkdir per cgroup" },
	{ "rmdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP,
	  "rmdir per cgroup (offline: reparenting, last reference)" },
	{ "release_cpu_ns_per_cgroup", "ns", LAB_G_PER_CGROUP,
	  "CPU time of the deferred frees after rmdir, per cgroup" },
	{ "register_ns_per_mount_cgroups_alive", "ns", LAB_G_WHOLE_HOST,
	  "registering one more mount with the cgroups alive" },
};

static const struct lab_design host_designs[] = {
	/* The seed's base, with the unit cache patch (as xarray-2026-vm). */
	{ .design = SHR_DESIGN_PREALLOC, .units = SHR_UNITS_CACHE },
	{ .design = SHR_DESIGN_ARRAY_ONDEMAND },
	{ .design = SHR_DESIGN_XARRAY },
	/* The reparent walk the README's first recommendation is about. */
	{ .design = SHR_DESIGN_XARRAY, .lru_reparent = SHR_LRU_REPARENT_PER_CGROUP },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric host_metrics[] = {
	{ "slab_bytes_per_empty_cgroup", "B", LAB_G_PER_CGROUP,
	  "unreclaimable slab per empty cgroup" },
	{ "container_bytes_per_empty_cgroup", "B", LAB_G_PER_CGROUP,
	  "of it, the per-cgroup container (pointer arrays)" },
	{ "register_640_mounts_ns_cgroups_alive", "ns", LAB_G_WHOLE_HOST,
	  "640 mounts crossing 10 unit boundaries, cgroups alive" },
	{ "register_640_mounts_ns_no_cgroups", "ns", LAB_G_PER_CGROUP,
	  "the same 640 mounts, no cgroups" },
	{ "drop_caches_ns", "ns", LAB_G_WHOLE_HOST, "drop_caches: shrink_slab() for every cgroup" },
	{ "walk_ns_per_cgroup_node", "ns", LAB_G_PER_CGROUP,
	  "of it, shrink_slab() per cgroup and node" },
	/* Not in the seed: the baselines issue 6 of 6 compares indexed with,
	 * and what the seed says without a figure. */
	{ "drop_caches_ns_no_cgroups", "ns", LAB_G_PER_CGROUP, "drop_caches with no cgroups" },
	{ "mkdir_rmdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP, "mkdir + rmdir per cgroup" },
	{ "mkdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP, "mkdir per cgroup" },
	{ "rmdir_ns_per_cgroup", "ns", LAB_G_PER_CGROUP,
	  "rmdir per cgroup (offline: reparenting, last reference)" },
	{ "release_cpu_ns_per_cgroup", "ns", LAB_G_PER_CGROUP,
	  "CPU time of the deferred frees after rmdir, per cgroup" },
	{ "mkdir_rmdir_ns_per_cgroup_no_mounts", "ns", LAB_G(LAB_GEO_NODES) | LAB_G(LAB_GEO_CPUS),
	  "mkdir + rmdir per cgroup before any mount" },
	{ "bookkeeping_bytes_per_empty_cgroup", "B", LAB_G_PER_CGROUP,
	  "of it, shrinker bookkeeping (containers, units, XArray nodes, inline)" },
	{ "bookkeeping_bytes_per_empty_cgroup_after_umount", "B", LAB_G_PER_CGROUP,
	  "shrinker bookkeeping of a new empty cgroup after every mount is gone" },
	{ "mkdir_ns_per_cgroup_after_umount", "ns", LAB_G_PER_CGROUP,
	  "mkdir per cgroup after every mount is gone" },
};

static const struct lab_design units_designs[] = {
	/* Before: mainline, kmalloc-1k. After: the seed's dedicated cache. */
	{ .design = SHR_DESIGN_PREALLOC },
	{ .design = SHR_DESIGN_PREALLOC, .units = SHR_UNITS_CACHE },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric units_metrics[] = {
	{ "slab_bytes_per_empty_cgroup", "B", LAB_G_PER_CGROUP,
	  "unreclaimable slab per empty cgroup" },
	{ "units_per_slab", "count", LAB_G(LAB_GEO_CPUS),
	  "units per order-2 slab of the cache they came from" },
};

static const struct lab_design pods_designs[] = {
	{ .design = SHR_DESIGN_FLAT },
	{ .design = SHR_DESIGN_FLAT, .expand_batch = 8 },
	{ .design = SHR_DESIGN_FLAT, .expand_batch = 32 },
	{ .design = SHR_DESIGN_FLAT, .expand_batch = 64 },
	{ .design = SHR_DESIGN_FLAT, .nonslab_ids = true },
	{ .design = SHR_DESIGN_PREALLOC },
	{ .design = SHR_DESIGN_XARRAY },
	{ .design = SHR_DESIGN_INDEXED },
};
#define POD_GEO (LAB_G(LAB_GEO_CGROUPS) | LAB_G(LAB_GEO_NODES) | LAB_G(LAB_GEO_CPUS))
static const struct lab_metric pods_metrics[] = {
	{ "pod_create_ns_total", "ns", POD_GEO, "creating every pod, one after another" },
	{ "registry_mutex_hold_ns_max", "ns", POD_GEO,
	  "longest hold of the shrinker registry mutex by a registration" },
	{ "registry_mutex_hold_ns_median", "ns", POD_GEO,
	  "median hold of the shrinker registry mutex by a registration" },
};

static const struct lab_design bitmap_designs[] = {
	/* The seed's 2018 kernel before and after its bitmap series: flat is
	 * the closest design we have to the bitmap it added. */
	{ .design = SHR_DESIGN_NOBITMAP },
	{ .design = SHR_DESIGN_FLAT },
	{ .design = SHR_DESIGN_XARRAY },
	{ .design = SHR_DESIGN_INDEXED },
};
#define BITMAP_GEO (LAB_G(LAB_GEO_MOUNTS) | LAB_G(LAB_GEO_CGROUPS) | LAB_G(LAB_GEO_NODES) | \
		    LAB_G(LAB_GEO_CPUS))
static const struct lab_metric bitmap_metrics[] = {
	{ "drop_caches_ns_first", "ns", BITMAP_GEO, "drop_caches, first call" },
	{ "drop_caches_ns_repeat", "ns", BITMAP_GEO, "drop_caches, the calls after it" },
};

#define SCALE(m, c, nodes_, cpus_, kmem_, host_) \
	{ .mounts = (m), .cgroups = (c), .nodes = (nodes_), .cpus = (cpus_), .kmem = (kmem_), \
	  .host_shrinkers = (host_), .shrinker_nr_max = -1, .units = -1 }

/* The VM guest's drop_caches with every cgroup alive (kseeds --table vm):
 * the model's VM experiment times registration and mkdir/rmdir instead. */
static const struct lab_metric vm_kernel_metrics[] = {
	{ "drop_caches_ns", "ns", LAB_G_WHOLE_HOST, "echo 2 > drop_caches, the cgroups alive" },
};

const struct lab_experiment lab_experiments[] = {
	{ "xarray-2026-vm", "xarray-2026", "4-CPU 1-node VM: 20000 mounts, 2000 cgroups",
	  SCALE(20000, 2000, 1, 4, true, SEED_HOST_SHRINKERS), 20000, 2000, 0, vm_designs,
	  COUNT(vm_designs), vm_metrics, COUNT(vm_metrics), run_xarray_vm, vm_kernel_metrics,
	  COUNT(vm_kernel_metrics) },
	/* The default keeps the seed's mounts (so its units per node) and a
	 * tenth of its cgroups: 20000 would take prealloc 32 GB. */
	{ "xarray-2026-host", "xarray-2026", "48-CPU 4-node host: 50000 mounts, 20000 empty cgroups",
	  SCALE(50000, 20000, 4, 48, true, SEED_HOST_SHRINKERS), 50000, 2000, 0, host_designs,
	  COUNT(host_designs), host_metrics, COUNT(host_metrics), run_xarray_host, NULL, 0 },
	{ "unit-cache-2026", "unit-cache-2026", "4-CPU 1-node VM: 8000 mounts, 2000 empty cgroups, unit source",
	  SCALE(8000, 2000, 1, 4, true, SEED_HOST_SHRINKERS), 8000, 2000, 0, units_designs,
	  COUNT(units_designs), units_metrics, COUNT(units_metrics), run_unit_cache, NULL,
	  0 },
	/* The seed gives no pod count; 1000 pods of 4 mounts is our seed scale (flat
	 * costs grow with the cube of it: pods x registrations x cgroups). */
	{ "nonslab-2026-pods", "nonslab-2026", "pods (a cgroup + 4 mounts) one after another, kmem off",
	  SCALE(1000 * POD_MOUNTS, 1000, 1, 4, false, 0), 400 * POD_MOUNTS, 400, POD_MOUNTS,
	  pods_designs, COUNT(pods_designs), pods_metrics, COUNT(pods_metrics),
	  run_nonslab_pods, NULL, 0 },
	/* The seed's loop runs seq 0 4000: 4001 cgroups with a mount each. Its
	 * scale takes nobitmap minutes; the default runs x0.4. */
	{ "bitmap-2018", "bitmap-2018", "4001 cgroups, each with its own mount holding one file",
	  SCALE(4001, 4001, 1, 4, true, 0), 1600, 1600, 1, bitmap_designs,
	  COUNT(bitmap_designs), bitmap_metrics, COUNT(bitmap_metrics), run_bitmap, NULL, 0 },
};
const size_t lab_nr_experiments = COUNT(lab_experiments);

bool lab_metric_higher_better(const char *metric)
{
	/* Units packed per slab: the denser the better. Every other figure
	 * is a cost. */
	return !strcmp(metric, "units_per_slab");
}

/* The ids before the experiments were named after their threads
 * (docs/THREADS.md): accepted on the command line and listed by the
 * registry (guest documents of earlier kernel runs carry them), never
 * printed as a name. */
static const char *const old_ids[][2] = {
	{ "seed000-vm", "xarray-2026-vm" },       { "seed000-host", "xarray-2026-host" },
	{ "seed003-units", "unit-cache-2026" },   { "seed001-pods", "nonslab-2026-pods" },
	{ "seed004-bitmap", "bitmap-2018" },
};

const char *lab_experiment_old_id(const struct lab_experiment *e)
{
	for (size_t i = 0; i < COUNT(old_ids); i++)
		if (!strcmp(old_ids[i][1], e->id))
			return old_ids[i][0];
	return NULL;
}

const struct lab_experiment *lab_experiment_find(const char *id)
{
	for (size_t i = 0; i < COUNT(old_ids); i++)
		if (!strcmp(old_ids[i][0], id))
			id = old_ids[i][1];
	for (size_t i = 0; i < lab_nr_experiments; i++)
		if (!strcmp(lab_experiments[i].id, id))
			return &lab_experiments[i];
	return NULL;
}

