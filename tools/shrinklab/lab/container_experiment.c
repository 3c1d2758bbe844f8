/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's container workload in the model (container_experiment.h):
 * kernel/guest/kw_containers.c's script, step for step, at the guest's
 * geometry, on one model host per design configuration, the designs taking
 * each sample in turn (after an RCU barrier), so kernel:D and the model of
 * D stand side by side on cgroups that hold objects.
 *
 * A container is a cgroup under a parent ("ct") with mounts of its own,
 * each a superblock of the reference consumer (consumer/superblock.h: a
 * memcg- and NUMA-aware shrinker over a dentry list_lru and an inode
 * list_lru, its objects real slab objects of the host's allocator):
 *
 *   ext4   dirs + 1 directories, files files and negative lookups: a
 *          dentry and an inode per directory and file, a dentry per
 *          missing name, all on the mount's lists for the container
 *          (reclaimable, as on the guest's ext4);
 *   proc   proc_files dentries and inodes on its lists (the guest's walk
 *          of /proc; the count is the guest's, from klab);
 *   tmpfs  tmpfs_files dentries and inodes charged to the container and
 *          pinned (on no list, as tmpfs keeps them), and the container's
 *          lists on the mount's list_lrus allocated: a shrinker all the
 *          same, with nothing to free.
 *
 * Every object's slot is charged to the container (shr_mem_cgroup_charge:
 * the kernel's per-object slab accounting) and uncharged when it is freed
 * (the consumer's on_free hook), so memory.current here is the containers'
 * slab. The model has no page cache: the guest's file bytes, and the page
 * cache share of its bytes freed, have no counterpart (klab work says so).
 * A container's objects live on one node (its index modulo the nodes that
 * have CPUs: the node of the CPU its child ran on in the guest).
 *
 * At each background level (bg: empty tmpfs mounts of the root, one more
 * memcg-aware shrinker each), containers are made and measured:
 *
 *   populate  memory.current and slab of each container; dentries and
 *             inodes made per container (the caches' objects in use, as
 *             slabinfo);
 *   reclaim   memory.reclaim of one container asking for every object on
 *             its lists (the guest asks for its file + slab_reclaimable
 *             bytes): passes of shr_mem_cgroup_reclaim() for what is still
 *             missing, 16 more after a pass that freed nothing, as the
 *             kernel's memory_reclaim() loops; latency, bytes and objects
 *             freed, -EAGAIN; then 1 MiB of dentries from the drained
 *             container (the walk with little left: 17 passes);
 *   high      memory.high = usage + high_margin_kib, a writer creating
 *             writer_files files (a dentry, an inode, a missing name
 *             each) that, when a charge leaves the container over its
 *             high, reclaims it back under in its own thread before the
 *             next file (shr_reclaimer_dispatch(): the over-high reclaim
 *             the kernel runs on the task's return to user space): wall
 *             and thread CPU time per file, high events, usage at the end;
 *   drop      shr_drop_caches() over the populated containers, and again
 *             right after;
 *   teardown  per container: umount of its mounts (the objects freed),
 *             rmdir; then the RCU barrier until every container is
 *             released, and the containers still dying after it.
 *
 * A container drained by reclaim is refilled before its next use: each of
 * its lists is topped up to the count it had when populated (the guest
 * walks its files again). Times are CLOCK_MONOTONIC (lab_now_ns()) and, for
 * the writer's CPU, CLOCK_THREAD_CPUTIME_ID; nothing is computed from a
 * formula: every row is a reading of the hosts or a clock.
 *
 * Metric names carry _no_mounts at background level 0, nothing at the last
 * level, _m<M> at a level between (the guest's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/reclaimer.h>
#include <shrinker/slab.h>

#include "container_experiment.h"
#include "lockstep.h"
#include "rows.h"
#include "stats.h"
#include "units.h"

#define DRAINED_ASK_BYTES (1ul << 20)
/* memory.reclaim's retries after a pass that freed nothing
 * (MAX_RECLAIM_RETRIES of mm/memcontrol.c's memory_reclaim()). */
#define MEMORY_RECLAIM_RETRIES 16

static const char *const kind_names[] = { "ext4", "proc", "tmpfs" };

/* ---- geometry ---- */

void lab_ct_geometry_full(struct lab_ct_geometry *g)
{
	memset(g, 0, sizeof(*g));
	g->containers = 12;
	g->files = 2000;
	g->dirs = 8;
	g->negative = 2000;
	g->tmpfs_files = 16;
	g->proc_files = 1000;
	g->samples = 5;
	g->writer_files = 3000;
	g->high_margin_kib = 2048;
	g->bg[0] = 0;
	g->bg[1] = 20000;
	g->nbg = 2;
	g->mix[0] = LAB_CT_EXT4;
	g->mix[1] = LAB_CT_PROC;
	g->mix[2] = LAB_CT_TMPFS;
	g->mix[3] = LAB_CT_TMPFS;
	g->nmix = 4;
	g->phase_reclaim = g->phase_high = g->phase_drop = true;
	g->host_shrinkers = 22;
	g->nodes = 4;
	g->cpus = 2;
}

int lab_ct_parse_mix(const char *text, struct lab_ct_geometry *g, const char **why)
{
	char buf[128], *item[LAB_CT_MAX_MIX];
	enum lab_ct_kind mix[LAB_CT_MAX_MIX];
	int n = lab_list_split(text, '+', true, buf, sizeof(buf), item, LAB_CT_MAX_MIX, why);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int k;

		for (k = 0; k < 3 && strcmp(item[i], kind_names[k]); k++)
			;
		if (k == 3) {
			*why = "an unknown kind";
			return -EINVAL;
		}
		mix[i] = (enum lab_ct_kind)k;
	}
	memcpy(g->mix, mix, (size_t)n * sizeof(mix[0]));
	g->nmix = n;
	return 0;
}

static void mix_text(const struct lab_ct_geometry *g, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int k = 0; k < g->nmix && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? "+" : "", kind_names[g->mix[k]]);
}

void lab_ct_describe(const struct lab_ct_geometry *g, char *buf, size_t len)
{
	char mix[96], bg[96];
	size_t n = 0;

	mix_text(g, mix, sizeof(mix));
	bg[0] = 0;
	for (size_t l = 0; l < g->nbg && n < sizeof(bg); l++)
		n += (size_t)snprintf(bg + n, sizeof(bg) - n, "%s%lu", l ? "+" : "", g->bg[l]);
	snprintf(buf, len, "the guest's containers: %lu containers (%s: %lu files in %lu dirs "
		 "and %lu missing names per ext4, %lu objects per proc, %lu pinned files per "
		 "tmpfs) beside %s background mounts; %lu samples, writer %lu files at usage + "
		 "%lu KiB; %lu host shrinker ids, %lu nodes, %lu CPUs", g->containers, mix, g->files,
		 g->dirs, g->negative, g->proc_files, g->tmpfs_files, bg, g->samples,
		 g->writer_files, g->high_margin_kib, g->host_shrinkers, g->nodes, g->cpus);
}

/* ---- the metric table ---- */

static void metric(struct lab_ct_lab *st, const char *unit, const char *base)
{
	size_t k = st->exp.nr_metrics;

	if (k == LAB_CT_MAX_METRICS)
		abort();
	snprintf(st->names[k], sizeof(st->names[k]), "%s%s", base, st->sfx);
	st->metrics[k] = (struct lab_metric){ st->names[k], unit, LAB_G_PER_CGROUP, "" };
	st->exp.nr_metrics = k + 1;
}

static void level_suffix(struct lab_ct_lab *st, size_t level)
{
	if (st->g.bg[level] == 0)
		snprintf(st->sfx, sizeof(st->sfx), "_no_mounts");
	else if (level == st->g.nbg - 1)
		st->sfx[0] = 0;
	else
		snprintf(st->sfx, sizeof(st->sfx), "_m%lu", st->g.bg[level]);
}

static void build_table(struct lab_ct_lab *st)
{
	static const char *const pop[] = { "ct_memory_bytes", "ct_slab_bytes" };
	static const char *const reclaim_b[] = { "reclaim_freed_bytes",
						 "reclaim_slab_freed_bytes" };
	const struct lab_ct_geometry *g = &st->g;

	memset(&st->exp, 0, sizeof(st->exp));
	st->exp.id = "containers";
	st->exp.title = "no seed: containers that hold objects, under real reclaim (kernel lab, "
			"kw_containers)";
	st->exp.metrics = st->metrics;
	st->exp.seed_scale = (struct lab_scale){ .nodes = (int)g->nodes,
						 .cpus = (unsigned int)g->cpus, .kmem = true,
						 .host_shrinkers = (unsigned int)g->host_shrinkers,
						 .cgroups = g->containers,
						 .shrinker_nr_max = -1, .units = -1 };
	for (size_t l = 0; l < g->nbg; l++) {
		level_suffix(st, l);
		for (int i = 0; i < 2; i++)
			metric(st, "B", pop[i]);
		metric(st, "count", "ct_dentries");
		metric(st, "count", "ct_inodes");
		if (g->phase_reclaim) {
			metric(st, "ns", "reclaim_ns");
			for (int i = 0; i < 2; i++)
				metric(st, "B", reclaim_b[i]);
			metric(st, "count", "reclaim_dentries_freed");
			metric(st, "count", "reclaim_inodes_freed");
			metric(st, "count", "reclaim_eagain");
			metric(st, "ns", "reclaim_drained_ns");
			metric(st, "count", "reclaim_drained_eagain");
		}
		if (g->phase_high) {
			metric(st, "ns", "high_ns_per_file");
			metric(st, "ns", "high_cpu_ns_per_file");
			metric(st, "count", "high_events");
			metric(st, "B", "high_slab_bytes");
		}
		if (g->phase_drop) {
			metric(st, "ns", "drop_caches_ns");
			metric(st, "count", "drop_dentries_freed");
			metric(st, "count", "drop_inodes_freed");
			metric(st, "ns", "drop_caches_empty_ns");
		}
		metric(st, "ns", "teardown_umount_ns");
		metric(st, "ns", "teardown_rmdir_ns");
		metric(st, "ns", "teardown_release_ns");
		metric(st, "count", "teardown_dying");
	}
}

/* ---- rows ---- */

static void geo_of(struct lab_ct_lab *st, size_t i, const char *note, struct lab_scale *geo)
{
	lab_bench_geometry(&st->b[i], geo);
	geo->cgroups = st->g.containers;
	snprintf(geo->note, sizeof(geo->note), "%s", note);
}

static void row_samples(struct lab_ct_lab *st, size_t i, const char *base, const double *v,
			size_t n, bool timed, const char *note)
{
	struct lab_scale geo;
	char m[96];

	snprintf(m, sizeof(m), "%s%s", base, st->sfx);
	geo_of(st, i, note, &geo);
	lab_run_add_samples(&st->run, &st->b[i], m, v, n, &geo);
	if (!timed) {
		struct lab_result *r = &st->run.rows[st->run.nr_rows - 1];

		r->timed = false;
		r->resolution = 0;
	}
}

static void row1(struct lab_ct_lab *st, size_t i, const char *base, double v, bool timed,
		 const char *note)
{
	row_samples(st, i, base, &v, 1, timed, note);
}

/* ---- objects and charges ---- */

static unsigned long objs_in_use(struct shr_kmem_cache *cache)
{
	struct shr_kmem_cache_stats s;

	shr_kmem_cache_stats(cache, -1, &s);
	return s.objects_in_use;
}

struct objs {
	double dentries, inodes;
};

static void objs_read(struct lab_bench *b, struct objs *o)
{
	shr_rcu_barrier();
	o->dentries = (double)objs_in_use(b->fs.dentry_cache);
	o->inodes = (double)objs_in_use(b->fs.inode_cache);
}

/* The consumer's hook: an object going back to its cache gives its charge
 * back (it ran in the scan that freed it, or in the umount). */
static void on_free(struct sb_object *obj, enum sb_free_reason why, void *arg)
{
	struct lab_ct_bench *s = arg;

	if (why == SB_FREE_FAILED)
		return; /* never charged */
	if (shr_mem_cgroup_uncharge(obj->memcg, s->size[obj->is_inode]))
		s->uncharge_errors++;
}

/* One object on @sb's lists for @c, charged. Return: 0, 1 (the charge left
 * the container over its high), or -errno. */
static int add_obj(struct lab_ct_bench *s, struct sb *sb, struct lab_ct_container *c,
		   bool inode)
{
	struct sb_object *obj;
	int ret = sb_add_object(sb, c->cg, c->nid, inode, 0, &obj);

	if (ret)
		return ret;
	return shr_mem_cgroup_charge(c->cg, s->size[inode]);
}

/* @dentries dentries and @inodes inodes more on @sb for @c. Return: 0, 1
 * (over high at some charge) or -errno. */
static int add_objs(struct lab_ct_bench *s, struct sb *sb, struct lab_ct_container *c,
		    unsigned long dentries, unsigned long inodes)
{
	int over = 0;

	for (unsigned long k = 0; k < dentries || k < inodes; k++) {
		for (int inode = 0; inode < 2; inode++) {
			int ret;

			if (k >= (inode ? inodes : dentries))
				continue;
			ret = add_obj(s, sb, c, inode);
			if (ret < 0)
				return ret;
			over |= ret;
		}
	}
	return over;
}

/* What a populated mount of kind @k holds on its lists: dentries, inodes. */
static void mount_target(const struct lab_ct_geometry *g, enum lab_ct_kind k,
			 unsigned long *dentries, unsigned long *inodes)
{
	switch (k) {
	case LAB_CT_EXT4:
		*inodes = g->dirs + 1 + g->files;
		*dentries = *inodes + g->negative;
		break;
	case LAB_CT_PROC:
		*dentries = *inodes = g->proc_files;
		break;
	case LAB_CT_TMPFS:
	default:
		*dentries = *inodes = 0;
		break;
	}
}

/* Top every list of container @c back up to its populated count. */
static int ct_refill(struct lab_ct_lab *st, size_t i, struct lab_ct_container *c)
{
	for (int m = 0; m < c->nmnt; m++) {
		struct sb *sb = c->sb[m];
		unsigned long d, in, hd, hi;
		int ret;

		mount_target(&st->g, st->g.mix[m], &d, &in);
		hd = shr_list_lru_count_one(sb->dentry_lru, c->nid, c->cg);
		hi = shr_list_lru_count_one(sb->inode_lru, c->nid, c->cg);
		ret = add_objs(&st->s[i], sb, c, d > hd ? d - hd : 0, in > hi ? in - hi : 0);
		if (ret < 0)
			return ret;
	}
	c->drained = false;
	return 0;
}

static int pin_tmpfs(struct lab_ct_lab *st, size_t i, struct lab_ct_container *c, struct sb *sb)
{
	struct lab_ct_bench *s = &st->s[i];
	struct sb_fs *fs = &st->b[i].fs;
	size_t need = c->nr_pinned + 2 * st->g.tmpfs_files;
	void **v = realloc(c->pinned, (need ? need : 1) * sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	c->pinned = v;
	ret = shr_memcg_list_lru_alloc(c->cg, sb->dentry_lru, SHR_GFP_KERNEL);
	if (!ret)
		ret = shr_memcg_list_lru_alloc(c->cg, sb->inode_lru, SHR_GFP_KERNEL);
	for (unsigned long f = 0; !ret && f < 2 * st->g.tmpfs_files; f++) {
		int inode = (int)(f & 1);
		void *obj = shr_kmem_cache_alloc_node(inode ? fs->inode_cache : fs->dentry_cache,
						      c->nid, SHR_GFP_ZERO);

		if (!obj)
			return -ENOMEM;
		c->pinned[c->nr_pinned++] = obj;
		ret = shr_mem_cgroup_charge(c->cg, s->size[inode]);
		ret = ret < 0 ? ret : 0;
	}
	return ret;
}

static void unpin(struct lab_ct_lab *st, size_t i, struct lab_ct_container *c)
{
	struct lab_ct_bench *s = &st->s[i];
	struct sb_fs *fs = &st->b[i].fs;

	for (size_t k = 0; k < c->nr_pinned; k++) {
		int inode = (int)(k & 1);

		shr_kmem_cache_free(inode ? fs->inode_cache : fs->dentry_cache, c->pinned[k]);
		if (shr_mem_cgroup_uncharge(c->cg, s->size[inode]))
			s->uncharge_errors++;
	}
	free(c->pinned);
	c->pinned = NULL;
	c->nr_pinned = 0;
}

static int ct_make(struct lab_ct_lab *st, size_t i, size_t k)
{
	struct lab_ct_container *c = &st->s[i].ct[k];
	unsigned long ncpu_nodes = st->g.cpus < st->g.nodes ? st->g.cpus : st->g.nodes;
	int ret;

	memset(c, 0, sizeof(*c));
	c->nid = (int)(k % (ncpu_nodes ? ncpu_nodes : 1));
	ret = shr_mem_cgroup_create(st->s[i].parent, &c->cg);
	if (ret)
		return ret;
	for (int m = 0; m < st->g.nmix; m++) {
		ret = sb_mount(&st->b[i].fs, kind_names[st->g.mix[m]], &c->sb[m]);
		if (ret)
			return ret;
		c->nmnt++;
		ret = st->g.mix[m] == LAB_CT_TMPFS ? pin_tmpfs(st, i, c, c->sb[m]) : 0;
		if (ret)
			return ret;
	}
	return ct_refill(st, i, c);
}

/* umount the mounts of container @c (objects freed, charges given back). */
static void ct_umount(struct lab_ct_lab *st, size_t i, struct lab_ct_container *c)
{
	unpin(st, i, c);
	while (c->nmnt)
		sb_umount(c->sb[--c->nmnt]);
}

/* Objects on container @c's lists, every mount. */
static unsigned long ct_objects(const struct lab_ct_container *c)
{
	unsigned long n = 0;

	for (int m = 0; m < c->nmnt; m++)
		n += sb_count(c->sb[m], c->nid, c->cg);
	return n;
}

/* ---- phases ---- */

static int bg_to(struct lab_ct_lab *st, unsigned long target)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!lab_bench_ok(&st->b[i]) || st->b[i].nr_sbs >= target)
			continue;
		lab_progress("%s: background mounts %zu -> %lu", st->b[i].label,
			     st->b[i].nr_sbs, target);
		ret = lab_bench_mount(&st->b[i], target - st->b[i].nr_sbs);
		if (ret)
			return ret;
	}
	return 0;
}

static int populate(struct lab_ct_lab *st)
{
	size_t n = st->g.containers;
	double *cur = calloc(n, sizeof(*cur));
	int ret = cur ? 0 : -ENOMEM;

	for (size_t i = 0; i < st->n && !ret; i++) {
		struct objs o0, o1;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		lab_progress("%s: populating %zu containers", st->b[i].label, n);
		objs_read(&st->b[i], &o0);
		for (size_t k = 0; k < n && !ret; k++)
			ret = ct_make(st, i, k);
		if (ret)
			break;
		objs_read(&st->b[i], &o1);
		for (size_t k = 0; k < n; k++)
			cur[k] = (double)shr_mem_cgroup_usage(st->s[i].ct[k].cg);
		row_samples(st, i, "ct_memory_bytes", cur, n, false, "memory.current of each "
			    "populated container: its objects' slab slots (no page cache)");
		row_samples(st, i, "ct_slab_bytes", cur, n, false, "slab charged to each "
			    "container (all the model charges)");
		row1(st, i, "ct_dentries", (o1.dentries - o0.dentries) / (double)n, false,
		     "dentries made per container (the dentry cache's objects in use)");
		row1(st, i, "ct_inodes", (o1.inodes - o0.inodes) / (double)n, false,
		     "inodes made per container (the inode cache's objects in use)");
	}
	free(cur);
	return ret;
}

enum { R_NS, R_FREED, R_DEN, R_INO, R_DRAINED, R_NR };

/*
 * memory.reclaim of @nr objects from @memcg, as the kernel's
 * memory_reclaim() drives try_to_free_mem_cgroup_pages(): passes of
 * shr_mem_cgroup_reclaim() (priority 12 down to 0) for what is still
 * missing, until it is met; after a pass that freed nothing, up to
 * MEMORY_RECLAIM_RETRIES more before -EAGAIN.
 * Return: 0, -EAGAIN, or another -errno of shr_mem_cgroup_reclaim().
 */
static int memory_reclaim(struct shr_mem_cgroup *memcg, unsigned long nr)
{
	unsigned long done = 0;
	int retries = MEMORY_RECLAIM_RETRIES;

	while (done < nr) {
		unsigned long freed = 0;
		int ret = shr_mem_cgroup_reclaim(memcg, nr - done, &freed);

		if (ret && ret != -EAGAIN)
			return ret;
		if (!freed && !retries--)
			return -EAGAIN;
		done += freed;
	}
	return 0;
}

static int reclaim_one(struct lab_ct_lab *st, size_t i, size_t k, double *v, unsigned long *eagain,
		       unsigned long *eagain_drained)
{
	struct lab_ct_container *c = &st->s[i].ct[k];
	unsigned long before, ask, drained_ask;
	struct objs o0, o1;
	uint64_t t0;
	int ret = c->drained ? ct_refill(st, i, c) : 0;

	if (ret)
		return ret;
	ask = ct_objects(c);
	drained_ask = DRAINED_ASK_BYTES / st->s[i].size[0];
	objs_read(&st->b[i], &o0);
	before = shr_mem_cgroup_usage(c->cg);
	t0 = lab_now_ns();
	ret = memory_reclaim(c->cg, ask ? ask : 1);
	v[R_NS] = (double)(lab_now_ns() - t0);
	if (ret == -EAGAIN)
		(*eagain)++;
	else if (ret)
		return ret;
	objs_read(&st->b[i], &o1);
	v[R_FREED] = (double)before - (double)shr_mem_cgroup_usage(c->cg);
	v[R_DEN] = o0.dentries - o1.dentries;
	v[R_INO] = o0.inodes - o1.inodes;
	t0 = lab_now_ns();
	ret = memory_reclaim(c->cg, drained_ask);
	v[R_DRAINED] = (double)(lab_now_ns() - t0);
	if (ret == -EAGAIN)
		(*eagain_drained)++;
	else if (ret)
		return ret;
	c->drained = true;
	return 0;
}

static int phase_reclaim(struct lab_ct_lab *st)
{
	static const char *const what = "memory.reclaim (passes of shr_mem_cgroup_reclaim(), "
					"16 retries after none freed) of one container asking "
					"for every object on its lists";
	size_t n = st->g.samples;
	static double v[LAB_MAX_DESIGNS][R_NR][LAB_MAX_SAMPLES];
	unsigned long eagain[LAB_MAX_DESIGNS] = { 0 }, drained[LAB_MAX_DESIGNS] = { 0 };

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < st->n; i++) {
			double one[R_NR];
			int ret;

			if (!lab_bench_ok(&st->b[i]))
				continue;
			lab_progress("%s: reclaim %zu/%zu", st->b[i].label, s + 1, n);
			ret = reclaim_one(st, i, s % st->g.containers, one, &eagain[i], &drained[i]);
			if (ret)
				return ret;
			for (int m = 0; m < R_NR; m++)
				v[i][m][s] = one[m];
		}
	for (size_t i = 0; i < st->n; i++) {
		if (!lab_bench_ok(&st->b[i]))
			continue;
		row_samples(st, i, "reclaim_ns", v[i][R_NS], n, true, what);
		row_samples(st, i, "reclaim_freed_bytes", v[i][R_FREED], n, false,
			    "memory.current before - after (slab only: no page cache)");
		row_samples(st, i, "reclaim_slab_freed_bytes", v[i][R_FREED], n, false,
			    "slab charged before - after (the same reading: all the model charges)");
		row_samples(st, i, "reclaim_dentries_freed", v[i][R_DEN], n, false,
			    "the dentry cache's objects in use before - after");
		row_samples(st, i, "reclaim_inodes_freed", v[i][R_INO], n, false,
			    "the inode cache's objects in use before - after");
		row1(st, i, "reclaim_eagain", (double)eagain[i], false, "calls (of the samples) "
		     "that returned -EAGAIN");
		row_samples(st, i, "reclaim_drained_ns", v[i][R_DRAINED], n, true,
			    "memory.reclaim of 1 MiB of dentries from the container "
			    "just reclaimed");
		row1(st, i, "reclaim_drained_eagain", (double)drained[i], false, "of those, -EAGAIN");
	}
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The mount a writer writes to: the first ext4, else the first tmpfs, else
 * none (-1). */
static int writer_mount(const struct lab_ct_geometry *g)
{
	for (int pass = 0; pass < 2; pass++)
		for (int m = 0; m < g->nmix; m++)
			if (g->mix[m] == (pass ? LAB_CT_TMPFS : LAB_CT_EXT4))
				return m;
	return -1;
}

enum { H_NS, H_CPU, H_EVENTS, H_SLAB, H_NR };

static int high_one(struct lab_ct_lab *st, size_t i, size_t k, double *v)
{
	struct lab_ct_container *c = &st->s[i].ct[k];
	struct lab_ct_bench *s = &st->s[i];
	struct shr_reclaimer_params p;
	struct shr_memcg_memory_stat ms0, ms1;
	struct shr_reclaimer *r;
	int m = writer_mount(&st->g), ret = c->drained ? ct_refill(st, i, c) : 0;
	uint64_t t0, c0;

	if (ret)
		return ret;
	shr_reclaimer_params_init(&p);
	ret = shr_reclaimer_create(st->b[i].host, &p, &r);
	if (ret)
		return ret;
	ret = shr_mem_cgroup_set_high(c->cg, shr_mem_cgroup_usage(c->cg) +
						(st->g.high_margin_kib << 10));
	if (!ret)
		ret = shr_mem_cgroup_memory_stat(c->cg, &ms0);
	t0 = lab_now_ns();
	c0 = thread_cpu_ns();
	for (unsigned long f = 0; !ret && f < st->g.writer_files; f++) {
		/* A file (its dentry and inode) and a missing name beside it;
		 * over its high, the writer reclaims before the next file. */
		ret = m < 0 ? 0 : add_objs(s, c->sb[m], c, 2, 1);
		if (ret > 0)
			ret = shr_reclaimer_dispatch(r, 0, NULL);
		ret = ret < 0 ? ret : 0;
	}
	v[H_CPU] = (double)(thread_cpu_ns() - c0) / (double)st->g.writer_files;
	v[H_NS] = (double)(lab_now_ns() - t0) / (double)st->g.writer_files;
	if (!ret)
		ret = shr_mem_cgroup_memory_stat(c->cg, &ms1);
	v[H_EVENTS] = ret ? 0 : (double)(ms1.events_high - ms0.events_high);
	v[H_SLAB] = (double)shr_mem_cgroup_usage(c->cg);
	shr_reclaimer_destroy(r);
	if (!ret)
		ret = shr_mem_cgroup_set_high(c->cg, SHR_PAGE_COUNTER_MAX);
	c->drained = true;
	return ret;
}

static int phase_high(struct lab_ct_lab *st)
{
	size_t n = st->g.samples;
	static double v[LAB_MAX_DESIGNS][H_NR][LAB_MAX_SAMPLES];

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < st->n; i++) {
			double one[H_NR];
			int ret;

			if (!lab_bench_ok(&st->b[i]))
				continue;
			lab_progress("%s: writer at memory.high %zu/%zu", st->b[i].label, s + 1, n);
			shr_rcu_barrier();
			ret = high_one(st, i, st->g.containers - 1 - s % st->g.containers, one);
			if (ret)
				return ret;
			for (int m = 0; m < H_NR; m++)
				v[i][m][s] = one[m];
		}
	for (size_t i = 0; i < st->n; i++) {
		if (!lab_bench_ok(&st->b[i]))
			continue;
		row_samples(st, i, "high_ns_per_file", v[i][H_NS], n, true, "a writer creating "
			    "files (a missing name each) in a container at memory.high = usage + "
			    "the margin, reclaiming it under in its own thread when over: wall "
			    "time per file");
		row_samples(st, i, "high_cpu_ns_per_file", v[i][H_CPU], n, true, "the writer's "
			    "CPU time per file (CLOCK_THREAD_CPUTIME_ID)");
		row_samples(st, i, "high_events", v[i][H_EVENTS], n, false, "memory.events high "
			    "during the writer (charges that left the container over its high)");
		row_samples(st, i, "high_slab_bytes", v[i][H_SLAB], n, false, "the container's "
			    "slab when the writer ended");
	}
	return 0;
}

