/* SPDX-License-Identifier: MIT */
/*
 * torture: every operation of the subsystem at once, on every design.
 *
 *   torture -t SECONDS -s SEED -d DESIGN|all [--units cache|kmalloc]
 *           [--expand-batch N] [--nokmem] [--nonslab-ids] [--threads N]
 *           [--nodes N] [--strict-bits | --kernel-bits] [--mounts N]
 *           [--delays MAX_US[,PERMILLE] | --delays 0] [--delay-points P,...]
 *           [--faults | --no-faults] [--no-readers | --readers-no-stats]
 *           [--id-base N]
 *
 * Worker threads pick operations at random: mount, unmount and remount
 * superblocks (shrinker + two list_lrus), create cgroups under live and
 * dying parents, offline and release them, add and delete objects in random
 * cgroups and nodes, reclaim one cgroup (shr_shrink_slab), a subtree
 * (shr_mem_cgroup_reclaim) and the host (shr_drop_caches).
 *
 * Mounts. Up to 256 slots (--mounts); 8 are open at the start and the rest
 * open over the first half of the run, so shrinker ids climb past 64 and
 * 128 and the designs that grow per-cgroup arrays grow them while adds and
 * reclaim run. A mount gets the lowest free id, often the one an unmount or
 * a remount (a container restart) has just released, whose bits other
 * cgroups still hold, and adds its first objects at once ("lasting" ones:
 * only reclaim or the unmount frees them): the id-reuse race of
 * docs/RACES.md R2.
 *
 * Ids past every size class (--id-base N). Before the workers start, N
 * memcg-aware shrinkers (never registered, so no walk calls them) take ids
 * 0..N-1; then the ballast shrinkers at the first id past each size class
 * a design's per-cgroup structure crosses are freed again (64 and 128: unit
 * and bitmap word boundaries; 1024: flat's id-sized array is past
 * kmalloc-8k; 65536: a pointer per unit passes 8 KiB; 131072: indexed's
 * 4-byte count per unit passes 8 KiB; 524288: flat's array passes the page
 * allocator's largest order and is vmalloc'ed). The first FIRST_MOUNTS
 * slots are mounted (memcg-aware superblocks) before the workers start, so
 * the holes are taken and at least two mounts sit at ids N and up from the
 * start, whatever the run's speed; later mounts take the lowest free id,
 * a hole or past N. Every cgroup then holds bits, objects and deferred work
 * at those ids while the readers (bookkeeping, stats, debugfs) and reclaim
 * run on them; the run fails unless a mount reached id N. The ballast is
 * work, not time: it is made before the clock starts and freed after the
 * checks. flat grows one id at a time by default, which would
 * copy the root's arrays once per ballast id: it needs --expand-batch here;
 * nobitmap (no bits) visits every allocated id on every cgroup reclaim, the
 * ballast's too, and is skipped (the pre-4.19 cost, not a race to find).
 *
 * Shrinker kinds. Each mount draws one: the lab's superblock (NUMA- and
 * memcg-aware, root bits), the same without root bits (the root walk list
 * under indexed), not NUMA-aware (deferred slot 0), not memcg-aware (root
 * lists, root walk only), neither; or a queue cache (struct tq, below):
 * memcg-aware and NONSLAB, objects on its own per-cgroup queues, bits set
 * with shr_set_shrinker_bit() and queues moved up at offline, like the
 * kernel's THP deferred split queue, with or without root bits. With
 * --nokmem the list_lrus keep root lists only and the queue caches are what
 * non-root reclaim calls; with --nonslab-ids they live in the second id
 * space.
 *
 * Isolate callbacks. While the workers run, a superblock scan's callback
 * returns every status a callback can (REMOVED mostly, REMOVED_RETRY,
 * ROTATE, SKIP, RETRY, STOP: the last two drop the list lock mid-walk);
 * each must be seen in a run. Checks scan with REMOVED only.
 *
 * Fault injection (default; --no-faults turns it off). While the workers
 * run, the main thread replaces the allocator's fault rule every 4 ms:
 * mostly "fail one of the next few hundred allocations", sometimes "fail
 * every allocation of one cache" (XArray nodes, kmalloc classes, units,
 * objects), sometimes none. Every call must return 0 or -ENOMEM (mount,
 * cgroup creation, add; a failed add leaves nothing behind and its record
 * goes back to FREE); the checks run with faults off and must hold.
 *
 * Readers. 3% of the operations read what the API documents as safe while
 * everything else runs, racing rmdir and release: shr_shrinker_get_stats(),
 * the debugfs count file (parsed) and scan file (of a cgroup that may be
 * gone: 0 or -ENOENT), shr_mem_cgroup_bookkeeping() of a referenced cgroup,
 * and full or broken-off iterator walks with a lookup by inode number.
 *
 * Cgroups. Slots 0..7 are persistent (taken offline only at the end, and
 * never given children), so a bit lost in them is not healed by an offline
 * (reparenting sets the parent's bit) before a check sees it; half the
 * lasting objects and half the single-cgroup reclaims go to them.
 *
 * Window widening (debug builds, <shrinker/race.h>): the race points'
 * delays are armed by default (100 us at 10/1000, scaled per point), in
 * stutter phases; each design's run reports the points it reached, and -d
 * all fails if a point reachable by the designs run was never hit.
 *
 * The ledger. Every object added gets a record whose atomic word holds
 * (generation << 8 | state). States: FREE -> ADDING (the adder) -> ON_LIST
 * (the adder, once the add returned) -> ISOLATED (a scan's or an unmount's
 * isolate callback, under the list lock; also straight from ADDING) or
 * DELETING (a deleter that claimed it) -> FREE with the generation bumped
 * (the free hook). The object carries (generation, index) in its serial, so
 * a scan that isolates or frees an object twice, or an object the ledger
 * has already seen freed, trips a compare-exchange and is a violation.
 * Records are recycled only through FREE, so their number bounds the
 * objects alive at once.
 *
 * Quiescent points, every half second: the main thread raises `pause`;
 * every worker finishes its operation and waits on a barrier; the main
 * thread checks and lets them go. Checks: every ON_LIST record is seen
 * exactly once by a walk over every list and no other object is on a list;
 * list counts agree with the walk; offlining one cgroup moves its deferred
 * work to its parent exactly; shr_drop_caches() empties the lists of every
 * online cgroup (no object stranded without its bit). At the end: the same. The kernel's
 * own rule for an add through a dying cgroup (the bit goes to the dying
 * caller) could leave the owner's bit clear; the library sets the owner's
 * bit instead (list_lru.c), so any stranded object is a violation. The
 * tainted lists are still tracked and counted; --kernel-bits tolerates them
 * again (for comparing against the kernel's rule). Adds
 * mostly charge the nearest live ancestor, as the kernel's objcg
 * reparenting does; one in eight goes through the dying cgroup itself.
 * Then every cgroup goes offline and a
 * second drop_caches must again leave every list empty; after teardown the
 * private slab allocator's totals equal their snapshot from before the host
 * existed.
 *
 * Locking of the test itself (not of the library): cg_lock guards the
 * cgroup table; each mount slot has a rwlock, read-held by whoever adds to
 * or deletes from that mount, write-held by mount and unmount, so an
 * unmount never destroys lists under an adder. Reclaim takes neither: the
 * library's shrinker pinning is what is under test there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/race.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "superblock.h"

#define MAX_THREADS 16
/* Mount slots; ids grow past 64 and 128 while everything else runs. */
#define MAX_MOUNTS 256
#define DEFAULT_MOUNTS 256
/* Slots open from the start; the rest open gradually (growth under load). */
#define FIRST_MOUNTS 8
#define MAX_CGROUPS 40
/* Cgroup slots taken offline only at the end, so a bit lost in them stays
 * visible until the next quiescent check (any other cgroup's offline would
 * heal it: reparenting sets the parent's bit). */
#define PERSISTENT_CGROUPS 8
#define LEDGER_BITS 15
#define LEDGER_CAP (1u << LEDGER_BITS) /* objects alive at once, at most */
#define GEN_SHIFT 8
/* Window widening defaults (debug builds). */
#define DEFAULT_DELAY_US 100
#define DEFAULT_DELAY_PERMILLE 10
/* Isolate callbacks per run that cycle through every status first. */
#define ISO_CYCLED 60

enum rec_state { REC_FREE, REC_ADDING, REC_ON_LIST, REC_ISOLATED, REC_DELETING };

enum op_kind {
	OP_MOUNT, OP_UMOUNT, OP_CG_CREATE, OP_CG_CREATE_REFUSED, OP_CG_OFFLINE,
	OP_CG_OFFLINE_BUSY, OP_CG_RELEASE, OP_ADD, OP_DELETE, OP_SHRINK_SLAB,
	OP_MEMCG_RECLAIM, OP_DROP_CACHES, OP_FREED_BY_SCAN, OP_QUEUE_REPARENT, OP_READ_STATS,
	OP_READ_DEBUGFS_COUNT, OP_READ_DEBUGFS_SCAN, OP_READ_BOOKKEEPING, OP_READ_ITER, OP_NR
};

static const char *const op_names[OP_NR] = {
	"mount", "umount", "cg_create", "cg_create_refused(parent offline)", "cg_offline",
	"cg_offline_busy", "cg_release", "obj_add", "obj_delete", "shrink_slab",
	"memcg_reclaim", "drop_caches", "obj_freed_by_scan", "queue_reparent(objects moved)",
	"read: shrinker_get_stats", "read: debugfs count", "read: debugfs scan",
	"read: memcg bookkeeping", "read: memcg iterator walk",
};

struct record {
	/* (gen << GEN_SHIFT) | state. Sync: atomic; CAS moves it. */
	_Atomic uint64_t word;
	/* Written by the adder (inside sb_add_object(), before the object
	 * is on a list, so before any scan can free it and the record be
	 * recycled); read only by the thread that moved the record out of
	 * ON_LIST (deleter: its CAS acquires the adder's release) or at a
	 * quiescent point. Sync: ownership via the word. */
	struct sb_object *obj;
	/* Written by the adder before ADDING; read by would-be deleters
	 * before their CAS (possibly of a later generation: the CAS then
	 * fails). Sync: atomics. */
	atomic_int slot;
	atomic_uint mount_gen;
	/* Walk count at a quiescent point. Sync: main thread, quiescent. */
	unsigned int seen;
};

/*
 * What a mount slot holds: a superblock of the lab (lists on two list_lrus)
 * with one of several shrinker kinds, or a queue cache (struct tq: its own
 * per-cgroup queues, bits set with shr_set_shrinker_bit(), like the
 * kernel's THP deferred split queue).
 */
enum mount_kind {
	MK_SB,            /* NUMA | MEMCG | ROOT_BITS (the lab's default) */
	MK_SB_NOROOTBITS, /* NUMA | MEMCG: the root walk list under indexed */
	MK_SB_NONUMA,     /* MEMCG | ROOT_BITS: deferred work in slot 0 */
	MK_PLAIN,         /* NUMA, not memcg-aware: root lists, root walk only */
	MK_PLAIN_NONUMA,  /* neither */
	MK_QUEUE,         /* NUMA | MEMCG | NONSLAB, own queues and bits */
	MK_QUEUE_ROOTBITS,/* the same with ROOT_BITS (root bits set by hand) */
	MK_NR
};

static const char *const kind_names[MK_NR] = {
	"sb", "sb, no root bits", "sb, not NUMA-aware", "sb, not memcg-aware",
	"sb, neither NUMA- nor memcg-aware", "queue (NONSLAB, own bits)",
	"queue (NONSLAB, own bits, root bits)",
};

/* Mount kinds drawn per 100 mounts. */
static const unsigned int kind_weight[MK_NR] = { 40, 12, 10, 8, 5, 15, 10 };

struct tq;

