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
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "design_label.h"
#include "plot.h"
#include "rows.h"
#include "units.h"
#include "verdict.h"
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

/* What gnuplot wrote to @log (in @dir): its first line in @err and -1,
 * 0 when it wrote nothing (the log is then removed). */
static int gnuplot_quiet(const char *dir, const char *log, char *err, size_t errlen)
{
	char path[4096], line[512] = "";
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, log) >= (int)sizeof(path))
		return 0;
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && !strcspn(line, " \t\n"))
		;
	fclose(f);
	if (!strcspn(line, " \t\n")) {
		unlink(path);
		return 0;
	}
	line[strcspn(line, "\n")] = '\0';
	snprintf(err, errlen, "gnuplot printed a warning or an error (all of it in %s): %s",
		 path, line);
	return -1;
}

int lab_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err,
		    size_t errlen)
{
	char log[512];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char *argv[3] = { (char *)gnuplot, (char *)script, NULL };
	sigset_t pipe_default;
	pid_t pid;
	int status, ret;

	if (posix_spawn_file_actions_init(&fa)) {
		snprintf(err, errlen, "posix_spawn_file_actions_init failed");
		return -1;
	}
	if (posix_spawnattr_init(&attr)) {
		posix_spawn_file_actions_destroy(&fa);
		snprintf(err, errlen, "posix_spawnattr_init failed");
		return -1;
	}
	/* main() ignores SIGPIPE for itself; gnuplot gets the default back. */
	sigemptyset(&pipe_default);
	sigaddset(&pipe_default, SIGPIPE);
	ret = posix_spawnattr_setsigdefault(&attr, &pipe_default);
	if (!ret)
		ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	/* Its output goes to SCRIPT.log, never into the tables on our
	 * streams: any of it (a warning too) fails the plot. */
	if (!ret && snprintf(log, sizeof(log), "%s.log", script) >= (int)sizeof(log))
		ret = ENAMETOOLONG;
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC,
						       0666);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, 2, 1);
	if (!ret)
		ret = posix_spawn(&pid, gnuplot, &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
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
		return gnuplot_quiet(dir, log, err, errlen);
	if (WIFEXITED(status) && gnuplot_quiet(dir, log, err, errlen))
		return -1;
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s %s (in %s) exited with status %d", gnuplot, script, dir,
			 WEXITSTATUS(status));
	else
		snprintf(err, errlen, "%s %s (in %s) was killed by signal %d", gnuplot, script, dir,
			 WTERMSIG(status));
	return -1;
}

/*
 * A figure of @rows x @cols panels under @title (the last cell is the
 * legend's: legend_panel()).
 */
static void multiplot_begin(FILE *f, size_t rows, size_t cols, const char *title)
{
	fprintf(f, "set multiplot layout %zu,%zu title ", rows, cols);
	gp_string(f, title);
	fputs(" noenhanced\n", f);
}

/* The grid for @panels panels and the legend's cell. */
static void grid(size_t panels, size_t *rows, size_t *cols)
{
	*cols = panels + 1 < 3 ? panels + 1 : 3;
	*rows = (panels + 1 + *cols - 1) / *cols;
}

/* A panel that holds only the legend: @entries, each "plot item" of a
 * series that is never drawn (NaN) with the style and title it explains. */
