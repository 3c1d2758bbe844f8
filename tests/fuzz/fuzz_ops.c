/* SPDX-License-Identifier: MIT */
/*
 * Differential fuzz target: bytes -> a sequence of operations, run against a
 * host of every design this build has (plus xarray with kmalloc units) and
 * against a reference model written from the reference's semantics
 * (fuzz_model.c: plain arrays and counters, no bitmaps, no XArray, no
 * library internals). This file drives them (design sets, hosts made and
 * torn down, the operations read from the input); fuzz_hosts.c holds the
 * hosts' consumer and their comparison with the model.
 *
 * The consumer is a superblock-like file system owned by the fuzzer (like
 * consumer/superblock.c: a dentry and an inode list_lru per mount, the
 * proportional split of nr_to_scan, share + 1 per list, lists walked from
 * the head) that also remembers each object so a file can be deleted. The
 * batch and seeks of each mount come from the input.
 *
 * The model knows, per (mount, list, cgroup, node), which objects are on the
 * list and in which order (a sequence number: adds go to the tail, offline
 * splices a cgroup's items onto the head of its parent's lists), the
 * deferred counter of every (cgroup, shrinker id, node) (ids are the lowest
 * free; counters of a freed id stay, as in the kernel, and move to the parent
 * at offline), and applies reference §4's do_shrink_slab arithmetic.
 *
 * It also knows every cgroup's references: the fuzzer holds one on each
 * cgroup it creates (as a task or a page-cache user would) until a "release"
 * operation drops it; each object pins the cgroup it was added through; a
 * child pins its parent until the child is freed; an online cgroup keeps its
 * base reference. A cgroup none of these pin is released (css_release, then
 * css_free after a grace period). Objects can be added through a dying
 * cgroup the fuzzer still holds: they land on the lists of its nearest
 * online ancestor and pin the dying cgroup.
 *
 * Checked, per host: return codes, freed counts, shrinker ids; after every
 * operation, the number of live objects and which of the objects the
 * operation added or freed are alive, shr_list_lru_count_one() of the lists
 * that gained objects, shr_shrinker_nr_deferred() of the counters
 * do_shrink_slab visited or reparenting moved (struct model's "touched"
 * sets) and, after a shr_rcu_barrier() that runs every release the
 * operation queued, which cgroups still exist if it dropped a reference
 * (shr_mem_cgroup_iter() against the model; a cgroup freed too early is a
 * use-after-free of our pointer under ASan); every 16 operations and at the
 * end of the input, all of it: every object, every list and counter of every
 * (mount, online cgroup, node), every cgroup. FUZZ_OPS_FULL=1 compares
 * everything after every operation (slower; names the first operation that
 * differs).
 * Any difference abort()s with the operation index and both values.
 *
 * Each host slot keeps its slab allocator for the whole process (one per
 * node count), so an input does not pay for mapping and poisoning fresh
 * 64 MiB chunks; after each input's teardown every cache of it must be empty
 * (a leak is a failure, not just an ASan report at exit).
 *
 * The readers, in every full comparison: shr_shrinker_get_stats()'s
 * deferred work of each mount against the model's sum over the root and the
 * online cgroups, the debugfs count file of each mount line by line against
 * the model's list counts, and (in the input's last comparison)
 * shr_mem_cgroup_bookkeeping() of every online cgroup (it must answer, with
 * bytes behind every unit it reports).
 *
 * Ids past every size class (the input's first byte, bits 1 to 4 all set:
 * one input in 16; always two nodes): the hosts are "scale" hosts,
 * one per design and host slot, made once per process with FZ_ID_BASE
 * memcg-aware shrinkers (never registered) holding ids 0..FZ_ID_BASE-1, so
 * the input's mounts get ids FZ_ID_BASE + the model's id, past 131072
 * (indexed's per-unit counts pass kmalloc-8k there, prealloc's and
 * array-ondemand's per-unit pointers passed it at 65536, flat's array at
 * 1024). A scale host outlives the input, so its teardown must leave it as
 * it found it: after the input's mounts and cgroups are gone, the root's
 * deferred work at the input's ids (a freed id keeps it, the kernel's rule)
 * is drained by placeholder shrinkers at those ids (seeks 0, batch 1,
 * counting exactly the deferred work: one global reclaim pass scans it all
 * and leaves 0, by reference §4's arithmetic), checked to be 0, and the
 * placeholders freed; the objects in use of its allocator must equal what
 * its first input left (the ballast, the root's units, and the 32 freed
 * shrinkers a host keeps back, filled when the host is made). Scale hosts
 * leave out the designs without bits (nobitmap: every cgroup reclaim would
 * visit every ballast id) and give flat 4096 ids per growth step (one at a
 * time, the ballast would copy the root's arrays once per id; 64 at a time
 * still cost 2 s of CPU per process).
 *
 * Bounds: <= 8 mounts, <= 16 cgroups (root included), <= 2 nodes, <= 250
 * files (500 objects), <= 256 operations.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fuzz_hosts.h"
#include "fuzz_model.h"
#include "fuzz_ops.h"

static const long fz_batches[4] = { 1024, 0, 7, 32 };
static const int fz_seeks[4] = { 2, 1, 0, 4 };

struct fz_input {
	const uint8_t *p;
	size_t n;
};

static unsigned int next_byte(struct fz_input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static int pick_online(const struct model *m, unsigned int b, bool allow_root)
{
	int cand[FZ_CGROUPS], n = 0;

	for (int c = allow_root ? 0 : 1; c < m->nr_cg; c++)
		if (m->online[c])
			cand[n++] = c;
	return n ? cand[b % (unsigned int)n] : -1;
}

/* A cgroup the fuzzer still holds a reference on; @dying: offline ones only. */
static int pick_held(const struct model *m, unsigned int b, bool dying)
{
	int cand[FZ_CGROUPS], n = 0;

	for (int c = 1; c < m->nr_cg; c++)
		if (m->held[c] && (!dying || !m->online[c]))
			cand[n++] = c;
	return n ? cand[b % (unsigned int)n] : -1;
}