struct mount_slot {
	pthread_rwlock_t lock;
	/* Sync: written under lock (write), with atomic stores; read under
	 * lock (read), or peeked at with an atomic load (op_add()). One of
	 * them is set while mounted. */
	struct sb *_Atomic sb;
	struct tq *_Atomic q;
	/* Sync: lock. */
	enum mount_kind kind;
	unsigned int gen;
};

enum cg_state { CG_EMPTY, CG_ONLINE, CG_OFFLINING, CG_DYING };

struct cg_slot {
	/* Sync: cg_lock. The table owns one reference on memcg (taken at
	 * create, put at release), besides the creator's base reference. */
	struct shr_mem_cgroup *memcg;
	enum cg_state state;
	/* Nodes on which an add through a dying descendant may have put an
	 * item on this cgroup's list without setting its bit. */
	uint64_t taint_nodes;
};

struct config {
	struct shr_host_params params;
	int seconds;
	uint64_t seed;
	int threads;
	/* Window widening (debug builds): longest delay, probability in 1/1000;
	 * max_us 0 = off. */
	unsigned int delay_max_us;
	unsigned int delay_permille;
	uint64_t delay_mask; /* race points that may delay */
	int mounts;          /* mount slots used (--mounts) */
	bool faults;         /* inject allocation failures while workers run */
	bool readers;        /* the readers' operations (--no-readers: off) */
	/* get_stats and bookkeeping readers (--readers-no-stats: off; both
	 * walk cgroups that are not online yet, issue 11 bug 3). */
	bool stats_readers;
	int id_base;         /* ids taken before the run (--id-base) */
};

static struct {
	struct config cfg;
	const char *design;
	struct shr_host *host;
	struct sb_fs fs;
	struct record ledger[LEDGER_CAP];
	/* Free record indices. Sync: free_lock. */
	pthread_mutex_t free_lock;
	unsigned int free_stack[LEDGER_CAP];
	unsigned int nr_free;
	struct mount_slot mounts[MAX_MOUNTS];
	/* Slots [0, mount_limit) may be mounted; the main thread raises it
	 * over the first half of the run. Sync: atomic. */
	atomic_int mount_limit;
	/* Highest shrinker id seen at a mount. Sync: atomic max. */
	atomic_int max_id;
	/* --id-base: the shrinkers holding ids 0..id_base-1 (NULL at a hole).
	 * Sync: main thread, before the workers start and after they end. */
	struct shr_shrinker **ballast;
	pthread_mutex_t cg_lock;
	struct cg_slot cgs[MAX_CGROUPS];
	atomic_bool pause, stop;
	pthread_barrier_t stopped, resume;
	atomic_ulong ops[OP_NR];
	unsigned long checks;
	/* Objects reclaim could not see for the kernel's reason (see
	 * check_stranded()). Sync: main thread, quiescent. */
	unsigned long stranded_known;
	/* Reparent checks in which the child held deferred work (so the
	 * check had something to conserve). Sync: main thread. */
	unsigned long deferred_moved;
	/* Tolerate no stranded object at all (default; --kernel-bits clears
	 * it). Sync: main. */
	bool strict_bits;
	/* Calls that failed with -ENOMEM (injected). Sync: atomic. */
	atomic_ulong enomem;
	/* The run's allocator (fault injection). Sync: immutable per run. */
	struct shr_slab_allocator *sa;
	/* Isolate callback results of scans, by status. Sync: atomic. */
	atomic_ulong iso_status[SHR_LRU_STOP + 1];
	/* Whether scans draw random statuses: only while the workers run (the
	 * checks' drop_caches must be able to empty every list). Sync: atomic;
	 * changed by the main thread with the workers paused or stopped. */
	atomic_bool iso_random;
	/* Isolate callbacks with random statuses so far. Sync: atomic. */
	atomic_ulong iso_calls;
	/* Objects of the queue caches (struct tq). Sync: immutable per run. */
	struct shr_kmem_cache *tq_cache;
	/* Mounts per kind. Sync: atomic. */
	atomic_ulong mounts_of_kind[MK_NR];
	/* Race-point hits summed over the designs run. Sync: main thread. */
	unsigned long race_hits[SHR_RACE_NR];
	bool race_reachable[SHR_RACE_NR];
} T;

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rng_below(uint64_t *s, unsigned int bound)
{
	return (unsigned int)(rng_next(s) % bound);
}

static void count_op(enum op_kind k)
{
	atomic_fetch_add_explicit(&T.ops[k], 1, memory_order_relaxed);
}

__attribute__((format(printf, 1, 2), noreturn)) static void violation(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "torture: VIOLATION (design %s, seed %" PRIu64 "): ", T.design,
		T.cfg.seed);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntorture: replay with -s %" PRIu64 " -d %s\n", T.cfg.seed, T.design);
	fflush(stderr);
	_exit(1);
}

/* A call failed with @ret: fine if it is -ENOMEM while faults are injected. */
static void enomem_ok(int ret, const char *what)
{
	if (ret != -ENOMEM || !T.cfg.faults)
		violation("%s: %d", what, ret);
	atomic_fetch_add_explicit(&T.enomem, 1, memory_order_relaxed);
}

/* ---- ledger ------------------------------------------------------------ */

static uint64_t mkword(uint64_t gen, enum rec_state st)
{
	return (gen << GEN_SHIFT) | st;
}

static enum rec_state word_state(uint64_t w)
{
	return (enum rec_state)(w & ((1u << GEN_SHIFT) - 1));
}

static uint64_t word_gen(uint64_t w)
{
	return w >> GEN_SHIFT;
}

static unsigned long mkserial(unsigned int idx, uint64_t gen)
{
	return (unsigned long)(gen << LEDGER_BITS) | idx;
}

static struct record *serial_record(unsigned long serial, uint64_t *gen)
{
	*gen = serial >> LEDGER_BITS;
	return &T.ledger[serial & (LEDGER_CAP - 1)];
}

static bool record_get(unsigned int *idx)
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

static void record_put(unsigned int idx)
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
static bool ledger_may_isolate(struct sb_object *obj, void *arg)
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
static enum shr_lru_status pick_isolate_status(struct sb_object *obj, void *arg)
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

static void ledger_on_free(struct sb_object *obj, enum sb_free_reason why, void *arg)
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

/* ---- queue caches --------------------------------------------------------- */

static void sleep_s(double s);
static double now_s(void);

/*
 * A memcg-aware, NONSLAB cache that keeps its objects on its own queues per
 * (cgroup, node), like the kernel's THP deferred split queue: it sets the
 * cgroup's bit itself (shr_set_shrinker_bit()) when a queue goes 0 -> 1,
 * and moves a cgroup's queues to the nearest live ancestor when the cgroup
 * goes offline (tq_reparent(), called after every offline), setting that
 * ancestor's bit. With kmem off it is what non-root reclaim still calls,
 * and with nonslab_ids it lives in the second id space.
 *
 * Locking: tq.lock guards the table and every queue; objects pin the cgroup
 * they were charged to, an entry pins the cgroup it is for. The lock ranks
 * above the library's locks (shr_set_shrinker_bit() may take
 * shrinker_mutex under it); the library never calls the cache with one of
 * its locks held.
 */
#define TQ_BUCKETS 64

struct tq_cg {
	struct shr_mem_cgroup *memcg; /* referenced */
	unsigned long ino;
	struct tq_cg *next;
	long nr[SHR_MAX_NUMNODES];
	struct shr_list_head items[SHR_MAX_NUMNODES];
};

struct tq {
	struct shr_shrinker *shrinker;
	pthread_mutex_t lock;
	struct tq_cg *buckets[TQ_BUCKETS];
};

/* The object: a lab object (the ledger's view) and its current queue. */
struct tq_obj {
	struct sb_object base;
	struct tq_cg *owner; /* Sync: tq.lock */
};

/* The entry of @memcg, created if @create. Context: q->lock. */
static struct tq_cg *tq_find(struct tq *q, struct shr_mem_cgroup *memcg, bool create)
{
	unsigned long ino = shr_mem_cgroup_ino(memcg);
	struct tq_cg **b = &q->buckets[ino % TQ_BUCKETS], *c;

	for (c = *b; c; c = c->next)
		if (c->ino == ino)
			return c;
	if (!create)
		return NULL;
	c = calloc(1, sizeof(*c)); /* test bookkeeping, not modelled memory */
	if (!c)
		violation("out of memory for the queue table");
	c->memcg = memcg;
	c->ino = ino;
	shr_mem_cgroup_get(memcg);
	for (int n = 0; n < SHR_MAX_NUMNODES; n++)
		shr_list_head_init(&c->items[n]);
	c->next = *b;
	*b = c;
	return c;
}

static void tq_link(struct tq_cg *c, struct tq_obj *o, int nid)
{
	struct shr_list_head *head = &c->items[nid], *item = &o->base.lru;

	shr_list_add_tail(item, head);
	o->owner = c;
	c->nr[nid]++;
}

static void tq_unlink(struct tq_obj *o)
{
	struct shr_list_head *item = &o->base.lru;

	shr_list_del_init(item);
	o->owner->nr[o->base.nid]--;
}

static void tq_obj_free(struct tq_obj *o, enum sb_free_reason why)
{
	struct shr_mem_cgroup *memcg = o->base.memcg;

	ledger_on_free(&o->base, why, NULL);
	shr_kmem_cache_free(T.tq_cache, o);
	shr_mem_cgroup_put(memcg);
}

static unsigned long tq_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct tq *q = s->private_data;
	struct tq_cg *c;
	long n = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, sc->memcg ? sc->memcg : shr_host_root_mem_cgroup(T.host), false);
	if (c)
		n = c->nr[sc->nid];
	pthread_mutex_unlock(&q->lock);
	return n ? (unsigned long)n : SHR_SHRINK_EMPTY;
}

static unsigned long tq_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct tq *q = s->private_data;
	struct tq_obj *dispose[64];
	unsigned long freed = 0, looked = 0;
	struct tq_cg *c;

	do {
		int nr = 0;

		pthread_mutex_lock(&q->lock);
		c = tq_find(q, sc->memcg ? sc->memcg : shr_host_root_mem_cgroup(T.host), false);
		if (c) {
			struct shr_list_head *head = &c->items[sc->nid], *item = head->next, *next;

			for (; item != head && nr < 64 && looked < sc->nr_to_scan; item = next) {
				struct tq_obj *o = (struct tq_obj *)(void *)item;

				next = item->next;
				looked++;
				if (!ledger_may_isolate(&o->base, NULL))
					continue; /* its deleter takes it */
				tq_unlink(o);
				dispose[nr++] = o;
			}
		}
		pthread_mutex_unlock(&q->lock);
		for (int i = 0; i < nr; i++)
			tq_obj_free(dispose[i], SB_FREE_SCAN);
		freed += (unsigned long)nr;
		if (nr < 64)
			break;
	} while (looked < sc->nr_to_scan);
	return freed;
}

static int tq_mount(unsigned int flags, struct tq **out)
{
	struct tq *q = calloc(1, sizeof(*q));
	int ret;

	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	ret = shr_shrinker_alloc(T.host, flags, "tq", &q->shrinker);
	if (ret) {
		pthread_mutex_destroy(&q->lock);
		free(q);
		return ret;
	}
	q->shrinker->count_objects = tq_count;
	q->shrinker->scan_objects = tq_scan;
	q->shrinker->batch = 64;
	q->shrinker->private_data = q;
	ret = shr_shrinker_register(q->shrinker);
	if (ret)
		violation("shr_shrinker_register: %d", ret);
	*out = q;
	return 0;
}

