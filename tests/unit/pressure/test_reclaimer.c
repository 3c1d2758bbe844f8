/* SPDX-License-Identifier: MIT */
/*
 * The reclaimer (reclaimer.h) on a cache that charges its entries' bytes
 * to their tenants: a tenant over its high is reclaimed first and alone;
 * the host's budget is met by proportional reclaim across tenants; the
 * priority escalates from SHR_DEF_PRIORITY and stops at the target; its
 * thread answers charges over high, wakes and pressure sources (a FIFO, a
 * memory.events file) without the cache users waiting; the trim hook, the
 * reports and statistics; misuse; and a threaded run (under TSan in
 * `make check`) of inserting threads, the reclaimer's thread and
 * synchronous rounds at once, whose ledger must balance.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/pressure.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaimer.h>
#include <shrinker/shrinker.h>

#include "harness.h"

/* Longest wait for something the test has caused (a failure guard). */
#define WAIT_MS 60000

/* One cached entry: its bytes are charged to its owner. */
struct entry {
	struct shr_list_head lru;     /* on its owner's list; list lock */
	struct shr_mem_cgroup *owner; /* charged; a reference */
	size_t bytes;                 /* charged */
	unsigned char payload[];
};

struct cache {
	struct shr_host *host;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *lru;
	atomic_ulong inserted;
	atomic_ulong freed;
	atomic_ulong freed_bytes;
};

#define entry_of(item) shr_container_of_entry(item)
static struct entry *shr_container_of_entry(struct shr_list_head *item)
{
	return (struct entry *)(void *)((char *)item - offsetof(struct entry, lru));
}

/* Free a dispose list: uncharge, unpin, free. */
static unsigned long dispose(struct cache *c, struct shr_list_head *head)
{
	unsigned long n = 0;

	while (!shr_list_head_empty(head)) {
		struct shr_list_head *item = head->next;
		struct entry *e = entry_of(item);

		shr_list_del_init(item);
		if (shr_mem_cgroup_uncharge(e->owner, e->bytes))
			abort();
		atomic_fetch_add(&c->freed_bytes, e->bytes);
		shr_mem_cgroup_put(e->owner);
		free(e);
		n++;
	}
	atomic_fetch_add(&c->freed, n);
	return n;
}

static enum shr_lru_status isolate(struct shr_list_head *item, struct shr_list_lru_one *list,
				   void *arg)
{
	shr_list_lru_isolate_move(list, item, arg);
	return SHR_LRU_REMOVED;
}

static unsigned long cache_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct cache *c = s->private_data;
	unsigned long n = shr_list_lru_shrink_count(c->lru, sc);

	return n ? n : SHR_SHRINK_EMPTY;
}

static unsigned long cache_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct cache *c = s->private_data;
	struct shr_list_head head;

	shr_list_head_init(&head);
	shr_list_lru_shrink_walk(c->lru, sc, isolate, &head);
	return dispose(c, &head);
}

static struct cache *cache_create(void)
{
	struct shr_host_params params;
	struct cache *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	shr_test_host_params(&params);
	assert_int_equal(shr_host_create(&params, &c->host), 0);
	assert_int_equal(shr_shrinker_alloc(c->host, SHR_SHRINKER_MEMCG_AWARE, "charged-cache",
					    &c->shrinker), 0);
	c->shrinker->count_objects = cache_count;
	c->shrinker->scan_objects = cache_scan;
	c->shrinker->private_data = c;
	assert_int_equal(shr_list_lru_init_memcg(c->host, c->shrinker, &c->lru), 0);
	assert_int_equal(shr_shrinker_register(c->shrinker), 0);
	return c;
}

/* Insert an entry of @bytes charged to @memcg. Return: the charge's result
 * (0, or 1 when over a high). */
