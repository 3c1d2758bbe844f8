// SPDX-License-Identifier: GPL-2.0
/*
 * kseeds: the seeds' tables that a kernel can answer, in the guest, with the
 * experiment ids and metric names of shrinklab reproduce (tools/shrinklab/
 * experiments.c), so that klab reproduce (kernel/py/klab/reproduce.py) puts
 * each kernel figure beside the seed's and the model's.
 *
 *   kseeds --table vm    seed 000's VM table, and seed 004's units table on
 *                        the way up (boot it with 1 node and 4 CPUs, the
 *                        seed VM's);
 *   kseeds --table host  seed 000's host table at the guest's geometry (4
 *                        nodes; the seed's 48 CPUs and 20000 cgroups do not
 *                        fit a guest: the mounts, hence the units per node,
 *                        are the seed's or what --mounts says).
 *
 * The mounts are tmpfs (a superblock, so a memcg-aware shrinker each); for
 * the vm table every (mounts / 100)-th of them is a procfs instead, so that
 * 100 of the mounts, spread over the id range, can hold objects of a memcg:
 * procfs keeps unused dentries on its LRU (tmpfs pins its dentries and
 * frees its negative ones at once), and a process of the memcg that looks
 * up "meminfo" there leaves a dentry charged to the memcg on that
 * superblock's list.
 *
 * What a row includes (the kernel has no clock around shrink_slab_memcg()
 * alone; these are the smallest kernel operations that contain it):
 *
 *   walk_ns_empty_cgroup, walk_ns_per_cgroup_node: per sample, (echo 2 >
 *	drop_caches with N empty cgroups) minus the median of the same with
 *	none, over N x nodes: one shrink_slab() call per cgroup and node,
 *	with mem_cgroup_iter() and the dispatch around the walk.
 *   walk_ns_cgroup_objects_100: the same with Nobj cgroups that each hold a
 *	dentry on each of the 100 procfs mounts, refilled before each sample:
 *	it includes the 100 shrinkers' count and scan, the frees, and the
 *	second pass drop_caches makes after freeing.
 *   slab_bytes_per_empty_cgroup: SUnreclaim per new empty cgroup over Nu
 *	(per-CPU slabs flushed).  container_bytes_per_empty_cgroup: the slab
 *	of kmalloc-2k, -4k and -8k per new empty cgroup here, less the same
 *	before any mount: what the per-cgroup pointer arrays grew by.
 *   units_per_slab: objs_per_slab of the cache the units came from (the
 *	*shrinker* cache whose objects grow per cgroup, else kmalloc-1k).
 *   mkdir_rmdir_ns_per_cgroup: Nr = N / 10 cgroups made, removed and
 *	released (nr_dying_descendants back to 0) beside the N, per cgroup.
 *   register_ns_per_mount_cgroups_alive: the seed's 4000 more mounts
 *	spread over the samples (and a warm-up), per mount.
 *   register_640_mounts_ns_{cgroups_alive,no_cgroups}: 640 fresh mounts
 *	(ten 64-id boundaries) per sample, with the N cgroups, then after
 *	they are removed.
 *
 * Times are medians, every sample kept in the JSON (kjson.c, schema
 * shrinklab/2); memory figures are exact deltas. Bounded by work.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kjson.h"
#include "kutil.h"

#define CG_SEEDS CG_ROOT "/kseeds"
#define MNT_POINT "/mnt/klab/m%lu"
#define RELEASE_TIMEOUT_S 3600
#define MAX_SAMPLES 32
#define OBJ_MOUNTS 100
#define NR_SIZES 3
/* Ids taken before the first mount, as klab-guest counts them: the
 * shrinkers in debugfs at start, plus 4. */
#define HOST_IDS_EXTRA 4

static const char *const big_caches[NR_SIZES] = { "kmalloc-2k", "kmalloc-4k", "kmalloc-8k" };
static const double big_sizes[NR_SIZES] = { 2048, 4096, 8192 };