static void tq_umount(struct tq *q)
{
	shr_shrinker_free(q->shrinker);
	for (int b = 0; b < TQ_BUCKETS; b++) {
		while (q->buckets[b]) {
			struct tq_cg *c = q->buckets[b];

			for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
				while (!shr_list_head_empty(&c->items[n])) {
					struct tq_obj *o = (struct tq_obj *)(void *)c->items[n].next;

					if (!ledger_may_isolate(&o->base, NULL))
						violation("queue object being deleted during its unmount");
					tq_unlink(o);
					tq_obj_free(o, SB_FREE_UMOUNT);
				}
			}
			q->buckets[b] = c->next;
			shr_mem_cgroup_put(c->memcg);
			free(c);
		}
	}
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/*
 * Add an object charged to @memcg on @nid to the queue of @memcg, or of its
 * nearest live ancestor if it is dying (a dying cgroup's queues have been
 * or are about to be moved). Returns 0 or -ENOMEM (nothing added).
 */
static int tq_add(struct tq *q, struct shr_mem_cgroup *memcg, int nid, unsigned long serial,
		  struct sb_object **out)
{
	struct tq_obj *o = shr_kmem_cache_alloc_node(T.tq_cache, nid, SHR_GFP_ZERO);
	struct shr_mem_cgroup *target = memcg;
	struct tq_cg *c;
	int ret = 0;

	if (!o)
		return -ENOMEM;
	shr_list_head_init(&o->base.lru);
	o->base.memcg = memcg;
	o->base.nid = nid;
	o->base.serial = serial;
	shr_mem_cgroup_get(memcg);
	*out = &o->base;
	pthread_mutex_lock(&q->lock);
	while (shr_mem_cgroup_is_dying(target))
		target = shr_mem_cgroup_parent(target);
	c = tq_find(q, target, true);
	tq_link(c, o, nid);
	/* The object first, then the bit (its barrier pairs with reclaim's
	 * clear / barrier / recount: docs/RACES.md R1). */
	if (c->nr[nid] == 1) {
		ret = shr_set_shrinker_bit(target, nid, q->shrinker);
		if (ret)
			tq_unlink(o);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret) {
		shr_kmem_cache_free(T.tq_cache, o);
		shr_mem_cgroup_put(memcg);
	}
	return ret;
}

/* Remove and free @obj if it is queued: 1, or 0. */
static int tq_delete(struct tq *q, struct sb_object *obj)
{
	struct tq_obj *o = (struct tq_obj *)(void *)obj;
	bool queued;

	pthread_mutex_lock(&q->lock);
	queued = !shr_list_head_empty(&o->base.lru);
	if (queued)
		tq_unlink(o);
	pthread_mutex_unlock(&q->lock);
	if (queued)
		tq_obj_free(o, SB_FREE_DELETE);
	return queued;
}

/* @memcg went offline: move its queues to its nearest live ancestor. */
static void tq_reparent(struct tq *q, struct shr_mem_cgroup *memcg)
{
	struct shr_mem_cgroup *to = shr_mem_cgroup_parent(memcg);
	struct tq_cg *c, *pc, **link;
	unsigned long moved = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, memcg, false);
	if (!c) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	while (shr_mem_cgroup_is_dying(to))
		to = shr_mem_cgroup_parent(to);
	pc = tq_find(q, to, true);
	for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
		long nr = c->nr[n];

		while (!shr_list_head_empty(&c->items[n])) {
			struct tq_obj *o = (struct tq_obj *)(void *)c->items[n].next;

			tq_unlink(o);
			tq_link(pc, o, n);
		}
		/* Every move sets the bit (as list_lru reparenting does); it can
		 * only fail for lack of memory (installing the ancestor's
		 * bookkeeping), and then the objects would be stranded: retry
		 * until the injector's rule changes (every few ms). */
		for (int tries = 0; nr && shr_set_shrinker_bit(to, n, q->shrinker); tries++) {
			if (tries > 20000)
				violation("shr_set_shrinker_bit keeps failing while reparenting");
			sleep_s(0.0001);
		}
		moved += (unsigned long)nr;
	}
	for (link = &q->buckets[c->ino % TQ_BUCKETS]; *link != c; link = &(*link)->next)
		;
	*link = c->next;
	pthread_mutex_unlock(&q->lock);
	shr_mem_cgroup_put(c->memcg);
	free(c);
	atomic_fetch_add_explicit(&T.ops[OP_QUEUE_REPARENT], moved, memory_order_relaxed);
}

/* Objects of @q on (@nid, @memcg)'s queue, or in all. Context: quiescent
 * or q->lock not held by the caller. */
static unsigned long tq_count_one(struct tq *q, int nid, struct shr_mem_cgroup *memcg)
{
	struct tq_cg *c;
	long n = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, memcg, false);
	if (c)
		n = c->nr[nid];
	pthread_mutex_unlock(&q->lock);
	return (unsigned long)n;
}

static unsigned long tq_count_all(struct tq *q)
{
	unsigned long n = 0;

	pthread_mutex_lock(&q->lock);
	for (int b = 0; b < TQ_BUCKETS; b++)
		for (struct tq_cg *c = q->buckets[b]; c; c = c->next)
			for (int i = 0; i < T.cfg.params.nr_nodes; i++)
				n += (unsigned long)c->nr[i];
	pthread_mutex_unlock(&q->lock);
	return n;
}

/* Call @fn on every queued object (quiescent: no lock juggling needed). */
static void tq_walk(struct tq *q, void (*fn)(struct sb_object *obj, void *arg), void *arg)
{
	pthread_mutex_lock(&q->lock);
	for (int b = 0; b < TQ_BUCKETS; b++)
		for (struct tq_cg *c = q->buckets[b]; c; c = c->next)
			for (int n = 0; n < T.cfg.params.nr_nodes; n++)
				for (struct shr_list_head *i = c->items[n].next; i != &c->items[n];
				     i = i->next)
					fn((struct sb_object *)(void *)i, arg);
	pthread_mutex_unlock(&q->lock);
}

/* ---- mounts of every kind ----------------------------------------------- */

static bool mnt_mounted(const struct mount_slot *m)
{
	return m->sb || m->q;
}

static struct shr_shrinker *mnt_shrinker(const struct mount_slot *m)
{
	return m->sb ? m->sb->shrinker : m->q->shrinker;
}

static bool mnt_memcg_aware(const struct mount_slot *m)
{
	return shr_shrinker_flags(mnt_shrinker(m)) & SHR_SHRINKER_MEMCG_AWARE;
}

static unsigned long mnt_count(struct mount_slot *m, int nid, struct shr_mem_cgroup *memcg)
{
	return m->sb ? sb_count(m->sb, nid, memcg) : tq_count_one(m->q, nid, memcg);
}

static unsigned long mnt_count_all(struct mount_slot *m)
{
	return m->sb ? sb_count_all(m->sb) : tq_count_all(m->q);
}

static int mnt_add(struct mount_slot *m, struct shr_mem_cgroup *memcg, int nid, bool is_inode,
		   unsigned long serial, struct sb_object **out)
{
	if (m->sb)
		return sb_add_object(m->sb, memcg, nid, is_inode, serial, out);
	return tq_add(m->q, memcg, nid, serial, out);
}

static int mnt_delete(struct mount_slot *m, struct sb_object *obj)
{
	return m->sb ? sb_delete_object(m->sb, obj) : tq_delete(m->q, obj);
}

/* Mount @kind in @m. Context: @m's lock held for writing, slot empty. */
static int mnt_mount(struct mount_slot *m, enum mount_kind kind)
{
	/* Under kmem off, memcg-aware superblocks are NONSLAB (fs default). */
	unsigned int extra = T.fs.extra_shrinker_flags;
	const unsigned int numa_memcg = SHR_SHRINKER_NUMA_AWARE | SHR_SHRINKER_MEMCG_AWARE;
	struct sb *sb = NULL;
	struct tq *q = NULL;
	int ret;

	switch (kind) {
	case MK_SB:
		ret = sb_mount(&T.fs, "tmpfs", &sb);
		break;
	case MK_SB_NOROOTBITS:
		ret = sb_mount_with(&T.fs, "tmpfs", numa_memcg | extra, &sb);
		break;
	case MK_SB_NONUMA:
		ret = sb_mount_with(&T.fs, "tmpfs",
					SHR_SHRINKER_MEMCG_AWARE | SHR_SHRINKER_ROOT_BITS | extra, &sb);
		break;
	case MK_PLAIN:
		ret = sb_mount_with(&T.fs, "tmpfs", SHR_SHRINKER_NUMA_AWARE, &sb);
		break;
	case MK_PLAIN_NONUMA:
		ret = sb_mount_with(&T.fs, "tmpfs", 0, &sb);
		break;
	case MK_QUEUE:
		ret = tq_mount(numa_memcg | SHR_SHRINKER_NONSLAB, &q);
		break;
	default:
		ret = tq_mount(numa_memcg | SHR_SHRINKER_NONSLAB | SHR_SHRINKER_ROOT_BITS, &q);
		break;
	}
	if (ret)
		return ret;
	m->kind = kind;
	atomic_store_explicit(&m->sb, sb, memory_order_relaxed);
	atomic_store_explicit(&m->q, q, memory_order_relaxed);
	atomic_fetch_add_explicit(&T.mounts_of_kind[kind], 1, memory_order_relaxed);
	return 0;
}

/* Context: @m's lock held for writing (or quiescent), mounted. */
static void mnt_umount(struct mount_slot *m)
{
	if (m->sb)
		sb_umount(m->sb);
	else
		tq_umount(m->q);
	atomic_store_explicit(&m->sb, NULL, memory_order_relaxed);
	atomic_store_explicit(&m->q, NULL, memory_order_relaxed);
}

static enum mount_kind pick_kind(uint64_t *rng)
{
	unsigned int total = 0, r;
	int k;

	for (k = 0; k < MK_NR; k++)
		total += kind_weight[k];
	r = rng_below(rng, total);
	for (k = 0; r >= kind_weight[k]; k++)
		r -= kind_weight[k];
	return (enum mount_kind)k;
}

/* @memcg went offline: every queue cache moves its queues up. */
static void tq_reparent_all(struct shr_mem_cgroup *memcg)
{
	for (int s = 0; s < T.cfg.mounts; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (!atomic_load_explicit(&m->q, memory_order_relaxed))
			continue;
		pthread_rwlock_rdlock(&m->lock);
		if (m->q)
			tq_reparent(m->q, memcg);
		pthread_rwlock_unlock(&m->lock);
	}
}

/* ---- cgroups ----------------------------------------------------------- */

/* A referenced cgroup from the table (or the root), any state but EMPTY. */
static struct shr_mem_cgroup *cg_pick_from(uint64_t *rng, bool allow_root, unsigned int first)
{
	struct shr_mem_cgroup *memcg = NULL;
	unsigned int i = first + rng_below(rng, MAX_CGROUPS - first + (allow_root ? 4 : 0));

	if (i >= MAX_CGROUPS)
		return shr_host_root_mem_cgroup(T.host);
	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state != CG_EMPTY) {
		memcg = T.cgs[i].memcg;
		shr_mem_cgroup_get(memcg);
	}
	pthread_mutex_unlock(&T.cg_lock);
	return memcg;
}

static struct shr_mem_cgroup *cg_pick(uint64_t *rng, bool allow_root)
{
	return cg_pick_from(rng, allow_root, 0);
}

/* Half the time a persistent cgroup (the busy containers), else any. */
static struct shr_mem_cgroup *cg_pick_busy(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = NULL;
	unsigned int i = rng_below(rng, PERSISTENT_CGROUPS);

	if (rng_below(rng, 2))
		return cg_pick(rng, true);
	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state == CG_ONLINE) {
		memcg = T.cgs[i].memcg;
		shr_mem_cgroup_get(memcg);
	}
	pthread_mutex_unlock(&T.cg_lock);
	return memcg ? memcg : cg_pick(rng, true);
}

