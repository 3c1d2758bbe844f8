/* SPDX-License-Identifier: MIT */
/*
 * shrinklab kernel: the kernel lab's guest experiments (kernel/guest/
 * klab-guest.c), run in the model at the guest's geometry, so that each
 * kernel design can be put beside the same design in the model on the same
 * work (kernel/klab lab does the join).
 *
 * The script is klab-guest's, step for step, on one model host per design
 * configuration (side by side, in lockstep: every timed sample is taken on
 * every host in turn, after an RCU barrier, as shrinklab's other
 * experiments do):
 *
 *   units       at every rung of the unit ladder (mounts chosen so the ids
 *               span 1, 35, 126, 314 units per node), Nu empty cgroups made:
 *               the slab (SUnreclaim) delta and the objects in use of
 *               kmalloc-1k, radix_tree_node and shrinker_info_unit, per
 *               cgroup; then removed;
 *   drop_caches drop_caches with 0 and N empty cgroups at 0 mounts; at the
 *               top rung with 0..N cgroups in P points, and the
 *               least-squares slope of the medians;
 *   churn       mkdir, rmdir, release (until every removed cgroup is freed)
 *               of Nr cgroups at 0 mounts and at the top rung, each timed on
 *               its own, and rmdir + release together;
 *   highwater   the units figures at 0 mounts, at H mounts, and after the H
 *               mounts are unmounted again (timed, per mount);
 *   register    at the highest rung below the top that leaves room (else the
 *               top), one warm-up batch of B mounts, then S batches with no
 *               cgroups and S batches with N empty cgroups alive, each batch
 *               above every earlier mount.
 *
 * The geometry comes from the options, which are the guest's (klab passes
 * the guest's own, and the N each guest really used), plus the ids the
 * guest's ladder assumes taken before the workload (--host-shrinkers: the
 * model registers that many empty mounts first). Every figure is measured on
 * the model's hosts (their own prefaulted slab allocator): memory from the
 * allocator's counters, times from the clock. The metric names are the
 * guest's, so a row of the model and a row of the kernel pair by name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "lab.h"
#include "shrinklab.h"

#define MAX_RUNGS 8
#define MAX_DESIGNS LAB_MAX_DESIGNS
#define MAX_SAMPLES LAB_MAX_SAMPLES
#define MAX_POINTS 32
#define NR_CACHES 3
#define MAX_METRICS 64

/* The guest's geometry (klab-guest's options, same names, same defaults). */
struct kgeo {
	unsigned int ladder[MAX_RUNGS];
	int nr_ladder;
	unsigned long cgroups;          /* N at 0 mounts */
	unsigned long register_cgroups; /* N alive during registration */
	unsigned long top_cgroups;      /* N at the top rung */
	unsigned long units_cgroups;    /* Nu */
	unsigned long churn_cgroups;    /* Nr */
	unsigned long highwater_mounts; /* H */
	unsigned long register_batch;   /* B */
	unsigned int samples, churn_samples, register_samples, walk_points;
	unsigned int host_shrinkers;
	int nodes;
	unsigned int cpus;
};

/* The caches the guest counts objects of, by their kernel names. */
static const char *const cache_names[NR_CACHES] = {
	"kmalloc-1k", "radix_tree_node", "shrinker_info_unit",
};

enum kexp { K_UNITS, K_DROP, K_CHURN, K_HIGHWATER, K_REGISTER, K_NR_EXP };

static const char *const exp_ids[K_NR_EXP] = {
	"units", "drop_caches", "churn", "highwater", "register",
};
static const char *const exp_titles[K_NR_EXP] = {
	"no seed: memory of an empty cgroup up the unit ladder (kernel lab, klab-guest)",
	"no seed: drop_caches with and without empty cgroups (kernel lab, klab-guest)",
	"no seed: mkdir, rmdir and release of cgroups (kernel lab, klab-guest)",
	"no seed: memory of an empty cgroup after the mounts are gone (kernel lab, klab-guest)",
	"no seed: registering a batch of mounts with and without cgroups (kernel lab, klab-guest)",
};

/* Everything one run owns: the experiments with their metric tables (built
 * from the ladder), the rows, the benches. */
struct kstate {
	struct kgeo g;
	struct lab_experiment exps[K_NR_EXP];
	struct lab_metric metrics[K_NR_EXP][MAX_METRICS];
	char names[K_NR_EXP][MAX_METRICS][80];
	struct lab_run runs[K_NR_EXP];
	struct lab_bench b[MAX_DESIGNS];
	struct lab_design designs[MAX_DESIGNS];
	size_t n;
	/* one sample per bench and round of the metric being taken */
	double v[4][MAX_DESIGNS][MAX_SAMPLES];
};

/* ---- metric tables ---- */

