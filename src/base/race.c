/* SPDX-License-Identifier: MIT */
/*
 * Race-window widening (see <shrinker/race.h> and docs/design/RACES.md).
 *
 * Design
 * ------
 * Every point has a hit counter (per thread, summed when read: see
 * struct hit_block) and an optional test hook. Delays are armed process-wide: a mask of
 * points, a probability in 1/1000, a longest delay and a seed. Each point
 * scales the probability by its weight (point_weight[]: 1/8 at points
 * every operation passes, 100x at the rarely passed ones, capped at 1), and
 * a rarely passed one may sleep up to RARE_STRETCH times longer. Each thread
 * draws from its own xorshift generator, seeded from the configured seed and
 * the thread's arrival order, and reseeds when the configuration changes
 * (a generation number). A delay is a sched_yield() or a nanosleep() of up
 * to max_us (always a sleep at a RARE point); inside a spinning lock
 * (shr_race_spin_enter() depth > 0) it is a busy-wait of at most
 * SPIN_MAX_US instead.
 *
 * Synchronisation: the configuration fields are atomics written by
 * shr_race_delays_enable() (generation last, release) and read relaxed by
 * the points (a point that mixes an old and a new field only delays
 * differently). Hooks: the argument is stored before the function (release)
 * and read after it (acquire). Thread state is thread-local.
 *
 * Without SHR_DEBUG_CHECKS only the stubs at the end are compiled.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "race.h"

static const char *const point_names[SHR_RACE_NR] = {
	[SHR_RACE_SET_BIT_A] = "SET_BIT_A",
	[SHR_RACE_EMPTY_CLEAR_B] = "EMPTY_CLEAR_B",
	[SHR_RACE_WALK_STALE_LOOKUP] = "WALK_STALE_LOOKUP",
	[SHR_RACE_WALK_STALE_RECHECK] = "WALK_STALE_RECHECK",
	[SHR_RACE_WALK_PIN] = "WALK_PIN",
	[SHR_RACE_GLOBAL_WALK_PUT] = "GLOBAL_WALK_PUT",
	[SHR_RACE_SHRINKER_DEAD] = "SHRINKER_DEAD",
	[SHR_RACE_SHRINKER_ARM] = "SHRINKER_ARM",
	[SHR_RACE_SHRINKER_ID_PUBLISHED] = "SHRINKER_ID_PUBLISHED",
	[SHR_RACE_DEFERRED_TAKEN] = "DEFERRED_TAKEN",
	[SHR_RACE_IX_SET_M1_M2] = "IX_SET_M1_M2",
	[SHR_RACE_IX_UNMARK_C2] = "IX_UNMARK_C2",
	[SHR_RACE_IX_UNIT_ERASED] = "IX_UNIT_ERASED",
	[SHR_RACE_FLAT_GROW_G] = "FLAT_GROW_G",
	[SHR_RACE_FLAT_WRITER_W] = "FLAT_WRITER_W",
	[SHR_RACE_ARR_INSTALL] = "ARR_INSTALL",
	[SHR_RACE_ARR_GROW_COPY] = "ARR_GROW_COPY",
	[SHR_RACE_INFO_PUBLISH] = "INFO_PUBLISH",
	[SHR_RACE_LRU_PUBLISH] = "LRU_PUBLISH",
	[SHR_RACE_LRU_LOOKUP_LOCK] = "LRU_LOOKUP_LOCK",
	[SHR_RACE_REPARENT_SPLICED] = "REPARENT_SPLICED",
	[SHR_RACE_OFFLINE_DYING] = "OFFLINE_DYING",
	[SHR_RACE_OFFLINE_DEFERRED] = "OFFLINE_DEFERRED",
	[SHR_RACE_MEMCG_ONLINE] = "MEMCG_ONLINE",
	[SHR_RACE_MEMCG_TRYGET] = "MEMCG_TRYGET",
	[SHR_RACE_MEMCG_PUT] = "MEMCG_PUT",
	[SHR_RACE_XA_READER_DESCEND] = "XA_READER_DESCEND",
	[SHR_RACE_XA_NODE_RETIRE] = "XA_NODE_RETIRE",
	[SHR_RACE_XA_NODE_PUBLISH] = "XA_NODE_PUBLISH",
};

_Static_assert(SHR_RACE_NR <= 64, "the delay mask is one 64-bit word");


const char *shr_race_point_name(enum shr_race_point p)
{
	if ((unsigned int)p >= SHR_RACE_NR || !point_names[p])
		return "?";
	return point_names[p];
}

#if SHR_DEBUG_CHECKS

/*
 * How often each point fires, relative to the configured probability, in
 * eighths: HOT points are passed by nearly every operation (every XArray
 * load, every cgroup an iterator steps over), RARE ones guard windows that a
 * workload passes only now and then (a stale bit, a growth, an offline), so
 * the same setting spends the delays where the narrow windows are. The
 * classes follow the hit rates torture measures (HOT: about 10^6 hits per
 * second, RARE: about 10^2, where the default 10/1000 means every hit).
 */
