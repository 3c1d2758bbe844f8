/* SPDX-License-Identifier: MIT */
/*
 * The tests' fake shrinker: one struct, three ways to hold objects, and a
 * record of every call, so that a test states what its shrinker holds and
 * reads what reclaim asked of it instead of writing count/scan callbacks of
 * its own.
 *
 *   FAKE_FIXED    count answers a fixed value (or a script of values, or a
 *                 per-call function); scan frees nr_to_scan (or a fixed
 *                 value) and consumes nothing: do_shrink_slab()'s arithmetic.
 *   FAKE_OBJECTS  objects are counters per (cgroup ino, node): count
 *                 reports them (SHRINK_EMPTY at 0, or 0 with
 *                 zero_means_zero), scan takes up to nr_to_scan of them.
 *   FAKE_LRU      objects are the test's items on a list_lru bound to the
 *                 shrinker (fake_bind_lru()); count is the list_lru's shrink
 *                 count, scan walks it and isolates what it frees.
 *
 * Every mode records the calls (counts, scans, nr_to_scan of each scan,
 * count calls per cgroup ino, the last node and cgroup seen), and the scan
 * knobs (scan_ret, report, zero_first, stop_at) apply to FAKE_FIXED. The
 * callbacks take the fake's lock, so several reclaim threads may call one
 * fake; a test reads the record after its threads are joined (the per-ino
 * counters are atomic and may be read at any time).
 *
 * Public API only: any test may link it (tests/meson.build: support_dep).
 */
#ifndef SHR_TEST_FAKE_SHRINKER_H
#define SHR_TEST_FAKE_SHRINKER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#define FAKE_MAX_CALLS 64
#define FAKE_MAX_INO 256
#define FAKE_MAX_NODES 4

enum fake_mode { FAKE_FIXED, FAKE_OBJECTS, FAKE_LRU };

struct fake {
	enum fake_mode mode;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *lru;      /* FAKE_LRU */
	/* FAKE_FIXED: what count answers. */
	unsigned long count;           /* once the script is done */
	const unsigned long *script;   /* for the first calls */
	size_t script_len;
	unsigned long (*count_fn)(struct fake *f, struct shr_shrink_control *sc);
	/* FAKE_FIXED: what scan does. */
	long scan_ret;                 /* < 0: return nr_to_scan */
	long report;                   /* < 0: leave nr_scanned as preset */
	size_t zero_first;             /* report nr_scanned = 0 for the first N calls */
	size_t stop_at;                /* 1-based scan call returning STOP; 0 = never */
	/* FAKE_OBJECTS: the objects, and how an empty slot counts. */
	long objects[FAKE_MAX_INO][FAKE_MAX_NODES];
	bool zero_means_zero;          /* count 0 (keeps the bit) instead of SHRINK_EMPTY */
	int empty_first_counts;        /* count SHRINK_EMPTY this many times first */
	/* The record. */
	size_t count_calls, scan_calls;
	unsigned long scan_nr[FAKE_MAX_CALLS];
	atomic_int count_calls_of[FAKE_MAX_INO];
	int last_nid;
	unsigned long last_ino;
	struct shr_mem_cgroup *last_memcg;
	int last_scan_nid;
	struct shr_mem_cgroup *last_scan_memcg;
	pthread_mutex_t lock;
};

/* A FAKE_FIXED fake whose count answers @count. */
void fake_init(struct fake *f, unsigned long count);
/* A FAKE_OBJECTS fake with no objects. */
void fake_init_objects(struct fake *f);
/* A FAKE_LRU fake (bind the list_lru with fake_bind_lru() after fake_make()). */
void fake_init_lru(struct fake *f);

/* Allocate a shrinker driven by @f, registered if @reg; fails the test if
 * the library refuses. */
struct shr_shrinker *fake_make(struct shr_host *host, struct fake *f, unsigned int flags,
			       const char *name, bool reg);
/* FAKE_LRU: a list_lru bound to @f's shrinker (call before it registers). */
void fake_bind_lru(struct shr_host *host, struct fake *f);
/* Free @f's shrinker, then unlink every item left on its list_lru (the
 * items are the test's) and destroy it. @f itself is the caller's. */
void fake_free(struct fake *f);

/* A heap fake of @mode, made by fake_make() (FAKE_LRU: and bound), and its
 * undoing (fake_free(), then the memory). */
struct fake *fake_new(struct shr_host *host, enum fake_mode mode, unsigned int flags,
		      const char *name, bool reg);
void fake_delete(struct fake *f);
/* A heap FAKE_OBJECTS fake named "objects"; @zero_means_zero as the field. */
struct fake *fake_new_objects(struct shr_host *host, unsigned int flags, bool reg,
			      bool zero_means_zero);

/* Objects of FAKE_OBJECTS @f in (@memcg, @nid), under its lock. */
long fake_objects(struct fake *f, struct shr_mem_cgroup *memcg, int nid);
void fake_set_objects(struct fake *f, struct shr_mem_cgroup *memcg, int nid, long n);

/* The isolate callback of FAKE_LRU scans: takes every item it is shown. */
enum shr_lru_status fake_isolate_remove(struct shr_list_head *item,
					struct shr_list_lru_one *list, void *arg);

#endif /* SHR_TEST_FAKE_SHRINKER_H */
