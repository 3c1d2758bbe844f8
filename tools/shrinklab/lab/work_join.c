/* SPDX-License-Identifier: MIT */
/*
 * klab work's join (work_join.h): the workloads with objects under real
 * reclaim (kernel/guest/kwork), each run on every design with the same
 * parameters, boots interleaved, and the model's run of the containers
 * workload at the guest's geometry.
 *
 * Per experiment, rows are its metrics in the guests' order, columns the
 * kernel designs, mainline first. A cell is the kernel's figure (the median
 * of the boots' medians, the range of every sample: lab_bs_cell()); a
 * design's ratio to mainline takes the widest range the two cells'
 * verdict ranges allow (lab_bs_unpaired()) and its class by the verdicts'
 * rule (lab_bs_classify()); "beyond the noise" when, over two boots or
 * more each, every boot of the design is above (below) every boot of
 * mainline: the rule "no regression of stress-ng --ramfs or registration
 * beyond the noise of mainline's own boots" reads it. The best median of a
 * metric with a direction (data/kernel_workloads.tsv's "better": lower or
 * higher) is the best of the row, ties all best. The model's cell is the
 * model design's (each kernel design's model label), with model/kernel;
 * where the model leaves part or all of a metric out (the data file's
 * "leaves_out" and "why" rows) the row says what and why.
 *
 * Memory: the join points into the input document and owns its arrays.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work_join.h"

#define KERNEL_PREFIX "kernel:"

/* Copy @src into @dst of @len bytes: 0, or -EINVAL when it does not fit. */
static int copy_field(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -EINVAL;
	strcpy(dst, src);
	return 0;
}

