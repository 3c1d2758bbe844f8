/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's experiments in the model (shrinklab kernel): the script
 * of ../scripts/kernel_lab.c on the model's world (world_model.h), one
 * bench per design configuration, into one lab_run per experiment whose
 * metric names are the guest's (data/kernel_metrics.tsv).
 */
#ifndef SHRINKLAB_KERNEL_EXPERIMENTS_H
#define SHRINKLAB_KERNEL_EXPERIMENTS_H

#include <stddef.h>

#include "bench.h"
#include "kernel_lab.h"
#include "types.h"
#include "world_model.h"

/* Everything one run owns: the experiments (their metric tables are the
 * world's), the rows, the benches and the world over them. */
struct lab_kernel_lab {
	struct kl_geometry g;
	struct lab_experiment exps[KL_NR_EXP];
	struct lab_run runs[KL_NR_EXP];
	struct lab_bench b[LAB_MAX_DESIGNS];
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t n;
	struct lab_world world;
};

/* "the kernel guest's geometry: ladder 1,35,126,314 units per node (...)". */
void lab_kernel_describe(const struct kl_geometry *g, char *buf, size_t len);
/* Tables and runs for @n designs (each accepted by the library at @g's
 * nodes) at geometry @g; nothing measured yet. */
void lab_kernel_init(struct lab_kernel_lab *k, const struct kl_geometry *g,
		     const struct lab_design *designs, size_t n);
/* Open the benches, run the script, record the hosts, close the benches,
 * sort the rows. Return: 0 or the first -errno (the rows are incomplete). */
int lab_kernel_run(struct lab_kernel_lab *k);
void lab_kernel_free(struct lab_kernel_lab *k);

#endif /* SHRINKLAB_KERNEL_EXPERIMENTS_H */
