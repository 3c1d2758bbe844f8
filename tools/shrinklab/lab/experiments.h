/* SPDX-License-Identifier: MIT */
/*
 * The seeds' experiments: the table reproduce and run go through.
 */
#ifndef SHRINKLAB_EXPERIMENTS_H
#define SHRINKLAB_EXPERIMENTS_H

#include <stddef.h>

#include "types.h"

/* The table, in the order reproduce runs it. */
extern const struct lab_experiment lab_experiments[];
extern const size_t lab_nr_experiments;
/* The experiment @id ("seed000-vm"), or NULL. */
const struct lab_experiment *lab_experiment_find(const char *id);

#endif /* SHRINKLAB_EXPERIMENTS_H */