static int pick_mount(const struct model *m, unsigned int b)
{
	int cand[FZ_MOUNTS], n = 0;

	for (int i = 0; i < FZ_MOUNTS; i++)
		if (m->mounted[i])
			cand[n++] = i;
	return n ? cand[b % (unsigned int)n] : -1;
}

/*
 * Hosts are split into groups (design sets), each with its own model, made
 * from the design table by capability (so a new design joins a set):
 * "xarray" (designs with neither nonslab ids nor the id scrub: xarray,
 * nobitmap, and the default design with units=kmalloc) and "array"
 * (designs with nonslab ids: prealloc, array-ondemand, flat) follow the
 * kernel's rule for a freed shrinker id's per-cgroup deferred work (it
 * stays, and the next shrinker with that id inherits it); "indexed" (the
 * designs that scrub reused ids) follows that documented difference (it is
 * dropped when the shrinker is freed). Every operation runs once per group,
 * from the same input bytes. FUZZ_OPS_SET selects one set (make check-fuzz
 * runs a fuzzer per set, in parallel, so each gets more executions).
 */
struct fz_group {
	const char *name; /* the design set, for FUZZ_OPS_SET */
	bool enabled;
	struct model model;
	struct fz_host hosts[FZ_HOSTS];
	int nr_hosts;
	/* The set's designs (shr_design_info_of()); the scrub set's model
	 * drops a freed id's deferred work. */
	bool scrubs;
	bool nonslab_ids;
	/* Also the default design with units=kmalloc, if it is in the set. */
	bool default_kmalloc;
	/* Per host slot and node count, created on first use. */
	struct shr_slab_allocator *slab[FZ_HOSTS][FZ_NODES];
	/* Scale hosts per host slot (two nodes), created on first use and
	 * kept for the process. */
	struct fz_scale {
		struct shr_host *host;
		struct shr_slab_allocator *slab;
		struct shr_shrinker **ballast;
		long objects_after;  /* in use after the first input's teardown */
		bool have_after;
	} scale[FZ_HOSTS];
};

