/* SPDX-License-Identifier: MIT */
/*
 * shrinklab's lab: the types shared by the experiment table, the
 * measurement helpers, the seed figures, the verdicts, the reports, the JSON
 * and the plots.
 *
 * A "bench" is one host of one design configuration with the superblock
 * workload on it (mounts, cgroups, files). Experiments build one bench per
 * design side by side in one process, measure them in lockstep and destroy
 * them before the next experiment. Every figure in a lab_result comes from
 * a clock or from the slab allocator's counters; none is computed from a
 * formula. A design whose bench cannot be opened (lab_bench_open()'s why)
 * yields rows marked unavailable.
 *
 * Every row carries the geometry it was measured at (struct lab_scale:
 * mounts, cgroups, nodes, CPUs, and the units per node its shrinker ids
 * span). A seed figure is shown beside a row, and a verdict given, only when
 * the geometry the figure was measured at matches the row's in every key the
 * metric depends on (lab_metric.geo).
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
#define LAB_MAX_DESIGNS 16
#define LAB_MAX_SAMPLES 64

/* A design configuration: the design plus its non-default options. */
struct lab_design {
	enum shr_design design;
	enum shr_units_source units;
	unsigned int expand_batch; /* 0 = the design's default */
	bool nonslab_ids;
	enum shr_lru_reparent lru_reparent;
	/* The workload's mounts ask for no root bits (indexed only): global
	 * reclaim calls every mount's shrinker at the root, as a kernel
	 * without root bits does. */
	bool no_root_bits;
};

/* "prealloc+units=cache", "flat+expand_batch=64", "xarray+lru_reparent=index",
 * "indexed+root_bits=off": the design and its options that differ from the
 * design's defaults (prealloc, mainline, takes units from kmalloc; the
 * others from the dedicated cache; indexed reparents through its index, the
 * others visit every list_lru; indexed keeps root bits for the mounts). */
void lab_design_label(const struct lab_design *d, char *buf, size_t len);
/*
 * The inverse of lab_design_label(): "design[+option]...", options
 * units=cache|kmalloc, expand_batch=N, nonslab_ids, lru_reparent=all|index,
 * root_bits=on|off (indexed only). 0, or -EINVAL with @why saying what is
 * wrong (the design's own checks come later, from shr_host_params_check()).
 */
int lab_design_parse_label(const char *s, struct lab_design *d, char *why, size_t len);
/* Room for lab_design_names(). */
#define LAB_DESIGN_NAMES_LEN 256
/*
 * The designs of the library's table, in table order: "xarray, prealloc,
 * ...<last_sep>indexed" (@last_sep ", " or " or "), for messages and usage.
 */
void lab_design_names(char *buf, size_t len, const char *last_sep);
/* Does @d's unit source differ from its design's default? */
bool lab_design_units_option(const struct lab_design *d);

/*
 * Geometry keys a figure depends on. Units per node: how many 64-id units
 * the memcg-aware shrinker ids span (the seeds' shrinker_nr_max / 64).
 */
enum lab_geo_key {
	LAB_GEO_MOUNTS,
	LAB_GEO_UNITS,
	LAB_GEO_CGROUPS,
	LAB_GEO_NODES,
	LAB_GEO_CPUS,
	LAB_NR_GEO,
};
#define LAB_G(k) (1u << (k))
#define LAB_G_PER_CGROUP (LAB_G(LAB_GEO_UNITS) | LAB_G(LAB_GEO_NODES) | LAB_G(LAB_GEO_CPUS))
#define LAB_G_WHOLE_HOST (LAB_G_PER_CGROUP | LAB_G(LAB_GEO_CGROUPS))
const char *lab_geo_name(enum lab_geo_key k);

/* The scale an experiment (or one row of it) really ran with. */
struct lab_scale {
	unsigned long mounts;        /* the workload's mounts */
	unsigned long cgroups;
	int nodes;
	unsigned int cpus;           /* geometry CPUs (slab layout) */
	bool kmem;
	unsigned int host_shrinkers; /* empty mounts standing for the host's own */
	long shrinker_nr_max;        /* as the host reports it; -1 none/unknown */
	long units;                  /* units per node the ids span; -1 unknown */
	char note[LAB_NOTE_LEN];
};
unsigned long lab_scale_geo(const struct lab_scale *s, enum lab_geo_key k);

