/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A world: what an experiment script (this folder) drives, so that one
 * script runs in the model (tools/shrinklab/lab/world_model.c: libshrinker
 * hosts with the consumer superblock, one per design configuration, side by
 * side) and in the kernel (kernel/guest/world_kernel.c: syscalls, the one
 * design the guest booted), as the kernel's userspace radix-tree harness
 * compiles lib/xarray.c. A script is written once; each world says in its
 * own words what it does (struct world_words) and fills the rows with its
 * own geometry.
 *
 * The designs: a world runs nr_designs of them (the kernel one); d below is
 * an index into them, and a design that is not ok() is skipped (the model
 * marks its rows unavailable). Sampling takes every design at once: the
 * model samples them in turn, round by round (its lockstep sampler), the
 * kernel its one.
 *
 * Errors: an op returns 0 or -errno, and the script stops at the first one
 * (the kernel world exits on its own errors, with what failed).
 *
 * Context: one thread, the script's; the world's resources (mounts,
 * cgroups) belong to the script between its open and its close.
 */
#ifndef SHRINKLAB_WORLD_H
#define SHRINKLAB_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WORLD_MAX_DESIGNS 16
#define WORLD_MAX_SAMPLES 64
#define WORLD_MAX_CACHES 8
#define WORLD_NOTE_LEN 512

/* One metric's samples of every design: [design][round]. */
typedef double world_samples_t[WORLD_MAX_DESIGNS][WORLD_MAX_SAMPLES];

/* What a sample measures, and the values it gives (one per metric). */
enum world_sample {
	WORLD_DROP_CACHES, /* drop_caches (echo 2) once: ns */
	WORLD_MOUNTS,      /* *(unsigned long *)arg more mounts: ns for all */
	WORLD_CHURN,       /* mkdir, rmdir, release of *(unsigned long *)arg
			    * cgroups: the enum world_churn values, per cgroup */
};
enum world_churn {
	WORLD_CHURN_MKDIR,
	WORLD_CHURN_RMDIR,
	WORLD_CHURN_RELEASE,       /* from the last rmdir until all are freed */
	WORLD_CHURN_RMDIR_RELEASE, /* from the first rmdir until all are freed */
	WORLD_CHURN_NR,
};
#define WORLD_MAX_VALUES WORLD_CHURN_NR

/* Slab memory of one design now: SUnreclaim and MemFree in bytes (MemFree
 * 0 where the world has none), objects in use of each of its caches. */
struct world_mem {
	double slab_b, memfree_b;
	double objs[WORLD_MAX_CACHES];
};

/* Where a row was measured: the state when its measurement began, and a
 * note; filled by the world that writes the row (world_ops.at). */
struct world_at {
	unsigned long mounts, cgroups, host_shrinkers;
	long shrinker_nr_max; /* -1: the world does not say */
	long units;           /* units per node the ids span; -1 unknown */
	int nodes;
	unsigned int cpus;
	bool kmem;
	char note[WORLD_NOTE_LEN];
};

/* A world's words for what it does, where the scripts' notes name it. */
struct world_words {
	const char *drop_caches; /* "echo 2 > drop_caches" */
	const char *mounts;      /* what a batch of mounts is: "tmpfs mounts" */
	const char *offline;     /* where a cgroup's offline runs, after rmdir */
	const char *released;    /* "until <released>": every removed cgroup gone */
	const char *release_how; /* how release is waited for ("" or " (how)") */
};

struct world;

struct world_ops {
	bool (*ok)(const struct world *w, size_t d);
	const char *(*label)(const struct world *w, size_t d);
	/* The clock (ns, monotonic) and a progress line. */
	uint64_t (*now_ns)(void);
	void (*progress)(const struct world *w, const char *line);
	/* Mounts of the world's kind (the memcg-aware shrinkers of the
	 * experiment): how many now, @n more, the last @n of them gone. */
	unsigned long (*mounts)(const struct world *w, size_t d);
	int (*mount)(struct world *w, size_t d, unsigned long n);
	int (*umount)(struct world *w, size_t d, unsigned long n);
	/* @n more empty cgroups under the script's parent; all of them removed
	 * and released (their memory freed) again. */
	int (*mkcg)(struct world *w, size_t d, unsigned long n);
	int (*rmcg)(struct world *w, size_t d);
	/* Slab memory now; @settled: after deferred frees have run. */
	int (*memory)(struct world *w, size_t d, bool settled, struct world_mem *m);
	/* @warmup samples of @kind on every design, then @rounds more, whose
	 * value k of round r of design d lands in v[k][d][r]. */
	int (*sample)(struct world *w, enum world_sample kind, void *arg, unsigned int warmup,
		      unsigned int rounds, const char *what, world_samples_t *v);
	/* Cgroups of cost @c that fit, at most @want, with @more_ids shrinker
	 * ids still to come (mainline's map grows with them); @note says why
	 * fewer ("" when all fit, or where the world does not cut). */
	unsigned long (*fit_cgroups)(const struct world *w, const struct world_mem *c,
				     double more_ids, unsigned long want, char *note, size_t len);
	/* The note of a memory row at a rung of @units units per node. */
	void (*rung_note)(const struct world *w, size_t d, unsigned int units, char *buf,
			  size_t len);
	double (*median)(const double *v, size_t n);
	/* The geometry of design @d now, with @cgroups and @note. */
	void (*at)(const struct world *w, size_t d, unsigned long cgroups, const char *note,
		   struct world_at *out);
	/* The row sink. metric: a metric of experiment @exp (a model declares
	 * its table first); a row of @n readings, timed: clock samples, each
	 * timing @per items; untimed: one reading or a fit (@n 1). */
	void (*metric)(struct world *w, int exp, const char *unit, const char *name);
	void (*row)(struct world *w, size_t d, int exp, const char *metric, const char *unit,
		    bool timed, const double *v, size_t n, double per, const struct world_at *at);
	/* @ns more spent in experiment @exp. */
	void (*elapsed)(struct world *w, int exp, uint64_t ns);
};

struct world {
	const struct world_ops *ops;
	const struct world_words *words;
	/* The experiments' ids, by the script's index (world_ops' exp). */
	const char *const *exp_ids;
	size_t nr_designs;
	/* The slab caches whose objects memory() counts, by kernel name. */
	const char *caches[WORLD_MAX_CACHES];
	size_t nr_caches;
};

#endif /* SHRINKLAB_WORLD_H */