#define FZ_GROUPS 3
static struct fz_group groups[FZ_GROUPS] = {
	{ .name = "xarray", .enabled = true, .default_kmalloc = true },
	{ .name = "array", .enabled = true, .nonslab_ids = true },
	{ .name = "indexed", .enabled = true, .scrubs = true },
};

/* The group the operations work on now (see LLVMFuzzerTestOneInput). */
static struct fz_group *cur = &groups[0];

/* Whether @design belongs to the current group. */
static bool in_group(enum shr_design design)
{
	const struct shr_design_info *d = shr_design_info_of(design);

	if (d->scrubs_reused_ids || cur->scrubs)
		return d->scrubs_reused_ids && cur->scrubs;
	return d->nonslab_ids == cur->nonslab_ids;
}

static struct shr_slab_allocator *slot_slab(int slot, int nr_nodes)
{
	struct shr_slab_allocator **sa = &cur->slab[slot][nr_nodes - 1];

	if (!*sa) {
		struct shr_slab_params sp = { .nr_nodes = nr_nodes, .geometry_cpus = 2 };

		fz_check(NULL, "slab_allocator_create", 0, shr_slab_allocator_create(&sp, sa));
	}
	return *sa;
}

static void sum_in_use(struct shr_kmem_cache *cache, void *arg)
{
	struct shr_kmem_cache_stats st;

	shr_kmem_cache_stats(cache, -1, &st);
	*(long *)arg += (long)st.objects_in_use;
}

static void print_in_use(struct shr_kmem_cache *cache, void *arg)
{
	struct shr_kmem_cache_stats st;

	(void)arg;
	shr_kmem_cache_stats(cache, -1, &st);
	if (st.objects_in_use)
		fprintf(stderr, "fuzz_ops: cache %s: %lu objects in use\n",
			shr_kmem_cache_name(cache), st.objects_in_use);
}

/* Objects in use in @sa, large kmallocs and vmalloc areas counted by bytes. */
static long slab_in_use(struct shr_slab_allocator *sa)
{
	struct shr_slab_totals tot;
	long n = 0;

	shr_slab_for_each_cache(sa, sum_in_use, &n);
	shr_slab_totals(sa, &tot);
	return n + (long)tot.large_kmalloc_bytes + (long)tot.vmalloc_bytes;
}

/* The scale host of slot @slot: made on first use, with its ballast. */
static struct shr_host *scale_host(int slot, struct shr_host_params *p, struct fz_host *h)
{
	struct fz_scale *sc = &cur->scale[slot];
	struct shr_slab_params sp = { .nr_nodes = p->nr_nodes, .geometry_cpus = 2 };

	if (sc->host)
		return sc->host;
	fz_check(h, "slab_allocator_create (scale)", 0, shr_slab_allocator_create(&sp, &sc->slab));
	p->slab = sc->slab;
	fz_check(h, "host_create (scale)", 0, shr_host_create(p, &sc->host));
	sc->ballast = calloc(FZ_ID_BASE, sizeof(*sc->ballast));
	if (!sc->ballast)
		fz_fail(h, "ballast array", 0, -1);
	for (int i = 0; i < FZ_ID_BASE; i++) {
		fz_check(h, "ballast shrinker_alloc", 0,
			 shr_shrinker_alloc(sc->host, SHR_SHRINKER_MEMCG_AWARE, NULL,
					    &sc->ballast[i]));
		fz_check(h, "ballast shrinker id", i, shr_shrinker_id(sc->ballast[i]));
	}
	/* The host keeps the last 32 freed shrinkers from the allocator
	 * (stale handles, shrinker.h), with their names: fill that now with
	 * shrinkers named as the mounts and placeholders are, so that what an
	 * input leaves in use does not depend on the frees before it. */
	for (int i = 0; i < 32; i++) {
		struct shr_shrinker *s;

		fz_check(h, "quarantine shrinker_alloc", 0,
			 shr_shrinker_alloc(sc->host, SHR_SHRINKER_MEMCG_AWARE, "fz", &s));
		shr_shrinker_free(s);
	}
	return sc->host;
}

