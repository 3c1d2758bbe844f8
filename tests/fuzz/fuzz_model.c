/* SPDX-License-Identifier: MIT */
/*
 * The reference model of the differential fuzzer (fuzz_model.h): plain
 * arrays and counters, no bitmaps, no XArray, no library internals. Lists
 * keep objects by sequence number (adds at the tail, offline splices a
 * cgroup's items onto the head of its parent's lists); do_shrink_slab is
 * reference §4's arithmetic; a cgroup none of its references pin is
 * released. Single-threaded, like the whole fuzzer.
 */
#include <string.h>

#include "fuzz_model.h"

long m_count(const struct model *m, int mt, int type, int cg, int nid)
{
	return m->cnt[mt][type][cg][nid];
}

void m_touch(struct model *m, int mt, int cg, int nid)
{
	m->lists_touched[mt][cg][nid] = true;
}

static void m_touch_deferred(struct model *m, int mt, int cg, int nid)
{
	m->deferred_touched[mt][cg][nid] = true;
}

static void m_touch_file(struct model *m, int f)
{
	if (!m->file_touched[f]) {
		m->file_touched[f] = true;
		m->touched_files[m->nr_touched_files++] = f;
	}
}

void m_obj_add(struct model *m, int f, int type, struct m_obj o)
{
	m->obj[f][type] = o;
	m->cnt[o.mount][type][o.cg][o.node]++;
	m->pins[m->orig_cg[f]]++;
	m->nr_alive++;
	m_touch(m, o.mount, o.cg, o.node);
	m_touch_file(m, f);
}

void m_obj_kill(struct model *m, int f, int type)
{
	struct m_obj *o = &m->obj[f][type];

	if (!o->alive)
		return;
	o->alive = false;
	m->cnt[o->mount][type][o->cg][o->node]--;
	m->pins[m->orig_cg[f]]--;
	m->nr_alive--;
	m->refs_dropped = true;
	m_touch_file(m, f);
}

/* Move a live object to @cg's list at position @seq (offline's splice). */
static void m_obj_move(struct model *m, int f, int type, int cg, long seq)
{
	struct m_obj *o = &m->obj[f][type];

	m->cnt[o->mount][type][o->cg][o->node]--;
	o->cg = cg;
	o->seq = seq;
	m->cnt[o->mount][type][o->cg][o->node]++;
	m_touch(m, o->mount, o->cg, o->node);
}

/* Free up to @n objects from the head of one list, oldest sequence first. */
static long m_free_head(struct model *m, int mt, int type, int cg, int nid, long n)
{
	int cand[FZ_FILES], nr = 0;

	if (n > m->cnt[mt][type][cg][nid])
		n = m->cnt[mt][type][cg][nid];
	if (n <= 0)
		return 0;
	for (int f = 0; f < m->nr_files; f++) {
		const struct m_obj *o = &m->obj[f][type];

		if (o->alive && o->mount == mt && o->cg == cg && o->node == nid)
			cand[nr++] = f;
	}
	/* Selection of the n smallest sequence numbers (n and nr are small). */
	for (long k = 0; k < n; k++) {
		int best = (int)k;

		for (int j = (int)k + 1; j < nr; j++)
			if (m->obj[cand[j]][type].seq < m->obj[cand[best]][type].seq)
				best = j;
		int tmp = cand[k];

		cand[k] = cand[best];
		cand[best] = tmp;
		m_obj_kill(m, cand[k], type);
	}
	return n;
}

static long m_mult_frac(long x, long num, long den)
{
	return (x / den) * num + ((x % den) * num) / den;
}

/* The consumer's scan: proportional split, share + 1 per list. */
static long m_scan(struct model *m, int mt, int cg, int nid, long nr_to_scan)
{
	long d = m_count(m, mt, FZ_DENTRY, cg, nid);
	long i = m_count(m, mt, FZ_INODE, cg, nid);
	long total = d + i ? d + i : 1;
	long ds = m_mult_frac(nr_to_scan, d, total);
	long is = m_mult_frac(nr_to_scan, i, total);

	return m_free_head(m, mt, FZ_DENTRY, cg, nid, ds + 1) +
	       m_free_head(m, mt, FZ_INODE, cg, nid, is + 1);
}

/* Reference §4, written out again from the text. */
static long m_do_shrink(struct model *m, int mt, int cg, int nid, int prio)
{
	long freeable = m_count(m, mt, FZ_DENTRY, cg, nid) + m_count(m, mt, FZ_INODE, cg, nid);
	long *slot = &m->def[cg][m->id[mt]][nid];
	long batch = m->batch[mt] ? m->batch[mt] : 128;
	long nr, delta, total, scanned = 0, freed = 0, next;

	if (!freeable)
		return 0;
	nr = *slot;
	*slot = 0;
	delta = m->seeks[mt] ? ((freeable >> prio) * 4) / m->seeks[mt] : freeable / 2;
	total = (nr >> prio) + delta;
	if (total > 2 * freeable)
		total = 2 * freeable;
	while (total >= batch || total >= freeable) {
		long k = batch < total ? batch : total;

		freed += m_scan(m, mt, cg, nid, k);
		total -= k;
		scanned += k;
	}
	next = nr + delta - scanned;
	if (next < 0)
		next = 0;
	if (next > 2 * freeable)
		next = 2 * freeable;
	*slot += next;
	return freed;
}

