/* SPDX-License-Identifier: MIT */
/*
 * The fuzzer's hosts (fuzz_hosts.h): the consumer's mounts and files on a
 * host of one design, and the checks of a host against the model: return
 * codes and counts where an operation touched them, everything in a full
 * comparison. A difference abort()s naming the operation and both values.
 * Single-threaded, like the whole fuzzer.
 */
#include <stdlib.h>
#include <string.h>

#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>

#include "fuzz_hosts.h"

int fz_op_index;
/* FUZZ_OPS_TRACE=1: print each operation and the model's answer. */
bool fz_trace;
/* FUZZ_OPS_FULL=1: compare every list and counter after every operation. */
bool fz_full;

void fz_fail(const struct fz_host *h, const char *what, long want, long got)
{
	fprintf(stderr, "fuzz_ops: op %d, host %s: %s: model %ld, library %ld\n", fz_op_index,
		h ? h->name : "-", what, want, got);
	abort();
}

void fz_check(const struct fz_host *h, const char *what, long want, long got)
{
	if (want != got)
		fz_fail(h, what, want, got);
}

static void obj_free(struct fz_obj *o)
{
	o->h->obj[o->file][o->type] = NULL;
	o->h->nr_alive--;
	shr_mem_cgroup_put(o->memcg);
	FZ_POISON(o, sizeof(*o));
}

static enum shr_lru_status isolate_dispose(struct shr_list_head *item,
					   struct shr_list_lru_one *list, void *arg)
{
	shr_list_lru_isolate_move(list, item, arg);
	return SHR_LRU_REMOVED;
}

static unsigned long prune(struct shr_list_lru *lru, struct shr_shrink_control *sc)
{
	struct shr_list_head disp;
	unsigned long n = 0;

	shr_list_head_init(&disp);
	shr_list_lru_shrink_walk(lru, sc, isolate_dispose, &disp);
	while (!shr_list_head_empty(&disp)) {
		struct shr_list_head *item = disp.next;

		shr_list_del_init(item);
		obj_free((struct fz_obj *)(void *)item);
		n++;
	}
	return n;
}

static unsigned long fz_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fz_mount *mt = s->private_data;
	unsigned long n = shr_list_lru_shrink_count(mt->lru[FZ_DENTRY], sc) +
			  shr_list_lru_shrink_count(mt->lru[FZ_INODE], sc);

	return n ? n : SHR_SHRINK_EMPTY;
}

static unsigned long fz_mult_frac(unsigned long x, unsigned long num, unsigned long den)
{
	return (x / den) * num + ((x % den) * num) / den;
}

static unsigned long fz_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fz_mount *mt = s->private_data;
	unsigned long d = shr_list_lru_shrink_count(mt->lru[FZ_DENTRY], sc);
	unsigned long i = shr_list_lru_shrink_count(mt->lru[FZ_INODE], sc);
	unsigned long total = d + i ? d + i : 1;
	unsigned long ds = fz_mult_frac(sc->nr_to_scan, d, total);
	unsigned long is = fz_mult_frac(sc->nr_to_scan, i, total);
	unsigned long freed;

	sc->nr_to_scan = ds + 1;
	freed = prune(mt->lru[FZ_DENTRY], sc);
	sc->nr_to_scan = is + 1;
	return freed + prune(mt->lru[FZ_INODE], sc);
}

void h_mount(struct fz_host *h, int slot, long batch, int seeks, int want_id)
{
	struct fz_mount *mt = &h->mnt[slot];
	int ret;

	mt->h = h;
	ret = shr_shrinker_alloc(h->host, SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE,
				 "fz", &mt->shrinker);
	fz_check(h, "shrinker_alloc", 0, ret);
	mt->shrinker->count_objects = fz_count;
	mt->shrinker->scan_objects = fz_scan;
	mt->shrinker->batch = batch;
	mt->shrinker->seeks = seeks;
	mt->shrinker->private_data = mt;
	for (int t = 0; t < 2; t++) {
		ret = shr_list_lru_init_memcg(h->host, mt->shrinker, &mt->lru[t]);
		fz_check(h, "list_lru_init_memcg", 0, ret);
	}
	ret = shr_shrinker_register(mt->shrinker);
	fz_check(h, "shrinker_register", 0, ret);
	fz_check(h, "shrinker id", h->id_base + want_id, shr_shrinker_id(mt->shrinker));
}

