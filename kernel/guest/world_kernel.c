// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's world (world_kernel.h): the ops of
 * tools/shrinklab/scripts/world.h on the booted kernel.
 *
 * Memory is read as deltas of /proc/meminfo's SUnreclaim and MemFree and of
 * /proc/slabinfo's active objects, after every cache's per-CPU slabs were
 * flushed and its empty slabs freed (slab_shrink_all()); a settled read
 * first waits until the removed cgroups are released and SUnreclaim reads
 * the same twice (frees deferred by RCU and workqueues done). A cgroup is
 * released when CG_LAB's nr_dying_descendants is 0. The geometry of a row
 * is mainline's map: the ids' high water (never lowered by unmounting) plus
 * the host's ids, in units of 64.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjson.h"
#include "kutil.h"
#include "world_kernel.h"

#define RELEASE_TIMEOUT_S 3600

static struct kworld *kw_of(const struct world *w)
{
	return (struct kworld *)w;
}

/* ---- mounts ---- */

static unsigned long kernel_mounts(const struct world *w, size_t d)
{
	(void)d;
	return kw_of(w)->mounts;
}

/* Mountpoints up to m<@target - 1> (made before any timing starts). */
static void ensure_points(struct kworld *kw, unsigned long target)
{
	if (target > kw->points_made) {
		tmpfs_mkpoints(kw->points_made, target - kw->points_made);
		kw->points_made = target;
	}
}

/* Mount tmpfs up to m<@target - 1>, at their points (ensure_points()). */
static void mount_up_to(struct kworld *kw, unsigned long target)
{
	for (; kw->mounts < target; kw->mounts++) {
		int err = tmpfs_mount(kw->mounts);

		if (err)
			die("mount tmpfs #%lu: %s", kw->mounts, strerror(-err));
	}
	if (kw->mounts > kw->mounts_hw)
		kw->mounts_hw = kw->mounts;
}

static int kernel_mount(struct world *w, size_t d, unsigned long n)
{
	struct kworld *kw = kw_of(w);

	(void)d;
	ensure_points(kw, kw->mounts + n);
	mount_up_to(kw, kw->mounts + n);
	return 0;
}

static int kernel_umount(struct world *w, size_t d, unsigned long n)
{
	struct kworld *kw = kw_of(w);
	unsigned long target = n < kw->mounts ? kw->mounts - n : 0;

	(void)d;
	for (; kw->mounts > target; kw->mounts--) {
		int err = tmpfs_umount(kw->mounts - 1);

		if (err)
			die("umount tmpfs #%lu: %s", kw->mounts - 1, strerror(-err));
	}
	return 0;
}

static double mount_batch(struct kworld *kw, unsigned long batch)
{
	unsigned long target = kw->mounts + batch;
	uint64_t t0;

	ensure_points(kw, target);
	t0 = now_ns();
	mount_up_to(kw, target);
	return (double)(now_ns() - t0);
}

/* mkdir, rmdir and release of @nr cgroups, each per cgroup, into @v. */
/* ---- cgroups ---- */

static int kernel_mkcg(struct world *w, size_t d, unsigned long n)
{
	struct kworld *kw = kw_of(w);

	(void)d;
	cg_mkdir_range(CG_LAB, kw->cgroups, n);
	kw->cgroups += n;
	return 0;
}

static int kernel_rmcg(struct world *w, size_t d)
{
	struct kworld *kw = kw_of(w);

	(void)d;
	cg_rmdir_range(CG_LAB, 0, kw->cgroups);
	kw->cgroups = 0;
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	return 0;
}

static void churn_once(struct kworld *kw, unsigned long nr, double *v)
{
	uint64_t t0 = now_ns(), t1, t2, t3;

	cg_mkdir_range(CG_LAB, kw->cgroups, nr);
	t1 = now_ns();
	cg_rmdir_range(CG_LAB, kw->cgroups, nr);
	t2 = now_ns();
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	t3 = now_ns();
	v[WORLD_CHURN_MKDIR] = (double)(t1 - t0) / (double)nr;
	v[WORLD_CHURN_RMDIR] = (double)(t2 - t1) / (double)nr;
	v[WORLD_CHURN_RELEASE] = (double)(t3 - t2) / (double)nr;
	v[WORLD_CHURN_RMDIR_RELEASE] = (double)(t3 - t1) / (double)nr;
	say("churn: mkdir %.1f us, rmdir %.1f us, release %.1f us per cgroup",
	    v[WORLD_CHURN_MKDIR] / 1000, v[WORLD_CHURN_RMDIR] / 1000,
	    v[WORLD_CHURN_RELEASE] / 1000);
}

