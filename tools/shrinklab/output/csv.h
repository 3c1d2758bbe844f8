/* SPDX-License-Identifier: MIT */
/*
 * The results as CSV (RFC 4180), one line per row of every experiment,
 * for spreadsheets and plotting tools (csv.c lists the columns).
 */
#ifndef SHRINKLAB_CSV_H
#define SHRINKLAB_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "types.h"

/* The header line, then the rows of @runs: 0, or -errno when writing failed. */
int lab_csv_write(FILE *f, const struct lab_run *runs, size_t n);

#endif /* SHRINKLAB_CSV_H */
