/* SPDX-License-Identifier: MIT */
/*
 * The quiescent checks: every object on exactly one list and seen once,
 * counts agree, deferred work conserved by offline, nothing stranded.
 */
#include "torture.h"

struct walk_ctx {
	unsigned long seen;
};

static void count_seen(struct sb_object *obj, void *arg)
{
	struct walk_ctx *ctx = arg;
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);
	uint64_t w = atomic_load(&rec->word);

	if (word_gen(w) != gen || word_state(w) != REC_ON_LIST)
		violation("object %td gen %" PRIu64 " on a list, ledger says state %d gen %" PRIu64,
			  rec - T.ledger, gen, word_state(w), word_gen(w));
	rec->seen++;
	ctx->seen++;
}

static enum shr_lru_status walk_count(struct shr_list_head *item, struct shr_list_lru_one *list,
				      void *arg)
{
	(void)list;
	count_seen((struct sb_object *)(void *)item, arg);
	return SHR_LRU_SKIP;
}

static void diagnose_record(struct record *rec)
{
	struct sb_object *obj = rec->obj;
	struct mount_slot *m = &T.mounts[atomic_load(&rec->slot)];

	fprintf(stderr,
		"torture: diagnosis: record %td: %s added to cgroup %lu (%s) node %d, mount slot "
		"%d gen %u (slot now %s, gen %u); count_one there %lu\n",
		rec - T.ledger, obj->is_inode ? "inode" : "dentry", shr_mem_cgroup_ino(obj->memcg),
		shr_mem_cgroup_is_online(obj->memcg) ? "online" : "offline", obj->nid,
		atomic_load(&rec->slot), atomic_load(&rec->mount_gen),
		mnt_mounted(m) ? kind_names[m->kind] : "empty", m->gen,
		mnt_mounted(m) ? mnt_count(m, obj->nid, obj->memcg) : 0UL);
}

static enum shr_lru_status walk_print(struct shr_list_head *item, struct shr_list_lru_one *list,
				      void *arg)
{
	struct sb_object *obj = (struct sb_object *)(void *)item;
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);

	(void)list;
	(void)arg;
	fprintf(stderr, "torture: diagnosis:   holds object %td gen %" PRIu64
			" added for cgroup %lu (%s now)\n",
		rec - T.ledger, gen, shr_mem_cgroup_ino(obj->memcg),
		shr_mem_cgroup_is_online(obj->memcg) ? "online" : "offline");
	return SHR_LRU_SKIP;
}

/*
 * Objects left on an online cgroup's list after drop_caches. One cause is
 * the kernel's own: list_lru_add() through a dying cgroup puts the item on
 * the nearest living ancestor's list but sets the bit of the dying cgroup
 * (which reclaim never visits), so the ancestor's bit can stay clear with
 * that item and every later one on its list. Lists of cgroups tainted by
 * such an add (taint_ancestors()) are counted and reported; an object left
 * on any other list is a violation.
 * Return: true if every object there is explained.
 */
static bool check_stranded(struct mount_slot *m, int nid, int slot, unsigned long *known)
{
	if (T.strict_bits || slot < 0 || !m->sb || !(T.cgs[slot].taint_nodes & (1ULL << nid)))
		return false;
	*known += mnt_count(m, nid, T.cgs[slot].memcg);
	return true;
}

/* Every ON_LIST record on exactly one list; nothing else on any list. */
void check_ledger(const char *when)
{
	struct walk_ctx ctx = { 0 };
	unsigned long on_list = 0, counted = 0;

	for (unsigned int i = 0; i < LEDGER_CAP; i++)
		T.ledger[i].seen = 0;
	for (int s = 0; s < MAX_MOUNTS; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (m->sb) {
			shr_list_lru_walk(m->sb->dentry_lru, walk_count, &ctx, ~0UL);
			shr_list_lru_walk(m->sb->inode_lru, walk_count, &ctx, ~0UL);
		} else if (m->q) {
			tq_walk(m->q, count_seen, &ctx);
		} else {
			continue;
		}
		counted += mnt_count_all(m);
	}
	for (unsigned int i = 0; i < LEDGER_CAP; i++) {
		enum rec_state st = word_state(atomic_load(&T.ledger[i].word));

		if (st == REC_ON_LIST) {
			on_list++;
			if (T.ledger[i].seen != 1)
				diagnose_record(&T.ledger[i]), violation("%s: object %u is ON_LIST but seen %u times on the lists",
					  when, i, T.ledger[i].seen);
		} else if (st != REC_FREE) {
			violation("%s: record %u in transient state %d at a quiescent point", when, i,
				  st);
		}
	}
	if (ctx.seen != on_list || counted != on_list)
		violation("%s: ledger has %lu objects on lists, walk saw %lu, counts say %lu", when,
			  on_list, ctx.seen, counted);
	if (on_list + T.nr_free != LEDGER_CAP)
		violation("%s: %lu on lists + %u free records != %u", when, on_list, T.nr_free,
			  LEDGER_CAP);
	T.checks++;
}