/*
 * A new cgroup's parent: the root or a cgroup that is not persistent, so
 * persistent ones stay leaves (no child's offline sets their bits for them,
 * which would hide a lost one).
 */
static void op_cg_create(uint64_t *rng)
{
	struct shr_mem_cgroup *parent = cg_pick_from(rng, true, PERSISTENT_CGROUPS), *memcg;
	int ret, i;

	if (!parent)
		return;
	ret = shr_mem_cgroup_create(parent, &memcg);
	if (ret == -EINVAL && !shr_mem_cgroup_is_online(parent)) {
		shr_mem_cgroup_put(parent);
		count_op(OP_CG_CREATE_REFUSED);
		return;
	}
	shr_mem_cgroup_put(parent);
	if (ret) {
		enomem_ok(ret, "shr_mem_cgroup_create");
		return;
	}
	count_op(OP_CG_CREATE);
	pthread_mutex_lock(&T.cg_lock);
	for (i = 0; i < MAX_CGROUPS && T.cgs[i].state != CG_EMPTY; i++)
		;
	if (i < MAX_CGROUPS) {
		shr_mem_cgroup_get(memcg);
		T.cgs[i].memcg = memcg;
		T.cgs[i].state = CG_ONLINE;
	}
	pthread_mutex_unlock(&T.cg_lock);
	if (i == MAX_CGROUPS) { /* table full: rmdir it right away */
		ret = shr_mem_cgroup_offline(memcg);
		if (ret)
			violation("offline of a childless new cgroup: %d", ret);
	}
}

/* Offline the cgroup in slot @i (ONLINE); returns the library's result. */
static int cg_offline_slot(int i)
{
	struct shr_mem_cgroup *memcg;
	int ret;

	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state != CG_ONLINE) {
		pthread_mutex_unlock(&T.cg_lock);
		return -EAGAIN;
	}
	T.cgs[i].state = CG_OFFLINING;
	memcg = T.cgs[i].memcg;
	pthread_mutex_unlock(&T.cg_lock);
	ret = shr_mem_cgroup_offline(memcg);
	if (ret && ret != -EBUSY)
		violation("shr_mem_cgroup_offline: %d", ret);
	if (!ret)
		tq_reparent_all(memcg);
	pthread_mutex_lock(&T.cg_lock);
	T.cgs[i].state = ret ? CG_ONLINE : CG_DYING;
	pthread_mutex_unlock(&T.cg_lock);
	return ret;
}

static void op_cg_offline(uint64_t *rng)
{
	int slot = (int)rng_below(rng, MAX_CGROUPS);
	int ret;

	/* Persistent slots go offline only at the end (PERSISTENT_CGROUPS). */
	if (slot < PERSISTENT_CGROUPS)
		return;
	ret = cg_offline_slot(slot);

	if (ret == 0)
		count_op(OP_CG_OFFLINE);
	else if (ret == -EBUSY)
		count_op(OP_CG_OFFLINE_BUSY);
}

static void op_cg_release(uint64_t *rng)
{
	unsigned int i = rng_below(rng, MAX_CGROUPS);
	struct shr_mem_cgroup *memcg = NULL;

	pthread_mutex_lock(&T.cg_lock);
	if (T.cgs[i].state == CG_DYING) {
		memcg = T.cgs[i].memcg;
		T.cgs[i].memcg = NULL;
		T.cgs[i].state = CG_EMPTY;
	}
	pthread_mutex_unlock(&T.cg_lock);
	if (memcg) {
		shr_mem_cgroup_put(memcg);
		count_op(OP_CG_RELEASE);
	}
}

/* ---- mounts and objects ------------------------------------------------ */

#define RECENT 256

/* A worker's own state: its PRNG and the records it added lately (the
 * deleter's candidates; stale ones fail the generation check). */
struct worker_state {
	uint64_t rng;
	unsigned int recent[RECENT];
	unsigned int nr_recent;
};

static void op_add_to(struct worker_state *ws, int slot, bool lasting);

static unsigned int mount_limit(void)
{
	return (unsigned int)atomic_load_explicit(&T.mount_limit, memory_order_relaxed);
}

static void note_id(int id)
{
	int old = atomic_load(&T.max_id);

	while (id > old && !atomic_compare_exchange_weak(&T.max_id, &old, id))
		;
}

/*
 * Mount, unmount or remount (a container restart) a random open slot. A new
 * mount gets the lowest free id (often the one just released, whose bits
 * other cgroups may still hold) and its first objects right away, in random
 * cgroups: the moment the id-reuse race of docs/RACES.md R2 needs.
 */
static void op_mount_toggle(struct worker_state *ws)
{
	int slot = (int)rng_below(&ws->rng, mount_limit());
	unsigned int what = rng_below(&ws->rng, 3);
	struct mount_slot *m = &T.mounts[slot];
	enum mount_kind kind = pick_kind(&ws->rng);
	bool mounted = false;
	int ret;

	pthread_rwlock_wrlock(&m->lock);
	/* Mounted: unmount, remount or leave it, a third each (about 3/4 of
	 * the open slots stay mounted). */
	if (mnt_mounted(m) && what == 0) {
		pthread_rwlock_unlock(&m->lock);
		return;
	}
	if (mnt_mounted(m)) {
		mnt_umount(m);
		m->gen++;
		count_op(OP_UMOUNT);
	}
	if (!mnt_mounted(m) && what != 1) {
		ret = mnt_mount(m, kind);
		if (ret) {
			enomem_ok(ret, "mount");
			pthread_rwlock_unlock(&m->lock);
			return;
		}
		m->gen++;
		note_id(shr_shrinker_id(mnt_shrinker(m)));
		count_op(OP_MOUNT);
		mounted = true;
	}
	pthread_rwlock_unlock(&m->lock);
	for (unsigned int n = mounted ? 2 + rng_below(&ws->rng, 15) : 0; n; n--)
		op_add_to(ws, slot, true);
}

/*
 * An add through dying @memcg lands on the list of some living ancestor,
 * with the bit set on @memcg (kernel behaviour): taint them all on @nid.
 * The chain is pinned by the caller's reference on @memcg.
 */
static void taint_ancestors(struct shr_mem_cgroup *memcg, int nid)
{
	pthread_mutex_lock(&T.cg_lock);
	for (struct shr_mem_cgroup *a = shr_mem_cgroup_parent(memcg); a;
	     a = shr_mem_cgroup_parent(a))
		for (int i = 0; i < MAX_CGROUPS; i++)
			if (T.cgs[i].memcg == a)
				T.cgs[i].taint_nodes |= 1ULL << nid;
	pthread_mutex_unlock(&T.cg_lock);
}

/* Add one object to a random cgroup and node of the mount in @slot. */
/*
 * Add one object to a random cgroup and node of the mount in @slot. A
 * @lasting object (a new mount's first files) goes to a busy cgroup and is
 * not offered to the deleters: only reclaim or the unmount frees it, so if
 * its bit were lost the object would stay until a check sees it.
 */
static void op_add_to(struct worker_state *ws, int slot, bool lasting)
{
	uint64_t *rng = &ws->rng;
	struct mount_slot *m = &T.mounts[slot];
	struct shr_mem_cgroup *memcg, *target;
	struct record *rec;
	unsigned int idx;
	uint64_t gen, expect;
	int nid = (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes);
	int ret;

	memcg = lasting ? cg_pick_busy(rng) : cg_pick(rng, true);
	if (!memcg)
		return;
	/*
	 * Mostly charge like the kernel's objcg reparenting does: to the
	 * nearest ancestor that is not dying (pinned through @memcg's
	 * reference on its parent); sometimes add through the dying cgroup
	 * itself to exercise the library's climb.
	 */
	target = memcg;
	if (rng_below(rng, 8))
		while (shr_mem_cgroup_is_dying(target))
			target = shr_mem_cgroup_parent(target);
	pthread_rwlock_rdlock(&m->lock);
	if (!mnt_mounted(m) || !record_get(&idx)) {
		pthread_rwlock_unlock(&m->lock);
		shr_mem_cgroup_put(memcg);
		return;
	}
	rec = &T.ledger[idx];
	gen = word_gen(atomic_load(&rec->word));
	atomic_store_explicit(&rec->slot, slot, memory_order_relaxed);
	atomic_store_explicit(&rec->mount_gen, m->gen, memory_order_relaxed);
	atomic_store(&rec->word, mkword(gen, REC_ADDING));
	ret = mnt_add(m, target, nid, rng_below(rng, 2), mkserial(idx, gen), &rec->obj);
	if (ret) {
		/* Nothing was added, so no scan saw the object: the record is
		 * still ours, in ADDING. */
		enomem_ok(ret, "add");
		atomic_store(&rec->word, mkword(gen + 1, REC_FREE));
		record_put(idx);
		pthread_rwlock_unlock(&m->lock);
		shr_mem_cgroup_put(memcg);
		return;
	}
	expect = mkword(gen, REC_ADDING);
	/* Release: pairs with the deleter's CAS, so it sees obj. Fails if a
	 * scan already took it (then the record may already be recycled:
	 * touch nothing of it any more). */
	atomic_compare_exchange_strong(&rec->word, &expect, mkword(gen, REC_ON_LIST));
	if (m->sb && shr_mem_cgroup_is_dying(target))
		taint_ancestors(target, nid);
	pthread_rwlock_unlock(&m->lock);
	shr_mem_cgroup_put(memcg);
	if (!lasting)
		ws->recent[ws->nr_recent++ % RECENT] = idx;
	count_op(OP_ADD);
}

/* A few tries at a mounted slot (racy peek; op_add_to() locks). */
static void op_add(struct worker_state *ws)
{
	unsigned int limit = mount_limit();
	int slot = 0;

	for (int tries = 0; tries < 4; tries++) {
		slot = (int)rng_below(&ws->rng, limit);
		if (atomic_load_explicit(&T.mounts[slot].sb, memory_order_relaxed) ||
		    atomic_load_explicit(&T.mounts[slot].q, memory_order_relaxed))
			break;
	}
	op_add_to(ws, slot, false);
}

static void op_delete(struct worker_state *ws)
{
	unsigned int n = ws->nr_recent < RECENT ? ws->nr_recent : RECENT;

	for (int tries = 0; n && tries < 8; tries++) {
		struct record *rec = &T.ledger[ws->recent[rng_below(&ws->rng, n)]];
		uint64_t w = atomic_load(&rec->word);
		struct mount_slot *m;
		struct sb_object *obj;
		int ret;

		if (word_state(w) != REC_ON_LIST)
			continue;
		m = &T.mounts[atomic_load_explicit(&rec->slot, memory_order_relaxed)];
		pthread_rwlock_rdlock(&m->lock);
		if (!mnt_mounted(m) ||
		    m->gen != atomic_load_explicit(&rec->mount_gen, memory_order_relaxed) ||
		    !atomic_compare_exchange_strong(&rec->word, &w,
						    mkword(word_gen(w), REC_DELETING))) {
			pthread_rwlock_unlock(&m->lock);
			continue;
		}
		/* Claimed: no scan may isolate it now, so it must be on a list. */
		obj = rec->obj;
		ret = mnt_delete(m, obj);
		if (ret != 1)
			violation("object %td claimed ON_LIST but shr_list_lru_del returned %d",
				  rec - T.ledger, ret);
		pthread_rwlock_unlock(&m->lock);
		count_op(OP_DELETE);
		return;
	}
}

/* ---- readers ------------------------------------------------------------ */

/*
 * Readers the API documents as safe while everything else runs, racing
 * rmdir and release: a shrinker's statistics and debugfs files (the mount
 * is held, as a file system holds its superblock), a cgroup's bookkeeping
 * bytes (a reference held), and full or broken-off iterator walks, looking
 * cgroups up by inode number. They check only what holds at any time.
 */

