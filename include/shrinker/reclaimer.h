/* SPDX-License-Identifier: MIT */
/*
 * The reclaimer: what kswapd and memory.high are to the kernel, for one
 * host of the process. On an event it reclaims from the host's tenants
 * through their shrinkers, with the kernel's priority escalation, until
 * the byte targets are met:
 *
 *   1. every tenant (non-root cgroup) over its own high
 *      (shr_mem_cgroup_set_high()), children before parents, is reclaimed
 *      alone down to its high, as the kernel's memory.high reclaims the
 *      cgroup that breached it: priority SHR_DEF_PRIORITY down to 0, its
 *      subtree at each priority, stopping as soon as it is under;
 *   2. then the host (the root cgroup): when its usage is over its high
 *      (the host's budget), or a pressure event or an explicit call asked
 *      for memory, every tenant's caches are scanned at one priority per
 *      pass, each in proportion to what it holds (the kernel's
 *      (objects >> priority) * 4 / seeks), as kswapd does: the priority is
 *      lowered after a pass that freed less than what was still missing,
 *      kept after one that freed enough but found more charged meanwhile,
 *      and the round stops as soon as the host is at its target.
 *
 * Events: a charge that leaves a cgroup over its high (an eventfd the
 * library writes), the pressure sources given to the reclaimer
 * (<shrinker/pressure.h>: each event asks for usage >> pressure_shift
 * bytes, plus what a memory.events source reports over the kernel
 * cgroup's memory.high), and shr_reclaimer_wake().
 *
 * Two ways to run it:
 *   - its own thread (params.thread): the thread waits for events and runs
 *     the rounds; the threads that use the caches never wait for it (a
 *     charge only notifies);
 *   - the program's loop: poll shr_reclaimer_fd() for POLLIN and call
 *     shr_reclaimer_dispatch(), or call shr_reclaimer_reclaim() when the
 *     program decides. Such a reclaimer takes no PSI source: the kernel
 *     hands a PSI event to the first poll of its fd, and a poll of the
 *     reclaimer's (epoll) fd polls the sources inside it, so the event
 *     would be consumed before dispatch could see it. The program polls a
 *     PSI source itself (<shrinker/pressure.h>) and calls
 *     shr_reclaimer_reclaim() when shr_pressure_check() reports pressure.
 *
 * Thread rules: shrinkers are called on the thread that runs the round
 * (the reclaimer's, or the caller of dispatch/reclaim), concurrently with
 * the threads that add and look up objects, as with any shr_shrink_slab();
 * the report and trim callbacks run there too, after the round. Rounds of
 * the thread and of shr_reclaimer_reclaim() may run at the same time (each
 * is a reclaimer of its own, as kswapd and direct reclaim are). No
 * callback of a round may call shr_reclaimer_destroy(); a shrinker called
 * by a round may not call shr_reclaimer_reclaim() (it would reclaim from
 * inside reclaim).
 */
#ifndef SHRINKER_RECLAIMER_H
#define SHRINKER_RECLAIMER_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;
struct shr_pressure;
struct shr_reclaimer;

/* Why a round ran (struct shr_reclaim_report's reasons). */
#define SHR_RECLAIM_HIGH (1u << 0)     /* a cgroup went over its high */
#define SHR_RECLAIM_PRESSURE (1u << 1) /* a pressure source fired */
#define SHR_RECLAIM_EXPLICIT (1u << 2) /* shr_reclaimer_wake() or _reclaim() */

/**
 * struct shr_reclaim_tenant - what a round freed from one cgroup's lists.
 * @memcg:         the cgroup (valid during the report callback only).
 * @ino:           its ino (shr_mem_cgroup_ino(): never reused).
 * @freed_bytes:   bytes uncharged while its lists were scanned.
 * @freed_objects: objects its shrinkers' scans freed.
 * @usage:         its usage after the round.
 */
struct shr_reclaim_tenant {
	struct shr_mem_cgroup *memcg;
	unsigned long ino;
	unsigned long freed_bytes;
	unsigned long freed_objects;
	unsigned long usage;
};