static void metric(struct kstate *st, enum kexp e, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void metric(struct kstate *st, enum kexp e, const char *unit, const char *fmt, ...)
{
	struct lab_experiment *x = &st->exps[e];
	size_t k = x->nr_metrics;
	va_list ap;

	if (k == MAX_METRICS)
		abort();
	va_start(ap, fmt);
	vsnprintf(st->names[e][k], sizeof(st->names[e][k]), fmt, ap);
	va_end(ap);
	st->metrics[e][k] = (struct lab_metric){ st->names[e][k], unit, LAB_G_PER_CGROUP, "" };
	x->nr_metrics = k + 1;
}

/* "kmalloc-1k" -> "kmalloc_1k", as the guest names its metrics. */
static void cache_metric_name(const char *cache, char *buf, size_t len)
{
	snprintf(buf, len, "%s", cache);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

static void cost_metrics(struct kstate *st, enum kexp e, const char *suffix)
{
	char c[48];

	metric(st, e, "B", "slab_bytes_per_empty_cgroup%s", suffix);
	for (int i = 0; i < NR_CACHES; i++) {
		cache_metric_name(cache_names[i], c, sizeof(c));
		metric(st, e, "count", "%s_objs_per_empty_cgroup%s", c, suffix);
	}
}

static void churn_metrics(struct kstate *st, const char *suffix)
{
	metric(st, K_CHURN, "ns", "mkdir_ns_per_cgroup%s", suffix);
	metric(st, K_CHURN, "ns", "rmdir_ns_per_cgroup%s", suffix);
	metric(st, K_CHURN, "ns", "release_ns_per_cgroup%s", suffix);
	metric(st, K_CHURN, "ns", "rmdir_release_ns_per_cgroup%s", suffix);
}

static void build_tables(struct kstate *st)
{
	const struct kgeo *g = &st->g;
	char s[32];

	for (int e = 0; e < K_NR_EXP; e++) {
		struct lab_experiment *x = &st->exps[e];

		memset(x, 0, sizeof(*x));
		x->id = exp_ids[e];
		x->title = exp_titles[e];
		x->metrics = st->metrics[e];
		x->seed_scale = (struct lab_scale){ .nodes = g->nodes, .cpus = g->cpus, .kmem = true,
						    .host_shrinkers = g->host_shrinkers,
						    .shrinker_nr_max = -1, .units = -1 };
	}
	for (int i = 0; i < g->nr_ladder; i++) {
		snprintf(s, sizeof(s), "_%uu", g->ladder[i]);
		cost_metrics(st, K_UNITS, s);
	}
	metric(st, K_DROP, "ns", "drop_caches_ns_no_cgroups_no_mounts");
	metric(st, K_DROP, "ns", "drop_caches_ns_no_mounts");
	metric(st, K_DROP, "ns", "drop_caches_ns_no_cgroups");
	metric(st, K_DROP, "ns", "drop_caches_ns");
	metric(st, K_DROP, "ns", "drop_caches_ns_per_empty_cgroup");
	churn_metrics(st, "_no_mounts");
	churn_metrics(st, "");
	cost_metrics(st, K_HIGHWATER, "_before_mounts");
	cost_metrics(st, K_HIGHWATER, "_with_mounts");
	metric(st, K_HIGHWATER, "ns", "umount_ns_per_mount");
	cost_metrics(st, K_HIGHWATER, "_after_umount");
	metric(st, K_REGISTER, "ns", "register_%lu_mounts_ns_no_cgroups", g->register_batch);
	metric(st, K_REGISTER, "ns", "register_%lu_mounts_ns_cgroups_alive", g->register_batch);
}

/* ---- benches ---- */

static bool ok(const struct kstate *st, size_t i)
{
	return lab_bench_ok(&st->b[i]);
}

/* Mounts that make the ids span @units units per node (0 for 1 unit). */
static unsigned long mounts_for_units(const struct kgeo *g, unsigned int units)
{
	long m = (long)units * 64 - (long)g->host_shrinkers;

	return units <= 1 || m < 0 ? 0 : (unsigned long)m;
}

static int mount_to(struct kstate *st, unsigned long target)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!ok(st, i) || st->b[i].nr_sbs >= target)
			continue;
		lab_progress("%s: mounting %zu -> %lu", st->b[i].label, st->b[i].nr_sbs, target);
		ret = lab_bench_mount(&st->b[i], target - st->b[i].nr_sbs);
		if (ret)
			return ret;
	}
	return 0;
}

/* The row's geometry: the bench now, with the cgroups the guest reports. */
static void geo_of(const struct kstate *st, size_t i, unsigned long cgroups, const char *note,
		   struct lab_scale *out)
{
	lab_bench_geometry(&st->b[i], out);
	out->cgroups = cgroups;
	snprintf(out->note, sizeof(out->note), "%s", note ? note : "");
}

/* ---- memory of empty cgroups ---- */

struct cgcost {
	double slab_b;
	double objs[NR_CACHES];
};

struct cache_find {
	const char *name;
	struct shr_kmem_cache *cache;
};

static void find_cache(struct shr_kmem_cache *cache, void *arg)
{
	struct cache_find *f = arg;

	if (!strcmp(shr_kmem_cache_name(cache), f->name))
		f->cache = cache;
}

/* Objects in use of the host's cache named @name (0 when it has none). */
static unsigned long cache_objs(struct lab_bench *b, const char *name)
{
	struct cache_find f = { name, NULL };
	struct shr_kmem_cache_stats s;

	shr_slab_for_each_cache(shr_host_slab(b->host), find_cache, &f);
	if (!f.cache)
		return 0;
	shr_kmem_cache_stats(f.cache, -1, &s);
	return s.objects_in_use;
}

static void shrink_one(struct shr_kmem_cache *cache, void *arg)
{
	(void)arg;
	shr_kmem_cache_shrink(cache);
}

/*
 * SUnreclaim of bench @b after deferred frees ran and every cache gave back
 * its empty slabs, as the guest does (/sys/kernel/slab/<cache>/shrink):
 * otherwise slabs emptied by an earlier rmdir would hold the next cgroups
 * for free, in the model's allocator as in SLUB.
 */
static unsigned long sunreclaim_shrunk(struct lab_bench *b)
{
	shr_rcu_barrier();
	shr_slab_for_each_cache(shr_host_slab(b->host), shrink_one, NULL);
	return lab_bench_sunreclaim(b);
}

