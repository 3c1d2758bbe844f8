/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's guest experiments in the model (kernel_experiments.h):
 * kernel/guest/klab-guest.c's script, run at the guest's geometry, so that
 * each kernel design can be put beside the same design in the model on the
 * same work (kernel/klab lab does the join; shrinklab kernel runs it).
 *
 * The script is klab-guest's, step for step, on one model host per design
 * configuration, side by side through the lockstep sampler (lockstep.h:
 * every timed sample is taken on every host in turn, after an RCU barrier,
 * as shrinklab's other experiments do):
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "bench.h"
#include "kernel_experiments.h"
#include "lockstep.h"
#include "rows.h"
#include "stats.h"

#define NR_CACHES 3

/* The caches the guest counts objects of, by their kernel names. */
static const char *const cache_names[NR_CACHES] = {
	"kmalloc-1k", "radix_tree_node", "shrinker_info_unit",
};

static const char *const exp_ids[LAB_K_NR_EXP] = {
	"units", "drop_caches", "churn", "highwater", "register",
};
static const char *const exp_titles[LAB_K_NR_EXP] = {
	"no seed: memory of an empty cgroup up the unit ladder (kernel lab, klab-guest)",
	"no seed: drop_caches with and without empty cgroups (kernel lab, klab-guest)",
	"no seed: mkdir, rmdir and release of cgroups (kernel lab, klab-guest)",
	"no seed: memory of an empty cgroup after the mounts are gone (kernel lab, klab-guest)",
	"no seed: registering a batch of mounts with and without cgroups (kernel lab, klab-guest)",
};

/* ---- metric tables ---- */

static void metric(struct lab_kernel_lab *st, enum lab_kernel_exp e, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void metric(struct lab_kernel_lab *st, enum lab_kernel_exp e, const char *unit, const char *fmt, ...)
{
	struct lab_experiment *x = &st->exps[e];
	size_t k = x->nr_metrics;
	va_list ap;

	if (k == LAB_KERNEL_MAX_METRICS)
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

static void cost_metrics(struct lab_kernel_lab *st, enum lab_kernel_exp e, const char *suffix)
{
	char c[48];

	metric(st, e, "B", "slab_bytes_per_empty_cgroup%s", suffix);
	for (int i = 0; i < NR_CACHES; i++) {
		cache_metric_name(cache_names[i], c, sizeof(c));
		metric(st, e, "count", "%s_objs_per_empty_cgroup%s", c, suffix);
	}
}

static void churn_metrics(struct lab_kernel_lab *st, const char *suffix)
{
	metric(st, LAB_K_CHURN, "ns", "mkdir_ns_per_cgroup%s", suffix);
	metric(st, LAB_K_CHURN, "ns", "rmdir_ns_per_cgroup%s", suffix);
	metric(st, LAB_K_CHURN, "ns", "release_ns_per_cgroup%s", suffix);
	metric(st, LAB_K_CHURN, "ns", "rmdir_release_ns_per_cgroup%s", suffix);
}

static void build_tables(struct lab_kernel_lab *st)
{
	const struct lab_kernel_geometry *g = &st->g;
	char s[32];

	for (int e = 0; e < LAB_K_NR_EXP; e++) {
		struct lab_experiment *x = &st->exps[e];

		memset(x, 0, sizeof(*x));
		x->id = exp_ids[e];
		x->title = exp_titles[e];
		x->metrics = st->metrics[e];
		x->seed_scale = (struct lab_scale){ .nodes = (int)g->nodes,
						    .cpus = (unsigned int)g->cpus, .kmem = true,
						    .host_shrinkers = (unsigned int)g->host_shrinkers,
						    .shrinker_nr_max = -1, .units = -1 };
	}
	for (int i = 0; i < g->nr_ladder; i++) {
		snprintf(s, sizeof(s), "_%uu", g->ladder[i]);
		cost_metrics(st, LAB_K_UNITS, s);
	}
	metric(st, LAB_K_DROP, "ns", "drop_caches_ns_no_cgroups_no_mounts");
	metric(st, LAB_K_DROP, "ns", "drop_caches_ns_no_mounts");
	metric(st, LAB_K_DROP, "ns", "drop_caches_ns_no_cgroups");
	metric(st, LAB_K_DROP, "ns", "drop_caches_ns");
	metric(st, LAB_K_DROP, "ns", "drop_caches_ns_per_empty_cgroup");
	churn_metrics(st, "_no_mounts");
	churn_metrics(st, "");
	cost_metrics(st, LAB_K_HIGHWATER, "_before_mounts");
	cost_metrics(st, LAB_K_HIGHWATER, "_with_mounts");
	metric(st, LAB_K_HIGHWATER, "ns", "umount_ns_per_mount");
	cost_metrics(st, LAB_K_HIGHWATER, "_after_umount");
	metric(st, LAB_K_REGISTER, "ns", "register_%lu_mounts_ns_no_cgroups", g->register_batch);
	metric(st, LAB_K_REGISTER, "ns", "register_%lu_mounts_ns_cgroups_alive", g->register_batch);
}

/* ---- benches ---- */

/* Mounts that make the ids span @units units per node (0 for 1 unit). */
static unsigned long mounts_for_units(const struct lab_kernel_geometry *g, unsigned int units)
{
	long m = (long)units * 64 - (long)g->host_shrinkers;

	return units <= 1 || m < 0 ? 0 : (unsigned long)m;
}

static int mount_to(struct lab_kernel_lab *st, unsigned long target)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!lab_bench_ok(&st->b[i]) || st->b[i].nr_sbs >= target)
			continue;
		lab_progress("%s: mounting %zu -> %lu", st->b[i].label, st->b[i].nr_sbs, target);
		ret = lab_bench_mount(&st->b[i], target - st->b[i].nr_sbs);
		if (ret)
			return ret;
	}
	return 0;
}