enum { HOT = 1, WARM = 4, NORMAL = 8, RARE = 800 };
/* Longest delay at a RARE point, in units of the configured max_us. */
#define RARE_STRETCH 10u

static const unsigned short point_weight[SHR_RACE_NR] = {
	[SHR_RACE_SET_BIT_A] = NORMAL,
	[SHR_RACE_EMPTY_CLEAR_B] = NORMAL,
	[SHR_RACE_WALK_STALE_LOOKUP] = RARE,
	[SHR_RACE_WALK_STALE_RECHECK] = RARE,
	[SHR_RACE_WALK_PIN] = HOT,
	[SHR_RACE_GLOBAL_WALK_PUT] = HOT,
	[SHR_RACE_SHRINKER_DEAD] = RARE,
	[SHR_RACE_SHRINKER_ARM] = NORMAL,
	[SHR_RACE_SHRINKER_ID_PUBLISHED] = NORMAL,
	[SHR_RACE_DEFERRED_TAKEN] = HOT,
	[SHR_RACE_IX_SET_M1_M2] = NORMAL,
	[SHR_RACE_IX_UNMARK_C2] = NORMAL,
	[SHR_RACE_IX_UNIT_ERASED] = NORMAL,
	[SHR_RACE_FLAT_GROW_G] = RARE,
	[SHR_RACE_FLAT_WRITER_W] = NORMAL,
	[SHR_RACE_ARR_INSTALL] = NORMAL,
	[SHR_RACE_ARR_GROW_COPY] = RARE,
	[SHR_RACE_INFO_PUBLISH] = NORMAL,
	[SHR_RACE_LRU_PUBLISH] = NORMAL,
	[SHR_RACE_LRU_LOOKUP_LOCK] = WARM,
	[SHR_RACE_REPARENT_SPLICED] = NORMAL,
	[SHR_RACE_OFFLINE_DYING] = NORMAL,
	[SHR_RACE_OFFLINE_DEFERRED] = NORMAL,
	[SHR_RACE_MEMCG_ONLINE] = NORMAL,
	[SHR_RACE_MEMCG_TRYGET] = HOT,
	[SHR_RACE_MEMCG_PUT] = HOT,
	[SHR_RACE_XA_READER_DESCEND] = HOT,
	[SHR_RACE_XA_NODE_RETIRE] = NORMAL,
	[SHR_RACE_XA_NODE_PUBLISH] = NORMAL,
};

/* Longest busy-wait inside a spinning lock. */
#define SPIN_MAX_US 20u

struct point_state {
	/* Sync: fn acquire/release; arg stored before fn. */
	_Atomic(shr_race_hook_fn) fn;
	void *_Atomic arg;
	/* The sum at the last shr_race_hits_reset(). Sync: atomic. */
	atomic_ulong base;
};

/*
 * Hit counters, one block per thread: a counter shared by every thread
 * bounces its cache line between CPUs on the hottest paths (an XArray load,
 * an iterator step) and slowed a three-thread test tenfold. Each block is
 * written by its owner only (load + store, no read-modify-write) and read by
 * shr_race_hits(), which sums every block. Blocks are never freed: a
 * thread's exit hands its block (counts kept) to the next new thread.
 */
struct hit_block {
	atomic_ulong hits[SHR_RACE_NR];
	struct hit_block *next; /* Sync: immutable once pushed */
	atomic_bool free;       /* owner exited; claimable */
};

/* Every block ever made. Sync: push-only, CAS with release; readers
 * acquire. */
static _Atomic(struct hit_block *) hit_blocks;
static pthread_key_t hit_key;
static pthread_once_t hit_once = PTHREAD_ONCE_INIT;
static _Thread_local struct hit_block *tl_hits;

static void hit_block_release(void *arg)
{
	struct hit_block *b = arg;

	atomic_store_explicit(&b->free, true, memory_order_release);
}

static void hit_key_init(void)
{
	if (pthread_key_create(&hit_key, hit_block_release))
		SHR_BUG("pthread_key_create for the race-point counters");
}

/* The calling thread's block: a freed one, or a new one. */
static struct hit_block *hit_block_get(void)
{
	struct hit_block *b;

