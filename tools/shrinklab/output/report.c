/* SPDX-License-Identifier: MIT */
/*
 * Reports (report.h): one table per experiment (ours next to the seed's,
 * each relative to the experiment's base design, the seed's figure only
 * where we measured at the seed's geometry), the hosts' geometry, a closing
 * section with one verdict per seed claim (verdict.c), and plain tables of
 * rows without seeds (shrinklab kernel).
 */
#include <string.h>

#include "report.h"
#include "rows.h"
#include "scale.h"
#include "units.h"
#include "verdict.h"
#include "version.h"

static void fmt_ratio(char *buf, size_t len, bool ok, double num, double den)
{
	if (!ok || den == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", num / den);
}

static void scale_words(char *buf, size_t len, const struct lab_options *opt)
{
	switch (opt->scale_kind) {
	case LAB_SCALE_DEFAULT:
		snprintf(buf, len, "default (each experiment at the seed's geometry where that "
			 "fits minutes and the memory; each table says)");
		break;
	case LAB_SCALE_SEED:
		snprintf(buf, len, "seed (the seeds' mounts and cgroups)");
		break;
	case LAB_SCALE_QUICK:
		snprintf(buf, len, "quick (x%g of the seeds' mounts and cgroups)", opt->factor);
		break;
	default:
		snprintf(buf, len, "x%g of the seeds' mounts and cgroups", opt->factor);
		break;
	}
}

void lab_report_header(FILE *out, const char *subcommand, const struct lab_options *opt,
		       const char *design_label)
{
	char scale[160];

	scale_words(scale, sizeof(scale), opt);
	fprintf(out, "shrinklab %s", subcommand);
	if (design_label)
		fprintf(out, ": design %s", design_label);
	if (lab_options_custom(opt)) {
		fputs(", custom scale:", out);
		if (opt->mounts)
			fprintf(out, " --mounts %lu", opt->mounts);
		if (opt->cgroups)
			fprintf(out, " --cgroups %lu", opt->cgroups);
		if (opt->nodes)
			fprintf(out, " --nodes %d", opt->nodes);
		if (opt->cpus)
			fprintf(out, " --cpus %u", opt->cpus);
		if (opt->kmem == 0)
			fputs(" --nokmem", out);
		fprintf(out, " (the rest as at scale %s)", scale);
	} else {
		fprintf(out, ", scale %s", scale);
	}
	fprintf(out, "\n%u samples after a warm-up; memory budget %.1f GiB (%s); ", opt->samples,
		(double)opt->mem_budget / (1ull << 30),
		opt->mem_budget_given ? "--mem-budget" : opt->budget_note);
	shrinklab_print_version(out);
}

static void fmt_seed(char *buf, size_t len, const struct lab_result *r)
{
	char v[32];

	if (!r->seed) {
		snprintf(buf, len, "-");
		return;
	}
	if (!r->seed_comparable) {
		snprintf(buf, len, "other geo");
		return;
	}
	if (r->seed->same_as_base) {
		snprintf(buf, len, "same");
		return;
	}
	v[0] = r->seed->relation == '=' ? '\0' : r->seed->relation;
	lab_fmt_value(v + (v[0] != '\0'), sizeof(v) - 1, r->seed->value, r->unit);
	snprintf(buf, len, "%s", v);
}

static void fmt_seed_ratio(char *buf, size_t len, const struct lab_result *r,
			   const struct lab_result *b)
{
	const struct lab_seed_figure *f = r->seed, *bf = b ? b->seed : NULL;

	if (!f || !bf || !r->seed_comparable || !b->seed_comparable || f->same_as_base ||
	    bf->same_as_base || bf->value == 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (f->relation == '=' && bf->relation == '=')
		snprintf(buf, len, "%.3g", f->value / bf->value);
	else if (f->relation != '>' && bf->relation != '<')
		snprintf(buf, len, "<%.3g", f->value / bf->value);
	else if (f->relation != '<' && bf->relation != '>')
		snprintf(buf, len, ">%.3g", f->value / bf->value);
	else
		snprintf(buf, len, "-");
}

static void print_geometry(FILE *out, const char *lead, const struct lab_scale *s)
{
	fprintf(out, "%s%lu mounts + %u host shrinkers, %lu cgroups, %d node(s), %u geometry "
		     "CPUs, kmem %s", lead, s->mounts, s->host_shrinkers, s->cgroups, s->nodes,
		s->cpus, s->kmem ? "on" : "off");
}

void lab_report_run(FILE *out, const struct lab_run *run)
{
	const struct lab_scale *s = &run->scale;

	fprintf(out, "\n== %s (the seed: %s)\n", run->exp->id, run->exp->title);
	print_geometry(out, "   ours: ", s);
	fprintf(out, ": %s\n", run->scale_desc);
	for (size_t i = 0; i < run->nr_designs; i++) {
		const struct lab_host_info *h = &run->hosts[i];

		if (!h->label[0])
			continue;
		if (!h->available) {
			fprintf(out, "   host %-26s unavailable: %s\n", h->label, h->why ? h->why : "");
			continue;
		}
		fprintf(out, "   host %-26s ", h->label);
		if (h->geo.shrinker_nr_max >= 0)
			fprintf(out, "shrinker_nr_max %ld, ", h->geo.shrinker_nr_max);
		else
			fputs("no shrinker_nr_max, ", out);
		fprintf(out, "ids span %ld units per node, %lu cgroups\n", h->geo.units,
			h->geo.cgroups);
	}
	fprintf(out, "   %-26s %-48s %12s %12s %9s %9s  %s\n", "design", "metric", "ours", "seed",
		"ours/base", "seed/base", "samples [min..max] / note");
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		const struct lab_result *b = lab_run_base_row(run, r->metric);
		char ours[32], seed[32], rel[16], srel[16];

		if (r->unavailable) {
			fprintf(out, "   %-26s %-48s %12s %12s %9s %9s  %s\n", r->design, r->metric,
				"unavailable", "", "", "", r->scale.note);
			continue;
		}
		lab_fmt_value(ours, sizeof(ours), r->value, r->unit);
		fmt_seed(seed, sizeof(seed), r);
		fmt_ratio(rel, sizeof(rel), b && !b->unavailable, r->value, b ? b->value : 0);
		fmt_seed_ratio(srel, sizeof(srel), r, b);
		fprintf(out, "   %-26s %-48s %12s %12s %9s %9s  ", r->design, r->metric, ours, seed,
			rel, srel);
		if (r->n > 1) {
			char lo[32], hi[32];

			lab_fmt_value(lo, sizeof(lo), r->min, r->unit);
			lab_fmt_value(hi, sizeof(hi), r->max, r->unit);
			fprintf(out, "n=%zu [%s..%s]", r->n, lo, hi);
		}
		if (r->scale.cgroups != s->cgroups)
			fprintf(out, " at %lu cgroups", r->scale.cgroups);
		if (r->scale.mounts != s->mounts)
			fprintf(out, " at %lu mounts", r->scale.mounts);
		if (r->scale.note[0])
			fprintf(out, " (%s)", r->scale.note);
		fputc('\n', out);
	}
	fprintf(out, "   (experiment took %.1f s)\n", (double)run->elapsed_ns / 1e9);
}

static void report_verdict(FILE *out, const struct lab_run *run, const struct lab_verdict *v)
{
	fprintf(out, "%s %s: %s", run->exp->id, v->metric, v->design);
	if (v->base[0])
		fprintf(out, "/%s", v->base);
	if (v->has_ours && !strcmp(v->claim, "count"))
		fprintf(out, " = %.0f (seed %.0f)", v->ours, v->seed);
	else if (v->has_ours) {
		fprintf(out, " = %.3g", v->ours);
		if (v->rounds > 1)
			fprintf(out, " [%.3g..%.3g, %zu rounds]", v->lo, v->hi, v->rounds);
		if (!strcmp(v->claim, "same"))
			fputs(" (seed: same within noise)", out);
		else if (v->relation == '=')
			fprintf(out, " (seed %.3g)", v->seed);
		else
			fprintf(out, " (seed %c%.3g)", v->relation, v->seed);
	}
	fprintf(out, ": %s: %s\n", lab_verdict_name(v->kind), v->text);
}

void lab_report_claims(FILE *out, const struct lab_run *runs, size_t n)
{
	size_t count[LAB_V_NOT_MEASURED + 1] = { 0 };

	fprintf(out, "\n== seed claims (our ratio of medians [range of the per-round ratios]; "
		     "a verdict only at the seed's geometry)\n");
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < runs[k].nr_verdicts; i++) {
			report_verdict(out, &runs[k], &runs[k].verdicts[i]);
			count[runs[k].verdicts[i].kind]++;
		}
	}
	fprintf(out, "(%zu agree, %zu disagree, %zu inconclusive, %zu not compared, %zu not "
		     "measured)\n", count[LAB_V_AGREES], count[LAB_V_DISAGREES],
		count[LAB_V_INCONCLUSIVE], count[LAB_V_NOT_COMPARED], count[LAB_V_NOT_MEASURED]);
}

void lab_report_rows(FILE *out, const struct lab_run *run, const char *side)
{
	fprintf(out, "\n== %s (%s, %.1f s)\n", run->exp->id, side, (double)run->elapsed_ns / 1e9);
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		char v[32], lo[32], hi[32];

		if (r->unavailable) {
			fprintf(out, "   %-36s %-50s unavailable: %s\n", r->design, r->metric,
				r->scale.note);
			continue;
		}
		lab_fmt_value(v, sizeof(v), r->value, r->unit);
		fprintf(out, "   %-36s %-50s %12s", r->design, r->metric, v);
		if (r->n > 1) {
			lab_fmt_value(lo, sizeof(lo), r->min, r->unit);
			lab_fmt_value(hi, sizeof(hi), r->max, r->unit);
			fprintf(out, "  n=%zu [%s..%s]", r->n, lo, hi);
		}
		fprintf(out, "  at %lu mounts, %lu cgroups, %ld units\n", r->scale.mounts,
			r->scale.cgroups, r->scale.units);
	}
}