static void setup_hosts(int nr_nodes, bool scale)
{
	cur->nr_hosts = 0;
	if (!cur->enabled)
		return;
	/* Every design of the group, then (d == SHR_NR_DESIGNS) the default
	 * design with units=kmalloc. */
	for (int d = 0; d <= SHR_NR_DESIGNS; d++) {
		bool extra = d == SHR_NR_DESIGNS;
		struct shr_host_params p;
		struct fz_host *h = &cur->hosts[cur->nr_hosts];

		shr_host_params_init(&p);
		if (!extra)
			p.design = (enum shr_design)d;
		if (!in_group(p.design) || (extra && !cur->default_kmalloc))
			continue;
		if (scale && !shr_design_info_of(p.design)->bits)
			continue;
		p.nr_nodes = nr_nodes;
		p.geometry_cpus = 2;
		if (extra)
			p.units = SHR_UNITS_KMALLOC;
		if (scale && shr_design_info_of(p.design)->expand_batch == 1)
			p.expand_batch = 4096;
		fz_check(NULL, "host_params_check", 0, shr_host_params_check(&p, NULL));
		FZ_UNPOISON(h->store, sizeof(h->store));
		memset(h, 0, sizeof(*h));
		FZ_POISON(h->store, sizeof(h->store));
		snprintf(h->name, sizeof(h->name), "%s%s%s", shr_design_name(p.design),
			 extra ? "+units=kmalloc" : "", scale ? " (ids from 131136)" : "");
		if (scale) {
			h->scale = true;
			h->id_base = FZ_ID_BASE;
			h->host = scale_host(cur->nr_hosts, &p, h);
			h->slab = cur->scale[cur->nr_hosts].slab;
		} else {
			h->slab = slot_slab(cur->nr_hosts, nr_nodes);
			p.slab = h->slab;
			fz_check(h, "host_create", 0, shr_host_create(&p, &h->host));
		}
		h->cg[0] = shr_host_root_mem_cgroup(h->host);
		cur->nr_hosts++;
	}
}

static unsigned long drain_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	const long *left = s->private_data;

	return (unsigned long)left[sc->nid];
}

static unsigned long drain_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	(void)sc;
	return 0;
}

/*
 * A scale host after its input: the root's deferred work at the input's
 * ids (FZ_ID_BASE..+FZ_MOUNTS-1, all free now) drained to 0, so that the
 * next input finds what a fresh host would have (header comment).
 */
static void scale_host_reset(struct fz_host *h, int slot, const struct model *fin)
{
	static long left[FZ_MOUNTS][FZ_NODES];
	struct fz_scale *sc = &cur->scale[slot];
	struct shr_shrinker *ph[FZ_MOUNTS];
	int nr_nodes = cur->model.nr_nodes;
	long in_use;

	for (int k = 0; k < FZ_MOUNTS; k++) {
		fz_check(h, "placeholder shrinker_alloc", 0,
			 shr_shrinker_alloc(h->host, SHR_SHRINKER_NUMA_AWARE |
					    SHR_SHRINKER_MEMCG_AWARE, "fz", &ph[k]));
		fz_check(h, "placeholder id", FZ_ID_BASE + k, shr_shrinker_id(ph[k]));
		for (int nid = 0; nid < nr_nodes; nid++) {
			left[k][nid] = shr_shrinker_nr_deferred(ph[k], NULL, nid);
			fz_check(h, "root deferred work a freed id kept",
				 cur->scrubs ? 0 : fin->def[0][k][nid], left[k][nid]);
		}
		ph[k]->count_objects = drain_count;
		ph[k]->scan_objects = drain_scan;
		ph[k]->batch = 1;
		ph[k]->seeks = 0;
		ph[k]->private_data = left[k];
		fz_check(h, "placeholder register", 0, shr_shrinker_register(ph[k]));
	}
	for (int nid = 0; nid < nr_nodes; nid++) {
		unsigned long freed;

		fz_check(h, "drain shrink_slab", 0, shr_shrink_slab(h->host, nid, NULL, 0, &freed));
	}
	for (int k = 0; k < FZ_MOUNTS; k++) {
		for (int nid = 0; nid < nr_nodes; nid++)
			fz_check(h, "root deferred work after the drain", 0,
				 shr_shrinker_nr_deferred(ph[k], NULL, nid));
		shr_shrinker_free(ph[k]);
	}
	shr_rcu_barrier();
	in_use = slab_in_use(sc->slab);
	if (!sc->have_after) {
		sc->objects_after = in_use;
		sc->have_after = true;
	}
	if (in_use != sc->objects_after) {
		shr_slab_for_each_cache(sc->slab, print_in_use, NULL);
		fz_fail(h, "scale host: objects in use after teardown (first input's figure)",
			sc->objects_after, in_use);
	}
}

