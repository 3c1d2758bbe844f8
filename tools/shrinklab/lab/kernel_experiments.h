/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's guest experiments in the model (kernel_experiments.c
 * says what each measures): the guest's geometry, and one run of its
 * script on one model host per design configuration, into one lab_run per
 * experiment whose metric names are the guest's (data/kernel_metrics.tsv).
 */
#ifndef SHRINKLAB_KERNEL_EXPERIMENTS_H
#define SHRINKLAB_KERNEL_EXPERIMENTS_H

#include <stddef.h>

#include "bench.h"
#include "lockstep.h"
#include "types.h"

#define LAB_KERNEL_MAX_RUNGS 8
#define LAB_KERNEL_MAX_POINTS 32
#define LAB_KERNEL_MAX_METRICS 64

/* The guest's geometry (klab-guest's options, same names, same defaults). */
struct lab_kernel_geometry {
	unsigned int ladder[LAB_KERNEL_MAX_RUNGS]; /* units per node of the rungs */
	int nr_ladder;
	unsigned long cgroups;          /* N at 0 mounts */
	unsigned long register_cgroups; /* N alive during registration */
	unsigned long top_cgroups;      /* N at the top rung */
	unsigned long units_cgroups;    /* Nu */
	unsigned long churn_cgroups;    /* Nr */
	unsigned long highwater_mounts; /* H */
	unsigned long register_batch;   /* B */
	unsigned long samples, churn_samples, register_samples, walk_points;
	unsigned long host_shrinkers;   /* ids taken before the workload */
	unsigned long nodes, cpus;
};

enum lab_kernel_exp {
	LAB_K_UNITS,
	LAB_K_DROP,
	LAB_K_CHURN,
	LAB_K_HIGHWATER,
	LAB_K_REGISTER,
	LAB_K_NR_EXP,
};

/* Everything one run owns: the experiments with their metric tables (built
 * from the ladder), the rows, the benches and the samples being taken. */
struct lab_kernel_lab {
	struct lab_kernel_geometry g;
	struct lab_experiment exps[LAB_K_NR_EXP];
	struct lab_metric metrics[LAB_K_NR_EXP][LAB_KERNEL_MAX_METRICS];
	char names[LAB_K_NR_EXP][LAB_KERNEL_MAX_METRICS][80];
	struct lab_run runs[LAB_K_NR_EXP];
	struct lab_bench b[LAB_MAX_DESIGNS];
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t n;
	lab_samples_t v[LAB_MAX_VALUES];
};

/* The guest's full geometry (klab-guest's defaults). */
void lab_kernel_geometry_full(struct lab_kernel_geometry *g);
/* "the kernel guest's geometry: ladder 1,35,126,314 units per node (...)". */
void lab_kernel_describe(const struct lab_kernel_geometry *g, char *buf, size_t len);
/* Tables and runs for @n designs (each accepted by the library at @g's
 * nodes) at geometry @g; nothing measured yet. */
void lab_kernel_init(struct lab_kernel_lab *k, const struct lab_kernel_geometry *g,
		     const struct lab_design *designs, size_t n);
/* Open the benches, run the script, record the hosts, close the benches,
 * sort the rows. Return: 0 or the first -errno (the rows are incomplete). */
int lab_kernel_run(struct lab_kernel_lab *k);
void lab_kernel_free(struct lab_kernel_lab *k);

#endif /* SHRINKLAB_KERNEL_EXPERIMENTS_H */
