/* SPDX-License-Identifier: MIT */
/*
 * The reclaimer: kswapd and memory.high for one host (include/shrinker/
 * reclaimer.h says what it does for its users).
 *
 * Design
 * ------
 * Events. An epoll set holds the reclaimer's wake eventfd (explicit wakes
 * and the stop of destroy), the eventfd the host's charges write when a
 * cgroup goes over its high (installed with shr_memcg_high_notify_install(),
 * memcg.c), and the pressure sources. One thread waits on it at a time: the
 * reclaimer's own, or the caller of shr_reclaimer_dispatch(). A PSI source's
 * event is consumed by the poll that reports it, so a PSI fd is only ever
 * in the set of a reclaimer with its own thread, which calls epoll_wait()
 * itself (no outer poll of the epoll fd can consume it first).
 *
 * Rounds. A round installs a reclaim state on its thread (memcg.c): the
 * bytes its shrinkers' scan callbacks uncharge are what it freed, the
 * kernel's current->reclaim_state. It then
 *   1. brings every non-root, non-dying cgroup over its high back under it
 *      (children first: the collected pre-order list backwards), each with
 *      try_to_free_mem_cgroup_pages()'s loop: priority SHR_DEF_PRIORITY
 *      down to 0, the cgroup's subtree on every node at each priority,
 *      stopping as soon as its usage is at or below its high (a partial
 *      walk);
 *   2. computes the host's target: its high when the root's usage is over
 *      it; for a pressure event or an explicit request, also usage minus
 *      the requested bytes (usage >> pressure_shift, plus what a
 *      memory.events source reported over the kernel cgroup's high), the
 *      lower of the two;
 *   3. balances the host as kswapd balances a node: full passes over every
 *      cgroup (pre-order from the root, the walk reclaim uses, which skips
 *      subtrees the design knows empty) on every node at one priority, so
 *      each tenant is scanned in proportion to its objects
 *      ((count >> priority) * 4 / seeks in do_shrink_slab()); after a pass,
 *      stop if the target is met; lower the priority after a pass that
 *      freed nothing or less than half of what was missing before it;
 *      otherwise stay, at most SHR_RECLAIM_STAY_MAX passes per priority
 *      (the kernel's MAX_RECLAIM_RETRIES), so a round always ends. This is
 *      kswapd's rule (raise the priority when a pass scanned less than its
 *      nr_to_reclaim, or reclaimed nothing) with half of what is missing in
 *      place of kswapd's watermark-sized nr_to_reclaim, which a process has
 *      no equivalent of: a pass at priority p frees about 2^(1-p) of every
 *      tenant, so a pass that frees half of what is missing is one or two
 *      passes from the target at that rate, where a lower priority would
 *      free up to twice as much again (a round asked for half the cache
 *      would end near 70% instead of 55%, one asked for 90% at 100%);
 *   4. trims (malloc_trim, the hook) if it freed anything (the report's
 *      trimmed_ns says when the memory was back with the kernel), reports,
 *      counts.
 * What a round freed is attributed to the cgroup whose lists were being
 * scanned (the report's tenants: a hash table of the round, pinning each
 * cgroup until the report is done).
 *
 * Concurrency. Rounds hold no reclaimer lock: a thread's round and a
 * caller's shr_reclaimer_reclaim() may run at once, like kswapd and direct
 * reclaim; each has its own state on its own stack. The cache users never
 * wait for a round: a charge notifies (an eventfd write, at most one until
 * the round acks) and returns.
 *
 * Fields and their synchronisation are at struct shr_reclaimer. Lock:
 * reclaimer->lock (SHR_LOCK_RECLAIMER, a leaf) guards the source array and
 * the statistics.
 *
 * Ordering. The high notification: a charger adds to the counters, then
 * exchanges host->high_pending to true (acq_rel) and writes the eventfd
 * only if it was false. The round reads the eventfd, then acks with an
 * exchange to false (acq_rel, shr_memcg_high_notify_ack()), then reads the
 * counters. A charger whose exchange came first (it saw true and did not
 * write) is read by the ack's exchange, so its charge happens before the
 * round's reads; a charger whose exchange came after saw false and writes,
 * and the next wait returns for it. No crossing is left without a round.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <shrinker/pressure.h>
#include <shrinker/reclaim.h>
#include <shrinker/reclaimer.h>
#include <shrinker/rcu.h>
#include <shrinker/shrinker.h>

#include "lock.h"
#include "memcg_internal.h"

/* Passes at one priority that freed enough without meeting the target
 * (new charges meanwhile) before the priority is lowered anyway. */
