// SPDX-License-Identifier: GPL-2.0
/*
 * klab-guest: the experiments a kernel can answer, run inside the guest.
 *
 * One run goes up the shrinker-unit ladder, mounting tmpfs (one memcg-aware
 * shrinker each) so that the per-memcg, per-node shrinker map of mainline
 * needs 1, 35, 126, 314 units (64 ids each), and measures on the way:
 *
 *   units       slab (SUnreclaim) of an empty memory cgroup, and its objects
 *               of kmalloc-1k, radix_tree_node and any cache named
 *               *shrinker*, at every rung (deltas of /proc/meminfo and
 *               /proc/slabinfo over Nu cgroups, per-CPU slabs flushed);
 *   highwater   the same at 0 mounts, at H mounts, and after the H mounts are
 *               gone again (mainline keeps shrinker_nr_max at its high water);
 *   register    mounting a batch of 640 tmpfs (crossing ten 64-id
 *               boundaries, above any earlier high water) with no cgroups and
 *               with N empty cgroups alive;
 *   drop_caches echo 2 > drop_caches with 0 and N empty cgroups at 0 mounts
 *               and at the top rung, and its slope against the number of
 *               empty cgroups (points 0..N) at the top rung;
 *   churn       mkdir, rmdir, and release (until nr_dying_descendants is 0)
 *               of Nr empty cgroups at 0 mounts and at the top rung, each
 *               timed on its own, and rmdir + release together (offline,
 *               where the list_lru reparenting happens, runs from a worker
 *               after rmdir returns, so the split between the two depends
 *               on scheduling; the sum does not).
 *
 * Times are medians with min and max over --samples samples within this
 * boot, every sample kept in the JSON; memory figures are exact deltas. The
 * JSON (kjson.c, schema shrinklab/2) goes to stdout, progress to stderr.
 * Everything is bounded by work: counts, not durations. shrinklab kernel
 * runs the same script in the model
 * (tools/shrinklab/lab/kernel_experiments.c): a change here is a change
 * there, and to data/kernel_metrics.tsv, the rows both
 * write in order (tests/kernel/test_metrics.py and every `klab lab` check
 * both programs' documents against it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjson.h"
#include "kutil.h"

#define CG_LAB CG_ROOT "/klab"
#define MAX_RUNGS 8
#define MAX_CACHES 8
#define RELEASE_TIMEOUT_S 3600

struct geometry {
	unsigned int units[MAX_RUNGS];
	int nr_units;
	unsigned long cgroups;       /* N: drop_caches, register */
	unsigned long units_cgroups; /* Nu: memory per cgroup */
	unsigned long churn_cgroups; /* Nr: mkdir/rmdir/release */
	unsigned long highwater_mounts;
	unsigned long register_batch;
	unsigned int samples, churn_samples, register_samples, walk_points;
	double mem_fraction;         /* of MemAvailable that N cgroups may take */
};

static struct geometry geo = {
	.units = { 1, 35, 126, 314 }, .nr_units = 4,
	.cgroups = 2000, .units_cgroups = 200, .churn_cgroups = 1000,
	.highwater_mounts = 2000, .register_batch = 640,
	.samples = 5, .churn_samples = 3, .register_samples = 5, .walk_points = 5,
	.mem_fraction = 0.7,
};

/* Memcg-aware shrinker ids the ladder assumes taken before the first tmpfs:
 * the shrinkers in debugfs at start plus 4 (kmalloc-1k objects per empty
 * cgroup, 1 + nodes x units on mainline, confirm the units of each rung). */
#define HOST_IDS_EXTRA 4

static unsigned long mounts;      /* tmpfs mounted now: m0 .. m<mounts-1> */
static unsigned long mounts_hw;   /* the most there have been (ids' high water) */
static unsigned long points_made; /* mountpoints that exist */
static long boot_shrinkers;       /* entries in debugfs/shrinker at start */
static unsigned int cpus;
static int nodes;

