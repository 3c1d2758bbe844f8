/* SPDX-License-Identifier: MIT */
/*
 * shrinklab: the lab CLI. Each subcommand lives in its own file and has the
 * signature of main(); it parses its options with getopt_long(), prints its
 * own --help and returns the exit code.
 *
 * Conventions every subcommand follows (documented in shrinklab(1)):
 *  - "--opt value" and "--opt=value"; unique prefixes of long options;
 *  - an option given twice is an error unless its help says it repeats;
 *  - errors are one line on stderr: "shrinklab: <subcommand>: <what>";
 *  - exit codes: 0 success, 1 the run failed (measuring, writing, gnuplot),
 *    2 bad usage (options, values, impossible scales, outputs that cannot
 *    be written), always decided before anything is measured.
 */
#ifndef SHRINKLAB_H
#define SHRINKLAB_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#define SHRINKLAB_EXIT_OK 0
#define SHRINKLAB_EXIT_FAILED 1
#define SHRINKLAB_EXIT_USAGE 2

/* Long-option values shared by every subcommand. */
enum {
	SHRINKLAB_OPT_HELP = 'h',
	SHRINKLAB_OPT_VERSION = 0x100,
	SHRINKLAB_OPT_FIRST_OWN, /* subcommands number their options from here */
};

int shrinklab_slabinfo(int argc, char **argv);
int shrinklab_reproduce(int argc, char **argv);
int shrinklab_run(int argc, char **argv);
int shrinklab_sweep(int argc, char **argv);
int shrinklab_kernel(int argc, char **argv);

/* "shrinklab: <sub>: <message>\n" on stderr; @sub NULL for the top level. */
void shrinklab_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "0.1.0" (meson's project version) and the git revision the tool was built
 * from ("7a8cefc1a2b3-dirty"), or "" when it was not built from git. */
const char *shrinklab_version(void);
const char *shrinklab_git_revision(void);
/* "shrinklab 0.1.0 (git 7a8cefc1a2b3)\n". */
void shrinklab_print_version(FILE *out);
/* The whole command line, as main() got it (for the JSON). */
void shrinklab_set_command(int argc, char **argv);
int shrinklab_command(char ***argv);

/* The lines on exit codes every --help ends with. */
void shrinklab_print_exit_codes(FILE *out);

/*
 * getopt_long() with the conventions above. Initialise with
 * shrinklab_getopt_init(), then call shrinklab_getopt_next() until it
 * returns -1 (done: positional arguments start at optind) or -2 (a usage
 * error was printed). @repeatable lists option values (0-terminated) that
 * may be given more than once.
 */
struct shrinklab_getopt {
	const char *sub;
	const char *shortopts;
	const struct option *longopts;
	const int *repeatable;
	unsigned char seen[64];
};
void shrinklab_getopt_init(struct shrinklab_getopt *g, const char *sub, const char *shortopts,
			   const struct option *longopts, const int *repeatable);
int shrinklab_getopt_next(struct shrinklab_getopt *g, int argc, char **argv);

/* A bad option value: "shrinklab: <sub>: --opt 'value': <what>". */
int shrinklab_bad_value(const char *sub, const char *opt, const char *value, const char *what);

#endif /* SHRINKLAB_H */
