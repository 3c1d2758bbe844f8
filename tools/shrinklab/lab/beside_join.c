/* SPDX-License-Identifier: MIT */
/*
 * Kernel beside model, the join (beside_join.h): the guests' documents (one per kernel
 * design and boot) and the model's (shrinklab kernel, the same experiments
 * at the same geometry) joined metric by metric, for the tables
 * output/beside.c prints. This is the one place the kernel lab's figures
 * are judged; klab builds, boots and collects, and hands the documents
 * here (shrinklab judge lab).
 *
 * Every figure on either side is a measurement of that side; nothing here
 * scales one to the other. Per experiment and metric:
 *
 *  - each kernel design's figure (a "cell": the median of its rows'
 *    medians, one row per boot, with the min and max of every sample), the
 *    same design's figure in the model (the model design the kernel design
 *    maps to, which klab reads from the series), and model/kernel, the
 *    ratio of the two medians;
 *  - which design is better: each design's ratio to the base design
 *    (mainline on both sides), with a range, classed by the verdicts' rule
 *    (verdict.h: lower below 0.8, higher above 1.25, the same between, or
 *    across a boundary). The kernel's range is unpaired (separate boots:
 *    min/max over max/min) and so is the model's, unless both rows are of
 *    one model document (its designs in lockstep), when it is the range of
 *    the per-round ratios. A cell's verdict range is its boots' medians'
 *    range over two boots or more, its samples' with one. A time taken
 *    once has no spread. The direction per design: agree (the same class
 *    on both sides), disagree (different classes, neither across a
 *    boundary), inconclusive (either across a boundary or without spread);
 *    per metric: disagree if any design disagrees, else inconclusive if
 *    any is (or is not compared), else agree. The size: the model's range
 *    within 2x of the kernel's median ratio (lab_size_classify());
 *  - derived ratios within a design (data/kernel_metrics.tsv's "ratio"
 *    rows: a numerator and a denominator metric, '*' standing for a
 *    number), per boot and then merged, as rows of their own.
 *
 * Memory: the join points into the input document (names, rows) and owns
 * only its arrays; lab_beside_free() frees them.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beside_join.h"
#include "units.h"
#include "verdict.h"

#define KERNEL_PREFIX "kernel:"

/* @arr grown to @n + 1 items of @size (the new one zeroed), or NULL. */
static void *grow1(void *arr, size_t n, size_t size)
{
	char *p = realloc(arr, (n + 1) * size);

	if (p)
		memset(p + n * size, 0, size);
	return p;
}

/* The key of (@exp, @metric, @design) in @rb, added when new; NULL: no memory. */
static struct lab_bs_key *key_of(struct lab_bs_rows *rb, const char *exp, const char *metric,
				 const char *design)
{
	struct lab_bs_key *keys;

	for (size_t i = 0; i < rb->nr_keys; i++)
		if (!strcmp(rb->keys[i].exp, exp) && !strcmp(rb->keys[i].metric, metric) &&
		    !strcmp(rb->keys[i].design, design))
			return &rb->keys[i];
	keys = grow1(rb->keys, rb->nr_keys, sizeof(*rb->keys));
	if (!keys)
		return NULL;
	rb->keys = keys;
	keys[rb->nr_keys] = (struct lab_bs_key){ .exp = exp, .metric = metric, .design = design };
	return &keys[rb->nr_keys++];
}

/* Experiment @exp's order in @rb, added when new; NULL: no memory. */
static struct lab_bs_exp_order *order_of(struct lab_bs_rows *rb, const char *exp)
{
	struct lab_bs_exp_order *exps;

	for (size_t i = 0; i < rb->nr_exps; i++)
		if (!strcmp(rb->exps[i].id, exp))
			return &rb->exps[i];
	exps = grow1(rb->exps, rb->nr_exps, sizeof(*rb->exps));
	if (!exps)
		return NULL;
	rb->exps = exps;
	exps[rb->nr_exps].id = exp;
	return &exps[rb->nr_exps++];
}