/* ---- memory ---- */

struct memsnap {
	long sunreclaim, memfree;
	long objs[WORLD_MAX_CACHES];
};

static void snap(const struct world *w, struct memsnap *s)
{
	slab_shrink_all();
	s->sunreclaim = meminfo_kb("SUnreclaim");
	s->memfree = meminfo_kb("MemFree");
	for (size_t k = 0; k < w->nr_caches; k++)
		s->objs[k] = slab_objs(w->caches[k]);
}

/* Wait until frees deferred by RCU and workqueues are done: two equal reads. */
static void settle(const struct world *w, struct memsnap *s)
{
	long prev = -1;

	for (int i = 0; i < 100; i++) {
		snap(w, s);
		if (s->sunreclaim == prev && i >= 2)
			return;
		prev = s->sunreclaim;
		usleep(50000);
	}
	say("memory did not settle in 100 reads; measuring anyway");
}

static int kernel_memory(struct world *w, size_t d, bool settled, struct world_mem *m)
{
	struct memsnap s;

	(void)d;
	if (settled) {
		cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
		sync();
		settle(w, &s);
	} else {
		snap(w, &s);
	}
	m->slab_b = (double)s.sunreclaim * 1024;
	m->memfree_b = (double)s.memfree * 1024;
	for (size_t k = 0; k < w->nr_caches; k++)
		m->objs[k] = (double)s.objs[k];
	return 0;
}

static unsigned long kernel_fit_cgroups(const struct world *w, const struct world_mem *c,
					double more_ids, unsigned long want, char *note,
					size_t len)
{
	const struct kworld *kw = kw_of(w);
	double ids = (double)(kw->mounts + (unsigned long)kw->boot_shrinkers);
	double growth = more_ids > 0 ? (ids + more_ids) / ids : 1.0;
	double avail = (double)meminfo_kb("MemAvailable") * 1024 * kw->mem_fraction;
	double per = (c->memfree_b > c->slab_b ? c->memfree_b : c->slab_b) * growth;
	unsigned long fit = per > 0 ? (unsigned long)(avail / per) : want;

	note[0] = 0;
	if (fit >= want)
		return want;
	snprintf(note, len, "N cut from %lu to %lu: %.0f MiB available x %.2f, %.0f kB per cgroup",
		 want, fit, avail / kw->mem_fraction / 1048576, kw->mem_fraction, per / 1024);
	return fit;
}

static void kernel_rung_note(const struct world *w, size_t d, unsigned int units, char *buf,
			     size_t len)
{
	(void)w;
	(void)d;
	snprintf(buf, len, "%ld shrinkers registered (debugfs), mainline map %u units per node",
		 debugfs_shrinkers(), units);
}

/* ---- samples ---- */

static int kernel_sample(struct world *w, enum world_sample kind, void *arg, unsigned int warmup,
			 unsigned int rounds, const char *what, world_samples_t *v)
{
	struct kworld *kw = kw_of(w);

	(void)what;
	if (kind == WORLD_CHURN)
		cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	for (unsigned int r = 0; r < warmup + rounds && r < warmup + WORLD_MAX_SAMPLES; r++) {
		double got[WORLD_MAX_VALUES];

		if (kind == WORLD_DROP_CACHES)
			got[0] = (double)drop_caches(2);
		else if (kind == WORLD_MOUNTS)
			got[0] = mount_batch(kw, *(const unsigned long *)arg);
		else
			churn_once(kw, *(const unsigned long *)arg, got);
		if (r < warmup)
			continue;
		for (int k = 0; k < (kind == WORLD_CHURN ? WORLD_CHURN_NR : 1); k++)
			v[k][0][r - warmup] = got[k];
	}
	return 0;
}

/*
 * N empty cgroups that fit the guest's memory at the cost measured now, at
 * most @want, the cost grown by the ids still to come (mainline's map grows
 * with every id registered).
 */
/* ---- rows ---- */

static void kernel_at(const struct world *w, size_t d, unsigned long cgroups, const char *note,
		      struct world_at *out)
{
	const struct kworld *kw = kw_of(w);