static int refill_all(struct lab_ct_lab *st, size_t i)
{
	for (size_t k = 0; k < st->g.containers; k++) {
		int ret = ct_refill(st, i, &st->s[i].ct[k]);

		if (ret)
			return ret;
	}
	return 0;
}

enum { D_NS, D_DEN, D_INO, D_EMPTY, D_NR };

static int phase_drop(struct lab_ct_lab *st)
{
	size_t n = st->g.samples;
	static double v[LAB_MAX_DESIGNS][D_NR][LAB_MAX_SAMPLES];

	for (size_t s = 0; s < n; s++)
		for (size_t i = 0; i < st->n; i++) {
			struct objs o0, o1;
			uint64_t t0;
			int ret;

			if (!lab_bench_ok(&st->b[i]))
				continue;
			lab_progress("%s: drop_caches %zu/%zu", st->b[i].label, s + 1, n);
			ret = refill_all(st, i);
			if (ret)
				return ret;
			objs_read(&st->b[i], &o0);
			t0 = lab_now_ns();
			ret = shr_drop_caches(st->b[i].host, NULL, NULL);
			v[i][D_NS][s] = (double)(lab_now_ns() - t0);
			if (ret)
				return ret;
			objs_read(&st->b[i], &o1);
			t0 = lab_now_ns();
			ret = shr_drop_caches(st->b[i].host, NULL, NULL);
			v[i][D_EMPTY][s] = (double)(lab_now_ns() - t0);
			if (ret)
				return ret;
			v[i][D_DEN][s] = o0.dentries - o1.dentries;
			v[i][D_INO][s] = o0.inodes - o1.inodes;
		}
	for (size_t i = 0; i < st->n; i++) {
		if (!lab_bench_ok(&st->b[i]))
			continue;
		for (size_t k = 0; k < st->g.containers; k++)
			st->s[i].ct[k].drained = true;
		row_samples(st, i, "drop_caches_ns", v[i][D_NS], n, true, "shr_drop_caches() "
			    "(echo 2 > drop_caches) over the populated containers");
		row_samples(st, i, "drop_dentries_freed", v[i][D_DEN], n, false,
			    "the dentry cache's objects in use before - after");
		row_samples(st, i, "drop_inodes_freed", v[i][D_INO], n, false,
			    "the inode cache's objects in use before - after");
		row_samples(st, i, "drop_caches_empty_ns", v[i][D_EMPTY], n, true,
			    "shr_drop_caches() right after (nothing left to free)");
	}
	return 0;
}