/* @metric in @e's order (first seen), its unit the last row's. */
static int note_metric(struct lab_bs_exp_order *e, const char *metric, const char *unit)
{
	void *p;

	for (size_t i = 0; i < e->nr_metrics; i++) {
		if (!strcmp(e->metrics[i], metric)) {
			e->units[i] = unit;
			return 0;
		}
	}
	p = grow1(e->metrics, e->nr_metrics, sizeof(*e->metrics));
	if (!p)
		return -ENOMEM;
	e->metrics = p;
	p = grow1(e->units, e->nr_metrics, sizeof(*e->units));
	if (!p)
		return -ENOMEM;
	e->units = p;
	e->metrics[e->nr_metrics] = metric;
	e->units[e->nr_metrics++] = unit;
	return 0;
}

static int add_row(struct lab_bs_rows *rb, const char *exp, const struct jsonr_value *r,
		   size_t doc)
{
	const char *metric = jsonr_str(jsonr_get(r, "metric"));
	const char *design = jsonr_str(jsonr_get(r, "design"));
	const char *unit = jsonr_str(jsonr_get(r, "unit"));
	struct lab_bs_exp_order *e;
	struct lab_bs_key *k;
	void *p;

	if (!metric || !design || !unit)
		return -EINVAL;
	k = key_of(rb, exp, metric, design);
	if (!k)
		return -ENOMEM;
	p = grow1(k->rows, k->nr_rows, sizeof(*k->rows));
	if (!p)
		return -ENOMEM;
	k->rows = p;
	k->rows[k->nr_rows++] = (struct lab_bs_row){ r, doc };
	e = order_of(rb, exp);
	return e ? note_metric(e, metric, unit) : -ENOMEM;
}

/* Every available row of the documents @docs, indexed. */
int lab_bs_index(struct lab_bs_rows *rb, const struct jsonr_value *docs)
{
	for (size_t i = 0; i < jsonr_len(docs); i++) {
		const struct jsonr_value *exps = jsonr_get(jsonr_at(docs, i), "experiments");

		if (!exps || exps->type != JSONR_ARRAY)
			return -EINVAL;
		for (size_t j = 0; j < exps->len; j++) {
			const char *id = jsonr_str(jsonr_get(&exps->items[j], "id"));
			const struct jsonr_value *res = jsonr_get(&exps->items[j], "results");

			if (!id || !res || res->type != JSONR_ARRAY)
				return -EINVAL;
			for (size_t k = 0; k < res->len; k++) {
				int err;

				if (jsonr_truthy(jsonr_get(&res->items[k], "unavailable")))
					continue;
				err = add_row(rb, id, &res->items[k], i);
				if (err)
					return err;
			}
		}
	}
	return 0;
}

void lab_bs_rows_free(struct lab_bs_rows *rb)
{
	for (size_t i = 0; i < rb->nr_keys; i++)
		free(rb->keys[i].rows);
	for (size_t i = 0; i < rb->nr_exps; i++) {
		free(rb->exps[i].metrics);
		free(rb->exps[i].units);
	}
	free(rb->keys);
	free(rb->exps);
}

/* Does @s name @design, after @prefix? */
static bool names(const char *s, const char *prefix, const char *design)
{
	size_t n = strlen(prefix);

	return !strncmp(s, prefix, n) && !strcmp(s + n, design);
}

