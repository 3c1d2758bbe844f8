/* SPDX-License-Identifier: MIT */
/*
 * shrinklab report: one table per experiment (ours next to the seed's, each
 * relative to the experiment's base design) and a closing section with one
 * verdict per seed claim: does our ratio go the same way as the seed's, and
 * is it within 2x of it.
 */
#include <string.h>

#include "lab.h"

/* Tolerance for "same within noise" and for "no change". */
#define SAME_LO 0.8
#define SAME_HI 1.25

static void fmt_value(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "B")) {
		if (v >= 1048576)
			snprintf(buf, len, "%.2f MiB", v / 1048576);
		else if (v >= 1024)
			snprintf(buf, len, "%.1f KiB", v / 1024);
		else
			snprintf(buf, len, "%.0f B", v);
	} else if (!strcmp(unit, "ns")) {
		if (v >= 1e9)
			snprintf(buf, len, "%.3f s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, len, "%.2f ms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, len, "%.2f us", v / 1e3);
		else
			snprintf(buf, len, "%.0f ns", v);
	} else {
		snprintf(buf, len, "%.0f", v);
	}
}

/* The base design's row of the same metric (first design of the list). */
static const struct lab_result *base_row(const struct lab_run *run, const char *metric)
{
	char label[LAB_LABEL_LEN];

	lab_design_label(&run->designs[0], label, sizeof(label));
	for (size_t i = 0; i < run->nr_rows; i++)
		if (!strcmp(run->rows[i].design, label) && !strcmp(run->rows[i].metric, metric))
			return &run->rows[i];
	return NULL;
}

static void fmt_ratio(char *buf, size_t len, bool ok, double num, double den)
{
	if (!ok || den == 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", num / den);
}

void lab_report_header(FILE *out, const struct lab_options *opt)
{
	fprintf(out, "shrinklab reproduce: scale %s (x%g of the seeds' mounts and cgroups), "
		     "%u samples after a warm-up, memory budget %.1f GiB\n",
		opt->scale_name, opt->factor, opt->samples,
		(double)opt->mem_budget / (1ull << 30));
}

void lab_report_run(FILE *out, const struct lab_run *run)
{
	const struct lab_scale *s = &run->scale;

	fprintf(out, "\n== %s: %s\n   scale: %lu mounts, %lu cgroups, %d node(s), %u geometry "
		     "CPUs, kmem %s\n",
		run->exp->id, run->exp->title, s->mounts, s->cgroups, s->nodes, s->cpus,
		s->kmem ? "on" : "off");
	fprintf(out, "   %-26s %-38s %12s %12s %9s %9s  %s\n", "design", "metric", "ours", "seed",
		"ours/base", "seed/base", "samples [min..max] / note");
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		const struct lab_result *b = base_row(run, r->metric);
		char ours[32], seed[32], rel[16], srel[16];

		if (r->unavailable) {
			fprintf(out, "   %-26s %-38s %12s %12s %9s %9s  %s\n", r->design, r->metric,
				"unavailable", "", "", "", r->scale.note);
			continue;
		}
		fmt_value(ours, sizeof(ours), r->value, r->unit);
		if (r->has_seed)
			fmt_value(seed, sizeof(seed), r->seed_value, r->unit);
		else
			snprintf(seed, sizeof(seed), "-");
		fmt_ratio(rel, sizeof(rel), b && !b->unavailable, r->value, b ? b->value : 0);
		fmt_ratio(srel, sizeof(srel), b && b->has_seed && r->has_seed, r->seed_value,
			  b ? b->seed_value : 0);
		fprintf(out, "   %-26s %-38s %12s %12s %9s %9s  ", r->design, r->metric, ours, seed,
			rel, srel);
		if (r->samples > 1) {
			char lo[32], hi[32];

			fmt_value(lo, sizeof(lo), r->min, r->unit);
			fmt_value(hi, sizeof(hi), r->max, r->unit);
			fprintf(out, "n=%lu [%s..%s]", r->samples, lo, hi);
		}
		if (r->scale.cgroups != s->cgroups)
			fprintf(out, " at %lu cgroups", r->scale.cgroups);
		if (r->scale.note[0])
			fprintf(out, " (%s)", r->scale.note);
		fputc('\n', out);
	}
	fprintf(out, "   (experiment took %.1f s)\n", (double)run->elapsed_ns / 1e9);
}