static int cache_insert(struct cache *c, struct shr_mem_cgroup *memcg, size_t bytes)
{
	struct entry *e = malloc(sizeof(*e) + bytes);
	int ret;

	if (!e)
		abort();
	shr_list_head_init(&e->lru);
	memset(e->payload, 0x5a, bytes);
	e->bytes = bytes;
	shr_mem_cgroup_get(memcg);
	e->owner = memcg;
	ret = shr_mem_cgroup_charge(memcg, bytes);
	if (ret < 0 || shr_list_lru_add(c->lru, &e->lru, 0, memcg) != 1)
		abort();
	atomic_fetch_add(&c->inserted, 1);
	return ret;
}

static void cache_fill(struct cache *c, struct shr_mem_cgroup *memcg, unsigned long n,
		       size_t bytes)
{
	for (unsigned long i = 0; i < n; i++)
		(void)cache_insert(c, memcg, bytes);
}

static unsigned long held(struct cache *c, struct shr_mem_cgroup *memcg)
{
	return shr_list_lru_count_one(c->lru, 0, memcg);
}

/* Evict everything, offline @tenants, destroy. */
static void cache_destroy(struct cache *c, struct shr_mem_cgroup **tenants, int n)
{
	struct shr_list_head head;

	shr_list_head_init(&head);
	shr_list_lru_walk(c->lru, isolate, &head, ~0UL);
	dispose(c, &head);
	assert_int_equal(atomic_load(&c->freed), atomic_load(&c->inserted));
	assert_int_equal(shr_mem_cgroup_usage(shr_host_root_mem_cgroup(c->host)), 0);
	shr_shrinker_free(c->shrinker);
	assert_int_equal(shr_list_lru_destroy(c->lru), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(shr_mem_cgroup_offline(tenants[i]), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(c->host), 0);
	free(c);
}

static struct shr_reclaimer *reclaimer_of(struct cache *c, bool thread)
{
	struct shr_reclaimer_params params;
	struct shr_reclaimer *r;

	shr_reclaimer_params_init(&params);
	params.thread = thread;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), 0);
	return r;
}

static const struct shr_reclaim_tenant *find_tenant(const struct shr_reclaim_report *rep,
						    struct shr_mem_cgroup *memcg)
{
	for (size_t i = 0; i < rep->nr_tenants; i++)
		if (rep->tenants[i].memcg == memcg)
			return &rep->tenants[i];
	return NULL;
}

/* A report callback that keeps the tenants' figures of the last round. */
struct last_report {
	struct shr_reclaim_report rep;
	struct shr_reclaim_tenant tenants[8];
	unsigned long rounds;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void keep_report(const struct shr_reclaim_report *rep, void *arg)
{
	struct last_report *lr = arg;

	pthread_mutex_lock(&lr->lock);
	lr->rep = *rep;
	lr->rep.nr_tenants = rep->nr_tenants < 8 ? rep->nr_tenants : 8;
	if (lr->rep.nr_tenants)
		memcpy(lr->tenants, rep->tenants, lr->rep.nr_tenants * sizeof(lr->tenants[0]));
	lr->rep.tenants = lr->tenants;
	lr->rounds++;
	pthread_cond_broadcast(&lr->cond);
	pthread_mutex_unlock(&lr->lock);
}

static void last_report_init(struct last_report *lr)
{
	memset(lr, 0, sizeof(*lr));
	pthread_mutex_init(&lr->lock, NULL);
	pthread_cond_init(&lr->cond, NULL);
}

static struct shr_reclaimer *reclaimer_reporting(struct cache *c, bool thread,
						  struct last_report *lr)
{
	struct shr_reclaimer_params params;
	struct shr_reclaimer *r;

	shr_reclaimer_params_init(&params);
	params.thread = thread;
	params.report = keep_report;
	params.report_arg = lr;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), 0);
	return r;
}

static unsigned long rounds_seen(struct last_report *lr)
{
	unsigned long n;

	pthread_mutex_lock(&lr->lock);
	n = lr->rounds;
	pthread_mutex_unlock(&lr->lock);
	return n;
}

