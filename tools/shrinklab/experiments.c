/* SPDX-License-Identifier: MIT */
/*
 * shrinklab experiments: the table of the seeds' experiments (fixed ids,
 * seed scale, design lists, metric names) and one runner per experiment
 * built from shared phases:
 *
 *   open_benches()   one host per design, side by side; unavailable designs
 *                    get rows marked unavailable for every metric.
 *   populate()       mounts on every bench, then a pilot of cgroups whose
 *                    measured cost decides (lab_fit_cgroups) how many
 *                    cgroups each bench can afford, then the rest.
 *   sample_all()     one warm-up, then opt->samples rounds; each round takes
 *                    one sample of every bench in turn, so designs share
 *                    the machine's noise. Each sample starts after an RCU
 *                    barrier: no bench's deferred frees (call_rcu
 *                    callbacks of an earlier sample, e.g. prealloc's
 *                    replaced arrays) run on the other core during another
 *                    bench's sample.
 *
 * Every figure comes from the clock or the slab allocator. Runners never
 * fill a row of a bench that could not run.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "lab.h"

#define MAX_BENCHES 16
#define MAX_SAMPLES 64
#define PILOT_CGROUPS 20

/* ---- rows ---- */

struct lab_result *lab_run_add(struct lab_run *run, const char *design, const char *metric,
			       const char *unit)
{
	struct lab_result *r;

	if (run->nr_rows == run->cap_rows) {
		size_t cap = run->cap_rows ? run->cap_rows * 2 : 32;
		struct lab_result *nv = realloc(run->rows, cap * sizeof(*nv));

		if (!nv)
			abort();
		run->rows = nv;
		run->cap_rows = cap;
	}
	r = &run->rows[run->nr_rows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->design, sizeof(r->design), "%s", design);
	r->metric = metric;
	r->unit = unit;
	return r;
}

void lab_run_free(struct lab_run *run)
{
	free(run->rows);
	run->rows = NULL;
	run->nr_rows = run->cap_rows = 0;
}

static void add_value(struct lab_run *run, const struct lab_bench *b, const char *metric,
		      const char *unit, double value)
{
	struct lab_result *r = lab_run_add(run, b->label, metric, unit);

	r->value = r->min = r->max = value;
	r->samples = 1;
	r->scale = b->used;
}

static void add_samples(struct lab_run *run, const struct lab_bench *b, const char *metric,
			const char *unit, const double *v, size_t n)
{
	struct lab_result *r = lab_run_add(run, b->label, metric, unit);
	struct lab_stats st;

	lab_stats_of(v, n, &st);
	r->value = st.median;
	r->min = st.min;
	r->max = st.max;
	r->samples = st.n;
	r->scale = b->used;
}

static size_t design_index(const struct lab_run *run, const char *label)
{
	char l[LAB_LABEL_LEN];

	for (size_t i = 0; i < run->nr_designs; i++) {
		lab_design_label(&run->designs[i], l, sizeof(l));
		if (!strcmp(l, label))
			return i;
	}
	return run->nr_designs;
}

static size_t metric_index(const struct lab_run *run, const char *metric)
{
	for (size_t i = 0; i < run->exp->nr_metrics; i++)
		if (!strcmp(run->exp->metrics[i].name, metric))
			return i;
	return run->exp->nr_metrics;
}

void lab_run_sort(struct lab_run *run)
{
	/* Insertion sort: a few dozen rows, and it keeps equal keys in order. */
	for (size_t i = 1; i < run->nr_rows; i++) {
		struct lab_result r = run->rows[i];
		size_t kd = design_index(run, r.design), km = metric_index(run, r.metric);
		size_t j = i;

		while (j > 0) {
			const struct lab_result *p = &run->rows[j - 1];
			size_t pd = design_index(run, p->design), pm = metric_index(run, p->metric);

			if (pd < kd || (pd == kd && pm <= km))
				break;
			run->rows[j] = run->rows[j - 1];
			j--;
		}
		run->rows[j] = r;
	}
}

