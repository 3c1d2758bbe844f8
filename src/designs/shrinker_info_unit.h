/* SPDX-License-Identifier: MIT */
/*
 * The 520-byte unit that every design but flat keeps its bits and deferred
 * counters in (the kernel's shrinker_info_unit): 64 deferred counters and
 * one map word, from the host's unit cache (seed 003's dedicated cache) or
 * from kmalloc (kmalloc-1k, mainline).
 */
#ifndef SHR_SHRINKER_INFO_UNIT_H
#define SHR_SHRINKER_INFO_UNIT_H

#include <stdatomic.h>

#include "host_state.h"
#include "race.h"

/* Ids per unit and granularity of shrinker_nr_max (SHRINKER_UNIT_BITS). */
#define SHR_UNIT_BITS 64

/* The 520-byte unit: 64 deferred counters then the map word. */
struct shr_info_unit {
	atomic_long nr_deferred[SHR_UNIT_BITS];
	atomic_ulong map;
};

/* Allocate a zeroed unit on @nid from the host's unit source; NULL on failure. */
struct shr_info_unit *shr_info_unit_alloc(struct shr_host *host, int nid, shr_gfp_t gfp);
void shr_info_unit_free(struct shr_host *host, struct shr_info_unit *unit);
/* Slot bytes one unit really takes. */
size_t shr_info_unit_bytes(struct shr_host *host);
/* Unit cache creation/destruction for designs with units. */
int shr_info_units_init(struct shr_host *host);
void shr_info_units_exit(struct shr_host *host);

/* set_shrinker_bit()'s barrier + atomic or; pairs with the full barrier in
 * shrink_slab_memcg() between clear_bit and the second count. */
static inline void shr_info_unit_set_bit(struct shr_info_unit *unit, int offset)
{
	shr_race_point(SHR_RACE_SET_BIT_A);
	atomic_thread_fence(memory_order_seq_cst);
	atomic_fetch_or_explicit(&unit->map, 1UL << offset, memory_order_relaxed);
}

/*
 * The first position >= @pos set in @map, the map word that holds
 * positions [@index * SHR_UNIT_BITS, (@index + 1) * SHR_UNIT_BITS) (a
 * unit's map, or word @index of flat's bitmap), or -1 when none is.
 * Positions are ids or slots, as the caller's map holds them.
 */
static inline int shr_unit_first_bit(unsigned long map, unsigned long index, int pos)
{
	if (index == (unsigned long)pos / SHR_UNIT_BITS)
		map &= ~0UL << (pos % SHR_UNIT_BITS);
	return map ? (int)(index * SHR_UNIT_BITS) + __builtin_ctzl(map) : -1;
}

#endif /* SHR_SHRINKER_INFO_UNIT_H */