static const char *caches[MAX_CACHES];
static int nr_caches;

/* The geometry now, with the cgroups a row reports. */
static void scale_now(struct kscale *sc, unsigned long cgroups, const char *note)
{
	unsigned long host = (unsigned long)boot_shrinkers + HOST_IDS_EXTRA;

	sc->mounts = mounts;
	sc->cgroups = cgroups;
	sc->host_shrinkers = host;
	/* mainline's map: the ids' high water, never lowered by unmounting */
	sc->units = (long)((mounts_hw + host + 63) / 64);
	sc->nodes = nodes;
	sc->cpus = cpus;
	snprintf(sc->note, sizeof(sc->note), "%s", note ? note : "");
}

/* A row of @n clock samples (in the order taken), at geometry @sc. */
static void row_at(const char *exp, const char *metric, const char *unit, const double *v,
		   size_t n, const struct kscale *sc)
{
	struct krow r = { .exp = exp, .unit = unit, .timed = true, .raw = v, .n = n,
			  .scale = *sc };
	struct kstats s;

	stats_of(v, n, &s);
	r.value = s.median;
	r.min = s.min;
	r.max = s.max;
	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	kjson_row(&r);
}

static void row(const char *exp, const char *metric, const char *unit, const double *v,
		size_t n, unsigned long cgroups, const char *note)
{
	struct kscale sc;

	scale_now(&sc, cgroups, note);
	row_at(exp, metric, unit, v, n, &sc);
}

/* One reading (memory; a fit when @timed is false and the unit is ns). */
static void row1(const char *exp, const char *metric, const char *unit, double v, bool timed,
		 unsigned long cgroups, const char *note)
{
	struct krow r = { .exp = exp, .unit = unit, .timed = timed, .value = v, .min = v,
			  .max = v, .raw = &v, .n = 1 };

	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	scale_now(&r.scale, cgroups, note);
	kjson_row(&r);
}

static void find_caches(void)
{
	char line[512], name[128];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		die("/proc/slabinfo: %s (the lab config needs SLUB_DEBUG)", strerror(errno));
	caches[nr_caches++] = "kmalloc-1k";
	caches[nr_caches++] = "radix_tree_node";
	while (fgets(line, sizeof(line), f) && nr_caches < MAX_CACHES)
		if (sscanf(line, "%127s", name) == 1 && strstr(name, "shrinker"))
			caches[nr_caches++] = strdup(name);
	fclose(f);
}

static void mount_to(unsigned long target)
{
	if (target > points_made) {
		tmpfs_mkpoints(points_made, target - points_made);
		points_made = target;
	}
	say("mounting tmpfs %lu -> %lu", mounts, target);
	for (; mounts < target; mounts++) {
		int err = tmpfs_mount(mounts);

		if (err)
			die("mount tmpfs #%lu: %s", mounts, strerror(-err));
	}
	if (mounts > mounts_hw)
		mounts_hw = mounts;
}

static void umount_to(unsigned long target)
{
	say("unmounting tmpfs %lu -> %lu", mounts, target);
	for (; mounts > target; mounts--) {
		int err = tmpfs_umount(mounts - 1);

		if (err)
			die("umount tmpfs #%lu: %s", mounts - 1, strerror(-err));
	}
}

/* Mounts that make mainline's map need @units units of 64 ids per node. */
static unsigned long mounts_for_units(unsigned int units)
{
	long m = (long)units * 64 - boot_shrinkers - HOST_IDS_EXTRA;

	return units <= 1 || m < 0 ? 0 : (unsigned long)m;
}

struct memsnap {
	long sunreclaim, memfree;
	long objs[MAX_CACHES];
};

static void snap(struct memsnap *s)
{
	slab_shrink_all();
	s->sunreclaim = meminfo_kb("SUnreclaim");
	s->memfree = meminfo_kb("MemFree");
	for (int i = 0; i < nr_caches; i++)
		s->objs[i] = slab_objs(caches[i]);
}