/* Deferred work @memcg holds, all mounts and nodes. Quiescent. */
static long deferred_total(struct shr_mem_cgroup *memcg)
{
	long sum = 0;

	for (int s = 0; s < MAX_MOUNTS; s++)
		if (mnt_mounted(&T.mounts[s]) && mnt_memcg_aware(&T.mounts[s]))
			for (int n = 0; n < T.cfg.params.nr_nodes; n++)
				sum += shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), memcg, n);
	return sum;
}

/* The untried ONLINE slot holding the most deferred work (random among
 * equals), or -1. */
static int pick_deferred_candidate(uint64_t *rng, const bool *tried)
{
	int best = -1;
	long best_sum = -1;
	unsigned int start = rng_below(rng, MAX_CGROUPS);

	for (unsigned int k = 0; k < MAX_CGROUPS; k++) {
		int i = (int)((start + k) % MAX_CGROUPS);
		long sum;

		if (tried[i] || T.cgs[i].state != CG_ONLINE)
			continue;
		sum = deferred_total(T.cgs[i].memcg);
		if (sum > best_sum) {
			best = i;
			best_sum = sum;
		}
	}
	return best;
}

/* Offline one ONLINE cgroup (preferably one holding deferred work); its
 * deferred work must land in its parent. */
/* Whether the offline check looks at mount @s: memcg-aware ones only (the
 * others keep one counter per node for every cgroup). */
static bool deferred_checked(int s)
{
	return mnt_mounted(&T.mounts[s]) && mnt_memcg_aware(&T.mounts[s]);
}

static void check_deferred_reparent(uint64_t *rng)
{
	static long before_child[MAX_MOUNTS][SHR_MAX_NUMNODES];
	static long before_parent[MAX_MOUNTS][SHR_MAX_NUMNODES];
	int nodes = T.cfg.params.nr_nodes;
	bool tried[MAX_CGROUPS] = { false };

	for (int tries = 0; tries < MAX_CGROUPS; tries++) {
		int i = pick_deferred_candidate(rng, tried);
		struct shr_mem_cgroup *memcg, *parent;
		int ret;

		if (i < 0)
			return;
		tried[i] = true;
		memcg = T.cgs[i].memcg;
		parent = shr_mem_cgroup_parent(memcg);
		for (int s = 0; s < MAX_MOUNTS; s++) {
			if (!deferred_checked(s))
				continue;
			for (int n = 0; n < nodes; n++) {
				before_child[s][n] =
					shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), memcg, n);
				before_parent[s][n] =
					shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), parent, n);
				if (before_child[s][n] < 0 || before_parent[s][n] < 0)
					violation("nr_deferred: %ld %ld", before_child[s][n],
						  before_parent[s][n]);
			}
		}
		ret = cg_offline_slot(i);
		if (ret == -EBUSY)
			continue;
		if (ret)
			violation("quiescent offline: %d", ret);
		count_op(OP_CG_OFFLINE);
		for (int s = 0; s < MAX_MOUNTS; s++) {
			if (!deferred_checked(s))
				continue;
			for (int n = 0; n < nodes; n++) {
				long after = shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), parent,
								      n);

				if (before_child[s][n])
					T.deferred_moved++;
				if (after != before_parent[s][n] + before_child[s][n])
					violation("deferred not conserved offlining cgroup %lu (node %d, "
						  "shrinker %d): child %ld + parent %ld -> parent %ld",
						  shr_mem_cgroup_ino(memcg), n,
						  shr_shrinker_id(mnt_shrinker(&T.mounts[s])),
						  before_child[s][n], before_parent[s][n], after);
			}
		}
		T.checks++;
		return;
	}
}

