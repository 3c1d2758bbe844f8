/* SPDX-License-Identifier: MIT */
/*
 * Race points inside the library (the public side is <shrinker/race.h>).
 *
 * shr_race_point(SHR_RACE_x) marks a window another thread's interleaving
 * matters in; it compiles to nothing unless SHR_DEBUG_CHECKS is set.
 * shr_race_spin_enter()/exit() bracket every spinning lock the library
 * holds (list_lru list locks, array-ondemand's install lock), so that a
 * point reached inside one busy-waits instead of sleeping: a sleeping
 * holder would let the threads spinning on that lock eat both CPUs.
 */
#ifndef SHR_RACE_INTERNAL_H
#define SHR_RACE_INTERNAL_H

#include <shrinker/race.h>

#include "debug.h"

#if SHR_DEBUG_CHECKS
/* Count the hit; run the hook; maybe delay. Context: any thread. */
void shr_race_hit(enum shr_race_point p);
/* The calling thread took / dropped a spinning lock. */
void shr_race_spin_enter(void);
void shr_race_spin_exit(void);
#define shr_race_point(p) shr_race_hit(p)
#else
#define shr_race_point(p) ((void)0)
static inline void shr_race_spin_enter(void)
{
}

static inline void shr_race_spin_exit(void)
{
}
#endif

#endif /* SHR_RACE_INTERNAL_H */
