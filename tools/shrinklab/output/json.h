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

#endif /* SHRINKLAB_JSON_H */
