/* SPDX-License-Identifier: MIT */
/*
 * The rows of one experiment (struct lab_run).
 */
#ifndef SHRINKLAB_ROWS_H
#define SHRINKLAB_ROWS_H

#include <stdbool.h>
#include <stddef.h>

#include "bench.h"
#include "types.h"

/* The metric @name of @exp's table, or NULL. */
const struct lab_metric *lab_metric_find(const struct lab_experiment *exp, const char *name);
/* A new zeroed row of @design and @metric (which must be in the
 * experiment's table: a metric outside it is a bug and aborts). */
struct lab_result *lab_run_add(struct lab_run *run, const char *design, const char *metric);
/* A row of one reading (memory, a count) / of clock samples (median, min,
 * max and the samples in round order) of bench @b at geometry @geo. */
void lab_run_add_value(struct lab_run *run, const struct lab_bench *b, const char *metric,
		       double value, const struct lab_scale *geo);
void lab_run_add_samples(struct lab_run *run, const struct lab_bench *b, const char *metric,
			 const double *v, size_t n, const struct lab_scale *geo);
/* The row of @design and @metric: each of its samples timed @per items on
 * @clock (lab_run_add_samples() assumes one item on the wall clock). */
void lab_run_set_resolution(struct lab_run *run, const char *design, const char *metric,
			    enum lab_clock clock, double per);
/* Is @r's median under its clock's resolution (a timed row only)? */
bool lab_result_under_resolution(const struct lab_result *r);
void lab_run_free(struct lab_run *run);
/* Order rows by design (the run's list), then metric (the experiment's). */
void lab_run_sort(struct lab_run *run);
/* The base design's row of @metric (first design of the list), or NULL. */
const struct lab_result *lab_run_base_row(const struct lab_run *run, const char *metric);

#endif /* SHRINKLAB_ROWS_H */
