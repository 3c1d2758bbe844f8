/* SPDX-License-Identifier: MIT */
/*
 * Kernel beside model, printed (beside.h): the join of lab/beside_join.h as
 * klab lab's tables (per experiment the figures of each design on both
 * sides, then which design is better on each side, then the count of
 * metrics per verdict and the disagreements) and as JSON (klab-lab/1's
 * "comparison"). The figures print in the kernel lab's units (kB and MB of
 * 1000 bytes, s/ms/us/ns, ratios to 3 digits), as its tables always have.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "beside.h"
#include "json.h"
#include "text_table.h"
#include "units.h"
#include "jsonw.h"
#include "verdict.h"

/* Said of every design: where the model's work is not the kernel's. */
static const char *const common_notes[] = {
	"an empty cgroup in the model is its shrinker bookkeeping and the rest of a memcg "
	"beside it: the slab the kernel lab measured for an empty memcg beyond the "
	"bookkeeping (data/memcg_slab.tsv, the row of the run's nodes and nearest vCPUs), "
	"really allocated from the model's slab allocator; the kernel's per-CPU statistics "
	"(not slab) are in neither; documents written before 2026-12-02 have the "
	"bookkeeping alone",
	"a mount in the model is a shrinker and two list_lrus; the kernel's also allocates a "
	"superblock, root inode and dentry, and runs the mount syscall and namespace work",
	"rmdir in the model runs offline (list_lru reparenting) before it returns; the kernel "
	"runs offline from a worker after rmdir returns, so its split between rmdir and "
	"release depends on scheduling: compare rmdir_release",
	"release in the model is an RCU barrier; the guest polls nr_dying_descendants every "
	"0.5 ms",
	"the model runs natively on the host; the guest either natively too, as a host "
	"process (UML: its own kernel entries and page faults cost what they cost there), "
	"or under QEMU (TCG when KVM is not usable, whose emulation moves every absolute "
	"time): compare ratios within a side, not times across them",
};
#define NR_COMMON_NOTES (sizeof(common_notes) / sizeof(common_notes[0]))

/* -------------------------------------------------------------- tables */

/* @v in @unit as the kernel lab's tables print it: bytes and times as
 * every table of the lab does (lab_fmt_value()), a ratio with its x. */
static void fmt(char *buf, size_t len, bool has, double v, const char *unit)
{
	if (!has)
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "ratio"))
		snprintf(buf, len, "%.3gx", v);
	else if (!strcmp(unit, "ns") || !strcmp(unit, "B"))
		lab_fmt_value(buf, len, v, unit);
	else
		snprintf(buf, len, "%.2f", v);
}

static void cell_text(char *buf, size_t len, bool has, const struct lab_bs_fig *c, const char *unit)
{
	char v[48], lo[48], hi[48];

	if (!has) {
		snprintf(buf, len, "-");
		return;
	}
	fmt(v, sizeof(v), c->has_value, c->value, unit);
	if (c->has_value && c->lo != c->hi) {
		fmt(lo, sizeof(lo), true, c->lo, unit);
		fmt(hi, sizeof(hi), true, c->hi, unit);
		snprintf(buf, len, "%s [%s..%s]", v, lo, hi);
	} else {
		snprintf(buf, len, "%s", v);
	}
}

static void ratio_text(char *buf, size_t len, bool has, const struct lab_bs_fig *r, const char *cls)
{
	if (!has)
		snprintf(buf, len, "-");
	else if (r->lo != r->hi)
		snprintf(buf, len, "%.3g [%.3g..%.3g] %s", r->value, r->lo, r->hi, cls);
	else
		snprintf(buf, len, "%.3g %s", r->value, cls);
}

