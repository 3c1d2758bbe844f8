/* SPDX-License-Identifier: MIT */
/*
 * The results as JSON, schema shrinklab/2 (data/shrinklab.schema.json).
 */
#ifndef SHRINKLAB_JSON_H
#define SHRINKLAB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
 * figure depends on, what it is, which way is better). What the kernel lab
 * reads instead of keeping tables of its own (kernel/py/klab/registry.py).
 * Return: 0, or -EIO when @f could not be written.
 */
int lab_json_write_registry(FILE *f);

#endif /* SHRINKLAB_JSON_H */
