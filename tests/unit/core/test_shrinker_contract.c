/* SPDX-License-Identifier: MIT */
/*
 * The documented return values of the shrinker and reclaim functions
 * (include/shrinker/shrinker.h, reclaim.h) hold whatever the callbacks
 * return, in every design: counts above LONG_MAX (the kernel's arithmetic
 * then wraps 2 * freeable and leaves a negative value in the deferred slot),
 * deferred work that sums past LONG_MAX, scans that free and report more
 * than they were asked, SHR_SHRINK_EMPTY from every count, SHR_SHRINK_STOP
 * from every scan, and scans that never report progress.
 *
 * Self-contained: its own callbacks (struct patho), one host per design
 * with two nodes, the root and one child cgroup.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "harness.h"

#define NODES 2

/* What the callbacks return. */
struct patho {
	unsigned long count;      /* count_objects' result */
	unsigned long scan_ret;   /* scan_objects' result; 0 = nr_to_scan * scan_mult */
	unsigned long scan_mult;  /* freed and reported scanned per asked object */
	bool report_no_progress;  /* set nr_scanned = 0 */
	unsigned long scans;      /* calls of scan_objects */
	unsigned long freed;      /* sum of scan_objects' results (not STOP) */
};

static unsigned long p_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)sc;
	return ((struct patho *)s->private_data)->count;
}

static unsigned long p_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct patho *p = s->private_data;
	unsigned long ret = p->scan_ret;

	p->scans++;
	if (!ret) {
		ret = sc->nr_to_scan * p->scan_mult;
		sc->nr_scanned = ret;
	}
	if (p->report_no_progress)
		sc->nr_scanned = 0;
	if (ret != SHR_SHRINK_STOP)
		p->freed += ret;
	return ret;
}

struct env {
	struct shr_host *host;
	struct shr_mem_cgroup *cg[2]; /* the root, a child */
	struct shr_shrinker *s;
	struct patho p;
};

static void env_open(struct env *e, enum shr_design design, unsigned int flags, int seeks)
{
	struct shr_host_params params;

	memset(e, 0, sizeof(*e));
	shr_host_params_init(&params);
	params.design = design;
	params.nr_nodes = NODES;
	params.geometry_cpus = 2;
	assert_int_equal(shr_host_create(&params, &e->host), 0);
	e->cg[0] = shr_host_root_mem_cgroup(e->host);
	e->cg[1] = shr_test_mkcg(e->cg[0]);
	assert_int_equal(shr_shrinker_alloc(e->host, flags, "patho", &e->s), 0);
	e->s->count_objects = p_count;
	e->s->scan_objects = p_scan;
	e->s->seeks = seeks;
	e->s->private_data = &e->p;
	assert_int_equal(shr_shrinker_register(e->s), 0);
	/* The child's bit on every node, so that its reclaim calls us. */
	for (int nid = 0; nid < NODES; nid++)
		assert_int_equal(shr_set_shrinker_bit(e->cg[1], nid, e->s), 0);
}

static void env_close(struct env *e)
{
	shr_shrinker_free(e->s);
	assert_int_equal(shr_mem_cgroup_offline(e->cg[1]), 0);
	assert_int_equal(shr_host_destroy(e->host), 0);
}

/* shr_shrinker_nr_deferred(): ">= 0, or -EINVAL", on every slot. */
static void assert_deferred_documented(struct env *e, const char *what)
{
	struct shr_shrinker_stats st;

	for (int c = 0; c < 2; c++) {
		for (int nid = 0; nid < NODES; nid++) {
			long v = shr_shrinker_nr_deferred(e->s, e->cg[c], nid);

			if (v < 0)
				fail_msg("%s, %s: nr_deferred(%s, node %d) = %ld, documented >= 0",
					 shr_design_name(shr_host_design(e->host)), what,
					 c ? "child" : "root", nid, v);
		}
	}
	assert_int_equal(shr_shrinker_get_stats(e->s, &st), 0);
	if (st.deferred < 0)
		fail_msg("%s, %s: get_stats().deferred = %ld", shr_design_name(shr_host_design(e->host)),
			 what, st.deferred);
}

/* Reclaim every (cgroup, node) at @prio, @rounds times. */
static void shrink_all(struct env *e, int prio, int rounds)
{
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c < 2; c++)
			for (int nid = 0; nid < NODES; nid++) {
				unsigned long freed = 0;

				assert_int_equal(shr_shrink_slab(e->host, nid, e->cg[c], prio, &freed),
						 0);
			}
}