static struct {
	const char *table;
	unsigned long mounts, units_mounts, cgroups, units_cgroups, obj_cgroups;
	unsigned long register_more, register_batch;
	unsigned int samples;
	double mem_fraction;
} opt = {
	.mounts = 20000, .units_mounts = 8000, .cgroups = 2000, .units_cgroups = 200,
	.obj_cgroups = 500, .register_more = 4000, .register_batch = 640, .samples = 5,
	.mem_fraction = 0.7,
};

static unsigned long mounts, mounts_hw, points_made, proc_every;
static bool *is_proc;
static long boot_shrinkers;
static unsigned int cpus;
static int nodes;
static char unit_cache[128] = "kmalloc-1k";

static void scale_now(struct kscale *sc, unsigned long cgroups, const char *note)
{
	unsigned long host = (unsigned long)boot_shrinkers + HOST_IDS_EXTRA;

	sc->mounts = mounts;
	sc->cgroups = cgroups;
	sc->host_shrinkers = host;
	sc->units = (long)((mounts_hw + host + 63) / 64);
	sc->nodes = nodes;
	sc->cpus = cpus;
	snprintf(sc->note, sizeof(sc->note), "%s", note ? note : "");
}

static void add_row(const char *exp, const char *metric, const char *unit, bool timed,
		    const double *v, size_t n, const struct kscale *sc)
{
	struct krow r = { .exp = exp, .unit = unit, .timed = timed, .raw = v, .n = n,
			  .scale = *sc };
	struct kstats s;

	stats_of(v, n, &s);
	r.value = s.median;
	r.min = s.min;
	r.max = s.max;
	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	kjson_row(&r);
}

static void add_value(const char *exp, const char *metric, const char *unit, double v,
		      const struct kscale *sc)
{
	add_row(exp, metric, unit, false, &v, 1, sc);
}

/* ---- mounts ---- */

static int proc_mount(unsigned long i)
{
	char path[64];

	snprintf(path, sizeof(path), MNT_POINT, i);
	return mount("proc", path, "proc", 0, NULL) ? -errno : 0;
}

static void mount_to(unsigned long target)
{
	if (target > points_made) {
		tmpfs_mkpoints(points_made, target - points_made);
		points_made = target;
	}
	say("mounting %lu -> %lu", mounts, target);
	for (; mounts < target; mounts++) {
		bool proc = proc_every && mounts < opt.mounts &&
			    mounts % proc_every == proc_every / 2;
		int err = proc ? proc_mount(mounts) : tmpfs_mount(mounts);

		if (err)
			die("mount %s #%lu: %s", proc ? "proc" : "tmpfs", mounts, strerror(-err));
		if (proc)
			is_proc[mounts] = true;
	}
	if (mounts > mounts_hw)
		mounts_hw = mounts;
}

/* ---- memory ---- */

struct memsnap {
	long sunreclaim;
	long units, big[NR_SIZES];
};

static void snap(struct memsnap *s)
{
	slab_shrink_all();
	s->sunreclaim = meminfo_kb("SUnreclaim");
	s->units = slab_objs(unit_cache);
	for (int i = 0; i < NR_SIZES; i++)
		s->big[i] = slab_objs(big_caches[i]);
}

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
	double slab_b, big_b, units;
};

static void measure_cgroups(unsigned long n, struct cgcost *c)
{
	struct memsnap a, b;

	cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
	sync();
	settle(&a);
	cg_mkdir_range(CG_SEEDS, 0, n);
	snap(&b);
	cg_rmdir_range(CG_SEEDS, 0, n);
	cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
	c->slab_b = (double)(b.sunreclaim - a.sunreclaim) * 1024 / (double)n;
	c->units = (double)(b.units - a.units) / (double)n;
	c->big_b = 0;
	for (int i = 0; i < NR_SIZES; i++)
		c->big_b += (double)(b.big[i] - a.big[i]) * big_sizes[i] / (double)n;
}

/* The cache the units come from: a cache named *shrinker* whose objects
 * grow with new cgroups, else kmalloc-1k (mainline's kzalloc_node). */