/* The row's geometry: the bench now, with the cgroups the guest reports. */
static void geo_of(const struct lab_kernel_lab *st, size_t i, unsigned long cgroups, const char *note,
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
static int measure_cgroups(struct lab_kernel_lab *st, size_t i, unsigned long n, struct cgcost *c)
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

static void cost_rows(struct lab_kernel_lab *st, enum lab_kernel_exp e, size_t i, const char *suffix,
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

static int units_rung(struct lab_kernel_lab *st, unsigned int units, struct cgcost *c)
{
	char suffix[32], note[LAB_NOTE_LEN];

	snprintf(suffix, sizeof(suffix), "_%uu", units);
	for (size_t i = 0; i < st->n; i++) {
		struct lab_scale geo;
		int ret;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		lab_progress("%s: units %u, %lu cgroups", st->b[i].label, units,
			     st->g.units_cgroups);
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			return ret;
		snprintf(note, sizeof(note), "%lu memcg-aware shrinkers registered (%lu host + %zu "
			 "mounts); the ladder's rung: %u units per node", st->b[i].nr_host_sbs +
			 st->b[i].nr_sbs, st->g.host_shrinkers, st->b[i].nr_sbs, units);
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, LAB_K_UNITS, i, suffix, &c[i], &geo);
	}
	return 0;
}

/* ---- timed rounds ---- */

/* drop_caches samples (one warm-up pass) with the cgroups there are now. */
static int drop_rounds(struct lab_kernel_lab *st)
{
	return lab_lockstep_rounds(st->b, st->n, 1, (unsigned int)st->g.samples, "drop_caches",
				   lab_sample_drop_caches, NULL, LAB_MAX_VALUES, st->v);
}

static void add_rows(struct lab_kernel_lab *st, enum lab_kernel_exp e, int k, const char *metric,
		     unsigned long n, const struct lab_scale *geo)
{
	lab_lockstep_add_samples(&st->runs[e], st->b, st->n, metric, st->v[k], (unsigned int)n, geo);
}

static void geos(struct lab_kernel_lab *st, unsigned long cgroups, const char *note,
		 struct lab_scale *geo)
{
	for (size_t i = 0; i < st->n; i++)
		if (lab_bench_ok(&st->b[i]))
			geo_of(st, i, cgroups, note, &geo[i]);
}

static int mkcg_all(struct lab_kernel_lab *st, unsigned long n)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		lab_progress("%s: %lu cgroups", st->b[i].label, n);
		ret = lab_bench_mkcg(&st->b[i], n);
		if (ret)
			return ret;
	}
	return 0;
}

