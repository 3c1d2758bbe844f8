/* SPDX-License-Identifier: MIT */
/*
 * The results as JSON, schema shrinklab/2 (data/shrinklab.schema.json).
 */
#ifndef SHRINKLAB_JSON_H
#define SHRINKLAB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "claims.h"
#include "seeds.h"
#include "types.h"

struct lab_json_context {
	const char *subcommand;
	int argc;
	char **argv;
	const struct lab_options *opt;
	uint64_t elapsed_ns;
};
int lab_json_write(FILE *f, const struct lab_run *runs, size_t n,
		   const struct lab_json_context *ctx);
/*
 * The experiment registry, schema shrinklab-experiments/1: per experiment
 * of lab_experiments[] (in order) its id, thread, title, seed and default
 * geometry, design labels, and metrics (name, unit, the geometry keys the
 * figure depends on, what it is, which way is better), and the seeds'
 * figures of @seeds for it (design, metric, unit, value, relation,
 * geometry). What the kernel lab reads instead of keeping tables of its own
 * (kernel/py/klab/registry.py).
 * Context: process context.
 * Return: 0, or -errno when @f could not be written.
 */
int lab_json_write_registry(FILE *f, const struct lab_seeds *seeds);
/*
 * The claims judged (claims.h), schema shrinklab-claims/1: per claim its
 * verdict (as shrinklab/2 writes one), whether its range is paired, and
 * the seed's ratio as the seed states it; per ratio asked, the ratio of
 * medians, its range, rounds, pairing and class, or null; per size and
 * class asked, its name; per cell its text; per boots asked, the merged
 * figure (lab_json_write_fig_fields()) and whether its spread is within
 * boot_spread_target (written once).
 * Context: process context.
 * Return: 0, or -errno when @f could not be written.
 */
int lab_json_write_claims(FILE *f, const struct lab_claims *c);
/*
 * The fields of a kernel-lab figure (beside_join.h), without braces:
 * value, min, max (null without a value), then for a ratio paired and
 * spread_known, for a cell n, boots, boot_spread and the verdicts' range
 * (verdict_min, verdict_max). What judge lab and judge claims' boots write.
 * Context: process context. @f's error flag says whether it was written.
 */
void lab_json_write_fig_fields(FILE *f, const struct lab_bs_fig *g);

#endif /* SHRINKLAB_JSON_H */