const struct lab_bs_key *lab_bs_find(const struct lab_bs_rows *rb, const char *exp,
				     const char *metric, const char *prefix, const char *design)
{
	for (size_t i = 0; i < rb->nr_keys; i++)
		if (!strcmp(rb->keys[i].exp, exp) && !strcmp(rb->keys[i].metric, metric) &&
		    names(rb->keys[i].design, prefix, design))
			return &rb->keys[i];
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v's @n values (sorted in place): the middle one, or the
 * mean of the two middle ones. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double num_or(const struct jsonr_value *r, const char *key, double dflt)
{
	double v;

	return jsonr_num(jsonr_get(r, key), &v) ? v : dflt;
}

/*
 * The range of row @r: its min and max, else its samples', else its
 * figure alone; false for a row without a figure.
 */
static bool row_range(const struct jsonr_value *r, double *lo, double *hi)
{
	const struct jsonr_value *samples = jsonr_get(r, "samples");
	double v;

	if (!jsonr_num(jsonr_get(r, "value"), &v))
		return false;
	*lo = *hi = v;
	if (jsonr_num(jsonr_get(r, "min"), lo) && jsonr_num(jsonr_get(r, "max"), hi))
		return true;
	*lo = *hi = v;
	for (size_t i = 0; i < jsonr_len(samples); i++) {
		double x;

		if (jsonr_num(jsonr_at(samples, i), &x)) {
			*lo = fmin(*lo, x);
			*hi = fmax(*hi, x);
		}
	}
	return true;
}

/*
 * The cell of rows @rows[0..@n) in @unit: the median of the rows' medians,
 * the min and max of every sample; the verdicts' range is the rows'
 * medians' over two rows or more (a sample that another job fell into
 * moves one sample, not a boot's median), with one row its samples'; the
 * boots' spread is the largest distance of a row's median from their
 * median, over that median (none for one row or a median of 0; the
 * repeatability target of a kernel timing is LAB_BOOT_SPREAD_TARGET). A
 * row without min and max ranges over its samples (row_range()).
 */
static int make_cell(const struct lab_bs_row *rows, size_t n, const char *unit, struct lab_bs_fig *c)
{
	double *vals = malloc((n ? n : 1) * sizeof(*vals));
	size_t nv = 0;

	if (!vals)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->unit = unit;
	c->boots = n;
	for (size_t i = 0; i < n; i++) {
		const struct jsonr_value *r = rows[i].row;

		if (jsonr_num(jsonr_get(r, "value"), &vals[nv]))
			nv++;
		c->n += num_or(r, "n", 0);
		c->timed = c->timed || jsonr_truthy(jsonr_get(r, "timed"));
	}
	if (nv) {
		c->has_value = true;
		c->lo = INFINITY;
		c->hi = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			double lo, hi;

			if (row_range(rows[i].row, &lo, &hi)) {
				c->lo = fmin(c->lo, lo);
				c->hi = fmax(c->hi, hi);
			}
		}
		c->vlo = c->lo;
		c->vhi = c->hi;
		if (nv >= 2) {
			double med;

			c->value = median(vals, nv);
			c->vlo = vals[0];
			c->vhi = vals[nv - 1];
			med = c->value;
			if (med != 0) {
				c->has_boot_spread = true;
				for (size_t i = 0; i < nv; i++)
					c->boot_spread = fmax(c->boot_spread,
							      fabs(vals[i] - med) / fabs(med));
			}
		} else {
			c->value = vals[0];
		}
	}
	free(vals);
	return 0;
}

int lab_bs_cell(const struct lab_bs_key *k, const char *unit, struct lab_bs_fig *c)
{
	int err = make_cell(k->rows, k->nr_rows, unit, c);

	c->key = k;
	return err;
}

static void make_ratio(struct lab_bs_fig *r, double value, double lo, double hi, bool paired, bool spread)
{
	memset(r, 0, sizeof(*r));
	r->ratio = true;
	r->has_value = true;
	r->value = value;
	r->lo = r->vlo = lo;
	r->hi = r->vhi = hi;
	r->paired = paired;
	r->spread = spread;
	r->unit = "ratio";
	r->timed = lo != hi;
	r->n = spread ? 2 : 1;
}

/* A memory reading is exact; a time needs samples to have a spread. */
static bool spread_known(const struct lab_bs_fig *c)
{
	return c->ratio ? c->spread : strcmp(c->unit, "ns") || c->n >= 2;
}

/* @a over @b with the widest range their verdict ranges allow: true, or
 * false when undefined; 1 when both are exactly 0, as two empty caches are. */
