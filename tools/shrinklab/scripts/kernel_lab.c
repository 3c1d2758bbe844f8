// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The kernel lab's experiments, written once for two worlds (world.h): the
 * guest's (kernel/guest/klab-guest.c on kernel/guest/world_kernel.c, tmpfs
 * mounts, one memcg-aware shrinker each) and the model's (shrinklab kernel,
 * one host per design configuration side by side, a superblock per mount).
 * One run goes up the shrinker-unit ladder, choosing the mounts so that the
 * per-memcg, per-node shrinker map of mainline needs 1, 35, 126, 314 units
 * (64 ids each), and measures on the way:
 *
 *   units       the slab (SUnreclaim) of an empty memory cgroup, and its
 *               objects of each cache the world counts (kmalloc-1k,
 *               radix_tree_node, any *shrinker* cache), at every rung:
 *               deltas over Nu cgroups made and removed again;
 *   highwater   the same at 0 mounts, at H mounts, and after the H mounts are
 *               gone again (mainline keeps shrinker_nr_max at its high
 *               water), and the unmount, timed per mount;
 *   register    at the highest rung below the top that leaves room for them
 *               (else the top), one warm-up batch of B mounts, then S batches
 *               with no cgroups and S with N empty cgroups alive, each batch
 *               above every earlier mount (crossing 64-id boundaries);
 *   drop_caches drop_caches (echo 2) with 0 and N empty cgroups at 0 mounts,
 *               and at the top rung with 0..N cgroups in P points, with the
 *               least-squares slope of the medians;
 *   churn       mkdir, rmdir and release (until every removed cgroup is
 *               freed) of Nr empty cgroups at 0 mounts and at the top rung,
 *               each timed on its own, and rmdir + release together (in the
 *               kernel offline, where the list_lru reparenting happens, runs
 *               from a worker after rmdir returns, so the split between the
 *               two depends on scheduling; the sum does not).
 *
 * Times are medians with min and max over the samples, every sample kept in
 * the rows; memory figures are exact deltas. Everything is bounded by work:
 * counts, not durations. The rows (names, units, order) are
 * data/kernel_metrics.tsv's, which tests/kernel/test_metrics.py and every
 * `klab lab` hold both worlds' documents to; `klab lab` pairs them by name.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_lab.h"

const char *const kl_exp_ids[KL_NR_EXP] = {
	"units", "drop_caches", "churn", "highwater", "register",
};
const char *const kl_exp_titles[KL_NR_EXP] = {
	"no seed: memory of an empty cgroup up the unit ladder (kernel lab, klab-guest)",
	"no seed: drop_caches with and without empty cgroups (kernel lab, klab-guest)",
	"no seed: mkdir, rmdir and release of cgroups (kernel lab, klab-guest)",
	"no seed: memory of an empty cgroup after the mounts are gone (kernel lab, klab-guest)",
	"no seed: registering a batch of mounts with and without cgroups (kernel lab, klab-guest)",
};

/* The samples being taken, and those kept for a later row. */
struct kl_samples {
	world_samples_t v[WORLD_MAX_VALUES];
	world_samples_t kept;
	double y[WORLD_MAX_DESIGNS][KL_MAX_POINTS];
};

void kl_geometry_full(struct kl_geometry *g)
{
	static const struct kl_geometry full = {
		.ladder = { 1, 35, 126, 314 }, .nr_ladder = 4,
		.cgroups = 2000, .register_cgroups = 2000, .top_cgroups = 2000,
		.units_cgroups = 200, .churn_cgroups = 1000,
		.highwater_mounts = 2000, .register_batch = 640,
		.samples = 5, .churn_samples = 3, .register_samples = 5, .walk_points = 5,
		.host_shrinkers = 22, .nodes = 4, .cpus = 2,
	};

	*g = full;
}

static void say(const struct world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct world *w, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	w->ops->progress(w, line);
}

/* ---- the metrics ---- */