/* Wait until @lr has seen more than @rounds rounds (bounded). */
static void wait_rounds(struct last_report *lr, unsigned long rounds)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&lr->lock);
	while (lr->rounds <= rounds)
		if (pthread_cond_timedwait(&lr->cond, &lr->lock, &deadline))
			break;
	pthread_mutex_unlock(&lr->lock);
	assert_true(rounds_seen(lr) > rounds);
}

/*
 * The threaded tests keep their reclaimer and its report in the test's
 * state: a failed assertion leaves the test at once, and the teardown then
 * stops the thread before anything it reads is gone, so the failure is
 * reported as itself (not as the thread's use of a dead stack frame).
 */
struct threaded {
	struct last_report lr;
	struct shr_reclaimer *r;
};

static int threaded_setup(void **state)
{
	struct threaded *th = calloc(1, sizeof(*th));

	if (!th)
		return -1;
	last_report_init(&th->lr);
	*state = th;
	return 0;
}

static int threaded_teardown(void **state)
{
	struct threaded *th = *state;

	shr_reclaimer_destroy(th->r);
	pthread_cond_destroy(&th->lr.cond);
	pthread_mutex_destroy(&th->lr.lock);
	free(th);
	return 0;
}

/* Stop @th's reclaimer (its thread joined). */
static void threaded_stop(struct threaded *th)
{
	shr_reclaimer_destroy(th->r);
	th->r = NULL;
}

enum { A, B, C, NR };

static void make_tenants(struct cache *c, struct shr_mem_cgroup **t)
{
	for (int i = 0; i < NR; i++)
		t[i] = shr_test_mkcg(shr_host_root_mem_cgroup(c->host));
}

/* A tenant over its own high is reclaimed first, alone, down to its high;
 * the others keep everything (memory.high). */
static void test_tenant_over_high_reclaimed_alone(void **state)
{
	struct cache *c = cache_create();
	struct shr_mem_cgroup *t[NR];
	struct shr_reclaim_report rep;
	struct shr_memcg_memory_stat st;
	struct last_report lr;
	struct shr_reclaimer *r;

	(void)state;
	last_report_init(&lr);
	make_tenants(c, t);
	r = reclaimer_reporting(c, false, &lr);
	cache_fill(c, t[A], 3000, 100);
	cache_fill(c, t[B], 2000, 100);
	cache_fill(c, t[C], 1000, 100);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);
	assert_int_equal(shr_mem_cgroup_set_high(t[A], 150000), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	assert_int_equal(rep.reasons, SHR_RECLAIM_HIGH);
	assert_true(rep.target_met);
	assert_null(rep.tenants);
	assert_true(shr_mem_cgroup_usage(t[A]) <= 150000);
	/* It stopped there, above priority 0: one shrink_slab() call at
	 * priority p scans about count >> (p - 1) in one go, so it may pass
	 * the target by that much (the kernel's arithmetic). */
	print_message("# A: %lu bytes left, priority %d, %u passes\n",
		      shr_mem_cgroup_usage(t[A]), rep.priority, rep.passes);
	assert_true(rep.priority > 0);
	assert_true(shr_mem_cgroup_usage(t[A]) > 0);
	assert_int_equal(held(c, t[B]), 2000);
	assert_int_equal(held(c, t[C]), 1000);
	assert_int_equal(rep.freed_bytes, 300000 - shr_mem_cgroup_usage(t[A]));
	assert_int_equal(rep.freed_objects, 3000 - held(c, t[A]));
	assert_int_equal(lr.rep.nr_tenants, 1);
	assert_ptr_equal(lr.tenants[0].memcg, t[A]);
	assert_int_equal(lr.tenants[0].ino, shr_mem_cgroup_ino(t[A]));
	assert_int_equal(lr.tenants[0].freed_bytes, rep.freed_bytes);
	assert_int_equal(lr.tenants[0].usage, shr_mem_cgroup_usage(t[A]));
	assert_int_equal(shr_mem_cgroup_memory_stat(t[A], &st), 0);
	assert_int_equal(st.reclaimed, rep.freed_bytes);
	assert_int_equal(rep.usage_before - rep.usage_after, rep.freed_bytes);
	assert_true(rep.woken_ns <= rep.first_freed_ns && rep.first_freed_ns <= rep.done_ns);

	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
}

