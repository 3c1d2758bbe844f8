// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output of the guest lab (see kjson.h). Strings are escaped per RFC
 * 8259; a non-finite number is written as null. This file is the only place
 * that knows the schema: a schema change is a change here.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjson.h"

#define KJSON_SCHEMA "shrinklab/1"

static struct krow *rows;
static size_t nr_rows, cap_rows;

void kjson_row(const struct krow *r)
{
	if (nr_rows == cap_rows) {
		cap_rows = cap_rows ? 2 * cap_rows : 64;
		rows = realloc(rows, cap_rows * sizeof(*rows));
		if (!rows) {
			perror("kjson");
			exit(1);
		}
	}
	rows[nr_rows++] = *r;
}

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

static void scale(FILE *f, const struct kscale *s)
{
	fprintf(f, "{\"mounts\":%lu,\"cgroups\":%lu,\"nodes\":%d,\"cpus\":%u,\"kmem\":true,\"note\":",
		s->mounts, s->cgroups, s->nodes, s->cpus);
	str(f, s->note);
	fputc('}', f);
}

static void row(FILE *f, const struct krow *r, const char *design)
{
	fputs("{\"design\":", f);
	str(f, design);
	fputs(",\"metric\":", f);
	str(f, r->metric);
	fputs(",\"value\":", f);
	num(f, r->value);
	fputs(",\"unit\":", f);
	str(f, r->unit);
	fputs(",\"unavailable\":false,\"seed_value\":null,\"scale\":", f);
	scale(f, &r->scale);
	fprintf(f, ",\"samples\":%lu,\"min\":", r->samples);
	num(f, r->min);
	fputs(",\"max\":", f);
	num(f, r->max);
	fputc('}', f);
}

void kjson_write(FILE *f, const struct kguest *g)
{
	fputs("{\"schema\":\"" KJSON_SCHEMA "\",\"scale\":\"kernel\",\"factor\":1,", f);
	fputs("\"guest\":{\"design\":", f);
	str(f, g->design);
	fputs(",\"release\":", f);
	str(f, g->release);
	fputs(",\"accel\":", f);
	str(f, g->accel);
	fprintf(f, ",\"cpus\":%u,\"nodes\":%d,\"mem_kb\":%lu},", g->cpus, g->nodes, g->mem_kb);
	fputs("\"samples\":0,\"experiments\":[", f);
	/* One experiment per id, in the order of their first rows. */
	for (size_t i = 0, nexp = 0; i < nr_rows; i++) {
		size_t first = 0, last = i, n = 0;

		while (strcmp(rows[first].exp, rows[i].exp))
			first++;
		if (first != i)
			continue;
		for (size_t k = i; k < nr_rows; k++)
			if (!strcmp(rows[k].exp, rows[i].exp))
				last = k;
		fputs(nexp++ ? ",\n{\"id\":" : "\n{\"id\":", f);
		str(f, rows[i].exp);
		fputs(",\"scale\":", f);
		scale(f, &rows[last].scale);
		fputs(",\"results\":[", f);
		for (size_t k = i; k < nr_rows; k++) {
			if (strcmp(rows[k].exp, rows[i].exp))
				continue;
			fputs(n++ ? ",\n " : "\n ", f);
			row(f, &rows[k], g->design);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	fflush(f);
}
