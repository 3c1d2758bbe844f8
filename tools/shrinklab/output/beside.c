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
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "beside.h"
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
	"the model runs natively on the host, the guest under QEMU (TCG when KVM is not "
	"usable): absolute times differ by the emulation, ratios within a side do not",
};
#define NR_COMMON_NOTES (sizeof(common_notes) / sizeof(common_notes[0]))

/* -------------------------------------------------------------- tables */

/* @v in @unit as the kernel lab's tables print it. */
static void fmt(char *buf, size_t len, bool has, double v, const char *unit)
{
	double a = fabs(v);

	if (!has)
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "ratio"))
		snprintf(buf, len, "%.3gx", v);
	else if (!strcmp(unit, "ns"))
		snprintf(buf, len, a >= 1e9 ? "%.2f s" : a >= 1e6 ? "%.2f ms" : a >= 1e3 ?
			 "%.1f us" : "%.0f ns", a >= 1e9 ? v / 1e9 : a >= 1e6 ? v / 1e6 :
			 a >= 1e3 ? v / 1e3 : v);
	else if (!strcmp(unit, "B"))
		snprintf(buf, len, a >= 1e6 ? "%.2f MB" : a >= 1e3 ? "%.1f kB" : "%.0f B",
			 a >= 1e6 ? v / 1e6 : a >= 1e3 ? v / 1e3 : v);
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

/* A table's cells: rows of @cols strings, each a copy. */
#define TABLE_COLS 6
#define CELL_LEN 512
struct table {
	size_t cols, nr_rows;
	char (*cells)[TABLE_COLS][CELL_LEN];
	int err;
};

static void table_add(struct table *t, const char *const *row)
{
	void *p;

	if (t->err)
		return;
	p = realloc(t->cells, (t->nr_rows + 1) * sizeof(*t->cells));
	if (!p) {
		t->err = -ENOMEM;
		return;
	}
	t->cells = p;
	for (size_t c = 0; c < t->cols; c++)
		snprintf(t->cells[t->nr_rows][c], CELL_LEN, "%s", row[c]);
	t->nr_rows++;
}

/* One line of @row in @widths: two spaces in front and between, no
 * trailing space. */
static void table_line(FILE *out, size_t cols, const char *const *row, const size_t *widths)
{
	char line[TABLE_COLS * (CELL_LEN + 2) + 4];
	size_t used = (size_t)snprintf(line, sizeof(line), " ");

	for (size_t c = 0; c < cols; c++)
		used += (size_t)snprintf(line + used, sizeof(line) - used, " %-*s%s", (int)widths[c],
					 row[c], c + 1 < cols ? " " : "");
	while (used && line[used - 1] == ' ')
		line[--used] = '\0';
	fprintf(out, "%s\n", line);
}

static void table_print(FILE *out, const struct table *t, const char *const *header)
{
	size_t widths[TABLE_COLS];
	char dashes[TABLE_COLS][CELL_LEN];
	const char *dash_row[TABLE_COLS], *row[TABLE_COLS];

	for (size_t c = 0; c < t->cols; c++) {
		widths[c] = strlen(header[c]);
		for (size_t r = 0; r < t->nr_rows; r++)
			if (strlen(t->cells[r][c]) > widths[c])
				widths[c] = strlen(t->cells[r][c]);
		memset(dashes[c], '-', widths[c]);
		dashes[c][widths[c]] = '\0';
		dash_row[c] = dashes[c];
	}
	table_line(out, t->cols, header, widths);
	table_line(out, t->cols, dash_row, widths);
	for (size_t r = 0; r < t->nr_rows; r++) {
		for (size_t c = 0; c < t->cols; c++)
			row[c] = t->cells[r][c];
		table_line(out, t->cols, row, widths);
	}
}

