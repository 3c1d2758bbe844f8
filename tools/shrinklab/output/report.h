/* SPDX-License-Identifier: MIT */
/*
 * The tables people read: a run's header, one table per experiment (ours
 * beside the seed's), the seed claims' verdicts, and plain tables of rows
 * that have no seed (the kernel lab's experiments in the model).
 */
#ifndef SHRINKLAB_REPORT_H
#define SHRINKLAB_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "machine.h"
#include "table.h"
#include "types.h"

/* The first lines: subcommand, scale, samples, memory budget, version, and
 * the machine (lab_report_machine()) as the run starts. */
void lab_report_header(FILE *out, const char *subcommand, const struct lab_options *opt,
		       const char *design_label);
/* "@lead: <the machine in words> @when" on a line. */
void lab_report_machine(FILE *out, const char *lead, const struct lab_machine *m,
			const char *when);
/* The last line: peak RSS, @elapsed_ns in all, the load at the end. */
void lab_report_end(FILE *out, uint64_t elapsed_ns);
/* One experiment: its geometry, the hosts, then its decision table
 * (table.h) in @fmt. */
void lab_report_run(FILE *out, const struct lab_run *run, enum lab_table_format fmt);
/* Every row of one experiment, a line each (design, metric, ours, the
 * seed's, both over the base, the samples' range, the note). */
void lab_report_run_rows(FILE *out, const struct lab_run *run);
/* The verdicts of @run's seed claims, a line each (none: nothing). */
void lab_report_claims(FILE *out, const struct lab_run *run);
/* The count of verdicts by kind, then per experiment how many metrics
 * each design is best at (table.h). */
void lab_report_decisions(FILE *out, const struct lab_run *runs, size_t n);
/* The decision tables of @runs as Markdown, each under a line that says
 * the experiment and its geometry: 0, or -errno when writing failed. */
int lab_report_markdown(FILE *f, const struct lab_run *runs, size_t n);
/* One experiment's rows without seed columns, under "== <id> (@side, <s> s)":
 * value, samples and range, and the row's mounts, cgroups and units. */
void lab_report_rows(FILE *out, const struct lab_run *run, const char *side);

#endif /* SHRINKLAB_REPORT_H */
