/* SPDX-License-Identifier: MIT */
/*
 * The model's world (world_model.h): the ops of ../scripts/world.h on the
 * benches of one run. Each op on design d is the bench's (bench.h); a
 * sample is a round of the lockstep sampler over every bench (lockstep.h:
 * each sample after an RCU barrier, the benches in turn); memory is read as
 * the guest reads it, after deferred frees ran and every cache gave back its
 * empty slabs (/sys/kernel/slab/<cache>/shrink): otherwise slabs emptied by
 * an earlier rmdir would hold the next cgroups for free, in the model's
 * allocator as in SLUB. A removed cgroup is released once an RCU barrier has
 * run its deferred frees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "rows.h"
#include "stats.h"
#include "world_model.h"

_Static_assert(sizeof(world_samples_t) == sizeof(lab_samples_t),
	       "a world's samples are the lockstep sampler's");
_Static_assert(WORLD_MAX_DESIGNS == LAB_MAX_DESIGNS, "one design per bench");

static const struct world_words model_words = {
	.drop_caches = "shr_drop_caches() (echo 2 > drop_caches)",
	.mounts = "mounts",
	.offline = "inside rmdir here",
	.released = "every removed cgroup is freed",
	.release_how = " (RCU barrier)",
};

static struct lab_world *lw_of(const struct world *w)
{
	return (struct lab_world *)w;
}

static struct lab_bench *bench(const struct world *w, size_t d)
{
	return &lw_of(w)->b[d];
}

static bool model_ok(const struct world *w, size_t d)
{
	return lab_bench_ok(bench(w, d));
}

static const char *model_label(const struct world *w, size_t d)
{
	return bench(w, d)->label;
}

static void model_progress(const struct world *w, const char *line)
{
	(void)w;
	lab_progress("%s", line);
}

static unsigned long model_mounts(const struct world *w, size_t d)
{
	return bench(w, d)->nr_sbs;
}

static int model_mount(struct world *w, size_t d, unsigned long n)
{
	return lab_bench_mount(bench(w, d), n);
}

static int model_umount(struct world *w, size_t d, unsigned long n)
{
	lab_bench_umount(bench(w, d), n);
	return 0;
}

static int model_mkcg(struct world *w, size_t d, unsigned long n)
{
	return lab_bench_mkcg(bench(w, d), n);
}

static int model_rmcg(struct world *w, size_t d)
{
	struct lab_bench *b = bench(w, d);
	int ret = lab_bench_rmcg(b, b->nr_cgs);

	shr_rcu_barrier();
	return ret;
}

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

static int model_memory(struct world *w, size_t d, bool settled, struct world_mem *m)
{
	struct lab_bench *b = bench(w, d);

	(void)settled; /* every read is after a barrier */
	shr_rcu_barrier();
	shr_slab_for_each_cache(shr_host_slab(b->host), shrink_one, NULL);
	m->slab_b = (double)lab_bench_sunreclaim(b);
	m->memfree_b = 0;
	for (size_t k = 0; k < w->nr_caches; k++)
		m->objs[k] = (double)cache_objs(b, w->caches[k]);
	return 0;
}

/* The churn sampler's values by the world's index. */
static const int churn_value[WORLD_CHURN_NR] = {
	[WORLD_CHURN_MKDIR] = LAB_CHURN_MKDIR,
	[WORLD_CHURN_RMDIR] = LAB_CHURN_RMDIR,
	[WORLD_CHURN_RELEASE] = LAB_CHURN_RELEASE,
	[WORLD_CHURN_RMDIR_RELEASE] = LAB_CHURN_RMDIR_RELEASE,
};

static int model_sample(struct world *w, enum world_sample kind, void *arg, unsigned int warmup,
			unsigned int rounds, const char *what, world_samples_t *v)
{
	struct lab_world *lw = lw_of(w);
	lab_sample_fn fn = kind == WORLD_DROP_CACHES ? lab_sample_drop_caches
			   : kind == WORLD_MOUNTS   ? lab_sample_mounts
						    : lab_sample_churn;
	int ret = lab_lockstep_rounds(lw->b, w->nr_designs, warmup, rounds, what, fn, arg,
				      LAB_MAX_VALUES, lw->v);

	if (ret)
		return ret;
	if (kind != WORLD_CHURN) {
		memcpy(v[0], lw->v[0], sizeof(v[0]));
		return 0;
	}
	for (int k = 0; k < WORLD_CHURN_NR; k++)
		memcpy(v[k], lw->v[churn_value[k]], sizeof(v[k]));
	return 0;
}

