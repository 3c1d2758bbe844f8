/* SPDX-License-Identifier: MIT */
/*
 * The tests' fake shrinker (fake_shrinker.h says what each mode does).
 *
 * Locking: count and scan run under f->lock, except a count_fn, which is
 * the test's and may call into the library; the record is read by the test
 * after its reclaim threads are done.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_shrinker.h"
#include "harness.h"

static void fake_reset(struct fake *f, enum fake_mode mode)
{
	memset(f, 0, sizeof(*f));
	f->mode = mode;
	f->scan_ret = -1;
	f->report = -1;
	f->last_nid = -1;
	f->last_scan_nid = -1;
	f->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
}

void fake_init(struct fake *f, unsigned long count)
{
	fake_reset(f, FAKE_FIXED);
	f->count = count;
}

void fake_init_objects(struct fake *f)
{
	fake_reset(f, FAKE_OBJECTS);
}

void fake_init_lru(struct fake *f)
{
	fake_reset(f, FAKE_LRU);
}

/* The (ino, node) slot of @sc; a test that outgrows the table is a bug. */
static long *slot_of(struct fake *f, struct shr_mem_cgroup *memcg, int nid)
{
	unsigned long ino = shr_mem_cgroup_ino(memcg);

	if (ino >= FAKE_MAX_INO || nid < 0 || nid >= FAKE_MAX_NODES) {
		fprintf(stderr, "fake_shrinker: cgroup ino %lu node %d outside %dx%d\n", ino, nid,
			FAKE_MAX_INO, FAKE_MAX_NODES);
		abort();
	}
	return &f->objects[ino][nid];
}

enum shr_lru_status fake_isolate_remove(struct shr_list_head *item,
					struct shr_list_lru_one *list, void *arg)
{
	(void)arg;
	shr_list_lru_isolate(list, item);
	return SHR_LRU_REMOVED;
}

/* What count answers in @f's mode. Context: f->lock held. */
static unsigned long count_locked(struct fake *f, struct shr_shrink_control *sc, size_t call)
{
	unsigned long n;

	switch (f->mode) {
	case FAKE_FIXED:
		return call < f->script_len ? f->script[call] : f->count;
	case FAKE_OBJECTS:
		n = (unsigned long)*slot_of(f, sc->memcg, sc->nid);
		if (f->empty_first_counts > 0) {
			f->empty_first_counts--;
			n = 0;
		}
		return n ? n : f->zero_means_zero ? 0 : SHR_SHRINK_EMPTY;
	case FAKE_LRU:
		n = shr_list_lru_shrink_count(f->lru, sc);
		return n ? n : SHR_SHRINK_EMPTY;
	}
	return 0;
}

static unsigned long fake_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fake *f = s->private_data;
	unsigned long ino = shr_mem_cgroup_ino(sc->memcg);
	unsigned long ret;
	size_t call;

	if (ino < FAKE_MAX_INO)
		atomic_fetch_add(&f->count_calls_of[ino], 1);
	pthread_mutex_lock(&f->lock);
	call = f->count_calls++;
	f->last_nid = sc->nid;
	f->last_ino = ino;
	f->last_memcg = sc->memcg;
	if (f->mode == FAKE_FIXED && f->count_fn) {
		pthread_mutex_unlock(&f->lock);
		return f->count_fn(f, sc);
	}
	ret = count_locked(f, sc, call);
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/* FAKE_FIXED's scan: the knobs, nothing consumed. Context: f->lock held. */
static unsigned long scan_fixed(struct fake *f, struct shr_shrink_control *sc, size_t call)
{
	if (f->stop_at && call + 1 == f->stop_at)
		return SHR_SHRINK_STOP;
	if (call < f->zero_first)
		sc->nr_scanned = 0;
	else if (f->report >= 0)
		sc->nr_scanned = (unsigned long)f->report;
	return f->scan_ret >= 0 ? (unsigned long)f->scan_ret : sc->nr_to_scan;
}

static unsigned long fake_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct fake *f = s->private_data;
	unsigned long ret = 0;
	long *slot;
	size_t call;

	pthread_mutex_lock(&f->lock);
	call = f->scan_calls++;
	if (call < FAKE_MAX_CALLS)
		f->scan_nr[call] = sc->nr_to_scan;
	f->last_scan_nid = sc->nid;
	f->last_scan_memcg = sc->memcg;
	switch (f->mode) {
	case FAKE_FIXED:
		ret = scan_fixed(f, sc, call);
		break;
	case FAKE_OBJECTS:
		slot = slot_of(f, sc->memcg, sc->nid);
		ret = (unsigned long)*slot < sc->nr_to_scan ? (unsigned long)*slot : sc->nr_to_scan;
		*slot -= (long)ret;
		break;
	case FAKE_LRU:
		ret = shr_list_lru_shrink_walk(f->lru, sc, fake_isolate_remove, NULL);
		break;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

struct shr_shrinker *fake_make(struct shr_host *host, struct fake *f, unsigned int flags,
			       const char *name, bool reg)
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

void fake_bind_lru(struct shr_host *host, struct fake *f)
{
	assert_int_equal(f->mode, FAKE_LRU);
	assert_int_equal(shr_list_lru_init_memcg(host, f->shrinker, &f->lru), 0);
}

void fake_free(struct fake *f)
{
	shr_shrinker_free(f->shrinker);
	f->shrinker = NULL;
	if (!f->lru)
		return;
	while (shr_list_lru_count(f->lru))
		shr_list_lru_walk(f->lru, fake_isolate_remove, NULL, ~0UL);
	assert_int_equal(shr_list_lru_destroy(f->lru), 0);
	f->lru = NULL;
}

struct fake *fake_new(struct shr_host *host, enum fake_mode mode, unsigned int flags,
		      const char *name, bool reg)
{
	struct fake *f = malloc(sizeof(*f));

	assert_non_null(f);
	fake_reset(f, mode);
	if (mode != FAKE_LRU) {
		fake_make(host, f, flags, name, reg);
		return f;
	}
	fake_make(host, f, flags, name, false);
	fake_bind_lru(host, f);
	if (reg)
		assert_int_equal(shr_shrinker_register(f->shrinker), 0);
	return f;
}

struct fake *fake_new_objects(struct shr_host *host, unsigned int flags, bool reg,
			      bool zero_means_zero)
{
	struct fake *f = fake_new(host, FAKE_OBJECTS, flags, "objects", false);

	f->zero_means_zero = zero_means_zero;
	if (reg)
		assert_int_equal(shr_shrinker_register(f->shrinker), 0);
	return f;
}

void fake_delete(struct fake *f)
{
	fake_free(f);
	free(f);
}

long fake_objects(struct fake *f, struct shr_mem_cgroup *memcg, int nid)
{
	long n;

	pthread_mutex_lock(&f->lock);
	n = *slot_of(f, memcg, nid);
	pthread_mutex_unlock(&f->lock);
	return n;
}

void fake_set_objects(struct fake *f, struct shr_mem_cgroup *memcg, int nid, long n)
{
	pthread_mutex_lock(&f->lock);
	*slot_of(f, memcg, nid) = n;
	pthread_mutex_unlock(&f->lock);
}