void h_umount(struct fz_host *h, int slot, const struct model *m)
{
	struct fz_mount *mt = &h->mnt[slot];

	shr_shrinker_free(mt->shrinker);
	for (int f = 0; f < m->nr_files; f++)
		for (int t = 0; t < 2; t++) {
			struct fz_obj *o = h->obj[f][t];

			if (o && m->obj[f][t].mount == slot) {
				fz_check(h, "list_lru_del at umount", 1,
					 shr_list_lru_del(mt->lru[t], &o->lru, o->node, o->memcg));
				obj_free(o);
			}
		}
	for (int t = 0; t < 2; t++) {
		fz_check(h, "list not empty at umount", 0, (long)shr_list_lru_count(mt->lru[t]));
		shr_list_lru_destroy(mt->lru[t]);
	}
	memset(mt, 0, sizeof(*mt));
}

/* File @f: a dentry and an inode added through cgroup @cg (online or dying). */
void h_create_file(struct fz_host *h, int mt, int f, int cg, int nid)
{
	for (int t = 0; t < 2; t++) {
		struct fz_obj *o = &h->store[f][t];

		FZ_UNPOISON(o, sizeof(*o));
		memset(o, 0, sizeof(*o));
		shr_list_head_init(&o->lru);
		o->h = h;
		o->file = f;
		o->type = t;
		o->node = nid;
		o->memcg = h->cg[cg];
		shr_mem_cgroup_get(o->memcg);
		h->obj[f][t] = o;
		h->nr_alive++;
		fz_check(h, "list_lru_add", 1,
			 shr_list_lru_add(h->mnt[mt].lru[t], &o->lru, nid, o->memcg));
	}
}

void h_delete_file(struct fz_host *h, int mt, int f)
{
	for (int t = 0; t < 2; t++) {
		struct fz_obj *o = h->obj[f][t];

		if (!o)
			continue;
		fz_check(h, "list_lru_del", 1,
			 shr_list_lru_del(h->mnt[mt].lru[t], &o->lru, o->node, o->memcg));
		obj_free(o);
	}
}

/* Both lists' counts of one (mount, cgroup, node). */
static void h_compare_lists(struct fz_host *h, const struct model *m, int mt, int cg, int nid)
{
	char what[96];

	for (int t = 0; t < 2; t++) {
		long want = m_count(m, mt, t, cg, nid);
		long got = (long)shr_list_lru_count_one(h->mnt[mt].lru[t], nid, h->cg[cg]);

		if (got != want) {
			snprintf(what, sizeof(what), "count_one(mount %d, %s, cgroup %d, node %d)",
				 mt, t ? "inode" : "dentry", cg, nid);
			fz_fail(h, what, want, got);
		}
	}
}

/* The deferred work of one (mount, cgroup, node). */
static void h_compare_deferred(struct fz_host *h, const struct model *m, int mt, int cg, int nid)
{
	char what[96];

	if (m->def[cg][m->id[mt]][nid] !=
	    shr_shrinker_nr_deferred(h->mnt[mt].shrinker, h->cg[cg], nid)) {
		snprintf(what, sizeof(what), "nr_deferred(mount %d, cgroup %d, node %d)", mt, cg,
			 nid);
		fz_fail(h, what, m->def[cg][m->id[mt]][nid],
			shr_shrinker_nr_deferred(h->mnt[mt].shrinker, h->cg[cg], nid));
	}
}

/* The model's cgroup of @memcg, or -1. */
static int m_cgroup_of(const struct fz_host *h, const struct model *m,
		       const struct shr_mem_cgroup *memcg)
{
	for (int c = 0; c < m->nr_cg; c++)
		if (!m->released[c] && h->cg[c] == memcg)
			return c;
	return -1;
}