/* The host's budget is met by reclaiming every tenant in proportion to
 * what it holds, from priority 12 down, stopping at the target. */
static void test_host_budget_is_proportional(void **state)
{
	static const unsigned long n[NR] = { 30000, 20000, 10000 };
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct shr_reclaim_report rep;
	struct last_report lr;
	struct shr_reclaimer *r;
	double share[NR], mean = 0;

	(void)state;
	last_report_init(&lr);
	make_tenants(c, t);
	r = reclaimer_reporting(c, false, &lr);
	for (int i = 0; i < NR; i++)
		cache_fill(c, t[i], n[i], 64);
	assert_int_equal(shr_mem_cgroup_set_high(root, 60000 * 64 / 2), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	assert_true(rep.target_met);
	assert_int_equal(rep.target, 60000 * 64 / 2);
	assert_true(rep.usage_after <= rep.target);
	/* Not much below: it stopped after the pass that met it. */
	assert_true(rep.usage_after > rep.target / 2);
	assert_true(rep.priority >= 0 && rep.priority < SHR_DEF_PRIORITY);
	assert_true(rep.passes > 1);
	for (int i = 0; i < NR; i++) {
		const struct shr_reclaim_tenant *e = find_tenant(&lr.rep, t[i]);

		assert_non_null(e);
		assert_int_equal(e->freed_objects, n[i] - held(c, t[i]));
		assert_int_equal(e->freed_bytes, e->freed_objects * 64);
		share[i] = (double)e->freed_objects / (double)n[i];
		mean += share[i] / NR;
	}
	print_message("# freed shares: %.3f %.3f %.3f (priority %d, %u passes)\n", share[A],
		      share[B], share[C], rep.priority, rep.passes);
	for (int i = 0; i < NR; i++)
		assert_true(share[i] > mean * 0.8 && share[i] < mean * 1.2);

	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
}

/* A small request is met at a high priority and frees little; a large one
 * goes down to a low priority. */
static void test_priority_escalates_to_the_target(void **state)
{
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct shr_reclaim_report rep;
	struct shr_reclaimer *r;
	unsigned long usage;

	(void)state;
	make_tenants(c, t);
	r = reclaimer_of(c, false);
	cache_fill(c, t[A], 30000, 64);
	cache_fill(c, t[B], 20000, 64);
	cache_fill(c, t[C], 10000, 64);
	usage = shr_mem_cgroup_usage(root);
	assert_int_equal(shr_reclaimer_reclaim(r, usage / 100, &rep), 0);
	assert_int_equal(rep.reasons, SHR_RECLAIM_EXPLICIT);
	assert_true(rep.freed_bytes >= usage / 100);
	assert_true(rep.freed_bytes < usage / 20);
	assert_true(rep.priority >= 6);
	print_message("# 1%%: priority %d, freed %lu of %lu\n", rep.priority, rep.freed_bytes,
		      usage);
	usage = shr_mem_cgroup_usage(root);
	assert_int_equal(shr_reclaimer_reclaim(r, usage / 10 * 9, &rep), 0);
	assert_true(rep.freed_bytes >= usage / 10 * 9);
	assert_true(rep.priority <= 3);
	print_message("# 90%%: priority %d, freed %lu of %lu\n", rep.priority, rep.freed_bytes,
		      usage);
	/* More than it holds: everything goes (the target is 0). */
	cache_fill(c, t[B], 1000, 64);
	usage = shr_mem_cgroup_usage(root);
	assert_int_equal(shr_reclaimer_reclaim(r, usage * 2, &rep), 0);
	assert_int_equal(shr_mem_cgroup_usage(root), 0);
	assert_int_equal(rep.target, 0);
	/* Bytes no shrinker can free: priority 0 done, target missed. */
	assert_int_equal(shr_mem_cgroup_charge(t[C], 1000), 0);
	assert_int_equal(shr_reclaimer_reclaim(r, 500, &rep), -EAGAIN);
	assert_false(rep.target_met);
	assert_int_equal(rep.priority, 0);
	assert_int_equal(rep.passes, SHR_DEF_PRIORITY + 1);
	assert_int_equal(shr_mem_cgroup_uncharge(t[C], 1000), 0);

	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
}

/* The thread answers a charge over the host's high by itself. */
static void test_thread_answers_charges_over_high(void **state)
{
	struct threaded *th = *state;
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct shr_reclaimer_stats st;
	struct last_report *lr = &th->lr;
	struct shr_reclaimer *r;
	int over = 0;

	make_tenants(c, t);
	assert_int_equal(shr_mem_cgroup_set_high(root, 200000), 0);
	r = th->r = reclaimer_reporting(c, true, lr);
	assert_int_equal(shr_reclaimer_fd(r), -EBUSY);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, NULL), -EBUSY);
	for (int i = 0; i < 3000; i++)
		over |= cache_insert(c, t[i % NR], 100);
	assert_int_equal(over, 1);
	/* Its last round started after the last crossing: the host is under. */
	for (;;) {
		unsigned long seen = rounds_seen(lr);

		if (shr_mem_cgroup_usage(root) <= 200000)
			break;
		wait_rounds(lr, seen);
	}
	/*
	 * The round that brought usage under the high may still be running:
	 * its bytes are counted when it finishes, just before its report.
	 */
	for (;;) {
		unsigned long seen = rounds_seen(lr);

		assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
		if (st.freed_bytes >= 100000)
			break;
		wait_rounds(lr, seen);
	}
	assert_true(st.rounds >= 1);
	assert_true(st.wakes_high >= 1);
	/* A round may still be running: its frees are not counted yet. */
	assert_true(st.freed_objects <= atomic_load(&c->freed));
	threaded_stop(th);
	cache_destroy(c, t, NR);
}

