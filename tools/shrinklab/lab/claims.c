/* SPDX-License-Identifier: MIT */
/*
 * Seed claims judged for klab reproduce (claims.h): the rows come from a
 * caller, the rule is the verdicts' (verdict.c), so the kernel's claims
 * and the model's are judged by one implementation.
 *
 * The document, klab-claims/1:
 *   claims  [{experiment, design, base, metric, geometry, row, base_row}]:
 *           the seed's design and its table's base design (null: none),
 *           the geometry keys the metric depends on, and the two rows
 *           (null: not measured);
 *   ratios  [{row, base_row}]: a row over another, for the reader;
 *   sizes   [{lo, hi, of}]: the size verdict of a range against a ratio
 *           (the model's range of one claim against the kernel's ratio);
 *   classes [{lo, hi}]: the class of a range (lower, same, higher, across);
 *   cells   the figures klab's tables print (reproduce's, spread's), each
 *           as text:
 *           {value, unit[, min, max][, decimals]}: a figure (bytes and
 *           times as lab_fmt_value() prints them, a unit "ratio" at 3
 *           digits with its x, anything else at 4 digits or at @decimals
 *           places), with its range when min and max are given and differ;
 *           {ratio[, lo, hi]}: a ratio at 3 digits, with its range;
 *           {count}: a count, as short as it prints;
 *           {percent}: a fraction in % at one place;
 *   boots   [[row, ...]]: one design's rows of one metric, a row per boot
 *           in boot order, merged as the kernel lab merges them
 *           (lab_bs_cell(): the median of the boots' medians, the range of
 *           every sample, the boots' medians' range, the largest distance
 *           of a boot's median from their median and whether it is within
 *           the repeatability target).
 * A row is a shrinklab/2 result (design, unit, timed, value, min, max,
 * samples, geometry) with n, the samples it stands for per sample
 * (samples_per_boot) and whether its samples pair round for round with
 * the base's (paired).
 *
 * A claim at another geometry than the seed's is not compared, and keeps
 * the ratio it has there (the reader sees how far it is): that is the one
 * thing added to the rule here, after the verdict is given.
 *
 * Nothing here is shared: the document is read and judged by one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "scale.h"
#include "units.h"
#include "verdict.h"

/* A row of the document, and what it holds that a lab_result points to. */
struct claim_row {
	struct lab_result r;
	bool present;
	bool geometry_matches; /* at the seed figure's geometry */
};

static int bad(char *why, size_t len, size_t i, const char *what)
{
	snprintf(why, len, "claims[%zu]: %s", i, what);
	return -EINVAL;
}

/* The mask of the geometry key names in @keys: true, or false on one unknown. */
static bool geo_mask_of(const struct jsonr_value *keys, unsigned int *mask)
{
	*mask = 0;
	if (!keys || keys->type != JSONR_ARRAY)
		return false;
	for (size_t i = 0; i < jsonr_len(keys); i++) {
		const char *name = jsonr_str(jsonr_at(keys, i));
		int k;

		for (k = 0; k < LAB_NR_GEO; k++)
			if (name && !strcmp(name, lab_geo_name((enum lab_geo_key)k)))
				break;
		if (k == LAB_NR_GEO)
			return false;
		*mask |= LAB_G(k);
	}
	return true;
}

static double num_or(const struct jsonr_value *obj, const char *key, double dflt)
{
	double v;

	return jsonr_num(jsonr_get(obj, key), &v) ? v : dflt;
}

static void scale_of(const struct jsonr_value *geo, struct lab_scale *s)
{
	memset(s, 0, sizeof(*s));
	s->mounts = (unsigned long)num_or(geo, "mounts", 0);
	s->cgroups = (unsigned long)num_or(geo, "cgroups", 0);
	s->nodes = (int)num_or(geo, "nodes", 0);
	s->cpus = (unsigned int)num_or(geo, "cpus", 0);
	s->units = (long)num_or(geo, "units", -1);
	s->shrinker_nr_max = -1;
}

