/* SPDX-License-Identifier: MIT */
/*
 * Thread life cycle against grace periods (include/shrinker/rcu.h).
 *
 * 1. Threads that register, work and exit while grace periods run in
 *    others: two threads run shr_synchronize_rcu() and shr_rcu_barrier()
 *    back to back until WAVES waves of WAVE_THREADS short-lived workers have
 *    each registered, allocated and freed a shrinker (a deferred free),
 *    added and removed objects of a shared list_lru in a shared cgroup,
 *    reclaimed it, read its bookkeeping and its shrinker's stats, and
 *    unregistered. Bounded by work: WAVES * WAVE_THREADS threads.
 * 2. A thread that exits registered (no shr_thread_unregister()) left
 *    liburcu's registry pointing at its freed thread-local reader, and a
 *    later grace period in another thread hung (two such threads) or
 *    crashed. rcu.h now says it is misuse, caught at thread exit: debug
 *    builds abort with a message naming shr_thread_unregister(); the others
 *    print it and unregister the thread. Run in a fresh process (this
 *    binary again, with --exit-registered): FORGETFUL threads exit
 *    registered while the main thread runs grace periods; a child that
 *    hangs is killed by its alarm after CHILD_TIMEOUT_S and fails the test.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "harness.h"

#define WAVES 48
#define WAVE_THREADS 4
#define OBJECTS_PER_WORKER 16
#define FORGETFUL 8
#define CHILD_TIMEOUT_S 60
#define NEEDLE "without calling shr_thread_unregister()"

struct shared {
	struct shr_host *host;
	struct shr_mem_cgroup *cg;
	struct shr_shrinker *s;
	struct shr_list_lru *lru;
	atomic_bool done;
	atomic_ulong grace_periods;
	atomic_ulong failures;
};

static struct shared sh;

static unsigned long count_lru(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	unsigned long n = shr_list_lru_shrink_count(sh.lru, sc);

	(void)s;
	return n ? n : SHR_SHRINK_EMPTY;
}

static enum shr_lru_status isolate(struct shr_list_head *item, struct shr_list_lru_one *list,
				   void *arg)
{
	(void)arg;
	shr_list_lru_isolate(list, item);
	return SHR_LRU_REMOVED;
}

static unsigned long scan_lru(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	(void)s;
	return shr_list_lru_shrink_walk(sh.lru, sc, isolate, NULL);
}

static void *grace_period_thread(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	shr_thread_register();
	while (!atomic_load(&sh.done)) {
		shr_synchronize_rcu();
		if (!(++n % 4))
			shr_rcu_barrier();
		atomic_fetch_add(&sh.grace_periods, 1);
	}
	shr_thread_unregister();
	return NULL;
}

static void *worker(void *arg)
{
	struct shr_list_head items[OBJECTS_PER_WORKER];
	int nid = (int)((uintptr_t)arg & 1);
	struct shr_memcg_bookkeeping bk;
	struct shr_shrinker_stats st;
	struct shr_shrinker *mine;
	unsigned long freed;

	shr_thread_register();
	if (shr_shrinker_alloc(sh.host, SHR_SHRINKER_MEMCG_AWARE, "worker", &mine))
		atomic_fetch_add(&sh.failures, 1);
	else
		shr_shrinker_free(mine); /* freed after a grace period */
	for (int i = 0; i < OBJECTS_PER_WORKER; i++) {
		shr_list_head_init(&items[i]);
		if (shr_list_lru_add(sh.lru, &items[i], nid, sh.cg) != 1)
			atomic_fetch_add(&sh.failures, 1);
	}
	if (shr_shrink_slab(sh.host, nid, sh.cg, SHR_DEF_PRIORITY, &freed) ||
	    shr_mem_cgroup_bookkeeping(sh.cg, -1, &bk) || shr_shrinker_get_stats(sh.s, &st))
		atomic_fetch_add(&sh.failures, 1);
	/* Whatever reclaim left is taken back; a scan may have taken some. */
	for (int i = 0; i < OBJECTS_PER_WORKER; i++)
		(void)shr_list_lru_del(sh.lru, &items[i], nid, sh.cg);
	shr_thread_unregister();
	return NULL;
}

/* Reclaim's isolate takes an item off a list while a worker may be about
 * to delete it: the del then finds it unlinked (0), which is fine. The
 * items live on the worker's stack, so the worker must not return while a
 * scan can still reach one: the del under the list lock settles that. */