bool lab_bs_unpaired(const struct lab_bs_fig *a, const struct lab_bs_fig *b, struct lab_bs_fig *q)
{
	bool known = spread_known(a) && spread_known(b);
	double v, lo, hi;

	if (a->has_value && b->has_value && a->value == 0 && b->value == 0 && a->vlo == 0 &&
	    a->vhi == 0 && b->vlo == 0 && b->vhi == 0) {
		make_ratio(q, 1, 1, 1, false, known);
		return true;
	}
	if (!a->has_value || !b->has_value || b->value == 0 || b->vhi == 0 || !(b->vlo > 0))
		return false;
	v = a->value / b->value;
	lo = a->vlo / b->vhi;
	hi = a->vhi / b->vlo;
	make_ratio(q, v, fmin(lo, v), fmax(hi, v), false, known);
	return true;
}

/* The per-round ratios of two cells of one document each, the same one,
 * taken in the same rounds: true, else false. */
static bool paired(const struct lab_bs_fig *a, const struct lab_bs_fig *b, struct lab_bs_fig *q)
{
	const struct jsonr_value *sa, *sb;
	double lo = INFINITY, hi = -INFINITY;
	size_t n;

	if (!a->key || !b->key || a->key->nr_rows != 1 || b->key->nr_rows != 1 ||
	    a->key->rows[0].doc != b->key->rows[0].doc || !a->timed || !b->timed)
		return false;
	sa = jsonr_get(a->key->rows[0].row, "samples");
	sb = jsonr_get(b->key->rows[0].row, "samples");
	n = jsonr_len(sa);
	if (n != jsonr_len(sb) || n < 2 || !a->has_value || !b->has_value || b->value == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		double x, y;

		if (!jsonr_num(&sa->items[i], &x) || !jsonr_num(&sb->items[i], &y) || !(y > 0))
			return false;
		lo = fmin(lo, x / y);
		hi = fmax(hi, x / y);
	}
	make_ratio(q, a->value / b->value, lo, hi, true, true);
	return true;
}

/* "lower", "same", "higher", "across" (the range straddles a boundary) or
 * "no spread" (a time taken once). */
const char *lab_bs_classify(const struct lab_bs_fig *r)
{
	if (!r->spread)
		return "no spread";
	switch (lab_ratio_classify(r->lo, r->hi)) {
	case LAB_RATIO_LOWER:
		return "lower";
	case LAB_RATIO_HIGHER:
		return "higher";
	case LAB_RATIO_SAME:
		return "same";
	default:
		return "across";
	}
}

static bool no_direction(const char *c)
{
	return !strcmp(c, "across") || !strcmp(c, "no spread");
}

static const char *direction(const char *ck, const char *cm)
{
	if (!ck || !cm)
		return "not compared";
	if (no_direction(ck) || no_direction(cm))
		return "inconclusive";
	return strcmp(ck, cm) ? "disagree" : "agree";
}

/* A derived ratio of one design, per document, then merged: the median of
 * the per-document ratios, the widest of their ranges. */