/* Tell a missing bit from a reclaim that merely fell short. */
static void diagnose_stranded(struct mount_slot *m, int nid, struct shr_mem_cgroup *memcg)
{
	struct shr_shrinker *shrinker = mnt_shrinker(m);
	unsigned long before = mnt_count(m, nid, memcg), freed = 0;
	struct shr_shrinker_stats st0, st1;
	int ret;

	shr_shrinker_get_stats(shrinker, &st0);
	ret = shr_shrink_slab(T.host, nid, memcg, 0, &freed);
	shr_shrinker_get_stats(shrinker, &st1);
	fprintf(stderr, "torture: diagnosis: shrinker calls %lu -> %lu, scanned %lu -> %lu, "
			"deferred %ld -> %ld; nr_deferred(here) %ld\n",
		st0.calls, st1.calls, st0.scanned, st1.scanned, st0.deferred, st1.deferred,
		shr_shrinker_nr_deferred(shrinker, memcg, nid));

	fprintf(stderr,
		"torture: diagnosis: cgroup %lu (id %d, %s) node %d holds %lu objects of "
		"shrinker %d (%s); shrink_slab(prio 0) -> %d, freed %lu, left %lu%s\n",
		shr_mem_cgroup_ino(memcg), shr_mem_cgroup_id(memcg),
		shr_mem_cgroup_is_online(memcg) ? "online" : "offline", nid, before,
		shr_shrinker_id(shrinker), kind_names[m->kind], ret, freed,
		mnt_count(m, nid, memcg),
		freed ? "" : " (the shrinker was not called: its bit is missing)");
	for (int k = 0; m->sb && k < 2; k++) {
		unsigned long budget = ~0UL;

		shr_list_lru_walk_one(k ? m->sb->inode_lru : m->sb->dentry_lru, nid, memcg,
				      walk_print, NULL, &budget);
	}
}

void check_lists_empty(const char *when, bool all)
{
	for (int s = 0; s < MAX_MOUNTS; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (!mnt_mounted(m))
			continue;
		for (int i = -1; i < MAX_CGROUPS; i++) {
			struct shr_mem_cgroup *memcg =
				i < 0 ? shr_host_root_mem_cgroup(T.host) : T.cgs[i].memcg;

			if (i >= 0 && T.cgs[i].state != CG_ONLINE)
				continue;
			for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
				if (!mnt_count(m, n, memcg) ||
				    check_stranded(m, n, i, &T.stranded_known))
					continue;
				diagnose_stranded(m, n, memcg);
				violation("%s: %lu objects left on (cgroup %lu, node %d) of shrinker "
					  "%d (%s) after drop_caches",
					  when, mnt_count(m, n, memcg), shr_mem_cgroup_ino(memcg), n,
					  shr_shrinker_id(mnt_shrinker(m)), kind_names[m->kind]);
			}
		}
		if (all && mnt_count_all(m))
			violation("%s: %lu objects left on lists of shrinker %d (%s) after drop_caches",
				  when, mnt_count_all(m), shr_shrinker_id(mnt_shrinker(m)),
				  kind_names[m->kind]);
	}
	check_ledger(when);
	T.checks++;
}

void quiescent_check(uint64_t *rng)
{
	atomic_store(&T.pause, true);
	pthread_barrier_wait(&T.stopped);
	atomic_store(&T.pause, false);
	atomic_store(&T.iso_random, false);
	check_ledger("quiescent");
	check_deferred_reparent(rng);
	check_ledger("after reparent");
	/* Nothing stranded, now and not only at the end: a bit lost while
	 * the workers ran would heal once its list empties and refills, or
	 * its cgroup goes offline (reparenting sets the parent's bit). */
	op_drop_caches();
	check_lists_empty("quiescent, after drop_caches", false);
	atomic_store(&T.iso_random, true);
	pthread_barrier_wait(&T.resume);
}
