/* SPDX-License-Identifier: MIT */
/*
 * The records every floor of shrinklab shares, and nothing else (as the
 * library's src/core/host_state.h): a design configuration, the scale an
 * experiment or row ran at, a row of results, a seed figure and its
 * geometry, a verdict, the rows of one experiment, the run options, a
 * metric and an experiment. Each module's functions are in its own header.
 *
 * A "bench" (bench.h) is one host of one design configuration with the
 * superblock workload on it (mounts, cgroups, files). Experiments build one
 * bench per design side by side in one process, measure them in lockstep
 * (lockstep.h) and destroy them before the next experiment. Every figure in
 * a lab_result comes from a clock or from the slab allocator's counters;
 * none is computed from a formula. A design whose bench cannot be opened
 * (lab_bench_open()'s why) yields rows marked unavailable.
 *
 * Every row carries the geometry it was measured at (struct lab_scale:
 * mounts, cgroups, nodes, CPUs, and the units per node its shrinker ids
 * span). A seed figure is shown beside a row, and a verdict given, only when
 * the geometry the figure was measured at matches the row's in every key the
 * metric depends on (lab_metric.geo).
 */
#ifndef SHRINKLAB_TYPES_H
#define SHRINKLAB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <shrinker/host.h>

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
/* Where the seed measured a figure: per key absent, unknown or [lo, hi]. */
struct lab_seed_geometry {
	enum { LAB_SEED_GEO_ABSENT, LAB_SEED_GEO_UNKNOWN, LAB_SEED_GEO_KNOWN } state[LAB_NR_GEO];
	unsigned long lo[LAB_NR_GEO], hi[LAB_NR_GEO];
};

/* A figure the seeds published (seeds.h loads them). */
struct lab_seed_figure {
	char experiment[48], design[LAB_LABEL_LEN], metric[64], unit[8];
	bool same_as_base; /* "same within noise" */
	char relation;     /* '=' a value, '<' at most, '>' at least */
	double value;
	struct lab_seed_geometry geo;
	char thread[64], source[256]; /* the thread (data/threads.tsv), the row or quote */
};

/* The clocks timed figures are read from (stats.h measures them). */
enum lab_clock {
	LAB_CLOCK_WALL, /* CLOCK_MONOTONIC (lab_now_ns()) */
	LAB_CLOCK_CPU,  /* CLOCK_PROCESS_CPUTIME_ID less CLOCK_THREAD_CPUTIME_ID */
	LAB_NR_CLOCKS,
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
	/* The n samples are not rounds that pair with the base's round for
	 * round (a kernel figure of one boot: its samples came one after
	 * another in one boot). The model's rows are always rounds: false. */
	bool unpaired;
	/* Samples each of the n stands for (a kernel boot's median of its
	 * samples); 0 for one. A timed ratio over fewer than two samples has
	 * no spread to judge. */
	size_t samples_per_round;
	/* Timed: the clock's measured resolution per item a sample divides
	 * by, in the row's unit (lab_run_set_resolution()); a median below it
	 * cannot be told from zero. 0 for a reading. */
	double resolution;
	enum lab_clock clock;
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
/* A verdict on the size of a ratio, beside its direction (verdict.h). */
enum lab_size_kind {
	LAB_SIZE_NOT_JUDGED,   /* no seed ratio to size against (a bound, a count,
				* not compared, not measured) */
	LAB_SIZE_AGREES,       /* the whole range within 2x of the seed's ratio */
	LAB_SIZE_DISAGREES,    /* the whole range beyond 2x of it */
	LAB_SIZE_INCONCLUSIVE, /* the range across 0.5x or 2x of it */
};
/* One verdict on one seed claim (verdict.h). */
struct lab_verdict {
	const char *metric;
	char design[LAB_LABEL_LEN], base[LAB_LABEL_LEN]; /* base "" for counts */
	const char *claim;  /* "ratio", "same", "bound", "count" */
	bool has_ours;
	double ours, lo, hi; /* ratio of medians; range of per-round ratios */
	size_t rounds;
	bool paired;         /* lo..hi is over paired rounds (else unpaired) */
	bool has_seed;
	double seed;         /* the seed's ratio or bound (count: the count) */
	char relation;       /* '=', '<', '>' */
	enum lab_verdict_kind kind; /* the direction: lower, higher, the same */
	enum lab_size_kind size;    /* the size: within 2x of the seed's ratio */
	double size_lo, size_hi;    /* our range over the seed's ratio (size judged) */
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
/* A metric of an experiment: fixed name, base unit, geometry it depends on. */
struct lab_metric {
	const char *name;
	const char *unit; /* "B", "ns" or "count" */
	unsigned int geo; /* LAB_G() keys */
	const char *what; /* one line for tables, plots and the man page */
};

/* An experiment: fixed id, seed scale, design list, metric names, runner. */
struct lab_experiment {
	const char *id;     /* the thread's id, then its table: "xarray-2026-vm" */
	const char *thread; /* the thread's id in data/threads.tsv, or NULL */
	const char *title;  /* the seed's setting */
	struct lab_scale seed_scale;
	/* Mounts and cgroups of the default scale: the seed's where that fits
	 * the default's time and memory, else a cut that says which. */
	unsigned long default_mounts, default_cgroups;
	/* Mounts follow cgroups (a pod's 4 mounts, bitmap-2018's own mount), or
	 * 0 when they scale on their own. */
	unsigned int mounts_per_cgroup;
	const struct lab_design *designs;
	size_t nr_designs;
	const struct lab_metric *metrics;
	size_t nr_metrics;
	/* Build the benches of run->designs, measure, fill run->rows. */
	int (*run)(struct lab_run *run, const struct lab_options *opt);
	/* Rows only the kernel lab's guest measures for this table (klab
	 * reproduce prints them beside the model's metrics); none runs here. */
	const struct lab_metric *kernel_metrics;
	size_t nr_kernel_metrics;
};

#endif /* SHRINKLAB_TYPES_H */