#define SHR_RECLAIM_STAY_MAX 16
#define SHR_PRESSURE_SHIFT_DEFAULT 3
#define SHR_PRESSURE_SHIFT_MAX 16

/*
 * struct shr_reclaimer - one host's reclaimer.
 * @host:        the host. Sync: immutable.
 * @params:      as created. Sync: immutable.
 * @epfd:        the epoll set. Sync: immutable; epoll_ctl and epoll_wait
 *               are thread-safe.
 * @wake_fd:     eventfd: wakes (its count) and the stop. Sync: immutable.
 * @high_fd:     eventfd the host's charges write. Sync: immutable.
 * @has_thread:  the thread runs. Sync: immutable after create.
 * @thread:      Sync: immutable after create.
 * @stop:        destroy asks the thread to end. Sync: atomic; the wake
 *               after it is the thread's cue.
 * @lock:        guards @sources, @nr_sources, @cap_sources, @stats.
 * @sources:     the sources watched (owned).
 */
struct shr_reclaimer {
	struct shr_host *host;
	struct shr_reclaimer_params params;
	int epfd;
	int wake_fd;
	int high_fd;
	bool has_thread;
	pthread_t thread;
	atomic_bool stop;
	struct shr_mutex lock;
	struct shr_pressure **sources;
	size_t nr_sources;
	size_t cap_sources;
	struct shr_reclaimer_stats stats;
};

/*
 * struct round - one round's state (its thread's own).
 * @r:        the reclaimer.
 * @rs:       the reclaim state installed on the thread.
 * @rep:      the report being built.
 * @tenants:  the cgroups freed from, in first-freed order (each pinned).
 * @nr, @cap: entries used and allocated.
 * @slots:    open-addressing index into @tenants by cgroup (SIZE_MAX:
 *            empty), @nr_slots a power of two, at least twice @cap.
 */
