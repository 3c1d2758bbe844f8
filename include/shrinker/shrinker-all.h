/* SPDX-License-Identifier: MIT */
/*
 * Every public header of libshrinker, for programs that want one include:
 *
 *   #include <shrinker/shrinker-all.h>
 *
 * It declares nothing of its own. The headers it includes are the ones
 * installed under <includedir>/shrinker/ (include/meson.build lists them);
 * the test umbrella_header (tests/api/meson.build) fails when one is
 * missing here, and compiles a C11 and a C++ translation unit that include
 * only this header and use a function of each one.
 */
#ifndef SHRINKER_SHRINKER_ALL_H
#define SHRINKER_SHRINKER_ALL_H

#include <shrinker/common.h>
#include <shrinker/host.h>
#include <shrinker/idr.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/pressure.h>
#include <shrinker/race.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/reclaimer.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>
#include <shrinker/xarray.h>

#endif /* SHRINKER_SHRINKER_ALL_H */