/* Wait until frees deferred by RCU and workqueues are done: two equal reads. */
static void settle(struct memsnap *s)
{
	long prev = -1;

	for (int i = 0; i < 100; i++) {
		snap(s);
		if (s->sunreclaim == prev && i >= 2)
			return;
		prev = s->sunreclaim;
		usleep(50000);
	}
	say("memory did not settle in 100 reads; measuring anyway");
}

struct cgcost {
	double slab_b, memfree_b;
	double objs[MAX_CACHES];
};

/* Memory of @n new empty cgroups, per cgroup; the cgroups are removed after. */
static void measure_cgroups(unsigned long n, struct cgcost *c)
{
	struct memsnap a, b;

	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	sync();
	settle(&a);
	cg_mkdir_range(CG_LAB, 0, n);
	snap(&b);
	cg_rmdir_range(CG_LAB, 0, n);
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	c->slab_b = (double)(b.sunreclaim - a.sunreclaim) * 1024 / (double)n;
	c->memfree_b = (double)(a.memfree - b.memfree) * 1024 / (double)n;
	for (int i = 0; i < nr_caches; i++)
		c->objs[i] = (double)(b.objs[i] - a.objs[i]) / (double)n;
}

static void cost_rows(const char *exp, const char *suffix, const struct cgcost *c,
		      unsigned long n, const char *note)
{
	char m[96];

	snprintf(m, sizeof(m), "slab_bytes_per_empty_cgroup%s", suffix);
	row1(exp, m, "B", c->slab_b, false, n, note);
	for (int i = 0; i < nr_caches; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s", caches[i]);
		for (char *p = name; *p; p++)
			if (*p == '-')
				*p = '_';
		snprintf(m, sizeof(m), "%s_objs_per_empty_cgroup%s", name, suffix);
		row1(exp, m, "count", c->objs[i], false, n, note);
	}
}

static void units_rung(unsigned int units, struct cgcost *c)
{
	char suffix[32], note[256];

	say("units: %u per node, %lu mounts, %lu cgroups", units, mounts, geo.units_cgroups);
	measure_cgroups(geo.units_cgroups, c);
	snprintf(suffix, sizeof(suffix), "_%uu", units);
	snprintf(note, sizeof(note), "%ld shrinkers registered (debugfs), mainline map %u units "
		 "per node", debugfs_shrinkers(), units);
	cost_rows("units", suffix, c, geo.units_cgroups, note);
	say("units %u: %.0f B slab, %.2f kmalloc-1k per cgroup", units, c->slab_b, c->objs[0]);
}

/* drop_caches (echo 2) timings with the cgroups that exist now: @v gets
 * geo.samples samples (at most 64), the median goes to *@median. */
static unsigned int drop_samples(double *v, double *median)
{
	unsigned int n = geo.samples < 64 ? geo.samples : 64;
	struct kstats s;

	drop_caches(2); /* warm-up: the first pass frees what there is */
	for (unsigned int i = 0; i < n; i++)
		v[i] = (double)drop_caches(2);
	stats_of(v, n, &s);
	*median = s.median;
	return n;
}

static void drop_pair(const char *suffix, unsigned long ncg)
{
	double v0[64], v1[64], med;
	unsigned int n;
	char m[96], note[128];
	struct kscale s0, s1;

	say("drop_caches: %lu mounts, 0 and %lu cgroups", mounts, ncg);
	snprintf(note, sizeof(note), "echo 2 > drop_caches, after one warm-up pass");
	scale_now(&s0, 0, note);
	n = drop_samples(v0, &med);
	cg_mkdir_range(CG_LAB, 0, ncg);
	scale_now(&s1, ncg, note);
	drop_samples(v1, &med);
	cg_rmdir_range(CG_LAB, 0, ncg);
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	snprintf(m, sizeof(m), "drop_caches_ns_no_cgroups%s", suffix);
	row_at("drop_caches", m, "ns", v0, n, &s0);
	snprintf(m, sizeof(m), "drop_caches_ns%s", suffix);
	row_at("drop_caches", m, "ns", v1, n, &s1);
}