static const unsigned int flag_sets[] = {
	SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_NUMA_AWARE,
	SHR_SHRINKER_MEMCG_AWARE,
	SHR_SHRINKER_NUMA_AWARE,
	0,
};
#define NR_FLAG_SETS (sizeof(flag_sets) / sizeof(flag_sets[0]))

/*
 * Counts above LONG_MAX / 2 (2 * freeable wraps negative: the kernel caps
 * the deferred work there, so the slot goes negative), LONG_MAX, and above
 * LONG_MAX (freeable itself negative), with seeks 0 and 2, at priorities 0
 * and 12: every nr_deferred() and get_stats() stays as documented.
 */
static void test_nr_deferred_is_never_negative_for_counts_above_long_max(void **state)
{
	static const unsigned long counts[] = {
		LONG_MAX / 2 + 1, LONG_MAX, (unsigned long)LONG_MAX + 1, SHR_SHRINK_EMPTY - 1,
	};
	char what[96];

	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		for (size_t f = 0; f < NR_FLAG_SETS; f++)
			for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
				for (int seeks = 0; seeks <= 2; seeks += 2) {
					struct env e;

					env_open(&e, (enum shr_design)d, flag_sets[f], seeks);
					e.p.count = counts[k];
					e.p.scan_ret = SHR_SHRINK_STOP;
					snprintf(what, sizeof(what), "flags %#x count %lu seeks %d",
						 flag_sets[f], counts[k], seeks);
					shrink_all(&e, 0, 3);
					assert_deferred_documented(&e, what);
					shrink_all(&e, SHR_DEF_PRIORITY, 3);
					assert_deferred_documented(&e, what);
					env_close(&e);
				}
}

/*
 * Deferred work of LONG_MAX / 2 in each of four slots (root and child, two
 * nodes; nobitmap drops the child's, as documented in its design): get_stats()
 * sums past LONG_MAX, which must neither overflow (UB; UBSan reports it) nor
 * come out negative.
 */
static void test_stats_deferred_does_not_overflow_when_slots_sum_past_long_max(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		struct shr_shrinker_stats st;
		struct env e;
		long slot;

		env_open(&e, (enum shr_design)d, flag_sets[0], 0);
		/* seeks 0: delta = freeable / 2 = LONG_MAX / 8 per call, capped at
		 * 2 * freeable = LONG_MAX / 2 - 1 after four calls. */
		e.p.count = LONG_MAX / 4;
		e.p.scan_ret = SHR_SHRINK_STOP;
		shrink_all(&e, 0, 6);
		slot = shr_shrinker_nr_deferred(e.s, e.cg[0], 1);
		if (slot < LONG_MAX / 4)
			fail_msg("%s: the root's slot holds %ld, the arithmetic gives about %ld",
				 shr_design_name((enum shr_design)d), slot, LONG_MAX / 2);
		assert_deferred_documented(&e, "four slots of LONG_MAX / 2");
		assert_int_equal(shr_shrinker_get_stats(e.s, &st), 0);
		assert_true(st.deferred >= slot);
		env_close(&e);
	}
}

/*
 * Scans that free, and report scanning, ten times what they were asked:
 * the loop ends (total_scan goes negative), shr_shrink_slab() reports what
 * the scans returned, get_stats() counts it, nr_deferred() stays >= 0.
 */
static void test_scans_returning_more_than_asked_are_counted_and_end(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		for (size_t f = 0; f < NR_FLAG_SETS; f++) {
			struct shr_shrinker_stats st;
			unsigned long total = 0;
			struct env e;

			env_open(&e, (enum shr_design)d, flag_sets[f], 2);
			e.p.count = 1000;
			e.p.scan_mult = 10;
			for (int c = 0; c < 2; c++)
				for (int nid = 0; nid < NODES; nid++) {
					unsigned long freed = 0;

					assert_int_equal(shr_shrink_slab(e.host, nid, e.cg[c], 0, &freed),
							 0);
					total += freed;
				}
			assert_int_equal(total, e.p.freed);
			assert_true(e.p.scans > 0);
			assert_int_equal(shr_shrinker_get_stats(e.s, &st), 0);
			assert_int_equal(st.freed, e.p.freed);
			assert_deferred_documented(&e, "scans 10x");
			env_close(&e);
		}
}

/*
 * SHR_SHRINK_EMPTY from every count: nothing is scanned, freed or changed
 * anywhere, and every caller returns what it documents: shr_shrink_slab()
 * 0 with 0 freed, shr_drop_caches() 0 after one pass, memory.reclaim
 * -EAGAIN, the debugfs count file empty; the deferred work left by earlier
 * calls stays as it was.
 */