/* ---- shared phases ---- */

/* Open every design's bench; rows of unavailable ones are filled here. */
static void open_benches(struct lab_run *run, struct lab_bench *b, const struct lab_scale *s)
{
	for (size_t i = 0; i < run->nr_designs; i++) {
		if (!lab_bench_open(&b[i], &run->designs[i], s))
			continue;
		for (size_t m = 0; m < run->exp->nr_metrics; m++) {
			struct lab_result *r = lab_run_add(run, b[i].label,
							   run->exp->metrics[m].name,
							   run->exp->metrics[m].unit);
			r->unavailable = true;
			r->scale = *s;
			snprintf(r->scale.note, sizeof(r->scale.note), "unavailable: %s", b[i].why);
		}
		lab_bench_close(&b[i]);
		if (!b[i].why)
			b[i].why = "could not be created";
	}
}

static void close_benches(struct lab_bench *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lab_bench_close(&b[i]);
}

/*
 * Mount @mounts on every bench, then bring up cgroups: a pilot of
 * PILOT_CGROUPS measures what one cgroup costs this design on this host, the
 * budget decides how many each bench gets, the rest follow. @before receives
 * SUnreclaim before the first cgroup.
 */
static int populate(struct lab_bench *b, size_t n, const struct lab_scale *s,
		    const struct lab_options *opt, unsigned long *before)
{
	double per_cg[MAX_BENCHES] = { 0 };
	unsigned long pilot = s->cgroups < PILOT_CGROUPS ? s->cgroups : PILOT_CGROUPS;
	unsigned long long used = 0;
	int ret;

	for (size_t i = 0; i < n; i++) {
		struct shr_slab_totals t;

		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: %lu mounts", b[i].label, s->mounts);
		ret = lab_bench_mount(&b[i], s->mounts);
		if (ret)
			return ret;
		before[i] = lab_bench_sunreclaim(&b[i]);
		ret = lab_bench_mkcg(&b[i], pilot);
		if (ret)
			return ret;
		per_cg[i] = pilot ? (double)(lab_bench_sunreclaim(&b[i]) - before[i]) / pilot : 0;
		shr_slab_totals(shr_host_slab(b[i].host), &t);
		used += t.sunreclaim_bytes + t.sreclaimable_bytes + t.vmalloc_bytes;
	}
	/* The budget covers the whole experiment: what the mounts and pilots
	 * already took is spent. */
	lab_fit_cgroups(b, n, per_cg, s->cgroups, opt->mem_budget > used ? opt->mem_budget - used : 0);
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		if (b[i].cgroups_target < b[i].nr_cgs) {
			ret = lab_bench_rmcg(&b[i], b[i].nr_cgs - b[i].cgroups_target);
			if (ret)
				return ret;
			continue;
		}
		lab_progress("%s: %lu cgroups", b[i].label, b[i].cgroups_target);
		ret = lab_bench_mkcg(&b[i], b[i].cgroups_target - b[i].nr_cgs);
		if (ret)
			return ret;
	}
	return 0;
}

typedef int (*sample_fn)(struct lab_bench *b, void *ctx, double *value);

/* One warm-up round, then opt->samples rounds, benches interleaved. */
static int sample_all(struct lab_bench *b, size_t n, const struct lab_options *opt,
		      const char *what, sample_fn fn, void *ctx, double v[][MAX_SAMPLES])
{
	for (unsigned int s = 0; s <= opt->samples; s++) {
		for (size_t i = 0; i < n; i++) {
			double x;
			int ret;

			if (!lab_bench_ok(&b[i]))
				continue;
			lab_progress("%s: %s sample %u/%u", b[i].label, what, s, opt->samples);
			shr_rcu_barrier();
			ret = fn(&b[i], ctx, &x);
			if (ret)
				return ret;
			if (s)
				v[i][s - 1] = x;
		}
	}
	return 0;
}