static void winner_text(char *buf, size_t len, const struct lab_bs_winner *w)
{
	size_t used;

	if (!w->n) {
		snprintf(buf, len, "-");
		return;
	}
	if (w->n == 1) {
		snprintf(buf, len, "%s", w->names[0]);
		return;
	}
	used = (size_t)snprintf(buf, len, "tie: ");
	for (size_t i = 0; i < w->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", w->names[i]);
}

#define CELL_LEN 512

static void print_figures(FILE *out, const struct lab_beside *b, const struct lab_bs_exp *e)
{
	static const char *const with_spread[] = { "metric", "design", "kernel", "boots +-",
						   "model", "model/kernel" };
	static const char *const without[] = { "metric", "design", "kernel", "model",
					       "model/kernel" };
	bool spread = false;
	struct lab_text_table t;

	for (size_t i = 0; i < e->nr_metrics; i++)
		for (size_t d = 0; d < b->nr_designs; d++)
			spread = spread || (e->metrics[i].cells[d].has_k &&
					    e->metrics[i].cells[d].k.has_boot_spread);
	fprintf(out, "\n== %s: kernel beside model (%s%s%smedian [min..max]; %smodel/kernel = "
		"ratio of the medians)\n", e->id, b->clock ? "kernel clock " : "",
		b->clock ? b->clock : "", b->clock ? "; " : "",
		spread ? "boots +-: the boots' medians' largest distance from their median; " : "");
	lab_text_table_init(&t, spread ? 6 : 5);
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct lab_bs_metric *m = &e->metrics[i];

		for (size_t d = 0; d < b->nr_designs; d++) {
			const struct lab_bs_cell *c = &m->cells[d];
			char k[CELL_LEN], bs[32], mo[CELL_LEN], mok[32];
			const char *row[6];
			size_t n = 0;

			cell_text(k, sizeof(k), c->has_k, &c->k, m->unit);
			cell_text(mo, sizeof(mo), c->has_m, &c->m, m->unit);
			if (c->has_k && c->has_m && c->m.has_value && c->k.has_value && c->k.value != 0)
				snprintf(mok, sizeof(mok), "%.3g", c->m.value / c->k.value);
			else
				snprintf(mok, sizeof(mok), "-");
			if (c->has_k && c->k.has_boot_spread)
				snprintf(bs, sizeof(bs), "%.1f%%", 100 * c->k.boot_spread);
			else
				snprintf(bs, sizeof(bs), "-");
			row[n++] = d ? "" : m->metric;
			row[n++] = b->designs[d].name;
			row[n++] = k;
			if (spread)
				row[n++] = bs;
			row[n++] = mo;
			row[n++] = mok;
			lab_text_table_add(&t, row);
		}
	}
	lab_text_table_print(out, &t, spread ? with_spread : without);
	lab_text_table_free(&t);
}

struct counts {
	size_t agree, disagree, inconclusive, one;
};

static void print_versus(FILE *out, const struct lab_beside *b, const struct lab_bs_exp *e,
			 struct counts *counts)
{
	static const char *const header[] = { "metric", "design", "kernel", "model", "direction",
					      "size (model within 2x of kernel)" };
	struct lab_text_table t;

	lab_text_table_init(&t, 6);
	fprintf(out, "\n   which design is better, %s%s%s%s: ratio to mainline [range] and its class "
		"(<%.2g lower, >%.3g higher; ranges unpaired, min/max, unless the model's designs "
		"ran in one process); lowest: the design with the lowest median on each side "
		"(kernel names)\n", e->id, b->clock ? " (kernel clock " : "", b->clock ? b->clock : "",
		b->clock ? ")" : "", LAB_SAME_LO, LAB_SAME_HI);
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct lab_bs_metric *m = &e->metrics[i];
		char k[CELL_LEN], mo[CELL_LEN], verdict[32];
		const char *row[6];