/* Containers under the parent that are dying and not yet released. */
static unsigned long dying(struct lab_ct_lab *st, size_t i)
{
	struct shr_mem_cgroup *p = st->s[i].parent, *c = NULL;
	unsigned long n = 0;

	while ((c = shr_mem_cgroup_iter(st->b[i].host, p, c)))
		n += c != p && shr_mem_cgroup_is_dying(c);
	return n;
}

static int teardown(struct lab_ct_lab *st, size_t i)
{
	size_t n = st->g.containers;
	double *um = calloc(2 * n, sizeof(*um)), *rm = um + n;
	uint64_t t0;
	int ret = um ? 0 : -ENOMEM;

	for (size_t k = 0; k < n && !ret; k++) {
		struct lab_ct_container *c = &st->s[i].ct[k];
		uint64_t t1;

		t0 = lab_now_ns();
		ct_umount(st, i, c);
		t1 = lab_now_ns();
		ret = shr_mem_cgroup_offline(c->cg);
		rm[k] = (double)(lab_now_ns() - t1);
		um[k] = (double)(t1 - t0);
		c->cg = NULL;
	}
	if (ret) {
		free(um);
		return ret;
	}
	t0 = lab_now_ns();
	shr_rcu_barrier();
	row1(st, i, "teardown_release_ns", (double)(lab_now_ns() - t0) / (double)n, true,
	     "per container: from the last rmdir until every container is released (an RCU "
	     "barrier)");
	row_samples(st, i, "teardown_umount_ns", um, n, true, "umount of one container's "
		    "mounts (their objects freed)");
	row_samples(st, i, "teardown_rmdir_ns", rm, n, true, "rmdir of one container's cgroup, "
		    "its mounts gone");
	row1(st, i, "teardown_dying", (double)dying(st, i), false, "containers still dying "
	     "after the barrier");
	free(um);
	shr_rcu_barrier();
	return 0;
}