static void find_unit_cache(void)
{
	char line[512], name[128];
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		die("/proc/slabinfo: %s (the lab config needs SLUB_DEBUG)", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s", name) == 1 && strstr(name, "shrinker")) {
			long a, b;

			cg_mkdir_range(CG_SEEDS, 0, 20);
			slab_shrink_all();
			a = slab_objs(name);
			cg_rmdir_range(CG_SEEDS, 0, 20);
			cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
			slab_shrink_all();
			b = slab_objs(name);
			if (a > b) {
				snprintf(unit_cache, sizeof(unit_cache), "%s", name);
				break;
			}
		}
	fclose(f);
	say("units come from %s", unit_cache);
}

static long slab_attr(const char *cache, const char *attr)
{
	char path[256], buf[64];
	FILE *f;
	long v = -1;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", cache, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

static void memory_rows(const char *exp, const struct cgcost *c)
{
	char note[256];
	struct kscale sc;

	snprintf(note, sizeof(note), "SUnreclaim per new empty cgroup, over %lu (%.2f units "
		 "of %s each)", opt.units_cgroups, c->units, unit_cache);
	scale_now(&sc, opt.units_cgroups, note);
	add_value(exp, "slab_bytes_per_empty_cgroup", "B", c->slab_b, &sc);
}

/* ---- drop_caches ---- */

static void drop_samples(double *v, unsigned int n)
{
	drop_caches(2); /* warm-up: the first pass frees what there is */
	for (unsigned int i = 0; i < n; i++)
		v[i] = (double)drop_caches(2);
}

static double median(const double *v, unsigned int n)
{
	struct kstats s;

	stats_of(v, n, &s);
	return s.median;
}

/* (@v[k] - @base) / (@per x nodes), in @out. */
static void per_cgroup_node(const double *v, unsigned int n, double base, unsigned long per,
			    double *out)
{
	for (unsigned int k = 0; k < n; k++)
		out[k] = (v[k] - base) / (double)per / (double)nodes;
}

/* In a child in cgroup c<@i>: one dentry on each procfs mount. */
static void fill_child(unsigned long i)
{
	char path[300], pid[32];
	struct stat st;
	int err;

	snprintf(path, sizeof(path), CG_SEEDS "/c%lu/cgroup.procs", i);
	snprintf(pid, sizeof(pid), "%d", getpid());
	err = write_str(path, pid);
	if (err)
		die("%s: %s", path, strerror(-err));
	for (unsigned long m = 0; m < opt.mounts; m++) {
		if (!is_proc[m])
			continue;
		snprintf(path, sizeof(path), MNT_POINT "/meminfo", m);
		if (stat(path, &st))
			die("stat %s: %s", path, strerror(errno));
	}
	_exit(0);
}

static void fill_objects(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (!pid)
			fill_child(i);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			die("a child that makes dentries in cgroup c%lu failed", i);
	}
}

/* ---- cgroups and mounts, timed ---- */

static void churn_samples(unsigned long alive, unsigned long nr, double *v, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++) {
		uint64_t t0 = now_ns();

		cg_mkdir_range(CG_SEEDS, alive, nr);
		cg_rmdir_range(CG_SEEDS, alive, nr);
		cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
		v[k] = (double)(now_ns() - t0) / (double)nr;
	}
}

/* @n samples of @batch fresh tmpfs mounts each (one warm-up batch first);
 * per mount when @per_mount. */
static void register_samples(unsigned long batch, bool per_mount, double *v, unsigned int n)
{
	for (unsigned int k = 0; k <= n; k++) {
		uint64_t t0 = now_ns();

		mount_to(mounts + batch);
		if (k)
			v[k - 1] = (double)(now_ns() - t0) / (per_mount ? (double)batch : 1.0);
	}
}

/* N that fits the guest's memory at cost @c, times @growth. */
static unsigned long fit_cgroups(const struct cgcost *c, double growth, char *note, size_t len)
{
	double avail = (double)meminfo_kb("MemAvailable") * 1024 * opt.mem_fraction;
	double per = c->slab_b * growth;
	unsigned long fit = per > 0 ? (unsigned long)(avail / per) : opt.cgroups;

	note[0] = 0;
	if (fit >= opt.cgroups)
		return opt.cgroups;
	snprintf(note, len, "N cut from %lu to %lu: %.0f MiB available x %.2f, %.0f kB per cgroup",
		 opt.cgroups, fit, avail / opt.mem_fraction / 1048576, opt.mem_fraction,
		 per / 1024);
	return fit;
}