/* An explicit wake asks for the pressure share (usage >> 3); the
 * reclaimer's fd polls readable for it. */
static void test_wake_asks_for_the_share(void **state)
{
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct shr_reclaim_report rep;
	struct shr_reclaimer_stats st;
	struct shr_reclaimer *r;
	struct pollfd pfd;
	unsigned long usage;

	(void)state;
	make_tenants(c, t);
	r = reclaimer_of(c, false);
	cache_fill(c, t[A], 16000, 64);
	usage = shr_mem_cgroup_usage(root);
	pfd = (struct pollfd){ .fd = shr_reclaimer_fd(r), .events = POLLIN };
	assert_true(pfd.fd >= 0);
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(shr_reclaimer_wake(r), 0);
	assert_int_equal(shr_reclaimer_wake(r), 0);
	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 1);
	assert_int_equal(rep.reasons, SHR_RECLAIM_EXPLICIT);
	assert_int_equal(rep.target, usage - (usage >> 3));
	assert_true(rep.usage_after <= rep.target);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	assert_int_equal(st.wakes_explicit, 2);
	assert_int_equal(st.rounds, 1);
	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
}

static char tmpdir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Pressure sources drive rounds: a FIFO relay (the share), a
 * memory.events file (the share plus the kernel cgroup's excess over
 * memory.high); a source whose peer is gone is dropped; a PSI source needs
 * the thread. */