struct round {
	struct shr_reclaimer *r;
	struct shr_reclaim_state rs;
	struct shr_reclaim_report rep;
	struct shr_reclaim_tenant *tenants;
	size_t nr, cap;
	size_t *slots;
	size_t nr_slots;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void shr_reclaimer_params_init(struct shr_reclaimer_params *params)
{
	if (!params)
		return;
	memset(params, 0, sizeof(*params));
	params->pressure_shift = SHR_PRESSURE_SHIFT_DEFAULT;
}

/* Index of @memcg's slot (its entry's or the empty one where it goes). */
static size_t slot_of(const struct round *rd, const struct shr_mem_cgroup *memcg)
{
	size_t i = ((uintptr_t)memcg >> 4) * 0x9e3779b97f4a7c15u & (rd->nr_slots - 1);

	while (rd->slots[i] != SIZE_MAX && rd->tenants[rd->slots[i]].memcg != memcg)
		i = (i + 1) & (rd->nr_slots - 1);
	return i;
}

/* Make room for one more tenant. Return: false on allocation failure (the
 * round goes on; the report then lists fewer tenants). */
static bool tenants_grow(struct round *rd)
{
	size_t cap = rd->cap ? rd->cap * 2 : 16, nr_slots = cap * 2;
	struct shr_reclaim_tenant *t = realloc(rd->tenants, cap * sizeof(*t));
	size_t *slots;

	if (!t)
		return false;
	rd->tenants = t;
	slots = malloc(nr_slots * sizeof(*slots));
	if (!slots)
		return false;
	free(rd->slots);
	rd->slots = slots;
	rd->nr_slots = nr_slots;
	rd->cap = cap;
	for (size_t i = 0; i < nr_slots; i++)
		slots[i] = SIZE_MAX;
	for (size_t i = 0; i < rd->nr; i++)
		slots[slot_of(rd, rd->tenants[i].memcg)] = i;
	return true;
}

/* Add what a scan of @memcg's lists freed to its entry. */
static void tenant_account(struct round *rd, struct shr_mem_cgroup *memcg, unsigned long bytes,
			   unsigned long objects)
{
	struct shr_reclaim_tenant *t;
	size_t slot;

	if (rd->nr_slots) {
		slot = slot_of(rd, memcg);
		if (rd->slots[slot] != SIZE_MAX) {
			t = &rd->tenants[rd->slots[slot]];
			t->freed_bytes += bytes;
			t->freed_objects += objects;
			return;
		}
	}
	if (rd->nr == rd->cap && !tenants_grow(rd))
		return;
	slot = slot_of(rd, memcg);
	rd->slots[slot] = rd->nr;
	t = &rd->tenants[rd->nr++];
	/* Pinned until the report is done (the walk's reference is not ours;
	 * the root needs none). */
	if (!shr_memcg_is_root(memcg))
		shr_mem_cgroup_get(memcg);
	t->memcg = memcg;
	t->ino = shr_mem_cgroup_ino(memcg);
	t->freed_bytes = bytes;
	t->freed_objects = objects;
	t->usage = 0;
}

/*
 * One shrink_slab() of @memcg on @nid at @priority, accounted.
 * Context: the round's thread, registered; @memcg pinned.
 * Return: bytes freed.
 */
static unsigned long shrink_one(struct round *rd, int nid, struct shr_mem_cgroup *memcg,
				int priority)
{
	unsigned long before = rd->rs.reclaimed, objects = 0, bytes;

	if (shr_shrink_slab(rd->r->host, nid, memcg, priority, &objects))
		return 0;
	bytes = rd->rs.reclaimed - before;
	if (rd->rep.priority < 0 || priority < rd->rep.priority)
		rd->rep.priority = priority;
	if (!bytes && !objects)
		return 0;
	if (!rd->rep.first_freed_ns)
		rd->rep.first_freed_ns = now_ns();
	rd->rep.freed_objects += objects;
	tenant_account(rd, memcg, bytes, objects);
	return bytes;
}

/*
 * memory.high for one cgroup: its subtree, priority SHR_DEF_PRIORITY down
 * to 0, until its usage is at or below its high.
 * Context: the round's thread; @memcg pinned.
 * Return: whether it is under its high.
 */
static bool reclaim_tenant(struct round *rd, struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *mem = shr_memcg_memory(memcg);
	struct shr_host *host = rd->r->host;

	for (int priority = SHR_DEF_PRIORITY; priority >= 0; priority--) {
		rd->rep.passes++;
		for (int nid = 0; nid < host->nr_nodes; nid++) {
			struct shr_mem_cgroup *pos = NULL;

			while ((pos = shr_memcg_reclaim_iter(host, memcg, pos, nid))) {
				shrink_one(rd, nid, pos, priority);
				if (!shr_page_counter_over_high(&mem->memory)) {
					shr_mem_cgroup_iter_break(memcg, pos);
					return true;
				}
			}
		}
	}
	return !shr_page_counter_over_high(&mem->memory);
}

/* Whether @memcg is a tenant over its own high. */
static bool tenant_over_high(struct shr_mem_cgroup *memcg)
{
	struct shr_memcg_memory *mem = shr_memcg_memory(memcg);

	return !shr_memcg_is_root(memcg) && !shr_memcg_dying(memcg) && mem &&
	       shr_page_counter_over_high(&mem->memory);
}

/*
 * Step 1: every tenant over its high, children before parents.
 * Context: the round's thread. Return: whether all are under now.
 */
static bool reclaim_over_high(struct round *rd)
{
	struct shr_mem_cgroup **over = NULL, *pos = NULL;
	size_t nr = 0, cap = 0;
	bool met = true;

	while ((pos = shr_mem_cgroup_iter(rd->r->host, NULL, pos))) {
		if (!tenant_over_high(pos))
			continue;
		if (nr == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct shr_mem_cgroup **n = realloc(over, ncap * sizeof(*n));

			if (!n) {
				/* Reclaim those found so far; the next
				 * notification brings the others. */
				shr_mem_cgroup_iter_break(NULL, pos);
				met = false;
				break;
			}
			over = n;
			cap = ncap;
		}
		shr_mem_cgroup_get(pos);
		over[nr++] = pos;
	}
	while (nr--) {
		if (tenant_over_high(over[nr]) && !reclaim_tenant(rd, over[nr]))
			met = false;
		shr_mem_cgroup_put(over[nr]);
	}
	free(over);
	return met;
}

/* One kswapd pass: every cgroup on every node at @priority. Return: bytes. */
static unsigned long host_pass(struct round *rd, int priority)
{
	struct shr_host *host = rd->r->host;
	unsigned long freed = 0;

	rd->rep.passes++;
	for (int nid = 0; nid < host->nr_nodes; nid++) {
		struct shr_mem_cgroup *pos = NULL;

		while ((pos = shr_memcg_reclaim_iter(host, NULL, pos, nid)))
			freed += shrink_one(rd, nid, pos, priority);
	}
	return freed;
}

/*
 * Step 3: balance the host down to @target bytes (see the top).
 * Context: the round's thread. Return: whether the target was met.
 */
static bool balance_host(struct round *rd, unsigned long target)
{
	struct shr_mem_cgroup *root = rd->r->host->root;
	int priority = SHR_DEF_PRIORITY, stays = 0;

	while (priority >= 0) {
		unsigned long usage = shr_mem_cgroup_usage(root), freed;

		if (usage <= target)
			return true;
		freed = host_pass(rd, priority);
		if (shr_mem_cgroup_usage(root) <= target)
			return true;
		if (!freed || freed < (usage - target) / 2 || ++stays > SHR_RECLAIM_STAY_MAX) {
			priority--;
			stays = 0;
		}
	}
	return false;
}

/*
 * The host's target (step 2) for a round with @reasons; @bytes asked for
 * (0: the pressure share). Context: Any.
 */
static unsigned long host_target(struct shr_reclaimer *r, unsigned int reasons,
				 unsigned long bytes)
{
	struct shr_mem_cgroup *root = r->host->root;
	struct shr_memcg_memory *mem = shr_memcg_memory(root);
	unsigned long usage = shr_mem_cgroup_usage(root), target = usage;

	if (!mem)
		return 0;
	if (shr_page_counter_over_high(&mem->memory))
		target = shr_page_counter_high(&mem->memory);
	if (reasons & (SHR_RECLAIM_PRESSURE | SHR_RECLAIM_EXPLICIT)) {
		unsigned long want = bytes ? bytes : usage >> r->params.pressure_shift;
		unsigned long below = want < usage ? usage - want : 0;

		if (below < target)
			target = below;
	}
	return target;
}

/* Count one pressure event of a source of @kind. Context: @r->lock held. */
static void count_pressure(struct shr_reclaimer *r, enum shr_pressure_kind kind)
{
	shr_lock_assert_held(&r->lock);
	r->stats.wakes_pressure++;
	if (kind == SHR_PRESSURE_PSI)
		r->stats.wakes_psi++;
	else if (kind == SHR_PRESSURE_STREAM)
		r->stats.wakes_stream++;
	else /* memory.events, vmpressure: a cgroup's own events */
		r->stats.wakes_memory_events++;
}

static void do_trim(struct shr_reclaimer *r)
{
	if (r->params.malloc_trim) {
#ifdef __GLIBC__
		malloc_trim(0);
#endif
	}
	if (r->params.trim)
		r->params.trim(r->params.trim_arg);
}

/* Count the round, call the report hook, unpin the tenants. @cpu0: the
 * thread's CPU time when the round started. */
static void round_finish(struct round *rd, bool met, uint64_t cpu0)
{
	struct shr_reclaimer *r = rd->r;
	bool freed = rd->rep.freed_bytes || rd->rep.freed_objects;

	rd->rep.target_met = met;
	if (freed && (r->params.malloc_trim || r->params.trim))
		do_trim(r);
	rd->rep.trimmed_ns = freed && (r->params.malloc_trim || r->params.trim) ? now_ns()
										  : rd->rep.done_ns;
	rd->rep.cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	for (size_t i = 0; i < rd->nr; i++)
		rd->tenants[i].usage = shr_mem_cgroup_usage(rd->tenants[i].memcg);
	rd->rep.nr_tenants = rd->nr;
	rd->rep.tenants = rd->tenants;
	shr_mutex_lock(&r->lock);
	r->stats.rounds++;
	r->stats.targets_missed += !met;
	r->stats.freed_bytes += rd->rep.freed_bytes;
	r->stats.freed_objects += rd->rep.freed_objects;
	r->stats.trims += freed && (r->params.malloc_trim || r->params.trim);
	shr_mutex_unlock(&r->lock);
	if (r->params.report)
		r->params.report(&rd->rep, r->params.report_arg);
	for (size_t i = 0; i < rd->nr; i++)
		shr_mem_cgroup_put(rd->tenants[i].memcg);
	free(rd->tenants);
	free(rd->slots);
	rd->rep.tenants = NULL;
}

/*
 * A round (steps 1-4 at the top).
 * Context: Registered thread, no RCU section, no library lock.
 * Return: 0 (targets met) or -EAGAIN.
 */
static int run_round(struct shr_reclaimer *r, unsigned int reasons, unsigned int sources,
		     unsigned long bytes, uint64_t woken_ns, struct shr_reclaim_report *out)
{
	struct round rd = { .r = r };
	struct shr_reclaim_state *old;
	struct shr_mem_cgroup *root = r->host->root;
	uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	unsigned long target;
	bool met;

	rd.rep.reasons = reasons;
	rd.rep.sources = sources;
	rd.rep.priority = -1;
	rd.rep.woken_ns = woken_ns;
	old = shr_set_reclaim_state(&rd.rs);
	rd.rep.usage_before = shr_mem_cgroup_usage(root);
	met = reclaim_over_high(&rd);
	target = host_target(r, reasons, bytes);
	rd.rep.target = target;
	if (shr_mem_cgroup_usage(root) > target && !balance_host(&rd, target))
		met = false;
	shr_set_reclaim_state(old);
	rd.rep.freed_bytes = rd.rs.reclaimed;
	rd.rep.usage_after = shr_mem_cgroup_usage(root);
	rd.rep.done_ns = now_ns();
	round_finish(&rd, met, cpu0);
	if (out)
		*out = rd.rep;
	return met ? 0 : -EAGAIN;
}

/* Read an eventfd's count (0 if none). */
static uint64_t eventfd_take(int fd)
{
	uint64_t v = 0;
	ssize_t n;

	do
		n = read(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(v) ? v : 0;
}

/* Stop watching @src and close it (it reported being gone). */
static void drop_source(struct shr_reclaimer *r, struct shr_pressure *src)
{
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, shr_pressure_fd(src), NULL);
	shr_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->nr_sources; i++) {
		if (r->sources[i] == src) {
			r->sources[i] = r->sources[--r->nr_sources];
			break;
		}
	}
	r->stats.sources = r->nr_sources;
	r->stats.sources_gone++;
	shr_mutex_unlock(&r->lock);
	shr_pressure_close(src);
}

