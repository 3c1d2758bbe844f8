/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The kernel lab's experiments (kernel_lab.c says what each measures), one
 * script for two worlds: the guest (kernel/guest/klab-guest.c) and the model
 * (shrinklab kernel, tools/shrinklab/lab/kernel_experiments.c). Their rows,
 * in order, are data/kernel_metrics.tsv's.
 */
#ifndef SHRINKLAB_KERNEL_LAB_H
#define SHRINKLAB_KERNEL_LAB_H

#include "world.h"

#define KL_MAX_RUNGS 8
#define KL_MAX_POINTS 32

/* The geometry: the guest's options (same names, same defaults). */
struct kl_geometry {
	unsigned int ladder[KL_MAX_RUNGS]; /* units per node of the rungs */
	int nr_ladder;
	unsigned long cgroups;          /* N at 0 mounts */
	unsigned long register_cgroups; /* N alive during registration, at most */
	unsigned long top_cgroups;      /* N at the top rung, at most */
	unsigned long units_cgroups;    /* Nu */
	unsigned long churn_cgroups;    /* Nr */
	unsigned long highwater_mounts; /* H */
	unsigned long register_batch;   /* B */
	unsigned long samples, churn_samples, register_samples, walk_points;
	unsigned long host_shrinkers;   /* ids taken before the workload */
	unsigned long nodes, cpus;
};

enum kl_exp {
	KL_UNITS,
	KL_DROP,
	KL_CHURN,
	KL_HIGHWATER,
	KL_REGISTER,
	KL_NR_EXP,
};

/* The experiments' ids and titles, by enum kl_exp. */
extern const char *const kl_exp_ids[KL_NR_EXP];
extern const char *const kl_exp_titles[KL_NR_EXP];

/* The full geometry (the guest's defaults; host_shrinkers, nodes and cpus
 * those of the lab's machine). */
void kl_geometry_full(struct kl_geometry *g);
/* Every metric of every experiment at @g, in data/kernel_metrics.tsv's
 * order, through @w's metric(). Context: before kl_run(). */
void kl_declare_metrics(struct world *w, const struct kl_geometry *g);
/*
 * The script on world @w at geometry @g (the samples counts 1..64, the
 * walk points 2..32, the ladder from 1 and rising, as the callers check).
 * Return: 0 or the first -errno of a world op (the rows are incomplete).
 */
int kl_run(struct world *w, const struct kl_geometry *g);

#endif /* SHRINKLAB_KERNEL_LAB_H */
