/* SPDX-License-Identifier: MIT */
/*
 * A scriptable fake shrinker for the reclaim and debugfs tests: count
 * returns a fixed value (or a script, or a per-call function), scan records
 * each call and returns nr_to_scan (or a fixed value), optionally
 * misreporting nr_scanned or returning SHRINK_STOP at a given call.
 */
#ifndef SHR_TEST_RECLAIM_FAKE_H
#define SHR_TEST_RECLAIM_FAKE_H

#include <string.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>

#include "harness.h"

#define FAKE_MAX_CALLS 4096

struct fake {
	unsigned long count;           /* count result once the script is done */
	const unsigned long *script;   /* count results for the first calls */
	size_t script_len;
	unsigned long (*count_fn)(struct fake *f, struct shr_shrink_control *sc);
	long scan_ret;                 /* < 0: return nr_to_scan */
	long report;                   /* < 0: leave nr_scanned as preset */
	size_t zero_first;             /* report nr_scanned = 0 for the first N calls */
	size_t stop_at;                /* 1-based scan call returning STOP; 0 = never */
	size_t count_calls, scan_calls;
	unsigned long scan_nr[FAKE_MAX_CALLS];
	int last_nid;
	struct shr_mem_cgroup *last_memcg;
	int last_scan_nid;
	struct shr_mem_cgroup *last_scan_memcg;
	struct shr_shrinker *shrinker;
};

static inline unsigned long fake_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fake *f = s->private_data;
	size_t i = f->count_calls++;

	f->last_nid = sc->nid;
	f->last_memcg = sc->memcg;
	if (f->count_fn)
		return f->count_fn(f, sc);
	return i < f->script_len ? f->script[i] : f->count;
}

static inline unsigned long fake_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fake *f = s->private_data;
	size_t i = f->scan_calls++;
	unsigned long nr = sc->nr_to_scan;

	if (i < FAKE_MAX_CALLS)
		f->scan_nr[i] = nr;
	f->last_scan_nid = sc->nid;
	f->last_scan_memcg = sc->memcg;
	if (f->stop_at && i + 1 == f->stop_at)
		return SHR_SHRINK_STOP;
	if (i < f->zero_first)
		sc->nr_scanned = 0;
	else if (f->report >= 0)
		sc->nr_scanned = (unsigned long)f->report;
	return f->scan_ret >= 0 ? (unsigned long)f->scan_ret : nr;
}

static inline void fake_init(struct fake *f, unsigned long count)
{
	memset(f, 0, sizeof(*f));
	f->count = count;
	f->scan_ret = -1;
	f->report = -1;
	f->last_nid = -1;
	f->last_scan_nid = -1;
}

/* Allocate (and register if @reg) a shrinker driven by @f. */
static inline struct shr_shrinker *fake_make(struct shr_host *host, struct fake *f,
					     unsigned int flags, const char *name, bool reg)
{
	struct shr_shrinker *s = NULL;

	assert_int_equal(shr_shrinker_alloc(host, flags, name, &s), 0);
	s->count_objects = fake_count;
	s->scan_objects = fake_scan;
	s->private_data = f;
	f->shrinker = s;
	if (reg)
		assert_int_equal(shr_shrinker_register(s), 0);
	return s;
}

static inline struct shr_host *fake_host(int nr_nodes, bool kmem)
{
	struct shr_host_params p;
	struct shr_host *host = NULL;

	shr_host_params_init(&p);
	p.nr_nodes = nr_nodes;
	p.kmem = kmem;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

#endif /* SHR_TEST_RECLAIM_FAKE_H */
