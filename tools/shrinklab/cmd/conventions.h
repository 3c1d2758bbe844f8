/* SPDX-License-Identifier: MIT */
/*
 * The command-line conventions of shrinklab. Each subcommand lives in its
 * own file (commands.h) and has the signature of main(); it parses its
 * options with shrinklab_getopt_next(), which answers --help (with the
 * subcommand's usage) and --version, and returns the exit code.
 *
 * Conventions every subcommand follows (documented in shrinklab(1)):
 *  - "--opt value" and "--opt=value"; unique prefixes of long options;
 *  - an option given twice is an error unless its help says it repeats;
 *  - errors are one line on stderr: "shrinklab: <subcommand>: <what>";
 *  - exit codes: 0 success, 1 the run failed (measuring, writing, gnuplot),
 *    2 bad usage (options, values, impossible scales, outputs that cannot
 *    be written), always decided before anything is measured.
 */
#ifndef SHRINKLAB_CONVENTIONS_H
#define SHRINKLAB_CONVENTIONS_H

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

/* "shrinklab: <sub>: <message>\n" on stderr; @sub NULL for the top level. */
void shrinklab_error(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The lines on exit codes every --help ends with. */
void shrinklab_print_exit_codes(FILE *out);

/*
 * getopt_long() with the conventions above. Initialise with
 * shrinklab_getopt_init(), then call shrinklab_getopt_next() until it
 * returns a negative value: SHRINKLAB_GETOPT_DONE (positional arguments
 * start at optind), SHRINKLAB_GETOPT_USAGE (a usage error was printed) or
 * SHRINKLAB_GETOPT_EXIT (--help printed @usage, or --version the version);
 * shrinklab_getopt_status() turns the last two into the exit code.
 * @repeatable lists option values (0-terminated) that may be given more
 * than once; @usage NULL leaves SHRINKLAB_OPT_HELP to the caller.
 */
#define SHRINKLAB_GETOPT_DONE (-1)
#define SHRINKLAB_GETOPT_USAGE (-2)
#define SHRINKLAB_GETOPT_EXIT (-3)
struct shrinklab_getopt {
	const char *sub;
	const char *shortopts;
	const struct option *longopts;
	const int *repeatable;
	void (*usage)(FILE *out);
	unsigned char seen[64];
};
void shrinklab_getopt_init(struct shrinklab_getopt *g, const char *sub, const char *shortopts,
			   const struct option *longopts, const int *repeatable,
			   void (*usage)(FILE *out));
int shrinklab_getopt_next(struct shrinklab_getopt *g, int argc, char **argv);
/* The exit code for SHRINKLAB_GETOPT_EXIT (0) or _USAGE (2). */
int shrinklab_getopt_status(int c);

/* A value from the command line as an error line shows it: whole up to
 * SHRINKLAB_SHOWN characters, else its start, "..." and its length (a
 * 5,000-digit number is not echoed back). Return: @s or @buf. */
#define SHRINKLAB_SHOWN 64
#define SHRINKLAB_SHOWN_LEN (SHRINKLAB_SHOWN + 40)
const char *shrinklab_shown(const char *s, char *buf, size_t len);

/* A bad option value: "shrinklab: <sub>: --opt 'value': <what>" (the
 * value as shrinklab_shown() cuts it). */
int shrinklab_bad_value(const char *sub, const char *opt, const char *value, const char *what);
/* An argument where the subcommand takes none: its line. Return: -1. */
int shrinklab_unexpected_argument(const char *sub, const char *arg);
/* A bad list value (lab_list_split()'s rule or an unknown item): the bad
 * value's line with @why, then "expected @expected". Return: -1. */
int shrinklab_bad_list(const char *sub, const char *opt, const char *value, const char *why,
		       const char *expected);
/* A whole number in [@min, @max] into @out: 0, or -1 after the bad value's
 * line ("expected a whole number MIN..MAX" and @hint, which may be NULL). */
int shrinklab_count_value(const char *sub, const char *opt, const char *value,
			  unsigned long min, unsigned long max, const char *hint, unsigned long *out);

#endif /* SHRINKLAB_CONVENTIONS_H */