/* Memory of @n new empty cgroups of bench @i, per cgroup; removed after. */
static int measure_cgroups(struct kstate *st, size_t i, unsigned long n, struct cgcost *c)
{
	struct lab_bench *b = &st->b[i];
	unsigned long before = sunreclaim_shrunk(b), objs[NR_CACHES];
	int ret;

	for (int k = 0; k < NR_CACHES; k++)
		objs[k] = cache_objs(b, cache_names[k]);
	ret = lab_bench_mkcg(b, n);
	if (ret)
		return ret;
	c->slab_b = ((double)sunreclaim_shrunk(b) - (double)before) / (double)n;
	for (int k = 0; k < NR_CACHES; k++)
		c->objs[k] = ((double)cache_objs(b, cache_names[k]) - (double)objs[k]) / (double)n;
	ret = lab_bench_rmcg(b, n);
	shr_rcu_barrier();
	return ret;
}

static void cost_rows(struct kstate *st, enum kexp e, size_t i, const char *suffix,
		      const struct cgcost *c, const struct lab_scale *geo)
{
	struct lab_run *run = &st->runs[e];
	char m[96], name[48];

	snprintf(m, sizeof(m), "slab_bytes_per_empty_cgroup%s", suffix);
	lab_run_add_value(run, &st->b[i], m, c->slab_b, geo);
	for (int k = 0; k < NR_CACHES; k++) {
		cache_metric_name(cache_names[k], name, sizeof(name));
		snprintf(m, sizeof(m), "%s_objs_per_empty_cgroup%s", name, suffix);
		lab_run_add_value(run, &st->b[i], m, c->objs[k], geo);
	}
}

static int units_rung(struct kstate *st, unsigned int units, struct cgcost *c)
{
	char suffix[32], note[LAB_NOTE_LEN];

	snprintf(suffix, sizeof(suffix), "_%uu", units);
	for (size_t i = 0; i < st->n; i++) {
		struct lab_scale geo;
		int ret;

		if (!ok(st, i))
			continue;
		lab_progress("%s: units %u, %lu cgroups", st->b[i].label, units,
			     st->g.units_cgroups);
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			return ret;
		snprintf(note, sizeof(note), "%lu memcg-aware shrinkers registered (%u host + %zu "
			 "mounts); the ladder's rung: %u units per node", st->b[i].nr_host_sbs +
			 st->b[i].nr_sbs, st->g.host_shrinkers, st->b[i].nr_sbs, units);
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, K_UNITS, i, suffix, &c[i], &geo);
	}
	return 0;
}

/* ---- timed rounds ---- */

/* One sample of bench @b into v[0..]. */
typedef int (*ksample_fn)(struct kstate *st, struct lab_bench *b, void *ctx, double *v);

/* @warmup rounds, then @n rounds; every round samples every bench in turn,
 * each after an RCU barrier. Sample k of round s of bench i: st->v[k][i][s]. */
static int rounds(struct kstate *st, unsigned int warmup, unsigned int n, const char *what,
		  ksample_fn fn, void *ctx)
{
	for (unsigned int s = 0; s < warmup + n; s++) {
		for (size_t i = 0; i < st->n; i++) {
			double x[4] = { 0 };
			int ret;

			if (!ok(st, i))
				continue;
			lab_progress("%s: %s, round %u/%u", st->b[i].label, what, s, warmup + n);
			shr_rcu_barrier();
			ret = fn(st, &st->b[i], ctx, x);
			if (ret)
				return ret;
			for (int k = 0; k < 4 && s >= warmup; k++)
				st->v[k][i][s - warmup] = x[k];
		}
	}
	return 0;
}

static int sample_drop(struct kstate *st, struct lab_bench *b, void *ctx, double *v)
{
	uint64_t t0 = lab_now_ns();
	int ret = shr_drop_caches(b->host, NULL, NULL);

	(void)st;
	(void)ctx;
	v[0] = (double)(lab_now_ns() - t0);
	return ret;
}

/* drop_caches samples (one warm-up pass) with the cgroups there are now. */
static int drop_rounds(struct kstate *st)
{
	return rounds(st, 1, st->g.samples, "drop_caches", sample_drop, NULL);
}

static void add_rows(struct kstate *st, enum kexp e, int k, const char *metric,
		     unsigned int n, const struct lab_scale *geo)
{
	for (size_t i = 0; i < st->n; i++)
		if (ok(st, i))
			lab_run_add_samples(&st->runs[e], &st->b[i], metric, st->v[k][i], n,
					    &geo[i]);
}

static void geos(struct kstate *st, unsigned long cgroups, const char *note,
		 struct lab_scale *geo)
{
	for (size_t i = 0; i < st->n; i++)
		if (ok(st, i))
			geo_of(st, i, cgroups, note, &geo[i]);
}

static int mkcg_all(struct kstate *st, unsigned long n)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!ok(st, i))
			continue;
		lab_progress("%s: %lu cgroups", st->b[i].label, n);
		ret = lab_bench_mkcg(&st->b[i], n);
		if (ret)
			return ret;
	}
	return 0;
}

static int rmcg_all(struct kstate *st)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!ok(st, i))
			continue;
		ret = lab_bench_rmcg(&st->b[i], st->b[i].nr_cgs);
		if (ret)
			return ret;
	}
	shr_rcu_barrier();
	return 0;
}

/* drop_caches with 0 and @ncg empty cgroups (at 0 mounts). */
static int drop_pair(struct kstate *st, unsigned long ncg)
{
	struct lab_scale geo[MAX_DESIGNS];
	const char *note = "shr_drop_caches() (echo 2 > drop_caches), after one warm-up pass";
	int ret;

	geos(st, 0, note, geo);
	ret = drop_rounds(st);
	if (ret)
		return ret;
	add_rows(st, K_DROP, 0, "drop_caches_ns_no_cgroups_no_mounts", st->g.samples, geo);
	ret = mkcg_all(st, ncg);
	if (!ret)
		ret = drop_rounds(st);
	if (ret)
		return ret;
	geos(st, ncg, note, geo);
	add_rows(st, K_DROP, 0, "drop_caches_ns_no_mounts", st->g.samples, geo);
	return rmcg_all(st);
}

