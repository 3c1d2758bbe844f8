/* SPDX-License-Identifier: MIT */
/*
 * The model's world (../scripts/world.h): a script's designs are the benches
 * of one run (bench.h), one host per design configuration, sampled side by
 * side by the lockstep sampler (lockstep.h); its rows go to one lab_run per
 * experiment of the script, whose metric tables the script declares
 * (world_ops.metric) before it runs.
 */
#ifndef SHRINKLAB_WORLD_MODEL_H
#define SHRINKLAB_WORLD_MODEL_H

#include <stddef.h>

#include "bench.h"
#include "lockstep.h"
#include "types.h"
#include "world.h"

#define LAB_WORLD_MAX_EXPS 8
#define LAB_WORLD_MAX_METRICS 64

struct lab_world {
	struct world w;
	struct lab_bench *b;          /* [w.nr_designs] */
	struct lab_experiment *exps;  /* by the script's experiment index */
	struct lab_run *runs;         /* likewise */
	size_t nr_exps;
	unsigned int geo;             /* every metric's geometry keys (LAB_G_*) */
	struct lab_metric metrics[LAB_WORLD_MAX_EXPS][LAB_WORLD_MAX_METRICS];
	char names[LAB_WORLD_MAX_EXPS][LAB_WORLD_MAX_METRICS][80];
	lab_samples_t v[LAB_MAX_VALUES];
};

/*
 * The world of the @n benches @b, whose rows go to @runs[e] of experiment
 * @exps[e] (e < @nr_exps; each experiment's metric table is lw's, filled by
 * the script's declarations), every metric with geometry keys @geo, the
 * objects of @caches (kernel names, NULL-terminated) counted.
 * Context: the main thread, before the script; the benches are opened later.
 */
void lab_world_init(struct lab_world *lw, struct lab_bench *b, size_t n,
		    struct lab_experiment *exps, struct lab_run *runs, size_t nr_exps,
		    unsigned int geo, const char *const *caches);

#endif /* SHRINKLAB_WORLD_MODEL_H */
