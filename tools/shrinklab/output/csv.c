/* SPDX-License-Identifier: MIT */
/*
 * CSV (csv.h): RFC 4180, comma-separated, a field quoted when it holds a
 * comma, a quote or a line break (quotes doubled), lines ended by CRLF as
 * the RFC says, numbers in C locale with up to 9 significant digits, an
 * empty field for what does not apply. The columns, in order:
 *
 *   experiment, design, metric, unit (B, ns, count),
 *   timed         1 for clock samples, 0 for a reading,
 *   value, min, max, n (the median, the range and the count of samples;
 *                 empty for an unavailable design),
 *   resolution    timed: the clock's resolution per item in the row's unit,
 *   under_resolution 1 when the median is below it (not a measurement),
 *   best          1 for the best design of the metric, or one the noise
 *                 cannot tell from it (as the decision table marks it),
 *   vs_base       the decision table's words ("630x lower", "same within
 *                 noise"; empty for the base),
 *   ratio, ratio_lo, ratio_hi  over the base design: the ratio of the
 *                 medians and the range of the per-round ratios,
 *   mounts, cgroups, nodes, cpus, units, shrinker_nr_max  the row's geometry,
 *   note          the row's note,
 *   seed, seed_relation, seed_comparable  the seed's figure ("same": within
 *                 noise of the base), '=', '<' or '>', and 1 when measured
 *                 at our geometry,
 *   verdict       the seed claim's verdict on this row, if any,
 *   samples       every sample in round order, space-separated.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "csv.h"
#include "rows.h"
#include "table.h"
#include "verdict.h"

static void field(FILE *f, const char *s)
{
	if (strpbrk(s, ",\"\r\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(',', f);
}

static void number(FILE *f, bool have, double v)
{
	if (have && isfinite(v))
		fprintf(f, "%.9g", v);
	fputc(',', f);
}

static void count(FILE *f, long v)
{
	if (v >= 0)
		fprintf(f, "%ld", v);
	fputc(',', f);
}

static const struct lab_verdict *verdict_of(const struct lab_run *run, const struct lab_result *r)
{
	for (size_t i = 0; i < run->nr_verdicts; i++)
		if (!strcmp(run->verdicts[i].metric, r->metric) &&
		    !strcmp(run->verdicts[i].design, r->design))
			return &run->verdicts[i];
	return NULL;
}

static void row(FILE *f, const struct lab_run *run, const struct lab_result *r)
{
	const struct lab_verdict *v = verdict_of(run, r);
	const struct lab_seed_figure *s = r->seed;
	bool ok = !r->unavailable;
	struct lab_cell c;
	char rel[2] = { s ? s->relation : 0, 0 };

	lab_table_cell(run, r, &c);
	field(f, run->exp->id);
	field(f, r->design);
	field(f, r->metric);
	field(f, r->unit);
	fprintf(f, "%d,", r->timed ? 1 : 0);
	number(f, ok, r->value);
	number(f, ok, r->min);
	number(f, ok, r->max);
	count(f, ok ? (long)r->n : -1);
	number(f, ok && r->timed, r->resolution);
	fprintf(f, "%d,%d,", c.under_resolution ? 1 : 0, c.best ? 1 : 0);
	field(f, c.words);
	number(f, c.has_ratio, c.ratio.median);
	number(f, c.has_ratio, c.ratio.lo);
	number(f, c.has_ratio, c.ratio.hi);
	count(f, (long)r->scale.mounts);
	count(f, (long)r->scale.cgroups);
	count(f, r->scale.nodes);
	count(f, (long)r->scale.cpus);
	count(f, r->scale.units);
	count(f, r->scale.shrinker_nr_max);
	field(f, r->scale.note);
	if (s && s->same_as_base)
		field(f, "same");
	else
		number(f, s != NULL, s ? s->value : 0);
	field(f, s ? (s->same_as_base ? "same" : rel) : "");
	fprintf(f, "%s,", s ? (r->seed_comparable ? "1" : "0") : "");
	field(f, v ? lab_verdict_name(v->kind) : "");
	field(f, v ? lab_size_name(v->size) : "");
	for (size_t k = 0; ok && k < r->n; k++)
		fprintf(f, k ? " %.9g" : "%.9g", r->raw[k]);
	fputs("\r\n", f);
}

int lab_csv_write(FILE *f, const struct lab_run *runs, size_t n)
{
	fputs("experiment,design,metric,unit,timed,value,min,max,n,resolution,under_resolution,"
	      "best,vs_base,ratio,ratio_lo,ratio_hi,mounts,cgroups,nodes,cpus,units,"
	      "shrinker_nr_max,note,seed,seed_relation,seed_comparable,verdict,size_verdict,samples\r\n", f);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < runs[k].nr_rows; i++)
			row(f, &runs[k], &runs[k].rows[i]);
	errno = 0;
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