/**
 * struct shr_reclaim_report - one round.
 * @reasons:        SHR_RECLAIM_* bits.
 * @usage_before:   the host's usage (the root's) when the round started.
 * @usage_after:    ... when it ended.
 * @target:         the host's usage the round aimed at (its high, or lower
 *                  for pressure); @usage_before when it aimed at nothing
 *                  but tenants over their high.
 * @target_met:     every target was met (the tenants' and the host's).
 * @freed_bytes:    bytes uncharged by the round's thread while it ran.
 * @freed_objects:  objects the shrinkers freed.
 * @priority:       the lowest priority the round scanned at
 *                  (SHR_DEF_PRIORITY..0), or -1 if it scanned nothing.
 * @passes:         scan passes (one per tenant over its high and priority,
 *                  one per host pass).
 * @sources:        for SHR_RECLAIM_PRESSURE, the kinds of the sources that
 *                  fired: bit (1 << enum shr_pressure_kind) each.
 * @woken_ns:       CLOCK_MONOTONIC when the event was seen (the wait
 *                  returned, or the explicit call was made).
 * @first_freed_ns: ... when the first byte was freed (0 if none was).
 * @done_ns:        ... when the reclaim ended (before trimming).
 * @trimmed_ns:     ... when the trim (malloc_trim, the hook) ended: the
 *                  freed memory is back with the kernel; @done_ns when the
 *                  round did not trim.
 * @cpu_ns:         CPU time the round's thread spent in it, trim included
 *                  (CLOCK_THREAD_CPUTIME_ID): what reclaim cost; far less
 *                  than @trimmed_ns - @woken_ns means the thread waited.
 * @nr_tenants:     entries of @tenants: every cgroup something was freed
 *                  from, in the order first freed from.
 * @tenants:        in the report callback; NULL in the copy
 *                  shr_reclaimer_reclaim() and shr_reclaimer_dispatch()
 *                  return.
 */
struct shr_reclaim_report {
	unsigned int reasons;
	unsigned long usage_before;
	unsigned long usage_after;
	unsigned long target;
	bool target_met;
	unsigned long freed_bytes;
	unsigned long freed_objects;
	int priority;
	unsigned int passes;
	unsigned int sources;
	uint64_t woken_ns;
	uint64_t first_freed_ns;
	uint64_t done_ns;
	uint64_t trimmed_ns;
	uint64_t cpu_ns;
	size_t nr_tenants;
	const struct shr_reclaim_tenant *tenants;
};

/**
 * struct shr_reclaimer_params - start from shr_reclaimer_params_init().
 * @thread:         run the reclaimer's own thread.
 * @pressure_shift: a pressure event or an explicit wake asks for the host's
 *                  usage >> @pressure_shift bytes (1..16; default 3, an
 *                  eighth, between CacheLib's 5% per round and a quarter).
 * @malloc_trim:    after a round that freed something, call glibc's
 *                  malloc_trim(0), which gives freed heap pages back to the
 *                  kernel (freeing objects alone lowers no RSS or
 *                  memory.current); ignored where the C library has none.
 * @trim:           if not NULL, called after such a round (after
 *                  malloc_trim), for another allocator's purge: jemalloc's
 *                  "arena.<i>.purge" mallctl, mimalloc's mi_collect(true).
 * @trim_arg:       its argument.
 * @report:         if not NULL, called with every round's report (tenants
 *                  included), on the thread that ran it.
 * @report_arg:     its argument.
 */
struct shr_reclaimer_params {
	bool thread;
	unsigned int pressure_shift;
	bool malloc_trim;
	void (*trim)(void *arg);
	void *trim_arg;
	void (*report)(const struct shr_reclaim_report *report, void *arg);
	void *report_arg;
};

/**
 * shr_reclaimer_params_init() - the defaults: no thread, shift 3, no trim or
 * report.
 * @params: filled in.
 *
 * Context: Any.
 */
SHR_API void shr_reclaimer_params_init(struct shr_reclaimer_params *params);

/**
 * shr_reclaimer_create() - a reclaimer for @host (one per host).
 * @host:   the host.
 * @params: the parameters (shr_reclaimer_params_init(), then changed).
 * @out:    receives the reclaimer.
 *
 * From now on a charge that leaves a cgroup of @host over its high wakes
 * it. With @params->thread, its thread starts now.
 *
 * Context: Registered thread.
 * Return: 0; -EINVAL (NULL, a shift out of range); -EBUSY (@host has a
 *         reclaimer); -ENOMEM; -errno of eventfd, epoll or
 *         pthread_create. Nothing is left behind on error.
 */
SHR_API SHR_MUST_CHECK int shr_reclaimer_create(struct shr_host *host,
						const struct shr_reclaimer_params *params,
						struct shr_reclaimer **out);

/**
 * shr_reclaimer_add_source() - watch @src; the reclaimer owns it from now
 * on (it closes it at destroy, or when the source reports it is gone).
 * @reclaimer: the reclaimer.
 * @src:       the source; the reclaimer owns it from now on.
 *
 * Context: Any registered thread, also while the thread waits.
 * Return: 0; -EINVAL (NULL); -EOPNOTSUPP (a PSI source given to a
 *         reclaimer without its thread, see above); -ENOMEM or -errno of
 *         epoll_ctl (@src stays the caller's in every error case).
 */
SHR_API SHR_MUST_CHECK int shr_reclaimer_add_source(struct shr_reclaimer *reclaimer,
						    struct shr_pressure *src);