/* A mounted slot, read-locked, or NULL. */
static struct mount_slot *lock_some_mount(uint64_t *rng)
{
	for (int tries = 0; tries < 4; tries++) {
		struct mount_slot *m = &T.mounts[rng_below(rng, mount_limit())];

		pthread_rwlock_rdlock(&m->lock);
		if (mnt_mounted(m))
			return m;
		pthread_rwlock_unlock(&m->lock);
	}
	return NULL;
}

static void read_stats(uint64_t *rng)
{
	struct mount_slot *m = lock_some_mount(rng);
	struct shr_shrinker_stats st;
	int ret;

	if (!m)
		return;
	ret = shr_shrinker_get_stats(mnt_shrinker(m), &st);
	if (ret || st.deferred < 0)
		violation("shr_shrinker_get_stats: %d (calls %lu scanned %lu freed %lu deferred %ld)",
			  ret, st.calls, st.scanned, st.freed, st.deferred);
	pthread_rwlock_unlock(&m->lock);
	count_op(OP_READ_STATS);
}

/* The count file: lines of node count + 1 numbers, the first an inode
 * number (> 0; the root's is 1). The queue
 * caches are left out: their count takes a mutex, and the file counts under
 * RCU, where the kernel does not let a count sleep. */
static void read_debugfs_count(uint64_t *rng)
{
	struct mount_slot *m = lock_some_mount(rng);
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!m)
		return;
	if (!m->sb) {
		pthread_rwlock_unlock(&m->lock);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		violation("open_memstream failed");
	ret = shr_shrinker_debugfs_count(mnt_shrinker(m), f);
	fclose(f);
	pthread_rwlock_unlock(&m->lock);
	if (ret)
		violation("shr_shrinker_debugfs_count: %d", ret);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int fields = 0;
		char *p = line, *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || !v)
			violation("debugfs count line without a cgroup: '%s'", line);
		for (; end != p; fields++) {
			p = end;
			(void)strtoul(p, &end, 10);
		}
		if (*p || fields != T.cfg.params.nr_nodes + 1)
			violation("debugfs count line '%s' has %d fields, %d expected", line, fields,
				  T.cfg.params.nr_nodes + 1);
	}
	free(buf);
	count_op(OP_READ_DEBUGFS_COUNT);
}

/* A scan write for a cgroup that may be going or gone: 0 or -ENOENT. */
static void read_debugfs_scan(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	struct mount_slot *m;
	unsigned long ino;
	char input[64];
	int ret;

	if (!memcg)
		return;
	ino = shr_mem_cgroup_ino(memcg);
	shr_mem_cgroup_put(memcg); /* it may go now: -ENOENT is fine */
	m = lock_some_mount(rng);
	if (!m)
		return;
	if (!mnt_memcg_aware(m))
		ino = 0;
	snprintf(input, sizeof(input), "%lu %u %u\n", ino,
		 rng_below(rng, (unsigned int)T.cfg.params.nr_nodes), 1 + rng_below(rng, 64));
	ret = shr_shrinker_debugfs_scan(mnt_shrinker(m), input);
	pthread_rwlock_unlock(&m->lock);
	if (ret && ret != -ENOENT)
		violation("shr_shrinker_debugfs_scan('%s'): %d", input, ret);
	count_op(OP_READ_DEBUGFS_SCAN);
}

static void read_bookkeeping(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	struct shr_memcg_bookkeeping bk;
	int nid = (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes + 1) - 1;
	int ret;

	if (!memcg)
		return;
	ret = shr_mem_cgroup_bookkeeping(memcg, nid, &bk);
	if (ret || !bk.inline_bytes || (bk.nr_units && !bk.unit_bytes))
		violation("shr_mem_cgroup_bookkeeping: %d (inline %lu, %lu units in %lu bytes)", ret,
			  bk.inline_bytes, bk.nr_units, bk.unit_bytes);
	shr_mem_cgroup_put(memcg);
	count_op(OP_READ_BOOKKEEPING);
}

/* A pre-order walk (maybe broken off), each cgroup checked against its
 * parent chain, and one found again by its inode number. */
static void read_iter(uint64_t *rng)
{
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(T.host), *pos = NULL, *again;
	unsigned int stop = rng_below(rng, 64), seen = 0;
	unsigned long pick = 0;

	while ((pos = shr_mem_cgroup_iter(T.host, NULL, pos))) {
		if (!shr_mem_cgroup_is_descendant(pos, root) || shr_mem_cgroup_host(pos) != T.host ||
		    (pos != root && !shr_mem_cgroup_ino(pos)))
			violation("iterator returned a cgroup outside the host's tree");
		if (!rng_below(rng, ++seen))
			pick = shr_mem_cgroup_ino(pos);
		if (seen == stop) {
			shr_mem_cgroup_iter_break(NULL, pos);
			break;
		}
	}
	again = shr_mem_cgroup_from_ino(T.host, pick);
	if (again && shr_mem_cgroup_ino(again) != pick)
		violation("shr_mem_cgroup_from_ino(%lu) found %lu", pick, shr_mem_cgroup_ino(again));
	shr_mem_cgroup_put(again);
	count_op(OP_READ_ITER);
}

static void op_read(uint64_t *rng)
{
	switch (rng_below(rng, 5)) {
	case 0:
		if (T.cfg.stats_readers)
			read_stats(rng);
		break;
	case 1:
		read_debugfs_count(rng);
		break;
	case 2:
		read_debugfs_scan(rng);
		break;
	case 3:
		if (T.cfg.stats_readers)
			read_bookkeeping(rng);
		break;
	default:
		read_iter(rng);
		break;
	}
}

/* ---- reclaim ------------------------------------------------------------ */

static void op_shrink_slab(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick_busy(rng);
	unsigned long freed;
	int ret;

	if (!memcg)
		return;
	ret = shr_shrink_slab(T.host, (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes),
			      memcg, (int)rng_below(rng, SHR_DEF_PRIORITY + 1), &freed);
	if (ret)
		violation("shr_shrink_slab: %d", ret);
	shr_mem_cgroup_put(memcg);
	count_op(OP_SHRINK_SLAB);
}

static void op_memcg_reclaim(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	int ret;

	if (!memcg)
		return;
	ret = shr_mem_cgroup_reclaim(memcg, 1 + rng_below(rng, 256), NULL);
	if (ret && ret != -EAGAIN && !(ret == -ENOENT && !shr_mem_cgroup_is_online(memcg)))
		violation("shr_mem_cgroup_reclaim: %d", ret);
	shr_mem_cgroup_put(memcg);
	count_op(OP_MEMCG_RECLAIM);
}

static void op_drop_caches(void)
{
	int ret = shr_drop_caches(T.host, NULL, NULL);

	if (ret)
		violation("shr_drop_caches: %d", ret);
	count_op(OP_DROP_CACHES);
}

static void one_op(struct worker_state *w)
{
	uint64_t *rng = &w->rng;
	unsigned int r = rng_below(rng, 10000);

	if (r < 200)
		op_mount_toggle(w);
	else if (r < 400)
		op_cg_create(rng);
	else if (r < 700)
		op_cg_offline(rng);
	else if (r < 900)
		op_cg_release(rng);
	else if (r < 5700)
		op_add(w);
	else if (r < 6000 && T.cfg.readers)
		op_read(rng);
	else if (r < 8000)
		op_delete(w);
	else if (r < 9200)
		op_shrink_slab(rng);
	else if (r < 9990)
		op_memcg_reclaim(rng);
	else
		op_drop_caches();
}

static void *worker(void *arg)
{
	struct worker_state w = { .rng = T.cfg.seed * 0x100000001b3ULL + (uint64_t)(uintptr_t)arg };

	shr_thread_register();
	while (!atomic_load(&T.stop)) {
		if (atomic_load(&T.pause)) {
			pthread_barrier_wait(&T.stopped);
			pthread_barrier_wait(&T.resume);
			continue;
		}
		one_op(&w);
	}
	shr_thread_unregister();
	return NULL;
}

/* ---- checks (quiescent) -------------------------------------------------- */

struct walk_ctx {
	unsigned long seen;
};

static void count_seen(struct sb_object *obj, void *arg)
{
	struct walk_ctx *ctx = arg;
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);
	uint64_t w = atomic_load(&rec->word);

	if (word_gen(w) != gen || word_state(w) != REC_ON_LIST)
		violation("object %td gen %" PRIu64 " on a list, ledger says state %d gen %" PRIu64,
			  rec - T.ledger, gen, word_state(w), word_gen(w));
	rec->seen++;
	ctx->seen++;
}

static enum shr_lru_status walk_count(struct shr_list_head *item, struct shr_list_lru_one *list,
				      void *arg)
{
	(void)list;
	count_seen((struct sb_object *)(void *)item, arg);
	return SHR_LRU_SKIP;
}

static void diagnose_record(struct record *rec)
{
	struct sb_object *obj = rec->obj;
	struct mount_slot *m = &T.mounts[atomic_load(&rec->slot)];

	fprintf(stderr,
		"torture: diagnosis: record %td: %s added to cgroup %lu (%s) node %d, mount slot "
		"%d gen %u (slot now %s, gen %u); count_one there %lu\n",
		rec - T.ledger, obj->is_inode ? "inode" : "dentry", shr_mem_cgroup_ino(obj->memcg),
		shr_mem_cgroup_is_online(obj->memcg) ? "online" : "offline", obj->nid,
		atomic_load(&rec->slot), atomic_load(&rec->mount_gen),
		mnt_mounted(m) ? kind_names[m->kind] : "empty", m->gen,
		mnt_mounted(m) ? mnt_count(m, obj->nid, obj->memcg) : 0UL);
}

static enum shr_lru_status walk_print(struct shr_list_head *item, struct shr_list_lru_one *list,
				      void *arg)
{
	struct sb_object *obj = (struct sb_object *)(void *)item;
	uint64_t gen;
	struct record *rec = serial_record(obj->serial, &gen);

	(void)list;
	(void)arg;
	fprintf(stderr, "torture: diagnosis:   holds object %td gen %" PRIu64
			" added for cgroup %lu (%s now)\n",
		rec - T.ledger, gen, shr_mem_cgroup_ino(obj->memcg),
		shr_mem_cgroup_is_online(obj->memcg) ? "online" : "offline");
	return SHR_LRU_SKIP;
}


/*
 * Objects left on an online cgroup's list after drop_caches. One cause is
 * the kernel's own: list_lru_add() through a dying cgroup puts the item on
 * the nearest living ancestor's list but sets the bit of the dying cgroup
 * (which reclaim never visits), so the ancestor's bit can stay clear with
 * that item and every later one on its list. Lists of cgroups tainted by
 * such an add (taint_ancestors()) are counted and reported; an object left
 * on any other list is a violation.
 * Return: true if every object there is explained.
 */
static bool check_stranded(struct mount_slot *m, int nid, int slot, unsigned long *known)
{
	if (T.strict_bits || slot < 0 || !m->sb || !(T.cgs[slot].taint_nodes & (1ULL << nid)))
		return false;
	*known += mnt_count(m, nid, T.cgs[slot].memcg);
	return true;
}

