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
/* The run failed: close, and remove the file if we created it. */
void lab_output_abandon(struct lab_output *o);
/*
 * The files a run writes at its end, as one set: opened and checked
 * together up front, written one by one at the end, kept together.
 */
enum { LAB_OUT_JSON, LAB_OUT_CSV, LAB_OUT_MARKDOWN, LAB_NR_OUTS };
extern const char *const lab_out_option[LAB_NR_OUTS]; /* "--json", ... */
/* The most of a path an error message shows. */
#define LAB_PATH_SHOWN 200
struct lab_outputs {
	struct lab_output o[LAB_NR_OUTS];
};
/* Open every @path that is not NULL ("-": standard output, one at most),
 * refusing two that are the same file: 0 or -errno with @err the whole
 * message ("--json 'PATH': why"), nothing left open or created. */
int lab_outputs_open(struct lab_outputs *s, const char *const path[LAB_NR_OUTS], char *err,
		     size_t len);
/* Does one of them go to standard output (then the tables go to stderr)? */
bool lab_outputs_on_stdout(const struct lab_outputs *s);
/* @tables (the stream the tables go to) and standard output took all they
 * were given (flushed now): 0, or -errno with @err the message (a reader
 * that went away is EPIPE: main() ignores SIGPIPE). */
int lab_tables_written(FILE *tables, char *err, size_t len);
/* The end of a run that went well: first @tables (the stream the tables
 * went to) and standard output must have taken everything, then each
 * output asked for is written with its writer (0 or -errno; NULL for an
 * output the subcommand has not), and the files we created are kept. On
 * any failure the outputs are abandoned (lab_outputs_abandon()).
 * Return: 0, or -errno with @err the message. */
typedef int (*lab_output_writer)(FILE *f, const void *arg);
int lab_outputs_finish(struct lab_outputs *s, FILE *tables,
		       const lab_output_writer writers[LAB_NR_OUTS], const void *arg, char *err,
		       size_t len);
/* The run failed: close every output, remove the files we created. */
void lab_outputs_abandon(struct lab_outputs *s);
/* Create @dir if missing and prove it writable; 0 or -errno. */
int lab_outdir_prepare(const char *dir, char *err, size_t len);

#endif /* SHRINKLAB_OUTPUTS_H */