/* Slope of drop_caches time against empty cgroups at the current mounts. */
static void drop_slope(unsigned long ncg, const char *fitnote)
{
	unsigned int p = geo.walk_points < 2 ? 2 : geo.walk_points;
	double x[32], y[32], sx = 0, sy = 0, sxx = 0, sxy = 0, slope;
	unsigned long made = 0;
	double v[64];
	unsigned int n;
	char note[512], note1[512];

	snprintf(note1, sizeof(note1), "echo 2 > drop_caches, after one warm-up pass%s%s",
		 fitnote[0] ? "; " : "", fitnote);
	if (p > 32)
		p = 32;
	for (unsigned int j = 0; j < p; j++) {
		unsigned long k = ncg * j / (p - 1);

		cg_mkdir_range(CG_LAB, made, k - made);
		made = k;
		n = drop_samples(v, &y[j]);
		x[j] = (double)k;
		say("drop_caches slope: %lu cgroups: median %.0f us", k, y[j] / 1000);
		if (j == 0)
			row("drop_caches", "drop_caches_ns_no_cgroups", "ns", v, n, 0, note1);
		if (j == p - 1)
			row("drop_caches", "drop_caches_ns", "ns", v, n, k, note1);
	}
	for (unsigned int j = 0; j < p; j++) {
		sx += x[j];
		sy += y[j];
		sxx += x[j] * x[j];
		sxy += x[j] * y[j];
	}
	slope = (p * sxy - sx * sy) / (p * sxx - sx * sx);
	snprintf(note, sizeof(note), "least-squares slope of the median over %u points, "
		 "0..%lu empty cgroups%s%s", p, ncg, fitnote[0] ? "; " : "", fitnote);
	row1("drop_caches", "drop_caches_ns_per_empty_cgroup", "ns", slope, false, ncg, note);
	cg_rmdir_range(CG_LAB, 0, made);
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
}

static void churn(const char *suffix)
{
	unsigned int n = geo.churn_samples < 32 ? geo.churn_samples : 32;
	double mk[32], rm[32], rel[32], rmrel[32];
	unsigned long nr = geo.churn_cgroups;
	char m[96];

	say("churn: %lu mounts, %u x %lu cgroups", mounts, n, nr);
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	for (unsigned int i = 0; i < n; i++) {
		uint64_t t0 = now_ns(), t1, t2, t3;

		cg_mkdir_range(CG_LAB, 0, nr);
		t1 = now_ns();
		cg_rmdir_range(CG_LAB, 0, nr);
		t2 = now_ns();
		cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
		t3 = now_ns();
		mk[i] = (double)(t1 - t0) / (double)nr;
		rm[i] = (double)(t2 - t1) / (double)nr;
		rel[i] = (double)(t3 - t2) / (double)nr;
		rmrel[i] = (double)(t3 - t1) / (double)nr;
		say("churn: mkdir %.1f us, rmdir %.1f us, release %.1f us per cgroup",
		    mk[i] / 1000, rm[i] / 1000, rel[i] / 1000);
	}
	snprintf(m, sizeof(m), "mkdir_ns_per_cgroup%s", suffix);
	row("churn", m, "ns", mk, n, nr, "per cgroup, batch of Nr mkdirs");
	snprintf(m, sizeof(m), "rmdir_ns_per_cgroup%s", suffix);
	row("churn", m, "ns", rm, n, nr, "per cgroup, batch of Nr rmdirs (offline runs from a "
	    "worker after rmdir returns)");
	snprintf(m, sizeof(m), "release_ns_per_cgroup%s", suffix);
	row("churn", m, "ns", rel, n, nr, "per cgroup, from the last rmdir until "
	    "nr_dying_descendants is 0");
	snprintf(m, sizeof(m), "rmdir_release_ns_per_cgroup%s", suffix);
	row("churn", m, "ns", rmrel, n, nr, "per cgroup, from the first rmdir until "
	    "nr_dying_descendants is 0");
}