static int rmcg_all(struct lab_kernel_lab *st)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		ret = lab_bench_rmcg(&st->b[i], st->b[i].nr_cgs);
		if (ret)
			return ret;
	}
	shr_rcu_barrier();
	return 0;
}

/* drop_caches with 0 and @ncg empty cgroups (at 0 mounts). */
static int drop_pair(struct lab_kernel_lab *st, unsigned long ncg)
{
	struct lab_scale geo[LAB_MAX_DESIGNS];
	const char *note = "shr_drop_caches() (echo 2 > drop_caches), after one warm-up pass";
	int ret;

	geos(st, 0, note, geo);
	ret = drop_rounds(st);
	if (ret)
		return ret;
	add_rows(st, LAB_K_DROP, 0, "drop_caches_ns_no_cgroups_no_mounts", st->g.samples, geo);
	ret = mkcg_all(st, ncg);
	if (!ret)
		ret = drop_rounds(st);
	if (ret)
		return ret;
	geos(st, ncg, note, geo);
	add_rows(st, LAB_K_DROP, 0, "drop_caches_ns_no_mounts", st->g.samples, geo);
	return rmcg_all(st);
}

/* Slope of the drop_caches median against 0..@ncg empty cgroups. */
static int drop_slope(struct lab_kernel_lab *st, unsigned long ncg)
{
	unsigned int p = st->g.walk_points < 2 ? 2 : (unsigned int)st->g.walk_points;
	static double y[LAB_MAX_DESIGNS][LAB_KERNEL_MAX_POINTS];
	double x[LAB_KERNEL_MAX_POINTS];
	struct lab_scale geo[LAB_MAX_DESIGNS];
	char note[LAB_NOTE_LEN];
	unsigned long made = 0;
	int ret;

	if (p > LAB_KERNEL_MAX_POINTS)
		p = LAB_KERNEL_MAX_POINTS;
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

			if (!lab_bench_ok(&st->b[i]))
				continue;
			lab_stats_of(st->v[0][i], st->g.samples, &s);
			y[i][j] = s.median;
		}
		if (j == 0)
			add_rows(st, LAB_K_DROP, 0, "drop_caches_ns_no_cgroups", st->g.samples, geo);
		if (j == p - 1)
			add_rows(st, LAB_K_DROP, 0, "drop_caches_ns", st->g.samples, geo);
	}
	snprintf(note, sizeof(note), "least-squares slope of the median over %u points, 0..%lu "
		 "empty cgroups", p, ncg);
	geos(st, ncg, note, geo);
	for (size_t i = 0; i < st->n; i++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		for (unsigned int j = 0; j < p; j++) {
			sx += x[j];
			sy += y[i][j];
			sxx += x[j] * x[j];
			sxy += x[j] * y[i][j];
		}
		lab_run_add_value(&st->runs[LAB_K_DROP], &st->b[i], "drop_caches_ns_per_empty_cgroup",
				  (p * sxy - sx * sy) / (p * sxx - sx * sx), &geo[i]);
	}
	return rmcg_all(st);
}

/* mkdir, rmdir, release of Nr cgroups (lab_sample_churn()): the rows
 * <what>_ns_per_cgroup<suffix>. */