/*
 * Handle one ready fd: add its reason to *@reasons and what it asks for
 * beyond the share to *@extra.
 */
static void handle_event(struct shr_reclaimer *r, const struct epoll_event *e,
			 unsigned int *reasons, unsigned int *sources, unsigned long *extra)
{
	struct shr_pressure_event pe;
	uint64_t n;
	int ret;

	if (e->data.ptr == &r->wake_fd) {
		n = eventfd_take(r->wake_fd);
		if (atomic_load_explicit(&r->stop, memory_order_acquire) || !n)
			return;
		*reasons |= SHR_RECLAIM_EXPLICIT;
		shr_mutex_lock(&r->lock);
		r->stats.wakes_explicit += n;
		shr_mutex_unlock(&r->lock);
	} else if (e->data.ptr == &r->high_fd) {
		eventfd_take(r->high_fd);
		/* Before reading any counter: see "Ordering" at the top. */
		shr_memcg_high_notify_ack(r->host);
		*reasons |= SHR_RECLAIM_HIGH;
		shr_mutex_lock(&r->lock);
		r->stats.wakes_high++;
		shr_mutex_unlock(&r->lock);
	} else {
		struct shr_pressure *src = e->data.ptr;

		ret = shr_pressure_check(src, (short)e->events, &pe);
		if (ret < 0) {
			drop_source(r, src);
		} else if (ret > 0) {
			*reasons |= SHR_RECLAIM_PRESSURE;
			*sources |= 1u << pe.kind;
			*extra += pe.over_high;
			shr_mutex_lock(&r->lock);
			count_pressure(r, pe.kind);
			shr_mutex_unlock(&r->lock);
		}
	}
}

