/* SPDX-License-Identifier: MIT */
/*
 * Kernel beside model, printed: the joins (lab/beside_join.h, klab lab's;
 * lab/work_join.h, klab work's) as their tables and as JSON (beside.c).
 */
#ifndef SHRINKLAB_BESIDE_H
#define SHRINKLAB_BESIDE_H

#include <stdio.h>

#include "beside_join.h"
#include "work_join.h"

/* The tables, as klab lab prints them. Context: process context. */
void lab_beside_print(FILE *out, const struct lab_beside *b);
/* The comparison as JSON (klab-lab/1's "comparison"). Context: process context. */
void lab_beside_write_json(FILE *out, const struct lab_beside *b);

/* klab work's tables (one per experiment: a line of medians per metric,
 * under it the ratios to mainline, then the model's line). Context:
 * process context. */
void lab_work_print(FILE *out, const struct lab_work *w);
/* klab work's comparison as JSON (klab-work/1's "comparison"). Context:
 * process context. */
void lab_work_write_json(FILE *out, const struct lab_work *w);

#endif /* SHRINKLAB_BESIDE_H */
