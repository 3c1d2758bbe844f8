/* SPDX-License-Identifier: MIT */
/*
 * Lockless readers against a writer. Readers load, find and iterate (all
 * entries, marked entries) inside their own RCU sections while the writer
 * stores, replaces, erases and marks; the tree keeps growing, shrinking and
 * collapsing. Every entry is an object that knows its own index and state:
 * a replaced or erased object is RETIRED at once and only becomes DEAD in
 * its RCU callback, after a grace period. A reader that meets a DEAD object,
 * an object at the wrong index, or a mark-1 entry at an odd index fails.
 * DEAD objects are kept (not freed) until the end, so the check does not
 * depend on a sanitizer to notice a use after free.
 *
 * Internal test (tests/meson.build): readers and callbacks use src/base/rcu.h
 * (read-side sections, shr_call_rcu()), as the library's XArray users do.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include <shrinker/xarray.h>

#include "harness.h"
#include "rcu.h"
#include "xa_test_util.h"

#define NR_READERS 3
/* The writer's work, bounded by operations, not time (a loaded machine
 * makes the test slower, not shorter): 2026-12-01 at load 16 on 2 cores,
 * 0.15 s plain, 0.7 s under ASan, 4 s under TSan, 10 s with 4-slot nodes
 * under TSan. */
#define NR_WRITES 131072UL
#define INDEX_SPACE 3000UL

enum obj_state { OBJ_LIVE = 0x11, OBJ_RETIRED = 0x22, OBJ_DEAD = 0x33 };

struct obj {
	unsigned long index;
	_Atomic int state;
	struct rcu_head rcu;
	struct obj *grave_next; /* Sync: graveyard_lock */
};

static struct shr_xarray xa;
static atomic_bool stop;
static atomic_ulong errors;
static atomic_ulong reads;
static pthread_mutex_t graveyard_lock = PTHREAD_MUTEX_INITIALIZER;
static struct obj *graveyard;

static void reader_fail(const char *what, unsigned long index, const struct obj *o)
{
	atomic_fetch_add(&errors, 1);
	fprintf(stderr, "# reader: %s at %lu (obj index %lu state %#x)\n", what, index,
		o ? o->index : 0, o ? (unsigned int)atomic_load(&o->state) : 0);
}

/* Called inside the reader's RCU section for each entry it got. */
static void check_entry(unsigned long index, void *entry)
{
	struct obj *o = entry;
	int st = atomic_load_explicit(&o->state, memory_order_relaxed);

	if (st != OBJ_LIVE && st != OBJ_RETIRED)
		reader_fail("dead entry", index, o);
	else if (o->index != index)
		reader_fail("wrong index", index, o);
	atomic_fetch_add_explicit(&reads, 1, memory_order_relaxed);
}

static void obj_dead_rcu(struct rcu_head *head)
{
	struct obj *o;

	shr_rcu_callback_enter(head);
	o = caa_container_of(head, struct obj, rcu);
	atomic_store(&o->state, OBJ_DEAD);
	pthread_mutex_lock(&graveyard_lock);
	o->grave_next = graveyard;
	graveyard = o;
	pthread_mutex_unlock(&graveyard_lock);
	shr_rcu_callback_exit();
}

static void obj_retire(struct obj *o)
{
	if (!o)
		return;
	atomic_store(&o->state, OBJ_RETIRED);
	shr_call_rcu(&o->rcu, obj_dead_rcu);
}

/*
 * A small hot range (leaves empty out and are deleted often), a wider one,
 * and the top of the index space (tall trees that collapse again).
 */
static unsigned long rand_index(struct shr_rng *rng)
{
	switch (shr_rng_below(rng, 8)) {
	case 0:
		return ULONG_MAX - shr_rng_below(rng, 40);
	case 1:
	case 2:
		return (unsigned long)shr_rng_below(rng, INDEX_SPACE);
	default:
		return (unsigned long)shr_rng_below(rng, 48);
	}
}

static void reader_loads(struct shr_rng *rng)
{
	shr_rcu_read_lock();
	for (int i = 0; i < 64; i++) {
		unsigned long index = rand_index(rng);
		void *entry = shr_xa_load(&xa, index);

		if (entry)
			check_entry(index, entry);
	}
	shr_rcu_read_unlock();
}

static void reader_walk(shr_xa_mark_t filter)
{
	unsigned long index, prev = 0;
	bool first = true;
	void *entry;

	shr_rcu_read_lock();
	shr_xa_for_each_marked(&xa, index, entry, filter) {
		check_entry(index, entry);
		if (!first && index <= prev)
			reader_fail("iteration went backwards", index, entry);
		if (filter == SHR_XA_MARK_1 && (index & 1))
			reader_fail("mark 1 at odd index", index, entry);
		first = false;
		prev = index;
	}
	shr_rcu_read_unlock();
}