/*
 * Unmount everything, offline children before parents (reverse creation
 * order), drop the fuzzer's references: every cgroup but the root must be
 * gone after a barrier. Then the host goes, and its slab allocator must be
 * empty (a scale host stays, reset: scale_host_reset()).
 */
static void teardown_hosts(void)
{
	static struct model fin;
	struct model *m = &cur->model;

	/* The root's deferred work once the teardown's offlines reparented
	 * every cgroup's (a scale host's reset checks it). */
	fin = *m;
	for (int c = fin.nr_cg - 1; c > 0; c--)
		if (fin.online[c])
			(void)m_offline(&fin, c);

	for (int i = 0; i < cur->nr_hosts; i++) {
		struct fz_host *h = &cur->hosts[i];

		for (int mt = 0; mt < FZ_MOUNTS; mt++)
			if (m->mounted[mt])
				h_umount(h, mt, m);
		for (int c = m->nr_cg - 1; c > 0; c--)
			if (m->online[c])
				fz_check(h, "teardown offline", 0, shr_mem_cgroup_offline(h->cg[c]));
		for (int c = 1; c < m->nr_cg; c++)
			if (m->held[c])
				shr_mem_cgroup_put(h->cg[c]);
	}
	shr_rcu_barrier();
	for (int i = 0; i < cur->nr_hosts; i++) {
		struct fz_host *h = &cur->hosts[i];
		struct shr_slab_totals tot;

		if (h->scale) {
			scale_host_reset(h, i, &fin);
			continue;
		}
		fz_check(h, "host_destroy", 0, shr_host_destroy(h->host));
		shr_slab_for_each_cache(h->slab, check_cache_empty, h);
		shr_slab_totals(h->slab, &tot);
		fz_check(h, "large kmalloc bytes after teardown", 0, (long)tot.large_kmalloc_bytes);
		fz_check(h, "vmalloc bytes after teardown", 0, (long)tot.vmalloc_bytes);
	}
}

static void op_mount(unsigned int b)
{
	int slot = -1, id = 0;

	for (int i = 0; i < FZ_MOUNTS && slot < 0; i++)
		if (!cur->model.mounted[i])
			slot = i;
	if (slot < 0)
		return;
	while (cur->model.id_used[id])
		id++;
	cur->model.id_used[id] = true;
	cur->model.mounted[slot] = true;
	cur->model.id[slot] = id;
	cur->model.batch[slot] = fz_batches[b & 3];
	cur->model.seeks[slot] = fz_seeks[(b >> 2) & 3];
	TRACE("%d: mount %d id %d batch %ld seeks %d\n", fz_op_index, slot, id, cur->model.batch[slot],
	      cur->model.seeks[slot]);
	for (int c = 0; c < cur->model.nr_cg; c++)
		for (int nid = 0; nid < cur->model.nr_nodes; nid++)
			m_touch(&cur->model, slot, c, nid);
	for (int i = 0; i < cur->nr_hosts; i++)
		h_mount(&cur->hosts[i], slot, cur->model.batch[slot], cur->model.seeks[slot], id);
}