static int phase_teardown(struct lab_ct_lab *st)
{
	for (size_t i = 0; i < st->n; i++) {
		int ret;

		if (!lab_bench_ok(&st->b[i]))
			continue;
		lab_progress("%s: teardown", st->b[i].label);
		ret = teardown(st, i);
		if (ret)
			return ret;
	}
	return 0;
}

static int script(struct lab_ct_lab *st)
{
	int ret = 0;

	for (st->level = 0; st->level < st->g.nbg && !ret; st->level++) {
		level_suffix(st, st->level);
		ret = bg_to(st, st->g.bg[st->level]);
		if (!ret)
			ret = populate(st);
		if (!ret && st->g.phase_reclaim)
			ret = phase_reclaim(st);
		if (!ret && st->g.phase_high)
			ret = phase_high(st);
		if (!ret && st->g.phase_drop)
			ret = phase_drop(st);
		if (!ret)
			ret = phase_teardown(st);
	}
	return ret;
}

/* ---- the run ---- */

void lab_ct_init(struct lab_ct_lab *st, const struct lab_ct_geometry *g,
		 const struct lab_design *designs, size_t n)
{
	memset(st, 0, sizeof(*st));
	st->g = *g;
	st->n = n;
	memcpy(st->designs, designs, n * sizeof(*designs));
	build_table(st);
	st->run.exp = &st->exp;
	st->run.scale = st->exp.seed_scale;
	lab_ct_describe(&st->g, st->run.scale_desc, sizeof(st->run.scale_desc));
	memcpy(st->run.designs, st->designs, st->n * sizeof(st->designs[0]));
	st->run.nr_designs = st->n;
}

