/* SPDX-License-Identifier: MIT */
/*
 * Seed figures (seeds.h): the numbers the seed threads published, read at
 * run time from one tab-separated file (data/seed_figures.tsv in the source
 * tree; --data overrides). Columns:
 *
 *   experiment, design, metric,
 *   value   in base units; "same" (the same as the base design within
 *           noise), "<N" (at most N: "less than ten milliseconds") or ">N"
 *           (at least N: "over one hundred milliseconds"),
 *   unit    B, ns or count,
 *   geometry where the seed measured it: space-separated key=value with
 *           keys mounts, units (per node: shrinker_nr_max / 64), cgroups,
 *           nodes, cpus; a value is N, a range N..M (inferred), or ? (the
 *           seed does not say); "-" for none,
 *   thread  the mailing-list thread the figure comes from (its id in
 *           data/threads.tsv), then the table row or quote.
 *
 * '#' starts a comment line. A row of ours is compared with a figure only
 * when every key its metric depends on matches (a range: lies within); a
 * key the seed leaves unknown is not held against it, and said.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datafiles.h"
#include "scale.h"
#include "seeds.h"

#define SEEDS_FILE "seed_figures.tsv"

/*
 * Where the seeds' figures are: beside an installed binary first; else the
 * source tree this binary was built from (the build-tree binary); else the
 * configured install path, which the "cannot open" error then names.
 */
const char *lab_seeds_default_path(void)
{
	static char path[PATH_MAX];

	if (!path[0])
		lab_data_path(SEEDS_FILE, path, sizeof(path));
	return path;
}

/* Split @line at tabs into at most @max fields; returns the count. */
static size_t split_tabs(char *line, char **f, size_t max);

bool lab_thread_describe(const char *id, char *buf, size_t len)
{
	const char *seeds = lab_seeds_default_path(), *slash = strrchr(seeds, '/');
	char path[PATH_MAX], line[2048];
	bool found = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%.*sthreads.tsv", slash ? (int)(slash - seeds + 1) : 0,
		     seeds) >= (int)sizeof(path))
		return false;
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *fld[7];
		char *author;

		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || split_tabs(line, fld, 7) < 4 || strcmp(fld[0], id))
			continue;
		author = fld[2];
		author[strcspn(author, "<")] = '\0';
		while (*author && author[strlen(author) - 1] == ' ')
			author[strlen(author) - 1] = '\0';
		snprintf(buf, len, "\"%s\" (%s, %s)", fld[1], author, fld[3]);
		found = true;
	}
	fclose(f);
	return found;
}

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

static int parse_count(const char *s, char **end, unsigned long *out)
{
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, end, 10);
	return errno ? -EINVAL : 0;
}

/* "mounts=20000 units=126..127 nodes=?" */
static int parse_geometry(char *s, struct lab_seed_geometry *g)
{
	char *save = NULL;

	memset(g, 0, sizeof(*g));
	if (!strcmp(s, "-"))
		return 0;
	for (char *tok = strtok_r(s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '='), *end;
		int k;

		if (!eq)
			return -EINVAL;
		*eq++ = '\0';
		for (k = 0; k < LAB_NR_GEO; k++)
			if (!strcmp(tok, lab_geo_name((enum lab_geo_key)k)))
				break;
		if (k == LAB_NR_GEO || g->state[k] != LAB_SEED_GEO_ABSENT)
			return -EINVAL;
		if (!strcmp(eq, "?")) {
			g->state[k] = LAB_SEED_GEO_UNKNOWN;
			continue;
		}
		if (parse_count(eq, &end, &g->lo[k]))
			return -EINVAL;
		g->hi[k] = g->lo[k];
		if (!strncmp(end, "..", 2) && parse_count(end + 2, &end, &g->hi[k]))
			return -EINVAL;
		if (*end || g->hi[k] < g->lo[k])
			return -EINVAL;
		g->state[k] = LAB_SEED_GEO_KNOWN;
	}
	return 0;
}

/* A field longer than its slot makes the line invalid rather than cut short. */
static int copy_field(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);

	if (len >= size)
		return -EINVAL;
	memcpy(dst, src, len + 1);
	return 0;
}

static int parse_figure(char *line, struct lab_seed_figure *fig)
{
	char *f[8];
	const char *num;
	char *end;

	if (split_tabs(line, f, 8) != 8)
		return -EINVAL;
	memset(fig, 0, sizeof(*fig));
	if (copy_field(fig->experiment, sizeof(fig->experiment), f[0]) ||
	    copy_field(fig->design, sizeof(fig->design), f[1]) ||
	    copy_field(fig->metric, sizeof(fig->metric), f[2]) ||
	    copy_field(fig->unit, sizeof(fig->unit), f[4]) ||
	    copy_field(fig->thread, sizeof(fig->thread), f[6]) ||
	    copy_field(fig->source, sizeof(fig->source), f[7]))
		return -EINVAL;
	if (strcmp(fig->unit, "B") && strcmp(fig->unit, "ns") && strcmp(fig->unit, "count"))
		return -EINVAL;
	if (parse_geometry(f[5], &fig->geo))
		return -EINVAL;
	fig->relation = '=';
	if (!strcmp(f[3], "same")) {
		fig->same_as_base = true;
		return 0;
	}
	num = f[3];
	if (*num == '<' || *num == '>')
		fig->relation = *num++;
	if ((*num < '0' || *num > '9') && *num != '.')
		return -EINVAL;
	errno = 0;
	fig->value = strtod(num, &end);
	if (errno || end == num || *end)
		return -EINVAL;
	return 0;
}