long m_shrink_slab(struct model *m, int nid, int cg, int prio)
{
	long freed = 0;

	if (!m->online[cg])
		return 0;
	for (int mt = 0; mt < FZ_MOUNTS; mt++)
		if (m->mounted[mt]) {
			m_touch_deferred(m, mt, cg, nid);
			freed += m_do_shrink(m, mt, cg, nid, prio);
		}
	return freed;
}

/* Pre-order of @cg's subtree: children in creation (= index) order. */
static int m_preorder(const struct model *m, int cg, int *out, int n)
{
	out[n++] = cg;
	for (int c = cg + 1; c < m->nr_cg; c++)
		if (m->parent[c] == cg)
			n = m_preorder(m, c, out, n);
	return n;
}

int m_reclaim(struct model *m, int cg, long target, long *freed)
{
	int order[FZ_CGROUPS];
	int n = m_preorder(m, cg, order, 0);

	*freed = 0;
	for (int prio = 12; prio >= 0; prio--)
		for (int nid = 0; nid < m->nr_nodes; nid++)
			for (int k = 0; k < n; k++) {
				*freed += m_shrink_slab(m, nid, order[k], prio);
				if (*freed >= target)
					return 0;
			}
	return -EAGAIN;
}

long m_drop_caches(struct model *m)
{
	int order[FZ_CGROUPS];
	int n = m_preorder(m, 0, order, 0);
	long total = 0, pass;
	unsigned int shift = 0;

	do {
		pass = 0;
		for (int nid = 0; nid < m->nr_nodes; nid++)
			for (int k = 0; k < n; k++)
				pass += m_shrink_slab(m, nid, order[k], 0);
		total += pass;
	} while ((pass >> shift++) > 1);
	return total;
}

int m_offline(struct model *m, int cg)
{
	int p = m->parent[cg];
	int fs[2 * FZ_FILES], ts[2 * FZ_FILES];
	long n = 0;

	for (int c = 0; c < m->nr_cg; c++)
		if (m->parent[c] == cg && m->online[c])
			return -EBUSY;
	/* Splice onto the parents' heads, keeping the child's order. */
	for (int f = 0; f < m->nr_files; f++)
		for (int t = 0; t < 2; t++)
			if (m->obj[f][t].alive && m->obj[f][t].cg == cg) {
				fs[n] = f;
				ts[n++] = t;
			}
	for (long k = 0; k < n; k++) {
		long best = k;

		for (long j = k + 1; j < n; j++)
			if (m->obj[fs[j]][ts[j]].seq < m->obj[fs[best]][ts[best]].seq)
				best = j;
		int tf = fs[k], tt = ts[k];

		fs[k] = fs[best];
		ts[k] = ts[best];
		fs[best] = tf;
		ts[best] = tt;
		m_obj_move(m, fs[k], ts[k], p, m->head_seq - n + k);
	}
	m->head_seq -= n;
	for (int id = 0; id < FZ_MOUNTS; id++)
		for (int nid = 0; nid < FZ_NODES; nid++)
			m->def[p][id][nid] += m->def[cg][id][nid];
	for (int mt = 0; mt < FZ_MOUNTS; mt++)
		for (int nid = 0; nid < FZ_NODES; nid++)
			m_touch(m, mt, p, nid);
	m->online[cg] = false;
	m->refs_dropped = true;
	return 0;
}

/* The cgroup a list_lru add through @cg lands on: its nearest online
 * ancestor (itself if online). */
int m_live_owner(const struct model *m, int cg)
{
	while (!m->online[cg])
		cg = m->parent[cg];
	return cg;
}

/*
 * Mark every cgroup that nothing pins any more as released. A child pins
 * its parent until it is freed and children have higher indexes, so one
 * pass from the highest index down settles whole chains. Returns how many
 * cgroups exist (root included).
 */
int m_settle_releases(struct model *m)
{
	int alive = 0;

	for (int c = m->nr_cg - 1; c > 0; c--) {
		bool child_alive = false;

		if (m->released[c])
			continue;
		for (int d = c + 1; d < m->nr_cg && !child_alive; d++)
			child_alive = m->parent[d] == c && !m->released[d];
		if (!m->online[c] && !m->held[c] && !m->pins[c] && !child_alive)
			m->released[c] = true;
		else
			alive++;
	}
	return alive + 1;
}

