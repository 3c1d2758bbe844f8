/* SPDX-License-Identifier: MIT */
/*
 * The ledger: one record per object alive, moved by CAS through its
 * states, so every free is checked against what the test knows of the
 * object.
 */
#include "torture.h"

uint64_t mkword(uint64_t gen, enum rec_state st)
{
	return (gen << GEN_SHIFT) | st;
}

enum rec_state word_state(uint64_t w)
{
	return (enum rec_state)(w & ((1u << GEN_SHIFT) - 1));
}

uint64_t word_gen(uint64_t w)
{
	return w >> GEN_SHIFT;
}

unsigned long mkserial(unsigned int idx, uint64_t gen)
{
	return (unsigned long)(gen << LEDGER_BITS) | idx;
}

struct record *serial_record(unsigned long serial, uint64_t *gen)
{
	*gen = serial >> LEDGER_BITS;
	return &T.ledger[serial & (LEDGER_CAP - 1)];
}

bool record_get(unsigned int *idx)
{
	bool ok = false;

	pthread_mutex_lock(&T.free_lock);
	if (T.nr_free) {
		*idx = T.free_stack[--T.nr_free];
		ok = true;
	}
	pthread_mutex_unlock(&T.free_lock);
	return ok;
}

void record_put(unsigned int idx)
{
	pthread_mutex_lock(&T.free_lock);
	T.free_stack[T.nr_free++] = idx;
	pthread_mutex_unlock(&T.free_lock);
}

/* FREE the record of generation @gen (from @from); a failed CAS is a double
 * free or a free of an object the ledger does not hold as taken. */
static void record_retire(struct record *rec, uint64_t gen, enum rec_state from,
			  const char *who)
{
	uint64_t expect = mkword(gen, from);

	if (!atomic_compare_exchange_strong(&rec->word, &expect, mkword(gen + 1, REC_FREE)))
		violation("%s freed object %td gen %" PRIu64 " whose record is state %d gen %" PRIu64
			  " (freed twice or never isolated)",
			  who, rec - T.ledger, gen, word_state(expect), word_gen(expect));
	record_put((unsigned int)(rec - T.ledger));
}

/* Isolate callback hook: runs under the list lock. */
bool ledger_may_isolate(struct sb_object *obj, void *arg)
{
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);
	uint64_t w = atomic_load(&rec->word);

	(void)arg;
	for (;;) {
		if (word_gen(w) != gen)
			violation("object %td gen %" PRIu64 " found on a list but its record is at gen %"
				  PRIu64 " (already freed)", rec - T.ledger, gen, word_gen(w));
		switch (word_state(w)) {
		case REC_ADDING:
		case REC_ON_LIST:
			if (atomic_compare_exchange_weak(&rec->word, &w, mkword(gen, REC_ISOLATED)))
				return true;
			continue;
		case REC_DELETING:
			return false; /* its deleter removes it */
		default:
			violation("object %td gen %" PRIu64 " isolated twice (state %d)",
				  rec - T.ledger, gen, word_state(w));
		}
	}
}

/*
 * What a scan's isolate callback does with an object (lab fs hook): every
 * status a callback may return, mostly REMOVED. RETRY and STOP drop the list
 * lock mid-walk; ROTATE moves the item to the tail (a walk can meet it
 * again; the budget bounds it). Runs under the list lock. The first
 * ISO_CYCLED callbacks of a run go through the statuses in turn, so every
 * status is returned once a run has made that many (work, not luck: a slow
 * run under a sanitizer on a busy machine makes few scans, and a status
 * drawn 4 times in 100 could be missed); random draws follow.
 */
enum shr_lru_status pick_isolate_status(struct sb_object *obj, void *arg)
{
	static _Thread_local uint64_t rng;
	static const struct {
		enum shr_lru_status st;
		unsigned int weight;
	} table[] = {
		{ SHR_LRU_REMOVED, 70 }, { SHR_LRU_REMOVED_RETRY, 8 }, { SHR_LRU_ROTATE, 8 },
		{ SHR_LRU_SKIP, 6 },     { SHR_LRU_RETRY, 4 },         { SHR_LRU_STOP, 4 },
	};
	unsigned long n;
	unsigned int r;
	size_t i;

	(void)arg;
	if (!atomic_load_explicit(&T.iso_random, memory_order_relaxed))
		return SHR_LRU_REMOVED;
	n = atomic_fetch_add_explicit(&T.iso_calls, 1, memory_order_relaxed);
	if (n < ISO_CYCLED) {
		i = n % (sizeof(table) / sizeof(table[0]));
		atomic_fetch_add_explicit(&T.iso_status[table[i].st], 1, memory_order_relaxed);
		return table[i].st;
	}
	if (!rng)
		rng = T.cfg.seed ^ (uint64_t)(uintptr_t)&rng ^ obj->serial;
	r = rng_below(&rng, 100);
	for (i = 0; r >= table[i].weight; i++)
		r -= table[i].weight;
	atomic_fetch_add_explicit(&T.iso_status[table[i].st], 1, memory_order_relaxed);
	return table[i].st;
}

void ledger_on_free(struct sb_object *obj, enum sb_free_reason why, void *arg)
{
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);

	(void)arg;
	switch (why) {
	case SB_FREE_SCAN:
		record_retire(rec, gen, REC_ISOLATED, "scan");
		count_op(OP_FREED_BY_SCAN);
		break;
	case SB_FREE_UMOUNT:
		record_retire(rec, gen, REC_ISOLATED, "umount");
		break;
	case SB_FREE_DELETE:
		record_retire(rec, gen, REC_DELETING, "delete");
		break;
	case SB_FREE_FAILED:
		break; /* the adder still holds the record in ADDING */
	}
}