/**
 * shr_reclaimer_wake() - ask for a round, as a pressure event does (the
 * explicit signal of a program that has its own: a message from its
 * supervisor, a failed allocation). Async-signal-safe; never waits.
 * @reclaimer: the reclaimer.
 * Context: Any thread, also a signal handler.
 * Return: 0, -EINVAL (NULL).
 */
SHR_API int shr_reclaimer_wake(struct shr_reclaimer *reclaimer);

/**
 * shr_reclaimer_fd() - for a program's own loop: an fd that polls POLLIN
 * when the reclaimer has events (its epoll set); then call
 * shr_reclaimer_dispatch().
 * @reclaimer: the reclaimer.
 * Context: Any.
 * Return: the fd, -EINVAL (NULL), -EBUSY (the reclaimer has its thread,
 *         which takes the events).
 */
SHR_API int shr_reclaimer_fd(const struct shr_reclaimer *reclaimer);

/**
 * shr_reclaimer_dispatch() - wait up to @timeout_ms (0: do not wait, -1:
 * forever) for events, handle them, and run a round if any asked for one.
 * @reclaimer:  the reclaimer.
 * @timeout_ms: milliseconds to wait (0: do not wait, -1: forever).
 * @report:     receives the round's report (tenants NULL); may be NULL.
 *
 * Context: Registered thread; one thread at a time; not for a reclaimer
 *          with its own thread.
 * Return: 1 (a round ran), 0 (no event), -EINVAL (NULL), -EBUSY (it has a
 *         thread), -errno of epoll_wait.
 */
SHR_API int shr_reclaimer_dispatch(struct shr_reclaimer *reclaimer, int timeout_ms,
				   struct shr_reclaim_report *report);

/**
 * shr_reclaimer_reclaim() - run a round now, in the calling thread.
 * @reclaimer: the reclaimer.
 * @bytes:     what the host should give back: the round aims at its usage
 *             minus @bytes, or at its high if that is lower; 0 for the
 *             pressure share (usage >> pressure_shift).
 * @report:    receives the report (tenants NULL); may be NULL.
 *
 * Context: Registered thread; not from a shrinker a round calls. Blocks
 *          for the round.
 * Return: 0 (targets met), -EAGAIN (priority 0 done, a target not met),
 *         -EINVAL (NULL).
 */
SHR_API int shr_reclaimer_reclaim(struct shr_reclaimer *reclaimer, unsigned long bytes,
				  struct shr_reclaim_report *report);

/**
 * struct shr_reclaimer_stats - since create.
 * @rounds:          rounds run.
 * @wakes_high:      rounds asked for by a cgroup over its high.
 * @wakes_pressure:  pressure events of the sources, of every kind:
 * @wakes_psi:       ... of SHR_PRESSURE_PSI sources,
 * @wakes_stream:    ... of SHR_PRESSURE_STREAM sources,
 * @wakes_memory_events: ... of SHR_PRESSURE_MEMORY_EVENTS and
 *                   SHR_PRESSURE_VMPRESSURE sources (a cgroup's own events).
 * @wakes_explicit:  shr_reclaimer_wake() and shr_reclaimer_reclaim() calls.
 * @sources:         sources watched now.
 * @sources_gone:    sources dropped because they reported being gone.
 * @targets_missed:  rounds that ended at priority 0 with a target not met.
 * @freed_bytes:     bytes the rounds freed.
 * @freed_objects:   objects the rounds freed.
 * @trims:           trim calls (malloc_trim or the hook).
 */
struct shr_reclaimer_stats {
	unsigned long rounds;
	unsigned long wakes_high;
	unsigned long wakes_pressure;
	unsigned long wakes_psi;
	unsigned long wakes_stream;
	unsigned long wakes_memory_events;
	unsigned long wakes_explicit;
	unsigned long sources;
	unsigned long sources_gone;
	unsigned long targets_missed;
	unsigned long freed_bytes;
	unsigned long freed_objects;
	unsigned long trims;
};

/**
 * shr_reclaimer_get_stats() - read the counters.
 * @reclaimer: the reclaimer.
 * @out:       receives the counters.
 *
 * Context: Any thread.
 * Return: 0, -EINVAL (NULL).
 */
SHR_API int shr_reclaimer_get_stats(struct shr_reclaimer *reclaimer,
				    struct shr_reclaimer_stats *out);

/**
 * shr_reclaimer_destroy() - stop the thread (waiting for its round to
 * end), close the sources, and stop charges from notifying. NULL is a
 * no-op.
 * @reclaimer: the reclaimer.
 *
 * Context: Registered thread, not a callback of a round, not inside an
 *          RCU read-side section; no other thread uses @reclaimer. Blocks.
 */
SHR_API void shr_reclaimer_destroy(struct shr_reclaimer *reclaimer);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_RECLAIMER_H */