/* Where the seed measured a figure: per key absent, unknown or [lo, hi]. */
struct lab_seed_geometry {
	enum { LAB_SEED_GEO_ABSENT, LAB_SEED_GEO_UNKNOWN, LAB_SEED_GEO_KNOWN } state[LAB_NR_GEO];
	unsigned long lo[LAB_NR_GEO], hi[LAB_NR_GEO];
};

/* seeds.c: the seeds' published figures. */
struct lab_seed_figure {
	char experiment[48], design[LAB_LABEL_LEN], metric[64], unit[8];
	bool same_as_base; /* "same within noise" */
	char relation;     /* '=' a value, '<' at most, '>' at least */
	double value;
	struct lab_seed_geometry geo;
	char file[64], source[256];
};

/* One measured figure of one design. */
struct lab_result {
	char design[LAB_LABEL_LEN];
	const char *metric;
	const char *unit;      /* "B", "ns" or "count" */
	unsigned int geo_mask; /* LAB_G() keys the figure depends on */
	bool unavailable;
	bool timed;            /* samples of a clock (else one reading) */
	double value, min, max;
	size_t n;              /* samples (rounds) behind value, min and max */
	double *raw;           /* the n samples, in round order (owned) */
	struct lab_scale scale;
	/* The seed's figure for this row (any geometry), whether the row is at
	 * the seed's geometry, and why not (or what the seed leaves unknown). */
	const struct lab_seed_figure *seed;
	bool seed_comparable;
	char seed_why[LAB_NOTE_LEN];
};

enum lab_verdict_kind {
	LAB_V_AGREES,
	LAB_V_DISAGREES,
	LAB_V_INCONCLUSIVE,
	LAB_V_NOT_COMPARED, /* other geometry */
	LAB_V_NOT_MEASURED, /* unavailable design, zero base */
};
const char *lab_verdict_name(enum lab_verdict_kind k);

/* One verdict on one seed claim (verdict.c). */
struct lab_verdict {
	const char *metric;
	char design[LAB_LABEL_LEN], base[LAB_LABEL_LEN]; /* base "" for counts */
	const char *claim;  /* "ratio", "same", "bound", "count" */
	bool has_ours;
	double ours, lo, hi; /* ratio of medians; range of per-round ratios */
	size_t rounds;
	bool has_seed;
	double seed;         /* the seed's ratio or bound (count: the count) */
	char relation;       /* '=', '<', '>' */
	enum lab_verdict_kind kind;
	char text[512];      /* the reason, for people */
};

struct lab_experiment;

/* What one bench (host) of a run looked like after its main phase. */
struct lab_host_info {
	char label[LAB_LABEL_LEN];
	bool available;
	const char *why;
	struct lab_scale geo;
};

/* The rows one experiment produced. */
struct lab_run {
	const struct lab_experiment *exp;
	struct lab_scale scale; /* requested scale */
	char scale_desc[LAB_NOTE_LEN];
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t nr_designs;
	struct lab_host_info hosts[LAB_MAX_DESIGNS];
	struct lab_result *rows;
	size_t nr_rows, cap_rows;
	struct lab_verdict *verdicts;
	size_t nr_verdicts;
	uint64_t elapsed_ns; /* wall time of the whole experiment */
	char error[LAB_NOTE_LEN]; /* why the runner failed, when it says */
};

enum lab_scale_kind {
	LAB_SCALE_DEFAULT, /* per experiment (lab_experiment.default_scale) */
	LAB_SCALE_SEED,
	LAB_SCALE_QUICK,
	LAB_SCALE_FACTOR,
};

/* How big to run: a multiplier of the seed scale, plus limits. */
struct lab_options {
	enum lab_scale_kind scale_kind;
	double factor;          /* SEED 1, QUICK 0.01, FACTOR N; DEFAULT: none */
	char scale_name[32];    /* "default", "seed", "quick" or the number */
	unsigned long long mem_budget;
	bool mem_budget_given;
	char budget_note[128];  /* how the default was sized */
	unsigned int samples;   /* timed samples after one warm-up (>= 5) */
	bool quiet;
	/* Custom scale for "run" (0 = the experiment's). */
	unsigned long mounts, cgroups;
	int nodes;
	unsigned int cpus;
	int kmem; /* -1 = the experiment's, 0 off, 1 on */
};
bool lab_options_custom(const struct lab_options *opt);