static void test_threads_register_work_and_exit_while_grace_periods_run(void **state)
{
	struct shr_host_params p;
	pthread_t gp[2];

	(void)state;
	memset(&sh, 0, sizeof(sh));
	shr_host_params_init(&p);
	p.nr_nodes = 2;
	assert_int_equal(shr_host_create(&p, &sh.host), 0);
	sh.cg = shr_test_mkcg(shr_host_root_mem_cgroup(sh.host));
	assert_int_equal(shr_shrinker_alloc(sh.host, SHR_SHRINKER_MEMCG_AWARE |
					    SHR_SHRINKER_NUMA_AWARE, "life", &sh.s), 0);
	sh.s->count_objects = count_lru;
	sh.s->scan_objects = scan_lru;
	assert_int_equal(shr_list_lru_init_memcg(sh.host, sh.s, &sh.lru), 0);
	assert_int_equal(shr_shrinker_register(sh.s), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&gp[i], NULL, grace_period_thread, NULL), 0);
	for (int w = 0; w < WAVES; w++) {
		pthread_t t[WAVE_THREADS];

		for (int i = 0; i < WAVE_THREADS; i++)
			assert_int_equal(pthread_create(&t[i], NULL, worker,
							(void *)(uintptr_t)(w * WAVE_THREADS + i)), 0);
		for (int i = 0; i < WAVE_THREADS; i++)
			assert_int_equal(pthread_join(t[i], NULL), 0);
	}
	atomic_store(&sh.done, true);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(gp[i], NULL), 0);
	printf("# %d threads came and went during %lu grace periods\n", WAVES * WAVE_THREADS,
	       atomic_load(&sh.grace_periods));
	assert_int_equal(atomic_load(&sh.failures), 0);
	assert_int_equal(shr_list_lru_count(sh.lru), 0);
	shr_shrinker_free(sh.s);
	assert_int_equal(shr_list_lru_destroy(sh.lru), 0);
	assert_int_equal(shr_mem_cgroup_offline(sh.cg), 0);
	assert_int_equal(shr_host_destroy(sh.host), 0);
}

/* ---- the child: threads that exit registered ---- */

static void *forgetful(void *arg)
{
	(void)arg;
	shr_thread_register();
	shr_synchronize_rcu();
	return NULL; /* no shr_thread_unregister() */
}

static int exit_registered_child(void)
{
	shr_thread_register();
	alarm(CHILD_TIMEOUT_S);
	for (int i = 0; i < FORGETFUL; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, forgetful, NULL) || pthread_join(t, NULL))
			return 3;
		/* Grace periods after each: a stale registry entry hangs one. */
		for (int k = 0; k < 4; k++)
			shr_synchronize_rcu();
	}
	shr_rcu_barrier();
	shr_thread_unregister();
	return 0;
}

static void test_thread_exiting_registered_is_caught_at_exit(void **state)
{
	char out[8192], self[4096];
	size_t len = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	(void)state;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	fflush(stdout);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], STDERR_FILENO);
		execl(self, self, "--exit-registered", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (len < sizeof(out) - 1 && (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (SHR_DEBUG_CHECKS) {
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(out, NEEDLE))
			fail_msg("debug build: a thread exiting registered must abort with \"%s\"; "
				 "the child %s %d and wrote:\n%s", NEEDLE,
				 WIFSIGNALED(status) ? "was killed by signal" : "exited with",
				 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), out);
	} else {
		if (!WIFEXITED(status) || WEXITSTATUS(status) || !strstr(out, NEEDLE))
			fail_msg("%d threads exiting registered: want exit 0 and \"%s\" on stderr "
				 "(unregistered for them); the child %s %d (SIGALRM %d: a grace "
				 "period hung) and wrote:\n%s", FORGETFUL, NEEDLE,
				 WIFSIGNALED(status) ? "was killed by signal" : "exited with",
				 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
				 SIGALRM, out);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_register_work_and_exit_while_grace_periods_run),
		cmocka_unit_test(test_thread_exiting_registered_is_caught_at_exit),
	};

	if (argc == 2 && !strcmp(argv[1], "--exit-registered"))
		return exit_registered_child();
	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("rcu_thread_life", tests);
}
