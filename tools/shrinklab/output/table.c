/* SPDX-License-Identifier: MIT */
/*
 * Decision tables (table.h). One experiment, a row per metric and a column
 * per design, the experiment's first design (the seed's base) first. A cell
 * holds our median and, under it, the ratio to the base in words, judged
 * on the spread as the verdicts judge it (verdict.h): the range of the
 * per-round ratios below 0.8 is "N x lower", above 1.25 "N x higher",
 * inside 0.8..1.25 "same within noise", across a boundary "noisy" with the
 * range; a reading (memory, a count) has no noise and says its exact
 * ratio. The best design of each metric is marked '*' (the lowest median,
 * or the highest for a metric where more is better), and so is every
 * design whose median the noise band cannot tell from it (at most 1.25x
 * the best's; the per-round ranges give the confidence, not the mark:
 * is_best()). A median below its clock's resolution
 * (rows.h, lab_result_under_resolution()) is shown as "< bound", with no
 * ratio: it is not a measurement. The rows' notes are said once, under the
 * table, numbered: a note every design of a metric shares marks the
 * metric, one of a single design marks its cell.
 */
#include <math.h>
#include <string.h>

#include "design_label.h"
#include "experiments.h"
#include "rows.h"
#include "stats.h"
#include "table.h"
#include "units.h"

#define MAX_NOTES 64
#define MAX_PIECES 4
#define PIECE_LEN 40
#define MARKS_LEN 24

struct notes {
	char text[MAX_NOTES][LAB_NOTE_LEN + 200];
	size_t n;
};

/* The number (from 1) of note @text, added when new; 0 when full. */
static size_t note_id(struct notes *ns, const char *text)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->text[i], text))
			return i + 1;
	if (ns->n == MAX_NOTES)
		return 0;
	snprintf(ns->text[ns->n], sizeof(ns->text[0]), "%s", text);
	return ++ns->n;
}

static void add_mark(char *marks, size_t len, size_t id)
{
	size_t used = strlen(marks);

	if (id)
		snprintf(marks + used, len - used, "[%zu]", id);
}

static const struct lab_result *row_of(const struct lab_run *run, const char *design,
				       const char *metric)
{
	for (size_t i = 0; i < run->nr_rows; i++)
		if (!strcmp(run->rows[i].design, design) && !strcmp(run->rows[i].metric, metric))
			return &run->rows[i];
	return NULL;
}

static bool higher_better(const struct lab_run *run, const char *metric)
{
	(void)run;
	return lab_metric_higher_better(metric);
}

/* The row with the best median of @metric, or NULL (none measured). */
static const struct lab_result *best_row(const struct lab_run *run, const char *metric)
{
	bool high = higher_better(run, metric);
	const struct lab_result *best = NULL;

	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];

		if (strcmp(r->metric, metric) || r->unavailable)
			continue;
		if (!best || (high ? r->value > best->value : r->value < best->value))
			best = r;
	}
	return best;
}

/*
 * Is @r the best row of its metric, or not told from it by the noise? Judged
 * on the medians: the best median, and any whose median is within the noise
 * band of it (at most 1.25x the best's, or at least 0.8x where more is
 * better). The per-round range says how sure the ratio to the base is, in
 * the cell's words; it never crowns a design: one lucky round of five must
 * not make a median 290x the best's "within noise of the best".
 */
static bool is_best(const struct lab_run *run, const struct lab_result *r)
{
	const struct lab_result *best = best_row(run, r->metric);
	double ratio;

	/* A median under the resolution is no figure to rank: when the best
	 * is one, the noise of the clock decides and no design is marked. */
	if (!best || r->unavailable || lab_result_under_resolution(best) ||
	    lab_result_under_resolution(r))
		return false;
	if (r == best || r->value == best->value)
		return true;
	if (!r->timed || !best->timed || best->value <= 0)
		return false;
	ratio = r->value / best->value;
	return higher_better(run, r->metric) ? ratio >= LAB_SAME_LO : ratio <= LAB_SAME_HI;
}