/* The containers' parent, the charge sizes and the free hook of bench @i. */
static int bench_prepare(struct lab_ct_lab *st, size_t i)
{
	struct lab_ct_bench *s = &st->s[i];
	struct shr_slab_geometry geo;

	shr_kmem_cache_geometry(st->b[i].fs.dentry_cache, &geo);
	s->size[0] = geo.object_size;
	shr_kmem_cache_geometry(st->b[i].fs.inode_cache, &geo);
	s->size[1] = geo.object_size;
	/* Set before any container object exists, on the only thread. */
	st->b[i].fs.on_free = on_free;
	st->b[i].fs.hook_arg = s;
	return shr_mem_cgroup_create(shr_host_root_mem_cgroup(st->b[i].host), &s->parent);
}

/* What a failed run leaves: the containers' mounts and cgroups, then the
 * parent, so the bench closes clean. */
static void bench_cleanup(struct lab_ct_lab *st, size_t i)
{
	struct lab_ct_bench *s = &st->s[i];

	for (size_t k = 0; k < LAB_CT_MAX_CONTAINERS; k++) {
		struct lab_ct_container *c = &s->ct[k];

		ct_umount(st, i, c);
		if (c->cg)
			(void)shr_mem_cgroup_offline(c->cg);
		c->cg = NULL;
	}
	if (s->parent)
		(void)shr_mem_cgroup_offline(s->parent);
	s->parent = NULL;
	shr_rcu_barrier();
}