/*
 * Row @v into @cr (@label when absent: the verdict's words for a row not
 * measured), its seed figure @f at the metric's keys @mask: 0, -EINVAL
 * (a field of the wrong type) or -ENOMEM.
 */
static int read_row(const struct jsonr_value *v, const char *label, const char *metric,
		    unsigned int mask, const struct lab_seed_figure *f, struct claim_row *cr)
{
	struct lab_result *r = &cr->r;
	const struct jsonr_value *samples = jsonr_get(v, "samples");
	const char *unit = jsonr_str(jsonr_get(v, "unit"));
	const char *design = jsonr_str(jsonr_get(v, "design"));

	memset(cr, 0, sizeof(*cr));
	r->metric = metric;
	r->geo_mask = mask;
	r->seed = f;
	if (!v || v->type == JSONR_NULL) {
		snprintf(r->design, sizeof(r->design), "%s", label);
		r->unavailable = true;
		r->unit = f ? f->unit : "";
		snprintf(r->seed_why, sizeof(r->seed_why), "not measured");
		return 0;
	}
	if (v->type != JSONR_OBJECT || !unit || !jsonr_num(jsonr_get(v, "value"), &r->value) ||
	    (samples && samples->type != JSONR_ARRAY && samples->type != JSONR_NULL))
		return -EINVAL;
	cr->present = true;
	snprintf(r->design, sizeof(r->design), "%s", design ? design : label);
	r->unit = unit;
	r->timed = jsonr_truthy(jsonr_get(v, "timed"));
	r->min = num_or(v, "min", r->value);
	r->max = num_or(v, "max", r->value);
	r->n = (size_t)num_or(v, "n", jsonr_len(samples));
	r->unpaired = !jsonr_truthy(jsonr_get(v, "paired"));
	r->samples_per_round = (size_t)num_or(v, "samples_per_boot", 1);
	if (jsonr_len(samples)) {
		r->raw = calloc(jsonr_len(samples), sizeof(*r->raw));
		if (!r->raw)
			return -ENOMEM;
		for (size_t i = 0; i < jsonr_len(samples); i++)
			if (!jsonr_num(jsonr_at(samples, i), &r->raw[i]))
				return -EINVAL;
	}
	if (r->timed && r->n > jsonr_len(samples))
		r->n = jsonr_len(samples); /* the rounds are the samples there are */
	scale_of(jsonr_get(v, "geometry"), &r->scale);
	if (f)
		cr->geometry_matches = lab_seed_geometry_matches(&r->scale, mask, &f->geo,
								 r->seed_why,
								 sizeof(r->seed_why));
	r->seed_comparable = cr->geometry_matches;
	return 0;
}

/* The seed's own ratio of @f to @bf, as the reader is shown it. */
static void seed_ratio(const struct lab_seed_figure *f, const struct lab_seed_figure *bf,
		       struct lab_claim *c)
{
	char rel;

	if (f->same_as_base || !bf || bf->same_as_base || bf->value == 0)
		return;
	rel = lab_seed_relation(f, bf);
	c->has_seed_ratio = true;
	c->seed_ratio = f->value / bf->value;
	c->seed_relation = rel ? rel : '?';
}

/* A claim not compared for its geometry keeps the ratio it has there. */
static void keep_ratio(const struct claim_row *r, const struct claim_row *b,
		       struct lab_verdict *v)
{
	struct lab_ratio q;

	if (v->kind != LAB_V_NOT_COMPARED || !r->present || !b->present ||
	    (r->geometry_matches && b->geometry_matches) || !lab_ratio_of(&r->r, &b->r, &q))
		return;
	lab_verdict_set_ratio(v, &q);
}

static int judge_claim(const struct jsonr_value *c, size_t i, const struct lab_seeds *seeds,
		       struct lab_claim *out, char *why, size_t len)
{
	const char *exp = jsonr_str(jsonr_get(c, "experiment"));
	const char *design = jsonr_str(jsonr_get(c, "design"));
	const char *base = jsonr_str(jsonr_get(c, "base"));
	const char *metric = jsonr_str(jsonr_get(c, "metric"));
	const struct lab_seed_figure *f, *bf;
	struct claim_row r, b;
	unsigned int mask;
	char what[LAB_NOTE_LEN];
	int err;