/* Two significant digits without an exponent: "0.0029", "1.3", "520". */
static void fmt_plain(char *buf, size_t len, double v)
{
	if (v >= 100)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2g", v);
}

/* "46000x", "630x", "41x", "1.9x", "1.03x". */
static void fmt_factor(char *buf, size_t len, double f)
{
	if (f >= 100) {
		double p = pow(10, floor(log10(f)) - 1);

		snprintf(buf, len, "%.0fx", round(f / p) * p);
	} else if (f >= 10) {
		snprintf(buf, len, "%.0fx", f);
	} else {
		snprintf(buf, len, "%.2gx", f);
		if (!strcmp(buf, "1x"))
			snprintf(buf, len, "%.3gx", f);
	}
}

void lab_table_ratio_words(char *buf, size_t len, double ratio)
{
	char f[24];

	fmt_factor(f, sizeof(f), ratio < 1 ? 1 / ratio : ratio);
	snprintf(buf, len, "%s %s", f, ratio < 1 ? "lower" : "higher");
}

/* A bound in the row's unit, fine enough for sub-ns resolutions. */
static void fmt_bound(char *buf, size_t len, double v, const char *unit)
{
	if (!strcmp(unit, "ns") && v < 10)
		snprintf(buf, len, "%.2g ns", v);
	else
		lab_fmt_value(buf, len, v, unit);
}

static void ratio_words(const struct lab_result *r, const struct lab_result *b,
			struct lab_cell *c)
{
	if (r == b)
		return;
	if (r->unavailable || c->under_resolution || !b || b->unavailable ||
	    lab_result_under_resolution(b))
		return;
	if (!r->timed || !b->timed) {
		if (r->value == b->value)
			snprintf(c->words, sizeof(c->words), "same");
		else if (r->value == 0)
			snprintf(c->words, sizeof(c->words), "none");
		else if (b->value != 0 && (r->value > 0) == (b->value > 0))
			lab_table_ratio_words(c->words, sizeof(c->words), r->value / b->value);
		return;
	}
	c->has_ratio = lab_ratio_of(r, b, &c->ratio);
	if (!c->has_ratio)
		return;
	switch (lab_ratio_classify(c->ratio.lo, c->ratio.hi)) {
	case LAB_RATIO_LOWER:
	case LAB_RATIO_HIGHER:
		lab_table_ratio_words(c->words, sizeof(c->words), c->ratio.median);
		break;
	case LAB_RATIO_SAME:
		snprintf(c->words, sizeof(c->words), "same within noise");
		break;
	default:
	{
		char lo[16], hi[16];

		fmt_plain(lo, sizeof(lo), c->ratio.lo);
		fmt_plain(hi, sizeof(hi), c->ratio.hi);
		snprintf(c->words, sizeof(c->words), "noisy: %s-%sx", lo, hi);
	}
		break;
	}
}

void lab_table_cell(const struct lab_run *run, const struct lab_result *r, struct lab_cell *c)
{
	const struct lab_result *b = lab_run_base_row(run, r->metric);

	memset(c, 0, sizeof(*c));
	if (r->unavailable) {
		snprintf(c->value, sizeof(c->value), "unavailable");
		return;
	}
	c->under_resolution = lab_result_under_resolution(r);
	if (c->under_resolution) {
		char bound[32];

		fmt_bound(bound, sizeof(bound), r->resolution, r->unit);
		snprintf(c->value, sizeof(c->value), "< %s", bound);
	} else {
		lab_fmt_value(c->value, sizeof(c->value), r->value, r->unit);
	}
	c->best = is_best(run, r);
	ratio_words(r, b, c);
}

/* ---- the layout ---- */

struct column {
	char label[LAB_LABEL_LEN];
	char piece[MAX_PIECES][PIECE_LEN]; /* the label split before each '+' */
	size_t nr_pieces;
	size_t width;
};

struct cellbox {
	struct lab_cell c;
	char marks[MARKS_LEN];
	bool present;
};