static void add_all_samples(struct lab_run *run, struct lab_bench *b, size_t n,
			    const struct lab_options *opt, const char *metric, const char *unit,
			    double v[][MAX_SAMPLES])
{
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			add_samples(run, &b[i], metric, unit, v[i], opt->samples);
}

static void add_slab_per_cgroup(struct lab_run *run, struct lab_bench *b, size_t n,
				const unsigned long *before)
{
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_ok(&b[i]) || !b[i].nr_cgs)
			continue;
		add_value(run, &b[i], "slab_bytes_per_empty_cgroup", "B",
			  (double)(lab_bench_sunreclaim(&b[i]) - before[i]) / (double)b[i].nr_cgs);
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

static int sample_drop_caches(struct lab_bench *b, void *ctx, double *value)
{
	uint64_t t0 = lab_now_ns();
	int ret = shr_drop_caches(b->host, NULL, NULL);

	(void)ctx;
	*value = (double)(lab_now_ns() - t0);
	return ret;
}

/* Register *(unsigned long *)ctx mounts; value: total ns. */
static int sample_mounts(struct lab_bench *b, void *ctx, double *value)
{
	unsigned long n = *(const unsigned long *)ctx;
	uint64_t t0 = lab_now_ns();
	int ret = lab_bench_mount(b, n);

	*value = (double)(lab_now_ns() - t0);
	return ret;
}

static int sample_mounts_per_mount(struct lab_bench *b, void *ctx, double *value)
{
	int ret = sample_mounts(b, ctx, value);

	*value /= (double)*(const unsigned long *)ctx;
	return ret;
}

/* mkdir then rmdir *(unsigned long *)ctx cgroups; value: ns per cgroup. */
static int sample_mkdir_rmdir(struct lab_bench *b, void *ctx, double *value)
{
	unsigned long n = *(const unsigned long *)ctx;
	uint64_t t0 = lab_now_ns();
	int ret = lab_bench_mkcg(b, n);

	if (!ret)
		ret = lab_bench_rmcg(b, n);
	*value = (double)(lab_now_ns() - t0) / (double)n;
	return ret;
}

#define POD_MOUNTS 4

/* ---- seed000-vm ---- */