static void metric(struct world *w, enum kl_exp e, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void metric(struct world *w, enum kl_exp e, const char *unit, const char *fmt, ...)
{
	char name[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	w->ops->metric(w, e, unit, name);
}

/* "kmalloc-1k" -> "kmalloc_1k", as the metrics name a cache. */
static void cache_metric_name(const char *cache, char *buf, size_t len)
{
	snprintf(buf, len, "%s", cache);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

static void cost_metrics(struct world *w, enum kl_exp e, const char *suffix)
{
	char c[64];

	metric(w, e, "B", "slab_bytes_per_empty_cgroup%s", suffix);
	for (size_t k = 0; k < w->nr_caches; k++) {
		cache_metric_name(w->caches[k], c, sizeof(c));
		metric(w, e, "count", "%s_objs_per_empty_cgroup%s", c, suffix);
	}
}

static void churn_metrics(struct world *w, const char *suffix)
{
	metric(w, KL_CHURN, "ns", "mkdir_ns_per_cgroup%s", suffix);
	metric(w, KL_CHURN, "ns", "rmdir_ns_per_cgroup%s", suffix);
	metric(w, KL_CHURN, "ns", "release_ns_per_cgroup%s", suffix);
	metric(w, KL_CHURN, "ns", "rmdir_release_ns_per_cgroup%s", suffix);
}

void kl_declare_metrics(struct world *w, const struct kl_geometry *g)
{
	char s[32];

	for (int i = 0; i < g->nr_ladder; i++) {
		snprintf(s, sizeof(s), "_%uu", g->ladder[i]);
		cost_metrics(w, KL_UNITS, s);
	}
	metric(w, KL_DROP, "ns", "drop_caches_ns_no_cgroups_no_mounts");
	metric(w, KL_DROP, "ns", "drop_caches_ns_no_mounts");
	metric(w, KL_DROP, "ns", "drop_caches_ns_no_cgroups");
	metric(w, KL_DROP, "ns", "drop_caches_ns");
	metric(w, KL_DROP, "ns", "drop_caches_ns_per_empty_cgroup");
	churn_metrics(w, "_no_mounts");
	churn_metrics(w, "");
	cost_metrics(w, KL_HIGHWATER, "_before_mounts");
	cost_metrics(w, KL_HIGHWATER, "_with_mounts");
	metric(w, KL_HIGHWATER, "ns", "umount_ns_per_mount");
	cost_metrics(w, KL_HIGHWATER, "_after_umount");
	metric(w, KL_REGISTER, "ns", "register_%lu_mounts_ns_no_cgroups", g->register_batch);
	metric(w, KL_REGISTER, "ns", "register_%lu_mounts_ns_cgroups_alive", g->register_batch);
}

/* ---- every design ---- */

/* Mounts that make mainline's map need @units units of 64 ids per node. */
static unsigned long mounts_for_units(const struct kl_geometry *g, unsigned int units)
{
	long m = (long)units * 64 - (long)g->host_shrinkers;

	return units <= 1 || m < 0 ? 0 : (unsigned long)m;
}

static int mount_to(struct world *w, unsigned long target)
{
	for (size_t d = 0; d < w->nr_designs; d++) {
		unsigned long now;
		int ret;

		if (!w->ops->ok(w, d))
			continue;
		now = w->ops->mounts(w, d);
		if (now >= target)
			continue;
		say(w, "%s: mounting %lu -> %lu", w->ops->label(w, d), now, target);
		ret = w->ops->mount(w, d, target - now);
		if (ret)
			return ret;
	}
	return 0;
}

static int mkcg_all(struct world *w, unsigned long n)
{
	for (size_t d = 0; d < w->nr_designs; d++) {
		int ret;

		if (!w->ops->ok(w, d))
			continue;
		say(w, "%s: %lu cgroups", w->ops->label(w, d), n);
		ret = w->ops->mkcg(w, d, n);
		if (ret)
			return ret;
	}
	return 0;
}

static int rmcg_all(struct world *w)
{
	for (size_t d = 0; d < w->nr_designs; d++) {
		int ret;

		if (!w->ops->ok(w, d))
			continue;
		ret = w->ops->rmcg(w, d);
		if (ret)
			return ret;
	}
	return 0;
}

static void at_all(const struct world *w, unsigned long cgroups, const char *note,
		   struct world_at *at)
{
	for (size_t d = 0; d < w->nr_designs; d++)
		if (w->ops->ok(w, d))
			w->ops->at(w, d, cgroups, note, &at[d]);
}

/* A timed row of @metric per design, from @n samples each of @v. */
static void rows_all(struct world *w, enum kl_exp e, const char *metric, world_samples_t v,
		     size_t n, double per, const struct world_at *at)
{
	for (size_t d = 0; d < w->nr_designs; d++)
		if (w->ops->ok(w, d))
			w->ops->row(w, d, e, metric, "ns", true, v[d], n, per, &at[d]);
}

/* ---- memory of empty cgroups ---- */

/* Memory of @n new empty cgroups of design @d, per cgroup; removed after. */
static int measure_cgroups(struct world *w, size_t d, unsigned long n, struct world_mem *c)
{
	struct world_mem a, b;
	int ret = w->ops->memory(w, d, true, &a);

	if (!ret)
		ret = w->ops->mkcg(w, d, n);
	if (!ret)
		ret = w->ops->memory(w, d, false, &b);
	if (ret)
		return ret;
	c->slab_b = (b.slab_b - a.slab_b) / (double)n;
	c->memfree_b = (a.memfree_b - b.memfree_b) / (double)n;
	for (size_t k = 0; k < w->nr_caches; k++)
		c->objs[k] = (b.objs[k] - a.objs[k]) / (double)n;
	return w->ops->rmcg(w, d);
}

static void cost_rows(struct world *w, enum kl_exp e, size_t d, const char *suffix,
		      const struct world_mem *c, const struct world_at *at)
{
	char m[96], name[64];

	snprintf(m, sizeof(m), "slab_bytes_per_empty_cgroup%s", suffix);
	w->ops->row(w, d, e, m, "B", false, &c->slab_b, 1, 1, at);
	for (size_t k = 0; k < w->nr_caches; k++) {
		cache_metric_name(w->caches[k], name, sizeof(name));
		snprintf(m, sizeof(m), "%s_objs_per_empty_cgroup%s", name, suffix);
		w->ops->row(w, d, e, m, "count", false, &c->objs[k], 1, 1, at);
	}
}

static int units_rung(struct world *w, const struct kl_geometry *g, unsigned int units,
		      struct world_mem *c)
{
	char suffix[32], note[WORLD_NOTE_LEN];

	snprintf(suffix, sizeof(suffix), "_%uu", units);
	for (size_t d = 0; d < w->nr_designs; d++) {
		struct world_at at;
		int ret;

		if (!w->ops->ok(w, d))
			continue;
		say(w, "%s: units %u, %lu mounts, %lu cgroups", w->ops->label(w, d), units,
		    w->ops->mounts(w, d), g->units_cgroups);
		ret = measure_cgroups(w, d, g->units_cgroups, &c[d]);
		if (ret)
			return ret;
		w->ops->rung_note(w, d, units, note, sizeof(note));
		w->ops->at(w, d, g->units_cgroups, note, &at);
		cost_rows(w, KL_UNITS, d, suffix, &c[d], &at);
		say(w, "%s: units %u: %.0f B slab per cgroup", w->ops->label(w, d), units,
		    c[d].slab_b);
	}
	return 0;
}

/* ---- drop_caches ---- */

static int drop_rounds(struct world *w, const struct kl_geometry *g, struct kl_samples *s)
{
	return w->ops->sample(w, WORLD_DROP_CACHES, NULL, 1, (unsigned int)g->samples,
			      "drop_caches", s->v);
}

/* What is sampled without and then with empty cgroups, and how. */
struct kl_pair {
	enum world_sample kind;
	void *arg;
	unsigned int warmup, rounds;
	const char *what;
	unsigned long cgroups;
	const char *note;
};

/*
 * The rounds of @p with no cgroups of the script's (into s->kept, at
 * @at0), then with p->cgroups empty cgroups alive (into s->v[0], at @at1);
 * the cgroups are removed again after.
 */
static int pair_rounds(struct world *w, const struct kl_pair *p, struct world_at *at0,
		       struct world_at *at1, struct kl_samples *s)
{
	int ret;

	at_all(w, 0, p->note, at0);
	ret = w->ops->sample(w, p->kind, p->arg, p->warmup, p->rounds, p->what, s->v);
	if (ret)
		return ret;
	memcpy(s->kept, s->v[0], sizeof(s->kept));
	ret = mkcg_all(w, p->cgroups);
	if (!ret) {
		at_all(w, p->cgroups, p->note, at1);
		ret = w->ops->sample(w, p->kind, p->arg, p->warmup, p->rounds, p->what, s->v);
	}
	return ret ? ret : rmcg_all(w);
}

/* drop_caches with 0 and @ncg empty cgroups (at 0 mounts). */
static int drop_pair(struct world *w, const struct kl_geometry *g, unsigned long ncg,
		     struct kl_samples *s)
{
	struct world_at at0[WORLD_MAX_DESIGNS], at1[WORLD_MAX_DESIGNS];
	char note[WORLD_NOTE_LEN];
	struct kl_pair p = { WORLD_DROP_CACHES, NULL, 1, (unsigned int)g->samples, "drop_caches",
			     ncg, note };
	int ret;

	say(w, "drop_caches: 0 and %lu cgroups", ncg);
	snprintf(note, sizeof(note), "%s, after one warm-up pass", w->words->drop_caches);
	ret = pair_rounds(w, &p, at0, at1, s);
	if (ret)
		return ret;
	rows_all(w, KL_DROP, "drop_caches_ns_no_cgroups_no_mounts", s->kept, g->samples, 1, at0);
	rows_all(w, KL_DROP, "drop_caches_ns_no_mounts", s->v[0], g->samples, 1, at1);
	return 0;
}

/* Slope of the drop_caches median against 0..@ncg empty cgroups. */
static int drop_slope(struct world *w, const struct kl_geometry *g, unsigned long ncg,
		      const char *fitnote, struct kl_samples *s)
{
	unsigned int p = g->walk_points < 2 ? 2 : (unsigned int)g->walk_points;
	struct world_at at[WORLD_MAX_DESIGNS];
	double x[KL_MAX_POINTS];
	char note[WORLD_NOTE_LEN];
	unsigned long made = 0;
	int ret;

	if (p > KL_MAX_POINTS)
		p = KL_MAX_POINTS;
	snprintf(note, sizeof(note), "%s, after one warm-up pass%s%s", w->words->drop_caches,
		 fitnote[0] ? "; " : "", fitnote);
	for (unsigned int j = 0; j < p; j++) {
		unsigned long k = ncg * j / (p - 1);

		ret = mkcg_all(w, k - made);
		if (ret)
			return ret;
		made = k;
		at_all(w, k, note, at);
		ret = drop_rounds(w, g, s);
		if (ret)
			return ret;
		x[j] = (double)k;
		for (size_t d = 0; d < w->nr_designs; d++) {
			if (!w->ops->ok(w, d))
				continue;
			s->y[d][j] = w->ops->median(s->v[0][d], g->samples);
			say(w, "%s: drop_caches slope: %lu cgroups: median %.0f us",
			    w->ops->label(w, d), k, s->y[d][j] / 1000);
		}
		if (j == 0)
			rows_all(w, KL_DROP, "drop_caches_ns_no_cgroups", s->v[0], g->samples, 1, at);
		if (j == p - 1)
			rows_all(w, KL_DROP, "drop_caches_ns", s->v[0], g->samples, 1, at);
	}
	snprintf(note, sizeof(note), "least-squares slope of the median over %u points, "
		 "0..%lu empty cgroups%s%s", p, ncg, fitnote[0] ? "; " : "", fitnote);
	at_all(w, ncg, note, at);
	for (size_t d = 0; d < w->nr_designs; d++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0, slope;

		if (!w->ops->ok(w, d))
			continue;
		for (unsigned int j = 0; j < p; j++) {
			sx += x[j];
			sy += s->y[d][j];
			sxx += x[j] * x[j];
			sxy += x[j] * s->y[d][j];
		}
		slope = (p * sxy - sx * sy) / (p * sxx - sx * sx);
		w->ops->row(w, d, KL_DROP, "drop_caches_ns_per_empty_cgroup", "ns", false, &slope, 1,
			    1, &at[d]);
	}
	return rmcg_all(w);
}

/* ---- churn ---- */

/* mkdir, rmdir, release of Nr cgroups: the rows <what>_ns_per_cgroup<suffix>. */
static int churn(struct world *w, const struct kl_geometry *g, const char *suffix,
		 struct kl_samples *s)
{
	static const char *const what[WORLD_CHURN_NR] = {
		[WORLD_CHURN_MKDIR] = "mkdir", [WORLD_CHURN_RMDIR] = "rmdir",
		[WORLD_CHURN_RELEASE] = "release", [WORLD_CHURN_RMDIR_RELEASE] = "rmdir_release",
	};
	const struct world_words *wd = w->words;
	unsigned long nr = g->churn_cgroups;
	struct world_at at[WORLD_MAX_DESIGNS];
	char notes[WORLD_CHURN_NR][WORLD_NOTE_LEN];
	int ret;

	say(w, "churn: %lu samples of %lu cgroups", g->churn_samples, nr);
	ret = w->ops->sample(w, WORLD_CHURN, &nr, 0, (unsigned int)g->churn_samples, "churn",
			     s->v);
	if (ret)
		return ret;
	snprintf(notes[WORLD_CHURN_MKDIR], WORLD_NOTE_LEN, "per cgroup, batch of Nr mkdirs");
	snprintf(notes[WORLD_CHURN_RMDIR], WORLD_NOTE_LEN, "per cgroup, batch of Nr rmdirs "
		 "(offline runs %s)", wd->offline);
	snprintf(notes[WORLD_CHURN_RELEASE], WORLD_NOTE_LEN, "per cgroup, from the last rmdir "
		 "until %s%s", wd->released, wd->release_how);
	snprintf(notes[WORLD_CHURN_RMDIR_RELEASE], WORLD_NOTE_LEN, "per cgroup, from the first "
		 "rmdir until %s", wd->released);
	for (int k = 0; k < WORLD_CHURN_NR; k++) {
		char m[96];

		snprintf(m, sizeof(m), "%s_ns_per_cgroup%s", what[k], suffix);
		at_all(w, nr, notes[k], at);
		rows_all(w, KL_CHURN, m, s->v[k], g->churn_samples, (double)nr, at);
	}
	return 0;
}

/* ---- high water ---- */

static int highwater(struct world *w, const struct kl_geometry *g, const struct world_mem *at0)
{
	unsigned long h = g->highwater_mounts;
	char note[WORLD_NOTE_LEN];
	struct world_mem c;
	struct world_at at;
	int ret;

	snprintf(note, sizeof(note), "%lu %s made and then unmounted", h, w->words->mounts);
	for (size_t d = 0; d < w->nr_designs; d++) {
		if (!w->ops->ok(w, d))
			continue;
		w->ops->at(w, d, g->units_cgroups, note, &at);
		cost_rows(w, KL_HIGHWATER, d, "_before_mounts", &at0[d], &at);
	}
	ret = mount_to(w, h);
	for (size_t d = 0; d < w->nr_designs && !ret; d++) {
		uint64_t t0;
		double per;

		if (!w->ops->ok(w, d))
			continue;
		ret = measure_cgroups(w, d, g->units_cgroups, &c);
		if (ret)
			break;
		w->ops->at(w, d, g->units_cgroups, note, &at);
		cost_rows(w, KL_HIGHWATER, d, "_with_mounts", &c, &at);
		say(w, "%s: unmounting %lu", w->ops->label(w, d), h);
		w->ops->at(w, d, 0, note, &at);
		t0 = w->ops->now_ns();
		ret = w->ops->umount(w, d, w->ops->mounts(w, d));
		if (ret)
			break;
		per = (double)(w->ops->now_ns() - t0) / (double)h;
		w->ops->row(w, d, KL_HIGHWATER, "umount_ns_per_mount", "ns", true, &per, 1,
			    (double)h, &at);
		ret = measure_cgroups(w, d, g->units_cgroups, &c);
		if (ret)
			break;
		w->ops->at(w, d, g->units_cgroups, note, &at);
		cost_rows(w, KL_HIGHWATER, d, "_after_umount", &c, &at);
		say(w, "%s: highwater: %.0f B slab per cgroup after unmounting %lu",
		    w->ops->label(w, d), c.slab_b, h);
	}
	return ret;
}

/* ---- registration ---- */

static int registration(struct world *w, const struct kl_geometry *g, unsigned long ncg,
			const char *fitnote, struct kl_samples *s)
{
	unsigned int n = (unsigned int)g->register_samples;
	unsigned long batch = g->register_batch;
	struct world_at at0[WORLD_MAX_DESIGNS], at1[WORLD_MAX_DESIGNS];
	char note[WORLD_NOTE_LEN], m[96];
	struct kl_pair p = { WORLD_MOUNTS, &batch, 0, n, "register", ncg, note };
	int ret;

	say(w, "register: batches of %lu mounts, %u without and %u with %lu cgroups", batch, n, n,
	    ncg);
	snprintf(note, sizeof(note), "ns per batch of %lu %s, each batch above every earlier "
		 "mount; one warm-up batch, the batches without cgroups, then those with%s%s",
		 batch, w->words->mounts, fitnote[0] ? "; " : "", fitnote);
	/* warm-up: first-time costs of the mount path */
	ret = w->ops->sample(w, WORLD_MOUNTS, &batch, 1, 0, "register warm-up", s->v);
	if (!ret)
		ret = pair_rounds(w, &p, at0, at1, s);
	if (ret)
		return ret;
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_no_cgroups", batch);
	rows_all(w, KL_REGISTER, m, s->kept, n, 1, at0);
	snprintf(m, sizeof(m), "register_%lu_mounts_ns_cgroups_alive", batch);
	rows_all(w, KL_REGISTER, m, s->v[0], n, 1, at1);
	return 0;
}

/* ---- the script ---- */

/* The time a phase of experiment @e takes, into its elapsed time. */
static int phase_end(struct world *w, enum kl_exp e, uint64_t t0, int ret)
{
	w->ops->elapsed(w, e, w->ops->now_ns() - t0);
	return ret;
}

static int script(struct world *w, const struct kl_geometry *g, struct kl_samples *s)
{
	struct world_mem c0[WORLD_MAX_DESIGNS], ctop[WORLD_MAX_DESIGNS];
	unsigned long top = mounts_for_units(g, g->ladder[g->nr_ladder - 1]);
	double more = (2.0 * (double)g->register_samples + 1) * (double)g->register_batch;
	char fitnote[160];
	int reg_after = g->nr_ladder - 1;
	unsigned long ncg;
	uint64_t t0;
	int ret;

	/* Rung 1: no mounts. */
	t0 = w->ops->now_ns();
	ret = phase_end(w, KL_UNITS, t0, units_rung(w, g, g->ladder[0], c0));
	if (!ret) {
		t0 = w->ops->now_ns();
		ret = phase_end(w, KL_DROP, t0, drop_pair(w, g, g->cgroups, s));
	}
	if (!ret) {
		t0 = w->ops->now_ns();
		ret = phase_end(w, KL_CHURN, t0, churn(w, g, "_no_mounts", s));
	}
	if (!ret) {
		t0 = w->ops->now_ns();
		ret = phase_end(w, KL_HIGHWATER, t0, highwater(w, g, c0));
	}
	if (ret)
		return ret;
	/* Up the ladder; registration below the top rung where its batches fit
	 * under it. */
	for (int i = g->nr_ladder - 2; i >= 1; i--)
		if (mounts_for_units(g, g->ladder[i]) +
		    (2 * g->register_samples + 1) * g->register_batch < top) {
			reg_after = i;
			break;
		}
	memcpy(ctop, c0, sizeof(ctop));
	for (int i = 1; i < g->nr_ladder && !ret; i++) {
		t0 = w->ops->now_ns();
		ret = mount_to(w, mounts_for_units(g, g->ladder[i]));
		if (!ret)
			ret = units_rung(w, g, g->ladder[i], ctop);
		ret = phase_end(w, KL_UNITS, t0, ret);
		if (!ret && i == reg_after) {
			ncg = w->ops->fit_cgroups(w, &ctop[0], more, g->register_cgroups, fitnote,
						  sizeof(fitnote));
			t0 = w->ops->now_ns();
			ret = phase_end(w, KL_REGISTER, t0, registration(w, g, ncg, fitnote, s));
		}
	}
	if (ret)
		return ret;
	/* Top rung: drop_caches against cgroups, and churn. */
	ncg = w->ops->fit_cgroups(w, &ctop[0], 0, g->top_cgroups, fitnote, sizeof(fitnote));
	t0 = w->ops->now_ns();
	ret = phase_end(w, KL_DROP, t0, drop_slope(w, g, ncg, fitnote, s));
	if (!ret) {
		t0 = w->ops->now_ns();
		ret = phase_end(w, KL_CHURN, t0, churn(w, g, "", s));
	}
	return ret;
}

int kl_run(struct world *w, const struct kl_geometry *g)
{
	struct kl_samples *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	w->exp_ids = kl_exp_ids;
	ret = script(w, g, s);
	free(s);
	return ret;
}
