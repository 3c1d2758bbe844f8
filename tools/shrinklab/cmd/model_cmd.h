/* SPDX-License-Identifier: MIT */
/*
 * What the two subcommands that run the kernel lab's guest work in the
 * model (shrinklab kernel, shrinklab containers) share: the design
 * configurations they are given and check against the library, the
 * options --json, --csv, --rows and --quiet, opening the outputs before
 * anything runs, and the end of a run (its tables, peak RSS, outputs).
 * Each subcommand keeps its own geometry and experiment.
 */
#ifndef SHRINKLAB_MODEL_CMD_H
#define SHRINKLAB_MODEL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "design_label.h"
#include "outputs.h"
#include "types.h"

struct model_cmd {
	const char *sub;           /* the subcommand's name, for its errors */
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t nr_designs;
	const char *json, *csv;    /* the options' paths; NULL: not asked */
	bool rows, quiet;
	/* Set by model_cmd_begin(): */
	struct lab_outputs outs;   /* --json, --csv (no --markdown) */
	FILE *out;                 /* the tables' stream (stderr when an output is stdout) */
	uint64_t t0;
};

/*
 * --design LABEL: one more design configuration.
 * Return: 0, or -1 after the bad value's line.
 */
int model_cmd_design_value(struct model_cmd *m, const char *v);

/*
 * After the options: at least one design.
 * Return: 0, or -1 after the error's line.
 */
int model_cmd_check_request(const struct model_cmd *m);

/*
 * Before the run: every design a configuration the library accepts on
 * @nodes nodes, none twice; the outputs opened (lab_outputs_open()).
 * Return: 0, or SHRINKLAB_EXIT_USAGE after the error's line (nothing open).
 */
int model_cmd_begin(struct model_cmd *m, int nodes);

/*
 * After the run (@ret its result, 0 or -errno): on success the tables of
 * @runs (every row with --rows), peak RSS and time, then the JSON (its
 * samples @samples) and the CSV; on failure the outputs are abandoned.
 * Return: the subcommand's exit code.
 */
int model_cmd_finish(struct model_cmd *m, int ret, const struct lab_run *runs, size_t n,
		     unsigned int samples);

#endif /* SHRINKLAB_MODEL_CMD_H */