static void legend_panel(FILE *f, const char *const *entries, size_t n)
{
	fputs("unset title\nunset logscale y\nunset border\nunset xtics\nunset ytics\n"
	      "unset ylabel\nunset grid\nunset object 1\nunset label 1\nset xrange [0:1]\n"
	      "set yrange [0:1]\nset lmargin 1\nset rmargin 1\nset key center center vertical "
	      "Left reverse box opaque font \",9\" samplen 1.5 spacing 1.2\n"
	      "$legend << EOD\n-1 -1 -1 -1\nEOD\nplot ", f);
	/* Each entry plots one point outside the panel's range (clipped, so
	 * only its key line shows): "NaN with yerrorbars" warned that the
	 * style is for data files, and keyentry trips an assertion of gnuplot
	 * 5.4.4 in a multiplot. */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s$legend using 1:2:3:4 %s", i ? ", \\\n     " : "", entries[i]);
	fputs("\nset border\nset xtics\nset ytics\nset grid ytics\nunset key\n", f);
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

/* Tick labels in the unit that fits each tick: "10 ns", "1 us", "32 KiB". */
static void log_ticks(FILE *f, const char *unit, double lo, double hi)
{
	bool first = true;

	fputs("set ytics (", f);
	if (!strcmp(unit, "B")) {
		for (double v = 1; v <= hi * 4; v *= 4) {
			char label[32];

			if (v < lo / 4)
				continue;
			lab_fmt_value(label, sizeof(label), v, unit);
			fprintf(f, "%s\"%s\" %.9g", first ? "" : ", ", label, v);
			first = false;
		}
	} else {
		for (double v = 1; v <= hi * 10; v *= 10) {
			char label[32];

			if (v < lo / 10)
				continue;
			if (!strcmp(unit, "ns") && v < 1000)
				snprintf(label, sizeof(label), "%.0f ns", v);
			else if (!strcmp(unit, "ns") && v < 1e6)
				snprintf(label, sizeof(label), "%.0f us", v / 1e3);
			else if (!strcmp(unit, "ns") && v < 1e9)
				snprintf(label, sizeof(label), "%.0f ms", v / 1e6);
			else if (!strcmp(unit, "ns"))
				snprintf(label, sizeof(label), "%.0f s", v / 1e9);
			else
				snprintf(label, sizeof(label), "%.0f", v);
			fprintf(f, "%s\"%s\" %.9g", first ? "" : ", ", label, v);
			first = false;
		}
	}
	fputs(")\n", f);
}

static void data_number(FILE *f, bool ok, double v)
{
	if (ok && isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fputs(" NaN", f);
}

/* One panel: the rows of @metric, one x position per design. */
static const char *const values_legend[] = {
	/* Dark gray: each design has its own colour, and a blue sample read
	 * as xarray's. */
	("with yerrorbars pt 7 ps 1.2 lc rgb \"#404040\" title \"ours: median, bar: min..max "
	 "(colour: design)\""),
	"with points pt 6 ps 2.5 lw 2 lc rgb \"black\" title \"the seed's, at our geometry\"",
	"with points pt 6 ps 2.5 lc rgb \"gray60\" title \"the seed's, at another geometry\"",
};

static bool plot_panel(FILE *f, const struct lab_run *run, const struct lab_metric *m,
		       size_t idx)
{
	double lo = INFINITY, hi = 0, div;
	bool any = false, nonpositive = false;
	size_t under = 0;
	bool blank;
	const char *uname;

	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		double v[3] = { r->value, r->min, r->max };

		if (strcmp(r->metric, m->name) || r->unavailable)
			continue;
		any = true;
		if (lab_result_under_resolution(r)) {
			under++;
			continue;
		}
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
	blank = lo > hi; /* every figure under the resolution */
	if (blank)
		lo = hi = 1;
	/* Log panels keep base units and say the unit on each tick; linear
	 * ones (less than 20x apart) take the unit that fits the largest. */
	if (!nonpositive && hi / lo > 20) {
		div = 1;
		uname = "";
	} else {
		div = display_unit(m->unit, hi, &uname);
	}
	fprintf(f, "$d%zu << EOD\n# x design median min max seed seed_at_our_geometry colour\n",
		idx);
	for (size_t d = 0; d < run->nr_designs; d++) {
		char label[LAB_LABEL_LEN];
		const struct lab_result *r = NULL;
		bool ok;

		lab_design_label(&run->designs[d], label, sizeof(label));
		for (size_t i = 0; i < run->nr_rows && !r; i++)
			if (!strcmp(run->rows[i].metric, m->name) &&
			    !strcmp(run->rows[i].design, label))
				r = &run->rows[i];
		ok = r && !r->unavailable && !lab_result_under_resolution(r);
		fprintf(f, "%zu \"%s\"", d, label);
		data_number(f, ok, r ? r->value / div : 0);
		data_number(f, ok, r ? r->min / div : 0);
		data_number(f, ok, r ? r->max / div : 0);
		data_number(f, r && r->seed && !r->seed->same_as_base,
			    r && r->seed ? r->seed->value / div : 0);
		fprintf(f, " %d %lu\n", r && r->seed_comparable ? 1 : 0, colour_value(label));
	}
	fputs("EOD\n", f);
	{
		char title[256];

		if (under)
			snprintf(title, sizeof(title), "%s\n%s (%zu under the clock's resolution: "
				 "not drawn)", m->name, m->what, under);
		else
			snprintf(title, sizeof(title), "%s\n%s", m->name, m->what);
		fputs("set title ", f);
		gp_string(f, title);
		fprintf(f, " noenhanced\nset ylabel \"%s\"\n", uname);
	}
	if (!nonpositive && hi / lo > 20) {
		fputs("set logscale y\n", f);
		log_ticks(f, m->unit, lo, hi);
	} else {
		fprintf(f, "unset logscale y\nset ytics autofreq\nset format y \"%%g\"\n"
			   "set yrange [0:%s]\n", hi > 0 && !blank ? "*" : "1");
	}
	if (blank)
		fputs("set label 1 \"every median under the clock's resolution\" at graph 0.5,0.5 "
		      "center\n", f);
	fputs("unset key\n", f);
	fprintf(f, "set xrange [-0.6:%zu.6]\n", run->nr_designs - 1);
	fprintf(f, "plot $d%zu using 1:3:4:5:8:xtic(2) with yerrorbars pt 7 ps 1.2 "
		   "lc rgb variable notitle, \\\n"
		   "     $d%zu using 1:($7 == 1 ? $6 : NaN) with points pt 6 ps 2.5 lw 2 "
		   "lc rgb \"black\" notitle, \\\n"
		   "     $d%zu using 1:($7 == 0 ? $6 : NaN) with points pt 6 ps 2.5 "
		   "lc rgb \"gray60\" notitle\n"
		   "set yrange [*:*]\nunset label 1\n",
		idx, idx, idx);
	return true;
}

/* ---- the seeds' claims: our ratio beside the seed's ---- */

/* The verdict's colour: agrees green, disagrees red, inconclusive orange,
 * not compared or measured gray. */
static unsigned long verdict_colour(enum lab_verdict_kind k)
{
	return k == LAB_V_AGREES ? 0x2ca02c : k == LAB_V_DISAGREES ? 0xd62728
		: k == LAB_V_INCONCLUSIVE ? 0xff7f0e : 0x7f7f7f;
}

/* A ratio claim of @run on @metric (not a count)? */
static bool claim_metric(const struct lab_run *run, const char *metric)
{
	for (size_t i = 0; i < run->nr_verdicts; i++)
		if (!strcmp(run->verdicts[i].metric, metric) &&
		    strcmp(run->verdicts[i].claim, "count"))
			return true;
	return false;
}

/* The seed's ratio of @r to @b, and how it is meant: 0 a figure, 1 at
 * most, 2 at least, 3 the same within noise; false when it gives none. */
static bool seed_ratio(const struct lab_result *r, const struct lab_result *b, double *q,
		       int *kind)
{
	const struct lab_seed_figure *f = r->seed, *bf = b ? b->seed : NULL;

	if (!f)
		return false;
	if (f->same_as_base) {
		*q = 1;
		*kind = 3;
		return true;
	}
	if (!bf || bf->same_as_base || bf->value == 0)
		return false;
	*q = f->value / bf->value;
	if (f->relation == '=' && bf->relation == '=')
		*kind = 0;
	else if (f->relation != '>' && bf->relation != '<')
		*kind = 1;
	else if (f->relation != '<' && bf->relation != '>')
		*kind = 2;
	else
		return false;
	return true;
}

/* Ratio ticks "0.5x", "1x", "2x": 1-2-5 per decade over a range narrower
 * than 1000x, decades over a wider one; "0x" at @zero_at when it is not 0
 * (a log axis has no 0: a ratio of zero is drawn at its floor). */
static void ratio_ticks(FILE *f, double lo, double hi, double zero_at)
{
	static const double steps[] = { 1, 2, 5 };
	bool dense = hi / lo < 1000, first = true;

	fputs("set ytics (", f);
	if (zero_at > 0) {
		fprintf(f, "\"0x\" %.9g", zero_at);
		first = false;
	}
	for (double d = pow(10, floor(log10(lo))); d <= hi; d *= 10)
		for (size_t k = 0; k < (dense ? 3 : 1); k++) {
			double v = d * steps[k];

			if (v < lo || v > hi)
				continue;
			fprintf(f, "%s\"%gx\" %.9g", first ? "" : ", ", v, v);
			first = false;
		}
	fputs(")\n", f);
}

/* One panel per metric with a ratio claim: a point per design the seed
 * compares with the base, ours (median, per-round range) coloured by the
 * verdict, the seed's ratio as a ring, its bound as a triangle, its "same"
 * as a square at 1, in gray where the seed measured at another geometry;
 * the 0.8..1.25 band shaded. */
static const char *const claims_legend[] = {
	("with yerrorbars pt 7 ps 1.3 lc rgb \"#7f7f7f\" title \"ours: ratio of medians, bar: "
	 "range of the per-round ratios\""),
	"with points pt 6 ps 2.6 lw 2 lc rgb \"black\" title \"the seed's ratio\"",
	"with points pt 11 ps 2 lc rgb \"black\" title \"the seed's bound: at most\"",
	"with points pt 9 ps 2 lc rgb \"black\" title \"the seed's bound: at least\"",
	"with points pt 4 ps 2.6 lw 2 lc rgb \"black\" title \"the seed: the same within noise\"",
	("with points pt 6 ps 2.6 lc rgb \"gray60\" title \"the seed's, at another geometry "
	 "(gray, the same shapes)\""),
	"with boxes fs solid 0.6 lc rgb \"#dddddd\" title \"0.8..1.25: the same within noise\"",
	"with points pt 7 ps 1.3 lc rgb \"#2ca02c\" title \"ours, the verdict: agrees\"",
	"with points pt 7 ps 1.3 lc rgb \"#d62728\" title \"disagrees\"",
	"with points pt 7 ps 1.3 lc rgb \"#ff7f0e\" title \"inconclusive\"",
	"with points pt 7 ps 1.3 lc rgb \"#7f7f7f\" title \"not compared (another geometry)\"",
	"with points pt 7 ps 0 lc rgb \"white\" title \"0x: a ratio of zero, at the axis floor\"",
};

/* The seed's marks of a claims panel: point type, size, line width, by
 * seed_ratio()'s kind. */
static const struct {
	int pt;
	double ps;
	int lw;
} seed_marks[] = { { 6, 2.6, 2 }, { 11, 2, 1 }, { 9, 2, 1 }, { 4, 2.6, 2 } };

/* One claim of a claims panel, as measured and as drawn. */
struct claim_point {
	const struct lab_verdict *v;
	bool has_q, has_s, compared;
	struct lab_ratio q;
	double sq;
	int kind;
};

/* The claims of @run on @m into @p (at most @max); their count. The
 * positive ratios widen [*lo, *hi]; *zero says whether any is 0 or below. */
static size_t claim_points(const struct lab_run *run, const struct lab_metric *m,
			   const struct lab_result *b, struct claim_point *p, size_t max,
			   double *lo, double *hi, bool *zero)
{
	size_t x = 0;

	for (size_t i = 0; i < run->nr_verdicts && x < max; i++) {
		const struct lab_verdict *v = &run->verdicts[i];
		const struct lab_result *r = NULL;
		struct claim_point *c = &p[x];

		if (strcmp(v->metric, m->name) || !strcmp(v->claim, "count"))
			continue;
		for (size_t k = 0; k < run->nr_rows && !r; k++)
			if (!strcmp(run->rows[k].metric, m->name) &&
			    !strcmp(run->rows[k].design, v->design))
				r = &run->rows[k];
		memset(c, 0, sizeof(*c));
		c->v = v;
		c->has_q = r && b && lab_ratio_of(r, b, &c->q) && !lab_result_under_resolution(r) &&
			   !lab_result_under_resolution(b);
		c->has_s = r && seed_ratio(r, b, &c->sq, &c->kind);
		/* Black only where the claim was judged at the seed's geometry
		 * (the base's too). */
		c->compared = r && r->seed_comparable && v->kind != LAB_V_NOT_COMPARED;
		if (c->has_q) {
			const double q[3] = { c->q.median, c->q.lo, c->q.hi };

			for (int k = 0; k < 3; k++) {
				*zero |= q[k] <= 0;
				*lo = q[k] > 0 && q[k] < *lo ? q[k] : *lo;
				*hi = q[k] > *hi ? q[k] : *hi;
			}
		}
		if (c->has_s) {
			*zero |= c->sq <= 0;
			*lo = c->sq > 0 && c->sq < *lo ? c->sq : *lo;
			*hi = c->sq > *hi ? c->sq : *hi;
		}
		x++;
	}
	return x;
}

/* @v as drawn on a log axis whose floor stands for 0. */
static double drawn(double v, double floor_at)
{
	return v > 0 ? v : floor_at;
}

static void claims_panel(FILE *f, const struct lab_run *run, const struct lab_metric *m,
			 size_t idx)
{
	const struct lab_result *b = lab_run_base_row(run, m->name);
	struct claim_point p[LAB_MAX_DESIGNS];
	double lo = LAB_SAME_LO, hi = LAB_SAME_HI, bottom, floor_at = 0;
	bool zero = false;
	size_t n = claim_points(run, m, b, p, LAB_MAX_DESIGNS, &lo, &hi, &zero);

	/* 0x a notch below the lowest tick (lo / 2), the axis's end below it. */
	bottom = lo / 2;
	if (zero) {
		floor_at = lo / 5;
		bottom = floor_at / 1.6;
	}
	fprintf(f, "$c%zu << EOD\n# x label ours lo hi seed kind comparable colour, then as "
		   "drawn (0x at the floor): ours lo hi seed\n", idx);
	for (size_t x = 0; x < n; x++) {
		const struct claim_point *c = &p[x];

		fprintf(f, "%zu \"%s\\n%s\"", x, c->v->design, lab_verdict_name(c->v->kind));
		data_number(f, c->has_q, c->q.median);
		data_number(f, c->has_q, c->q.lo);
		data_number(f, c->has_q, c->q.hi);
		data_number(f, c->has_s, c->sq);
		fprintf(f, " %d %d %lu", c->kind, c->compared ? 1 : 0,
			verdict_colour(c->v->kind));
		data_number(f, c->has_q, drawn(c->q.median, floor_at));
		data_number(f, c->has_q, drawn(c->q.lo, floor_at));
		data_number(f, c->has_q, drawn(c->q.hi, floor_at));
		data_number(f, c->has_s, drawn(c->sq, floor_at));
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	{
		char title[256];

		snprintf(title, sizeof(title), "%s: ratio to %s\n%s", m->name,
			 b ? b->design : "the base", m->what);
		fputs("set title ", f);
		gp_string(f, title);
		fputs(" noenhanced\n", f);
	}
	ratio_ticks(f, lo / 2, hi * 2, floor_at);
	fprintf(f, "set logscale y\n"
		   "set yrange [%.9g:%.9g]\nset xrange [-0.6:%zu.6]\n"
		   "set object 1 rect from graph 0, first %g to graph 1, first %g fc rgb "
		   "\"#dddddd\" fs solid 0.6 noborder behind\n",
		bottom, hi * 2, n ? n - 1 : 0, LAB_SAME_LO, LAB_SAME_HI);
	fputs("unset key\n", f);
	fprintf(f, "plot $c%zu using 1:10:11:12:9:xtic(2) with yerrorbars pt 7 ps 1.3 "
		   "lc rgb variable notitle", idx);
	for (int compared = 1; compared >= 0; compared--)
		for (int kind = 0; kind < 4; kind++)
			fprintf(f, ", \\\n     $c%zu using 1:($7 == %d && $8 == %d ? $13 : NaN) "
				   "with points pt %d ps %g lw %d lc rgb \"%s\" notitle", idx, kind,
				compared, seed_marks[kind].pt, seed_marks[kind].ps,
				seed_marks[kind].lw, compared ? "black" : "gray60");
	fputs("\nunset object 1\nset yrange [*:*]\nset format y \"%g\"\n", f);
}

/* DIR/<id>-claims.gp and .png when the run has ratio claims: 0, 1 (none),
 * or -1 with @err set. */
static int plot_claims(const char *gnuplot, const char *dir, const struct lab_run *run,
		       const struct lab_options *opt, char *err, size_t errlen)
{
	char script[256], path[4096], title[1024];
	const struct lab_scale *s = &run->scale;
	size_t panels = 0, cols, rows;
	FILE *f;

	for (size_t m = 0; m < run->exp->nr_metrics; m++)
		panels += claim_metric(run, run->exp->metrics[m].name);
	if (!panels)
		return 1;
	grid(panels, &rows, &cols);
	snprintf(script, sizeof(script), "%s-claims.gp", run->exp->id);
	snprintf(path, sizeof(path), "%s/%s", dir, script);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", script, strerror(errno));
		return -1;
	}
	fprintf(f, "# %s: the seeds' claims, our ratio beside the seed's; shrinklab ",
		run->exp->id);
	shrinklab_print_version(f);
	fprintf(f, "# Re-render: cd to this directory, then: gnuplot %s\n", script);
	fprintf(f, "set terminal pngcairo size %zu,%zu font \",9\"\n", cols * 560, rows * 430 + 90);
	fprintf(f, "set output \"%s-claims.png\"\n", run->exp->id);
	fputs("set grid ytics\nset xtics noenhanced\nset bars 2\nset lmargin 9\n"
	      "set bmargin 4\n", f);
	snprintf(title, sizeof(title),
		 "%s, the seed's claims: our ratio to the base beside the seed's (shaded: "
		 "0.8..1.25, the same within noise)\nours: %lu mounts + %u host shrinkers, %lu "
		 "cgroups, %d node(s), %u geometry CPUs, kmem %s; %u rounds; a claim is judged "
		 "only at the seed's geometry", run->exp->id, s->mounts, s->host_shrinkers,
		 s->cgroups, s->nodes, s->cpus, s->kmem ? "on" : "off", opt->samples);
	multiplot_begin(f, rows, cols, title);
	for (size_t m = 0, idx = 0; m < run->exp->nr_metrics; m++)
		if (claim_metric(run, run->exp->metrics[m].name))
			claims_panel(f, run, &run->exp->metrics[m], idx++);
	legend_panel(f, claims_legend, sizeof(claims_legend) / sizeof(claims_legend[0]));
	fputs("unset multiplot\n", f);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "writing %s failed", script);
		return -1;
	}
	return lab_gnuplot_run(gnuplot, dir, script, err, errlen);
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
	grid(panels, &rows, &cols);
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
	fputs("set grid ytics\nset xtics rotate by 25 right "
	      "noenhanced\nset bars 2\nset lmargin 10\nset bmargin 6\n", f);
	{
		char title[1024];

		snprintf(title, sizeof(title),
			 "%s (the seed: %s)\nours: %lu mounts + %u host shrinkers (ids span %ld units "
			 "per node), %lu cgroups, %d node(s), %u geometry CPUs, kmem %s; %u samples "
			 "after a warm-up",
			 run->exp->id, run->exp->title, s->mounts, s->host_shrinkers, units,
			 s->cgroups, s->nodes, s->cpus, s->kmem ? "on" : "off", opt->samples);
		multiplot_begin(f, rows, cols, title);
	}
	for (size_t m = 0, idx = 0; m < run->exp->nr_metrics; m++)
		if (plot_panel(f, run, &run->exp->metrics[m], idx))
			idx++;
	legend_panel(f, values_legend, sizeof(values_legend) / sizeof(values_legend[0]));
	fputs("unset multiplot\n", f);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "writing %s failed", script);
		return -1;
	}
	if (lab_gnuplot_run(gnuplot, dir, script, err, errlen))
		return -1;
	return plot_claims(gnuplot, dir, run, opt, err, errlen) < 0 ? -1 : 0;
}