		for (size_t j = 0; j < m->nr_vs; j++) {
			const struct lab_bs_versus *v = &m->vs[j];

			ratio_text(k, sizeof(k), v->has_k, &v->rk, v->ck);
			ratio_text(mo, sizeof(mo), v->has_m, &v->rm, v->cm);
			row[0] = j ? "" : m->metric;
			row[1] = v->design;
			row[2] = k;
			row[3] = mo;
			row[4] = v->verdict;
			row[5] = v->size;
			lab_text_table_add(&t, row);
		}
		winner_text(k, sizeof(k), &m->wk);
		winner_text(mo, sizeof(mo), &m->wm);
		snprintf(verdict, sizeof(verdict), "=> %s", m->verdict);
		row[0] = "";
		row[1] = "lowest:";
		row[2] = k;
		row[3] = mo;
		row[4] = verdict;
		row[5] = "";
		lab_text_table_add(&t, row);
		if (!strcmp(m->verdict, "agree"))
			counts->agree++;
		else if (!strcmp(m->verdict, "disagree"))
			counts->disagree++;
		else if (!strcmp(m->verdict, "inconclusive"))
			counts->inconclusive++;
		else
			counts->one++;
	}
	lab_text_table_print(out, &t, header);
	lab_text_table_free(&t);
}

static void print_disagreements(FILE *out, const struct lab_beside *b)
{
	for (size_t i = 0; i < b->nr_exps; i++) {
		for (size_t j = 0; j < b->exps[i].nr_metrics; j++) {
			const struct lab_bs_metric *m = &b->exps[i].metrics[j];
			bool first = true;

			if (strcmp(m->verdict, "disagree"))
				continue;
			fprintf(out, "  disagree: %s %s (", b->exps[i].id, m->metric);
			for (size_t k = 0; k < m->nr_vs; k++) {
				if (strcmp(m->vs[k].verdict, "disagree"))
					continue;
				fprintf(out, "%s%s", first ? "" : ", ", m->vs[k].design);
				first = false;
			}
			fprintf(out, ")\n");
		}
	}
}

void lab_beside_print(FILE *out, const struct lab_beside *b)
{
	struct counts counts = { 0 };
	const char *sep = "";

	for (size_t i = 0; i < jsonr_len(b->heading); i++)
		if (jsonr_str(jsonr_at(b->heading, i)))
			fprintf(out, "%s\n", jsonr_str(jsonr_at(b->heading, i)));
	fprintf(out, "\ndesigns (kernel = model; what the model does differently):\n");
	for (size_t d = 0; d < b->nr_designs; d++) {
		fprintf(out, "  kernel:%s = %s\n", b->designs[d].name,
			b->designs[d].model ? b->designs[d].model : "(no model design)");
		for (size_t i = 0; i < jsonr_len(b->designs[d].notes); i++)
			if (jsonr_str(jsonr_at(b->designs[d].notes, i)))
				fprintf(out, "    - %s\n", jsonr_str(jsonr_at(b->designs[d].notes, i)));
	}
	fprintf(out, "  every design:\n");
	for (size_t i = 0; i < NR_COMMON_NOTES; i++)
		fprintf(out, "    - %s\n", common_notes[i]);
	for (size_t i = 0; i < b->nr_exps; i++) {
		print_figures(out, b, &b->exps[i]);
		if (b->nr_designs < 2) {
			fprintf(out, "  (one kernel design: no design to compare)\n");
			continue;
		}
		print_versus(out, b, &b->exps[i], &counts);
	}
	if (!(counts.agree + counts.disagree + counts.inconclusive + counts.one))
		return;
	fprintf(out, "\nmodel and kernel on which design is better, per metric: ");
	if (counts.agree)
		fprintf(out, "%s%zu agree", sep, counts.agree), sep = ", ";
	if (counts.disagree)
		fprintf(out, "%s%zu disagree", sep, counts.disagree), sep = ", ";
	if (counts.inconclusive)
		fprintf(out, "%s%zu inconclusive", sep, counts.inconclusive), sep = ", ";
	if (counts.one)
		fprintf(out, "%s%zu one design", sep, counts.one);
	fprintf(out, "\n");
	print_disagreements(out, b);
}

/* ---------------------------------------------------------------- JSON */