/* Slope of the drop_caches median against 0..@ncg empty cgroups. */
static int drop_slope(struct kstate *st, unsigned long ncg)
{
	unsigned int p = st->g.walk_points < 2 ? 2 : st->g.walk_points;
	static double y[MAX_DESIGNS][MAX_POINTS];
	double x[MAX_POINTS];
	struct lab_scale geo[MAX_DESIGNS];
	char note[LAB_NOTE_LEN];
	unsigned long made = 0;
	int ret;

	if (p > MAX_POINTS)
		p = MAX_POINTS;
	snprintf(note, sizeof(note), "shr_drop_caches() (echo 2 > drop_caches), after one "
		 "warm-up pass");
	for (unsigned int j = 0; j < p; j++) {
		unsigned long k = ncg * j / (p - 1);

		ret = mkcg_all(st, k - made);
		if (ret)
			return ret;
		made = k;
		geos(st, k, note, geo);
		ret = drop_rounds(st);
		if (ret)
			return ret;
		x[j] = (double)k;
		for (size_t i = 0; i < st->n; i++) {
			struct lab_stats s;

			if (!ok(st, i))
				continue;
			lab_stats_of(st->v[0][i], st->g.samples, &s);
			y[i][j] = s.median;
		}
		if (j == 0)
			add_rows(st, K_DROP, 0, "drop_caches_ns_no_cgroups", st->g.samples, geo);
		if (j == p - 1)
			add_rows(st, K_DROP, 0, "drop_caches_ns", st->g.samples, geo);
	}
	snprintf(note, sizeof(note), "least-squares slope of the median over %u points, 0..%lu "
		 "empty cgroups", p, ncg);
	geos(st, ncg, note, geo);
	for (size_t i = 0; i < st->n; i++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0;

		if (!ok(st, i))
			continue;
		for (unsigned int j = 0; j < p; j++) {
			sx += x[j];
			sy += y[i][j];
			sxx += x[j] * x[j];
			sxy += x[j] * y[i][j];
		}
		lab_run_add_value(&st->runs[K_DROP], &st->b[i], "drop_caches_ns_per_empty_cgroup",
				  (p * sxy - sx * sy) / (p * sxx - sx * sx), &geo[i]);
	}
	return rmcg_all(st);
}

/*
 * mkdir, rmdir, release of Nr cgroups; per cgroup: [0] mkdir, [1] rmdir
 * (offline: list_lru and deferred reparenting, the base reference put),
 * [2] release (the RCU barrier after the rmdirs: every removed cgroup's
 * deferred free has run), [3] rmdir + release.
 */
static int sample_churn(struct kstate *st, struct lab_bench *b, void *ctx, double *v)
{
	unsigned long n = st->g.churn_cgroups;
	uint64_t t0 = lab_now_ns(), t1, t2, t3;
	int ret = lab_bench_mkcg(b, n);

	(void)ctx;
	t1 = lab_now_ns();
	if (!ret)
		ret = lab_bench_rmcg(b, n);
	t2 = lab_now_ns();
	shr_rcu_barrier();
	t3 = lab_now_ns();
	v[0] = (double)(t1 - t0) / (double)n;
	v[1] = (double)(t2 - t1) / (double)n;
	v[2] = (double)(t3 - t2) / (double)n;
	v[3] = (double)(t3 - t1) / (double)n;
	return ret;
}

static int churn(struct kstate *st, const char *suffix)
{
	static const char *const what[4] = { "mkdir", "rmdir", "release", "rmdir_release" };
	static const char *const notes[4] = {
		"per cgroup, batch of Nr mkdirs",
		"per cgroup, batch of Nr rmdirs (offline runs inside rmdir here)",
		"per cgroup, from the last rmdir until every removed cgroup is freed (RCU barrier)",
		"per cgroup, from the first rmdir until every removed cgroup is freed",
	};
	struct lab_scale geo[MAX_DESIGNS];
	int ret = rounds(st, 0, st->g.churn_samples, "churn", sample_churn, NULL);

	if (ret)
		return ret;
	for (int k = 0; k < 4; k++) {
		char m[96];

		snprintf(m, sizeof(m), "%s_ns_per_cgroup%s", what[k], suffix);
		geos(st, st->g.churn_cgroups, notes[k], geo);
		add_rows(st, K_CHURN, k, m, st->g.churn_samples, geo);
	}
	return 0;
}

/* ---- high water ---- */

static int highwater(struct kstate *st, const struct cgcost *at0)
{
	unsigned long h = st->g.highwater_mounts;
	struct cgcost c[MAX_DESIGNS];
	struct lab_scale geo;
	char note[LAB_NOTE_LEN];
	int ret;

	snprintf(note, sizeof(note), "%lu mounts made and then unmounted", h);
	for (size_t i = 0; i < st->n; i++) {
		if (!ok(st, i))
			continue;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, K_HIGHWATER, i, "_before_mounts", &at0[i], &geo);
	}
	ret = mount_to(st, h);
	for (size_t i = 0; i < st->n && !ret; i++) {
		uint64_t t0;

		if (!ok(st, i))
			continue;
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			break;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, K_HIGHWATER, i, "_with_mounts", &c[i], &geo);
		lab_progress("%s: unmounting %lu", st->b[i].label, h);
		geo_of(st, i, 0, note, &geo);
		t0 = lab_now_ns();
		lab_bench_umount(&st->b[i], st->b[i].nr_sbs);
		lab_run_add_value(&st->runs[K_HIGHWATER], &st->b[i], "umount_ns_per_mount",
				  (double)(lab_now_ns() - t0) / (double)h, &geo);
		st->runs[K_HIGHWATER].rows[st->runs[K_HIGHWATER].nr_rows - 1].timed = true;
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			break;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, K_HIGHWATER, i, "_after_umount", &c[i], &geo);
	}
	return ret;
}