	if (!exp || !design || !metric)
		return bad(why, len, i, "experiment, design and metric are strings");
	if (!geo_mask_of(jsonr_get(c, "geometry"), &mask))
		return bad(why, len, i, "geometry is a list of mounts, units, cgroups, nodes, cpus");
	f = lab_seeds_find(seeds, exp, design, metric);
	if (!f) {
		snprintf(what, sizeof(what), "the seeds give no figure of %s %s %s", exp, design,
			 metric);
		return bad(why, len, i, what);
	}
	bf = base ? lab_seeds_find(seeds, exp, base, metric) : NULL;
	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	snprintf(out->metric, sizeof(out->metric), "%s", metric);
	err = read_row(jsonr_get(c, "row"), "the design", out->metric, mask, f, &r);
	if (!err)
		err = read_row(jsonr_get(c, "base_row"), "the base design", out->metric, mask, bf,
			       &b);
	if (!err) {
		/* The base is judged at the claim's figure's geometry, as the row. */
		b.geometry_matches = !b.present ||
			lab_seed_geometry_matches(&b.r.scale, mask, &f->geo, what, sizeof(what));
		lab_verdict_judge(&r.r, b.present ? &b.r : NULL, &out->verdict);
		out->verdict.metric = out->metric;
		keep_ratio(&r, &b, &out->verdict);
		seed_ratio(f, bf, out);
	}
	free(r.r.raw);
	free(b.r.raw);
	if (err == -EINVAL)
		return bad(why, len, i, "a row is not a result (unit, value, samples)");
	if (err == -ENOMEM)
		snprintf(why, len, "out of memory");
	return err;
}

static int judge_ratio(const struct jsonr_value *c, size_t i, struct lab_claim_ratio *out,
		       char *why, size_t len)
{
	struct claim_row r, b;
	int err;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	err = read_row(jsonr_get(c, "row"), "the design", "", 0, NULL, &r);
	if (!err)
		err = read_row(jsonr_get(c, "base_row"), "the base design", "", 0, NULL, &b);
	if (!err && r.present && b.present && lab_ratio_of(&r.r, &b.r, &out->q)) {
		out->has_ratio = true;
		out->cls = lab_ratio_classify(out->q.lo, out->q.hi);
	}
	free(r.r.raw);
	free(b.r.raw);
	if (err == -EINVAL) {
		snprintf(why, len, "ratios[%zu]: a row is not a result (unit, value, samples)", i);
		return err;
	}
	if (err == -ENOMEM)
		snprintf(why, len, "out of memory");
	return err;
}

static int judge_size(const struct jsonr_value *c, size_t i, enum lab_size_kind *out,
		      char *why, size_t len)
{
	double lo, hi, of;

	if (!jsonr_num(jsonr_get(c, "lo"), &lo) || !jsonr_num(jsonr_get(c, "hi"), &hi) ||
	    !jsonr_num(jsonr_get(c, "of"), &of)) {
		snprintf(why, len, "sizes[%zu]: lo, hi and of are numbers", i);
		return -EINVAL;
	}
	*out = lab_size_classify(lo, hi, of);
	return 0;
}

static int judge_class(const struct jsonr_value *c, size_t i, enum lab_ratio_class *out,
		       char *why, size_t len)
{
	double lo, hi;

	if (!jsonr_num(jsonr_get(c, "lo"), &lo) || !jsonr_num(jsonr_get(c, "hi"), &hi)) {
		snprintf(why, len, "classes[%zu]: lo and hi are numbers", i);
		return -EINVAL;
	}
	*out = lab_ratio_classify(lo, hi);
	return 0;
}

/* The most places a figure is printed with. */
#define CELL_MAX_DECIMALS 9

/*
 * @v in @unit: bytes and times by the lab's rule, a ratio with its x,
 * anything else at 4 digits, or at @decimals places when not negative.
 */