static void op_umount(unsigned int b)
{
	int mt = pick_mount(&cur->model, b);

	if (mt < 0)
		return;
	TRACE("%d: umount %d\n", fz_op_index, mt);
	for (int i = 0; i < cur->nr_hosts; i++)
		h_umount(&cur->hosts[i], mt, &cur->model);
	for (int f = 0; f < cur->model.nr_files; f++)
		for (int t = 0; t < 2; t++)
			if (cur->model.obj[f][t].mount == mt)
				m_obj_kill(&cur->model, f, t);
	cur->model.mounted[mt] = false;
	cur->model.id_used[cur->model.id[mt]] = false;
	if (cur->scrubs)
		for (int c = 0; c < FZ_CGROUPS; c++)
			for (int n = 0; n < FZ_NODES; n++)
				cur->model.def[c][cur->model.id[mt]][n] = 0;
}

static void op_create_cgroup(unsigned int b)
{
	int parent = pick_online(&cur->model, b, true);
	int c = cur->model.nr_cg;

	if (c >= FZ_CGROUPS)
		return;
	cur->model.parent[c] = parent;
	cur->model.online[c] = true;
	cur->model.held[c] = true;
	cur->model.nr_cg++;
	TRACE("%d: create cgroup %d under %d\n", fz_op_index, c, parent);
	for (int mt = 0; mt < FZ_MOUNTS; mt++)
		for (int nid = 0; nid < cur->model.nr_nodes; nid++)
			m_touch(&cur->model, mt, c, nid);
	for (int i = 0; i < cur->nr_hosts; i++) {
		struct fz_host *h = &cur->hosts[i];

		fz_check(h, "mem_cgroup_create", 0, shr_mem_cgroup_create(h->cg[parent], &h->cg[c]));
		/* The fuzzer's own reference, dropped by op_release(). */
		shr_mem_cgroup_get(h->cg[c]);
	}
}

static void op_offline(unsigned int b)
{
	int c = pick_online(&cur->model, b, false);
	int want;

	if (c < 0)
		return;
	want = m_offline(&cur->model, c);
	TRACE("%d: offline cgroup %d -> %d\n", fz_op_index, c, want);
	for (int i = 0; i < cur->nr_hosts; i++)
		fz_check(&cur->hosts[i], "mem_cgroup_offline", want,
			 shr_mem_cgroup_offline(cur->hosts[i].cg[c]));
}

/* Drop the fuzzer's reference on a cgroup; the last reference (offline, no
 * object or child left) releases and frees it. */
static void op_release(unsigned int b)
{
	int c = pick_held(&cur->model, b, false);

	if (c < 0)
		return;
	cur->model.held[c] = false;
	cur->model.refs_dropped = true;
	TRACE("%d: release cgroup %d (%s, %d objects pin it)\n", fz_op_index, c,
	      cur->model.online[c] ? "online" : "dying", cur->model.pins[c]);
	for (int i = 0; i < cur->nr_hosts; i++)
		shr_mem_cgroup_put(cur->hosts[i].cg[c]);
}

/* Files of one mount and node, added through an online cgroup or (third
 * byte's top bits all set, one in eight) through a dying one the fuzzer
 * holds: those land on the nearest online ancestor's lists. */
static void op_create_files(struct fz_input *in)
{
	int mt = pick_mount(&cur->model, next_byte(in));
	unsigned int cg_byte = next_byte(in);
	unsigned int b = next_byte(in);
	int nid = (int)(b & 1) % cur->model.nr_nodes;
	int count = 1 + (int)((b >> 1) & 15);
	int cg = (b >> 5) == 7 ? pick_held(&cur->model, cg_byte, true) : -1;
	int owner;

	if (cg < 0)
		cg = pick_online(&cur->model, cg_byte, true);
	if (mt < 0)
		return;
	owner = m_live_owner(&cur->model, cg);
	TRACE("%d: create %d files mount %d cgroup %d (list of %d) node %d\n", fz_op_index, count,
	      mt, cg, owner, nid);
	for (int k = 0; k < count && cur->model.nr_files < FZ_FILES; k++) {
		int f = cur->model.nr_files++;

		cur->model.orig_cg[f] = cg;
		for (int t = 0; t < 2; t++)
			m_obj_add(&cur->model, f, t,
				  (struct m_obj){ true, mt, owner, nid, cur->model.tail_seq++ });
		for (int i = 0; i < cur->nr_hosts; i++)
			h_create_file(&cur->hosts[i], mt, f, cg, nid);
	}
}

