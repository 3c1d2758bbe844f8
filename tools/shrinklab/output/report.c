/* SPDX-License-Identifier: MIT */
/*
 * Reports (report.h): per experiment its geometry, its hosts and its
 * decision table (table.c), or every row on a line of its own (ours next to
 * the seed's, each relative to the experiment's base design, the seed's
 * figure only where we measured at the seed's geometry); a closing section
 * with one verdict per seed claim (verdict.c) and the count of metrics each
 * design is best at; the decision tables as Markdown; and plain tables of
 * rows without seeds.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "design_label.h"
#include "machine.h"
#include "memcg_body.h"
#include "report.h"
#include "rows.h"
#include "scale.h"
#include "seeds.h"
#include "table.h"
#include "units.h"
#include "verdict.h"
#include "version.h"

/* A factor range: "0.016x", or "0.5x..0.9x". */
static void fmt_factor_range(char *buf, size_t len, double lo, double hi)
{
	if (lo == hi)
		snprintf(buf, len, "%.2gx", lo);
	else
		snprintf(buf, len, "%.2gx..%.2gx", lo, hi);
}

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
	lab_report_machine(out, "machine", lab_machine_at_start(), "at the start");
}

void lab_report_machine(FILE *out, const char *lead, const struct lab_machine *m,
			const char *when)
{
	char words[512];

	lab_machine_words(words, sizeof(words), m);
	fprintf(out, "%s: %s %s\n", lead, words, when);
}