int lab_seeds_load(struct lab_seeds *s, const char *path, char *err, size_t errlen)
{
	const char *name = path ? path : lab_seeds_default_path();
	FILE *f = fopen(name, "r");
	char line[1024];
	unsigned int lineno = 0;

	memset(s, 0, sizeof(*s));
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot open %s: %s", name, strerror(e));
		return -e;
	}
	while (fgets(line, sizeof(line), f)) {
		struct lab_seed_figure *nv;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%u: line longer than %zu bytes", name, lineno,
				 sizeof(line) - 2);
			fclose(f);
			lab_seeds_free(s);
			return -EINVAL;
		}
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
			snprintf(err, errlen, "%s:%u: expected 8 tab-separated fields: a number, "
				 "<number, >number or 'same', a unit B|ns|count and a geometry "
				 "(key=N, N..M or ?; keys mounts units cgroups nodes cpus), "
				 "no field longer than the lab keeps",
				 name, lineno);
			fclose(f);
			lab_seeds_free(s);
			return -EINVAL;
		}
		s->n++;
	}
	/* fgets() ends at an error as at the end: a directory (EISDIR), an
	 * I/O error. Neither may pass for a file without figures. */
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		snprintf(err, errlen, "cannot read %s: %s", name, strerror(e));
		fclose(f);
		lab_seeds_free(s);
		return -e;
	}
	fclose(f);
	if (!s->n) {
		snprintf(err, errlen, "%s holds no figures", name);
		return -EINVAL;
	}
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

void lab_seed_geometry_format(const struct lab_seed_geometry *g, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < LAB_NR_GEO && used < len; k++) {
		const char *sep = used ? " " : "";
		int w = 0;

		if (g->state[k] == LAB_SEED_GEO_UNKNOWN)
			w = snprintf(buf + used, len - used, "%s%s=?", sep,
				     lab_geo_name((enum lab_geo_key)k));
		else if (g->state[k] == LAB_SEED_GEO_KNOWN && g->lo[k] == g->hi[k])
			w = snprintf(buf + used, len - used, "%s%s=%lu", sep,
				     lab_geo_name((enum lab_geo_key)k), g->lo[k]);
		else if (g->state[k] == LAB_SEED_GEO_KNOWN)
			w = snprintf(buf + used, len - used, "%s%s=%lu..%lu", sep,
				     lab_geo_name((enum lab_geo_key)k), g->lo[k], g->hi[k]);
		if (w > 0)
			used += (size_t)w;
	}
}

bool lab_seed_geometry_matches(const struct lab_scale *s, unsigned int mask,
			       const struct lab_seed_geometry *g, char *why, size_t len)
{
	char differ[LAB_NOTE_LEN] = "", unknown[LAB_NOTE_LEN] = "";

	for (int k = 0; k < LAB_NR_GEO; k++) {
		unsigned long ours = lab_scale_geo(s, (enum lab_geo_key)k);
		const char *name = lab_geo_name((enum lab_geo_key)k);
		size_t used;

		if (!(mask & LAB_G(k)))
			continue;
		if (g->state[k] != LAB_SEED_GEO_KNOWN) {
			used = strlen(unknown);
			snprintf(unknown + used, sizeof(unknown) - used, "%s%s", used ? ", " : "",
				 name);
			continue;
		}
		used = strlen(differ);
		if (k == LAB_GEO_UNITS && s->units < 0)
			snprintf(differ + used, sizeof(differ) - used, "%sunits not measured",
				 used ? ", " : "");
		else if (ours < g->lo[k] || ours > g->hi[k])
			snprintf(differ + used, sizeof(differ) - used, "%s%s=%lu", used ? ", " : "",
				 name, ours);
	}
	if (differ[0]) {
		char seed[128];

		lab_seed_geometry_format(g, seed, sizeof(seed));
		snprintf(why, len, "ours at %s; the seed at %s", differ, seed);
		return false;
	}
	if (unknown[0])
		snprintf(why, len, "the seed does not give its %s", unknown);
	else if (len)
		why[0] = '\0';
	return true;
}

void lab_seeds_attach(const struct lab_seeds *s, struct lab_run *run)
{
	for (size_t i = 0; i < run->nr_rows; i++) {
		struct lab_result *r = &run->rows[i];
		const struct lab_seed_figure *f = lab_seeds_find(s, run->exp->id, r->design, r->metric);

		r->seed = NULL;
		r->seed_comparable = false;
		r->seed_why[0] = '\0';
		if (f && r->unavailable) {
			r->seed = f;
			snprintf(r->seed_why, sizeof(r->seed_why), "%s", r->scale.note);
		} else if (f) {
			r->seed = f;
			r->seed_comparable = lab_seed_geometry_matches(&r->scale, r->geo_mask, &f->geo,
								       r->seed_why,
								       sizeof(r->seed_why));
		}
	}
}