static int run_seed000_vm(struct lab_run *run, const struct lab_options *opt)
{
	static double v[MAX_BENCHES][MAX_SAMPLES];
	struct lab_bench b[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int prio = SHR_DEF_PRIORITY;
	unsigned long churn = s->cgroups / 10 ? s->cgroups / 10 : 1;
	unsigned long extra = (unsigned long)lround(4000.0 * opt->factor) / (opt->samples + 1);
	int ret;

	open_benches(run, b, s);
	ret = populate(b, n, s, opt, before);
	if (ret)
		goto out;
	add_slab_per_cgroup(run, b, n, before);

	ret = sample_all(b, n, opt, "empty walk", sample_walk, &prio, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "walk_ns_empty_cgroup", "ns", v);

	ret = sample_all(b, n, opt, "mkdir/rmdir", sample_mkdir_rmdir, &churn, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "mkdir_rmdir_ns_per_cgroup", "ns", v);

	extra = extra ? extra : 1;
	ret = sample_all(b, n, opt, "register", sample_mounts_per_mount, &extra, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "register_ns_per_mount_cgroups_alive", "ns", v);

	/* Objects on 100 mounts spread over the id range, in every cgroup. */
	for (size_t i = 0; i < n && !ret; i++) {
		size_t mounts = b[i].nr_sbs < 100 ? b[i].nr_sbs : 100;
		size_t stride = mounts ? b[i].nr_sbs / mounts : 1;

		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: files in %zu cgroups", b[i].label, b[i].nr_cgs);
		for (size_t c = 0; c < b[i].nr_cgs && !ret; c++)
			for (size_t m = 0; m < mounts && !ret; m++)
				ret = lab_bench_file(&b[i], m * stride, c, 0);
	}
	if (ret)
		goto out;
	ret = sample_all(b, n, opt, "walk with objects", sample_walk, &prio, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "walk_ns_cgroup_objects_100", "ns", v);
out:
	close_benches(b, n);
	return ret;
}

/* ---- seed000-host ---- */

static void add_container_per_cgroup(struct lab_run *run, struct lab_bench *b)
{
	double sum = 0;

	for (size_t c = 0; c < b->nr_cgs; c++) {
		struct shr_memcg_bookkeeping bk;

		if (!shr_mem_cgroup_bookkeeping(b->cgs[c], -1, &bk))
			sum += (double)bk.container_bytes;
	}
	add_value(run, b, "container_bytes_per_empty_cgroup", "B",
		  b->nr_cgs ? sum / (double)b->nr_cgs : 0);
}

static int run_seed000_host(struct lab_run *run, const struct lab_options *opt)
{
	static double v[MAX_BENCHES][MAX_SAMPLES];
	struct lab_bench b[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int prio = 0;
	unsigned long batch = 640; /* ten 64-id unit boundaries */
	unsigned long churn = s->cgroups / 100 ? s->cgroups / 100 : 1;
	int ret;

	open_benches(run, b, s);
	/* Issue 6 of 6's baselines: cgroup churn before any mount exists. */
	ret = sample_all(b, n, opt, "mkdir/rmdir, no mounts", sample_mkdir_rmdir, &churn, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "mkdir_rmdir_ns_per_cgroup_no_mounts", "ns", v);
	ret = populate(b, n, s, opt, before);
	if (ret)
		goto out;
	add_slab_per_cgroup(run, b, n, before);
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			add_container_per_cgroup(run, &b[i]);

	ret = sample_all(b, n, opt, "mkdir/rmdir", sample_mkdir_rmdir, &churn, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "mkdir_rmdir_ns_per_cgroup", "ns", v);

	ret = sample_all(b, n, opt, "drop_caches", sample_drop_caches, NULL, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "drop_caches_ns", "ns", v);

	ret = sample_all(b, n, opt, "walk", sample_walk, &prio, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "walk_ns_per_cgroup_node", "ns", v);

	ret = sample_all(b, n, opt, "640 mounts", sample_mounts, &batch, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "register_640_mounts_ns_cgroups_alive", "ns", v);

	for (size_t i = 0; i < n && !ret; i++)
		if (lab_bench_ok(&b[i]))
			ret = lab_bench_rmcg(&b[i], b[i].nr_cgs);
	if (ret)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			(void)lab_bench_sunreclaim(&b[i]); /* let the cgroups be freed */
	ret = sample_all(b, n, opt, "drop_caches, no cgroups", sample_drop_caches, NULL, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "drop_caches_ns_no_cgroups", "ns", v);
	ret = sample_all(b, n, opt, "640 mounts, no cgroups", sample_mounts, &batch, v);
	if (ret)
		goto out;
	add_all_samples(run, b, n, opt, "register_640_mounts_ns_no_cgroups", "ns", v);
out:
	close_benches(b, n);
	return ret;
}

/* ---- seed003-units ---- */

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

static int run_seed003_units(struct lab_run *run, const struct lab_options *opt)
{
	static struct cache_snapshot snap[MAX_BENCHES];
	struct lab_bench b[MAX_BENCHES];
	unsigned long before[MAX_BENCHES] = { 0 };
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int ret;

	open_benches(run, b, s);
	for (size_t i = 0; i < n; i++) {
		snap[i].n = 0;
		if (lab_bench_ok(&b[i]))
			shr_slab_for_each_cache(shr_host_slab(b[i].host), snapshot_one, &snap[i]);
	}
	ret = populate(b, n, s, opt, before);
	if (ret)
		goto out;
	add_slab_per_cgroup(run, b, n, before);
	for (size_t i = 0; i < n; i++) {
		struct shr_kmem_cache *src;
		struct shr_slab_geometry g;
		struct lab_result *r;

		if (!lab_bench_ok(&b[i]))
			continue;
		src = unit_source(&b[i], &snap[i]);
		if (!src)
			continue;
		shr_kmem_cache_geometry(src, &g);
		add_value(run, &b[i], "units_per_slab", "count", g.objects_per_slab);
		r = &run->rows[run->nr_rows - 1];
		size_t used = strlen(r->scale.note);

		snprintf(r->scale.note + used, sizeof(r->scale.note) - used,
			 "%sunits came from %s (%u B slots, order %u)", used ? "; " : "",
			 shr_kmem_cache_name(src), g.object_size, g.order);
	}
out:
	close_benches(b, n);
	return ret;
}

/* ---- seed001-pods ---- */

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* Append the registry hold times of a bench to @acc (grown as needed). */
static int collect_holds(struct lab_bench *b, unsigned long long **acc, size_t *n)
{
	size_t total = shr_host_registration_hold_ns(b->host, NULL, 0);
	unsigned long long *nv = realloc(*acc, (*n + total + 1) * sizeof(**acc));

	if (!nv)
		return -ENOMEM;
	*acc = nv;
	*n += shr_host_registration_hold_ns(b->host, nv + *n, total);
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

/* Median and max of every registration's registry-mutex hold. */
static void add_hold_rows(struct lab_run *run, const struct lab_bench *b,
			  unsigned long long *holds, size_t n)
{
	struct lab_result *r;

	if (!n)
		return;
	qsort(holds, n, sizeof(*holds), cmp_ull);
	add_value(run, b, "registry_mutex_hold_ns_max", "ns", (double)holds[n - 1]);
	add_value(run, b, "registry_mutex_hold_ns_median", "ns", (double)holds[n / 2]);
	for (r = &run->rows[run->nr_rows - 2]; r < &run->rows[run->nr_rows]; r++) {
		r->samples = n;
		r->min = (double)holds[0];
		r->max = (double)holds[n - 1];
	}
}

static int run_seed001_pods(struct lab_run *run, const struct lab_options *opt)
{
	static double v[MAX_BENCHES][MAX_SAMPLES];
	unsigned long long *holds[MAX_BENCHES] = { NULL };
	size_t nr_holds[MAX_BENCHES] = { 0 };
	struct lab_bench b[MAX_BENCHES];
	size_t n = run->nr_designs;
	int ret = 0;

	/* A sample is a whole pod sequence on fresh hosts; round 0 warms up. */
	for (unsigned int rep = 0; rep <= opt->samples && !ret; rep++) {
		double total[MAX_BENCHES] = { 0 };

		memset(b, 0, sizeof(b));
		if (rep == 0)
			open_benches(run, b, &run->scale);
		else
			for (size_t i = 0; i < n; i++)
				(void)lab_bench_open(&b[i], &run->designs[i], &run->scale);
		ret = pods_round(run, b, rep, opt->samples, total);
		for (size_t i = 0; i < n && rep && !ret; i++) {
			if (!lab_bench_ok(&b[i]))
				continue;
			v[i][rep - 1] = total[i];
			ret = collect_holds(&b[i], &holds[i], &nr_holds[i]);
		}
		for (size_t i = 0; i < n && rep == opt->samples && !ret; i++) {
			if (!lab_bench_ok(&b[i]))
				continue;
			add_samples(run, &b[i], "pod_create_ns_total", "ns", v[i], opt->samples);
			add_hold_rows(run, &b[i], holds[i], nr_holds[i]);
		}
		close_benches(b, n);
	}
	for (size_t i = 0; i < n; i++)
		free(holds[i]);
	return ret;
}

/* ---- seed004-bitmap ---- */

/* Each cgroup i gets a file on its own mount i. */
static int one_file_each(struct lab_bench *b)
{
	int ret = 0;

	for (size_t c = 0; c < b->nr_cgs && !ret; c++)
		ret = lab_bench_file(b, c, c, 0);
	return ret;
}

static int run_seed004_bitmap(struct lab_run *run, const struct lab_options *opt)
{
	static double first[MAX_BENCHES][MAX_SAMPLES], repeat[MAX_BENCHES][MAX_SAMPLES];
	struct lab_bench b[MAX_BENCHES];
	const struct lab_scale *s = &run->scale;
	size_t n = run->nr_designs;
	int ret = 0;

	open_benches(run, b, s);
	for (size_t i = 0; i < n && !ret; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("%s: %lu cgroups with a mount each", b[i].label, s->cgroups);
		ret = lab_bench_mount(&b[i], s->cgroups);
		if (!ret)
			ret = lab_bench_mkcg(&b[i], s->cgroups);
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
				ret = sample_drop_caches(&b[i], NULL, &calls[k]);
			if (rep && !ret) {
				struct lab_stats st;

				lab_stats_of(calls + 1, 4, &st);
				first[i][rep - 1] = calls[0];
				repeat[i][rep - 1] = st.median;
			}
		}
	}
	if (!ret) {
		add_all_samples(run, b, n, opt, "drop_caches_ns_first", "ns", first);
		add_all_samples(run, b, n, opt, "drop_caches_ns_repeat", "ns", repeat);
	}
	close_benches(b, n);
	return ret;
}

/* ---- the table ---- */

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Each table: the seed's designs in the seed's order (the first is the
 * base), then ours, indexed. */
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
	{ "slab_bytes_per_empty_cgroup", "B" },
	{ "walk_ns_empty_cgroup", "ns" },
	{ "walk_ns_cgroup_objects_100", "ns" },
	{ "mkdir_rmdir_ns_per_cgroup", "ns" },
	{ "register_ns_per_mount_cgroups_alive", "ns" },
};

static const struct lab_design host_designs[] = {
	/* The seed's base, with the unit cache patch (as seed000-vm). */
	{ .design = SHR_DESIGN_PREALLOC, .units = SHR_UNITS_CACHE },
	{ .design = SHR_DESIGN_ARRAY_ONDEMAND },
	{ .design = SHR_DESIGN_XARRAY },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric host_metrics[] = {
	{ "slab_bytes_per_empty_cgroup", "B" },
	{ "container_bytes_per_empty_cgroup", "B" },
	{ "register_640_mounts_ns_cgroups_alive", "ns" },
	{ "register_640_mounts_ns_no_cgroups", "ns" },
	{ "drop_caches_ns", "ns" },
	{ "walk_ns_per_cgroup_node", "ns" },
	/* Not in the seed: the baselines issue 6 of 6 compares indexed with. */
	{ "drop_caches_ns_no_cgroups", "ns" },
	{ "mkdir_rmdir_ns_per_cgroup", "ns" },
	{ "mkdir_rmdir_ns_per_cgroup_no_mounts", "ns" },
};

static const struct lab_design units_designs[] = {
	/* Before: mainline, kmalloc-1k. After: the seed's dedicated cache. */
	{ .design = SHR_DESIGN_PREALLOC },
	{ .design = SHR_DESIGN_PREALLOC, .units = SHR_UNITS_CACHE },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric units_metrics[] = {
	{ "slab_bytes_per_empty_cgroup", "B" },
	{ "units_per_slab", "count" },
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
static const struct lab_metric pods_metrics[] = {
	{ "pod_create_ns_total", "ns" },
	{ "registry_mutex_hold_ns_max", "ns" },
	{ "registry_mutex_hold_ns_median", "ns" },
};

static const struct lab_design bitmap_designs[] = {
	/* The seed's 2018 kernel before and after its bitmap series: flat is
	 * the closest design we have to the bitmap it added. */
	{ .design = SHR_DESIGN_NOBITMAP },
	{ .design = SHR_DESIGN_FLAT },
	{ .design = SHR_DESIGN_XARRAY },
	{ .design = SHR_DESIGN_INDEXED },
};
static const struct lab_metric bitmap_metrics[] = {
	{ "drop_caches_ns_first", "ns" },
	{ "drop_caches_ns_repeat", "ns" },
};

#define SCALE(m, c, nodes_, cpus_, kmem_) \
	{ .mounts = (m), .cgroups = (c), .nodes = (nodes_), .cpus = (cpus_), .kmem = (kmem_) }

const struct lab_experiment lab_experiments[] = {
	{ "seed000-vm", "4-CPU 1-node VM: 20000 mounts, 2000 cgroups",
	  SCALE(20000, 2000, 1, 4, true), 0, vm_designs, COUNT(vm_designs), vm_metrics,
	  COUNT(vm_metrics), run_seed000_vm },
	{ "seed000-host", "48-CPU 4-node host: 50000 mounts, 20000 empty cgroups",
	  SCALE(50000, 20000, 4, 48, true), 0, host_designs, COUNT(host_designs), host_metrics,
	  COUNT(host_metrics), run_seed000_host },
	{ "seed003-units", "4-CPU 1-node VM: 8000 mounts, 2000 empty cgroups, unit source",
	  SCALE(8000, 2000, 1, 4, true), 0, units_designs, COUNT(units_designs), units_metrics,
	  COUNT(units_metrics), run_seed003_units },
	/* The seed gives no pod count; 1000 pods of 4 mounts is our seed scale (flat
	 * costs grow with the cube of it: pods x registrations x cgroups). */
	{ "seed001-pods", "pods (a cgroup + 4 mounts) one after another, kmem off",
	  SCALE(1000 * POD_MOUNTS, 1000, 1, 4, false), POD_MOUNTS, pods_designs, COUNT(pods_designs),
	  pods_metrics, COUNT(pods_metrics), run_seed001_pods },
	{ "seed004-bitmap", "4000 cgroups, each with its own mount holding one file",
	  SCALE(4000, 4000, 1, 4, true), 1, bitmap_designs, COUNT(bitmap_designs), bitmap_metrics,
	  COUNT(bitmap_metrics), run_seed004_bitmap },
};
const size_t lab_nr_experiments = COUNT(lab_experiments);

const struct lab_experiment *lab_experiment_find(const char *id)
{
	for (size_t i = 0; i < lab_nr_experiments; i++)
		if (!strcmp(lab_experiments[i].id, id))
			return &lab_experiments[i];
	return NULL;
}

static unsigned long scaled(unsigned long seed, double factor, unsigned long floor)
{
	double x = round((double)seed * factor);

	return x < (double)floor ? floor : (unsigned long)x;
}

void lab_experiment_scale(const struct lab_experiment *exp, const struct lab_options *opt,
			  struct lab_scale *out)
{
	const struct lab_scale *seed = &exp->seed_scale;

	*out = *seed;
	out->note[0] = '\0';
	out->cgroups = scaled(seed->cgroups, opt->factor, 4);
	out->mounts = scaled(seed->mounts, opt->factor, 128);
	if (opt->cgroups)
		out->cgroups = opt->cgroups;
	if (opt->mounts)
		out->mounts = opt->mounts;
	if (exp->mounts_per_cgroup)
		out->mounts = out->cgroups * exp->mounts_per_cgroup;
	if (opt->nodes)
		out->nodes = opt->nodes;
	if (opt->cpus)
		out->cpus = opt->cpus;
	if (opt->kmem >= 0)
		out->kmem = opt->kmem;
}

unsigned long long lab_scale_floor_bytes(const struct lab_scale *s)
{
	/* Admission only: a mount is at least a shrinker and two list_lrus
	 * (about 1 KiB), a cgroup at least its structure per node (1 KiB). */
	return (unsigned long long)s->mounts * 1024ull +
	       (unsigned long long)s->cgroups * (unsigned long long)s->nodes * 1024ull;
}