/* Every ON_LIST record on exactly one list; nothing else on any list. */
static void check_ledger(const char *when)
{
	struct walk_ctx ctx = { 0 };
	unsigned long on_list = 0, counted = 0;

	for (unsigned int i = 0; i < LEDGER_CAP; i++)
		T.ledger[i].seen = 0;
	for (int s = 0; s < MAX_MOUNTS; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (m->sb) {
			shr_list_lru_walk(m->sb->dentry_lru, walk_count, &ctx, ~0UL);
			shr_list_lru_walk(m->sb->inode_lru, walk_count, &ctx, ~0UL);
		} else if (m->q) {
			tq_walk(m->q, count_seen, &ctx);
		} else {
			continue;
		}
		counted += mnt_count_all(m);
	}
	for (unsigned int i = 0; i < LEDGER_CAP; i++) {
		enum rec_state st = word_state(atomic_load(&T.ledger[i].word));

		if (st == REC_ON_LIST) {
			on_list++;
			if (T.ledger[i].seen != 1)
				diagnose_record(&T.ledger[i]), violation("%s: object %u is ON_LIST but seen %u times on the lists",
					  when, i, T.ledger[i].seen);
		} else if (st != REC_FREE) {
			violation("%s: record %u in transient state %d at a quiescent point", when, i,
				  st);
		}
	}
	if (ctx.seen != on_list || counted != on_list)
		violation("%s: ledger has %lu objects on lists, walk saw %lu, counts say %lu", when,
			  on_list, ctx.seen, counted);
	if (on_list + T.nr_free != LEDGER_CAP)
		violation("%s: %lu on lists + %u free records != %u", when, on_list, T.nr_free,
			  LEDGER_CAP);
	T.checks++;
}

/* Deferred work @memcg holds, all mounts and nodes. Quiescent. */
static long deferred_total(struct shr_mem_cgroup *memcg)
{
	long sum = 0;

	for (int s = 0; s < MAX_MOUNTS; s++)
		if (mnt_mounted(&T.mounts[s]) && mnt_memcg_aware(&T.mounts[s]))
			for (int n = 0; n < T.cfg.params.nr_nodes; n++)
				sum += shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), memcg, n);
	return sum;
}

/* The untried ONLINE slot holding the most deferred work (random among
 * equals), or -1. */
static int pick_deferred_candidate(uint64_t *rng, const bool *tried)
{
	int best = -1;
	long best_sum = -1;
	unsigned int start = rng_below(rng, MAX_CGROUPS);

	for (unsigned int k = 0; k < MAX_CGROUPS; k++) {
		int i = (int)((start + k) % MAX_CGROUPS);
		long sum;

		if (tried[i] || T.cgs[i].state != CG_ONLINE)
			continue;
		sum = deferred_total(T.cgs[i].memcg);
		if (sum > best_sum) {
			best = i;
			best_sum = sum;
		}
	}
	return best;
}

/* Offline one ONLINE cgroup (preferably one holding deferred work); its
 * deferred work must land in its parent. */
/* Whether the offline check looks at mount @s: memcg-aware ones only (the
 * others keep one counter per node for every cgroup). */
static bool deferred_checked(int s)
{
	return mnt_mounted(&T.mounts[s]) && mnt_memcg_aware(&T.mounts[s]);
}

static void check_deferred_reparent(uint64_t *rng)
{
	static long before_child[MAX_MOUNTS][SHR_MAX_NUMNODES];
	static long before_parent[MAX_MOUNTS][SHR_MAX_NUMNODES];
	int nodes = T.cfg.params.nr_nodes;
	bool tried[MAX_CGROUPS] = { false };

	for (int tries = 0; tries < MAX_CGROUPS; tries++) {
		int i = pick_deferred_candidate(rng, tried);
		struct shr_mem_cgroup *memcg, *parent;
		int ret;

		if (i < 0)
			return;
		tried[i] = true;
		memcg = T.cgs[i].memcg;
		parent = shr_mem_cgroup_parent(memcg);
		for (int s = 0; s < MAX_MOUNTS; s++) {
			if (!deferred_checked(s))
				continue;
			for (int n = 0; n < nodes; n++) {
				before_child[s][n] =
					shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), memcg, n);
				before_parent[s][n] =
					shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), parent, n);
				if (before_child[s][n] < 0 || before_parent[s][n] < 0)
					violation("nr_deferred: %ld %ld", before_child[s][n],
						  before_parent[s][n]);
			}
		}
		ret = cg_offline_slot(i);
		if (ret == -EBUSY)
			continue;
		if (ret)
			violation("quiescent offline: %d", ret);
		count_op(OP_CG_OFFLINE);
		for (int s = 0; s < MAX_MOUNTS; s++) {
			if (!deferred_checked(s))
				continue;
			for (int n = 0; n < nodes; n++) {
				long after = shr_shrinker_nr_deferred(mnt_shrinker(&T.mounts[s]), parent,
								      n);

				if (before_child[s][n])
					T.deferred_moved++;
				if (after != before_parent[s][n] + before_child[s][n])
					violation("deferred not conserved offlining cgroup %lu (node %d, "
						  "shrinker %d): child %ld + parent %ld -> parent %ld",
						  shr_mem_cgroup_ino(memcg), n,
						  shr_shrinker_id(mnt_shrinker(&T.mounts[s])),
						  before_child[s][n], before_parent[s][n], after);
			}
		}
		T.checks++;
		return;
	}
}

/* Tell a missing bit from a reclaim that merely fell short. */
static void diagnose_stranded(struct mount_slot *m, int nid, struct shr_mem_cgroup *memcg)
{
	struct shr_shrinker *shrinker = mnt_shrinker(m);
	unsigned long before = mnt_count(m, nid, memcg), freed = 0;
	struct shr_shrinker_stats st0, st1;
	int ret;

	shr_shrinker_get_stats(shrinker, &st0);
	ret = shr_shrink_slab(T.host, nid, memcg, 0, &freed);
	shr_shrinker_get_stats(shrinker, &st1);
	fprintf(stderr, "torture: diagnosis: shrinker calls %lu -> %lu, scanned %lu -> %lu, "
			"deferred %ld -> %ld; nr_deferred(here) %ld\n",
		st0.calls, st1.calls, st0.scanned, st1.scanned, st0.deferred, st1.deferred,
		shr_shrinker_nr_deferred(shrinker, memcg, nid));

	fprintf(stderr,
		"torture: diagnosis: cgroup %lu (id %d, %s) node %d holds %lu objects of "
		"shrinker %d (%s); shrink_slab(prio 0) -> %d, freed %lu, left %lu%s\n",
		shr_mem_cgroup_ino(memcg), shr_mem_cgroup_id(memcg),
		shr_mem_cgroup_is_online(memcg) ? "online" : "offline", nid, before,
		shr_shrinker_id(shrinker), kind_names[m->kind], ret, freed,
		mnt_count(m, nid, memcg),
		freed ? "" : " (the shrinker was not called: its bit is missing)");
	for (int k = 0; m->sb && k < 2; k++) {
		unsigned long budget = ~0UL;

		shr_list_lru_walk_one(k ? m->sb->inode_lru : m->sb->dentry_lru, nid, memcg,
				      walk_print, NULL, &budget);
	}
}

static void check_lists_empty(const char *when, bool all)
{
	for (int s = 0; s < MAX_MOUNTS; s++) {
		struct mount_slot *m = &T.mounts[s];

		if (!mnt_mounted(m))
			continue;
		for (int i = -1; i < MAX_CGROUPS; i++) {
			struct shr_mem_cgroup *memcg =
				i < 0 ? shr_host_root_mem_cgroup(T.host) : T.cgs[i].memcg;

			if (i >= 0 && T.cgs[i].state != CG_ONLINE)
				continue;
			for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
				if (!mnt_count(m, n, memcg) ||
				    check_stranded(m, n, i, &T.stranded_known))
					continue;
				diagnose_stranded(m, n, memcg);
				violation("%s: %lu objects left on (cgroup %lu, node %d) of shrinker "
					  "%d (%s) after drop_caches",
					  when, mnt_count(m, n, memcg), shr_mem_cgroup_ino(memcg), n,
					  shr_shrinker_id(mnt_shrinker(m)), kind_names[m->kind]);
			}
		}
		if (all && mnt_count_all(m))
			violation("%s: %lu objects left on lists of shrinker %d (%s) after drop_caches",
				  when, mnt_count_all(m), shr_shrinker_id(mnt_shrinker(m)),
				  kind_names[m->kind]);
	}
	check_ledger(when);
	T.checks++;
}

static void quiescent_check(uint64_t *rng)
{
	atomic_store(&T.pause, true);
	pthread_barrier_wait(&T.stopped);
	atomic_store(&T.pause, false);
	atomic_store(&T.iso_random, false);
	check_ledger("quiescent");
	check_deferred_reparent(rng);
	check_ledger("after reparent");
	/* Nothing stranded, now and not only at the end: a bit lost while
	 * the workers ran would heal once its list empties and refills, or
	 * its cgroup goes offline (reparenting sets the parent's bit). */
	op_drop_caches();
	check_lists_empty("quiescent, after drop_caches", false);
	atomic_store(&T.iso_random, true);
	pthread_barrier_wait(&T.resume);
}

/* ---- one run ------------------------------------------------------------ */

static void shrink_cache(struct shr_kmem_cache *cache, void *arg)
{
	(void)arg;
	shr_kmem_cache_shrink(cache);
}

static bool totals_equal(const struct shr_slab_totals *a, const struct shr_slab_totals *b)
{
	if (a->sunreclaim_bytes != b->sunreclaim_bytes ||
	    a->sreclaimable_bytes != b->sreclaimable_bytes ||
	    a->large_kmalloc_bytes != b->large_kmalloc_bytes || a->vmalloc_bytes != b->vmalloc_bytes)
		return false;
	for (int n = 0; n < SHR_MAX_NUMNODES; n++)
		if (a->node_pages[n] != b->node_pages[n])
			return false;
	return true;
}

static void offline_everything(void)
{
	bool progress = true;

	while (progress) {
		progress = false;
		for (int i = 0; i < MAX_CGROUPS; i++) {
			if (T.cgs[i].state == CG_ONLINE && cg_offline_slot(i) == 0) {
				count_op(OP_CG_OFFLINE);
				progress = true;
			}
		}
	}
	for (int i = 0; i < MAX_CGROUPS; i++) {
		if (T.cgs[i].state == CG_ONLINE)
			violation("cgroup in slot %d cannot be taken offline", i);
	}
}

static void release_everything(void)
{
	for (int i = 0; i < MAX_CGROUPS; i++) {
		if (T.cgs[i].state == CG_DYING) {
			shr_mem_cgroup_put(T.cgs[i].memcg);
			T.cgs[i].memcg = NULL;
			T.cgs[i].state = CG_EMPTY;
			count_op(OP_CG_RELEASE);
		}
	}
}

/* Ids freed again after the ballast is made: where a design's per-cgroup
 * structure crosses a size class (header comment). */
static const int ballast_holes[] = { 64, 128, 1024, 65536, 131072, 524288 };

/* Take ids 0..id_base-1, then give the holes back (before the workers). */
static void ballast_fill(void)
{
	unsigned int flags = SHR_SHRINKER_MEMCG_AWARE | T.fs.extra_shrinker_flags;
	double t0 = now_s();
	int holes = 0;

	if (!T.cfg.id_base)
		return;
	T.ballast = calloc((size_t)T.cfg.id_base, sizeof(*T.ballast));
	if (!T.ballast)
		violation("out of memory for %d ballast shrinkers", T.cfg.id_base);
	for (int i = 0; i < T.cfg.id_base; i++) {
		int ret = shr_shrinker_alloc(T.host, flags, NULL, &T.ballast[i]);

		if (ret)
			violation("ballast shrinker %d: %d", i, ret);
		if (shr_shrinker_id(T.ballast[i]) != i)
			violation("ballast shrinker %d got id %d", i,
				  shr_shrinker_id(T.ballast[i]));
	}
	for (size_t h = 0; h < sizeof(ballast_holes) / sizeof(ballast_holes[0]); h++) {
		if (ballast_holes[h] >= T.cfg.id_base)
			continue;
		shr_shrinker_free(T.ballast[ballast_holes[h]]);
		T.ballast[ballast_holes[h]] = NULL;
		holes++;
	}
	/* The holes, then ids past the ballast, taken before the clock. */
	for (int s = 0; s < FIRST_MOUNTS && s < T.cfg.mounts; s++) {
		struct mount_slot *m = &T.mounts[s];
		int ret = mnt_mount(m, MK_SB);

		if (ret)
			violation("mount %d over the ballast: %d", s, ret);
		m->gen++;
		note_id(shr_shrinker_id(mnt_shrinker(m)));
		count_op(OP_MOUNT);
	}
	printf("torture: design %s: ids 0..%d taken by %d ballast shrinkers, %d holes at size-class "
	       "boundaries, in %.1f s; %d mounts up to id %d\n", T.design, T.cfg.id_base - 1,
	       T.cfg.id_base - holes, holes, now_s() - t0,
	       FIRST_MOUNTS < T.cfg.mounts ? FIRST_MOUNTS : T.cfg.mounts, atomic_load(&T.max_id));
	fflush(stdout);
}

