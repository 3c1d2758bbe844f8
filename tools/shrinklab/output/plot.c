/* SPDX-License-Identifier: MIT */
/*
 * shrinklab plots: gnuplot scripts written next to the PNGs they render, so
 * that anyone can edit and re-render them (cd DIR && gnuplot NAME.gp), and
 * gnuplot run without a shell: posix_spawnp() with the script's name as the
 * only argument and DIR as the working directory, so the scripts name their
 * files without a directory and no path is ever quoted into a script or a
 * command line (a directory named "it's" works).
 *
 * Every design keeps one style in every plot (colour, point type, dash
 * type), and each series is drawn with a smaller point than the one before,
 * so series that coincide (xarray and nobitmap hold the same units) show as
 * nested markers instead of hiding each other.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "design_label.h"
#include "plot.h"
#include "version.h"

extern char **environ;

struct style {
	const char *design;
	const char *colour;
	int pt, dt;
};

static const struct style styles[] = {
	{ "prealloc", "#d62728", 5, 1 },       { "array-ondemand", "#ff7f0e", 9, 2 },
	{ "xarray", "#1f77b4", 7, 3 },         { "flat", "#2ca02c", 13, 4 },
	{ "nobitmap", "#9467bd", 4, 5 },       { "indexed", "#000000", 11, 1 },
};

static const struct style *style_of(const char *design)
{
	size_t len = strcspn(design, "+");

	for (size_t i = 0; i < sizeof(styles) / sizeof(styles[0]); i++)
		if (strlen(styles[i].design) == len && !strncmp(design, styles[i].design, len))
			return &styles[i];
	return &styles[0];
}

void lab_plot_style(const char *design, char *buf, size_t len)
{
	const struct style *s = style_of(design);

	snprintf(buf, len, "lc rgb \"%s\" pt %d dt %d", s->colour, s->pt, s->dt);
}

static unsigned long colour_value(const char *design)
{
	return strtoul(style_of(design)->colour + 1, NULL, 16);
}

/* A gnuplot double-quoted string. */
static void gp_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
	fputc('"', f);
}

const char *lab_gnuplot_find(char *buf, size_t len, char *why, size_t whylen)
{
	const char *want = getenv("SHRINKLAB_GNUPLOT");
	const char *path = getenv("PATH");

	if (!want || !*want)
		want = "gnuplot";
	if (strchr(want, '/')) {
		if (!access(want, X_OK)) {
			snprintf(buf, len, "%s", want);
			return buf;
		}
		snprintf(why, whylen, "SHRINKLAB_GNUPLOT=%s is not an executable file", want);
		return NULL;
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && (int)n < (int)len - 2 &&
		    snprintf(buf, len, "%.*s/%s", (int)n, p, want) < (int)len &&
		    !access(buf, X_OK))
			return buf;
		p += n;
		p += *p == ':';
	}
	snprintf(why, whylen, "%s not found on the PATH (install gnuplot-nox, or pass --no-plots)",
		 want);
	return NULL;
}

int lab_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err,
		    size_t errlen)
{
	posix_spawn_file_actions_t fa;
	char *argv[3] = { (char *)gnuplot, (char *)script, NULL };
	pid_t pid;
	int status, ret;

	if (posix_spawn_file_actions_init(&fa)) {
		snprintf(err, errlen, "posix_spawn_file_actions_init failed");
		return -1;
	}
	ret = posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!ret)
		ret = posix_spawn(&pid, gnuplot, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		snprintf(err, errlen, "cannot run %s: %s", gnuplot, strerror(ret));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "waiting for %s: %s", gnuplot, strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s %s (in %s) exited with status %d", gnuplot, script, dir,
			 WEXITSTATUS(status));
	else
		snprintf(err, errlen, "%s %s (in %s) was killed by signal %d", gnuplot, script, dir,
			 WTERMSIG(status));
	return -1;
}

/* The display unit of a panel whose largest value is @max. */
static double display_unit(const char *unit, double max, const char **name)
{
	if (!strcmp(unit, "ns")) {
		*name = max >= 1e9 ? "s" : max >= 1e6 ? "ms" : max >= 1e3 ? "us" : "ns";
		return max >= 1e9 ? 1e9 : max >= 1e6 ? 1e6 : max >= 1e3 ? 1e3 : 1;
	}
	if (!strcmp(unit, "B")) {
		*name = max >= 1048576 ? "MiB" : max >= 1024 ? "KiB" : "bytes";
		return max >= 1048576 ? 1048576 : max >= 1024 ? 1024 : 1;
	}
	*name = "count";
	return 1;
}