/* A metric of an experiment: fixed name, base unit, geometry it depends on. */
struct lab_metric {
	const char *name;
	const char *unit; /* "B", "ns" or "count" */
	unsigned int geo; /* LAB_G() keys */
	const char *what; /* one line for tables, plots and the man page */
};

/* An experiment: fixed id, seed scale, design list, metric names, runner. */
struct lab_experiment {
	const char *id;
	const char *title;
	struct lab_scale seed_scale;
	/* Mounts and cgroups of the default scale: the seed's where that fits
	 * the default's time and memory, else a cut that says which. */
	unsigned long default_mounts, default_cgroups;
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
const struct lab_metric *lab_metric_find(const struct lab_experiment *exp, const char *name);
/* Scale of @exp under @opt (factor and custom overrides applied). */
void lab_experiment_scale(const struct lab_experiment *exp, const struct lab_options *opt,
			  struct lab_scale *out);
/* "the seed's scale", "x0.4 of the seed's mounts and cgroups", ... */
void lab_scale_describe(const struct lab_experiment *exp, const struct lab_scale *s,
			char *buf, size_t len);
/* Rough lower bound of the bytes @scale needs on @designs hosts. */
unsigned long long lab_scale_floor_bytes(const struct lab_scale *scale, size_t designs);

/* lab_run bookkeeping (experiments.c). */
struct lab_result *lab_run_add(struct lab_run *run, const char *design, const char *metric);
struct lab_bench;
/* A row of one reading (memory, a count) / of clock samples (median, min,
 * max and the samples in round order) of bench @b at geometry @geo. */
void lab_run_add_value(struct lab_run *run, const struct lab_bench *b, const char *metric,
		       double value, const struct lab_scale *geo);
void lab_run_add_samples(struct lab_run *run, const struct lab_bench *b, const char *metric,
			 const double *v, size_t n, const struct lab_scale *geo);
void lab_run_free(struct lab_run *run);
/* Order rows by design (the run's list), then metric (the experiment's). */
void lab_run_sort(struct lab_run *run);
/* The base design's row of @metric (first design of the list), or NULL. */
const struct lab_result *lab_run_base_row(const struct lab_run *run, const char *metric);

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
	struct sb_fs fs;
	bool fs_ready;
	struct sb **host_sbs; /* the host's own shrinkers, never unmounted */
	size_t nr_host_sbs;
	struct sb **sbs;
	size_t nr_sbs, cap_sbs;
	struct shr_mem_cgroup **cgs;
	size_t nr_cgs, cap_cgs;
	unsigned long ids_hw;         /* high-water of memcg-aware shrinkers */
	unsigned long cgroups_target; /* after the memory budget */
	struct lab_scale used;
};

/* Create the host and its host shrinkers; 0, or -errno with b->why set. */
int lab_bench_open(struct lab_bench *b, const struct lab_design *d, const struct lab_scale *s);
int lab_bench_mount(struct lab_bench *b, unsigned long n);
/* Unmount the last @n workload mounts. */
void lab_bench_umount(struct lab_bench *b, unsigned long n);
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
/* The geometry the bench is at now (note kept from b->used). */
void lab_bench_geometry(const struct lab_bench *b, struct lab_scale *out);

/*
 * Give each bench as many of @target cgroups as @budget allows, from the
 * per-cgroup cost each really showed on its pilot cgroups (water-filling,
 * cheapest first; never fewer than @least). Sets cgroups_target and a note
 * where it had to cut.
 */
void lab_fit_cgroups(struct lab_bench *b, size_t n, const double *per_cgroup,
		     unsigned long target, unsigned long least, unsigned long long budget);

/* measure.c: progress on stderr when it is a terminal. */
void lab_progress_enable(bool on);
void lab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lab_progress_done(void);

struct lab_seeds {
	struct lab_seed_figure *v;
	size_t n;
};
/* Load @path (NULL = the default data file): 0; -errno when it cannot be opened
 * or read (a directory); -EINVAL for a bad or overlong line or no figure at all. */
int lab_seeds_load(struct lab_seeds *s, const char *path, char *err, size_t errlen);
const char *lab_seeds_default_path(void);
const struct lab_seed_figure *lab_seeds_find(const struct lab_seeds *s, const char *exp,
					     const char *design, const char *metric);