/* shr_shrinker_get_stats(): deferred work of the root and the online
 * cgroups, all nodes. */
static void h_compare_stats(struct fz_host *h, const struct model *m, int mt)
{
	struct shr_shrinker_stats st;
	long want = 0;

	for (int c = 0; c < m->nr_cg; c++)
		for (int nid = 0; nid < m->nr_nodes && m->online[c]; nid++)
			want += m->def[c][m->id[mt]][nid];
	fz_check(h, "shrinker_get_stats ret", 0, shr_shrinker_get_stats(h->mnt[mt].shrinker, &st));
	fz_check(h, "shrinker_get_stats deferred", want, st.deferred);
}

/* The debugfs count file: one line per online cgroup with objects, in the
 * library's walk order, "<ino> <count node 0> ...". */
static void h_compare_debugfs_count(struct fz_host *h, const struct model *m, int mt)
{
	/* A fixed buffer (fmemopen), one byte more than the file can hold
	 * so that a longer file shows as a difference: open_memstream()'s
	 * growing buffer, fresh from ASan's allocator every time, cost 10%
	 * of the array set's executions in page faults and memset. */
	static char got[FZ_CGROUPS * 64 + 2];
	struct shr_mem_cgroup *pos = NULL;
	char want[FZ_CGROUPS * 64];
	size_t used = 0;
	FILE *f;

	memset(got, 0, sizeof(got));
	f = fmemopen(got, sizeof(got) - 1, "w");
	if (!f)
		fz_fail(h, "fmemopen", 0, -1);
	fz_check(h, "debugfs_count ret", 0, shr_shrinker_debugfs_count(h->mnt[mt].shrinker, f));
	fclose(f);
	want[0] = '\0';
	while ((pos = shr_mem_cgroup_iter(h->host, NULL, pos))) {
		int c = m_cgroup_of(h, m, pos);
		long n[FZ_NODES] = { 0 }, total = 0;

		if (c < 0)
			fz_fail(h, "debugfs count: a cgroup the model does not know", 0, 1);
		if (!m->online[c])
			continue;
		for (int nid = 0; nid < m->nr_nodes; nid++) {
			n[nid] = m_count(m, mt, FZ_DENTRY, c, nid) + m_count(m, mt, FZ_INODE, c, nid);
			total += n[nid];
		}
		if (!total)
			continue;
		used += (size_t)snprintf(want + used, sizeof(want) - used, "%lu",
					 shr_mem_cgroup_ino(pos));
		for (int nid = 0; nid < m->nr_nodes; nid++)
			used += (size_t)snprintf(want + used, sizeof(want) - used, " %ld", n[nid]);
		used += (size_t)snprintf(want + used, sizeof(want) - used, "\n");
	}
	if (strcmp(want, got)) {
		fprintf(stderr, "fuzz_ops: debugfs count of mount %d:\nmodel:\n%slibrary:\n%s", mt,
			want, got);
		fz_fail(h, "debugfs count file", (long)strlen(want), (long)strlen(got));
	}
}

/* Bookkeeping of every online cgroup: it answers, and every unit it
 * reports has bytes behind it. */
static void h_compare_bookkeeping(struct fz_host *h, const struct model *m)
{
	for (int c = 0; c < m->nr_cg; c++) {
		struct shr_memcg_bookkeeping bk;

		if (!m->online[c])
			continue;
		for (int nid = -1; nid < m->nr_nodes; nid++) {
			fz_check(h, "mem_cgroup_bookkeeping ret", 0,
				 shr_mem_cgroup_bookkeeping(h->cg[c], nid, &bk));
			if (!bk.inline_bytes || (bk.nr_units && !bk.unit_bytes))
				fz_fail(h, "mem_cgroup_bookkeeping: units without bytes",
					(long)bk.nr_units, (long)bk.unit_bytes);
		}
	}
}

/* Which objects live, then the counts of what the operation touched (@full:
 * every list and counter of every online cgroup). */