/* One row of the data file, split at tabs into @cols (at most @max). */
static size_t split(char *line, char **cols, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (n < max) {
		cols[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return p ? max + 1 : n;
}

static int add_def(struct lab_work *w, char **c, size_t n)
{
	struct lab_work_def *d;

	if (n != 7)
		return -EINVAL;
	d = realloc(w->defs, (w->nr_defs + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	w->defs = d;
	d = &d[w->nr_defs++];
	if (copy_field(d->exp, sizeof(d->exp), c[1]) || copy_field(d->name, sizeof(d->name), c[2]) ||
	    copy_field(d->better, sizeof(d->better), c[5]))
		return -EINVAL;
	return 0;
}

static int add_left(struct lab_work *w, char **c, size_t n)
{
	struct lab_work_left *l;

	if (n != 5)
		return -EINVAL;
	l = realloc(w->lefts, (w->nr_lefts + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	w->lefts = l;
	l = &l[w->nr_lefts++];
	memset(l, 0, sizeof(*l));
	if (copy_field(l->exp, sizeof(l->exp), c[1]) || copy_field(l->metric, sizeof(l->metric), c[2]) ||
	    copy_field(l->kind, sizeof(l->kind), c[3]) || copy_field(l->what, sizeof(l->what), c[4]))
		return -EINVAL;
	return 0;
}

static int add_why(struct lab_work *w, char **c, size_t n)
{
	struct lab_work_why *y;

	if (n != 3)
		return -EINVAL;
	y = realloc(w->whys, (w->nr_whys + 1) * sizeof(*y));
	if (!y)
		return -ENOMEM;
	w->whys = y;
	y = &y[w->nr_whys++];
	if (copy_field(y->what, sizeof(y->what), c[1]) || copy_field(y->why, sizeof(y->why), c[2]))
		return -EINVAL;
	return 0;
}

/* Each leaves_out row's why, by its what. */
static int link_whys(struct lab_work *w)
{
	for (size_t i = 0; i < w->nr_lefts; i++) {
		for (size_t j = 0; j < w->nr_whys && !w->lefts[i].why; j++)
			if (!strcmp(w->lefts[i].what, w->whys[j].what))
				w->lefts[i].why = w->whys[j].why;
		if (!w->lefts[i].why)
			return -EINVAL;
	}
	return 0;
}

static int load_data(struct lab_work *w, const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");
	char line[2048], *c[8];
	unsigned lineno = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
		return err;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		size_t n;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		n = split(line, c, 7);
		err = !strcmp(c[0], "metric") ? add_def(w, c, n) :
		      !strcmp(c[0], "leaves_out") ? add_left(w, c, n) :
		      !strcmp(c[0], "why") ? add_why(w, c, n) : -EINVAL;
	}
	fclose(f);
	if (err == -EINVAL)
		snprintf(why, whylen, "%s:%u: not a metric, leaves_out or why row", path, lineno);
	if (err)
		return err;
	if (link_whys(w)) {
		snprintf(why, whylen, "%s: a leaves_out row names what no why row says", path);
		return -EINVAL;
	}
	return 0;
}

/* Is @s "", "_no_mounts" or "_m" and digits (a {level} suffix)? */
static bool is_level(const char *s, size_t len)
{
	if (!len || (len == 10 && !strncmp(s, "_no_mounts", 10)))
		return true;
	if (len < 3 || strncmp(s, "_m", 2))
		return false;
	for (size_t i = 2; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Does def name @def (with at most one {level}) name @metric? */
static bool def_names(const char *def, const char *metric)
{
	const char *lv = strstr(def, "{level}");
	size_t pre, post, len = strlen(metric);

	if (!lv)
		return !strcmp(def, metric);
	pre = (size_t)(lv - def);
	post = strlen(lv + 7);
	return len >= pre + post && !strncmp(metric, def, pre) &&
	       !strcmp(metric + len - post, lv + 7) && is_level(metric + pre, len - pre - post);
}

static const char *better_of(const struct lab_work *w, const char *exp, const char *metric)
{
	for (size_t i = 0; i < w->nr_defs; i++)
		if (!strcmp(w->defs[i].exp, exp) && def_names(w->defs[i].name, metric))
			return w->defs[i].better;
	return "-";
}

/* What the model leaves out of @metric of @exp (its level suffix aside). */
static const struct lab_work_left *left_of(const struct lab_work *w, const char *exp,
					   const char *metric)
{
	size_t len = strlen(metric), cut;

	for (cut = len; cut > 0 && metric[cut - 1] >= '0' && metric[cut - 1] <= '9'; cut--)
		;
	if (cut < len && cut >= 2 && !strncmp(metric + cut - 2, "_m", 2))
		len = cut - 2;
	else if (len >= 10 && !strcmp(metric + len - 10, "_no_mounts"))
		len -= 10;
	for (size_t i = 0; i < w->nr_lefts; i++) {
		const struct lab_work_left *l = &w->lefts[i];
		size_t n = strlen(l->metric);
		bool prefix = n && l->metric[n - 1] == '*';

		if (strcmp(l->exp, exp))
			continue;
		if (prefix ? len >= n - 1 && !strncmp(metric, l->metric, n - 1) :
			     len == n && !strncmp(metric, l->metric, n))
			return l;
	}
	return NULL;
}

static bool has_exp(const struct lab_bs_rows *rb, const char *exp)
{
	for (size_t i = 0; i < rb->nr_exps; i++)
		if (!strcmp(rb->exps[i].id, exp))
			return true;
	return false;
}

/* "above" or "below" when every boot of the design is above (below) every
 * boot of mainline, over two boots or more each; else NULL. */
static const char *beyond_noise(const struct lab_bs_fig *r, const struct lab_bs_fig *cell,
				const struct lab_bs_fig *base)
{
	if (cell->boots < 2 || base->boots < 2 || !r->spread)
		return NULL;
	return r->lo > 1 ? "above" : r->hi < 1 ? "below" : NULL;
}

static int best_of(const struct lab_work *w, struct lab_work_row *row)
{
	bool lower = !strcmp(row->better, "lower");
	bool have = false;
	double best = 0;

	if (!lower && strcmp(row->better, "higher"))
		return 0;
	for (size_t i = 0; i < w->nr_designs; i++) {
		const struct lab_work_cell *c = &row->cells[i];

		if (c->has_k && c->k.has_value &&
		    (!have || (lower ? c->k.value < best : c->k.value > best))) {
			best = c->k.value;
			have = true;
		}
	}
	if (!have)
		return 0;
	row->best = malloc(w->nr_designs * sizeof(*row->best));
	if (!row->best)
		return -ENOMEM;
	row->has_best = true;
	for (size_t i = 0; i < w->nr_designs; i++)
		if (row->cells[i].has_k && row->cells[i].k.has_value && row->cells[i].k.value == best)
			row->best[row->nr_best++] = w->designs[i].name;
	return 0;
}

static int join_row(struct lab_work *w, const char *exp, const char *metric, const char *unit,
		    bool modelled, struct lab_work_row *row)
{
	const struct lab_work_cell *base;

	row->metric = metric;
	row->unit = unit;
	row->better = better_of(w, exp, metric);
	row->cells = calloc(w->nr_designs, sizeof(*row->cells));
	if (!row->cells)
		return -ENOMEM;
	for (size_t i = 0; i < w->nr_designs; i++) {
		struct lab_work_cell *c = &row->cells[i];
		const char *label = w->designs[i].model;
		const struct lab_bs_key *k;

		k = lab_bs_find(&w->k, exp, metric, KERNEL_PREFIX, w->designs[i].name);
		if (k && lab_bs_cell(k, unit, &c->k))
			return -ENOMEM;
		c->has_k = k != NULL;
		k = label ? lab_bs_find(&w->m, exp, metric, "", label) : NULL;
		if (k && lab_bs_cell(k, unit, &c->m))
			return -ENOMEM;
		c->has_m = k != NULL;
		if (c->has_m && c->has_k)
			c->has_mr = lab_bs_unpaired(&c->m, &c->k, &c->mr);
	}
	base = &row->cells[0];
	for (size_t i = 1; i < w->nr_designs && base->has_k &&
	     !strcmp(w->designs[0].name, LAB_BESIDE_BASE); i++) {
		struct lab_work_cell *c = &row->cells[i];

		if (!c->has_k || !lab_bs_unpaired(&c->k, &base->k, &c->r))
			continue;
		c->has_r = true;
		c->cls = lab_bs_classify(&c->r);
		c->beyond = beyond_noise(&c->r, &c->k, &base->k);
	}
	row->left = modelled ? left_of(w, exp, metric) : NULL;
	return best_of(w, row);
}

static int join_exp(struct lab_work *w, const struct lab_bs_exp_order *e, struct lab_work_exp *x)
{
	x->id = e->id;
	x->model = has_exp(&w->m, e->id);
	x->rows = calloc(e->nr_metrics ? e->nr_metrics : 1, sizeof(*x->rows));
	if (!x->rows)
		return -ENOMEM;
	for (size_t i = 0; i < e->nr_metrics; i++) {
		int err = join_row(w, e->id, e->metrics[i], e->units[i], x->model,
				   &x->rows[x->nr_rows++]);

		if (err)
			return err;
	}
	return 0;
}

int lab_work_join(const struct jsonr_value *in, const char *path, struct lab_work **out,
		  char *why, size_t whylen)
{
	struct lab_work *w = calloc(1, sizeof(*w));
	int err;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->heading = jsonr_get(in, "heading");
	w->clock = jsonr_str(jsonr_get(in, "clock"));
	err = load_data(w, path, why, whylen);
	if (err)
		goto fail;
	err = lab_bs_read(in, &w->k, &w->m, &w->designs, &w->nr_designs, why, whylen);
	if (err)
		goto fail;
	w->exps = calloc(w->k.nr_exps ? w->k.nr_exps : 1, sizeof(*w->exps));
	err = w->exps ? 0 : -ENOMEM;
	for (size_t i = 0; !err && i < w->k.nr_exps; i++)
		err = join_exp(w, &w->k.exps[i], &w->exps[w->nr_exps++]);
	if (err)
		goto fail;
	*out = w;
	return 0;
fail:
	if (err == -ENOMEM)
		snprintf(why, whylen, "out of memory");
	lab_work_free(w);
	return err;
}

void lab_work_free(struct lab_work *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_exps; i++) {
		for (size_t j = 0; j < w->exps[i].nr_rows; j++) {
			free(w->exps[i].rows[j].cells);
			free(w->exps[i].rows[j].best);
		}
		free(w->exps[i].rows);
	}
	free(w->exps);
	lab_bs_rows_free(&w->k);
	lab_bs_rows_free(&w->m);
	free(w->designs);
	free(w->defs);
	free(w->lefts);
	free(w->whys);
	free(w);
}
