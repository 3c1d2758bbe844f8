/* SPDX-License-Identifier: MIT */
/*
 * Kernel beside model, the join: the kernel lab's guest documents and the
 * model's (both shrinklab/2) joined metric by metric, each design judged
 * against the base on both sides (beside_join.c says how); the records
 * output/beside.h prints. shrinklab judge lab is its command.
 */
#ifndef SHRINKLAB_BESIDE_JOIN_H
#define SHRINKLAB_BESIDE_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "jsonr.h"

#define LAB_BESIDE_BASE "mainline"
/* How far a boot's median of a kernel timing may lie from the median of
 * the boots' medians, over it, for the timing to count as repeatable. */
#define LAB_BOOT_SPREAD_TARGET 0.10

struct lab_bs_row {
	const struct jsonr_value *row;
	size_t doc; /* which document: only rows of one can pair by round */
};

/* Every row of one (experiment, metric, design), over the documents. */
struct lab_bs_key {
	const char *exp, *metric, *design;
	struct lab_bs_row *rows;
	size_t nr_rows;
};

struct lab_bs_exp_order {
	const char *id;
	const char **metrics; /* in first-seen order */
	const char **units;   /* each metric's unit, as its last row gives it */
	size_t nr_metrics;
};

struct lab_bs_rows {
	struct lab_bs_key *keys; /* in first-seen order */
	size_t nr_keys;
	struct lab_bs_exp_order *exps;
	size_t nr_exps;
};

/* A derived ratio (kernel_metrics.tsv's "ratio" rows). */
struct lab_bs_derived {
	char exp[64], numerator[128], denominator[128], name[128];
};

/* One side's figure of one design and metric (a cell), or a ratio with a
 * range (derived within a design, or a design over the base). */
struct lab_bs_fig {
	bool ratio;
	bool has_value;
	double value;
	double lo, hi;   /* printed: every sample's range (a cell), the range (a ratio) */
	double vlo, vhi; /* the verdicts' range */
	double n;        /* a cell: its rows' samples; a ratio: 2 with spread, else 1 */
	bool timed, spread, paired;
	const char *unit;
	const struct lab_bs_key *key; /* a cell: its rows (NULL for a derived one's) */
	size_t boots;
	bool has_boot_spread;
	double boot_spread;
};

struct lab_bs_cell {
	const char *model_design;
	bool has_k, has_m;
	struct lab_bs_fig k, m;
};

struct lab_bs_versus {
	const char *design;
	bool has_k, has_m;
	struct lab_bs_fig rk, rm;
	const char *ck, *cm, *verdict, *size;
};

struct lab_bs_winner {
	const char **names; /* none: no figure; one: the lowest; more: a tie */
	size_t n;
};

struct lab_bs_metric {
	const char *metric, *unit;
	bool derived;
	struct lab_bs_cell *cells; /* per design */
	struct lab_bs_versus *vs;
	size_t nr_vs;
	struct lab_bs_winner wk, wm;
	const char *verdict;
};

struct lab_bs_exp {
	const char *id;
	struct lab_bs_metric *metrics;
	size_t nr_metrics;
};

struct lab_bs_design {
	const char *name, *model;
	const struct jsonr_value *notes;
};

struct lab_beside {
	struct lab_bs_design *designs;
	size_t nr_designs;
	struct lab_bs_exp *exps;
	size_t nr_exps;
	struct lab_bs_rows k, m;
	struct lab_bs_derived *ratios;
	size_t nr_ratios;
	const struct jsonr_value *heading;
	const char *clock;
};

/* The pieces klab work's join (work_join.h) shares. */
/* Every available row of the shrinklab/2 documents @docs, indexed in @rb
 * (zeroed first). Context: process context; allocates. Return: 0, -EINVAL
 * (a document without its experiments' ids, results, or a result's
 * metric, design or unit) or -ENOMEM. */
int lab_bs_index(struct lab_bs_rows *rb, const struct jsonr_value *docs);
/* Free what @rb holds. Context: any. */
void lab_bs_rows_free(struct lab_bs_rows *rb);
/* The rows of (@exp, @metric, @prefix@design), or NULL. Context: any. */
const struct lab_bs_key *lab_bs_find(const struct lab_bs_rows *rb, const char *exp,
				     const char *metric, const char *prefix, const char *design);
/* The cell of @k's rows in @unit. Context: any; allocates. Return: 0 or -ENOMEM. */
int lab_bs_cell(const struct lab_bs_key *k, const char *unit, struct lab_bs_fig *c);
/* @a over @b with the widest range their verdict ranges allow, in @q:
 * true, or false when undefined. Context: any. */
bool lab_bs_unpaired(const struct lab_bs_fig *a, const struct lab_bs_fig *b,
		     struct lab_bs_fig *q);
/* "lower", "same", "higher", "across" or "no spread" (verdict.h's rule). Context: any. */
const char *lab_bs_classify(const struct lab_bs_fig *r);
/* The kernel designs of the guests' documents @kdocs, the base first, each
 * with its model label and notes from @in's "designs", appended to
 * *@designs (*@nr of them). Context: process context; allocates. Return:
 * 0, -EINVAL (a document naming no design) or -ENOMEM. */
int lab_bs_designs(struct lab_bs_design **designs, size_t *nr, const struct jsonr_value *in,
		   const struct jsonr_value *kdocs);
/* @in's guests' and model's documents indexed in @k and @m, and its kernel
 * designs (lab_bs_designs()). Context: process context; allocates.
 * Return: 0, -EINVAL with @why saying what @in lacks, or -ENOMEM. */
int lab_bs_read(const struct jsonr_value *in, struct lab_bs_rows *k, struct lab_bs_rows *m,
		struct lab_bs_design **designs, size_t *nr, char *why, size_t whylen);

/*
 * The join of the document @in (klab's klab-judge/1: "kernel", the guests'
 * documents; "model", the model's; "designs", each kernel design's name,
 * model label or null, and notes; "heading", lines printed first; "clock",
 * the kernel's clock as the tables name it), with the derived ratios of
 * data file @metrics_path (kernel_metrics.tsv's "ratio" rows). @in must
 * outlive the result.
 * Context: process context; allocates.
 * Return: 0 and *@out; -EINVAL with @why saying what is wrong with @in or
 * the data file, -errno of reading the data file, or -ENOMEM.
 */
int lab_beside_join(const struct jsonr_value *in, const char *metrics_path,
		    struct lab_beside **out, char *why, size_t whylen);
/* Free @b (NULL is nothing). Context: any. */
void lab_beside_free(struct lab_beside *b);

#endif /* SHRINKLAB_BESIDE_JOIN_H */