static int derive(const struct lab_bs_rows *rb, const char *exp, const char *prefix,
		  const char *design, const struct lab_bs_derived *d, struct lab_bs_fig *out, bool *have)
{
	const struct lab_bs_key *num = NULL, *den = NULL;
	double *vals, lo = INFINITY, hi = -INFINITY;
	bool spread = true;
	size_t n = 0, pairs;

	*have = false;
	for (size_t i = 0; i < rb->nr_keys; i++) {
		const struct lab_bs_key *k = &rb->keys[i];

		if (strcmp(k->exp, exp) || !names(k->design, prefix, design))
			continue;
		if (!num && lab_metric_matches(k->metric, d->numerator))
			num = k;
		if (!den && lab_metric_matches(k->metric, d->denominator))
			den = k;
	}
	if (!num || !den)
		return 0;
	pairs = num->nr_rows < den->nr_rows ? num->nr_rows : den->nr_rows;
	vals = malloc((pairs ? pairs : 1) * sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (size_t i = 0; i < pairs; i++) {
		const char *ua = jsonr_str(jsonr_get(num->rows[i].row, "unit"));
		const char *ub = jsonr_str(jsonr_get(den->rows[i].row, "unit"));
		struct lab_bs_fig a, b, q;

		if (make_cell(&num->rows[i], 1, ua, &a) || make_cell(&den->rows[i], 1, ub, &b)) {
			free(vals);
			return -ENOMEM;
		}
		if (!lab_bs_unpaired(&a, &b, &q))
			continue;
		vals[n++] = q.value;
		lo = fmin(lo, q.lo);
		hi = fmax(hi, q.hi);
		spread = spread && q.spread;
	}
	if (n) {
		make_ratio(out, median(vals, n), lo, hi, false, spread);
		*have = true;
	}
	free(vals);
	return 0;
}

/* ---------------------------------------------------------------- join */

static int load_ratios(struct lab_beside *b, const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned lineno = 0;

	if (!f) {
		int err = -errno;

		snprintf(why, whylen, "%s: %s", path, strerror(-err));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char *cols[5], *save = NULL, *tok;
		size_t nc = 0;
		struct lab_bs_derived *p;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (strncmp(line, "ratio\t", 6))
			continue;
		for (tok = strtok_r(line, "\t", &save); tok && nc < 5; tok = strtok_r(NULL, "\t", &save))
			cols[nc++] = tok;
		if (nc != 5 || tok || strlen(cols[1]) >= sizeof(p->exp) ||
		    strlen(cols[2]) >= sizeof(p->numerator) ||
		    strlen(cols[3]) >= sizeof(p->denominator) || strlen(cols[4]) >= sizeof(p->name)) {
			snprintf(why, whylen, "%s:%u: a ratio row has 5 fields, each short", path,
				 lineno);
			fclose(f);
			return -EINVAL;
		}
		p = grow1(b->ratios, b->nr_ratios, sizeof(*b->ratios));
		if (!p) {
			fclose(f);
			return -ENOMEM;
		}
		b->ratios = p;
		p = &b->ratios[b->nr_ratios++];
		strcpy(p->exp, cols[1]);
		strcpy(p->numerator, cols[2]);
		strcpy(p->denominator, cols[3]);
		strcpy(p->name, cols[4]);
	}
	fclose(f);
	return 0;
}

/* The kernel designs of the guests' documents, in order, the base first;
 * each with its model label and notes from @in's "designs". */
int lab_bs_designs(struct lab_bs_design **designs, size_t *nr, const struct jsonr_value *in,
		   const struct jsonr_value *kdocs)
{
	const struct jsonr_value *map = jsonr_get(in, "designs");

	for (size_t i = 0; i < jsonr_len(kdocs); i++) {
		const struct jsonr_value *doc = jsonr_at(kdocs, i);
		const char *d = jsonr_str(jsonr_get(jsonr_get(doc, "run"), "design"));
		struct lab_bs_design *p;
		bool seen = false;

		if (!d || !*d)
			d = jsonr_str(jsonr_get(jsonr_at(jsonr_get(jsonr_at(jsonr_get(doc,
				"experiments"), 0), "results"), 0), "design"));
		if (!d)
			return -EINVAL;
		if (!strncmp(d, KERNEL_PREFIX, strlen(KERNEL_PREFIX)))
			d += strlen(KERNEL_PREFIX);
		for (size_t j = 0; j < *nr; j++)
			seen = seen || !strcmp((*designs)[j].name, d);
		if (seen)
			continue;
		p = grow1(*designs, *nr, sizeof(**designs));
		if (!p)
			return -ENOMEM;
		*designs = p;
		p = &(*designs)[(*nr)++];
		p->name = d;
		for (size_t j = 0; j < jsonr_len(map); j++) {
			const struct jsonr_value *m = jsonr_at(map, j);

			if (jsonr_str(jsonr_get(m, "name")) && !strcmp(jsonr_str(jsonr_get(m, "name")), d)) {
				p->model = jsonr_str(jsonr_get(m, "model"));
				p->notes = jsonr_get(m, "notes");
				break;
			}
		}
	}
	/* The base first, the rest in their order. */
	for (size_t j = 1; j < *nr; j++) {
		if (!strcmp((*designs)[j].name, LAB_BESIDE_BASE)) {
			struct lab_bs_design base = (*designs)[j];

			memmove(&(*designs)[1], &(*designs)[0], j * sizeof(**designs));
			(*designs)[0] = base;
			break;
		}
	}
	return 0;
}

/* The design (or designs, a tie) with the lowest median of one side. */
static int lowest(const struct lab_beside *b, const struct lab_bs_metric *row, bool model,
		  struct lab_bs_winner *w)
{
	double low = INFINITY;

	for (size_t i = 0; i < b->nr_designs; i++) {
		const struct lab_bs_cell *c = &row->cells[i];
		bool has = model ? c->has_m : c->has_k;
		const struct lab_bs_fig *f = model ? &c->m : &c->k;

		if (has && f->has_value && f->value < low)
			low = f->value;
	}
	w->names = malloc(b->nr_designs * sizeof(*w->names));
	if (!w->names)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_designs; i++) {
		const struct lab_bs_cell *c = &row->cells[i];
		bool has = model ? c->has_m : c->has_k;
		const struct lab_bs_fig *f = model ? &c->m : &c->k;

		if (has && f->has_value && f->value == low)
			w->names[w->n++] = b->designs[i].name;
	}
	return 0;
}