static void test_sources_drive_rounds(void **state)
{
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct shr_pressure *fifo_src, *events_src, *psi_src;
	struct shr_reclaim_report rep;
	struct shr_reclaimer_stats st;
	struct shr_reclaimer *r;
	char fifo[128], events[128];
	unsigned long usage;
	int peer;

	(void)state;
	strcpy(tmpdir, "/tmp/shr-reclaimer-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(fifo, sizeof(fifo), "%s/relay", tmpdir);
	snprintf(events, sizeof(events), "%s/memory.events", tmpdir);
	make_tenants(c, t);
	r = reclaimer_of(c, false);
	cache_fill(c, t[A], 20000, 64);
	cache_fill(c, t[B], 20000, 64);

	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(shr_pressure_open_psi(fifo, NULL, &fifo_src), 0);
	peer = open(fifo, O_RDWR | O_NONBLOCK);
	assert_int_equal(shr_reclaimer_add_source(r, fifo_src), 0);
	write_file("memory.events", "low 0\nhigh 0\nmax 0\n");
	write_file("memory.current", "3000000\n");
	write_file("memory.high", "2000000\n");
	assert_int_equal(shr_pressure_open_memory_events(events, &events_src), 0);
	assert_int_equal(shr_reclaimer_add_source(r, events_src), 0);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);

	usage = shr_mem_cgroup_usage(root);
	assert_int_equal(write(peer, "p", 1), 1);
	assert_int_equal(shr_reclaimer_dispatch(r, WAIT_MS, &rep), 1);
	assert_int_equal(rep.reasons, SHR_RECLAIM_PRESSURE);
	assert_int_equal(rep.sources, 1u << SHR_PRESSURE_STREAM);
	assert_int_equal(rep.target, usage - (usage >> 3));
	assert_true(rep.usage_after <= rep.target);
	assert_int_equal(rep.trimmed_ns, rep.done_ns); /* no trim asked for */

	usage = shr_mem_cgroup_usage(root);
	write_file("memory.events", "low 0\nhigh 5\nmax 0\n");
	assert_int_equal(shr_reclaimer_dispatch(r, WAIT_MS, &rep), 1);
	assert_int_equal(rep.reasons, SHR_RECLAIM_PRESSURE);
	assert_int_equal(rep.sources, 1u << SHR_PRESSURE_MEMORY_EVENTS);
	assert_int_equal(rep.target, usage - (usage >> 3) - 1000000);
	assert_true(rep.usage_after <= rep.target);

	/* The relay's last writer goes: a FIFO opened read-write keeps one
	 * (itself), so it is never gone; a socket's is (test_pressure). */
	close(peer);
	assert_int_equal(shr_reclaimer_dispatch(r, 0, &rep), 0);
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	assert_int_equal(st.sources, 2);
	assert_int_equal(st.wakes_pressure, 2);
	assert_int_equal(st.wakes_stream, 1);
	assert_int_equal(st.wakes_memory_events, 1);
	assert_int_equal(st.wakes_psi, 0);

	/* A source that reports it is gone (a socket whose peer closed) is
	 * dropped and closed, and runs no round. */
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		struct shr_pressure *sock_src;
		int lfd = socket(AF_UNIX, SOCK_STREAM, 0), conn;

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", tmpdir);
		assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(listen(lfd, 1), 0);
		setenv("MEMORY_PRESSURE_WATCH", sa.sun_path, 1);
		assert_int_equal(shr_pressure_open_systemd(&sock_src), 0);
		unsetenv("MEMORY_PRESSURE_WATCH");
		assert_int_equal(shr_reclaimer_add_source(r, sock_src), 0);
		conn = accept(lfd, NULL, NULL);
		assert_true(conn >= 0);
		close(conn);
		assert_int_equal(shr_reclaimer_dispatch(r, WAIT_MS, &rep), 0);
		close(lfd);
	}
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	assert_int_equal(st.sources, 2);
	assert_int_equal(st.sources_gone, 1);
	assert_int_equal(st.rounds, 2);

	/* A PSI trigger's event is consumed by the poll that reports it: a
	 * reclaimer without a thread refuses one. */
	if (shr_pressure_open_psi("/proc/pressure/memory", NULL, &psi_src) == 0) {
		assert_int_equal(shr_reclaimer_add_source(r, psi_src), -EOPNOTSUPP);
		shr_pressure_close(psi_src);
	} else {
		print_message("# /proc/pressure/memory: no PSI source to refuse\n");
	}
	assert_int_equal(shr_reclaimer_add_source(r, NULL), -EINVAL);
	assert_int_equal(shr_reclaimer_add_source(NULL, NULL), -EINVAL);

	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		assert_int_equal(system(cmd), 0);
	}
}