/* ---- the tables ---- */

static void units_table(void)
{
	struct cgcost c;
	struct kscale sc;
	char note[256];
	long per_slab = slab_attr(unit_cache, "objs_per_slab");
	long order = slab_attr(unit_cache, "order");

	mount_to(opt.units_mounts);
	measure_cgroups(opt.units_cgroups, &c);
	memory_rows("unit-cache-2026", &c);
	snprintf(note, sizeof(note), "units came from %s (objs_per_slab, order %ld)", unit_cache,
		 order);
	scale_now(&sc, 0, note);
	add_value("unit-cache-2026", "units_per_slab", "count", (double)per_slab, &sc);
	say("units table: %.0f B per cgroup at %lu mounts, %ld units per slab of %s", c.slab_b,
	    mounts, per_slab, unit_cache);
}

static void vm_table(void)
{
	const char *exp = "xarray-2026-vm";
	unsigned int s = opt.samples;
	double t0[MAX_SAMPLES], t[MAX_SAMPLES], v[MAX_SAMPLES], base;
	unsigned long n, nobj, churn;
	struct cgcost c;
	struct kscale sc;
	char fit[200], note[512];

	proc_every = opt.mounts / OBJ_MOUNTS;
	if (opt.units_mounts && opt.units_mounts < opt.mounts)
		units_table();
	mount_to(opt.mounts);
	measure_cgroups(opt.units_cgroups, &c);
	memory_rows(exp, &c);
	n = fit_cgroups(&c, (double)(opt.mounts + opt.register_more) / (double)opt.mounts, fit,
			sizeof(fit));
	nobj = opt.obj_cgroups < n ? opt.obj_cgroups : n;

	say("vm: drop_caches with no cgroups at %lu mounts", mounts);
	drop_samples(t0, s);
	base = median(t0, s);
	scale_now(&sc, 0, "echo 2 > drop_caches, after one warm-up pass");
	add_row(exp, "drop_caches_ns_no_cgroups", "ns", true, t0, s, &sc);

	say("vm: %lu cgroups with a dentry on each of %d procfs mounts", nobj, OBJ_MOUNTS);
	cg_mkdir_range(CG_SEEDS, 0, nobj);
	for (unsigned int k = 0; k < s; k++) {
		fill_objects(nobj);
		t[k] = (double)drop_caches(2);
	}
	per_cgroup_node(t, s, base, nobj, v);
	snprintf(note, sizeof(note), "per sample: (drop_caches with %lu cgroups holding a dentry "
		 "on each of %d procfs mounts spread over the ids, refilled before each sample) "
		 "minus the median with none, over cgroups x nodes; includes the count, scan and "
		 "frees of those dentries and drop_caches' second pass", nobj, OBJ_MOUNTS);
	scale_now(&sc, nobj, note);
	add_row(exp, "walk_ns_cgroup_objects_100", "ns", true, v, s, &sc);

	say("vm: drop_caches with %lu empty cgroups", n);
	cg_mkdir_range(CG_SEEDS, nobj, n - nobj);
	drop_samples(t, s);
	snprintf(note, sizeof(note), "echo 2 > drop_caches, after one warm-up pass%s%s",
		 fit[0] ? "; " : "", fit);
	scale_now(&sc, n, note);
	add_row(exp, "drop_caches_ns", "ns", true, t, s, &sc);
	per_cgroup_node(t, s, base, n, v);
	snprintf(note, sizeof(note), "per sample: (drop_caches with %lu empty cgroups) minus the "
		 "median with none, over cgroups x nodes%s%s", n, fit[0] ? "; " : "", fit);
	scale_now(&sc, n, note);
	add_row(exp, "walk_ns_empty_cgroup", "ns", true, v, s, &sc);

	churn = n / 10 ? n / 10 : 1;
	say("vm: mkdir/rmdir of %lu cgroups beside %lu", churn, n);
	churn_samples(n, churn, v, s);
	snprintf(note, sizeof(note), "%lu cgroups made, removed and released per sample, beside "
		 "%lu, per cgroup", churn, n);
	scale_now(&sc, n, note);
	add_row(exp, "mkdir_rmdir_ns_per_cgroup", "ns", true, v, s, &sc);

	snprintf(note, sizeof(note), "%lu mounts per sample (the seed's %lu more, over the "
		 "samples and a warm-up), from %lu mounts on, %lu cgroups alive, per mount",
		 opt.register_more / (s + 1), opt.register_more, mounts, n);
	scale_now(&sc, n, note);
	register_samples(opt.register_more / (s + 1), true, v, s);
	add_row(exp, "register_ns_per_mount_cgroups_alive", "ns", true, v, s, &sc);
	cg_rmdir_range(CG_SEEDS, 0, n);
	cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
}