static void ballast_free(void)
{
	if (!T.ballast)
		return;
	for (int i = 0; i < T.cfg.id_base; i++)
		shr_shrinker_free(T.ballast[i]);
	free(T.ballast);
	T.ballast = NULL;
}

static void final_checks_and_teardown(struct shr_slab_allocator *sa,
				      const struct shr_slab_totals *snap)
{
	struct shr_slab_totals now;
	int ret;

	check_ledger("end");
	/* Quiescent host, cgroups still online: nothing may escape reclaim. */
	op_drop_caches();
	check_lists_empty("end, cgroups online", false);
	/* Everything offline: all objects now sit on ancestors' lists. */
	offline_everything();
	op_drop_caches();
	check_lists_empty("end, cgroups offline", true);
	release_everything();
	for (int s = 0; s < MAX_MOUNTS; s++)
		if (mnt_mounted(&T.mounts[s]))
			mnt_umount(&T.mounts[s]);
	if (T.nr_free != LEDGER_CAP)
		violation("%u ledger records still held after unmount", LEDGER_CAP - T.nr_free);
	if (atomic_load(&T.fs.nr_alive))
		violation("%ld lab objects alive after unmount", atomic_load(&T.fs.nr_alive));
	sb_fs_destroy(&T.fs);
	if (shr_kmem_cache_destroy(T.tq_cache))
		violation("queue objects left in their cache after unmount");
	T.tq_cache = NULL;
	ballast_free();
	shr_rcu_barrier();
	ret = shr_host_destroy(T.host);
	if (ret)
		violation("shr_host_destroy: %d (cgroups or shrinkers left behind)", ret);
	T.host = NULL;
	shr_rcu_barrier();
	shr_slab_for_each_cache(sa, shrink_cache, NULL);
	shr_slab_totals(sa, &now);
	if (!totals_equal(&now, snap))
		violation("slab totals after teardown differ from before the host: unreclaimable "
			  "%lu -> %lu, reclaimable %lu -> %lu, large %lu -> %lu, vmalloc %lu -> %lu",
			  snap->sunreclaim_bytes, now.sunreclaim_bytes, snap->sreclaimable_bytes,
			  now.sreclaimable_bytes, snap->large_kmalloc_bytes,
			  now.large_kmalloc_bytes, snap->vmalloc_bytes, now.vmalloc_bytes);
	T.checks++;
}

static void reset_state(void)
{
	memset(T.ops, 0, sizeof(T.ops));
	T.checks = 0;
	T.stranded_known = 0;
	T.deferred_moved = 0;
	atomic_store(&T.pause, false);
	atomic_store(&T.stop, false);
	for (unsigned int i = 0; i < LEDGER_CAP; i++) {
		atomic_store(&T.ledger[i].word, mkword(0, REC_FREE));
		T.ledger[i].obj = NULL;
		T.free_stack[i] = LEDGER_CAP - 1 - i;
	}
	T.nr_free = LEDGER_CAP;
	memset(T.cgs, 0, sizeof(T.cgs));
	for (int s = 0; s < MAX_MOUNTS; s++) {
		T.mounts[s].sb = NULL;
		T.mounts[s].q = NULL;
		T.mounts[s].gen = 0;
	}
	for (int k = 0; k < MK_NR; k++)
		atomic_store(&T.mounts_of_kind[k], 0);
	for (int k = 0; k <= SHR_LRU_STOP; k++)
		atomic_store(&T.iso_status[k], 0);
	atomic_store(&T.iso_calls, 0);
	atomic_store(&T.enomem, 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s,
			       .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* ---- window widening --------------------------------------------------- */

/* Stutter: delays on for this long, then off for STUTTER_OFF_S, so the
 * workload keeps passing from slow to fast interleavings (rcutorture). */
#define QUIESCENT_INTERVAL_S 0.5
#define STUTTER_ON_S 0.75
#define STUTTER_OFF_S 0.25

static bool widening(void)
{
	return T.cfg.delay_max_us && shr_race_available();
}

/* Arm (@on) or disarm the delays; a no-op when widening is off. */
static void widen(bool on, uint64_t phase)
{
	int ret;

	if (!widening())
		return;
	if (!on) {
		shr_race_delays_disable();
		return;
	}
	ret = shr_race_delays_enable(T.cfg.delay_mask, T.cfg.seed ^ (phase * 0x9e3779b97f4a7c15ULL),
				     T.cfg.delay_max_us, T.cfg.delay_permille);
	if (ret)
		violation("shr_race_delays_enable: %d", ret);
}

/* Print this design's race-point hits and add them to the run's totals. */
static void report_race_hits(const struct shr_host_params *params)
{
	int unreached = 0;

	if (!shr_race_available())
		return;
	printf("  race points (hits%s):", widening() ? ", delays armed" : "");
	for (int p = 0; p < SHR_RACE_NR; p++) {
		unsigned long h = shr_race_hits((enum shr_race_point)p);
		bool reachable = shr_race_point_reachable((enum shr_race_point)p, params);

		T.race_hits[p] += h;
		T.race_reachable[p] |= reachable;
		if (h)
			printf(" %s=%lu", shr_race_point_name((enum shr_race_point)p), h);
		else if (reachable)
			unreached++;
	}
	printf("\n");
	if (unreached) {
		printf("  race points of this design not reached in this run:");
		for (int p = 0; p < SHR_RACE_NR; p++)
			if (!shr_race_hits((enum shr_race_point)p) &&
			    shr_race_point_reachable((enum shr_race_point)p, params))
				printf(" %s", shr_race_point_name((enum shr_race_point)p));
		printf("\n");
	}
}

/* After every design: each point some design could reach was reached. */
static void check_race_coverage(void)
{
	if (!shr_race_available())
		return;
	for (int p = 0; p < SHR_RACE_NR; p++)
		if (T.race_reachable[p] && !T.race_hits[p])
			violation("race point %s was never reached by the designs run",
				  shr_race_point_name((enum shr_race_point)p));
	printf("torture: every race point reachable by the designs run was reached\n");
}

/* ---- fault injection ---------------------------------------------------- */

/* A new fault rule this often while the workers run. */
#define FAULT_PERIOD_S 0.004

static const char *const fault_sites[] = {
	"radix_tree_node", "kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96",
	"kmalloc-128", "kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1k",
	"shrinker_info_unit", "dentry", "shmem_inode_cache", "tq_obj", "large", "vmalloc",
};

/*
 * Replace the armed rule (the workers keep running): mostly fail one
 * allocation among the next few hundred, whoever makes it; sometimes every
 * allocation of one cache until the next rule; sometimes none. Every call
 * of the workers must then return 0 or -ENOMEM, and the checks (run with
 * faults off) must still hold.
 */
static void arm_fault(uint64_t *rng)
{
	unsigned int r = rng_below(rng, 10);

	if (!T.cfg.faults)
		return;
	if (r < 7)
		shr_slab_fail_nth(T.sa, 1 + rng_below(rng, 300), false);
	else if (r < 9)
		(void)shr_slab_fail_site(T.sa, fault_sites[rng_below(rng, sizeof(fault_sites) /
								   sizeof(fault_sites[0]))]);
	else
		shr_slab_fault_clear(T.sa);
}

/* Open mount slots in proportion to @progress (0..1) of the run, all of
 * them at half time: the high-water id keeps rising while everything runs, so
 * designs that grow their arrays do it under load. */
static void raise_mount_limit(double progress)
{
	int extra = T.cfg.mounts - FIRST_MOUNTS;
	int limit = FIRST_MOUNTS + (int)(extra * (progress / 0.5));

	if (extra <= 0)
		return;
	atomic_store(&T.mount_limit, limit < T.cfg.mounts ? limit : T.cfg.mounts);
}

/* Run one design; returns 0, or 1 when the options do not apply to it
 * (skipped: e.g. --nonslab-ids under a design without nonslab ids). */
static int run_design(enum shr_design design)
{
	struct shr_slab_params sp = { .nr_nodes = T.cfg.params.nr_nodes };
	struct shr_host_params params = T.cfg.params;
	struct shr_slab_allocator *sa;
	struct shr_slab_totals snap;
	pthread_t tids[MAX_THREADS];
	uint64_t rng = T.cfg.seed ^ 0x5eedULL;
	const char *why = NULL;
	double start, elapsed, interval, next, stutter, fault;
	uint64_t phase = 0;
	unsigned long total_ops = 0, injected;
	bool widened = true;
	int ret;

	T.design = shr_design_name(design);
	params.design = design;
	if (shr_host_params_check(&params, &why)) {
		printf("torture: design %s: skipped (%s)\n", T.design, why);
		return 1;
	}
	if (T.cfg.id_base && shr_design_info_of(design)->expand_batch == 1 &&
	    !params.expand_batch) {
		printf("torture: design %s: skipped (--id-base: one id per growth step would copy "
		       "the root's arrays once per ballast id; give --expand-batch)\n", T.design);
		return 1;
	}
	if (T.cfg.id_base && !shr_design_info_of(design)->bits) {
		printf("torture: design %s: skipped (--id-base: without bits every reclaim of a "
		       "cgroup visits every allocated id, ballast included, and the checks' "
		       "drop_caches would take the run; test_memcg_readers_at_scale covers its "
		       "readers past id 131072)\n", T.design);
		return 1;
	}
	reset_state();
	shr_race_hits_reset();
	ret = shr_slab_allocator_create(&sp, &sa);
	if (ret)
		violation("shr_slab_allocator_create: %d", ret);
	shr_slab_totals(sa, &snap);
	params.slab = sa;
	T.sa = sa;
	ret = shr_host_create(&params, &T.host);
	if (ret)
		violation("shr_host_create: %d", ret);
	ret = sb_fs_init(&T.fs, T.host);
	if (ret)
		violation("sb_fs_init: %d", ret);
	T.fs.may_isolate = ledger_may_isolate;
	T.fs.on_free = ledger_on_free;
	T.fs.isolate_status = pick_isolate_status;
	ret = shr_kmem_cache_create(sa, "tq_obj", sizeof(struct tq_obj), 0, 0, &T.tq_cache);
	if (ret)
		violation("shr_kmem_cache_create: %d", ret);
	/* With kmem off, non-root cgroups see only NONSLAB shrinkers. */
	if (!params.kmem)
		T.fs.extra_shrinker_flags = SHR_SHRINKER_NONSLAB;

	pthread_barrier_init(&T.stopped, NULL, (unsigned int)T.cfg.threads + 1);
	pthread_barrier_init(&T.resume, NULL, (unsigned int)T.cfg.threads + 1);
	atomic_store(&T.mount_limit, T.cfg.mounts < FIRST_MOUNTS ? T.cfg.mounts : FIRST_MOUNTS);
	atomic_store(&T.iso_random, true);
	atomic_store(&T.max_id, -1);
	ballast_fill();
	widen(true, phase++);
	for (int t = 0; t < T.cfg.threads; t++)
		if (pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)(t + 1)))
			violation("pthread_create failed");
	start = now_s();
	/* A quiescent check every half second: a lost bit must not have time
	 * to heal (its mount unmounted, its list emptied) before one sees it. */
	interval = QUIESCENT_INTERVAL_S;
	next = start + interval;
	stutter = start + STUTTER_ON_S;
	fault = start;
	while (now_s() - start < T.cfg.seconds) {
		double until = next < stutter ? next : stutter;

		if (T.cfg.faults && fault < until)
			until = fault;
		double left = start + T.cfg.seconds - now_s();
		double wait = until - now_s();

		sleep_s(wait < left ? (wait > 0 ? wait : 0) : (left > 0 ? left : 0));
		raise_mount_limit((now_s() - start) / T.cfg.seconds);
		if (T.cfg.faults && now_s() >= fault) {
			arm_fault(&rng);
			fault = now_s() + FAULT_PERIOD_S;
		}
		if (now_s() >= stutter) {
			widened = !widened;
			widen(widened, phase++);
			stutter = now_s() + (widened ? STUTTER_ON_S : STUTTER_OFF_S);
		}
		if (now_s() >= next && now_s() - start < T.cfg.seconds) {
			/* The checks themselves run without delays or faults. */
			widen(false, 0);
			shr_slab_fault_clear(T.sa);
			quiescent_check(&rng);
			widen(widened, phase++);
			next = now_s() + interval;
		}
	}
	atomic_store(&T.stop, true);
	shr_slab_fault_clear(T.sa);
	for (int t = 0; t < T.cfg.threads; t++)
		pthread_join(tids[t], NULL);
	widen(false, 0);
	atomic_store(&T.iso_random, false);
	elapsed = now_s() - start;
	pthread_barrier_destroy(&T.stopped);
	pthread_barrier_destroy(&T.resume);

	final_checks_and_teardown(sa, &snap);
	injected = shr_slab_faults_injected(sa);
	shr_slab_allocator_destroy(sa);
	T.sa = NULL;

	printf("torture: design %s: %.1f s, %d threads, %d nodes, seed %" PRIu64 "\n", T.design,
	       elapsed, T.cfg.threads, T.cfg.params.nr_nodes, T.cfg.seed);
	for (int k = 0; k < OP_NR; k++) {
		printf("  %-36s %lu\n", op_names[k], atomic_load(&T.ops[k]));
		if (k != OP_FREED_BY_SCAN && k != OP_QUEUE_REPARENT)
			total_ops += atomic_load(&T.ops[k]);
	}
	printf("  operations per second                %.0f\n", (double)total_ops / elapsed);
	printf("  highest shrinker id mounted          %d (of %d mount slots)\n",
	       atomic_load(&T.max_id), T.cfg.mounts);
	printf("  calls failed with -ENOMEM            %lu (%lu allocation failures injected)\n",
	       atomic_load(&T.enomem), injected);
	printf("  isolate callbacks of scans: removed %lu, removed_retry %lu, rotate %lu, skip %lu, "
	       "retry %lu, stop %lu\n",
	       atomic_load(&T.iso_status[SHR_LRU_REMOVED]),
	       atomic_load(&T.iso_status[SHR_LRU_REMOVED_RETRY]),
	       atomic_load(&T.iso_status[SHR_LRU_ROTATE]), atomic_load(&T.iso_status[SHR_LRU_SKIP]),
	       atomic_load(&T.iso_status[SHR_LRU_RETRY]), atomic_load(&T.iso_status[SHR_LRU_STOP]));
	for (int k = 0; k <= SHR_LRU_STOP; k++)
		if (!atomic_load(&T.iso_status[k]))
			violation("no scan's isolate callback returned status %d", k);
	if (T.cfg.id_base && atomic_load(&T.max_id) < T.cfg.id_base)
		violation("--id-base %d: no mount reached an id past the ballast (highest %d)",
			  T.cfg.id_base, atomic_load(&T.max_id));
	printf("  mounts by kind:");
	for (int k = 0; k < MK_NR; k++)
		printf("%s %s %lu", k ? "," : "", kind_names[k], atomic_load(&T.mounts_of_kind[k]));
	printf("\n");
	printf("  checks passed                        %lu\n", T.checks);
	printf("  deferred counters moved by checked reparents: %lu\n", T.deferred_moved);
	printf("  stranded on lists an add through a dying cgroup reached: %lu objects\n",
	       T.stranded_known);
	report_race_hits(&params);
	fflush(stdout);
	return 0;
}

