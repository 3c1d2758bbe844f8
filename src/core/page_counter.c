/* SPDX-License-Identifier: MIT */
/*
 * Hierarchical byte counters: the kernel's page_counter (mm/page_counter.c)
 * counting bytes instead of pages, with one max: SHR_PAGE_COUNTER_MAX, what
 * a signed long holds (the library's budgets are high boundaries only: a
 * charge within the max always succeeds, and reclaim brings usage back
 * under high afterwards). A charge that would take a level past it is
 * refused whole, as page_counter_try_charge() refuses one past a counter's
 * max: the sum of two valid charges never wraps.
 *
 * Invariants
 *  - A counter's usage is the sum of the charges made to it and to every
 *    counter below it, minus their uncharges, once every charge and
 *    uncharge in flight has finished.
 *  - Under the contract of shr_mem_cgroup_uncharge() (an uncharge returns
 *    bytes a finished charge of the same cgroup put there) no level goes
 *    below zero. An uncharge that asks for more than its own level holds is
 *    refused before anything changes (compare-exchange on that level).
 *    Levels above may lag: a charge adds bottom-up, one level at a time, so
 *    a reader can see a child's new usage before the parent's; readers clamp
 *    a transient negative to 0, as the kernel's readers never see one only
 *    because its callers uncharge nothing they did not charge first.
 *  - 0 <= usage <= SHR_PAGE_COUNTER_MAX at every level once charges in
 *    flight have finished: each level's add is a compare-exchange that
 *    refuses to pass the max, and a refused charge takes back what it had
 *    added below (a reader may see that transient usage, as a reader of
 *    the kernel's counters may).
 *  - watermark >= every usage a charge left at that level (a maximum kept
 *    with compare-exchange, so a racing smaller value never replaces it).
 *
 * Ordering: all operations are relaxed atomics. The counters order nothing
 * else; what a reader does with a value (the reclaimer's stop test) is a
 * heuristic that re-reads, like the kernel's page_counter_read() callers.
 */
#include <shrinker/memcg.h>

#include "page_counter.h"

void shr_page_counter_init(struct shr_page_counter *counter, struct shr_page_counter *parent)
{
	atomic_init(&counter->usage, 0);
	atomic_init(&counter->high, (long)SHR_PAGE_COUNTER_MAX);
	atomic_init(&counter->watermark, 0);
	counter->parent = parent;
}

/* Raise @counter's watermark to @usage if it is below. Context: Any. */
static void propagate_watermark(struct shr_page_counter *counter, long usage)
{
	long old = atomic_load_explicit(&counter->watermark, memory_order_relaxed);

	while (usage > old && !atomic_compare_exchange_weak_explicit(&counter->watermark, &old, usage,
								     memory_order_relaxed,
								     memory_order_relaxed))
		;
}

/*
 * Add @nr to @c's usage unless that would take it past
 * SHR_PAGE_COUNTER_MAX. Return: the new usage, or -1 (nothing changed).
 */
static long level_try_add(struct shr_page_counter *c, long nr)
{
	long old = atomic_load_explicit(&c->usage, memory_order_relaxed);

	do {
		if (old > (long)SHR_PAGE_COUNTER_MAX - nr)
			return -1;
	} while (!atomic_compare_exchange_weak_explicit(&c->usage, &old, old + nr,
							memory_order_relaxed, memory_order_relaxed));
	return old + nr;
}

bool shr_page_counter_try_charge(struct shr_page_counter *counter, long nr)
{
	struct shr_page_counter *c;

	for (c = counter; c; c = c->parent) {
		long usage = level_try_add(c, nr);

		if (usage < 0)
			break;
		propagate_watermark(c, usage);
	}
	if (!c)
		return true;
	/* Undo the levels below the one that refused (their watermark may
	 * keep the transient usage: the kernel's try_charge leaves it too). */
	for (struct shr_page_counter *u = counter; u != c; u = u->parent)
		atomic_fetch_sub_explicit(&u->usage, nr, memory_order_relaxed);
	return false;
}

bool shr_page_counter_uncharge(struct shr_page_counter *counter, long nr)
{
	long old = atomic_load_explicit(&counter->usage, memory_order_relaxed);

	do {
		if (old < nr)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&counter->usage, &old, old - nr,
							memory_order_relaxed, memory_order_relaxed));
	for (struct shr_page_counter *c = counter->parent; c; c = c->parent)
		atomic_fetch_sub_explicit(&c->usage, nr, memory_order_relaxed);
	return true;
}

unsigned long shr_page_counter_read(struct shr_page_counter *counter)
{
	long usage = atomic_load_explicit(&counter->usage, memory_order_relaxed);

	return usage > 0 ? (unsigned long)usage : 0;
}

unsigned long shr_page_counter_high(struct shr_page_counter *counter)
{
	return (unsigned long)atomic_load_explicit(&counter->high, memory_order_relaxed);
}

unsigned long shr_page_counter_watermark(struct shr_page_counter *counter)
{
	return (unsigned long)atomic_load_explicit(&counter->watermark, memory_order_relaxed);
}

void shr_page_counter_set_high(struct shr_page_counter *counter, long high)
{
	atomic_store_explicit(&counter->high, high, memory_order_relaxed);
}

bool shr_page_counter_over_high(struct shr_page_counter *counter)
{
	return atomic_load_explicit(&counter->usage, memory_order_relaxed) >
	       atomic_load_explicit(&counter->high, memory_order_relaxed);
}