/* Each design against the base on both sides; the winners; the verdict. */
static int judge_row(const struct lab_beside *b, struct lab_bs_metric *row)
{
	const struct lab_bs_cell *base = &row->cells[0];
	bool disagree = false, unsure = false;
	int err;

	row->vs = calloc(b->nr_designs, sizeof(*row->vs));
	if (!row->vs)
		return -ENOMEM;
	for (size_t i = 1; i < b->nr_designs; i++) {
		const struct lab_bs_cell *c = &row->cells[i];
		struct lab_bs_versus *v = &row->vs[row->nr_vs++];

		v->design = b->designs[i].name;
		if (c->has_k && base->has_k)
			v->has_k = lab_bs_unpaired(&c->k, &base->k, &v->rk);
		if (c->has_m && base->has_m)
			v->has_m = (!row->derived && paired(&c->m, &base->m, &v->rm)) ||
				   lab_bs_unpaired(&c->m, &base->m, &v->rm);
		v->ck = v->has_k ? lab_bs_classify(&v->rk) : NULL;
		v->cm = v->has_m ? lab_bs_classify(&v->rm) : NULL;
		v->verdict = direction(v->ck, v->cm);
		v->size = v->has_k && v->has_m ?
			lab_size_name(lab_size_classify(v->rm.lo, v->rm.hi, v->rk.value)) : "-";
		disagree = disagree || !strcmp(v->verdict, "disagree");
		unsure = unsure || !strcmp(v->verdict, "inconclusive") ||
			 !strcmp(v->verdict, "not compared");
	}
	err = lowest(b, row, false, &row->wk);
	if (!err)
		err = lowest(b, row, true, &row->wm);
	row->verdict = !row->nr_vs ? "one design" : disagree ? "disagree" :
		       unsure ? "inconclusive" : "agree";
	return err;
}

static const struct lab_bs_derived *derived_named(const struct lab_beside *b, const char *name)
{
	for (size_t i = 0; i < b->nr_ratios; i++)
		if (!strcmp(b->ratios[i].name, name))
			return &b->ratios[i];
	return NULL;
}

static int join_metric(struct lab_beside *b, const char *exp, const char *metric,
		       const char *unit, struct lab_bs_metric *row)
{
	const struct lab_bs_derived *d = derived_named(b, metric);
	int err;

	row->metric = metric;
	row->derived = d != NULL;
	row->unit = d ? "ratio" : unit;
	row->cells = calloc(b->nr_designs, sizeof(*row->cells));
	if (!row->cells)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr_designs; i++) {
		struct lab_bs_cell *c = &row->cells[i];
		const char *label = b->designs[i].model;
		const struct lab_bs_key *k;

		c->model_design = label;
		if (d) {
			err = derive(&b->k, exp, KERNEL_PREFIX, b->designs[i].name, d, &c->k,
				     &c->has_k);
			if (!err && label)
				err = derive(&b->m, exp, "", label, d, &c->m, &c->has_m);
			if (err)
				return err;
			continue;
		}
		k = lab_bs_find(&b->k, exp, metric, KERNEL_PREFIX, b->designs[i].name);
		if (k) {
			if (make_cell(k->rows, k->nr_rows, unit, &c->k))
				return -ENOMEM;
			c->k.key = k;
			c->has_k = true;
		}
		k = label ? lab_bs_find(&b->m, exp, metric, "", label) : NULL;
		if (k) {
			if (make_cell(k->rows, k->nr_rows, unit, &c->m))
				return -ENOMEM;
			c->m.key = k;
			c->has_m = true;
		}
	}
	return judge_row(b, row);
}