static void fmt_figure(char *buf, size_t len, double v, const char *unit, int decimals)
{
	if (!strcmp(unit, "B") || !strcmp(unit, "ns"))
		lab_fmt_value(buf, len, v, unit);
	else if (!strcmp(unit, "ratio"))
		snprintf(buf, len, "%.3gx", v);
	else if (decimals >= 0)
		snprintf(buf, len, "%.*f", decimals, v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void cell_figure(const struct jsonr_value *c, double v, const char *unit, int decimals,
			char *out, size_t len)
{
	char a[40], lo[40], hi[40];
	double min, max;

	fmt_figure(a, sizeof(a), v, unit, decimals);
	if (!jsonr_num(jsonr_get(c, "min"), &min) || !jsonr_num(jsonr_get(c, "max"), &max) ||
	    min == max) {
		snprintf(out, len, "%s", a);
		return;
	}
	fmt_figure(lo, sizeof(lo), min, unit, decimals);
	fmt_figure(hi, sizeof(hi), max, unit, decimals);
	snprintf(out, len, "%s [%s..%s]", a, lo, hi);
}

static int print_cell(const struct jsonr_value *c, size_t i, struct lab_claim_cell *out,
		      char *why, size_t len)
{
	const char *unit = jsonr_str(jsonr_get(c, "unit"));
	const struct jsonr_value *places = jsonr_get(c, "decimals");
	char *t = out->text;
	double v, lo, hi, d = -1;

	if (places && (!jsonr_num(places, &d) || d < 0 || d > CELL_MAX_DECIMALS || d != (int)d)) {
		snprintf(why, len, "cells[%zu]: decimals is a whole number from 0 to %d", i,
			 CELL_MAX_DECIMALS);
		return -EINVAL;
	}
	if (jsonr_num(jsonr_get(c, "value"), &v) && unit) {
		cell_figure(c, v, unit, (int)d, t, sizeof(out->text));
	} else if (jsonr_num(jsonr_get(c, "percent"), &v)) {
		snprintf(t, sizeof(out->text), "%.1f%%", 100 * v);
	} else if (jsonr_num(jsonr_get(c, "ratio"), &v)) {
		if (jsonr_num(jsonr_get(c, "lo"), &lo) && jsonr_num(jsonr_get(c, "hi"), &hi))
			snprintf(t, sizeof(out->text), "%.3g [%.3g..%.3g]", v, lo, hi);
		else
			snprintf(t, sizeof(out->text), "%.3g", v);
	} else if (jsonr_num(jsonr_get(c, "count"), &v)) {
		snprintf(t, sizeof(out->text), "%g", v);
	} else {
		snprintf(why, len, "cells[%zu]: a cell is {value, unit}, {ratio}, {count} or {percent}", i);
		return -EINVAL;
	}
	return 0;
}

/*
 * The rows of @c (one design's metric, a row per boot) merged into @out:
 * 0, or -EINVAL when @c is not a list of rows that each have a figure.
 */
static int merge_boots(const struct jsonr_value *c, size_t i, struct lab_claim_boots *out,
		       char *why, size_t len)
{
	struct lab_bs_row *rows;
	struct lab_bs_key key = { 0 };
	size_t n = jsonr_len(c);
	double v;
	int err;

	if (!c || c->type != JSONR_ARRAY || !n) {
		snprintf(why, len, "boots[%zu]: a list of a row per boot, one or more", i);
		return -EINVAL;
	}
	for (size_t j = 0; j < n; j++) {
		const struct jsonr_value *r = jsonr_at(c, j);

		if (!r || r->type != JSONR_OBJECT || !jsonr_num(jsonr_get(r, "value"), &v)) {
			snprintf(why, len, "boots[%zu][%zu]: a row with a numeric value", i, j);
			return -EINVAL;
		}
	}
	rows = calloc(n, sizeof(*rows));
	if (!rows) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (size_t j = 0; j < n; j++)
		rows[j].row = jsonr_at(c, j);
	key.rows = rows;
	key.nr_rows = n;
	err = lab_bs_cell(&key, jsonr_str(jsonr_get(rows[0].row, "unit")), &out->fig);
	out->fig.key = NULL;
	out->fig.unit = NULL; /* it points into the document */
	out->within_target = out->fig.has_boot_spread &&
			     out->fig.boot_spread <= LAB_BOOT_SPREAD_TARGET;
	free(rows);
	if (err)
		snprintf(why, len, "out of memory");
	return err;
}

static const struct jsonr_value *list_of(const struct jsonr_value *in, const char *key)
{
	const struct jsonr_value *v = jsonr_get(in, key);

	return v && v->type == JSONR_ARRAY ? v : NULL;
}

int lab_claims_judge(const struct jsonr_value *in, const struct lab_seeds *seeds,
		     struct lab_claims *out, char *why, size_t len)
{
	const struct jsonr_value *claims = list_of(in, "claims"), *ratios = list_of(in, "ratios");
	const struct jsonr_value *sizes = list_of(in, "sizes"), *classes = list_of(in, "classes");
	const struct jsonr_value *cells = list_of(in, "cells"), *boots = list_of(in, "boots");
	const char *schema = jsonr_str(jsonr_get(in, "schema"));
	struct lab_claims c;
	int err = 0;

	if (!schema || strcmp(schema, "klab-claims/1")) {
		snprintf(why, len, "not a klab-claims/1 document");
		return -EINVAL;
	}
	for (const char *const *key = (const char *const[]){ "claims", "ratios", "sizes", "classes",
							       "cells", "boots", NULL };
	     *key; key++) {
		if (jsonr_get(in, *key) && !list_of(in, *key)) {
			snprintf(why, len, "%s is not a list", *key);
			return -EINVAL;
		}
	}
	memset(&c, 0, sizeof(c));
	c.claims = calloc(jsonr_len(claims) + 1, sizeof(*c.claims));
	c.ratios = calloc(jsonr_len(ratios) + 1, sizeof(*c.ratios));
	c.sizes = calloc(jsonr_len(sizes) + 1, sizeof(*c.sizes));
	c.classes = calloc(jsonr_len(classes) + 1, sizeof(*c.classes));
	c.cells = calloc(jsonr_len(cells) + 1, sizeof(*c.cells));
	c.boots = calloc(jsonr_len(boots) + 1, sizeof(*c.boots));
	if (!c.claims || !c.ratios || !c.sizes || !c.classes || !c.cells || !c.boots) {
		snprintf(why, len, "out of memory");
		err = -ENOMEM;
	}
	for (size_t i = 0; !err && i < jsonr_len(claims); i++, c.nr_claims++)
		err = judge_claim(jsonr_at(claims, i), i, seeds, &c.claims[i], why, len);
	for (size_t i = 0; !err && i < jsonr_len(ratios); i++, c.nr_ratios++)
		err = judge_ratio(jsonr_at(ratios, i), i, &c.ratios[i], why, len);
	for (size_t i = 0; !err && i < jsonr_len(sizes); i++, c.nr_sizes++)
		err = judge_size(jsonr_at(sizes, i), i, &c.sizes[i], why, len);
	for (size_t i = 0; !err && i < jsonr_len(classes); i++, c.nr_classes++)
		err = judge_class(jsonr_at(classes, i), i, &c.classes[i], why, len);
	for (size_t i = 0; !err && i < jsonr_len(cells); i++, c.nr_cells++)
		err = print_cell(jsonr_at(cells, i), i, &c.cells[i], why, len);
	for (size_t i = 0; !err && i < jsonr_len(boots); i++, c.nr_boots++)
		err = merge_boots(jsonr_at(boots, i), i, &c.boots[i], why, len);
	if (err) {
		lab_claims_free(&c);
		return err;
	}
	*out = c;
	return 0;
}

void lab_claims_free(struct lab_claims *c)
{
	free(c->claims);
	free(c->ratios);
	free(c->sizes);
	free(c->classes);
	free(c->cells);
	free(c->boots);
	memset(c, 0, sizeof(*c));
}