	pthread_once(&hit_once, hit_key_init);
	for (b = atomic_load_explicit(&hit_blocks, memory_order_acquire); b; b = b->next) {
		bool expected = true;

		if (atomic_compare_exchange_strong_explicit(&b->free, &expected, false,
							    memory_order_acquire,
							    memory_order_relaxed))
			break;
	}
	if (!b) {
		/* Test instrumentation, not modelled memory: malloc. */
		b = calloc(1, sizeof(*b));
		if (!b)
			SHR_BUG("no memory for the race-point counters");
		b->next = atomic_load_explicit(&hit_blocks, memory_order_relaxed);
		while (!atomic_compare_exchange_weak_explicit(&hit_blocks, &b->next, b,
							      memory_order_release,
							      memory_order_relaxed))
			;
	}
	(void)pthread_setspecific(hit_key, b);
	tl_hits = b;
	return b;
}

static unsigned long hits_sum(enum shr_race_point p)
{
	unsigned long sum = 0;

	for (struct hit_block *b = atomic_load_explicit(&hit_blocks, memory_order_acquire); b;
	     b = b->next)
		sum += atomic_load_explicit(&b->hits[p], memory_order_relaxed);
	return sum;
}

static struct point_state points[SHR_RACE_NR];

/* The armed configuration. Sync: atomics (see the top of the file). */
static struct {
	atomic_bool enabled;
	_Atomic uint64_t mask;
	_Atomic uint64_t seed;
	atomic_uint max_us;
	atomic_uint permille;
	atomic_uint gen; /* bumped by every enable; 0 = never armed */
	atomic_uint threads; /* arrival order, for per-thread streams */
} cfg;

/* Per thread: the generator, the generation it was seeded for, the depth
 * of spinning locks held. */
