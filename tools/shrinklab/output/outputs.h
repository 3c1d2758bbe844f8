/* SPDX-License-Identifier: MIT */
/*
 * Outputs checked before the run starts: a file (or standard output) that
 * must take what the run writes at its end, and a directory for plots.
 */
#ifndef SHRINKLAB_OUTPUTS_H
#define SHRINKLAB_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lab_output {
	const char *path; /* NULL: none; "-": standard output */
	int fd;
	bool created;     /* by us: removed if the run fails */
};
/* Open @path for writing now (created, not truncated) and probe that it takes
 * writes (outputs.c says how); 0 or -errno, with @err saying why. */
int lab_output_open(struct lab_output *o, const char *path, char *err, size_t len);
/* Truncate (a regular file) and hand out the stream; NULL on failure. */
FILE *lab_output_begin(struct lab_output *o);
/* Flush and close the stream: 0 or -errno (then lab_output_abandon()). */
int lab_output_end(struct lab_output *o, FILE *f);
/* The run failed: close, and remove the file if we created it. */
void lab_output_abandon(struct lab_output *o);
/* Create @dir if missing and prove it writable; 0 or -errno. */
int lab_outdir_prepare(const char *dir, char *err, size_t len);

#endif /* SHRINKLAB_OUTPUTS_H */