int lab_ct_run(struct lab_ct_lab *st)
{
	struct lab_scale s = st->exp.seed_scale;
	uint64_t t0 = lab_now_ns();
	int ret = 0;

	s.cgroups = 0;
	lab_lockstep_open(st->b, st->designs, st->n, &s);
	lab_lockstep_unavailable(&st->run, st->b, st->n, &s);
	for (size_t i = 0; i < st->n && !ret; i++)
		if (lab_bench_ok(&st->b[i]))
			ret = bench_prepare(st, i);
	if (!ret)
		ret = script(st);
	lab_progress_done();
	if (!ret)
		lab_lockstep_record_hosts(&st->run, st->b, st->n);
	for (size_t i = 0; i < st->n; i++) {
		if (lab_bench_ok(&st->b[i]))
			bench_cleanup(st, i);
		if (!ret && st->s[i].uncharge_errors) {
			fprintf(stderr, "shrinklab: %s: %lu uncharges refused\n", st->b[i].label,
				st->s[i].uncharge_errors);
			ret = -EPROTO;
		}
	}
	lab_lockstep_close(st->b, st->n);
	st->run.elapsed_ns = lab_now_ns() - t0;
	if (!ret)
		lab_run_sort(&st->run);
	return ret;
}

void lab_ct_free(struct lab_ct_lab *st)
{
	lab_run_free(&st->run);
}