static int join_experiment(struct lab_beside *b, const struct lab_bs_exp_order *e, struct lab_bs_exp *x)
{
	size_t n = e->nr_metrics;
	int err;

	for (size_t i = 0; i < b->nr_ratios; i++)
		n += !strcmp(b->ratios[i].exp, e->id);
	x->id = e->id;
	x->metrics = calloc(n ? n : 1, sizeof(*x->metrics));
	if (!x->metrics)
		return -ENOMEM;
	for (size_t i = 0; i < e->nr_metrics; i++) {
		err = join_metric(b, e->id, e->metrics[i], e->units[i], &x->metrics[x->nr_metrics++]);
		if (err)
			return err;
	}
	for (size_t i = 0; i < b->nr_ratios; i++) {
		if (strcmp(b->ratios[i].exp, e->id))
			continue;
		err = join_metric(b, e->id, b->ratios[i].name, "ratio",
				  &x->metrics[x->nr_metrics++]);
		if (err)
			return err;
	}
	return 0;
}

int lab_bs_read(const struct jsonr_value *in, struct lab_bs_rows *k, struct lab_bs_rows *m,
		struct lab_bs_design **designs, size_t *nr, char *why, size_t whylen)
{
	const struct jsonr_value *kdocs = jsonr_get(in, "kernel");
	const struct jsonr_value *mdocs = jsonr_get(in, "model");
	int err;

	if (!kdocs || kdocs->type != JSONR_ARRAY || !kdocs->len || !mdocs ||
	    mdocs->type != JSONR_ARRAY) {
		snprintf(why, whylen, "the document has no \"kernel\" array of guest documents, "
			 "or no \"model\" array");
		return -EINVAL;
	}
	err = lab_bs_index(k, kdocs);
	if (!err)
		err = lab_bs_index(m, mdocs);
	if (!err)
		err = lab_bs_designs(designs, nr, in, kdocs);
	if (err == -EINVAL)
		snprintf(why, whylen, "a document without its experiments' ids, results, or a "
			 "result's metric, design or unit");
	return err;
}

int lab_beside_join(const struct jsonr_value *in, const char *metrics_path,
		    struct lab_beside **out, char *why, size_t whylen)
{
	struct lab_beside *b = calloc(1, sizeof(*b));
	int err;

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->heading = jsonr_get(in, "heading");
	b->clock = jsonr_str(jsonr_get(in, "clock"));
	if (b->clock && !*b->clock)
		b->clock = NULL;
	err = load_ratios(b, metrics_path, why, whylen);
	if (err)
		goto fail;
	err = lab_bs_read(in, &b->k, &b->m, &b->designs, &b->nr_designs, why, whylen);
	if (err)
		goto fail;
	b->exps = calloc(b->k.nr_exps ? b->k.nr_exps : 1, sizeof(*b->exps));
	if (!b->exps) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < b->k.nr_exps; i++) {
		err = join_experiment(b, &b->k.exps[i], &b->exps[b->nr_exps++]);
		if (err)
			goto fail;
	}
	*out = b;
	return 0;
fail:
	if (err == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	lab_beside_free(b);
	return err;
}

void lab_beside_free(struct lab_beside *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr_exps; i++) {
		for (size_t j = 0; j < b->exps[i].nr_metrics; j++) {
			struct lab_bs_metric *r = &b->exps[i].metrics[j];

			free(r->cells);
			free(r->vs);
			free(r->wk.names);
			free(r->wm.names);
		}
		free(b->exps[i].metrics);
	}
	free(b->exps);
	lab_bs_rows_free(&b->k);
	lab_bs_rows_free(&b->m);
	free(b->designs);
	free(b->ratios);
	free(b);
}
