/* SPDX-License-Identifier: MIT */
/*
 * One design's run: host and allocator, ballast, workers, pauses for
 * checks, teardown and the final checks and report.
 */
#include "torture.h"

static const char *const op_names[OP_NR] = {
	"mount", "umount", "cg_create", "cg_create_refused(parent offline)", "cg_offline",
	"cg_offline_busy", "cg_release", "obj_add", "obj_delete", "shrink_slab",
	"memcg_reclaim", "drop_caches", "obj_freed_by_scan", "queue_reparent(objects moved)",
	"read: shrinker_get_stats", "read: debugfs count", "read: debugfs scan",
	"read: memcg bookkeeping", "read: memcg iterator walk",
};

static void shrink_cache(struct shr_kmem_cache *cache, void *arg)
{
	(void)arg;
	shr_kmem_cache_shrink(cache);
}

static bool totals_equal(const struct shr_slab_totals *a, const struct shr_slab_totals *b)
{
	if (a->sunreclaim_bytes != b->sunreclaim_bytes ||
	    a->sreclaimable_bytes != b->sreclaimable_bytes ||
	    a->large_kmalloc_bytes != b->large_kmalloc_bytes || a->vmalloc_bytes != b->vmalloc_bytes)
		return false;
	for (int n = 0; n < SHR_MAX_NUMNODES; n++)
		if (a->node_pages[n] != b->node_pages[n])
			return false;
	return true;
}

static void offline_everything(void)
{
	bool progress = true;

	while (progress) {
		progress = false;
		for (int i = 0; i < MAX_CGROUPS; i++) {
			if (T.cgs[i].state == CG_ONLINE && cg_offline_slot(i) == 0) {
				count_op(OP_CG_OFFLINE);
				progress = true;
			}
		}
	}
	for (int i = 0; i < MAX_CGROUPS; i++) {
		if (T.cgs[i].state == CG_ONLINE)
			violation("cgroup in slot %d cannot be taken offline", i);
	}
}

static void release_everything(void)
{
	for (int i = 0; i < MAX_CGROUPS; i++) {
		if (T.cgs[i].state == CG_DYING) {
			shr_mem_cgroup_put(T.cgs[i].memcg);
			T.cgs[i].memcg = NULL;
			T.cgs[i].state = CG_EMPTY;
			count_op(OP_CG_RELEASE);
		}
	}
}

/* Ids freed again after the ballast is made: where a design's per-cgroup
 * structure crosses a size class (header comment). */
static const int ballast_holes[] = { 64, 128, 1024, 65536, 131072, 524288 };

/* Take ids 0..id_base-1, then give the holes back (before the workers). */
static void ballast_fill(void)
{
	unsigned int flags = SHR_SHRINKER_MEMCG_AWARE | T.fs.extra_shrinker_flags;
	double t0 = now_s();
	int holes = 0;

	if (!T.cfg.id_base)
		return;
	T.ballast = calloc((size_t)T.cfg.id_base, sizeof(*T.ballast));
	if (!T.ballast)
		violation("out of memory for %d ballast shrinkers", T.cfg.id_base);
	for (int i = 0; i < T.cfg.id_base; i++) {
		int ret = shr_shrinker_alloc(T.host, flags, NULL, &T.ballast[i]);

		if (ret)
			violation("ballast shrinker %d: %d", i, ret);
		if (shr_shrinker_id(T.ballast[i]) != i)
			violation("ballast shrinker %d got id %d", i,
				  shr_shrinker_id(T.ballast[i]));
	}
	for (size_t h = 0; h < sizeof(ballast_holes) / sizeof(ballast_holes[0]); h++) {
		if (ballast_holes[h] >= T.cfg.id_base)
			continue;
		shr_shrinker_free(T.ballast[ballast_holes[h]]);
		T.ballast[ballast_holes[h]] = NULL;
		holes++;
	}
	/* The holes, then ids past the ballast, taken before the clock. */
	for (int s = 0; s < FIRST_MOUNTS && s < T.cfg.mounts; s++) {
		struct mount_slot *m = &T.mounts[s];
		int ret = mnt_mount(m, MK_SB);

		if (ret)
			violation("mount %d over the ballast: %d", s, ret);
		m->gen++;
		note_id(shr_shrinker_id(mnt_shrinker(m)));
		count_op(OP_MOUNT);
	}
	printf("torture: design %s: ids 0..%d taken by %d ballast shrinkers, %d holes at size-class "
	       "boundaries, in %.1f s; %d mounts up to id %d\n", T.design, T.cfg.id_base - 1,
	       T.cfg.id_base - holes, holes, now_s() - t0,
	       FIRST_MOUNTS < T.cfg.mounts ? FIRST_MOUNTS : T.cfg.mounts, atomic_load(&T.max_id));
	fflush(stdout);
}

