/* SPDX-License-Identifier: MIT */
/*
 * Kernel beside model, printed: the join (lab/beside_join.h) as klab lab's
 * tables and as JSON (beside.c).
 */
#ifndef SHRINKLAB_BESIDE_H
#define SHRINKLAB_BESIDE_H

#include <stdio.h>

#include "beside_join.h"

/* The tables, as klab lab prints them. Context: process context. */
void lab_beside_print(FILE *out, const struct lab_beside *b);
/* The comparison as JSON (klab-lab/1's "comparison"). Context: process context. */
void lab_beside_write_json(FILE *out, const struct lab_beside *b);

#endif /* SHRINKLAB_BESIDE_H */
