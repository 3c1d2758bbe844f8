/* SPDX-License-Identifier: MIT */
/*
 * The torture test's shared state and the functions its files call across
 * one another (main.c holds the test's description: what runs, what is
 * checked, how it is locked). One file per concern: ledger.c (the record
 * of every object), tq.c (queue caches), mounts.c (mounts of every kind,
 * objects on them), cgroups.c, readers.c, reclaim.c (and the workers),
 * checks.c (quiescent checks), faults.c (window widening, fault
 * injection), run.c (one design's run), main.c (command line).
 */
#ifndef SHR_TORTURE_H
#define SHR_TORTURE_H

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
	int seconds;         /* -t: the run's length in wall seconds */
	long ops;            /* --ops: its length in operations instead (0: -t) */
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
#define RECENT 256
/* A worker's own state: its PRNG and the records it added lately (the
 * deleter's candidates; stale ones fail the generation check). */
struct worker_state {
	uint64_t rng;
	unsigned int recent[RECENT];
	unsigned int nr_recent;
};
/* Stutter: delays on for this long, then off for STUTTER_OFF_S, so the
 * workload keeps passing from slow to fast interleavings (rcutorture). */
#define QUIESCENT_INTERVAL_S 0.5
#define STUTTER_ON_S 0.75
#define STUTTER_OFF_S 0.25
/* A new fault rule this often while the workers run. */
#define FAULT_PERIOD_S 0.004
/* Under --ops the checks, stutter and mount limit run on work, not time
 * (fault rules keep changing on wall time: run.c says why): this many
 * operations make one of their seconds (about half a second of an idle plain
 * build with 4 threads), fewer when the budget is small, so that every run
 * spans at least MIN_RUN_S of the schedule (six checks, three stutter
 * cycles: a TSan build does a few thousand operations a second). The main
 * thread looks at the count every OPS_POLL_S. */
#define OPS_PER_RUN_S 100000.0
#define MIN_RUN_S 3.0
#define OPS_POLL_S 0.001

/* The state of one torture process (one design run at a time). */
struct torture {
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
};

extern struct torture T;

extern const char *const kind_names[MK_NR];

/* main.c */
void count_op(enum op_kind k);
void enomem_ok(int ret, const char *what);
unsigned int rng_below(uint64_t *s, unsigned int bound);
__attribute__((format(printf, 1, 2), noreturn)) void violation(const char *fmt, ...);

/* ledger.c */
bool ledger_may_isolate(struct sb_object *obj, void *arg);
void ledger_on_free(struct sb_object *obj, enum sb_free_reason why, void *arg);
unsigned long mkserial(unsigned int idx, uint64_t gen);
uint64_t mkword(uint64_t gen, enum rec_state st);
enum shr_lru_status pick_isolate_status(struct sb_object *obj, void *arg);
bool record_get(unsigned int *idx);
void record_put(unsigned int idx);
struct record *serial_record(unsigned long serial, uint64_t *gen);
uint64_t word_gen(uint64_t w);
enum rec_state word_state(uint64_t w);

/* tq.c */
int tq_add(struct tq *q, struct shr_mem_cgroup *memcg, int nid, unsigned long serial,
	   struct sb_object **out);
unsigned long tq_count_all(struct tq *q);
unsigned long tq_count_one(struct tq *q, int nid, struct shr_mem_cgroup *memcg);
int tq_delete(struct tq *q, struct sb_object *obj);
int tq_mount(unsigned int flags, struct tq **out);
void tq_reparent(struct tq *q, struct shr_mem_cgroup *memcg);
void tq_umount(struct tq *q);
void tq_walk(struct tq *q, void (*fn)(struct sb_object *obj, void *arg), void *arg);

/* mounts.c */
unsigned long mnt_count(struct mount_slot *m, int nid, struct shr_mem_cgroup *memcg);
unsigned long mnt_count_all(struct mount_slot *m);
bool mnt_memcg_aware(const struct mount_slot *m);
int mnt_mount(struct mount_slot *m, enum mount_kind kind);
bool mnt_mounted(const struct mount_slot *m);
struct shr_shrinker *mnt_shrinker(const struct mount_slot *m);
void mnt_umount(struct mount_slot *m);
unsigned int mount_limit(void);
void note_id(int id);
void op_add(struct worker_state *ws);
void op_delete(struct worker_state *ws);
void op_mount_toggle(struct worker_state *ws);
void taint_ancestors(struct shr_mem_cgroup *memcg, int nid);
void tq_reparent_all(struct shr_mem_cgroup *memcg);

/* cgroups.c */
int cg_offline_slot(int i);
struct shr_mem_cgroup *cg_pick(uint64_t *rng, bool allow_root);
struct shr_mem_cgroup *cg_pick_busy(uint64_t *rng);
void op_cg_create(uint64_t *rng);
void op_cg_offline(uint64_t *rng);
void op_cg_release(uint64_t *rng);

/* readers.c */
void op_read(uint64_t *rng);

/* reclaim.c */
void op_drop_caches(void);
void *worker(void *arg);

/* checks.c */
void check_ledger(const char *when);
void check_lists_empty(const char *when, bool all);
void quiescent_check(uint64_t *rng);

/* run.c */
double now_s(void);
int run_design(enum shr_design design);
void sleep_s(double s);

/* faults.c */
void arm_fault(uint64_t *rng);
void check_race_coverage(void);
void report_race_hits(const struct shr_host_params *params);
void widen(bool on, uint64_t phase);
bool widening(void);

#endif /* SHR_TORTURE_H */