static void ballast_free(void)
{
	if (!T.ballast)
		return;
	for (int i = 0; i < T.cfg.id_base; i++)
		shr_shrinker_free(T.ballast[i]);
	free(T.ballast);
	T.ballast = NULL;
}

static void final_checks_and_teardown(struct shr_slab_allocator *sa,
				      const struct shr_slab_totals *snap)
{
	struct shr_slab_totals now;
	int ret;

	check_ledger("end");
	/* Quiescent host, cgroups still online: nothing may escape reclaim. */
	op_drop_caches();
	check_lists_empty("end, cgroups online", false);
	/* Everything offline: all objects now sit on ancestors' lists. */
	offline_everything();
	op_drop_caches();
	check_lists_empty("end, cgroups offline", true);
	release_everything();
	for (int s = 0; s < MAX_MOUNTS; s++)
		if (mnt_mounted(&T.mounts[s]))
			mnt_umount(&T.mounts[s]);
	if (T.nr_free != LEDGER_CAP)
		violation("%u ledger records still held after unmount", LEDGER_CAP - T.nr_free);
	if (atomic_load(&T.fs.nr_alive))
		violation("%ld lab objects alive after unmount", atomic_load(&T.fs.nr_alive));
	sb_fs_destroy(&T.fs);
	if (shr_kmem_cache_destroy(T.tq_cache))
		violation("queue objects left in their cache after unmount");
	T.tq_cache = NULL;
	ballast_free();
	shr_rcu_barrier();
	ret = shr_host_destroy(T.host);
	if (ret)
		violation("shr_host_destroy: %d (cgroups or shrinkers left behind)", ret);
	T.host = NULL;
	shr_rcu_barrier();
	shr_slab_for_each_cache(sa, shrink_cache, NULL);
	shr_slab_totals(sa, &now);
	if (!totals_equal(&now, snap))
		violation("slab totals after teardown differ from before the host: unreclaimable "
			  "%lu -> %lu, reclaimable %lu -> %lu, large %lu -> %lu, vmalloc %lu -> %lu",
			  snap->sunreclaim_bytes, now.sunreclaim_bytes, snap->sreclaimable_bytes,
			  now.sreclaimable_bytes, snap->large_kmalloc_bytes,
			  now.large_kmalloc_bytes, snap->vmalloc_bytes, now.vmalloc_bytes);
	T.checks++;
}