static void json_opt_number(FILE *out, bool has, double v)
{
	if (has)
		jsonw_number(out, v);
	else
		fputs("null", out);
}

/* @f as JSON (null without it), with its class @cls when not NULL, and
 * "beyond" (@beyond, or null) when @with_beyond. */
static void json_fig_with(FILE *out, bool has, const struct lab_bs_fig *f, const char *cls,
			  bool with_beyond, const char *beyond)
{
	if (!has) {
		fputs("null", out);
		return;
	}
	fputc('{', out);
	lab_json_write_fig_fields(out, f);
	if (cls)
		jsonw_field(out, ",\"cls\":", cls);
	if (with_beyond && beyond)
		jsonw_field(out, ",\"beyond\":", beyond);
	else if (with_beyond)
		fputs(",\"beyond\":null", out);
	fputc('}', out);
}

static void json_fig(FILE *out, bool has, const struct lab_bs_fig *f, const char *cls)
{
	json_fig_with(out, has, f, cls, false, NULL);
}

static void json_winner(FILE *out, const struct lab_bs_winner *w)
{
	if (!w->n) {
		fputs("null", out);
	} else if (w->n == 1) {
		jsonw_string(out, w->names[0]);
	} else {
		fputc('[', out);
		for (size_t i = 0; i < w->n; i++) {
			if (i)
				fputc(',', out);
			jsonw_string(out, w->names[i]);
		}
		fputc(']', out);
	}
}

static void json_metric(FILE *out, const struct lab_beside *b, const struct lab_bs_metric *m)
{
	jsonw_field(out, "{\"metric\":", m->metric);
	jsonw_field(out, ",\"unit\":", m->unit);
	fprintf(out, ",\"derived\":%s,\"designs\":{", m->derived ? "true" : "false");
	for (size_t d = 0; d < b->nr_designs; d++) {
		const struct lab_bs_cell *c = &m->cells[d];

		if (d)
			fputc(',', out);
		jsonw_string(out, b->designs[d].name);
		fputs(":{\"model_design\":", out);
		if (c->model_design)
			jsonw_string(out, c->model_design);
		else
			fputs("null", out);
		fputs(",\"kernel\":", out);
		json_fig(out, c->has_k, &c->k, NULL);
		fputs(",\"model\":", out);
		json_fig(out, c->has_m, &c->m, NULL);
		fputs(",\"model_over_kernel\":", out);
		json_opt_number(out, c->has_k && c->has_m && c->m.has_value && c->k.has_value &&
				c->k.value != 0, c->k.value ? c->m.value / c->k.value : 0);
		fputc('}', out);
	}
	fputs("},\"versus_base\":[", out);
	for (size_t i = 0; i < m->nr_vs; i++) {
		const struct lab_bs_versus *v = &m->vs[i];

		jsonw_field(out, i ? ",{\"design\":" : "{\"design\":", v->design);
		fputs(",\"kernel\":", out);
		json_fig(out, v->has_k, &v->rk, v->ck);
		fputs(",\"model\":", out);
		json_fig(out, v->has_m, &v->rm, v->cm);
		jsonw_field(out, ",\"verdict\":", v->verdict);
		jsonw_field(out, ",\"size\":", v->size);
		fputc('}', out);
	}
	fputs("],\"winner\":{\"kernel\":", out);
	json_winner(out, &m->wk);
	fputs(",\"model\":", out);
	json_winner(out, &m->wm);
	jsonw_field(out, "},\"verdict\":", m->verdict);
	fputc('}', out);
}