static int churn(struct lab_kernel_lab *st, const char *suffix)
{
	static const char *const what[4] = { "mkdir", "rmdir", "release", "rmdir_release" };
	static const int value[4] = { LAB_CHURN_MKDIR, LAB_CHURN_RMDIR, LAB_CHURN_RELEASE,
				      LAB_CHURN_RMDIR_RELEASE };
	static const char *const notes[4] = {
		"per cgroup, batch of Nr mkdirs",
		"per cgroup, batch of Nr rmdirs (offline runs inside rmdir here)",
		"per cgroup, from the last rmdir until every removed cgroup is freed (RCU barrier)",
		"per cgroup, from the first rmdir until every removed cgroup is freed",
	};
	struct lab_scale geo[LAB_MAX_DESIGNS];
	int ret = lab_lockstep_rounds(st->b, st->n, 0, (unsigned int)st->g.churn_samples, "churn",
				      lab_sample_churn, &st->g.churn_cgroups, LAB_MAX_VALUES,
				      st->v);

	if (ret)
		return ret;
	for (int k = 0; k < 4; k++) {
		char m[96];

		snprintf(m, sizeof(m), "%s_ns_per_cgroup%s", what[k], suffix);
		geos(st, st->g.churn_cgroups, notes[k], geo);
		add_rows(st, LAB_K_CHURN, value[k], m, st->g.churn_samples, geo);
		lab_lockstep_resolution(&st->runs[LAB_K_CHURN], st->b, st->n, m, LAB_CLOCK_WALL,
					NULL, (double)st->g.churn_cgroups);
	}
	return 0;
}

/* ---- high water ---- */

static int highwater(struct lab_kernel_lab *st, const struct cgcost *at0)
{
	unsigned long h = st->g.highwater_mounts;
	struct cgcost c[LAB_MAX_DESIGNS];
	struct lab_scale geo;
	char note[LAB_NOTE_LEN];
	int ret;

	snprintf(note, sizeof(note), "%lu mounts made and then unmounted", h);
	for (size_t i = 0; i < st->n; i++) {
		if (!lab_bench_ok(&st->b[i]))
			continue;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, LAB_K_HIGHWATER, i, "_before_mounts", &at0[i], &geo);
	}
	ret = mount_to(st, h);
	for (size_t i = 0; i < st->n && !ret; i++) {
		uint64_t t0;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			break;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, LAB_K_HIGHWATER, i, "_with_mounts", &c[i], &geo);
		lab_progress("%s: unmounting %lu", st->b[i].label, h);
		geo_of(st, i, 0, note, &geo);
		t0 = lab_now_ns();
		lab_bench_umount(&st->b[i], st->b[i].nr_sbs);
		lab_run_add_value(&st->runs[LAB_K_HIGHWATER], &st->b[i], "umount_ns_per_mount",
				  (double)(lab_now_ns() - t0) / (double)h, &geo);
		st->runs[LAB_K_HIGHWATER].rows[st->runs[LAB_K_HIGHWATER].nr_rows - 1].timed = true;
		lab_run_set_resolution(&st->runs[LAB_K_HIGHWATER], st->b[i].label,
				       "umount_ns_per_mount", LAB_CLOCK_WALL, (double)h);
		ret = measure_cgroups(st, i, st->g.units_cgroups, &c[i]);
		if (ret)
			break;
		geo_of(st, i, st->g.units_cgroups, note, &geo);
		cost_rows(st, LAB_K_HIGHWATER, i, "_after_umount", &c[i], &geo);
	}
	return ret;
}

/* ---- registration ---- */

static int registration(struct lab_kernel_lab *st, unsigned long ncg)
{
	unsigned int n = (unsigned int)st->g.register_samples;
	struct lab_scale geo0[LAB_MAX_DESIGNS], geo1[LAB_MAX_DESIGNS];
	char note[LAB_NOTE_LEN], m[96];
	int ret;

	snprintf(note, sizeof(note), "ns per batch of %lu mounts, each batch above every earlier "
		 "mount; one warm-up batch, the batches without cgroups, then those with",
		 st->g.register_batch);
	ret = lab_lockstep_rounds(st->b, st->n, 1, 0, "register warm-up", lab_sample_mounts,
				  &st->g.register_batch, LAB_MAX_VALUES, st->v);
	if (ret)
		return ret;
	geos(st, 0, note, geo0);
	ret = lab_lockstep_rounds(st->b, st->n, 0, n, "register, no cgroups", lab_sample_mounts,
				  &st->g.register_batch, LAB_MAX_VALUES, st->v);
	if (ret)
		return ret;
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_no_cgroups", st->g.register_batch);
	add_rows(st, LAB_K_REGISTER, 0, m, n, geo0);
	ret = mkcg_all(st, ncg);
	if (ret)
		return ret;
	geos(st, ncg, note, geo1);
	ret = lab_lockstep_rounds(st->b, st->n, 0, n, "register, cgroups alive", lab_sample_mounts,
				  &st->g.register_batch, LAB_MAX_VALUES, st->v);
	if (ret)
		return ret;
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_cgroups_alive", st->g.register_batch);
	add_rows(st, LAB_K_REGISTER, 0, m, n, geo1);
	return rmcg_all(st);
}