static void count_trim(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

/* The trim hook runs after a round that freed something, and not after
 * one that freed nothing. */
static void test_trim_after_a_freeing_round(void **state)
{
	struct cache *c = cache_create();
	struct shr_mem_cgroup *t[NR];
	struct shr_reclaimer_params params;
	struct shr_reclaim_report rep;
	struct shr_reclaimer_stats st;
	struct shr_reclaimer *r;
	atomic_int trims = 0;

	(void)state;
	make_tenants(c, t);
	shr_reclaimer_params_init(&params);
	params.malloc_trim = true;
	params.trim = count_trim;
	params.trim_arg = &trims;
	params.pressure_shift = 1;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), 0);
	assert_int_equal(shr_reclaimer_reclaim(r, 0, &rep), 0); /* nothing held */
	assert_int_equal(atomic_load(&trims), 0);
	cache_fill(c, t[A], 4000, 1000);
	assert_int_equal(shr_reclaimer_reclaim(r, 0, &rep), 0);
	assert_true(rep.freed_bytes >= 2000000); /* shift 1: half */
	assert_int_equal(atomic_load(&trims), 1);
	assert_true(rep.trimmed_ns >= rep.done_ns);
	assert_true(rep.cpu_ns > 0);
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	assert_int_equal(st.trims, 1);
	assert_int_equal(st.rounds, 2);
	shr_reclaimer_destroy(r);
	cache_destroy(c, t, NR);
}

/* Bad arguments are refused. */
static void test_reclaimer_misuse(void **state)
{
	struct cache *c = cache_create();
	struct shr_reclaimer_params params;
	struct shr_reclaimer_stats st;
	struct shr_reclaimer *r;

	(void)state;
	shr_reclaimer_params_init(&params);
	shr_reclaimer_params_init(NULL);
	assert_int_equal(shr_reclaimer_create(NULL, &params, &r), -EINVAL);
	assert_int_equal(shr_reclaimer_create(c->host, NULL, &r), -EINVAL);
	assert_int_equal(shr_reclaimer_create(c->host, &params, NULL), -EINVAL);
	params.pressure_shift = 0;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), -EINVAL);
	params.pressure_shift = 17;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), -EINVAL);
	assert_int_equal(shr_reclaimer_wake(NULL), -EINVAL);
	assert_int_equal(shr_reclaimer_fd(NULL), -EINVAL);
	assert_int_equal(shr_reclaimer_dispatch(NULL, 0, NULL), -EINVAL);
	assert_int_equal(shr_reclaimer_reclaim(NULL, 0, NULL), -EINVAL);
	assert_int_equal(shr_reclaimer_get_stats(NULL, &st), -EINVAL);
	shr_reclaimer_destroy(NULL);
	/* After the refusals the host takes a reclaimer. */
	params.pressure_shift = 16;
	assert_int_equal(shr_reclaimer_create(c->host, &params, &r), 0);
	assert_int_equal(shr_reclaimer_get_stats(r, NULL), -EINVAL);
	shr_reclaimer_destroy(r);
	cache_destroy(c, NULL, 0);
}

/* Threaded run: inserting threads, the reclaimer's thread answering
 * charges over high (tenants' and the host's), and a thread running
 * synchronous rounds and wakes, at once. Bounded by work. */
struct inserter {
	struct cache *c;
	struct shr_mem_cgroup *memcg;
	unsigned long n;
};

static void *insert_loop(void *arg)
{
	struct inserter *in = arg;

	shr_thread_register();
	for (unsigned long i = 0; i < in->n; i++)
		(void)cache_insert(in->c, in->memcg, 32 + i % 200);
	shr_thread_unregister();
	return NULL;
}

