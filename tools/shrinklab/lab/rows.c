/* SPDX-License-Identifier: MIT */
/*
 * The rows of one experiment (rows.h): a row per design and metric, made
 * from one reading or from clock samples (median, min, max and the samples
 * in round order), sorted by design (the run's list) then metric (the
 * experiment's), and the base design's row every ratio is taken against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "design_label.h"
#include "rows.h"
#include "stats.h"

const struct lab_metric *lab_metric_find(const struct lab_experiment *exp, const char *name)
{
	for (size_t i = 0; i < exp->nr_metrics; i++)
		if (!strcmp(exp->metrics[i].name, name))
			return &exp->metrics[i];
	return NULL;
}

struct lab_result *lab_run_add(struct lab_run *run, const char *design, const char *metric)
{
	const struct lab_metric *m = lab_metric_find(run->exp, metric);
	struct lab_result *r;

	if (!m) {
		fprintf(stderr, "shrinklab: BUG: metric %s not in %s's table\n", metric,
			run->exp->id);
		abort();
	}
	if (run->nr_rows == run->cap_rows) {
		size_t cap = run->cap_rows ? run->cap_rows * 2 : 32;
		struct lab_result *nv = realloc(run->rows, cap * sizeof(*nv));

		if (!nv)
			abort();
		run->rows = nv;
		run->cap_rows = cap;
	}
	r = &run->rows[run->nr_rows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->design, sizeof(r->design), "%s", design);
	r->metric = m->name;
	r->unit = m->unit;
	r->geo_mask = m->geo;
	return r;
}

void lab_run_free(struct lab_run *run)
{
	for (size_t i = 0; i < run->nr_rows; i++)
		free(run->rows[i].raw);
	free(run->rows);
	free(run->verdicts);
	run->rows = NULL;
	run->verdicts = NULL;
	run->nr_rows = run->cap_rows = run->nr_verdicts = 0;
}

void lab_run_add_value(struct lab_run *run, const struct lab_bench *b, const char *metric,
		       double value, const struct lab_scale *geo)
{
	struct lab_result *r = lab_run_add(run, b->label, metric);

	r->value = r->min = r->max = value;
	r->n = 1;
	r->raw = malloc(sizeof(*r->raw));
	if (!r->raw)
		abort();
	r->raw[0] = value;
	r->scale = *geo;
}

void lab_run_add_samples(struct lab_run *run, const struct lab_bench *b, const char *metric,
			 const double *v, size_t n, const struct lab_scale *geo)
{
	struct lab_result *r = lab_run_add(run, b->label, metric);
	struct lab_stats st;

	lab_stats_of(v, n, &st);
	r->timed = true;
	r->value = st.median;
	r->min = st.min;
	r->max = st.max;
	r->n = st.n;
	r->raw = malloc(n * sizeof(*r->raw));
	if (!r->raw)
		abort();
	memcpy(r->raw, v, n * sizeof(*v));
	r->clock = LAB_CLOCK_WALL;
	r->resolution = lab_clock_resolution_ns(LAB_CLOCK_WALL);
	r->scale = *geo;
}

void lab_run_set_resolution(struct lab_run *run, const char *design, const char *metric,
			    enum lab_clock clock, double per)
{
	for (size_t i = 0; i < run->nr_rows; i++) {
		struct lab_result *r = &run->rows[i];

		if (r->timed && !strcmp(r->design, design) && !strcmp(r->metric, metric)) {
			r->clock = clock;
			r->resolution = lab_clock_resolution_ns(clock) / (per >= 1 ? per : 1);
		}
	}
}

bool lab_result_under_resolution(const struct lab_result *r)
{
	return r->timed && !r->unavailable && r->value < r->resolution;
}

static size_t design_index(const struct lab_run *run, const char *label)
{
	char l[LAB_LABEL_LEN];

	for (size_t i = 0; i < run->nr_designs; i++) {
		lab_design_label(&run->designs[i], l, sizeof(l));
		if (!strcmp(l, label))
			return i;
	}
	return run->nr_designs;
}

static size_t metric_index(const struct lab_run *run, const char *metric)
{
	for (size_t i = 0; i < run->exp->nr_metrics; i++)
		if (!strcmp(run->exp->metrics[i].name, metric))
			return i;
	return run->exp->nr_metrics;
}

void lab_run_sort(struct lab_run *run)
{
	/* Insertion sort: a few dozen rows, and it keeps equal keys in order. */
	for (size_t i = 1; i < run->nr_rows; i++) {
		struct lab_result r = run->rows[i];
		size_t kd = design_index(run, r.design), km = metric_index(run, r.metric);
		size_t j = i;

		while (j > 0) {
			const struct lab_result *p = &run->rows[j - 1];
			size_t pd = design_index(run, p->design), pm = metric_index(run, p->metric);

			if (pd < kd || (pd == kd && pm <= km))
				break;
			run->rows[j] = run->rows[j - 1];
			j--;
		}
		run->rows[j] = r;
	}
}

const struct lab_result *lab_run_base_row(const struct lab_run *run, const char *metric)
{
	char label[LAB_LABEL_LEN];

	lab_design_label(&run->designs[0], label, sizeof(label));
	for (size_t i = 0; i < run->nr_rows; i++)
		if (!strcmp(run->rows[i].design, label) && !strcmp(run->rows[i].metric, metric))
			return &run->rows[i];
	return NULL;
}