static void op_delete_file(unsigned int b)
{
	int cand[FZ_FILES], n = 0, f;

	for (int i = 0; i < cur->model.nr_files; i++)
		if (cur->model.obj[i][0].alive || cur->model.obj[i][1].alive)
			cand[n++] = i;
	if (!n)
		return;
	f = cand[b % (unsigned int)n];
	TRACE("%d: delete file %d\n", fz_op_index, f);
	for (int i = 0; i < cur->nr_hosts; i++)
		h_delete_file(&cur->hosts[i], cur->model.obj[f][0].mount, f);
	m_obj_kill(&cur->model, f, 0);
	m_obj_kill(&cur->model, f, 1);
}

static void op_shrink_slab(struct fz_input *in)
{
	int cg = pick_online(&cur->model, next_byte(in), true);
	unsigned int b = next_byte(in);
	int nid = (int)(b & 1) % cur->model.nr_nodes;
	/* 0..12, low priorities (the ones that free with few objects) twice as likely. */
	int prio = (int)(b >> 1) % 16 > 12 ? (int)(b >> 1) % 16 - 13 : (int)(b >> 1) % 16;
	long want = m_shrink_slab(&cur->model, nid, cg, prio);

	TRACE("%d: shrink_slab node %d cgroup %d prio %d -> %ld\n", fz_op_index, nid, cg, prio,
	      want);

	for (int i = 0; i < cur->nr_hosts; i++) {
		unsigned long freed = 0;

		fz_check(&cur->hosts[i], "shrink_slab ret", 0,
			 shr_shrink_slab(cur->hosts[i].host, nid, cur->hosts[i].cg[cg], prio, &freed));
		fz_check(&cur->hosts[i], "shrink_slab freed", want, (long)freed);
	}
}

static void op_reclaim(struct fz_input *in)
{
	int cg = pick_online(&cur->model, next_byte(in), true);
	long target = 1 + (long)next_byte(in);
	long want_freed;
	int want = m_reclaim(&cur->model, cg, target, &want_freed);

	TRACE("%d: reclaim cgroup %d target %ld -> %d freed %ld\n", fz_op_index, cg, target, want,
	      want_freed);

	for (int i = 0; i < cur->nr_hosts; i++) {
		unsigned long freed = 0;

		fz_check(&cur->hosts[i], "mem_cgroup_reclaim ret", want,
			 shr_mem_cgroup_reclaim(cur->hosts[i].cg[cg], (unsigned long)target, &freed));
		fz_check(&cur->hosts[i], "mem_cgroup_reclaim freed", want_freed, (long)freed);
	}
}

static void op_drop_caches(void)
{
	long want = m_drop_caches(&cur->model);

	TRACE("%d: drop_caches -> %ld\n", fz_op_index, want);

	for (int i = 0; i < cur->nr_hosts; i++) {
		unsigned long freed = 0;

		fz_check(&cur->hosts[i], "drop_caches ret", 0,
			 shr_drop_caches(cur->hosts[i].host, &freed, NULL));
		fz_check(&cur->hosts[i], "drop_caches freed", want, (long)freed);
	}
}

static void run_op(struct fz_input *in)
{
	unsigned int op = next_byte(in) % 12;

	switch (op) {
	case 0:
		op_mount(next_byte(in));
		break;
	case 1:
		op_umount(next_byte(in));
		break;
	case 2:
		op_create_cgroup(next_byte(in));
		break;
	case 3:
		op_offline(next_byte(in));
		break;
	case 4:
	case 5:
		op_create_files(in);
		break;
	case 6:
		op_delete_file(next_byte(in));
		break;
	case 7:
	case 8:
		op_shrink_slab(in);
		break;
	case 9:
		op_reclaim(in);
		break;
	case 10:
		op_drop_caches();
		break;
	default:
		op_release(next_byte(in));
		break;
	}
}