void lab_report_end(FILE *out, uint64_t elapsed_ns)
{
	struct lab_machine now;

	lab_machine_read(&now);
	fprintf(out, "\npeak RSS %.2f GiB, %.1f s in all; load average ",
		(double)lab_peak_rss() / (1ull << 30), (double)elapsed_ns / 1e9);
	if (now.have_load)
		fprintf(out, "%.2f %.2f %.2f at the end\n", now.load[0], now.load[1], now.load[2]);
	else
		fputs("unknown at the end\n", out);
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

static bool same_host(const struct lab_host_info *a, const struct lab_host_info *b)
{
	return a->available && b->available && a->geo.shrinker_nr_max == b->geo.shrinker_nr_max &&
	       a->geo.units == b->geo.units && a->geo.cgroups == b->geo.cgroups;
}

static void print_host(FILE *out, const char *who, const struct lab_host_info *h)
{
	if (!h->available) {
		fprintf(out, "   host %s unavailable: %s\n", who, h->why ? h->why : "");
		return;
	}
	fprintf(out, "   host %s: ", who);
	if (h->geo.shrinker_nr_max >= 0)
		fprintf(out, "shrinker_nr_max %ld, ", h->geo.shrinker_nr_max);
	else
		fputs("no shrinker_nr_max, ", out);
	fprintf(out, "ids span %ld units per node, %lu cgroups\n", h->geo.units, h->geo.cgroups);
}

/* What a cgroup of the model holds beside its shrinker bookkeeping. */
static void print_memcg_body(FILE *out, const struct lab_scale *s)
{
	char words[512];

	lab_memcg_body_words(words, sizeof(words), s->nodes, s->cpus);
	fprintf(out, "   the rest of a memcg: %s\n", words);
}

/* The hosts, in one line when every design's looks the same. */
static void print_hosts(FILE *out, const struct lab_run *run)
{
	const struct lab_host_info *first = NULL;
	bool same = true;

	for (size_t i = 0; i < run->nr_designs; i++) {
		const struct lab_host_info *h = &run->hosts[i];

		if (!h->label[0])
			continue;
		if (!first)
			first = h;
		else if (!same_host(first, h))
			same = false;
	}
	if (!first)
		return;
	if (same && first->available) {
		print_host(out, "of every design", first);
		return;
	}
	for (size_t i = 0; i < run->nr_designs; i++)
		if (run->hosts[i].label[0])
			print_host(out, run->hosts[i].label, &run->hosts[i]);
}

void lab_report_run(FILE *out, const struct lab_run *run, enum lab_table_format fmt)
{
	const struct lab_scale *s = &run->scale;

	char thread[512];

	if (run->exp->thread && lab_thread_describe(run->exp->thread, thread, sizeof(thread)))
		fprintf(out, "\n== %s: %s\n   the seed: %s\n", run->exp->id, thread,
			run->exp->title);
	else
		fprintf(out, "\n== %s (the seed: %s)\n", run->exp->id, run->exp->title);
	print_geometry(out, "   ours: ", s);
	fprintf(out, ": %s\n", run->scale_desc);
	print_hosts(out, run);
	print_memcg_body(out, s);
	fputc('\n', out);
	lab_table_print(out, run, fmt);
	fprintf(out, "   (experiment took %.1f s)\n", (double)run->elapsed_ns / 1e9);
}

void lab_report_run_rows(FILE *out, const struct lab_run *run)
{
	const struct lab_scale *s = &run->scale;

	fprintf(out, "\n== %s, every row\n", run->exp->id);
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
		if (lab_result_under_resolution(r))
			snprintf(ours, sizeof(ours), "< res.");
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
}

/* "1.7x lower", or "same" for a ratio of exactly 1. */
static void words_of(char *buf, size_t len, double ratio)
{
	if (ratio == 1)
		snprintf(buf, len, "the same");
	else if (ratio > 0 && isfinite(ratio))
		lab_table_ratio_words(buf, len, ratio);
	else
		snprintf(buf, len, "%.3g", ratio);
}

/* A seed claim as the columns of the claims table. */
enum { CLAIM_WHAT, CLAIM_OURS, CLAIM_SEED, CLAIM_DIRECTION, CLAIM_SIZE, CLAIM_WHY, CLAIM_COLS };
#define CLAIM_CELL 520

static void claim_cells(const struct lab_verdict *v, char cell[CLAIM_COLS][CLAIM_CELL])
{
	char w[40], lo[40], hi[40];

	snprintf(cell[CLAIM_WHAT], CLAIM_CELL, "%s: %s%s%s", v->metric, v->design,
		 v->base[0] ? " vs " : "", v->base);
	cell[CLAIM_OURS][0] = cell[CLAIM_SEED][0] = '\0';
	if (v->has_ours && !strcmp(v->claim, "count")) {
		snprintf(cell[CLAIM_OURS], CLAIM_CELL, "%.0f", v->ours);
	} else if (v->has_ours) {
		words_of(w, sizeof(w), v->ours);
		if (v->rounds > 1 && v->lo != v->hi) {
			words_of(lo, sizeof(lo), v->lo);
			words_of(hi, sizeof(hi), v->hi);
			snprintf(cell[CLAIM_OURS], CLAIM_CELL, "%s (%zu rounds: %s to %s)", w,
				 v->rounds, lo, hi);
		} else {
			snprintf(cell[CLAIM_OURS], CLAIM_CELL, "%s", w);
		}
	}
	if (!strcmp(v->claim, "same")) {
		snprintf(cell[CLAIM_SEED], CLAIM_CELL, "same within noise");
	} else if (v->has_seed && !strcmp(v->claim, "count")) {
		snprintf(cell[CLAIM_SEED], CLAIM_CELL, "%.0f", v->seed);
	} else if (v->has_seed) {
		words_of(w, sizeof(w), v->seed);
		snprintf(cell[CLAIM_SEED], CLAIM_CELL, "%s%s", v->relation == '<' ? "at most "
			 : v->relation == '>' ? "at least " : "", w);
	}
	snprintf(cell[CLAIM_DIRECTION], CLAIM_CELL, "%s", lab_verdict_name(v->kind));
	if (v->size == LAB_SIZE_NOT_JUDGED) {
		snprintf(cell[CLAIM_SIZE], CLAIM_CELL, "%s", lab_size_name(v->size));
	} else {
		fmt_factor_range(lo, sizeof(lo), v->size_lo, v->size_hi);
		snprintf(cell[CLAIM_SIZE], CLAIM_CELL, "%s (ours %s the seed's)",
			 lab_size_name(v->size), lo);
	}
	snprintf(cell[CLAIM_WHY], CLAIM_CELL, "%s", v->text);
}

void lab_report_claims(FILE *out, const struct lab_run *run)
{
	static const char *const head[CLAIM_COLS] = {
		"claim", "ours: ratio of medians (per-round range)", "seed", "direction",
		"size (within 2x)", "why",
	};
	char cell[CLAIM_COLS][CLAIM_CELL];
	size_t width[CLAIM_COLS];

	if (!run->nr_verdicts)
		return; /* not at a seed's geometry, or no claim of the seed's */
	for (size_t c = 0; c < CLAIM_COLS; c++)
		width[c] = strlen(head[c]);
	for (size_t i = 0; i < run->nr_verdicts; i++) {
		claim_cells(&run->verdicts[i], cell);
		for (size_t c = 0; c < CLAIM_COLS; c++)
			width[c] = strlen(cell[c]) > width[c] ? strlen(cell[c]) : width[c];
	}
	fprintf(out, "   seed claims, two verdicts each: the direction (our whole range in the "
		     "seed's class: below %.2g lower, above %.3g higher) and the size (our whole "
		     "range within %.0fx of the seed's ratio):\n", LAB_SAME_LO, LAB_SAME_HI,
		LAB_SIZE_FACTOR);
	for (size_t i = 0; i <= run->nr_verdicts; i++) {
		if (i)
			claim_cells(&run->verdicts[i - 1], cell);
		fputs("  ", out);
		for (size_t c = 0; c + 1 < CLAIM_COLS; c++)
			fprintf(out, " %-*s ", (int)width[c], i ? cell[c] : head[c]);
		fprintf(out, " %s\n", i ? cell[CLAIM_WHY] : head[CLAIM_WHY]);
	}
}

void lab_report_decisions(FILE *out, const struct lab_run *runs, size_t n)
{
	size_t count[LAB_V_NOT_MEASURED + 1] = { 0 }, size[LAB_SIZE_INCONCLUSIVE + 1] = { 0 };
	size_t total = 0;

	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < runs[k].nr_verdicts; i++) {
			count[runs[k].verdicts[i].kind]++;
			size[runs[k].verdicts[i].size]++;
		}
		total += runs[k].nr_verdicts;
	}
	if (total) {
		fprintf(out, "\nthe seeds' claims, in direction: %zu agree, %zu disagree, %zu "
			     "inconclusive, %zu not compared (not at the seed's geometry), %zu not "
			     "measured\n", count[LAB_V_AGREES], count[LAB_V_DISAGREES],
			count[LAB_V_INCONCLUSIVE], count[LAB_V_NOT_COMPARED],
			count[LAB_V_NOT_MEASURED]);
		fprintf(out, "the seeds' claims, in size (within %.0fx): %zu agree, %zu disagree, "
			     "%zu inconclusive, %zu not judged (bounds, claims not compared or not "
			     "measured)\n", LAB_SIZE_FACTOR, size[LAB_SIZE_AGREES],
			size[LAB_SIZE_DISAGREES], size[LAB_SIZE_INCONCLUSIVE],
			size[LAB_SIZE_NOT_JUDGED]);
	}
	fprintf(out, "\n== which design: per experiment, the metrics where each design is best "
		     "(or with a median within 1.25x of the best)\n");
	for (size_t k = 0; k < n; k++) {
		const struct lab_run *run = &runs[k];
		size_t best[LAB_MAX_DESIGNS] = { 0 }, metrics = 0;
		char label[LAB_LABEL_LEN];

		for (size_t m = 0; m < run->exp->nr_metrics; m++) {
			bool any = false;

			for (size_t i = 0; i < run->nr_rows; i++) {
				const struct lab_result *r = &run->rows[i];
				struct lab_cell c;

				if (strcmp(r->metric, run->exp->metrics[m].name))
					continue;
				any = true;
				lab_table_cell(run, r, &c);
				for (size_t d = 0; d < run->nr_designs && c.best; d++) {
					lab_design_label(&run->designs[d], label, sizeof(label));
					if (!strcmp(label, r->design))
						best[d]++;
				}
			}
			metrics += any;
		}
		fprintf(out, "%s (%zu metrics):", run->exp->id, metrics);
		for (size_t d = 0; d < run->nr_designs; d++) {
			lab_design_label(&run->designs[d], label, sizeof(label));
			fprintf(out, "%s %s %zu", d ? "," : "", label, best[d]);
		}
		fputc('\n', out);
	}
}

int lab_report_markdown(FILE *f, const struct lab_run *runs, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct lab_run *run = &runs[k];
		const struct lab_scale *s = &run->scale;

		fprintf(f, "%s**%s** (the seed: %s): ours at %lu mounts + %u host shrinkers, %lu "
			   "cgroups, %d node(s), %u geometry CPUs, kmem %s (%s); ", k ? "\n" : "",
			run->exp->id, run->exp->title, s->mounts, s->host_shrinkers, s->cgroups,
			s->nodes, s->cpus, s->kmem ? "on" : "off", run->scale_desc);
		shrinklab_print_version(f);
		fputc('\n', f);
		{
			char words[512];

			lab_memcg_body_words(words, sizeof(words), s->nodes, s->cpus);
			fprintf(f, "Each cgroup of the model: its shrinker bookkeeping and the rest of "
				   "a memcg, %s.\n", words);
			lab_machine_words(words, sizeof(words), lab_machine_at_start());
			fprintf(f, "Machine: %s at the start.\n\n", words);
		}
		lab_table_print(f, run, LAB_TABLE_MARKDOWN);
	}
	errno = 0;
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
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
