/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What both worlds' JSON writers share (schema shrinklab/2,
 * data/shrinklab.schema.json): the document's head and its two scalars, so
 * that shrinklab (tools/shrinklab/output/json.c) and the guest
 * (kernel/guest/kjson.c) write them alike. Header-only: the guest's
 * programs and shrinklab include it and build nothing more.
 */
#ifndef SHRINKLAB_JSONW_H
#define SHRINKLAB_JSONW_H

#include <math.h>
#include <stdio.h>
#include <time.h>

/* @s as a JSON string: quotes, backslash, \n, \t and other controls escaped. */
static inline void jsonw_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* @key as written (its punctuation too: ",\"note\":"), then @s as a string. */
static inline void jsonw_field(FILE *f, const char *key, const char *s)
{
	fputs(key, f);
	jsonw_string(f, s);
}

/* @v as a JSON number: whole numbers below 1e15 exactly, others to 9
 * digits, null for NaN and the infinities. */
static inline void jsonw_number(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.9g", v);
}

/*
 * The document's head, up to the machine's object: the schema, the tool
 * (@name, @version, @revision or null when empty), the date (@date, or now
 * in UTC when NULL) and the command line (@argc, @argv).
 */
static inline void jsonw_head(FILE *f, const char *name, const char *version,
			      const char *revision, const char *date, int argc, char **argv)
{
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fputs("{\"schema\":\"shrinklab/2\",\"tool\":{\"name\":", f);
	jsonw_string(f, name);
	fputs(",\"version\":", f);
	jsonw_string(f, version);
	fputs(",\"git_revision\":", f);
	if (revision[0])
		jsonw_string(f, revision);
	else
		fputs("null", f);
	fputs("},\"date\":", f);
	jsonw_string(f, date ? date : now);
	fputs(",\"command\":[", f);
	for (int i = 0; i < argc; i++) {
		if (i)
			fputc(',', f);
		jsonw_string(f, argv[i]);
	}
	fputs("],\"machine\":", f);
}

#endif /* SHRINKLAB_JSONW_H */
