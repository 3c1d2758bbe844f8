/* SPDX-License-Identifier: MIT */
/*
 * The seeds' experiments, each named after its thread (docs/THREADS.md,
 * data/threads.tsv): the table reproduce, run and compare go through.
 */
#ifndef SHRINKLAB_EXPERIMENTS_H
#define SHRINKLAB_EXPERIMENTS_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

/* The table, in the order reproduce runs it. */
extern const struct lab_experiment lab_experiments[];
extern const size_t lab_nr_experiments;
/* The experiment @id ("xarray-2026-vm", or its old id "seed000-vm"), or
 * NULL. Context: any. */
const struct lab_experiment *lab_experiment_find(const char *id);
/* @e's id before the experiments were named after their threads, or NULL.
 * Context: any. Return: a static string. */
const char *lab_experiment_old_id(const struct lab_experiment *e);
/* Is the best design the one with the highest figure of @metric (units
 * per slab), rather than the lowest (every cost)? */
bool lab_metric_higher_better(const char *metric);

#endif /* SHRINKLAB_EXPERIMENTS_H */