void lab_seeds_free(struct lab_seeds *s);
/* Attach each row's seed figure and decide whether it is comparable. */
void lab_seeds_attach(const struct lab_seeds *s, struct lab_run *run);
/* Is @s at @g in every key of @mask? @why says where it differs, or which
 * keys the seed leaves unknown (then it counts as a match). */
bool lab_seed_geometry_matches(const struct lab_scale *s, unsigned int mask,
			       const struct lab_seed_geometry *g, char *why, size_t len);
/* "mounts=20000 units=314 cgroups=2000 nodes=1 cpus=4". */
void lab_seed_geometry_format(const struct lab_seed_geometry *g, char *buf, size_t len);

/* verdict.c: one verdict per seed claim of @run (fills run->verdicts). */
void lab_verdicts_compute(struct lab_run *run);

/* report.c: human-readable output. */
void lab_fmt_value(char *buf, size_t len, double v, const char *unit);
void lab_report_header(FILE *out, const char *subcommand, const struct lab_options *opt,
		       const char *design_label);
void lab_report_run(FILE *out, const struct lab_run *run);
void lab_report_claims(FILE *out, const struct lab_run *runs, size_t n);

/* json.c: schema shrinklab/2 (docs/shrinklab.schema.json). */
struct lab_json_context {
	const char *subcommand;
	int argc;
	char **argv;
	const struct lab_options *opt;
	uint64_t elapsed_ns;
};
int lab_json_write(FILE *f, const struct lab_run *runs, size_t n,
		   const struct lab_json_context *ctx);

/* plot.c: gnuplot, run without a shell. */
/* The gnuplot to run: $SHRINKLAB_GNUPLOT or "gnuplot" on the PATH. NULL
 * when it cannot be found (@why says what was looked for). */
const char *lab_gnuplot_find(char *buf, size_t len, char *why, size_t whylen);
/* Run gnuplot on @script inside @dir; 0 or -1 with @err set. */
int lab_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err,
		    size_t errlen);
/* Write DIR/<id>.gp (data inline) and render DIR/<id>.png. 0 or -1. */
int lab_plot_run(const char *gnuplot, const char *dir, const struct lab_run *run,
		 const struct lab_options *opt, char *err, size_t errlen);
/* Line style of a design in every plot: colour, point and dash types. */
void lab_plot_style(const char *design, char *buf, size_t len);

/* outputs.c: outputs checked before the run starts. */
struct lab_output {
	const char *path; /* NULL: none; "-": standard output */
	int fd;
	bool created;     /* by us: removed if the run fails */
};
/* Open @path for writing now (created, not truncated) and probe that it takes
 * writes (outputs.c says how); 0 or -errno, with @err saying why. */
int lab_output_open(struct lab_output *o, const char *path, char *err, size_t len);
/* Truncate (a regular file) and hand out the stream; NULL on failure. */
FILE *lab_output_begin(struct lab_output *o);
/* Flush and close the stream: 0 or -errno (then lab_output_abandon()). */
int lab_output_end(struct lab_output *o, FILE *f);
/* The run failed: close, and remove the file if we created it. */
void lab_output_abandon(struct lab_output *o);
/* Create @dir if missing and prove it writable; 0 or -errno. */
int lab_outdir_prepare(const char *dir, char *err, size_t len);

/* cli.c: option parsing and checks shared by the subcommands. */
int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
int lab_parse_scale(const char *s, struct lab_options *opt);
int lab_parse_bytes(const char *s, unsigned long long *out);
int lab_parse_design(const char *s, struct lab_design *d);
unsigned long long lab_mem_available(void);
unsigned long long lab_mem_total(void);
void lab_options_init(struct lab_options *opt);
/* Size the default memory budget from the machine (if none was given). */
void lab_budget_default(struct lab_options *opt);
/* Reject scales and budgets the machine cannot hold: 0, or a message in
 * @err and -EINVAL. */
int lab_check_feasible(const struct lab_options *opt, const struct lab_scale *s,
		       size_t designs, char *err, size_t errlen);
/* Peak resident set (VmHWM) of this process in bytes, 0 if unknown. */
unsigned long long lab_peak_rss(void);

#endif /* SHRINKLAB_LAB_H */