void lab_beside_write_json(FILE *out, const struct lab_beside *b)
{
	fputs("{\"designs\":[", out);
	for (size_t d = 0; d < b->nr_designs; d++) {
		if (d)
			fputc(',', out);
		jsonw_string(out, b->designs[d].name);
	}
	fputs("],\"mapping\":{", out);
	for (size_t d = 0; d < b->nr_designs; d++) {
		const struct lab_bs_design *x = &b->designs[d];

		if (d)
			fputc(',', out);
		jsonw_string(out, x->name);
		fputs(":{\"model\":", out);
		if (x->model)
			jsonw_string(out, x->model);
		else
			fputs("null", out);
		fputs(",\"notes\":[", out);
		for (size_t i = 0; i < jsonr_len(x->notes); i++) {
			if (i)
				fputc(',', out);
			jsonw_string(out, jsonr_str(jsonr_at(x->notes, i)) ?
				     jsonr_str(jsonr_at(x->notes, i)) : "");
		}
		fputs("]}", out);
	}
	fputs("},\"common_notes\":[", out);
	for (size_t i = 0; i < NR_COMMON_NOTES; i++) {
		if (i)
			fputc(',', out);
		jsonw_string(out, common_notes[i]);
	}
	fputs("],\"experiments\":[", out);
	for (size_t i = 0; i < b->nr_exps; i++) {
		jsonw_field(out, i ? ",{\"id\":" : "{\"id\":", b->exps[i].id);
		fputs(",\"metrics\":[", out);
		for (size_t j = 0; j < b->exps[i].nr_metrics; j++) {
			if (j)
				fputc(',', out);
			json_metric(out, b, &b->exps[i].metrics[j]);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
}

/* ------------------------------------------------------------ klab work */

/* A range end: the figure with its unit joined to it (the ends may differ
 * in scale). */
static void num_text(char *buf, size_t len, double v, const char *unit)
{
	char tmp[64];
	size_t n = 0;

	fmt(tmp, sizeof(tmp), true, v, unit);
	for (const char *p = tmp; *p && n + 1 < len; p++)
		if (*p != ' ')
			buf[n++] = *p;
	buf[n] = '\0';
}

static void work_cell_text(char *buf, size_t len, bool has, const struct lab_bs_fig *c,
			   const char *unit)
{
	char v[64], lo[64], hi[64];

	if (!has || !c->has_value) {
		snprintf(buf, len, "-");
		return;
	}
	fmt(v, sizeof(v), true, c->value, unit);
	if (c->lo != c->hi) {
		num_text(lo, sizeof(lo), c->lo, unit);
		num_text(hi, sizeof(hi), c->hi, unit);
		snprintf(buf, len, "%s [%s..%s]", v, lo, hi);
	} else {
		snprintf(buf, len, "%s", v);
	}
}

/* The footnotes of one experiment's table: what the model leaves out, in
 * the order first marked, as [a], [b], ... */
struct marks {
	const struct lab_work_left *left[26];
	size_t n;
};

static const char *mark(struct marks *m, const struct lab_work_left *l, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < m->n && strcmp(m->left[i]->what, l->what); i++)
		;
	if (i == m->n && m->n < 26)
		m->left[m->n++] = l;
	snprintf(buf, len, "[%c]", (char)('a' + (i < 26 ? i : 25)));
	return buf;
}

static void model_cell_text(char *buf, size_t len, const struct lab_work_cell *c,
			    const struct lab_work_row *row, struct marks *marks)
{
	char cell[CELL_LEN - 64], label[8], ratio[32];

	if (row->left && !strcmp(row->left->kind, "absent")) {
		snprintf(buf, len, "not modelled %s", mark(marks, row->left, label, sizeof(label)));
		return;
	}
	if (!c->has_m) {
		snprintf(buf, len, "-");
		return;
	}
	work_cell_text(cell, sizeof(cell), true, &c->m, row->unit);
	ratio[0] = '\0';
	if (c->has_mr)
		snprintf(ratio, sizeof(ratio), c->mr.value < 0.01 ? " (m/k x%.2g)" : " (m/k x%.3g)",
			 c->mr.value);
	snprintf(buf, len, "%s%s%s%s", cell, ratio, row->left ? " " : "",
		 row->left ? mark(marks, row->left, label, sizeof(label)) : "");
}

static void work_ratio_text(char *buf, size_t len, const struct lab_work_cell *c)
{
	size_t n;

	if (!c->has_r) {
		buf[0] = '\0';
		return;
	}
	n = (size_t)snprintf(buf, len, "x%.3g", c->r.value);
	if (c->r.lo != c->r.hi && n < len)
		n += (size_t)snprintf(buf + n, len - n, " [%.3g..%.3g]", c->r.lo, c->r.hi);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " %s", c->cls ? c->cls : "");
	if (c->beyond && n < len)
		snprintf(buf + n, len - n, ", %snoise", !strcmp(c->beyond, "above") ? ">" : "<");
}