static void h_compare_file(struct fz_host *h, const struct model *m, int f)
{
	char what[96];

	for (int t = 0; t < 2; t++) {
		const struct m_obj *o = &m->obj[f][t];

		if (o->alive != (h->obj[f][t] != NULL)) {
			snprintf(what, sizeof(what), "file %d %s alive", f, t ? "inode" : "dentry");
			fz_fail(h, what, o->alive, h->obj[f][t] != NULL);
		}
	}
}

/* The tuples an operation touched (@full: every one), listed once for all
 * hosts of a group. Returns how many. */
int m_touched_tuples(const struct model *m, bool full, struct fz_tuple *out)
{
	int n = 0;

	for (int mt = 0; mt < FZ_MOUNTS; mt++) {
		if (!m->mounted[mt])
			continue;
		for (int cg = 0; cg < m->nr_cg; cg++) {
			if (!m->online[cg])
				continue;
			for (int nid = 0; nid < m->nr_nodes; nid++) {
				bool lists = full || m->lists_touched[mt][cg][nid];

				if (lists || m->deferred_touched[mt][cg][nid])
					out[n++] = (struct fz_tuple){ (signed char)mt, (signed char)cg,
								      (signed char)nid, lists };
			}
		}
	}
	return n;
}

void h_compare(struct fz_host *h, const struct model *m, bool full, bool last,
		      const struct fz_tuple *tup, int nr_tup)
{
	/* The files the operation added or freed, and the total: together
	 * they find an object freed that should live, or the other way. */
	fz_check(h, "objects alive", m->nr_alive, h->nr_alive);
	if (full)
		for (int f = 0; f < m->nr_files; f++)
			h_compare_file(h, m, f);
	else
		for (int k = 0; k < m->nr_touched_files; k++)
			h_compare_file(h, m, m->touched_files[k]);
	for (int k = 0; k < nr_tup; k++) {
		if (tup[k].lists)
			h_compare_lists(h, m, tup[k].mt, tup[k].cg, tup[k].nid);
		h_compare_deferred(h, m, tup[k].mt, tup[k].cg, tup[k].nid);
	}
	if (!full)
		return;
	for (int mt = 0; mt < FZ_MOUNTS; mt++) {
		if (!m->mounted[mt])
			continue;
		h_compare_stats(h, m, mt);
		h_compare_debugfs_count(h, m, mt);
	}
	/* Only at the end of the input: it is checked against no model
	 * state, and a scale host's root has 2049 units per node to walk
	 * (29% of the fuzzer's time when it ran in every full comparison). */
	if (last)
		h_compare_bookkeeping(h, m);
}

/*
 * After a barrier: the cgroups the host still has (pre-order walk, dying
 * ones included) are exactly those the model has not released. Then forget
 * the released ones' pointers.
 */
void h_compare_cgroups(struct fz_host *h, const struct model *m, int want)
{
	struct shr_mem_cgroup *root = h->cg[0], *pos = NULL;
	int n = 0;

	while ((pos = shr_mem_cgroup_iter(h->host, root, pos))) {
		int c = 0;

		while (c < m->nr_cg && (m->released[c] || h->cg[c] != pos))
			c++;
		if (c == m->nr_cg) {
			shr_mem_cgroup_iter_break(root, pos);
			fz_fail(h, "a cgroup the model released still exists (cgroups alive)", want,
				n + 1);
		}
		n++;
	}
	fz_check(h, "cgroups alive after a barrier", want, n);
	for (int c = 1; c < m->nr_cg; c++)
		if (m->released[c])
			h->cg[c] = NULL;
}

void check_cache_empty(struct shr_kmem_cache *cache, void *arg)
{
	struct shr_kmem_cache_stats st;

	shr_kmem_cache_stats(cache, -1, &st);
	if (st.objects_in_use) {
		fprintf(stderr, "fuzz_ops: cache %s: %lu objects left after teardown\n",
			shr_kmem_cache_name(cache), st.objects_in_use);
		fz_fail(arg, "objects left in the slab allocator", 0, (long)st.objects_in_use);
	}
}

