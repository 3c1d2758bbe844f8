/* SPDX-License-Identifier: MIT */
/*
 * shrinklab's lab: the types shared by the experiment table, the
 * measurement helpers, the seed figures and the reports.
 *
 * A "bench" is one host of one design configuration with the superblock
 * workload on it (mounts, cgroups, files). Experiments build one bench per
 * design side by side in one process, measure them in lockstep and destroy
 * them before the next experiment. Every figure in a lab_result comes from
 * a clock or from the slab allocator's counters; none is computed from a
 * formula. A design the build does not have yields rows marked unavailable.
 */
#ifndef SHRINKLAB_LAB_H
#define SHRINKLAB_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <shrinker/host.h>

#include "superblock.h"

#define LAB_LABEL_LEN 64
#define LAB_NOTE_LEN 256

/* A design configuration: the design plus its non-default options. */
struct lab_design {
	enum shr_design design;
	enum shr_units_source units;
	unsigned int expand_batch; /* 0 = the design's default */
	bool nonslab_ids;
};

/* "prealloc+units=cache", "flat+expand_batch=64", "flat+nonslab_ids": the
 * design and its options that differ from the design's defaults (prealloc,
 * mainline, takes units from kmalloc; the others from the dedicated cache). */
void lab_design_label(const struct lab_design *d, char *buf, size_t len);
/* Does @d's unit source differ from its design's default? */
bool lab_design_units_option(const struct lab_design *d);

/* The scale an experiment (or one row of it) really ran with. */
struct lab_scale {
	unsigned long mounts;
	unsigned long cgroups;
	int nodes;
	unsigned int cpus;
	bool kmem;
	char note[LAB_NOTE_LEN];
};

/* One measured figure of one design. */
struct lab_result {
	char design[LAB_LABEL_LEN];
	const char *metric;
	const char *unit; /* "B", "ns" or "count" */
	bool unavailable;
	double value, min, max;
	unsigned long samples;
	bool has_seed;
	double seed_value;
	struct lab_scale scale;
};

struct lab_experiment;

/* The rows one experiment produced. */
struct lab_run {
	const struct lab_experiment *exp;
	struct lab_scale scale; /* requested scale */
	struct lab_design designs[16];
	size_t nr_designs;
	struct lab_result *rows;
	size_t nr_rows, cap_rows;
	uint64_t elapsed_ns; /* wall time of the whole experiment */
};

/* How big to run: a multiplier of the seed scale, plus limits. */
struct lab_options {
	double factor;          /* 1.0 = the seeds' scale */
	const char *scale_name; /* "seed", "quick", "default", or the number */
	unsigned long long mem_budget;
	unsigned int samples;   /* timed samples after one warm-up (>= 5) */
	bool quiet;
	/* Custom scale for "run" (0 = the experiment's). */
	unsigned long mounts, cgroups;
	int nodes;
	unsigned int cpus;
	int kmem; /* -1 = the experiment's, 0 off, 1 on */
};

/* A metric of an experiment: fixed name and base unit. */
struct lab_metric {
	const char *name;
	const char *unit; /* "B", "ns" or "count" */
};

/* An experiment: fixed id, seed scale, design list, metric names, runner. */
struct lab_experiment {
	const char *id;
	const char *title;
	struct lab_scale seed_scale;
	/* Mounts follow cgroups (a pod's 4 mounts, seed004's own mount), or
	 * 0 when they scale on their own. */
	unsigned int mounts_per_cgroup;
	const struct lab_design *designs;
	size_t nr_designs;
	const struct lab_metric *metrics;
	size_t nr_metrics;
	/* Build the benches of run->designs, measure, fill run->rows. */
	int (*run)(struct lab_run *run, const struct lab_options *opt);
};

/* experiments.c */
extern const struct lab_experiment lab_experiments[];
extern const size_t lab_nr_experiments;
const struct lab_experiment *lab_experiment_find(const char *id);
/* Scale of @exp under @opt (factor and custom overrides applied). */
void lab_experiment_scale(const struct lab_experiment *exp, const struct lab_options *opt,
			  struct lab_scale *out);
/* Rough lower bound of the bytes @scale needs (admission check only). */
unsigned long long lab_scale_floor_bytes(const struct lab_scale *scale);

/* lab_run bookkeeping (experiments.c). */
struct lab_result *lab_run_add(struct lab_run *run, const char *design, const char *metric,
			       const char *unit);
