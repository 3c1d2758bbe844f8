/* SPDX-License-Identifier: MIT */
/*
 * Hierarchical byte counters (the kernel's mm/page_counter.c, in bytes):
 * what a memory cgroup and its descendants hold, its high boundary and its
 * peak. The design comment is in page_counter.c.
 */
#ifndef SHR_PAGE_COUNTER_H
#define SHR_PAGE_COUNTER_H

#include <stdatomic.h>
#include <stdbool.h>

/*
 * struct shr_page_counter - one level of the hierarchy.
 * @usage:     bytes charged here and below. Sync: atomic.
 * @high:      the high boundary (memory.high); SHR_PAGE_COUNTER_MAX means
 *             none. Sync: atomic (a plain store by the setter).
 * @watermark: the highest @usage a charge left (memory.peak). Sync: atomic
 *             maximum (compare-exchange).
 * @parent:    the level above, NULL for the top. Sync: immutable.
 */
struct shr_page_counter {
	atomic_long usage;
	atomic_long high;
	atomic_long watermark;
	struct shr_page_counter *parent;
};

void shr_page_counter_init(struct shr_page_counter *counter, struct shr_page_counter *parent);
/* Charge @nr bytes (1..SHR_PAGE_COUNTER_MAX) to @counter and every level
 * above it; false (nothing charged) when a level would pass
 * SHR_PAGE_COUNTER_MAX. */
bool shr_page_counter_try_charge(struct shr_page_counter *counter, long nr);
/* Uncharge @nr bytes (> 0) from @counter and above; false (nothing done)
 * when @counter holds fewer than @nr. */
bool shr_page_counter_uncharge(struct shr_page_counter *counter, long nr);
/* Usage, high and watermark as unsigned values (a transient negative
 * usage, see page_counter.c, reads as 0). */
unsigned long shr_page_counter_read(struct shr_page_counter *counter);
unsigned long shr_page_counter_high(struct shr_page_counter *counter);
unsigned long shr_page_counter_watermark(struct shr_page_counter *counter);
void shr_page_counter_set_high(struct shr_page_counter *counter, long high);
/* Whether @counter's usage is above its high. */
bool shr_page_counter_over_high(struct shr_page_counter *counter);

#endif /* SHR_PAGE_COUNTER_H */