/* ---- the script ---- */

static int script(struct lab_kernel_lab *st)
{
	const struct lab_kernel_geometry *g = &st->g;
	struct cgcost c0[LAB_MAX_DESIGNS], ctop[LAB_MAX_DESIGNS];
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

/* ---- the run ---- */

void lab_kernel_geometry_full(struct lab_kernel_geometry *g)
{
	static const struct lab_kernel_geometry full = {
		.ladder = { 1, 35, 126, 314 }, .nr_ladder = 4,
		.cgroups = 2000, .units_cgroups = 200, .churn_cgroups = 1000,
		.highwater_mounts = 2000, .register_batch = 640,
		.samples = 5, .churn_samples = 3, .register_samples = 5, .walk_points = 5,
		.host_shrinkers = 22, .nodes = 4, .cpus = 2,
	};

	*g = full;
}

void lab_kernel_describe(const struct lab_kernel_geometry *g, char *buf, size_t len)
{
	int n = snprintf(buf, len, "the kernel guest's geometry: ladder");

	for (int i = 0; i < g->nr_ladder && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%u", i ? "," : " ", g->ladder[i]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " units per node (%lu host shrinker ids), N=%lu "
			 "(register %lu, top %lu), Nu=%lu, Nr=%lu, H=%lu, B=%lu, %lu nodes, %lu CPUs",
			 g->host_shrinkers, g->cgroups, g->register_cgroups, g->top_cgroups,
			 g->units_cgroups, g->churn_cgroups, g->highwater_mounts, g->register_batch,
			 g->nodes, g->cpus);
}

void lab_kernel_init(struct lab_kernel_lab *st, const struct lab_kernel_geometry *g,
		     const struct lab_design *designs, size_t n)
{
	memset(st, 0, sizeof(*st));
	st->g = *g;
	st->n = n;
	memcpy(st->designs, designs, n * sizeof(*designs));
	build_tables(st);
	for (int e = 0; e < LAB_K_NR_EXP; e++) {
		struct lab_run *r = &st->runs[e];

		r->exp = &st->exps[e];
		r->scale = st->exps[e].seed_scale;
		r->scale.cgroups = e == LAB_K_REGISTER ? st->g.register_cgroups : st->g.cgroups;
		lab_kernel_describe(&st->g, r->scale_desc, sizeof(r->scale_desc));
		memcpy(r->designs, st->designs, st->n * sizeof(st->designs[0]));
		r->nr_designs = st->n;
	}
}

int lab_kernel_run(struct lab_kernel_lab *st)
{
	struct lab_scale s = st->exps[0].seed_scale;
	uint64_t t0 = lab_now_ns();
	int ret;

	lab_lockstep_open(st->b, st->designs, st->n, &s);
	for (int e = 0; e < LAB_K_NR_EXP; e++)
		lab_lockstep_unavailable(&st->runs[e], st->b, st->n, &s);
	ret = script(st);
	lab_progress_done();
	for (int e = 0; e < LAB_K_NR_EXP && !ret; e++)
		lab_lockstep_record_hosts(&st->runs[e], st->b, st->n);
	lab_lockstep_close(st->b, st->n);
	for (int e = 0; e < LAB_K_NR_EXP; e++) {
		st->runs[e].elapsed_ns = lab_now_ns() - t0;
		if (!ret)
			lab_run_sort(&st->runs[e]);
	}
	return ret;
}

void lab_kernel_free(struct lab_kernel_lab *st)
{
	for (int e = 0; e < LAB_K_NR_EXP; e++)
		lab_run_free(&st->runs[e]);
}
