/* SPDX-License-Identifier: MIT */
/*
 * shrinklab seed figures: the numbers the seed threads published, read at
 * run time from one tab-separated file (data/seed_figures.tsv in the source
 * tree; --data overrides). Columns: experiment, design, metric, value in
 * base units (or "same" for "same as the base design within noise"), unit,
 * seed file, the table row or quote the figure comes from. '#' starts a
 * comment line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#ifndef SHRINKLAB_DATA_DIR
#define SHRINKLAB_DATA_DIR "data"
#endif

const char *lab_seeds_default_path(void)
{
	return SHRINKLAB_DATA_DIR "/seed_figures.tsv";
}

/* Split @line at tabs into at most @max fields; returns the count. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int parse_figure(char *line, struct lab_seed_figure *fig)
{
	char *f[7];
	char *end;

	if (split_tabs(line, f, 7) != 7)
		return -EINVAL;
	memset(fig, 0, sizeof(*fig));
	snprintf(fig->experiment, sizeof(fig->experiment), "%s", f[0]);
	snprintf(fig->design, sizeof(fig->design), "%s", f[1]);
	snprintf(fig->metric, sizeof(fig->metric), "%s", f[2]);
	snprintf(fig->unit, sizeof(fig->unit), "%s", f[4]);
	snprintf(fig->file, sizeof(fig->file), "%s", f[5]);
	snprintf(fig->source, sizeof(fig->source), "%s", f[6]);
	if (!strcmp(f[3], "same")) {
		fig->same_as_base = true;
		return 0;
	}
	errno = 0;
	fig->value = strtod(f[3], &end);
	if (errno || end == f[3] || *end)
		return -EINVAL;
	if (strcmp(fig->unit, "B") && strcmp(fig->unit, "ns") && strcmp(fig->unit, "count"))
		return -EINVAL;
	return 0;
}

int lab_seeds_load(struct lab_seeds *s, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path ? path : lab_seeds_default_path(), "r");
	char line[1024];
	unsigned int lineno = 0;

	memset(s, 0, sizeof(*s));
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot open %s: %s", path ? path : lab_seeds_default_path(),
			 strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f)) {
		struct lab_seed_figure *nv;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		nv = realloc(s->v, (s->n + 1) * sizeof(*nv));
		if (!nv) {
			fclose(f);
			lab_seeds_free(s);
			return -ENOMEM;
		}
		s->v = nv;
		if (parse_figure(line, &s->v[s->n])) {
			snprintf(err, errlen, "%s:%u: expected 7 tab-separated fields with a number "
				 "(or 'same') and a unit B|ns|count", path ? path : lab_seeds_default_path(),
				 lineno);
			fclose(f);
			lab_seeds_free(s);
			return -EINVAL;
		}
		s->n++;
	}
	fclose(f);
	return 0;
}

const struct lab_seed_figure *lab_seeds_find(const struct lab_seeds *s, const char *exp,
					     const char *design, const char *metric)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].experiment, exp) && !strcmp(s->v[i].design, design) &&
		    !strcmp(s->v[i].metric, metric))
			return &s->v[i];
	return NULL;
}

void lab_seeds_free(struct lab_seeds *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

void lab_seeds_attach(const struct lab_seeds *s, struct lab_run *run)
{
	for (size_t i = 0; i < run->nr_rows; i++) {
		struct lab_result *r = &run->rows[i];
		const struct lab_seed_figure *f = lab_seeds_find(s, run->exp->id, r->design, r->metric);

		r->has_seed = f && !f->same_as_base;
		r->seed_value = r->has_seed ? f->value : 0;
	}
}
