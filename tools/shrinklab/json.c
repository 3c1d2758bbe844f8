/* SPDX-License-Identifier: MIT */
/*
 * shrinklab JSON output, schema "shrinklab/1", written by hand: strings are
 * escaped per RFC 8259 (quote, backslash, control characters as \u00XX),
 * numbers are finite (a non-finite value is written as null).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lab.h"

static void json_string(FILE *f, const char *s)
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

static void json_number(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

static void json_scale(FILE *f, const struct lab_scale *s)
{
	fputs("{\"mounts\":", f);
	json_number(f, (double)s->mounts);
	fputs(",\"cgroups\":", f);
	json_number(f, (double)s->cgroups);
	fprintf(f, ",\"nodes\":%d,\"cpus\":%u,\"kmem\":%s,\"note\":", s->nodes, s->cpus,
		s->kmem ? "true" : "false");
	json_string(f, s->note);
	fputc('}', f);
}

static void json_result(FILE *f, const struct lab_result *r)
{
	fputs("{\"design\":", f);
	json_string(f, r->design);
	fputs(",\"metric\":", f);
	json_string(f, r->metric);
	fputs(",\"value\":", f);
	if (r->unavailable)
		fputs("null", f);
	else
		json_number(f, r->value);
	fputs(",\"unit\":", f);
	json_string(f, r->unit);
	fputs(",\"unavailable\":", f);
	fputs(r->unavailable ? "true" : "false", f);
	fputs(",\"seed_value\":", f);
	if (r->has_seed)
		json_number(f, r->seed_value);
	else
		fputs("null", f);
	fputs(",\"scale\":", f);
	json_scale(f, &r->scale);
	fprintf(f, ",\"samples\":%lu,\"min\":", r->samples);
	if (r->unavailable)
		fputs("null", f);
	else
		json_number(f, r->min);
	fputs(",\"max\":", f);
	if (r->unavailable)
		fputs("null", f);
	else
		json_number(f, r->max);
	fputc('}', f);
}

int lab_json_write(const char *path, const struct lab_run *runs, size_t n,
		   const struct lab_options *opt)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs("{\"schema\":\"shrinklab/1\",\"scale\":", f);
	json_string(f, opt->scale_name);
	fputs(",\"factor\":", f);
	json_number(f, opt->factor);
	fprintf(f, ",\"samples\":%u,\"experiments\":[", opt->samples);
	for (size_t k = 0; k < n; k++) {
		fputs(k ? ",\n{\"id\":" : "\n{\"id\":", f);
		json_string(f, runs[k].exp->id);
		fputs(",\"scale\":", f);
		json_scale(f, &runs[k].scale);
		fputs(",\"results\":[", f);
		for (size_t i = 0; i < runs[k].nr_rows; i++) {
			fputs(i ? ",\n " : "\n ", f);
			json_result(f, &runs[k].rows[i]);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	if (ferror(f)) {
		fclose(f);
		return -EIO;
	}
	return fclose(f) ? -errno : 0;
}