/* Compare every host of the current group with its model (@full: all
 * lists; @last: the input's last comparison, with the bookkeeping), after
 * a barrier so that releases the operation queued have run. */
static void compare_group(bool full, bool last)
{
	static struct fz_tuple tup[FZ_MOUNTS * FZ_CGROUPS * FZ_NODES];
	struct model *m = &cur->model;
	int alive = m_settle_releases(m);
	int nr_tup = m_touched_tuples(m, full, tup);

	shr_rcu_barrier();
	for (int i = 0; i < cur->nr_hosts; i++) {
		h_compare(&cur->hosts[i], m, full || last, last, tup, nr_tup);
		if (full || last || m->refs_dropped)
			h_compare_cgroups(&cur->hosts[i], m, alive);
	}
	for (int k = 0; k < m->nr_touched_files; k++)
		m->file_touched[m->touched_files[k]] = false;
	m->nr_touched_files = 0;
	m->refs_dropped = false;
	memset(cur->model.lists_touched, 0, sizeof(cur->model.lists_touched));
	memset(cur->model.deferred_touched, 0, sizeof(cur->model.deferred_touched));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	struct fz_input in = { data, size };
	unsigned int b;
	bool scale;
	int nr_nodes;

	if (!registered) {
		const char *t = getenv("FUZZ_OPS_TRACE");
		const char *full = getenv("FUZZ_OPS_FULL");

		const char *set = getenv("FUZZ_OPS_SET");

		fz_trace = t && *t == '1';
		fz_full = full && *full == '1';
		/* FUZZ_OPS_SET=xarray|array|indexed: one design set only. */
		if (set && *set) {
			bool known = false;

			for (int g = 0; g < FZ_GROUPS; g++) {
				groups[g].enabled = !strcmp(set, groups[g].name);
				known |= groups[g].enabled;
			}
			if (!known) {
				fprintf(stderr,
					"fuzz_ops: FUZZ_OPS_SET=%s: not xarray, array or indexed\n",
					set);
				exit(2);
			}
		}
		shr_thread_register();
		registered = true;
	}
	b = next_byte(&in);
	/* One in 16, not one in 4: a scale input costs 5 to 30 times an
	 * ordinary one (the array designs' per-cgroup arrays and bitmaps
	 * span 131136 ids; indexed's debug check of every freed cgroup walks
	 * every shrinker id), and at a quarter they took the sets from 200
	 * to 50-130 executions per CPU-second. */
	scale = (b & FZ_SCALE_BITS) == FZ_SCALE_BITS;
	nr_nodes = scale ? 2 : 1 + (int)(b & 1);
	for (int g = 0; g < FZ_GROUPS; g++) {
		cur = &groups[g];
		memset(&cur->model, 0, sizeof(cur->model));
		cur->model.nr_nodes = nr_nodes;
		cur->model.nr_cg = 1;
		cur->model.online[0] = true;
		cur->model.parent[0] = -1;
		fz_op_index = -1;
		setup_hosts(nr_nodes, scale);
	}
	for (fz_op_index = 0; in.n && fz_op_index < FZ_OPS; fz_op_index++) {
		struct fz_input start = in;

		for (int g = 0; g < FZ_GROUPS; g++) {
			cur = &groups[g];
			if (!cur->nr_hosts)
				continue;
			in = start;
			run_op(&in);
			compare_group(fz_full || fz_op_index % FZ_FULL_EVERY == FZ_FULL_EVERY - 1,
				      false);
		}
	}
	for (int g = 0; g < FZ_GROUPS; g++) {
		cur = &groups[g];
		if (cur->nr_hosts)
			compare_group(true, true);
		teardown_hosts();
	}
	cur = &groups[0];
	return 0;
}