static bool is_best(const struct lab_work_row *row, const char *design)
{
	for (size_t i = 0; row->has_best && i < row->nr_best; i++)
		if (!strcmp(row->best[i], design))
			return true;
	return false;
}

/* One experiment's rows: the kernel's line, its ratios, the model's line. */
static void work_rows(const struct lab_work *w, const struct lab_work_exp *e,
		      struct lab_text_table *t, struct marks *marks)
{
	size_t cols = 2 + w->nr_designs;
	char (*text)[CELL_LEN] = calloc(3 * cols, CELL_LEN);
	const char **line = calloc(3 * cols, sizeof(*line));

	if (!text || !line) {
		t->err = -ENOMEM;
		free(text);
		free(line);
		return;
	}
	for (size_t i = 0; i < 3 * cols; i++)
		line[i] = text[i];
	for (size_t r = 0; r < e->nr_rows; r++) {
		const struct lab_work_row *row = &e->rows[r];
		bool ratios = false, models = e->model;

		snprintf(text[0], CELL_LEN, "%s", row->metric);
		snprintf(text[1], CELL_LEN, "%s", row->better);
		text[cols][0] = text[cols + 1][0] = text[2 * cols][0] = '\0';
		snprintf(text[2 * cols + 1], CELL_LEN, "  model");
		for (size_t d = 0; d < w->nr_designs; d++) {
			const struct lab_work_cell *c = &row->cells[d];
			char cell[CELL_LEN - 8];

			work_cell_text(cell, sizeof(cell), c->has_k, &c->k, row->unit);
			snprintf(text[2 + d], CELL_LEN, "%s%s", cell,
				 is_best(row, w->designs[d].name) ? "*" : "");
			work_ratio_text(text[cols + 2 + d], CELL_LEN, c);
			model_cell_text(text[2 * cols + 2 + d], CELL_LEN, c, row, marks);
			ratios = ratios || text[cols + 2 + d][0];
			models = models || c->has_m;
		}
		lab_text_table_add(t, line);
		if (ratios)
			lab_text_table_add(t, line + cols);
		if (models)
			lab_text_table_add(t, line + 2 * cols);
	}
	free(text);
	free(line);
}

void lab_work_print(FILE *out, const struct lab_work *w)
{
	for (size_t i = 0; i < jsonr_len(w->heading); i++)
		if (jsonr_str(jsonr_at(w->heading, i)))
			fprintf(out, "%s\n", jsonr_str(jsonr_at(w->heading, i)));
	fprintf(out, "\nper cell: kernel median over boots [min..max of all samples]; under it, the "
		"ratio to mainline [unpaired range] and its class (<%.2g lower, >%.3g higher, same "
		"between, across: the range straddles a boundary; >noise / <noise: every boot of "
		"the design above / below every boot of mainline, over 2 boots or more each); * the "
		"best median of a metric with a direction (better: lower or higher); model: the "
		"model's figure where it runs the workload\n", LAB_SAME_LO, LAB_SAME_HI);
	for (size_t i = 0; i < w->nr_exps; i++) {
		const struct lab_work_exp *e = &w->exps[i];
		size_t cols = 2 + w->nr_designs;
		struct marks marks = { .n = 0 };
		struct lab_text_table t;
		char (*head)[CELL_LEN] = calloc(cols, CELL_LEN);
		const char **header = calloc(cols, sizeof(*header));

		fprintf(out, "\n== %s (clock: %s, the guest's CLOCK_MONOTONIC)\n", e->id,
			w->clock ? w->clock : "not recorded");
		if (!head || !header) {
			free(head);
			free(header);
			return;
		}
		lab_text_table_init(&t, cols);
		header[0] = "metric";
		header[1] = "better";
		for (size_t d = 0; d < w->nr_designs; d++) {
			snprintf(head[d], CELL_LEN, "kernel:%s", w->designs[d].name);
			header[2 + d] = head[d];
		}
		work_rows(w, e, &t, &marks);
		lab_text_table_print(out, &t, header);
		lab_text_table_free(&t);
		free(head);
		free(header);
		if (e->model)
			fprintf(out, "  model: shrinklab containers at the guest's geometry (native, "
				"CLOCK_MONOTONIC); m/k = model / kernel median\n");
		for (size_t k = 0; k < marks.n; k++)
			fprintf(out, "  [%c] %s: %s\n", (char)('a' + k), marks.left[k]->what,
				marks.left[k]->why);
	}
}