struct layout {
	const struct lab_run *run;
	struct column col[LAB_MAX_DESIGNS];
	size_t nr_cols;
	const char *metric[128];
	char metric_marks[128][MARKS_LEN];
	size_t nr_metrics;
	struct cellbox cell[128][LAB_MAX_DESIGNS];
	struct notes notes;
	size_t metric_width;
	bool any_under;
	bool any_best_tie;
};

static void split_label(struct column *c)
{
	const char *p = c->label;

	c->nr_pieces = 0;
	while (*p && c->nr_pieces < MAX_PIECES) {
		size_t n = strcspn(p + 1, "+") + 1;

		if (c->nr_pieces == MAX_PIECES - 1)
			n = strlen(p);
		snprintf(c->piece[c->nr_pieces], PIECE_LEN, "%.*s", (int)n, p);
		c->nr_pieces++;
		p += n;
	}
	for (size_t i = 0; i < c->nr_pieces; i++)
		if (strlen(c->piece[i]) > c->width)
			c->width = strlen(c->piece[i]);
}

/* Row @r's note: its own, and where it was measured apart from the run. */
static void row_note(const struct lab_run *run, const struct lab_result *r, char *buf,
		     size_t len)
{
	const char *sep = r->scale.note[0] ? "; " : "";

	if (r->unavailable)
		snprintf(buf, len, "unavailable: %s", r->scale.note);
	else if (r->scale.cgroups != run->scale.cgroups && r->scale.mounts != run->scale.mounts)
		snprintf(buf, len, "%s%smeasured at %lu cgroups and %lu mounts", r->scale.note, sep,
			 r->scale.cgroups, r->scale.mounts);
	else if (r->scale.cgroups != run->scale.cgroups)
		snprintf(buf, len, "%s%smeasured at %lu cgroups", r->scale.note, sep,
			 r->scale.cgroups);
	else if (r->scale.mounts != run->scale.mounts)
		snprintf(buf, len, "%s%smeasured at %lu mounts", r->scale.note, sep, r->scale.mounts);
	else
		snprintf(buf, len, "%s", r->scale.note);
}

/* A note every design of metric @m shares marks the metric; else each
 * cell gets its own, named after its design. */
static void note_metric(struct layout *l, size_t m)
{
	const struct lab_run *run = l->run;
	char shared[LAB_NOTE_LEN + 96], text[LAB_NOTE_LEN + 96], named[LAB_NOTE_LEN + 200];
	bool first = true, same = true;

	shared[0] = '\0';
	for (size_t d = 0; d < l->nr_cols; d++) {
		const struct lab_result *r = row_of(run, l->col[d].label, l->metric[m]);

		if (!r)
			continue;
		row_note(run, r, text, sizeof(text));
		if (first)
			snprintf(shared, sizeof(shared), "%s", text);
		else if (strcmp(shared, text))
			same = false;
		first = false;
	}
	if (same) {
		if (shared[0])
			add_mark(l->metric_marks[m], MARKS_LEN, note_id(&l->notes, shared));
		return;
	}
	for (size_t d = 0; d < l->nr_cols; d++) {
		const struct lab_result *r = row_of(run, l->col[d].label, l->metric[m]);

		if (!r)
			continue;
		row_note(run, r, text, sizeof(text));
		if (!text[0])
			continue;
		snprintf(named, sizeof(named), "%s: %s", r->design, text);
		add_mark(l->cell[m][d].marks, MARKS_LEN, note_id(&l->notes, named));
	}
}