static void test_shrink_empty_everywhere_changes_nothing(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		long before[2][NODES];
		unsigned int passes = 0;
		unsigned long freed = 1;
		char *buf = NULL;
		size_t len = 0;
		struct env e;
		FILE *f;

		env_open(&e, (enum shr_design)d, flag_sets[0], 2);
		/* Some deferred work first: counts of 1000, every scan stops. */
		e.p.count = 1000;
		e.p.scan_ret = SHR_SHRINK_STOP;
		shrink_all(&e, 0, 1);
		for (int c = 0; c < 2; c++)
			for (int nid = 0; nid < NODES; nid++)
				before[c][nid] = shr_shrinker_nr_deferred(e.s, e.cg[c], nid);
		assert_true(before[1][0] > 0);
		e.p.count = SHR_SHRINK_EMPTY;
		e.p.scans = 0;
		shrink_all(&e, 0, 2);
		assert_int_equal(shr_drop_caches(e.host, &freed, &passes), 0);
		assert_int_equal(freed, 0);
		assert_int_equal(passes, 1);
		assert_int_equal(shr_mem_cgroup_reclaim(e.cg[1], 1, &freed), -EAGAIN);
		assert_int_equal(freed, 0);
		assert_int_equal(e.p.scans, 0);
		for (int c = 0; c < 2; c++)
			for (int nid = 0; nid < NODES; nid++)
				assert_int_equal(shr_shrinker_nr_deferred(e.s, e.cg[c], nid),
						 before[c][nid]);
		f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_int_equal(shr_shrinker_debugfs_count(e.s, f), 0);
		fclose(f);
		assert_int_equal(len, 0);
		free(buf);
		env_close(&e);
	}
}

/*
 * SHR_SHRINK_STOP from every scan and scans that never report progress:
 * every caller ends and frees nothing (the second case by the guard
 * reclaim.c documents); the debugfs scan file returns 0.
 */
static void test_scans_that_stop_or_never_progress_end_with_nothing_freed(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		for (int no_progress = 0; no_progress < 2; no_progress++) {
			unsigned long freed = 1;
			char input[64];
			struct env e;

			env_open(&e, (enum shr_design)d, flag_sets[0], 2);
			e.p.count = 1000;
			if (no_progress) {
				e.p.scan_ret = 0;
				e.p.scan_mult = 0;
				e.p.report_no_progress = true;
			} else {
				e.p.scan_ret = SHR_SHRINK_STOP;
			}
			assert_int_equal(shr_drop_caches(e.host, &freed, NULL), 0);
			assert_int_equal(freed, 0);
			assert_int_equal(shr_mem_cgroup_reclaim(e.cg[1], 5, &freed), -EAGAIN);
			assert_int_equal(freed, 0);
			snprintf(input, sizeof(input), "%lu 1 100", shr_mem_cgroup_ino(e.cg[1]));
			assert_int_equal(shr_shrinker_debugfs_scan(e.s, input), 0);
			assert_deferred_documented(&e, no_progress ? "no progress" : "stop");
			env_close(&e);
		}
}

/* The -EINVAL cases of shr_shrinker_nr_deferred(), none of them a count. */
static void test_nr_deferred_einval_cases(void **state)
{
	struct shr_host *other;
	struct shr_host_params params;
	struct env e;

	(void)state;
	env_open(&e, SHR_DESIGN_XARRAY, flag_sets[0], 2);
	shr_host_params_init(&params);
	assert_int_equal(shr_host_create(&params, &other), 0);
	assert_int_equal(shr_shrinker_nr_deferred(NULL, NULL, 0), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(e.s, NULL, -1), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(e.s, NULL, NODES), -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(e.s, shr_host_root_mem_cgroup(other), 0),
			 -EINVAL);
	assert_int_equal(shr_shrinker_nr_deferred(e.s, e.cg[1], 0), 0);
	env_close(&e);
	assert_int_equal(shr_host_destroy(other), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nr_deferred_is_never_negative_for_counts_above_long_max),
		cmocka_unit_test(test_stats_deferred_does_not_overflow_when_slots_sum_past_long_max),
		cmocka_unit_test(test_scans_returning_more_than_asked_are_counted_and_end),
		cmocka_unit_test(test_shrink_empty_everywhere_changes_nothing),
		cmocka_unit_test(test_scans_that_stop_or_never_progress_end_with_nothing_freed),
		cmocka_unit_test(test_nr_deferred_einval_cases),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("shrinker_contract", tests);
}
