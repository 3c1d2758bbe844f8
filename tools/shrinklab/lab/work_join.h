/* SPDX-License-Identifier: MIT */
/*
 * klab work's join: the kernel lab's workload documents (kwork, one per
 * design, workload and boot) and the model's (shrinklab containers),
 * metric by metric, each design's kernel cell over mainline's with its
 * class, the model's over the kernel's, the best design of a metric with a
 * direction, and what the model leaves out (work_join.c says how); the
 * records output/work_tables.h prints. shrinklab judge work is its command.
 */
#ifndef SHRINKLAB_WORK_JOIN_H
#define SHRINKLAB_WORK_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "beside_join.h"
#include "jsonr.h"

/* A row of data/kernel_workloads.tsv. */
struct lab_work_def {
	char exp[32], name[96], better[8];
};
struct lab_work_left {
	char exp[32], metric[96], kind[8], what[64];
	const char *why;
};
struct lab_work_why {
	char what[64], why[512];
};

struct lab_work_cell {
	bool has_k, has_m, has_mr, has_r;
	struct lab_bs_fig k, m;
	struct lab_bs_fig mr; /* the model's over the kernel's */
	struct lab_bs_fig r;  /* the kernel's over mainline's */
	const char *cls, *beyond; /* r's class; "above", "below" or NULL */
};

struct lab_work_row {
	const char *metric, *unit, *better;
	bool has_best;
	const char **best; /* the designs with the best median */
	size_t nr_best;
	struct lab_work_cell *cells; /* per design */
	const struct lab_work_left *left;
};

struct lab_work_exp {
	const char *id;
	struct lab_work_row *rows;
	size_t nr_rows;
	bool model; /* a model document has the experiment */
};

struct lab_work {
	struct lab_bs_design *designs;
	size_t nr_designs;
	struct lab_work_exp *exps;
	size_t nr_exps;
	struct lab_bs_rows k, m;
	struct lab_work_def *defs;
	size_t nr_defs;
	struct lab_work_left *lefts;
	size_t nr_lefts;
	struct lab_work_why *whys;
	size_t nr_whys;
	const struct jsonr_value *heading;
	const char *clock;
};

/*
 * The join of the document @in (klab-judge/1, as lab_beside_join() takes
 * it: the guests' kwork documents, the model's shrinklab containers
 * documents, each design's model label, the heading, the guests' clock),
 * with the metrics and what the model leaves out of data file @path
 * (kernel_workloads.tsv). @in must outlive the result.
 * Context: process context; allocates.
 * Return: 0 and *@out; -EINVAL with @why, -errno of the data file, -ENOMEM.
 */
int lab_work_join(const struct jsonr_value *in, const char *path, struct lab_work **out,
		  char *why, size_t whylen);
/* Free @w (NULL is nothing). Context: any. */
void lab_work_free(struct lab_work *w);

#endif /* SHRINKLAB_WORK_JOIN_H */