static void reader_find_range(struct shr_rng *rng)
{
	unsigned long start = rand_index(rng), index = start;
	unsigned long max = start + shr_rng_below(rng, 200);
	void *entry;

	if (max < start)
		max = ULONG_MAX;
	shr_rcu_read_lock();
	entry = shr_xa_find(&xa, &index, max, SHR_XA_PRESENT);
	if (entry) {
		if (index < start || index > max)
			reader_fail("find out of range", index, entry);
		check_entry(index, entry);
		entry = shr_xa_find_after(&xa, &index, max, SHR_XA_MARK_2);
		if (entry)
			check_entry(index, entry);
	}
	shr_rcu_read_unlock();
}

static void *reader_thread(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	struct shr_rng rng;

	shr_thread_register();
	shr_rng_init(&rng, 100 + id);
	while (!atomic_load(&stop)) {
		switch (id) {
		case 0:
			reader_loads(&rng);
			break;
		case 1:
			reader_walk(SHR_XA_PRESENT);
			reader_find_range(&rng);
			break;
		default:
			reader_walk(SHR_XA_MARK_1);
			reader_walk(SHR_XA_MARK_2);
			break;
		}
	}
	shr_thread_unregister();
	return NULL;
}

static struct obj *obj_new(unsigned long index)
{
	struct obj *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	o->index = index;
	atomic_store(&o->state, OBJ_LIVE);
	return o;
}

static void writer_op(struct shr_rng *rng)
{
	unsigned long index = rand_index(rng);
	unsigned long op = shr_rng_below(rng, 10);
	void *old;

	if (op < 4) {
		old = shr_xa_store(&xa, index, obj_new(index), SHR_GFP_KERNEL);
		assert_false(shr_xa_is_err(old));
		obj_retire(old);
	} else if (op < 7) {
		obj_retire(shr_xa_erase(&xa, index));
	} else if (op == 7) {
		shr_xa_set_mark(&xa, index & ~1UL, SHR_XA_MARK_1);
	} else if (op == 8) {
		shr_xa_set_mark(&xa, index, SHR_XA_MARK_2);
	} else {
		shr_xa_clear_mark(&xa, index, shr_rng_below(rng, 2) ? SHR_XA_MARK_1 : SHR_XA_MARK_2);
	}
}

static void free_graveyard(void)
{
	while (graveyard) {
		struct obj *o = graveyard;

		graveyard = o->grave_next;
		free(o);
	}
}

static void test_readers_vs_writer(void **state)
{
	pthread_t readers[NR_READERS];
	unsigned long writes = 0, index;
	struct xa_env env;
	struct shr_rng rng;
	void *entry;

	(void)state;
	xa_env_setup(&env);
	shr_xa_init(&xa, env.cache, SHR_NUMA_NO_NODE, 0);
	shr_rng_init(&rng, 1);
	shr_test_widen();
	for (unsigned int i = 0; i < NR_READERS; i++)
		assert_int_equal(pthread_create(&readers[i], NULL, reader_thread,
						(void *)(uintptr_t)i),
				 0);
	while (writes < NR_WRITES) {
		for (int i = 0; i < 256; i++, writes++)
			writer_op(&rng);
		/* Empty out now and then, so the tree collapses to nothing. */
		if (shr_rng_below(&rng, 64) == 0) {
			shr_xa_for_each(&xa, index, entry)
				obj_retire(shr_xa_erase(&xa, index));
		}
	}
	atomic_store(&stop, true);
	for (unsigned int i = 0; i < NR_READERS; i++)
		pthread_join(readers[i], NULL);
	shr_test_widen_end();
	printf("# %lu writes, %lu entries read, %lu errors\n", writes,
	       atomic_load(&reads), atomic_load(&errors));
	shr_xa_for_each(&xa, index, entry)
		obj_retire(shr_xa_erase(&xa, index));
	assert_true(shr_xa_empty(&xa));
	assert_int_equal(shr_xa_nr_nodes(&xa), 0);
	shr_xa_destroy(&xa);
	shr_rcu_barrier();
	free_graveyard();
	assert_int_equal(atomic_load(&errors), 0);
	assert_true(atomic_load(&reads) > 0);
	xa_env_teardown(&env);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readers_vs_writer),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("xarray_threads", tests);
}