static void print_figures(FILE *out, const struct lab_beside *b, const struct lab_bs_exp *e)
{
	static const char *const with_spread[] = { "metric", "design", "kernel", "boots +-",
						   "model", "model/kernel" };
	static const char *const without[] = { "metric", "design", "kernel", "model",
					       "model/kernel" };
	bool spread = false;
	struct table t = { 0 };

	for (size_t i = 0; i < e->nr_metrics; i++)
		for (size_t d = 0; d < b->nr_designs; d++)
			spread = spread || (e->metrics[i].cells[d].has_k &&
					    e->metrics[i].cells[d].k.has_boot_spread);
	fprintf(out, "\n== %s: kernel beside model (%s%s%smedian [min..max]; %smodel/kernel = "
		"ratio of the medians)\n", e->id, b->clock ? "kernel clock " : "",
		b->clock ? b->clock : "", b->clock ? "; " : "",
		spread ? "boots +-: the boots' medians' largest distance from their median; " : "");
	t.cols = spread ? 6 : 5;
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct lab_bs_metric *m = &e->metrics[i];

		for (size_t d = 0; d < b->nr_designs; d++) {
			const struct lab_bs_cell *c = &m->cells[d];
			char k[CELL_LEN], bs[32], mo[CELL_LEN], mok[32];
			const char *row[TABLE_COLS];
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
			table_add(&t, row);
		}
	}
	table_print(out, &t, spread ? with_spread : without);
	free(t.cells);
}

struct counts {
	size_t agree, disagree, inconclusive, one;
};

static void print_versus(FILE *out, const struct lab_beside *b, const struct lab_bs_exp *e,
			 struct counts *counts)
{
	static const char *const header[] = { "metric", "design", "kernel", "model", "direction",
					      "size (model within 2x of kernel)" };
	struct table t = { .cols = 6 };

	fprintf(out, "\n   which design is better, %s%s%s%s: ratio to mainline [range] and its class "
		"(<%.2g lower, >%.3g higher; ranges unpaired, min/max, unless the model's designs "
		"ran in one process); lowest: the design with the lowest median on each side "
		"(kernel names)\n", e->id, b->clock ? " (kernel clock " : "", b->clock ? b->clock : "",
		b->clock ? ")" : "", LAB_SAME_LO, LAB_SAME_HI);
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct lab_bs_metric *m = &e->metrics[i];
		char k[CELL_LEN], mo[CELL_LEN], verdict[32];
		const char *row[TABLE_COLS];

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
			table_add(&t, row);
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
		table_add(&t, row);
		if (!strcmp(m->verdict, "agree"))
			counts->agree++;
		else if (!strcmp(m->verdict, "disagree"))
			counts->disagree++;
		else if (!strcmp(m->verdict, "inconclusive"))
			counts->inconclusive++;
		else
			counts->one++;
	}
	table_print(out, &t, header);
	free(t.cells);
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

static void json_fig(FILE *out, bool has, const struct lab_bs_fig *f, const char *cls)
{
	if (!has) {
		fputs("null", out);
		return;
	}
	fputs("{\"value\":", out);
	json_opt_number(out, f->has_value, f->value);
	fputs(",\"min\":", out);
	json_opt_number(out, f->has_value, f->lo);
	fputs(",\"max\":", out);
	json_opt_number(out, f->has_value, f->hi);
	if (f->ratio) {
		fprintf(out, ",\"paired\":%s,\"spread_known\":%s", f->paired ? "true" : "false",
			f->spread ? "true" : "false");
	} else {
		fputs(",\"n\":", out);
		jsonw_number(out, f->n);
		fprintf(out, ",\"boots\":%zu,\"boot_spread\":", f->boots);
		json_opt_number(out, f->has_boot_spread, f->boot_spread);
		fputs(",\"verdict_min\":", out);
		json_opt_number(out, f->has_value, f->vlo);
		fputs(",\"verdict_max\":", out);
		json_opt_number(out, f->has_value, f->vhi);
	}
	if (cls)
		jsonw_field(out, ",\"cls\":", cls);
	fputc('}', out);
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
