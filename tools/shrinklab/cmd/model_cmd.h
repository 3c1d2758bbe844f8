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
#include <getopt.h>
#include <stdio.h>

#include "conventions.h"
#include "design_label.h"
#include "outputs.h"
#include "types.h"

/* The options every model subcommand has (model_cmd_parse() takes them);
 * a subcommand numbers its own from MODEL_OPT_FIRST_OWN. */
enum {
	MODEL_OPT_DESIGN = SHRINKLAB_OPT_FIRST_OWN,
	MODEL_OPT_JSON,
	MODEL_OPT_CSV,
	MODEL_OPT_ROWS,
	MODEL_OPT_QUIET,
	MODEL_OPT_FIRST_OWN,
};

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
 * The command line of subcommand m->sub: @longopts, its own options and
 * the five of MODEL_OPT_* (--design repeatable); the value of each of its
 * own is handed to @own(@ctx, option, value), which returns 0 or -1 after
 * the error's line. No positional argument; at least one --design.
 * Context: process context, before anything runs.
 * Return: 1 when --help or --version was printed, 0 to go on, -1 after a
 * usage error's line.
 */
int model_cmd_parse(struct model_cmd *m, int argc, char **argv, const struct option *longopts,
		    void (*usage)(FILE *out), int (*own)(void *ctx, int opt, const char *v),
		    void *ctx);

/*
 * Before the run: every design a configuration the library accepts on
 * @nodes nodes, none twice; the outputs opened (lab_outputs_open()).
 * Return: 0, or SHRINKLAB_EXIT_USAGE after the error's line (nothing open).
 */
int model_cmd_begin(struct model_cmd *m, int nodes);

/*
 * The run's heading on m->out: @title, @about (the geometry), then the
 * tool's version and the machine at the start.
 * Context: process context, after model_cmd_begin().
 */
void model_cmd_heading(struct model_cmd *m, const char *title, const char *about);

/*
 * After the run (@ret its result, 0 or -errno): on success the tables of
 * @runs (every row with --rows), peak RSS and time, then the JSON (its
 * samples @samples) and the CSV; on failure the outputs are abandoned.
 * Return: the subcommand's exit code.
 */
int model_cmd_finish(struct model_cmd *m, int ret, const struct lab_run *runs, size_t n,
		     unsigned int samples);

#endif /* SHRINKLAB_MODEL_CMD_H */
