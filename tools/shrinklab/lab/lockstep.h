/* SPDX-License-Identifier: MIT */
/*
 * The lockstep sampler: the benches of one run (one per design
 * configuration, at most LAB_MAX_DESIGNS) opened, brought up and sampled
 * side by side (lockstep.c says how and why). Every function takes the
 * run's array of @n benches; a bench that is not lab_bench_ok() is skipped
 * (it has rows marked unavailable instead).
 *
 * Context: the main thread (registered with the library), as every bench.
 */
#ifndef SHRINKLAB_LOCKSTEP_H
#define SHRINKLAB_LOCKSTEP_H

#include <stddef.h>

#include "bench.h"
#include "types.h"

/* Values one sample may give (one per metric it feeds). */
#define LAB_MAX_VALUES 6
/* One metric's samples: [bench][round]. */
typedef double lab_samples_t[LAB_MAX_DESIGNS][LAB_MAX_SAMPLES];
/*
 * A sampler takes one sample of bench @b (@ctx is the caller's) and fills
 * @values[0..nv): one value per metric it feeds.
 * Return: 0, or -errno (the rounds stop and return it).
 */
typedef int (*lab_sample_fn)(struct lab_bench *b, void *ctx, double *values);

/* Open a bench of each of @designs at @s; one that cannot be opened is
 * closed again with its why set ("could not be created" at least). */
void lab_lockstep_open(struct lab_bench *b, const struct lab_design *designs, size_t n,
		       const struct lab_scale *s);
/* Rows marked unavailable, for every metric of @run's experiment, and the
 * host record, of each bench that did not open (at geometry @s). */
void lab_lockstep_unavailable(struct lab_run *run, const struct lab_bench *b, size_t n,
			      const struct lab_scale *s);
/* Both of the above for the designs of @run (its first opening). */
void lab_lockstep_open_run(struct lab_run *run, struct lab_bench *b, const struct lab_scale *s);
void lab_lockstep_close(struct lab_bench *b, size_t n);

/* The geometry of every bench now, into @geo[i]. */
void lab_lockstep_geometry(const struct lab_bench *b, size_t n, struct lab_scale *geo);
/* What the run's hosts looked like after their main phase (run->hosts). */
void lab_lockstep_record_hosts(struct lab_run *run, const struct lab_bench *b, size_t n);
/* Each sample of @metric on bench i timed @per[i] items on @clock (the
 * rows' resolution, lab_run_set_resolution()); @per NULL: @per1 for all. */
void lab_lockstep_resolution(struct lab_run *run, const struct lab_bench *b, size_t n,
			     const char *metric, enum lab_clock clock, const double *per,
			     double per1);
/* Append @fmt to the note of every bench's geometry in @geo. */
void lab_lockstep_note(struct lab_scale *geo, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Mount @s->mounts on every bench, then bring up cgroups: a pilot of
 * LAB_PILOT_CGROUPS measures what one cgroup costs this design on this
 * host, the budget decides how many each bench gets, the rest follow.
 * @before receives SUnreclaim before the first cgroup. The budget covers
 * the whole experiment: when the mounts (and pilots) alone exceed it,
 * nothing is cut: -ENOSPC, with run->error saying so.
 * Return: 0 or -errno.
 */
int lab_lockstep_populate(struct lab_run *run, struct lab_bench *b, size_t n,
			  const struct lab_scale *s, const struct lab_options *opt,
			  unsigned long *before);

/*
 * @warmup rounds, then @rounds rounds; every round samples every bench in
 * turn, each sample after an RCU barrier. Value k of measured round r of
 * bench i lands in v[k][i][r] (k < @nv; warm-up values are dropped).
 * Return: 0, or the first sampler error.
 */
int lab_lockstep_rounds(struct lab_bench *b, size_t n, unsigned int warmup, unsigned int rounds,
			const char *what, lab_sample_fn fn, void *ctx, size_t nv, lab_samples_t *v);
/* A row of @metric per bench from its @rounds samples in @v, at @geo[i]. */
void lab_lockstep_add_samples(struct lab_run *run, const struct lab_bench *b, size_t n,
			      const char *metric, lab_samples_t v, unsigned int rounds,
			      const struct lab_scale *geo);

/* Samplers more than one experiment takes. drop_caches once: ns. */
int lab_sample_drop_caches(struct lab_bench *b, void *ctx, double *value);
/* Register *(const unsigned long *)@ctx more mounts: ns for all of them. */
int lab_sample_mounts(struct lab_bench *b, void *ctx, double *value);

/*
 * mkdir then rmdir *(const unsigned long *)@ctx cgroups, then wait for
 * their release (an RCU barrier). Values, each per cgroup, by index:
 */
enum lab_churn_value {
	LAB_CHURN_MKDIR_RMDIR,   /* mkdir + rmdir, wall */
	LAB_CHURN_MKDIR,         /* the mkdirs */
	LAB_CHURN_RMDIR,         /* the rmdirs (offline: reparenting, last reference) */
	/* The CPU time the RCU callback thread spent on the deferred frees
	 * (cgroups and their bookkeeping): the process's CPU time from the
	 * mkdirs to the end of the barrier minus this thread's own. (Its wall
	 * time would be one round of liburcu's callback thread, whatever the
	 * work.) */
	LAB_CHURN_RELEASE_CPU,
	LAB_CHURN_RELEASE,       /* the barrier, wall: every removed cgroup freed */
	LAB_CHURN_RMDIR_RELEASE, /* the rmdirs and the barrier, wall */
	LAB_CHURN_NR_VALUES,
};
int lab_sample_churn(struct lab_bench *b, void *ctx, double *v);

#endif /* SHRINKLAB_LOCKSTEP_H */