static void host_table(void)
{
	const char *exp = "xarray-2026-host";
	unsigned int s = opt.samples;
	double t0[MAX_SAMPLES], t[MAX_SAMPLES], v[MAX_SAMPLES], base;
	struct cgcost c0, c;
	struct kscale sc;
	unsigned long n;
	char fit[200], note[512];
	double more;

	measure_cgroups(opt.units_cgroups, &c0);
	mount_to(opt.mounts);
	measure_cgroups(opt.units_cgroups, &c);
	memory_rows(exp, &c);
	snprintf(note, sizeof(note), "slab of kmalloc-2k, -4k and -8k per new empty cgroup at %lu "
		 "mounts, less the same before any mount, over %lu", opt.mounts, opt.units_cgroups);
	scale_now(&sc, opt.units_cgroups, note);
	add_value(exp, "container_bytes_per_empty_cgroup", "B", c.big_b - c0.big_b, &sc);
	more = (double)(opt.mounts + (2.0 * s + 2) * opt.register_batch) / (double)opt.mounts;
	n = fit_cgroups(&c, more, fit, sizeof(fit));

	say("host: drop_caches with none and with %lu empty cgroups", n);
	drop_samples(t0, s);
	base = median(t0, s);
	scale_now(&sc, 0, "echo 2 > drop_caches, after one warm-up pass");
	add_row(exp, "drop_caches_ns_no_cgroups", "ns", true, t0, s, &sc);
	cg_mkdir_range(CG_SEEDS, 0, n);
	drop_samples(t, s);
	snprintf(note, sizeof(note), "echo 2 > drop_caches, after one warm-up pass%s%s",
		 fit[0] ? "; " : "", fit);
	scale_now(&sc, n, note);
	add_row(exp, "drop_caches_ns", "ns", true, t, s, &sc);
	per_cgroup_node(t, s, base, n, v);
	snprintf(note, sizeof(note), "per sample: (drop_caches with %lu empty cgroups) minus the "
		 "median with none, over cgroups x nodes%s%s", n, fit[0] ? "; " : "", fit);
	scale_now(&sc, n, note);
	add_row(exp, "walk_ns_per_cgroup_node", "ns", true, v, s, &sc);

	snprintf(note, sizeof(note), "sample k registers %lu fresh mounts from %lu + %lu k on, "
		 "%lu cgroups alive (one warm-up batch)", opt.register_batch, mounts,
		 opt.register_batch, n);
	scale_now(&sc, n, note);
	register_samples(opt.register_batch, false, v, s);
	add_row(exp, "register_640_mounts_ns_cgroups_alive", "ns", true, v, s, &sc);
	cg_rmdir_range(CG_SEEDS, 0, n);
	cg_wait_released(CG_SEEDS, RELEASE_TIMEOUT_S);
	snprintf(note, sizeof(note), "sample k registers %lu fresh mounts from %lu + %lu k on, "
		 "no cgroups (one warm-up batch)", opt.register_batch, mounts, opt.register_batch);
	scale_now(&sc, 0, note);
	register_samples(opt.register_batch, false, v, s);
	add_row(exp, "register_640_mounts_ns_no_cgroups", "ns", true, v, s, &sc);
}