static void register_batches(double *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		unsigned long target = mounts + geo.register_batch;
		uint64_t t0;

		tmpfs_mkpoints(points_made, target - points_made);
		points_made = target;
		t0 = now_ns();
		for (; mounts < target; mounts++) {
			int err = tmpfs_mount(mounts);

			if (err)
				die("mount tmpfs #%lu: %s", mounts, strerror(-err));
		}
		v[i] = (double)(now_ns() - t0);
		if (mounts > mounts_hw)
			mounts_hw = mounts;
	}
}

static void registration(unsigned long ncg, const char *fitnote)
{
	unsigned int n = geo.register_samples < 32 ? geo.register_samples : 32;
	double v0[32], v1[32];
	struct kscale s0, s1;
	char metric[96], note[512];

	say("register: batches of %lu mounts from %lu, %u without and %u with %lu cgroups",
	    geo.register_batch, mounts, n, n, ncg);
	snprintf(note, sizeof(note), "ns per batch of %lu tmpfs mounts, each batch above every "
		 "earlier mount; one warm-up batch, the batches without cgroups, then those "
		 "with%s%s", geo.register_batch, fitnote[0] ? "; " : "", fitnote);
	register_batches(v0, 1); /* warm-up: first-time costs of the mount path */
	scale_now(&s0, 0, note);
	register_batches(v0, n);
	cg_mkdir_range(CG_LAB, 0, ncg);
	scale_now(&s1, ncg, note);
	register_batches(v1, n);
	cg_rmdir_range(CG_LAB, 0, ncg);
	cg_wait_released(CG_LAB, RELEASE_TIMEOUT_S);
	snprintf(metric, sizeof(metric), "register_%lu_mounts_ns_no_cgroups", geo.register_batch);
	row_at("register", metric, "ns", v0, n, &s0);
	snprintf(metric, sizeof(metric), "register_%lu_mounts_ns_cgroups_alive", geo.register_batch);
	row_at("register", metric, "ns", v1, n, &s1);
}

static void highwater(const struct cgcost *at0)
{
	char note[200];
	struct cgcost c;
	struct kscale at;
	uint64_t t0;
	double per;

	snprintf(note, sizeof(note), "%lu tmpfs mounts made and then unmounted",
		 geo.highwater_mounts);
	cost_rows("highwater", "_before_mounts", at0, geo.units_cgroups, note);
	mount_to(geo.highwater_mounts);
	measure_cgroups(geo.units_cgroups, &c);
	cost_rows("highwater", "_with_mounts", &c, geo.units_cgroups, note);
	scale_now(&at, 0, note);
	t0 = now_ns();
	umount_to(0);
	per = (double)(now_ns() - t0) / (double)geo.highwater_mounts;
	{
		struct krow r = { .exp = "highwater", .unit = "ns", .timed = true, .value = per,
				  .min = per, .max = per, .raw = &per, .n = 1, .scale = at };

		snprintf(r.metric, sizeof(r.metric), "umount_ns_per_mount");
		kjson_row(&r);
	}
	measure_cgroups(geo.units_cgroups, &c);
	cost_rows("highwater", "_after_umount", &c, geo.units_cgroups, note);
	say("highwater: %.0f B slab per cgroup after unmounting %lu", c.slab_b,
	    geo.highwater_mounts);
}

/*
 * N empty cgroups that fit the guest's memory at the cost measured now,
 * times @growth (the map of mainline grows with the ids registered later).
 */