struct syncer {
	struct shr_reclaimer *r;
	int rounds;
};

static void *sync_loop(void *arg)
{
	struct syncer *s = arg;

	shr_thread_register();
	for (int i = 0; i < s->rounds; i++) {
		(void)shr_reclaimer_reclaim(s->r, 0, NULL);
		(void)shr_reclaimer_wake(s->r);
		sched_yield();
	}
	shr_thread_unregister();
	return NULL;
}

static void test_threads_and_rounds_at_once(void **state)
{
	struct threaded *th = *state;
	struct cache *c = cache_create();
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(c->host), *t[NR];
	struct inserter in[NR];
	struct syncer sy;
	struct shr_reclaimer_stats st;
	struct shr_reclaimer *r;
	pthread_t workers[NR + 1];
	unsigned long live_bytes = 0;
	bool widened;

	make_tenants(c, t);
	assert_int_equal(shr_mem_cgroup_set_high(root, 400000), 0);
	assert_int_equal(shr_mem_cgroup_set_high(t[A], 100000), 0);
	r = th->r = reclaimer_reporting(c, true, &th->lr);
	sy = (struct syncer){ r, 40 };
	widened = shr_test_widen();
	for (int i = 0; i < NR; i++) {
		in[i] = (struct inserter){ c, t[i], 6000 };
		assert_int_equal(pthread_create(&workers[i], NULL, insert_loop, &in[i]), 0);
	}
	assert_int_equal(pthread_create(&workers[NR], NULL, sync_loop, &sy), 0);
	for (int i = 0; i <= NR; i++)
		pthread_join(workers[i], NULL);
	if (widened)
		shr_test_widen_end();
	assert_int_equal(shr_reclaimer_get_stats(r, &st), 0);
	print_message("# %lu rounds (%lu high, %lu explicit), %lu objects freed\n", st.rounds,
		      st.wakes_high, st.wakes_explicit, st.freed_objects);
	/*
	 * Stop the thread first: a round of its own running beside the last
	 * one may hold entries isolated, still charged, so the last round
	 * could miss its target and find usage above it (concurrent rounds
	 * are allowed, reclaimer.h). Then one round, alone, after the last
	 * charge brings everything under.
	 */
	threaded_stop(th);
	r = th->r = reclaimer_of(c, false);
	assert_int_equal(shr_reclaimer_reclaim(r, 1, NULL), 0);
	assert_true(shr_mem_cgroup_usage(root) <= 400000);
	assert_true(shr_mem_cgroup_usage(t[A]) <= 100000);
	threaded_stop(th);
	/* The ledger: charged bytes are exactly the entries still held. */
	for (int i = 0; i < NR; i++) {
		struct shr_memcg_memory_stat ms;

		assert_int_equal(shr_mem_cgroup_memory_stat(t[i], &ms), 0);
		live_bytes += ms.usage;
	}
	assert_int_equal(live_bytes, shr_mem_cgroup_usage(root));
	assert_int_equal(atomic_load(&c->freed) + shr_list_lru_count(c->lru),
			 atomic_load(&c->inserted));
	/* The thread's last round may have ended after the statistics. */
	assert_true(st.freed_objects <= atomic_load(&c->freed));
	cache_destroy(c, t, NR);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tenant_over_high_reclaimed_alone),
		cmocka_unit_test(test_host_budget_is_proportional),
		cmocka_unit_test(test_priority_escalates_to_the_target),
		cmocka_unit_test_setup_teardown(test_thread_answers_charges_over_high,
						threaded_setup, threaded_teardown),
		cmocka_unit_test(test_wake_asks_for_the_share),
		cmocka_unit_test(test_sources_drive_rounds),
		cmocka_unit_test(test_trim_after_a_freeing_round),
		cmocka_unit_test(test_reclaimer_misuse),
		cmocka_unit_test_setup_teardown(test_threads_and_rounds_at_once, threaded_setup,
						threaded_teardown),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("reclaimer", tests);
}