static void json_work_row(FILE *out, const struct lab_work *w, const struct lab_work_row *row)
{
	jsonw_field(out, "{\"metric\":", row->metric);
	jsonw_field(out, ",\"unit\":", row->unit);
	jsonw_field(out, ",\"better\":", row->better);
	fputs(",\"best\":", out);
	if (row->has_best) {
		fputc('[', out);
		for (size_t i = 0; i < row->nr_best; i++) {
			if (i)
				fputc(',', out);
			jsonw_string(out, row->best[i]);
		}
		fputc(']', out);
	} else {
		fputs("null", out);
	}
	fputs(",\"designs\":{", out);
	for (size_t d = 0; d < w->nr_designs; d++) {
		const struct lab_work_cell *c = &row->cells[d];

		if (d)
			fputc(',', out);
		jsonw_string(out, w->designs[d].name);
		fputs(":{\"kernel\":", out);
		json_fig(out, c->has_k, &c->k, NULL);
		fputs(",\"model\":", out);
		json_fig(out, c->has_m, &c->m, NULL);
		if (c->has_mr) {
			fputs(",\"model_ratio\":", out);
			json_fig(out, true, &c->mr, NULL);
		}
		if (c->has_r) {
			fputs(",\"ratio\":", out);
			json_fig_with(out, true, &c->r, c->cls, true, c->beyond);
		}
		fputc('}', out);
	}
	fputc('}', out);
	if (row->left) {
		jsonw_field(out, ",\"model_leaves_out\":{\"kind\":", row->left->kind);
		jsonw_field(out, ",\"what\":", row->left->what);
		jsonw_field(out, ",\"why\":", row->left->why);
		fputc('}', out);
	}
	fputc('}', out);
}

void lab_work_write_json(FILE *out, const struct lab_work *w)
{
	fputs("{\"designs\":[", out);
	for (size_t d = 0; d < w->nr_designs; d++) {
		if (d)
			fputc(',', out);
		jsonw_string(out, w->designs[d].name);
	}
	fputs("],\"mapping\":{", out);
	for (size_t d = 0; d < w->nr_designs; d++) {
		if (d)
			fputc(',', out);
		jsonw_string(out, w->designs[d].name);
		fputc(':', out);
		if (w->designs[d].model)
			jsonw_string(out, w->designs[d].model);
		else
			fputs("null", out);
	}
	fputs("},\"experiments\":[", out);
	for (size_t i = 0; i < w->nr_exps; i++) {
		jsonw_field(out, i ? ",{\"id\":" : "{\"id\":", w->exps[i].id);
		fputs(",\"metrics\":[", out);
		for (size_t j = 0; j < w->exps[i].nr_rows; j++) {
			if (j)
				fputc(',', out);
			json_work_row(out, w, &w->exps[i].rows[j]);
		}
		fprintf(out, "],\"model\":%s}", w->exps[i].model ? "true" : "false");
	}
	fputs("]}\n", out);
}