/* The model takes the N it is given (the N each guest really used). */
static unsigned long model_fit_cgroups(const struct world *w, const struct world_mem *c,
				       double more_ids, unsigned long want, char *note, size_t len)
{
	(void)w;
	(void)c;
	(void)more_ids;
	if (len)
		note[0] = 0;
	return want;
}

static void model_rung_note(const struct world *w, size_t d, unsigned int units, char *buf,
			    size_t len)
{
	const struct lab_bench *b = bench(w, d);

	snprintf(buf, len, "%zu memcg-aware shrinkers registered (%zu host + %zu mounts); the "
		 "ladder's rung: %u units per node", b->nr_host_sbs + b->nr_sbs, b->nr_host_sbs,
		 b->nr_sbs, units);
}

static void model_at(const struct world *w, size_t d, unsigned long cgroups, const char *note,
		     struct world_at *out)
{
	struct lab_scale s;

	lab_bench_geometry(bench(w, d), &s);
	*out = (struct world_at){ .mounts = s.mounts, .cgroups = cgroups,
				  .host_shrinkers = s.host_shrinkers,
				  .shrinker_nr_max = s.shrinker_nr_max, .units = s.units,
				  .nodes = s.nodes, .cpus = s.cpus, .kmem = s.kmem };
	snprintf(out->note, sizeof(out->note), "%s", note ? note : "");
}

static void model_metric(struct world *w, int exp, const char *unit, const char *name)
{
	struct lab_world *lw = lw_of(w);
	struct lab_experiment *x = &lw->exps[exp];
	size_t k = x->nr_metrics;

	if (k == LAB_WORLD_MAX_METRICS)
		abort();
	snprintf(lw->names[exp][k], sizeof(lw->names[exp][k]), "%s", name);
	lw->metrics[exp][k] = (struct lab_metric){ lw->names[exp][k], unit, lw->geo, "" };
	x->nr_metrics = k + 1;
}

static void model_row(struct world *w, size_t d, int exp, const char *metric, const char *unit,
		      bool timed, const double *v, size_t n, double per, const struct world_at *at)
{
	struct lab_run *run = &lw_of(w)->runs[exp];
	struct lab_bench *b = bench(w, d);
	struct lab_scale s = { .mounts = at->mounts, .cgroups = at->cgroups, .nodes = at->nodes,
			       .cpus = at->cpus, .kmem = at->kmem,
			       .host_shrinkers = (unsigned int)at->host_shrinkers,
			       .shrinker_nr_max = at->shrinker_nr_max, .units = at->units };

	(void)unit; /* the table's */
	snprintf(s.note, sizeof(s.note), "%.*s", (int)sizeof(s.note) - 1, at->note);
	if (!timed) {
		lab_run_add_value(run, b, metric, v[0], &s);
		return;
	}
	lab_run_add_samples(run, b, metric, v, n, &s);
	lab_run_set_resolution(run, b->label, metric, LAB_CLOCK_WALL, per);
}

static void model_elapsed(struct world *w, int exp, uint64_t ns)
{
	/* a run's elapsed time is the whole script's (lab_kernel_run) */
	(void)w;
	(void)exp;
	(void)ns;
}

static const struct world_ops model_ops = {
	.ok = model_ok,
	.label = model_label,
	.now_ns = lab_now_ns,
	.progress = model_progress,
	.mounts = model_mounts,
	.mount = model_mount,
	.umount = model_umount,
	.mkcg = model_mkcg,
	.rmcg = model_rmcg,
	.memory = model_memory,
	.sample = model_sample,
	.fit_cgroups = model_fit_cgroups,
	.rung_note = model_rung_note,
	.median = lab_median,
	.at = model_at,
	.metric = model_metric,
	.row = model_row,
	.elapsed = model_elapsed,
};

void lab_world_init(struct lab_world *lw, struct lab_bench *b, size_t n,
		    struct lab_experiment *exps, struct lab_run *runs, size_t nr_exps,
		    unsigned int geo, const char *const *caches)
{
	memset(lw, 0, sizeof(*lw));
	lw->w.ops = &model_ops;
	lw->w.words = &model_words;
	lw->w.nr_designs = n;
	for (size_t k = 0; caches[k] && k < WORLD_MAX_CACHES; k++)
		lw->w.caches[lw->w.nr_caches++] = caches[k];
	lw->b = b;
	lw->exps = exps;
	lw->runs = runs;
	lw->nr_exps = nr_exps < LAB_WORLD_MAX_EXPS ? nr_exps : LAB_WORLD_MAX_EXPS;
	lw->geo = geo;
	for (size_t e = 0; e < lw->nr_exps; e++) {
		exps[e].metrics = lw->metrics[e];
		exps[e].nr_metrics = 0;
	}
}
