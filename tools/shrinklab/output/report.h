/* SPDX-License-Identifier: MIT */
/*
 * The tables people read: a run's header, one table per experiment (ours
 * beside the seed's), the seed claims' verdicts, and plain tables of rows
 * that have no seed (the kernel lab's experiments in the model).
 */
#ifndef SHRINKLAB_REPORT_H
#define SHRINKLAB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "types.h"

/* The first lines: subcommand, scale, samples, memory budget, version. */
void lab_report_header(FILE *out, const char *subcommand, const struct lab_options *opt,
		       const char *design_label);
/* One experiment: hosts, then a row per design and metric with the seed's
 * figure where the geometry matches, each relative to the base design. */
void lab_report_run(FILE *out, const struct lab_run *run);
/* Every verdict of @runs and their count by kind. */
void lab_report_claims(FILE *out, const struct lab_run *runs, size_t n);
/* One experiment's rows without seed columns, under "== <id> (@side, <s> s)":
 * value, samples and range, and the row's mounts, cgroups and units. */
void lab_report_rows(FILE *out, const struct lab_run *run, const char *side);

#endif /* SHRINKLAB_REPORT_H */