/* ---- registration ---- */

static int sample_batch(struct kstate *st, struct lab_bench *b, void *ctx, double *v)
{
	uint64_t t0 = lab_now_ns();
	int ret = lab_bench_mount(b, st->g.register_batch);

	(void)ctx;
	v[0] = (double)(lab_now_ns() - t0);
	return ret;
}

static int registration(struct kstate *st, unsigned long ncg)
{
	unsigned int n = st->g.register_samples;
	struct lab_scale geo0[MAX_DESIGNS], geo1[MAX_DESIGNS];
	char note[LAB_NOTE_LEN], m[96];
	int ret;

	snprintf(note, sizeof(note), "ns per batch of %lu mounts, each batch above every earlier "
		 "mount; one warm-up batch, the batches without cgroups, then those with",
		 st->g.register_batch);
	ret = rounds(st, 1, 0, "register warm-up", sample_batch, NULL);
	if (ret)
		return ret;
	geos(st, 0, note, geo0);
	ret = rounds(st, 0, n, "register, no cgroups", sample_batch, NULL);
	if (ret)
		return ret;
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_no_cgroups", st->g.register_batch);
	add_rows(st, K_REGISTER, 0, m, n, geo0);
	ret = mkcg_all(st, ncg);
	if (ret)
		return ret;
	geos(st, ncg, note, geo1);
	ret = rounds(st, 0, n, "register, cgroups alive", sample_batch, NULL);
	if (ret)
		return ret;
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_cgroups_alive", st->g.register_batch);
	add_rows(st, K_REGISTER, 0, m, n, geo1);
	return rmcg_all(st);
}

/* ---- the script ---- */

static int script(struct kstate *st)
{
	const struct kgeo *g = &st->g;
	struct cgcost c0[MAX_DESIGNS], ctop[MAX_DESIGNS];
	int reg_after = g->nr_ladder - 1;
	unsigned long top = mounts_for_units(g, g->ladder[g->nr_ladder - 1]);
	int ret;

	/* Rung 1: no mounts. */
	ret = units_rung(st, g->ladder[0], c0);
	if (!ret)
		ret = drop_pair(st, g->cgroups);
	if (!ret)
		ret = churn(st, "_no_mounts");
	if (!ret)
		ret = highwater(st, c0);
	if (ret)
		return ret;
	/* Registration below the top rung where its batches fit under it. */
	for (int i = g->nr_ladder - 2; i >= 1; i--)
		if (mounts_for_units(g, g->ladder[i]) +
		    (2 * g->register_samples + 1) * g->register_batch < top) {
			reg_after = i;
			break;
		}
	for (int i = 1; i < g->nr_ladder && !ret; i++) {
		ret = mount_to(st, mounts_for_units(g, g->ladder[i]));
		if (!ret)
			ret = units_rung(st, g->ladder[i], ctop);
		if (!ret && i == reg_after)
			ret = registration(st, g->register_cgroups);
	}
	/* Top rung: drop_caches against cgroups, and churn. */
	if (!ret)
		ret = drop_slope(st, g->top_cgroups);
	if (!ret)
		ret = churn(st, "");
	return ret;
}

/* ---- options ---- */

enum {
	OPT_DESIGN = SHRINKLAB_OPT_FIRST_OWN,
	OPT_LADDER,
	OPT_CGROUPS,
	OPT_REGISTER_CGROUPS,
	OPT_TOP_CGROUPS,
	OPT_UNITS_CGROUPS,
	OPT_CHURN_CGROUPS,
	OPT_SAMPLES,
	OPT_CHURN_SAMPLES,
	OPT_REGISTER_BATCH,
	OPT_REGISTER_SAMPLES,
	OPT_HIGHWATER_MOUNTS,
	OPT_WALK_POINTS,
	OPT_HOST_SHRINKERS,
	OPT_NODES,
	OPT_CPUS,
	OPT_JSON,
	OPT_QUIET,
};