static void usage(void)
{
	fputs("usage: kseeds --table vm|host [--design NAME] [--accel NAME] [--date ISO8601]\n"
	      "  [--mounts M] [--units-mounts M3] [--cgroups N] [--units-cgroups Nu]\n"
	      "  [--obj-cgroups Nobj] [--register-more R] [--register-batch B] [--samples S]\n"
	      "  [--mem-fraction F]\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "table", 1, 0, 'T' }, { "design", 1, 0, 'd' }, { "accel", 1, 0, 'a' },
		{ "date", 1, 0, 't' }, { "mounts", 1, 0, 'm' }, { "units-mounts", 1, 0, 'M' },
		{ "cgroups", 1, 0, 'n' }, { "units-cgroups", 1, 0, 'U' },
		{ "obj-cgroups", 1, 0, 'o' }, { "register-more", 1, 0, 'r' },
		{ "register-batch", 1, 0, 'b' }, { "samples", 1, 0, 's' },
		{ "mem-fraction", 1, 0, 'f' }, { 0, 0, 0, 0 }
	};
	struct kguest g = { .design = "kernel:unknown", .accel = "unknown", .scale = "seed",
			    .argc = argc, .argv = argv };
	uint64_t t_start = now_ns();
	char words[512];
	int o;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'T': opt.table = optarg; break;
		case 'd': g.design = optarg; break;
		case 'a': g.accel = optarg; break;
		case 't': g.date = optarg; break;
		case 'm': opt.mounts = strtoul(optarg, NULL, 10); break;
		case 'M': opt.units_mounts = strtoul(optarg, NULL, 10); break;
		case 'n': opt.cgroups = strtoul(optarg, NULL, 10); break;
		case 'U': opt.units_cgroups = strtoul(optarg, NULL, 10); break;
		case 'o': opt.obj_cgroups = strtoul(optarg, NULL, 10); break;
		case 'r': opt.register_more = strtoul(optarg, NULL, 10); break;
		case 'b': opt.register_batch = strtoul(optarg, NULL, 10); break;
		case 's': opt.samples = (unsigned int)atoi(optarg); break;
		case 'f': opt.mem_fraction = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || !opt.table || (strcmp(opt.table, "vm") && strcmp(opt.table, "host")) ||
	    opt.mounts < OBJ_MOUNTS || !opt.cgroups || !opt.units_cgroups || !opt.obj_cgroups ||
	    opt.samples < 1 || opt.samples > MAX_SAMPLES || !opt.register_batch ||
	    opt.register_more < opt.samples + 1 || opt.mem_fraction <= 0 ||
	    opt.mem_fraction > 0.95)
		usage();

	g.cpus = cpus = online_cpus();
	g.nodes = nodes = online_nodes();
	g.mem_kb = (unsigned long)meminfo_kb("MemTotal");
	g.samples = opt.samples;
	boot_shrinkers = debugfs_shrinkers();
	if (boot_shrinkers < 0)
		die("/sys/kernel/debug/shrinker: %s (the lab config needs SHRINKER_DEBUG and "
		    "debugfs)", strerror(errno));
	g.boot_shrinkers = boot_shrinkers;
	is_proc = calloc(opt.mounts, sizeof(*is_proc));
	if (!is_proc)
		die("out of memory");
	cg_enable_memory(CG_ROOT);
	if (mkdir(CG_SEEDS, 0755) && errno != EEXIST)
		die("mkdir " CG_SEEDS ": %s", strerror(errno));
	cg_enable_memory(CG_SEEDS);
	find_unit_cache();
	say("%s: table %s, %u cpus, %d nodes, %lu MiB, %ld shrinkers at boot", g.design,
	    opt.table, cpus, nodes, g.mem_kb / 1024, boot_shrinkers);

	if (!strcmp(opt.table, "vm"))
		vm_table();
	else
		host_table();

	snprintf(words, sizeof(words), "kseeds --table %s: %lu mounts, N=%lu, Nu=%lu, Nobj=%lu, "
		 "%d nodes, %u CPUs, %ld host shrinker ids", opt.table, opt.mounts, opt.cgroups,
		 opt.units_cgroups, opt.obj_cgroups, nodes, cpus, boot_shrinkers + HOST_IDS_EXTRA);
	g.describe = words;
	g.mem_available_kb = (unsigned long)meminfo_kb("MemAvailable");
	g.elapsed_ns = now_ns() - t_start;
	if (kjson_write(stdout, &g))
		die("writing the JSON failed");
	say("done: %lu mounts", mounts);
	return 0;
}