static void reset_state(void)
{
	memset(T.ops, 0, sizeof(T.ops));
	T.checks = 0;
	T.stranded_known = 0;
	T.deferred_moved = 0;
	atomic_store(&T.pause, false);
	atomic_store(&T.stop, false);
	for (unsigned int i = 0; i < LEDGER_CAP; i++) {
		atomic_store(&T.ledger[i].word, mkword(0, REC_FREE));
		T.ledger[i].obj = NULL;
		T.free_stack[i] = LEDGER_CAP - 1 - i;
	}
	T.nr_free = LEDGER_CAP;
	memset(T.cgs, 0, sizeof(T.cgs));
	for (int s = 0; s < MAX_MOUNTS; s++) {
		T.mounts[s].sb = NULL;
		T.mounts[s].q = NULL;
		T.mounts[s].gen = 0;
	}
	for (int k = 0; k < MK_NR; k++)
		atomic_store(&T.mounts_of_kind[k], 0);
	for (int k = 0; k <= SHR_LRU_STOP; k++)
		atomic_store(&T.iso_status[k], 0);
	atomic_store(&T.iso_calls, 0);
	atomic_store(&T.enomem, 0);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* The operations the report counts (a scan's frees and a reparent's moves
 * are parts of other operations). */
static unsigned long ops_done(void)
{
	unsigned long n = 0;

	for (int k = 0; k < OP_NR; k++)
		if (k != OP_FREED_BY_SCAN && k != OP_QUEUE_REPARENT)
			n += atomic_load_explicit(&T.ops[k], memory_order_relaxed);
	return n;
}

/* Under --ops: the operations that make one second of the schedule. */
static double ops_per_run_s(void)
{
	double per = (double)T.cfg.ops / MIN_RUN_S;

	return per < OPS_PER_RUN_S ? per : OPS_PER_RUN_S;
}

/*
 * The run's clock, in seconds of its schedule (checks, stutter, faults,
 * mount limit). With -t it is wall time since @start. With --ops it is
 * work: ops_per_run_s() operations a second, so every check and phase
 * comes after the same amount of work however loaded the machine is, and
 * the run ends after --ops operations (the test suite's runs: bounded by
 * work, not by time).
 */
static double run_clock(double start)
{
	if (T.cfg.ops)
		return (double)ops_done() / ops_per_run_s();
	return now_s() - start;
}

static double run_length(void)
{
	return T.cfg.ops ? (double)T.cfg.ops / ops_per_run_s() : (double)T.cfg.seconds;
}

/* Let the workers run for about @delta of the run's clock. */
static void run_clock_wait(double delta)
{
	if (delta <= 0)
		return;
	sleep_s(T.cfg.ops ? OPS_POLL_S : delta);
}

/* Open mount slots in proportion to @progress (0..1) of the run, all of
 * them at half time: the high-water id keeps rising while everything runs, so
 * designs that grow their arrays do it under load. */
static void raise_mount_limit(double progress)
{
	int extra = T.cfg.mounts - FIRST_MOUNTS;
	int limit = FIRST_MOUNTS + (int)(extra * (progress / 0.5));

	if (extra <= 0)
		return;
	atomic_store(&T.mount_limit, limit < T.cfg.mounts ? limit : T.cfg.mounts);
}

/* Run one design; returns 0, or 1 when the options do not apply to it
 * (skipped: e.g. --nonslab-ids under a design without nonslab ids). */
int run_design(enum shr_design design)
{
	struct shr_slab_params sp = { .nr_nodes = T.cfg.params.nr_nodes };
	struct shr_host_params params = T.cfg.params;
	struct shr_slab_allocator *sa;
	struct shr_slab_totals snap;
	pthread_t tids[MAX_THREADS];
	uint64_t rng = T.cfg.seed ^ 0x5eedULL;
	const char *why = NULL;
	double start, elapsed, interval, next, stutter, fault, len, t;
	uint64_t phase = 0;
	unsigned long total_ops, injected;
	bool widened = true;
	int ret;

	T.design = shr_design_name(design);
	params.design = design;
	if (shr_host_params_check(&params, &why)) {
		printf("torture: design %s: skipped (%s)\n", T.design, why);
		return 1;
	}
	if (T.cfg.id_base && shr_design_info_of(design)->expand_batch == 1 &&
	    !params.expand_batch) {
		printf("torture: design %s: skipped (--id-base: one id per growth step would copy "
		       "the root's arrays once per ballast id; give --expand-batch)\n", T.design);
		return 1;
	}
	if (T.cfg.id_base && !shr_design_info_of(design)->bits) {
		printf("torture: design %s: skipped (--id-base: without bits every reclaim of a "
		       "cgroup visits every allocated id, ballast included, and the checks' "
		       "drop_caches would take the run; test_memcg_readers_at_scale covers its "
		       "readers past id 131072)\n", T.design);
		return 1;
	}
	reset_state();
	shr_race_hits_reset();
	ret = shr_slab_allocator_create(&sp, &sa);
	if (ret)
		violation("shr_slab_allocator_create: %d", ret);
	shr_slab_totals(sa, &snap);
	params.slab = sa;
	T.sa = sa;
	ret = shr_host_create(&params, &T.host);
	if (ret)
		violation("shr_host_create: %d", ret);
	ret = sb_fs_init(&T.fs, T.host);
	if (ret)
		violation("sb_fs_init: %d", ret);
	T.fs.may_isolate = ledger_may_isolate;
	T.fs.on_free = ledger_on_free;
	T.fs.isolate_status = pick_isolate_status;
	ret = shr_kmem_cache_create(sa, "tq_obj", sizeof(struct tq_obj), 0, 0, &T.tq_cache);
	if (ret)
		violation("shr_kmem_cache_create: %d", ret);
	/* With kmem off, non-root cgroups see only NONSLAB shrinkers. */
	if (!params.kmem)
		T.fs.extra_shrinker_flags = SHR_SHRINKER_NONSLAB;

	pthread_barrier_init(&T.stopped, NULL, (unsigned int)T.cfg.threads + 1);
	pthread_barrier_init(&T.resume, NULL, (unsigned int)T.cfg.threads + 1);
	atomic_store(&T.mount_limit, T.cfg.mounts < FIRST_MOUNTS ? T.cfg.mounts : FIRST_MOUNTS);
	atomic_store(&T.iso_random, true);
	atomic_store(&T.max_id, -1);
	ballast_fill();
	widen(true, phase++);
	for (int t = 0; t < T.cfg.threads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)(t + 1)))
			violation("pthread_create failed");
	start = now_s();
	len = run_length();
	/* A quiescent check every half second of the run's clock: a lost bit
	 * must not have time to heal (its mount unmounted, its list emptied)
	 * before one sees it. */
	interval = QUIESCENT_INTERVAL_S;
	next = interval;
	stutter = STUTTER_ON_S;
	/* Fault rules change on wall time in both modes: a worker that keeps
	 * failing an allocation retries until the rule changes (tq_reparent()),
	 * and under --ops the other workers may be waiting on its lock, so
	 * the count of operations would not move on. */
	fault = start;
	while ((t = run_clock(start)) < len) {
		double until = next < stutter ? next : stutter;

		if (T.cfg.faults && !T.cfg.ops && fault - start < until)
			until = fault - start;
		run_clock_wait((until < len ? until : len) - t);
		t = run_clock(start);
		raise_mount_limit(t / len);
		if (T.cfg.faults && now_s() >= fault) {
			arm_fault(&rng);
			fault = now_s() + FAULT_PERIOD_S;
		}
		if (t >= stutter) {
			widened = !widened;
			widen(widened, phase++);
			stutter = t + (widened ? STUTTER_ON_S : STUTTER_OFF_S);
		}
		if (t >= next && t < len) {
			/* The checks themselves run without delays or faults. */
			widen(false, 0);
			shr_slab_fault_clear(T.sa);
			quiescent_check(&rng);
			widen(widened, phase++);
			next = run_clock(start) + interval;
		}
	}
	atomic_store(&T.stop, true);
	shr_slab_fault_clear(T.sa);
	for (int t = 0; t < T.cfg.threads; t++)
		pthread_join(tids[t], NULL);
	widen(false, 0);
	atomic_store(&T.iso_random, false);
	elapsed = now_s() - start;
	pthread_barrier_destroy(&T.stopped);
	pthread_barrier_destroy(&T.resume);

	final_checks_and_teardown(sa, &snap);
	injected = shr_slab_faults_injected(sa);
	shr_slab_allocator_destroy(sa);
	T.sa = NULL;

	printf("torture: design %s: %.1f s, %d threads, %d nodes, seed %" PRIu64 "\n", T.design,
	       elapsed, T.cfg.threads, T.cfg.params.nr_nodes, T.cfg.seed);
	if (T.cfg.ops)
		printf("  run bounded by work: %ld operations (--ops)\n", T.cfg.ops);
	for (int k = 0; k < OP_NR; k++)
		printf("  %-36s %lu\n", op_names[k], atomic_load(&T.ops[k]));
	total_ops = ops_done();
	printf("  operations per second                %.0f\n", (double)total_ops / elapsed);
	printf("  highest shrinker id mounted          %d (of %d mount slots)\n",
	       atomic_load(&T.max_id), T.cfg.mounts);
	printf("  calls failed with -ENOMEM            %lu (%lu allocation failures injected)\n",
	       atomic_load(&T.enomem), injected);
	printf("  isolate callbacks of scans: removed %lu, removed_retry %lu, rotate %lu, skip %lu, "
	       "retry %lu, stop %lu\n",
	       atomic_load(&T.iso_status[SHR_LRU_REMOVED]),
	       atomic_load(&T.iso_status[SHR_LRU_REMOVED_RETRY]),
	       atomic_load(&T.iso_status[SHR_LRU_ROTATE]), atomic_load(&T.iso_status[SHR_LRU_SKIP]),
	       atomic_load(&T.iso_status[SHR_LRU_RETRY]), atomic_load(&T.iso_status[SHR_LRU_STOP]));
	for (int k = 0; k <= SHR_LRU_STOP; k++)
		if (!atomic_load(&T.iso_status[k]))
			violation("no scan's isolate callback returned status %d", k);
	if (T.cfg.id_base && atomic_load(&T.max_id) < T.cfg.id_base)
		violation("--id-base %d: no mount reached an id past the ballast (highest %d)",
			  T.cfg.id_base, atomic_load(&T.max_id));
	printf("  mounts by kind:");
	for (int k = 0; k < MK_NR; k++)
		printf("%s %s %lu", k ? "," : "", kind_names[k], atomic_load(&T.mounts_of_kind[k]));
	printf("\n");
	printf("  checks passed                        %lu\n", T.checks);
	printf("  deferred counters moved by checked reparents: %lu\n", T.deferred_moved);
	printf("  stranded on lists an add through a dying cgroup reached: %lu objects\n",
	       T.stranded_known);
	report_race_hits(&params);
	fflush(stdout);
	return 0;
}
