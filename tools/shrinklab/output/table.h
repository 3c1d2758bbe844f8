/* SPDX-License-Identifier: MIT */
/*
 * Decision tables: one experiment as a choice between designs, a row per
 * metric and a column per design (table.c says what a cell holds), as text
 * for a terminal or as Markdown for a document; and the cell of one row,
 * which the CSV writer shares.
 */
#ifndef SHRINKLAB_TABLE_H
#define SHRINKLAB_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "types.h"
#include "verdict.h"

/* Text tables wider than this wrap into panels (the base column repeats). */
#define LAB_TABLE_WIDTH 150

enum lab_table_format {
	LAB_TABLE_TEXT,
	LAB_TABLE_MARKDOWN,
};

/* What a decision table says about one row. */
struct lab_cell {
	char value[40];        /* "264 B", "< 0.15 ns" (under the resolution), "unavailable" */
	char words[40];        /* against the base: "630x lower", "same within noise",
				* "noisy: 0.6-1.4x"; "" for the base and where
				* there is no ratio */
	bool best;             /* the best median of the metric, or one the noise
				* cannot tell from it */
	bool under_resolution; /* the median is below its clock's resolution */
	bool has_ratio;
	struct lab_ratio ratio; /* over the base's row, when has_ratio */
};

/* @ratio (> 0) in words: "46000x lower", "1.9x higher". */
void lab_table_ratio_words(char *buf, size_t len, double ratio);
/* The cell of row @r of @run. */
void lab_table_cell(const struct lab_run *run, const struct lab_result *r, struct lab_cell *c);
/* The decision table of @run, with its notes. */
void lab_table_print(FILE *out, const struct lab_run *run, enum lab_table_format fmt);

#endif /* SHRINKLAB_TABLE_H */
