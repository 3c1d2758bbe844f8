/* SPDX-License-Identifier: MIT */
/*
 * The hosts of the differential fuzzer (fuzz_hosts.c): one per design of a
 * set, each with the superblock-like consumer of fuzz_ops.c's header comment
 * (mounts of a dentry and an inode list_lru, files whose objects are
 * remembered), the operations on them, and their comparison with the model.
 */
#ifndef SHR_FUZZ_HOSTS_H
#define SHR_FUZZ_HOSTS_H

#include <stdio.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/shrinker.h>
#include <shrinker/slab.h>

#include "fuzz_model.h"

#if defined(__SANITIZE_ADDRESS__)
#define FZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FZ_ASAN 1
#endif
#endif
#ifdef FZ_ASAN
#include <sanitizer/asan_interface.h>
#define FZ_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define FZ_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define FZ_POISON(p, n) ((void)(p), (void)(n))
#define FZ_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct fz_host;

struct fz_obj {
	struct shr_list_head lru; /* first: the list item is the object */
	struct fz_host *h;
	int file;
	int type;
	int node;
	struct shr_mem_cgroup *memcg; /* the cgroup added through, pinned */
};

struct fz_mount {
	struct fz_host *h;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *lru[2];
};

struct fz_host {
	char name[48];
	struct shr_host *host;
	/* A scale host (kept across inputs): the mounts' ids start here. */
	bool scale;
	int id_base;
	struct shr_slab_allocator *slab; /* the slot's, kept across inputs */
	/* Valid until the model says the cgroup is released. */
	struct shr_mem_cgroup *cg[FZ_CGROUPS];
	struct fz_mount mnt[FZ_MOUNTS];
	struct fz_obj *obj[FZ_FILES][2]; /* live objects, NULL once freed */
	long nr_alive;
	/*
	 * Their storage: slot [f][t] holds file f's object of type t. A slot
	 * is poisoned for ASan while its object is not alive, so the library
	 * touching a freed object is reported as with malloc'ed objects,
	 * without an allocation per object.
	 */
	struct fz_obj store[FZ_FILES][2];
};

/* One (mount, cgroup, node) to compare; @lists: its list counts too. */
struct fz_tuple {
	signed char mt, cg, nid;
	bool lists;
};

/* The operation being run (-1 while the hosts are set up): errors name it. */
extern int fz_op_index;
/* FUZZ_OPS_TRACE=1: print each operation and the model's answer. */
extern bool fz_trace;
/* FUZZ_OPS_FULL=1: compare every list and counter after every operation. */
extern bool fz_full;

#define TRACE(...) \
	do { \
		if (fz_trace) \
			fprintf(stderr, __VA_ARGS__); \
	} while (0)

/* A difference: print the operation, @h, @what and both values, abort(). */
void fz_fail(const struct fz_host *h, const char *what, long want, long got);
/* fz_fail() unless @want == @got. */
void fz_check(const struct fz_host *h, const char *what, long want, long got);
/* The operations on one host: mount at @slot (its shrinker must get
 * @want_id), unmount, a file's two objects created / deleted. */
void h_mount(struct fz_host *h, int slot, long batch, int seeks, int want_id);
void h_umount(struct fz_host *h, int slot, const struct model *m);
void h_create_file(struct fz_host *h, int mt, int f, int cg, int nid);
void h_delete_file(struct fz_host *h, int mt, int f);
/* The tuples an operation touched (@full: every one), listed once for all
 * hosts of a set into @out: how many. */
int m_touched_tuples(const struct model *m, bool full, struct fz_tuple *out);
/* @h against @m: the touched tuples, or (@full) everything, and (@last, the
 * input's last comparison) the bookkeeping. */
void h_compare(struct fz_host *h, const struct model *m, bool full, bool last,
	       const struct fz_tuple *tup, int nr_tup);
/* After a barrier: the host's cgroups are the @want the model keeps. */
void h_compare_cgroups(struct fz_host *h, const struct model *m, int want);
/* shr_slab_for_each_cache() callback: fz_fail() on a cache not empty. */
void check_cache_empty(struct shr_kmem_cache *cache, void *arg);

#endif /* SHR_FUZZ_HOSTS_H */
