/* SPDX-License-Identifier: MIT */
/*
 * shrinklab's command-line conventions (conventions.h): one error style,
 * the exit codes' text, and getopt_long() with repeated options caught and
 * --help and --version answered for every subcommand alike.
 */
#include <stdarg.h>
#include <string.h>

#include "conventions.h"
#include "units.h"
#include "version.h"

void shrinklab_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("shrinklab: ", stderr);
	if (sub)
		fprintf(stderr, "%s: ", sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void shrinklab_print_exit_codes(FILE *out)
{
	fprintf(out, "\nExit status: 0 success, 1 the run failed (measuring, writing an output\n"
		     "or standard output, gnuplot), 2 bad usage: options, values, scales,\n"
		     "--data, outputs that cannot be written (checked before anything is\n"
		     "measured).\n");
}

const char *shrinklab_shown(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);

	if (n <= SHRINKLAB_SHOWN)
		return s;
	snprintf(buf, len, "%.*s... (%zu characters)", SHRINKLAB_SHOWN - 3, s, n);
	return buf;
}

int shrinklab_bad_value(const char *sub, const char *opt, const char *value, const char *what)
{
	char shown[SHRINKLAB_SHOWN_LEN];

	shrinklab_error(sub, "%s '%s': %s", opt, shrinklab_shown(value ? value : "", shown,
								  sizeof(shown)), what);
	return -1;
}

int shrinklab_unexpected_argument(const char *sub, const char *arg)
{
	char shown[SHRINKLAB_SHOWN_LEN];

	shrinklab_error(sub, "unexpected argument '%s' (see 'shrinklab %s --help')",
			shrinklab_shown(arg, shown, sizeof(shown)), sub);
	return -1;
}

int shrinklab_bad_list(const char *sub, const char *opt, const char *value, const char *why,
		       const char *expected)
{
	char what[320];

	snprintf(what, sizeof(what), "%s; expected %s", why, expected);
	return shrinklab_bad_value(sub, opt, value, what);
}

int shrinklab_count_value(const char *sub, const char *opt, const char *value,
			  unsigned long min, unsigned long max, const char *hint, unsigned long *out)
{
	char what[96];

	if (!lab_parse_ulong(value, min, max, out))
		return 0;
	snprintf(what, sizeof(what), "expected a whole number %lu..%lu%s", min, max,
		 hint ? hint : "");
	return shrinklab_bad_value(sub, opt, value, what);
}

void shrinklab_getopt_init(struct shrinklab_getopt *g, const char *sub, const char *shortopts,
			   const struct option *longopts, const int *repeatable,
			   void (*usage)(FILE *out))
{
	memset(g, 0, sizeof(*g));
	g->sub = sub;
	g->usage = usage;
	g->shortopts = shortopts;
	g->longopts = longopts;
	g->repeatable = repeatable;
	optind = 0; /* glibc: start over, even after an earlier parse */
	opterr = 0; /* our own messages */
}

static const struct option *find_by_val(const struct shrinklab_getopt *g, int val, size_t *idx)
{
	for (size_t i = 0; g->longopts[i].name; i++) {
		if (g->longopts[i].val == val) {
			*idx = i;
			return &g->longopts[i];
		}
	}
	return NULL;
}

static bool repeatable(const struct shrinklab_getopt *g, int val)
{
	for (const int *r = g->repeatable; r && *r; r++)
		if (*r == val)
			return true;
	return false;
}

int shrinklab_getopt_next(struct shrinklab_getopt *g, int argc, char **argv)
{
	int prev = optind ? optind : 1;
	int c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
	const struct option *o;
	size_t idx = 0;

	char hint[64], shown[SHRINKLAB_SHOWN_LEN];

	if (c == -1)
		return SHRINKLAB_GETOPT_DONE;
	if (c == SHRINKLAB_OPT_HELP && g->usage) {
		g->usage(stdout);
		return SHRINKLAB_GETOPT_EXIT;
	}
	if (c == SHRINKLAB_OPT_VERSION) {
		shrinklab_print_version(stdout);
		return SHRINKLAB_GETOPT_EXIT;
	}
	snprintf(hint, sizeof(hint), "see 'shrinklab%s%s --help'", g->sub ? " " : "",
		 g->sub ? g->sub : "");
	if (c == ':') {
		o = find_by_val(g, optopt, &idx);
		shrinklab_error(g->sub, "--%s needs a value (%s)", o ? o->name : "?", hint);
		return SHRINKLAB_GETOPT_USAGE;
	}
	if (c == '?') {
		const char *what = optind > 0 && optind - 1 < argc ? argv[optind - 1] : "?";

		o = optopt ? find_by_val(g, optopt, &idx) : NULL;
		if (o && o->has_arg == no_argument)
			shrinklab_error(g->sub, "--%s takes no value", o->name);
		else if (optopt > 0 && optopt < 0x80 && (prev == optind || what[0] != '-' ||
							  what[1] != '-'))
			shrinklab_error(g->sub, "unknown option '-%c' (%s)", optopt, hint);
		else
			shrinklab_error(g->sub, "unknown or ambiguous option '%s' (%s)",
					shrinklab_shown(what, shown, sizeof(shown)), hint);
		return SHRINKLAB_GETOPT_USAGE;
	}
	o = find_by_val(g, c, &idx);
	if (o && idx < sizeof(g->seen) && g->seen[idx]++ && !repeatable(g, c)) {
		shrinklab_error(g->sub, "--%s given more than once", o->name);
		return SHRINKLAB_GETOPT_USAGE;
	}
	return c;
}

int shrinklab_getopt_status(int c)
{
	return c == SHRINKLAB_GETOPT_EXIT ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
}