/* ---- command line ------------------------------------------------------- */

static void usage(const char *msg, const char *arg)
{
	fprintf(stderr, "torture: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "usage: torture -t SECONDS -s SEED -d DESIGN|all [--units cache|kmalloc] "
			"[--expand-batch N] [--nokmem] [--nonslab-ids] [--threads N] [--nodes N] "
			"[--strict-bits | --kernel-bits] [--delays MAX_US[,PERMILLE] | --delays 0] "
			"[--delay-points NAME,...] [--mounts N] [--faults | --no-faults] [--no-readers | --readers-no-stats] "
			"[--id-base N]\n");
	exit(2);
}

/* --delay-points NAME[,NAME...]: only these race points delay. */
static void parse_delay_points(const char *v)
{
	char buf[512], *tok, *save;

	if (!v || strlen(v) >= sizeof(buf))
		usage("bad value for", "--delay-points");
	strcpy(buf, v);
	T.cfg.delay_mask = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int p;

		for (p = 0; p < SHR_RACE_NR; p++)
			if (!strcmp(tok, shr_race_point_name((enum shr_race_point)p)))
				break;
		if (p == SHR_RACE_NR)
			usage("unknown race point", tok);
		T.cfg.delay_mask |= UINT64_C(1) << p;
	}
	if (!T.cfg.delay_mask)
		usage("bad value for", "--delay-points");
}

/* --delays MAX_US[,PERMILLE]; 0 turns widening off. */
static void parse_delays(const char *v)
{
	char *end;
	unsigned long us, pm = T.cfg.delay_permille;

	if (!v)
		usage("missing value for", "--delays");
	errno = 0;
	us = strtoul(v, &end, 10);
	if (!errno && *end == ',' && end[1] >= '0' && end[1] <= '9')
		pm = strtoul(end + 1, &end, 10);
	if (errno || *end || end == v || *v == '-' || us > 1000000 || pm < 1 || pm > 1000)
		usage("bad value for --delays (MAX_US[,PERMILLE], permille 1..1000)", v);
	T.cfg.delay_max_us = (unsigned int)us;
	T.cfg.delay_permille = (unsigned int)pm;
}

static long parse_num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	if (!s)
		usage("missing value for", what);
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		usage("bad value for", what);
	return v;
}

int main(int argc, char **argv)
{
	const char *design = NULL;
	int skipped = 0, ran = 0;

	shr_host_params_init(&T.cfg.params);
	T.cfg.params.nr_nodes = 2;
	T.cfg.seconds = 5;
	T.cfg.seed = (uint64_t)time(NULL);
	T.cfg.threads = 4;
	/* Widening on by default where the build has race points. */
	T.cfg.delay_max_us = DEFAULT_DELAY_US;
	T.cfg.delay_permille = DEFAULT_DELAY_PERMILLE;
	T.cfg.delay_mask = SHR_RACE_ALL;
	T.cfg.mounts = DEFAULT_MOUNTS;
	T.cfg.faults = true;
	T.cfg.readers = true;
	T.cfg.stats_readers = true;
	if (getenv("SHR_RACE_DELAYS"))
		parse_delays(getenv("SHR_RACE_DELAYS"));
	T.strict_bits = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-t")) {
			T.cfg.seconds = (int)parse_num(v, 1, 86400, a);
			i++;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--seed")) {
			char *end;

			if (!v)
				usage("missing value for", a);
			errno = 0;
			T.cfg.seed = strtoull(v, &end, 10);
			if (errno || *end || end == v || *v == '-')
				usage("bad value for", a);
			i++;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--design")) {
			if (!v)
				usage("missing value for", a);
			design = v;
			i++;
		} else if (!strcmp(a, "--units")) {
			if (v && !strcmp(v, "kmalloc"))
				T.cfg.params.units = SHR_UNITS_KMALLOC;
			else if (v && !strcmp(v, "cache"))
				T.cfg.params.units = SHR_UNITS_CACHE;
			else
				usage("--units takes cache or kmalloc", v);
			i++;
		} else if (!strcmp(a, "--expand-batch")) {
			T.cfg.params.expand_batch = (unsigned int)parse_num(v, 1, 65536, a);
			i++;
		} else if (!strcmp(a, "--strict-bits")) {
			T.strict_bits = true;
		} else if (!strcmp(a, "--kernel-bits")) {
			T.strict_bits = false;
		} else if (!strcmp(a, "--nokmem")) {
			T.cfg.params.kmem = false;
		} else if (!strcmp(a, "--nonslab-ids")) {
			T.cfg.params.kmem = false;
			T.cfg.params.nonslab_ids = true;
		} else if (!strcmp(a, "--threads")) {
			T.cfg.threads = (int)parse_num(v, 1, MAX_THREADS, a);
			i++;
		} else if (!strcmp(a, "--faults")) {
			T.cfg.faults = true;
		} else if (!strcmp(a, "--no-faults")) {
			T.cfg.faults = false;
		} else if (!strcmp(a, "--no-readers")) {
			T.cfg.readers = false;
		} else if (!strcmp(a, "--readers-no-stats")) {
			T.cfg.stats_readers = false;
		} else if (!strcmp(a, "--mounts")) {
			T.cfg.mounts = (int)parse_num(v, 1, MAX_MOUNTS, a);
			i++;
		} else if (!strcmp(a, "--id-base")) {
			T.cfg.id_base = (int)parse_num(v, 0, 1 << 22, a);
			i++;
		} else if (!strcmp(a, "--delays")) {
			parse_delays(v);
			i++;
		} else if (!strcmp(a, "--delay-points")) {
			parse_delay_points(v);
			i++;
		} else if (!strcmp(a, "--nodes")) {
			T.cfg.params.nr_nodes = (int)parse_num(v, 1, SHR_MAX_NUMNODES, a);
			i++;
		} else {
			usage("unknown argument", a);
		}
	}
	if (!design)
		usage("-d DESIGN is required (a design name or all)", NULL);
	pthread_mutex_init(&T.free_lock, NULL);
	pthread_mutex_init(&T.cg_lock, NULL);
	for (int s = 0; s < MAX_MOUNTS; s++)
		pthread_rwlock_init(&T.mounts[s].lock, NULL);

	shr_thread_register();
	printf("torture: seed %" PRIu64 "\n", T.cfg.seed);
	if (widening())
		printf("torture: window widening on: delays up to %u us at %u/1000 of race-point "
		       "hits, stutter %.2f s on / %.2f s off\n",
		       T.cfg.delay_max_us, T.cfg.delay_permille, STUTTER_ON_S, STUTTER_OFF_S);
	else
		printf("torture: window widening off (%s)\n",
		       shr_race_available() ? "--delays 0" : "no race points in this build");
	fflush(stdout);
	if (!strcmp(design, "all")) {
		for (int d = 0; d < SHR_NR_DESIGNS; d++) {
			if (run_design((enum shr_design)d))
				skipped++;
			else
				ran++;
		}
	} else {
		enum shr_design d;
		struct shr_host_params p = T.cfg.params;
		const char *why = NULL;

		if (shr_design_parse(design, &d))
			usage("unknown design", design);
		p.design = d;
		if (shr_host_params_check(&p, &why))
			usage("bad parameters", why);
		if (run_design(d))
			skipped++;
		else
			ran++;
	}
	if (!strcmp(design, "all"))
		check_race_coverage();
	printf("torture: %d design(s) passed, %d skipped, seed %" PRIu64 "\n", ran, skipped,
	       T.cfg.seed);
	shr_thread_unregister();
	if (!ran) {
		fprintf(stderr, "torture: the options apply to no design\n");
		return 2;
	}
	return 0;
}