static int direction(double ratio)
{
	if (ratio < SAME_LO)
		return -1;
	return ratio > SAME_HI ? 1 : 0;
}

static const char *dir_word(int d)
{
	return d < 0 ? "lower" : d > 0 ? "higher" : "about the same";
}

static void claim(FILE *out, const struct lab_run *run, const struct lab_result *r,
		  const struct lab_result *b, const struct lab_seed_figure *fig)
{
	fprintf(out, "%s %s: %s/%s", run->exp->id, r->metric, r->design, b->design);
	if (r->unavailable || b->unavailable) {
		fprintf(out, ": not measured (%s unavailable in this build)\n",
			r->unavailable ? r->design : b->design);
		return;
	}
	if (b->value == 0) {
		fprintf(out, ": base measured 0, no ratio\n");
		return;
	}
	double ours = r->value / b->value;

	if (fig->same_as_base) {
		fprintf(out, " = %.3f (seed: same within noise): %s\n", ours,
			direction(ours) == 0 ? "agrees" : "disagrees: ours differs by more than 25%");
		return;
	}
	if (!b->has_seed || b->seed_value == 0) {
		fprintf(out, " = %.3f (seed has no base figure)\n", ours);
		return;
	}
	double seed = r->seed_value / b->seed_value;
	int dseed = direction(seed), dours = direction(ours);

	if (seed == 0 || ours == 0) {
		fprintf(out, " = %.3g (seed %.3g): %s\n", ours, seed,
			seed == ours ? "agrees (both zero)"
			: seed == 0 ? "DISAGREES: the seed has none, we have some"
				    : "DISAGREES in size: we measured none");
		return;
	}
	double size = ours / seed;

	fprintf(out, " = %.3g (seed %.3g): %s in direction (ours %s, seed %s); size %s\n", ours,
		seed, dseed == dours ? "agrees" : "DISAGREES", dir_word(dours), dir_word(dseed),
		size >= 0.5 && size <= 2 ? "within 2x"
		: size >= 0.1 && size <= 10 ? "within 10x, not 2x" : "off by more than 10x");
}

/* Absolute figures whose size itself is the claim (counts). */
static void claim_absolute(FILE *out, const struct lab_run *run, const struct lab_result *r)
{
	fprintf(out, "%s %s: %s = ", run->exp->id, r->metric, r->design);
	if (r->unavailable) {
		fprintf(out, "not measured (unavailable in this build)\n");
		return;
	}
	fprintf(out, "%.0f (seed %.0f): %s\n", r->value, r->seed_value,
		r->value == r->seed_value ? "agrees exactly" : "DISAGREES");
}

void lab_report_claims(FILE *out, const struct lab_run *runs, size_t n,
		       const struct lab_seeds *seeds)
{
	fprintf(out, "\n== seed claims\n");
	for (size_t k = 0; k < n; k++) {
		const struct lab_run *run = &runs[k];

		for (size_t i = 0; i < run->nr_rows; i++) {
			const struct lab_result *r = &run->rows[i];
			const struct lab_result *b = base_row(run, r->metric);
			const struct lab_seed_figure *fig =
				lab_seeds_find(seeds, run->exp->id, r->design, r->metric);

			if (!fig)
				continue;
			if (!strcmp(r->unit, "count"))
				claim_absolute(out, run, r);
			else if (b && b != r)
				claim(out, run, r, b, fig);
		}
	}
}