	(void)d;
	*out = (struct world_at){ .mounts = kw->mounts, .cgroups = cgroups,
				  .host_shrinkers = kw->host_ids, .shrinker_nr_max = -1,
				  /* mainline's map: the ids' high water */
				  .units = (long)((kw->mounts_hw + kw->host_ids + 63) / 64),
				  .nodes = kw->nodes, .cpus = kw->cpus, .kmem = true };
	snprintf(out->note, sizeof(out->note), "%s", note ? note : "");
}

static void kernel_metric(struct world *w, int exp, const char *unit, const char *name)
{
	/* the guest writes the rows it measures (data/kernel_metrics.tsv) */
	(void)w;
	(void)exp;
	(void)unit;
	(void)name;
}

static void kernel_row(struct world *w, size_t d, int exp, const char *metric, const char *unit,
		       bool timed, const double *v, size_t n, double per, const struct world_at *at)
{
	struct krow r = { .exp = w->exp_ids[exp], .unit = unit, .timed = timed, .raw = v, .n = n };
	struct kstats s;

	(void)d;
	(void)per; /* the host's clock resolution is the document's */
	stats_of(v, n, &s);
	r.value = s.median;
	r.min = s.min;
	r.max = s.max;
	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	r.scale = (struct kscale){ .mounts = at->mounts, .cgroups = at->cgroups,
				   .host_shrinkers = at->host_shrinkers, .units = at->units,
				   .nodes = at->nodes, .cpus = at->cpus, .nokmem = !at->kmem };
	snprintf(r.scale.note, sizeof(r.scale.note), "%s", at->note);
	kjson_row(&r);
}

static void kernel_elapsed(struct world *w, int exp, uint64_t ns)
{
	kjson_elapsed(w->exp_ids[exp], ns);
}

/* ---- the one design ---- */

static bool kernel_ok(const struct world *w, size_t d)
{
	(void)w;
	return d == 0;
}

static const char *kernel_label(const struct world *w, size_t d)
{
	(void)d;
	return kw_of(w)->design;
}

static void kernel_progress(const struct world *w, const char *line)
{
	(void)w;
	say("%s", line);
}

/* The ops by the sections above. */
static const struct world_ops kernel_ops = {
	.mounts = kernel_mounts, .mount = kernel_mount, .umount = kernel_umount,
	.mkcg = kernel_mkcg, .rmcg = kernel_rmcg,
	.memory = kernel_memory, .fit_cgroups = kernel_fit_cgroups, .rung_note = kernel_rung_note,
	.sample = kernel_sample,
	.at = kernel_at, .metric = kernel_metric, .row = kernel_row, .elapsed = kernel_elapsed,
	.ok = kernel_ok, .label = kernel_label, .progress = kernel_progress,
	.now_ns = now_ns, .median = median_of,
};

static const struct world_words kernel_words = {
	.drop_caches = "echo 2 > drop_caches", .mounts = "tmpfs mounts",
	.offline = "from a worker after rmdir returns",
	.released = "nr_dying_descendants is 0", .release_how = "",
};


static void find_caches(struct world *w)
{
	char line[512], name[128];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		die("/proc/slabinfo: %s (the lab config needs SLUB_DEBUG)", strerror(errno));
	w->caches[w->nr_caches++] = "kmalloc-1k";
	w->caches[w->nr_caches++] = "radix_tree_node";
	while (fgets(line, sizeof(line), f) && w->nr_caches < WORLD_MAX_CACHES)
		if (sscanf(line, "%127s", name) == 1 && strstr(name, "shrinker"))
			w->caches[w->nr_caches++] = strdup(name);
	fclose(f);
}

void kworld_open(struct kworld *kw, const char *design, double mem_fraction)
{
	memset(kw, 0, sizeof(*kw));
	kw->w.ops = &kernel_ops;
	kw->w.words = &kernel_words;
	kw->w.nr_designs = 1;
	kw->design = design;
	kw->mem_fraction = mem_fraction;
	kw->cpus = online_cpus();
	kw->nodes = online_nodes();
	kw->boot_shrinkers = debugfs_shrinkers();
	if (kw->boot_shrinkers < 0)
		die("/sys/kernel/debug/shrinker: %s (the lab config needs SHRINKER_DEBUG and "
		    "debugfs)", strerror(errno));
	kw->host_ids = (unsigned long)kw->boot_shrinkers + KW_HOST_IDS_EXTRA;
	find_caches(&kw->w);
	cg_enable_memory(CG_ROOT);
	if (mkdir(CG_LAB, 0755) && errno != EEXIST)
		die("mkdir " CG_LAB ": %s", strerror(errno));
	cg_enable_memory(CG_LAB);
}