static void build(struct layout *l, const struct lab_run *run)
{
	memset(l, 0, sizeof(*l));
	l->run = run;
	for (size_t d = 0; d < run->nr_designs && d < LAB_MAX_DESIGNS; d++) {
		struct column *c = &l->col[l->nr_cols++];

		lab_design_label(&run->designs[d], c->label, sizeof(c->label));
		c->width = 12;
		split_label(c);
	}
	l->metric_width = strlen("metric");
	for (size_t m = 0; m < run->exp->nr_metrics && l->nr_metrics < 128; m++) {
		const char *name = run->exp->metrics[m].name;
		size_t k = l->nr_metrics;
		bool any = false;

		for (size_t d = 0; d < l->nr_cols; d++) {
			const struct lab_result *r = row_of(run, l->col[d].label, name);
			struct cellbox *cb = &l->cell[k][d];

			if (!r)
				continue;
			any = cb->present = true;
			lab_table_cell(run, r, &cb->c);
			l->any_under |= cb->c.under_resolution;
		}
		if (!any)
			continue;
		l->metric[k] = name;
		l->nr_metrics++;
		note_metric(l, k);
		if (strlen(name) + strlen(l->metric_marks[k]) > l->metric_width)
			l->metric_width = strlen(name) + strlen(l->metric_marks[k]);
		for (size_t d = 0; d < l->nr_cols; d++) {
			struct cellbox *cb = &l->cell[k][d];
			size_t w = strlen(cb->c.value) + strlen(cb->marks) + (cb->c.best ? 2 : 0);

			if (!cb->present)
				continue;
			if (w > l->col[d].width)
				l->col[d].width = w;
			if (strlen(cb->c.words) > l->col[d].width)
				l->col[d].width = strlen(cb->c.words);
		}
	}
}

/* ---- text ---- */

static void text_header(FILE *out, const struct layout *l, const size_t *cols, size_t nc)
{
	size_t lines = l->col[0].nr_pieces + 1; /* the base's label, then "(base)" */

	for (size_t i = 0; i < nc; i++)
		if (l->col[cols[i]].nr_pieces > lines)
			lines = l->col[cols[i]].nr_pieces;
	for (size_t k = 0; k < lines; k++) {
		fprintf(out, "   %-*s", (int)l->metric_width, k == 0 ? "metric" : "");
		for (size_t i = 0; i < nc; i++) {
			const struct column *c = &l->col[cols[i]];
			const char *t = k < c->nr_pieces ? c->piece[k]
					: k == c->nr_pieces && cols[i] == 0 ? "(base)" : "";

			fprintf(out, "  %-*s", (int)c->width, t);
		}
		fputc('\n', out);
	}
}

static void text_panel(FILE *out, const struct layout *l, const size_t *cols, size_t nc)
{
	text_header(out, l, cols, nc);
	for (size_t m = 0; m < l->nr_metrics; m++) {
		char name[160];

		snprintf(name, sizeof(name), "%s%s", l->metric[m], l->metric_marks[m]);
		fprintf(out, "   %-*s", (int)l->metric_width, name);
		for (size_t i = 0; i < nc; i++) {
			const struct cellbox *cb = &l->cell[m][cols[i]];
			char v[96];

			snprintf(v, sizeof(v), "%s%s%s", cb->present ? cb->c.value : "-",
				 cb->c.best ? " *" : "", cb->marks);
			fprintf(out, "  %-*s", (int)l->col[cols[i]].width, v);
		}
		fputc('\n', out);
		fprintf(out, "   %-*s", (int)l->metric_width, "");
		for (size_t i = 0; i < nc; i++)
			fprintf(out, "  %-*s", (int)l->col[cols[i]].width,
				l->cell[m][cols[i]].c.words);
		fputc('\n', out);
	}
}