static _Thread_local uint64_t tl_rng;
static _Thread_local unsigned int tl_gen;
static _Thread_local unsigned int tl_thread = ~0u;
static _Thread_local unsigned int tl_spin;

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t next_rand(unsigned int gen)
{
	if (tl_gen != gen) {
		if (tl_thread == ~0u)
			tl_thread = atomic_fetch_add_explicit(&cfg.threads, 1,
							      memory_order_relaxed);
		tl_rng = splitmix(atomic_load_explicit(&cfg.seed, memory_order_relaxed) ^
				  splitmix(tl_thread)) | 1;
		tl_gen = gen;
	}
	tl_rng ^= tl_rng << 13;
	tl_rng ^= tl_rng >> 7;
	tl_rng ^= tl_rng << 17;
	return tl_rng;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void spin_us(unsigned int us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000;

	while (now_ns() < end)
		;
}

static void delay(uint64_t r, unsigned int max_us, bool may_yield)
{
	unsigned int us;

	if (tl_spin) {
		unsigned int cap = max_us < SPIN_MAX_US ? max_us : SPIN_MAX_US;

		spin_us(1 + (unsigned int)(r % cap));
		return;
	}
	if (may_yield && (r & (1ULL << 40))) {
		sched_yield();
		return;
	}
	us = 1 + (unsigned int)(r % max_us);
	nanosleep(&(struct timespec){ .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 },
		  NULL);
}

void shr_race_hit(enum shr_race_point p)
{
	struct point_state *ps = &points[p];
	struct hit_block *b = tl_hits ? tl_hits : hit_block_get();
	shr_race_hook_fn fn;
	unsigned int gen, permille, max_us;
	uint64_t r;

	/* Only this thread writes its block. */
	atomic_store_explicit(&b->hits[p],
			      atomic_load_explicit(&b->hits[p], memory_order_relaxed) + 1,
			      memory_order_relaxed);
	fn = atomic_load_explicit(&ps->fn, memory_order_acquire);
	if (fn)
		fn(p, atomic_load_explicit(&ps->arg, memory_order_relaxed));
	if (!atomic_load_explicit(&cfg.enabled, memory_order_relaxed) ||
	    !(atomic_load_explicit(&cfg.mask, memory_order_relaxed) & (UINT64_C(1) << p)))
		return;
	/* Acquire: pairs with the release of the generation in enable(), so
	 * the seed read for reseeding is at least that generation's. */
	gen = atomic_load_explicit(&cfg.gen, memory_order_acquire);
	permille = atomic_load_explicit(&cfg.permille, memory_order_relaxed);
	r = next_rand(gen);
	/* Probability permille/1000 scaled by the point's weight (eighths). */
	if (r % 8000 >= (uint64_t)permille * point_weight[p])
		return;
	max_us = atomic_load_explicit(&cfg.max_us, memory_order_relaxed);
	/* A rare window is held open longer, by a sleep every time (a yield
	 * on an idle CPU holds nothing open): its cost is small in total. */
	if (point_weight[p] >= RARE)
		max_us *= RARE_STRETCH;
	delay(r >> 13, max_us, point_weight[p] < RARE);
}

void shr_race_spin_enter(void)
{
	tl_spin++;
}

void shr_race_spin_exit(void)
{
	SHR_BUG_ON(tl_spin == 0);
	tl_spin--;
}

bool shr_race_available(void)
{
	return true;
}

int shr_race_delays_enable(uint64_t mask, uint64_t seed, unsigned int max_us,
			   unsigned int permille)
{
	if (!mask || (mask & ~SHR_RACE_ALL) || max_us < 1 || max_us > 1000000 || permille < 1 ||
	    permille > 1000)
		return -EINVAL;
	atomic_store_explicit(&cfg.mask, mask, memory_order_relaxed);
	atomic_store_explicit(&cfg.seed, seed, memory_order_relaxed);
	atomic_store_explicit(&cfg.max_us, max_us, memory_order_relaxed);
	atomic_store_explicit(&cfg.permille, permille, memory_order_relaxed);
	/* Release: pairs with the acquire in shr_race_hit(). */
	atomic_fetch_add_explicit(&cfg.gen, 1, memory_order_release);
	atomic_store_explicit(&cfg.enabled, true, memory_order_release);
	return 0;
}

void shr_race_delays_disable(void)
{
	atomic_store_explicit(&cfg.enabled, false, memory_order_relaxed);
}

bool shr_race_delays_enabled(void)
{
	return atomic_load_explicit(&cfg.enabled, memory_order_relaxed);
}

unsigned long shr_race_hits(enum shr_race_point p)
{
	if ((unsigned int)p >= SHR_RACE_NR)
		return 0;
	return hits_sum(p) - atomic_load_explicit(&points[p].base, memory_order_relaxed);
}

void shr_race_hits_reset(void)
{
	for (int p = 0; p < SHR_RACE_NR; p++)
		atomic_store_explicit(&points[p].base, hits_sum((enum shr_race_point)p),
				      memory_order_relaxed);
}

int shr_race_set_hook(enum shr_race_point p, shr_race_hook_fn fn, void *arg)
{
	if ((unsigned int)p >= SHR_RACE_NR)
		return -EINVAL;
	if (!fn) {
		atomic_store_explicit(&points[p].fn, NULL, memory_order_release);
		return 0;
	}
	atomic_store_explicit(&points[p].arg, arg, memory_order_relaxed);
	/* Release: the argument before the function (acquire in the hit). */
	atomic_store_explicit(&points[p].fn, fn, memory_order_release);
	return 0;
}

/*
 * Parse "a[,b[,c]]" (non-empty decimal fields) into @v; returns the number
 * of fields, or -EINVAL.
 */
static int parse_fields(const char *s, unsigned long long *v, int max)
{
	int n = 0;

	for (;;) {
		char *end;

		if (n == max || *s < '0' || *s > '9')
			return -EINVAL;
		v[n++] = strtoull(s, &end, 10);
		if (!*end)
			return n;
		if (*end != ',')
			return -EINVAL;
		s = end + 1;
	}
}

int shr_race_delays_from_env(uint64_t default_seed)
{
	const char *s = getenv("SHR_RACE_DELAYS");
	unsigned long long v[3] = { 0, 20, default_seed };

	if (!s || !*s || !strcmp(s, "0"))
		return 0;
	if (parse_fields(s, v, 3) < 0 || v[0] > 1000000 || v[1] > 1000)
		return -EINVAL;
	if (shr_race_delays_enable(SHR_RACE_ALL, v[2], (unsigned int)v[0], (unsigned int)v[1]))
		return -EINVAL;
	return 1;
}

#else /* !SHR_DEBUG_CHECKS */

bool shr_race_available(void)
{
	return false;
}

int shr_race_delays_enable(uint64_t mask, uint64_t seed, unsigned int max_us,
			   unsigned int permille)
{
	(void)mask;
	(void)seed;
	(void)max_us;
	(void)permille;
	return -EOPNOTSUPP;
}

void shr_race_delays_disable(void)
{
}

bool shr_race_delays_enabled(void)
{
	return false;
}

int shr_race_delays_from_env(uint64_t default_seed)
{
	const char *s = getenv("SHR_RACE_DELAYS");

	(void)default_seed;
	return s && *s && strcmp(s, "0") ? -EOPNOTSUPP : 0;
}

unsigned long shr_race_hits(enum shr_race_point p)
{
	(void)p;
	return 0;
}

void shr_race_hits_reset(void)
{
}

int shr_race_set_hook(enum shr_race_point p, shr_race_hook_fn fn, void *arg)
{
	(void)p;
	(void)fn;
	(void)arg;
	return -EOPNOTSUPP;
}

#endif /* SHR_DEBUG_CHECKS */