/* Wait, handle, run. Return: as shr_reclaimer_dispatch(). */
static int dispatch(struct shr_reclaimer *r, int timeout_ms, struct shr_reclaim_report *out)
{
	struct epoll_event evs[16];
	unsigned int reasons = 0, sources = 0;
	unsigned long extra = 0, bytes;
	uint64_t woken;
	int n;

	do
		n = epoll_wait(r->epfd, evs, 16, timeout_ms);
	while (n < 0 && errno == EINTR && timeout_ms < 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	woken = now_ns();
	for (int i = 0; i < n; i++)
		handle_event(r, &evs[i], &reasons, &sources, &extra);
	if (!reasons || atomic_load_explicit(&r->stop, memory_order_acquire))
		return 0;
	bytes = 0;
	if (extra) {
		unsigned long usage = shr_mem_cgroup_usage(r->host->root);

		/* The share plus what the kernel's cgroup is over its high. */
		bytes = (usage >> r->params.pressure_shift) + extra;
	}
	(void)run_round(r, reasons, sources, bytes, woken, out);
	return 1;
}

static void *reclaimer_thread(void *arg)
{
	struct shr_reclaimer *r = arg;

	shr_thread_register();
	while (!atomic_load_explicit(&r->stop, memory_order_acquire))
		(void)dispatch(r, -1, NULL);
	shr_thread_unregister();
	return NULL;
}

/* Add @fd to the epoll set with @events and @tag. Return: 0 or -errno. */
static int watch_fd(struct shr_reclaimer *r, int fd, uint32_t events, void *tag)
{
	struct epoll_event ev = { .events = events, .data.ptr = tag };

	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void reclaimer_free(struct shr_reclaimer *r)
{
	for (size_t i = 0; i < r->nr_sources; i++)
		shr_pressure_close(r->sources[i]);
	free(r->sources);
	if (r->epfd >= 0)
		close(r->epfd);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	if (r->high_fd >= 0)
		close(r->high_fd);
	shr_mutex_destroy(&r->lock);
	free(r);
}

int shr_reclaimer_create(struct shr_host *host, const struct shr_reclaimer_params *params,
			 struct shr_reclaimer **out)
{
	struct shr_reclaimer *r;
	int ret;

	if (!host || !params || !out || !params->pressure_shift ||
	    params->pressure_shift > SHR_PRESSURE_SHIFT_MAX)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->host = host;
	r->params = *params;
	shr_mutex_init(&r->lock, SHR_LOCK_RECLAIMER);
	atomic_init(&r->stop, false);
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->high_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->epfd < 0 || r->wake_fd < 0 || r->high_fd < 0) {
		ret = -errno;
		goto fail;
	}
	ret = watch_fd(r, r->wake_fd, EPOLLIN, &r->wake_fd);
	if (!ret)
		ret = watch_fd(r, r->high_fd, EPOLLIN, &r->high_fd);
	if (ret)
		goto fail;
	ret = shr_memcg_high_notify_install(host, r->high_fd);
	if (ret)
		goto fail;
	if (params->thread) {
		ret = -pthread_create(&r->thread, NULL, reclaimer_thread, r);
		if (ret) {
			shr_memcg_high_notify_remove(host);
			goto fail;
		}
		r->has_thread = true;
	}
	*out = r;
	return 0;
fail:
	reclaimer_free(r);
	return ret;
}

int shr_reclaimer_add_source(struct shr_reclaimer *r, struct shr_pressure *src)
{
	int ret;

	if (!r || !src)
		return -EINVAL;
	if (!r->has_thread && shr_pressure_kind(src) == SHR_PRESSURE_PSI)
		return -EOPNOTSUPP;
	shr_mutex_lock(&r->lock);
	if (r->nr_sources == r->cap_sources) {
		size_t cap = r->cap_sources ? r->cap_sources * 2 : 4;
		struct shr_pressure **n = realloc(r->sources, cap * sizeof(*n));

		if (!n) {
			shr_mutex_unlock(&r->lock);
			return -ENOMEM;
		}
		r->sources = n;
		r->cap_sources = cap;
	}
	/* In the array before the set: a wait may report it at once. */
	r->sources[r->nr_sources++] = src;
	ret = watch_fd(r, shr_pressure_fd(src), (uint32_t)shr_pressure_poll_events(src), src);
	if (ret)
		r->nr_sources--;
	r->stats.sources = r->nr_sources;
	shr_mutex_unlock(&r->lock);
	return ret;
}

int shr_reclaimer_wake(struct shr_reclaimer *r)
{
	static const uint64_t one = 1;
	ssize_t n;

	if (!r)
		return -EINVAL;
	n = write(r->wake_fd, &one, sizeof(one));
	/* EAGAIN: the count is full, the reclaimer has a wake pending. */
	(void)n;
	return 0;
}

int shr_reclaimer_fd(const struct shr_reclaimer *r)
{
	if (!r)
		return -EINVAL;
	return r->has_thread ? -EBUSY : r->epfd;
}

int shr_reclaimer_dispatch(struct shr_reclaimer *r, int timeout_ms,
			   struct shr_reclaim_report *report)
{
	if (!r)
		return -EINVAL;
	if (r->has_thread)
		return -EBUSY;
	if (report)
		memset(report, 0, sizeof(*report));
	return dispatch(r, timeout_ms, report);
}

int shr_reclaimer_reclaim(struct shr_reclaimer *r, unsigned long bytes,
			  struct shr_reclaim_report *report)
{
	if (!r)
		return -EINVAL;
	shr_mutex_lock(&r->lock);
	r->stats.wakes_explicit++;
	shr_mutex_unlock(&r->lock);
	return run_round(r, SHR_RECLAIM_EXPLICIT, 0, bytes, now_ns(), report);
}

int shr_reclaimer_get_stats(struct shr_reclaimer *r, struct shr_reclaimer_stats *out)
{
	if (!r || !out)
		return -EINVAL;
	shr_mutex_lock(&r->lock);
	*out = r->stats;
	shr_mutex_unlock(&r->lock);
	return 0;
}

void shr_reclaimer_destroy(struct shr_reclaimer *r)
{
	if (!r)
		return;
	if (r->has_thread) {
		atomic_store_explicit(&r->stop, true, memory_order_release);
		shr_reclaimer_wake(r);
		pthread_join(r->thread, NULL);
	}
	/* No charger writes high_fd after this. */
	shr_memcg_high_notify_remove(r->host);
	reclaimer_free(r);
}