static void text_legend(FILE *out, const struct layout *l)
{
	bool high = false;

	for (size_t m = 0; m < l->nr_metrics; m++)
		high |= higher_better(l->run, l->metric[m]);
	fprintf(out, "   * best (the %s median, and any median within the noise band of it, 1.25x); "
		     "ratios to the base, judged on the per-round range:\n"
		     "     below %.2g lower, above %.3g higher, in between the same within noise, "
		     "across a boundary noisy\n", high ? "lowest or, for units_per_slab, highest"
		     : "lowest", LAB_SAME_LO, LAB_SAME_HI);
	if (l->any_under)
		fprintf(out, "   < bound: the median is under the clock's resolution, which a sample "
			     "divides among the items it timed (%s steps %.0f ns here, %s %.0f "
			     "ns, measured): not a measurement\n", lab_clock_name(LAB_CLOCK_WALL),
			lab_clock_resolution_ns(LAB_CLOCK_WALL), lab_clock_name(LAB_CLOCK_CPU),
			lab_clock_resolution_ns(LAB_CLOCK_CPU));
	for (size_t i = 0; i < l->notes.n; i++)
		fprintf(out, "   [%zu] %s\n", i + 1, l->notes.text[i]);
}

static void print_text(FILE *out, const struct layout *l)
{
	size_t cols[LAB_MAX_DESIGNS], nc = 0, width = 3 + l->metric_width;

	for (size_t d = 0; d < l->nr_cols; d++) {
		size_t w = 2 + l->col[d].width;

		if (nc > 1 && width + w > LAB_TABLE_WIDTH) {
			text_panel(out, l, cols, nc);
			fputc('\n', out);
			nc = 1; /* the base again, then the rest */
			width = 3 + l->metric_width + 2 + l->col[0].width;
		}
		cols[nc++] = d;
		width += w;
	}
	if (nc)
		text_panel(out, l, cols, nc);
	text_legend(out, l);
}

/* ---- Markdown ---- */

static void md_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '*' || *s == '_' || *s == '<')
			fputc('\\', out);
		fputc(*s, out);
	}
}

static void print_markdown(FILE *out, const struct layout *l)
{
	fputs("| metric |", out);
	for (size_t d = 0; d < l->nr_cols; d++) {
		fputs(" `", out);
		fputs(l->col[d].label, out);
		fputs(d == 0 ? "` (base) |" : "` |", out);
	}
	fputs("\n|---|", out);
	for (size_t d = 0; d < l->nr_cols; d++)
		fputs("---|", out);
	fputc('\n', out);
	for (size_t m = 0; m < l->nr_metrics; m++) {
		const struct lab_metric *mt = lab_metric_find(l->run->exp, l->metric[m]);

		fputs("| ", out);
		if (mt && mt->what[0]) {
			md_text(out, mt->what);
			fputs(" (`", out);
			fputs(l->metric[m], out);
			fputs("`)", out);
		} else {
			fputs("`", out);
			fputs(l->metric[m], out);
			fputs("`", out);
		}
		md_text(out, l->metric_marks[m]);
		fputs(" |", out);
		for (size_t d = 0; d < l->nr_cols; d++) {
			const struct cellbox *cb = &l->cell[m][d];

			fputc(' ', out);
			if (!cb->present) {
				fputs("- |", out);
				continue;
			}
			fputs(cb->c.best ? "**" : "", out);
			md_text(out, cb->c.value);
			fputs(cb->c.best ? "**" : "", out);
			md_text(out, cb->marks);
			if (cb->c.words[0]) {
				fputs(", ", out);
				md_text(out, cb->c.words);
			}
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fputs("\nBold: the best design of the row (the best median, and any median within 1.25x of it); "
	      "ratios are to the base, judged on the per-round range (below 0.8 lower, above "
	      "1.25 higher, in between the same within noise).", out);
	if (l->any_under)
		fputs(" \"< bound\": the median is under the clock's resolution.", out);
	fputc('\n', out);
	for (size_t i = 0; i < l->notes.n; i++) {
		fprintf(out, "%s[%zu] ", i ? " " : "\n", i + 1);
		md_text(out, l->notes.text[i]);
		fputc('.', out);
	}
	if (l->notes.n)
		fputc('\n', out);
}

void lab_table_print(FILE *out, const struct lab_run *run, enum lab_table_format fmt)
{
	static struct layout l;

	build(&l, run);
	if (!l.nr_metrics)
		return;
	if (fmt == LAB_TABLE_MARKDOWN)
		print_markdown(out, &l);
	else
		print_text(out, &l);
}