static unsigned long fit_cgroups(const struct cgcost *c, double growth, char *note, size_t len)
{
	double avail = (double)meminfo_kb("MemAvailable") * 1024 * geo.mem_fraction;
	double per = (c->memfree_b > c->slab_b ? c->memfree_b : c->slab_b) * growth;
	unsigned long fit = per > 0 ? (unsigned long)(avail / per) : geo.cgroups;

	note[0] = 0;
	if (fit >= geo.cgroups)
		return geo.cgroups;
	snprintf(note, len, "N cut from %lu to %lu: %.0f MiB available x %.2f, %.0f kB per cgroup",
		 geo.cgroups, fit, avail / geo.mem_fraction / 1048576, geo.mem_fraction, per / 1024);
	return fit;
}

static int parse_units(const char *s)
{
	char *end;

	geo.nr_units = 0;
	while (*s && geo.nr_units < MAX_RUNGS) {
		unsigned long u = strtoul(s, &end, 10);

		if (end == s || u < 1 || (geo.nr_units && u <= geo.units[geo.nr_units - 1]))
			return -1;
		geo.units[geo.nr_units++] = (unsigned int)u;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return geo.nr_units && geo.units[0] == 1 ? 0 : -1;
}

static void usage(void)
{
	fputs("usage: klab-guest [--design NAME] [--accel NAME] [--scale NAME] [--date ISO8601]\n"
	      "  [--ladder 1,35,126,314] [--cgroups N] [--units-cgroups Nu]\n"
	      "  [--churn-cgroups Nr] [--samples S] [--churn-samples S] [--register-batch B]\n"
	      "  [--register-samples S] [--highwater-mounts H] [--walk-points P]\n"
	      "  [--mem-fraction F]\n"
	      "The unit ladder must start at 1 and rise.\n", stderr);
	exit(2);
}

/* The geometry in words, for the JSON. */
static void describe(char *buf, size_t len)
{
	int n = snprintf(buf, len, "kernel guest: ladder");

	for (int i = 0; i < geo.nr_units && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%u", i ? "," : " ", geo.units[i]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " units per node (%ld host shrinker ids), "
			 "N=%lu, Nu=%lu, Nr=%lu, H=%lu, B=%lu, %d nodes, %u CPUs",
			 boot_shrinkers + HOST_IDS_EXTRA, geo.cgroups, geo.units_cgroups,
			 geo.churn_cgroups, geo.highwater_mounts, geo.register_batch, nodes, cpus);
}

/* Time one phase of experiment @exp. */
#define PHASE(exp, call)                                    \
	do {                                                \
		uint64_t t0_ = now_ns();                    \
		call;                                       \
		kjson_elapsed(exp, now_ns() - t0_);         \
	} while (0)

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "design", 1, 0, 'd' }, { "accel", 1, 0, 'a' }, { "ladder", 1, 0, 'u' },
		{ "cgroups", 1, 0, 'n' }, { "units-cgroups", 1, 0, 'U' },
		{ "churn-cgroups", 1, 0, 'r' }, { "samples", 1, 0, 's' },
		{ "churn-samples", 1, 0, 'S' }, { "register-batch", 1, 0, 'b' },
		{ "register-samples", 1, 0, 'B' }, { "highwater-mounts", 1, 0, 'H' },
		{ "walk-points", 1, 0, 'p' }, { "mem-fraction", 1, 0, 'f' },
		{ "scale", 1, 0, 'g' }, { "date", 1, 0, 't' }, { 0, 0, 0, 0 }
	};
	struct kguest g = { .design = "kernel:unknown", .accel = "unknown", .scale = "custom",
			    .argc = argc, .argv = argv };
	struct cgcost c0, ctop;
	unsigned long ncg = 0, reg_after;
	uint64_t t_start = now_ns();
	char fitnote[160], words[512];
	int opt;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': g.design = optarg; break;
		case 'a': g.accel = optarg; break;
		case 'g': g.scale = optarg; break;
		case 't': g.date = optarg; break;
		case 'u': if (parse_units(optarg)) usage(); break;
		case 'n': geo.cgroups = strtoul(optarg, NULL, 10); break;
		case 'U': geo.units_cgroups = strtoul(optarg, NULL, 10); break;
		case 'r': geo.churn_cgroups = strtoul(optarg, NULL, 10); break;
		case 's': geo.samples = (unsigned int)atoi(optarg); break;
		case 'S': geo.churn_samples = (unsigned int)atoi(optarg); break;
		case 'b': geo.register_batch = strtoul(optarg, NULL, 10); break;
		case 'B': geo.register_samples = (unsigned int)atoi(optarg); break;
		case 'H': geo.highwater_mounts = strtoul(optarg, NULL, 10); break;
		case 'p': geo.walk_points = (unsigned int)atoi(optarg); break;
		case 'f': geo.mem_fraction = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || !geo.cgroups || !geo.units_cgroups || !geo.churn_cgroups ||
	    !geo.samples || !geo.churn_samples || !geo.register_batch || !geo.register_samples ||
	    geo.mem_fraction <= 0 || geo.mem_fraction > 0.95)
		usage();

	g.cpus = cpus = online_cpus();
	g.nodes = nodes = online_nodes();
	g.mem_kb = (unsigned long)meminfo_kb("MemTotal");
	g.samples = geo.samples;
	boot_shrinkers = debugfs_shrinkers();
	if (boot_shrinkers < 0)
		die("/sys/kernel/debug/shrinker: %s (the lab config needs SHRINKER_DEBUG and "
		    "debugfs)", strerror(errno));
	g.boot_shrinkers = boot_shrinkers;
	find_caches();
	cg_enable_memory(CG_ROOT);
	if (mkdir(CG_LAB, 0755) && errno != EEXIST)
		die("mkdir " CG_LAB ": %s", strerror(errno));
	cg_enable_memory(CG_LAB);
	say("%s: %u cpus, %d nodes, %lu MiB, %ld shrinkers at boot", g.design, cpus, nodes,
	    g.mem_kb / 1024, boot_shrinkers);

	/* Rung 1: no mounts. */
	PHASE("units", units_rung(geo.units[0], &c0));
	PHASE("drop_caches", drop_pair("_no_mounts", geo.cgroups));
	PHASE("churn", churn("_no_mounts"));
	PHASE("highwater", highwater(&c0));

	/* Up the ladder; registration runs below the top rung when it fits. */
	reg_after = (unsigned long)(geo.nr_units - 1);
	for (int i = geo.nr_units - 2; i >= 1; i--)
		if (mounts_for_units(geo.units[i]) +
		    (2 * geo.register_samples + 1) * geo.register_batch <
		    mounts_for_units(geo.units[geo.nr_units - 1])) {
			reg_after = (unsigned long)i;
			break;
		}
	ctop = c0;
	for (int i = 1; i < geo.nr_units; i++) {
		PHASE("units", mount_to(mounts_for_units(geo.units[i])));
		PHASE("units", units_rung(geo.units[i], &ctop));
		if ((unsigned long)i == reg_after) {
			double ids = (double)(mounts + (unsigned long)boot_shrinkers);
			double more = (2.0 * geo.register_samples + 1) * geo.register_batch;

			ncg = fit_cgroups(&ctop, (ids + more) / ids, fitnote, sizeof(fitnote));
			PHASE("register", registration(ncg, fitnote));
		}
	}

	/* Top rung: drop_caches against cgroups, and churn. */
	ncg = fit_cgroups(&ctop, 1.0, fitnote, sizeof(fitnote));
	PHASE("drop_caches", drop_slope(ncg, fitnote));
	PHASE("churn", churn(""));

	describe(words, sizeof(words));
	g.describe = words;
	g.mem_available_kb = (unsigned long)meminfo_kb("MemAvailable");
	g.elapsed_ns = now_ns() - t_start;
	if (kjson_write(stdout, &g))
		die("writing the JSON failed");
	say("done: %lu mounts, N=%lu", mounts, ncg);
	return 0;
}