void lab_run_free(struct lab_run *run);
/* Order rows by design (the run's list), then metric (the experiment's). */
void lab_run_sort(struct lab_run *run);

/* measure.c: clocks and statistics. */
uint64_t lab_now_ns(void);
struct lab_stats {
	double median, min, max;
	unsigned long n;
};
void lab_stats_of(const double *v, size_t n, struct lab_stats *out);

/* measure.c: a host of one design with the superblock workload. */
struct lab_bench {
	struct lab_design cfg;
	char label[LAB_LABEL_LEN];
	const char *why; /* why the design is unavailable, or NULL */
	struct shr_host *host;
	struct shr_slab_allocator *slab; /* the host's, prefaulted (lab_bench_open) */
	struct lab_fs fs;
	bool fs_ready;
	struct lab_sb **sbs;
	size_t nr_sbs, cap_sbs;
	struct shr_mem_cgroup **cgs;
	size_t nr_cgs, cap_cgs;
	unsigned long cgroups_target; /* after the memory budget */
	struct lab_scale used;
};

/* Create the host; returns 0, -EINVAL with b->why set when unavailable. */
int lab_bench_open(struct lab_bench *b, const struct lab_design *d, const struct lab_scale *s);
int lab_bench_mount(struct lab_bench *b, unsigned long n);
int lab_bench_mkcg(struct lab_bench *b, unsigned long n);
/* rmdir the last @n cgroups. */
int lab_bench_rmcg(struct lab_bench *b, unsigned long n);
int lab_bench_file(struct lab_bench *b, size_t sb, size_t cg, int nid);
/* SUnreclaim after deferred frees have run. */
unsigned long lab_bench_sunreclaim(struct lab_bench *b);
/* shrink_slab() every cgroup of the bench once on every node; ns taken. */
int lab_bench_walk(struct lab_bench *b, int priority, uint64_t *ns);
void lab_bench_close(struct lab_bench *b);
bool lab_bench_ok(const struct lab_bench *b);

/*
 * Give each bench as many of @target cgroups as the budget allows, from the
 * per-cgroup cost each really showed on its pilot cgroups (water-filling,
 * cheapest first). Sets cgroups_target and a note where it had to cut.
 */
void lab_fit_cgroups(struct lab_bench *b, size_t n, const double *per_cgroup,
		     unsigned long target, unsigned long long budget);

/* measure.c: progress on stderr when it is a terminal. */
void lab_progress_enable(bool on);
void lab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lab_progress_done(void);

/* seeds.c: the seeds' published figures. */
struct lab_seed_figure {
	char experiment[48], design[LAB_LABEL_LEN], metric[64], unit[8];
	bool same_as_base; /* "same within noise" */
	double value;
	char file[64], source[256];
};
struct lab_seeds {
	struct lab_seed_figure *v;
	size_t n;
};
/* Load @path (NULL = the default data file). 0, -errno, -EINVAL (bad line). */
int lab_seeds_load(struct lab_seeds *s, const char *path, char *err, size_t errlen);
const char *lab_seeds_default_path(void);
const struct lab_seed_figure *lab_seeds_find(const struct lab_seeds *s, const char *exp,
					     const char *design, const char *metric);
void lab_seeds_free(struct lab_seeds *s);
void lab_seeds_attach(const struct lab_seeds *s, struct lab_run *run);

/* report.c */
void lab_report_header(FILE *out, const struct lab_options *opt);
void lab_report_run(FILE *out, const struct lab_run *run);
void lab_report_claims(FILE *out, const struct lab_run *runs, size_t n,
		       const struct lab_seeds *seeds);

/* json.c */
int lab_json_write(const char *path, const struct lab_run *runs, size_t n,
		   const struct lab_options *opt);

/* cli.c: option parsing shared by the subcommands. */
int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
int lab_parse_scale(const char *s, struct lab_options *opt);
int lab_parse_bytes(const char *s, unsigned long long *out);
unsigned long long lab_mem_available(void);
void lab_options_init(struct lab_options *opt);
/* Reject scales and budgets the machine cannot hold. 0 or prints + -EINVAL. */
int lab_check_feasible(const struct lab_options *opt, const struct lab_scale *s,
		       const char *prog);

#endif /* SHRINKLAB_LAB_H */