static const struct option kernel_options[] = {
	{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
	{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
	{ "design", required_argument, NULL, OPT_DESIGN },
	{ "ladder", required_argument, NULL, OPT_LADDER },
	{ "cgroups", required_argument, NULL, OPT_CGROUPS },
	{ "register-cgroups", required_argument, NULL, OPT_REGISTER_CGROUPS },
	{ "top-cgroups", required_argument, NULL, OPT_TOP_CGROUPS },
	{ "units-cgroups", required_argument, NULL, OPT_UNITS_CGROUPS },
	{ "churn-cgroups", required_argument, NULL, OPT_CHURN_CGROUPS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "churn-samples", required_argument, NULL, OPT_CHURN_SAMPLES },
	{ "register-batch", required_argument, NULL, OPT_REGISTER_BATCH },
	{ "register-samples", required_argument, NULL, OPT_REGISTER_SAMPLES },
	{ "highwater-mounts", required_argument, NULL, OPT_HIGHWATER_MOUNTS },
	{ "walk-points", required_argument, NULL, OPT_WALK_POINTS },
	{ "host-shrinkers", required_argument, NULL, OPT_HOST_SHRINKERS },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab kernel --design D [--design D]... [geometry options]\n"
		"                        [--json FILE] [--quiet]\n"
		"\n"
		"Run the kernel lab's guest experiments (kernel/guest/klab-guest.c) in the\n"
		"model, at the guest's geometry, one host per design configuration, side by\n"
		"side: memory of empty cgroups up the unit ladder, high water after unmount,\n"
		"registration of a batch of mounts with and without cgroups, drop_caches with\n"
		"and without cgroups and its slope, mkdir/rmdir/release of cgroups. Metric\n"
		"names are the guest's; kernel/klab lab puts the two side by side.\n"
		"\n"
		"  --design D            a design configuration, as the lab labels it:\n"
		"                        DESIGN[+units=cache|kmalloc][+lru_reparent=all|index]\n"
		"                        [+root_bits=off][+expand_batch=N]; repeatable\n"
		"geometry (the guest's options; defaults: the guest's full geometry):\n"
		"  --ladder U,U,...      units per node of the rungs, from 1, rising\n"
		"                        (1,35,126,314)\n"
		"  --cgroups N           empty cgroups for drop_caches at 0 mounts (2000)\n"
		"  --register-cgroups N  cgroups alive during registration (--cgroups)\n"
		"  --top-cgroups N       cgroups at the top rung's drop_caches (--cgroups)\n"
		"  --units-cgroups N     cgroups per memory figure (200)\n"
		"  --churn-cgroups N     cgroups per mkdir/rmdir/release sample (1000)\n"
		"  --samples S           drop_caches samples after a warm-up, 1..64 (5)\n"
		"  --churn-samples S     1..64 (3)\n"
		"  --register-batch B    mounts per registration sample (640)\n"
		"  --register-samples S  batches without and with cgroups, 1..64 (5)\n"
		"  --highwater-mounts H  mounts made and unmounted again (2000)\n"
		"  --walk-points P       points of the drop_caches slope, 2..32 (5)\n"
		"  --host-shrinkers K    memcg-aware shrinker ids taken before the workload\n"
		"                        (the guest's boot shrinkers + 4; default 22); at\n"
		"                        most the first rung's ids (64 per unit)\n"
		"  --nodes K             NUMA nodes (4)\n"
		"  --cpus C              CPUs for the slab geometry (2)\n"
		"output:\n"
		"  --json FILE           the results as JSON (schema shrinklab/2); '-' writes\n"
		"                        it to standard output and the tables to stderr\n"
		"  --quiet               no progress line\n"
		"  --version, --help\n");
	shrinklab_print_exit_codes(out);
}

static int parse_ladder(const char *s, struct kgeo *g)
{
	char *end;

	g->nr_ladder = 0;
	while (*s) {
		unsigned long u;

		if (g->nr_ladder == MAX_RUNGS || *s < '0' || *s > '9')
			return -EINVAL;
		u = strtoul(s, &end, 10);
		if (u < 1 || u > 100000 || (g->nr_ladder && u <= g->ladder[g->nr_ladder - 1]))
			return -EINVAL;
		g->ladder[g->nr_ladder++] = (unsigned int)u;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -EINVAL;
		s = end;
	}
	return g->nr_ladder && g->ladder[0] == 1 ? 0 : -EINVAL;
}

struct kcli {
	struct kgeo g;
	bool register_given, top_given;
	struct lab_design designs[MAX_DESIGNS];
	size_t nr_designs;
	const char *json;
	bool quiet;
};

/* A count option: [min, max]. */
static int count_opt(const char *opt, const char *v, unsigned long min, unsigned long max,
		     unsigned long *out)
{
	char what[64];

	if (!lab_parse_ulong(v, min, max, out))
		return 0;
	snprintf(what, sizeof(what), "expected a whole number %lu..%lu", min, max);
	return shrinklab_bad_value("kernel", opt, v, what);
}

static int parse_value(struct kcli *c, int opt, const char *v)
{
	struct kgeo *g = &c->g;
	unsigned long n = 0;
	char why[160];
	int ret;

	switch (opt) {
	case OPT_DESIGN:
		if (c->nr_designs == MAX_DESIGNS)
			return shrinklab_bad_value("kernel", "--design", v, "too many designs");
		if (lab_design_parse_label(v, &c->designs[c->nr_designs], why, sizeof(why)))
			return shrinklab_bad_value("kernel", "--design", v, why);
		c->nr_designs++;
		return 0;
	case OPT_LADDER:
		if (parse_ladder(v, g))
			return shrinklab_bad_value("kernel", "--ladder", v,
						   "expected rising units per node from 1, "
						   "e.g. 1,35,126,314 (at most 8)");
		return 0;
	case OPT_CGROUPS:
		return count_opt("--cgroups", v, 1, 60000, &g->cgroups);
	case OPT_REGISTER_CGROUPS:
		c->register_given = true;
		return count_opt("--register-cgroups", v, 1, 60000, &g->register_cgroups);
	case OPT_TOP_CGROUPS:
		c->top_given = true;
		return count_opt("--top-cgroups", v, 1, 60000, &g->top_cgroups);
	case OPT_UNITS_CGROUPS:
		return count_opt("--units-cgroups", v, 1, 60000, &g->units_cgroups);
	case OPT_CHURN_CGROUPS:
		return count_opt("--churn-cgroups", v, 1, 60000, &g->churn_cgroups);
	case OPT_REGISTER_BATCH:
		return count_opt("--register-batch", v, 1, 1000000, &g->register_batch);
	case OPT_HIGHWATER_MOUNTS:
		return count_opt("--highwater-mounts", v, 1, 10000000, &g->highwater_mounts);
	case OPT_SAMPLES:
		ret = count_opt("--samples", v, 1, MAX_SAMPLES, &n);
		g->samples = (unsigned int)n;
		return ret;
	case OPT_CHURN_SAMPLES:
		ret = count_opt("--churn-samples", v, 1, MAX_SAMPLES, &n);
		g->churn_samples = (unsigned int)n;
		return ret;
	case OPT_REGISTER_SAMPLES:
		ret = count_opt("--register-samples", v, 1, MAX_SAMPLES, &n);
		g->register_samples = (unsigned int)n;
		return ret;
	case OPT_WALK_POINTS:
		ret = count_opt("--walk-points", v, 2, MAX_POINTS, &n);
		g->walk_points = (unsigned int)n;
		return ret;
	case OPT_HOST_SHRINKERS:
		ret = count_opt("--host-shrinkers", v, 0, 100000, &n);
		g->host_shrinkers = (unsigned int)n;
		return ret;
	case OPT_NODES:
		ret = count_opt("--nodes", v, 1, SHR_MAX_NUMNODES, &n);
		g->nodes = (int)n;
		return ret;
	case OPT_CPUS:
		ret = count_opt("--cpus", v, 1, 65536, &n);
		g->cpus = (unsigned int)n;
		return ret;
	case OPT_JSON:
		c->json = v;
		return 0;
	default:
		return -1;
	}
}

static void defaults(struct kcli *c)
{
	static const struct kgeo full = {
		.ladder = { 1, 35, 126, 314 }, .nr_ladder = 4,
		.cgroups = 2000, .units_cgroups = 200, .churn_cgroups = 1000,
		.highwater_mounts = 2000, .register_batch = 640,
		.samples = 5, .churn_samples = 3, .register_samples = 5, .walk_points = 5,
		.host_shrinkers = 22, .nodes = 4, .cpus = 2,
	};

	memset(c, 0, sizeof(*c));
	c->g = full;
}

/* 1 = --help/--version printed, 0 = go, -1 = bad usage (printed). */
static int parse(int argc, char **argv, struct kcli *c)
{
	static const int repeatable[] = { OPT_DESIGN, 0 };
	struct shrinklab_getopt g;
	int opt;

	shrinklab_getopt_init(&g, "kernel", ":h", kernel_options, repeatable);
	while ((opt = shrinklab_getopt_next(&g, argc, argv)) != -1) {
		switch (opt) {
		case -2:
			return -1;
		case SHRINKLAB_OPT_HELP:
			usage(stdout);
			return 1;
		case SHRINKLAB_OPT_VERSION:
			shrinklab_print_version(stdout);
			return 1;
		case OPT_QUIET:
			c->quiet = true;
			break;
		default:
			if (parse_value(c, opt, optarg))
				return -1;
		}
	}
	if (optind < argc) {
		shrinklab_error("kernel", "unexpected argument '%s' (see 'shrinklab kernel --help')",
				argv[optind]);
		return -1;
	}
	if (!c->nr_designs) {
		shrinklab_error("kernel", "--design is required (see 'shrinklab kernel --help')");
		return -1;
	}
	if (c->g.host_shrinkers > c->g.ladder[0] * 64u) {
		/* The rung would be labelled with fewer units than its ids span. */
		shrinklab_error("kernel", "--host-shrinkers %u: more ids than the ladder's first "
				"rung holds (%u unit(s) per node, %u ids); the host's shrinkers "
				"alone span %u units", c->g.host_shrinkers, c->g.ladder[0],
				c->g.ladder[0] * 64u, (c->g.host_shrinkers + 63) / 64);
		return -1;
	}
	if (!c->register_given)
		c->g.register_cgroups = c->g.cgroups;
	if (!c->top_given)
		c->g.top_cgroups = c->g.cgroups;
	return 0;
}

/* Each design configuration must be one this library accepts. */
static int check_designs(const struct kcli *c)
{
	for (size_t i = 0; i < c->nr_designs; i++) {
		const struct lab_design *d = &c->designs[i];
		struct shr_host_params p;
		char label[LAB_LABEL_LEN];
		const char *why = NULL;

		shr_host_params_init(&p);
		p.design = d->design;
		p.units = d->units;
		p.expand_batch = d->expand_batch;
		p.nonslab_ids = d->nonslab_ids;
		p.lru_reparent = d->lru_reparent;
		p.nr_nodes = c->g.nodes;
		lab_design_label(d, label, sizeof(label));
		if (shr_host_params_check(&p, &why)) {
			shrinklab_error("kernel", "--design %s: %s", label, why);
			return -EINVAL;
		}
		for (size_t k = 0; k < i; k++) {
			char other[LAB_LABEL_LEN];

			lab_design_label(&c->designs[k], other, sizeof(other));
			if (!strcmp(other, label)) {
				shrinklab_error("kernel", "--design %s given twice", label);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* ---- report ---- */

static void report(FILE *out, const struct kstate *st)
{
	for (int e = 0; e < K_NR_EXP; e++) {
		const struct lab_run *run = &st->runs[e];

		fprintf(out, "\n== %s (model, %.1f s)\n", run->exp->id,
			(double)run->elapsed_ns / 1e9);
		for (size_t i = 0; i < run->nr_rows; i++) {
			const struct lab_result *r = &run->rows[i];
			char v[32], lo[32], hi[32];

			if (r->unavailable) {
				fprintf(out, "   %-36s %-50s unavailable: %s\n", r->design, r->metric,
					r->scale.note);
				continue;
			}
			lab_fmt_value(v, sizeof(v), r->value, r->unit);
			fprintf(out, "   %-36s %-50s %12s", r->design, r->metric, v);
			if (r->n > 1) {
				lab_fmt_value(lo, sizeof(lo), r->min, r->unit);
				lab_fmt_value(hi, sizeof(hi), r->max, r->unit);
				fprintf(out, "  n=%zu [%s..%s]", r->n, lo, hi);
			}
			fprintf(out, "  at %lu mounts, %lu cgroups, %ld units\n", r->scale.mounts,
				r->scale.cgroups, r->scale.units);
		}
	}
}

/* ---- the subcommand ---- */

static void open_all(struct kstate *st)
{
	struct lab_scale s = { .nodes = st->g.nodes, .cpus = st->g.cpus, .kmem = true,
			       .host_shrinkers = st->g.host_shrinkers, .shrinker_nr_max = -1,
			       .units = -1 };

	for (size_t i = 0; i < st->n; i++) {
		if (!lab_bench_open(&st->b[i], &st->designs[i], &s))
			continue;
		if (!st->b[i].why)
			st->b[i].why = "could not be created";
		for (int e = 0; e < K_NR_EXP; e++) {
			struct lab_host_info *h = &st->runs[e].hosts[i];

			snprintf(h->label, sizeof(h->label), "%s", st->b[i].label);
			h->why = st->b[i].why;
			for (size_t m = 0; m < st->exps[e].nr_metrics; m++) {
				struct lab_result *r = lab_run_add(&st->runs[e], st->b[i].label,
								   st->exps[e].metrics[m].name);

				r->unavailable = true;
				r->scale = s;
				snprintf(r->scale.note, sizeof(r->scale.note), "unavailable: %s",
					 st->b[i].why);
			}
		}
		lab_bench_close(&st->b[i]);
	}
}

static void record_hosts(struct kstate *st)
{
	for (size_t i = 0; i < st->n; i++) {
		if (!ok(st, i))
			continue;
		for (int e = 0; e < K_NR_EXP; e++) {
			struct lab_host_info *h = &st->runs[e].hosts[i];

			snprintf(h->label, sizeof(h->label), "%s", st->b[i].label);
			h->available = true;
			lab_bench_geometry(&st->b[i], &h->geo);
		}
	}
}

static void describe(const struct kgeo *g, char *buf, size_t len)
{
	int n = snprintf(buf, len, "the kernel guest's geometry: ladder");

	for (int i = 0; i < g->nr_ladder && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%u", i ? "," : " ", g->ladder[i]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " units per node (%u host shrinker ids), N=%lu "
			 "(register %lu, top %lu), Nu=%lu, Nr=%lu, H=%lu, B=%lu, %d nodes, %u CPUs",
			 g->host_shrinkers, g->cgroups, g->register_cgroups, g->top_cgroups,
			 g->units_cgroups, g->churn_cgroups, g->highwater_mounts, g->register_batch,
			 g->nodes, g->cpus);
}

static int run_kernel(struct kcli *c)
{
	static struct kstate st;
	struct lab_output json;
	struct lab_options opt;
	char err[512];
	uint64_t t0 = lab_now_ns();
	FILE *out;
	int ret;

	if (check_designs(c))
		return SHRINKLAB_EXIT_USAGE;
	if (lab_output_open(&json, c->json, err, sizeof(err))) {
		shrinklab_error("kernel", "--json '%s': %s", c->json, err);
		return SHRINKLAB_EXIT_USAGE;
	}
	memset(&st, 0, sizeof(st));
	st.g = c->g;
	st.n = c->nr_designs;
	memcpy(st.designs, c->designs, sizeof(c->designs));
	build_tables(&st);
	for (int e = 0; e < K_NR_EXP; e++) {
		struct lab_run *r = &st.runs[e];

		r->exp = &st.exps[e];
		r->scale = st.exps[e].seed_scale;
		r->scale.cgroups = e == K_REGISTER ? st.g.register_cgroups : st.g.cgroups;
		describe(&st.g, r->scale_desc, sizeof(r->scale_desc));
		memcpy(r->designs, st.designs, st.n * sizeof(st.designs[0]));
		r->nr_designs = st.n;
	}
	out = json.fd == 1 ? stderr : stdout;
	lab_progress_enable(!c->quiet);
	fprintf(out, "shrinklab kernel: the kernel guest's experiments in the model\n");
	describe(&st.g, err, sizeof(err));
	fprintf(out, "%s\n", err);
	shrinklab_print_version(out);
	open_all(&st);
	ret = script(&st);
	lab_progress_done();
	if (!ret)
		record_hosts(&st);
	for (size_t i = 0; i < st.n; i++)
		lab_bench_close(&st.b[i]);
	for (int e = 0; e < K_NR_EXP; e++)
		st.runs[e].elapsed_ns = lab_now_ns() - t0;
	if (ret) {
		shrinklab_error("kernel", "the experiments failed: %s", strerror(-ret));
		lab_output_abandon(&json);
		goto out;
	}
	for (int e = 0; e < K_NR_EXP; e++)
		lab_run_sort(&st.runs[e]);
	report(out, &st);
	fprintf(out, "\npeak RSS %.2f GiB, %.1f s in all\n", (double)lab_peak_rss() / (1ull << 30),
		(double)(lab_now_ns() - t0) / 1e9);
	if (json.path) {
		struct lab_json_context ctx = { .subcommand = "kernel", .opt = &opt };
		FILE *f = lab_output_begin(&json);

		lab_options_init(&opt);
		snprintf(opt.scale_name, sizeof(opt.scale_name), "custom");
		opt.samples = st.g.samples;
		ctx.argc = shrinklab_command(&ctx.argv);
		ctx.elapsed_ns = lab_now_ns() - t0;
		ret = f ? lab_json_write(f, st.runs, K_NR_EXP, &ctx) : -errno;
		if (f) {
			int end = lab_output_end(&json, f);

			ret = ret ? ret : end;
		}
		if (ret) {
			shrinklab_error("kernel", "--json '%s': writing failed: %s", json.path,
					strerror(-ret));
			lab_output_abandon(&json);
		}
	}
out:
	for (int e = 0; e < K_NR_EXP; e++)
		lab_run_free(&st.runs[e]);
	return ret ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}

int shrinklab_kernel(int argc, char **argv)
{
	struct kcli c;
	int ret;

	defaults(&c);
	ret = parse(argc, argv, &c);
	if (ret)
		return ret > 0 ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
	return run_kernel(&c);
}