static void data_number(FILE *f, bool ok, double v)
{
	if (ok && isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fputs(" NaN", f);
}

/* One panel: the rows of @metric, one x position per design. */
static bool plot_panel(FILE *f, const struct lab_run *run, const struct lab_metric *m,
		       size_t idx)
{
	double lo = INFINITY, hi = 0, div;
	bool any = false, nonpositive = false;
	const char *uname;

	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		double v[3] = { r->value, r->min, r->max };

		if (strcmp(r->metric, m->name) || r->unavailable)
			continue;
		any = true;
		for (int k = 0; k < 3; k++) {
			nonpositive |= v[k] <= 0;
			lo = v[k] > 0 && v[k] < lo ? v[k] : lo;
			hi = v[k] > hi ? v[k] : hi;
		}
		if (r->seed && !r->seed->same_as_base) {
			nonpositive |= r->seed->value <= 0;
			lo = r->seed->value > 0 && r->seed->value < lo ? r->seed->value : lo;
			hi = r->seed->value > hi ? r->seed->value : hi;
		}
	}
	if (!any)
		return false;
	div = display_unit(m->unit, hi, &uname);
	fprintf(f, "$d%zu << EOD\n# x design median min max seed seed_at_our_geometry colour\n",
		idx);
	for (size_t d = 0; d < run->nr_designs; d++) {
		char label[LAB_LABEL_LEN];
		const struct lab_result *r = NULL;

		lab_design_label(&run->designs[d], label, sizeof(label));
		for (size_t i = 0; i < run->nr_rows && !r; i++)
			if (!strcmp(run->rows[i].metric, m->name) &&
			    !strcmp(run->rows[i].design, label))
				r = &run->rows[i];
		fprintf(f, "%zu \"%s\"", d, label);
		data_number(f, r && !r->unavailable, r ? r->value / div : 0);
		data_number(f, r && !r->unavailable, r ? r->min / div : 0);
		data_number(f, r && !r->unavailable, r ? r->max / div : 0);
		data_number(f, r && r->seed && !r->seed->same_as_base,
			    r && r->seed ? r->seed->value / div : 0);
		fprintf(f, " %d %lu\n", r && r->seed_comparable ? 1 : 0, colour_value(label));
	}
	fputs("EOD\n", f);
	{
		char title[256];

		snprintf(title, sizeof(title), "%s\n%s", m->name, m->what);
		fputs("set title ", f);
		gp_string(f, title);
		fprintf(f, " noenhanced\nset ylabel \"%s\"\n", uname);
	}
	if (!nonpositive && hi / lo > 20)
		fputs("set logscale y\nset format y \"%g\"\n", f);
	else
		fprintf(f, "unset logscale y\nset format y \"%%g\"\nset yrange [0:%s]\n",
			hi > 0 ? "*" : "1");
	fprintf(f, "set xrange [-0.6:%zu.6]\n", run->nr_designs - 1);
	fprintf(f, "plot $d%zu using 1:3:4:5:8:xtic(2) with yerrorbars pt 7 ps 1.2 "
		   "lc rgb variable notitle, \\\n"
		   "     $d%zu using 1:($7 == 1 ? $6 : NaN) with points pt 6 ps 2.5 lw 2 "
		   "lc rgb \"black\" notitle, \\\n"
		   "     $d%zu using 1:($7 == 0 ? $6 : NaN) with points pt 6 ps 2.5 "
		   "lc rgb \"gray60\" notitle\n"
		   "set yrange [*:*]\n",
		idx, idx, idx);
	return true;
}

int lab_plot_run(const char *gnuplot, const char *dir, const struct lab_run *run,
		 const struct lab_options *opt, char *err, size_t errlen)
{
	char script[256], path[4096];
	size_t panels = 0, cols, rows;
	const struct lab_scale *s = &run->scale;
	long units = -1;
	FILE *f;

	for (size_t i = 0; i < run->nr_designs; i++)
		if (run->hosts[i].available && units < 0)
			units = run->hosts[i].geo.units;
	for (size_t m = 0; m < run->exp->nr_metrics; m++)
		for (size_t i = 0; i < run->nr_rows; i++)
			if (!strcmp(run->rows[i].metric, run->exp->metrics[m].name) &&
			    !run->rows[i].unavailable) {
				panels++;
				break;
			}
	if (!panels)
		return 0;
	cols = panels < 3 ? panels : 3;
	rows = (panels + cols - 1) / cols;
	snprintf(script, sizeof(script), "%s.gp", run->exp->id);
	snprintf(path, sizeof(path), "%s/%s", dir, script);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", script, strerror(errno));
		return -1;
	}
	fprintf(f, "# %s: shrinklab reproduce, ", run->exp->id);
	shrinklab_print_version(f);
	fprintf(f, "# Re-render: cd to this directory, then: gnuplot %s\n", script);
	fprintf(f, "set terminal pngcairo size %zu,%zu font \",9\"\n", cols * 520, rows * 400 + 80);
	fprintf(f, "set output \"%s.png\"\n", run->exp->id);
	fputs("set grid ytics\nunset key\nset xtics rotate by 25 right "
	      "noenhanced\nset bars 2\nset lmargin 10\nset bmargin 6\n", f);
	{
		char title[1024];

		snprintf(title, sizeof(title),
			 "%s (the seed: %s)\nours: %lu mounts + %u host shrinkers (ids span %ld units "
			 "per node), %lu cgroups, %d node(s), %u geometry CPUs, kmem %s; %u samples "
			 "after a warm-up\nfilled dots: our median with a min-max bar; black ring: "
			 "the seed's figure, measured at our geometry; gray ring: the seed's, at "
			 "another geometry (not compared)",
			 run->exp->id, run->exp->title, s->mounts, s->host_shrinkers, units,
			 s->cgroups, s->nodes, s->cpus, s->kmem ? "on" : "off", opt->samples);
		fprintf(f, "set multiplot layout %zu,%zu title ", rows, cols);
		gp_string(f, title);
		fputs(" noenhanced\n", f);
	}
	for (size_t m = 0, idx = 0; m < run->exp->nr_metrics; m++)
		if (plot_panel(f, run, &run->exp->metrics[m], idx))
			idx++;
	fputs("unset multiplot\n", f);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "writing %s failed", script);
		return -1;
	}
	return lab_gnuplot_run(gnuplot, dir, script, err, errlen);
}
