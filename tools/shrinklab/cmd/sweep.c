/* SPDX-License-Identifier: MIT */
/*
 * shrinklab sweep: how each figure grows. Three series, one line per design:
 *   slab.csv      slab bytes per empty cgroup against mounts
 *   walk.csv      walk ns per empty cgroup against mounts
 *   register.csv  ns to register 640 mounts against cgroups alive
 * Every point is a fresh host measured like the experiments do (its timed
 * points through the lockstep sampler, on one bench). Each CSV
 * gets a gnuplot script beside it (NAME.gp, re-render with
 * "cd DIR && gnuplot NAME.gp") and its PNG, unless --no-plots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/shrinker.h>

#include "bench.h"
#include "commands.h"
#include "conventions.h"
#include "lockstep.h"
#include "outputs.h"
#include "plot.h"
#include "scale.h"
#include "stats.h"
#include "version.h"

#define NR_POINTS 5
#define SWEEP_CGROUPS 200
#define SWEEP_MOUNTS 2000
#define SWEEP_BATCH 640

/* Every design of the library's table (shr_design_info_of()), in its order. */
#define NR_DESIGNS ((size_t)SHR_NR_DESIGNS)

struct series {
	const char *file, *title, *xlabel, *ylabel, *column;
	bool x_is_cgroups;
};

static const struct series series[] = {
	{ "slab", "unreclaimable slab per empty cgroup", "mounts (200 empty cgroups alive)",
	  "bytes per cgroup", "bytes", false },
	{ "walk", "shrink_slab() walk of an empty cgroup", "mounts (200 empty cgroups alive)",
	  "ns per cgroup", "ns", false },
	{ "register", "registering 640 mounts", "cgroups alive (2000 mounts)",
	  "ns for 640 mounts", "ns", true },
};

enum {
	OPT_OUT = SHRINKLAB_OPT_FIRST_OWN,
	OPT_SCALE,
	OPT_SAMPLES,
	OPT_QUIET,
	OPT_NO_PLOTS,
	OPT_SERIES,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab sweep [--out DIR] [--series NAME]... [--scale S] [--samples N]\n"
		"                       [--no-plots] [--quiet]\n"
		"\n"
		"Write DIR/{slab,walk,register}.csv (design,x,value), and for each a gnuplot\n"
		"script DIR/NAME.gp and its plot DIR/NAME.png: slab bytes per empty cgroup and\n"
		"walk time against mounts (%d cgroups), registration of %d mounts against\n"
		"cgroups alive (%d mounts). Points are multiples of the scale (default 1: up\n"
		"to %d mounts and %d cgroups); 1 node, 4 geometry CPUs, every design with its\n"
		"default options. Unavailable designs are listed, not plotted. Re-render a\n"
		"plot with: cd DIR && gnuplot NAME.gp\n"
		"  --out DIR     output directory, created if missing (default sweep-out)\n"
		"  --series NAME only this series: slab, walk or register (repeatable)\n"
		"  --scale S     multiplier of the points, in [0.01, 3]\n"
		"  --samples N   timed samples after one warm-up, 5..64\n"
		"  --no-plots    CSV only (no need for gnuplot)\n"
		"  --quiet       no progress line\n"
		"  --version     the tool's version and git revision\n",
		SWEEP_CGROUPS, SWEEP_BATCH, SWEEP_MOUNTS, SWEEP_MOUNTS * 8, SWEEP_CGROUPS * 8);
	shrinklab_print_exit_codes(out);
}

/* The samplers of the timed series: a walk of every cgroup (ns per cgroup),
 * a batch of SWEEP_BATCH registrations (ns). */
static int sample_walk(struct lab_bench *b, void *ctx, double *v)
{
	uint64_t ns = 0;
	int ret = lab_bench_walk(b, SHR_DEF_PRIORITY, &ns);

	(void)ctx;
	v[0] = (double)(ns / b->nr_cgs);
	return ret;
}

static int sample_register(struct lab_bench *b, void *ctx, double *v)
{
	uint64_t t0 = lab_now_ns();
	int ret = lab_bench_mount(b, SWEEP_BATCH);

	(void)ctx;
	v[0] = (double)(lab_now_ns() - t0);
	return ret;
}

/* 0 and *value, 1 when the bench could not be opened (the design is
 * unavailable at this point: lab_bench_open()'s why), or -errno. Timed
 * points are the median of the lockstep sampler's rounds on this bench. */
static int measure_point(const struct lab_design *d, const struct series *sr, unsigned long x,
			 const struct lab_options *opt, double *value)
{
	static lab_samples_t v[1];
	struct lab_scale s = { .nodes = 1, .cpus = 4, .kmem = true };
	struct lab_bench b;
	unsigned long before;
	int ret;

	lab_lockstep_open(&b, d, 1, &s);
	if (!lab_bench_ok(&b))
		return 1;
	ret = lab_bench_mount(&b, sr->x_is_cgroups ? SWEEP_MOUNTS : x);
	before = lab_bench_sunreclaim(&b);
	if (!ret)
		ret = lab_bench_mkcg(&b, sr->x_is_cgroups ? x : SWEEP_CGROUPS);
	lab_progress("sweep %s: %s at %lu", sr->file, b.label, x);
	if (!ret && !strcmp(sr->file, "slab")) {
		*value = (double)(lab_bench_sunreclaim(&b) - before) / (double)b.nr_cgs;
	} else if (!ret) {
		struct lab_stats st;

		ret = lab_lockstep_rounds(&b, 1, 1, opt->samples, sr->file,
					  !strcmp(sr->file, "walk") ? sample_walk : sample_register,
					  NULL, 1, v);
		lab_stats_of(v[0][0], opt->samples, &st);
		*value = st.median;
	}
	lab_bench_close(&b);
	return ret;
}

/* DIR/NAME.gp: the CSV beside it, one style per design, each series drawn
 * with a smaller point than the one before so coinciding ones stay seen. */
static int write_script(const char *dir, const struct series *sr, const bool *measured,
			const struct lab_options *opt, char *err, size_t errlen)
{
	char path[4096], style[96];
	bool first = true;
	double ps = 2.2;
	FILE *f;

	char what[64];

	if (!strcmp(sr->file, "slab"))
		snprintf(what, sizeof(what), "one reading per point");
	else
		snprintf(what, sizeof(what), "median of %u samples per point", opt->samples);
	snprintf(path, sizeof(path), "%s/%s.gp", dir, sr->file);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s.gp: %s", sr->file, strerror(errno));
		return -1;
	}
	fprintf(f, "# shrinklab sweep, ");
	shrinklab_print_version(f);
	fprintf(f, "# Re-render: cd to this directory, then: gnuplot %s.gp\n", sr->file);
	fprintf(f, "set terminal pngcairo size 900,600 font \",10\"\n"
		   "set output \"%s.png\"\n"
		   "set datafile separator \",\"\n"
		   "set key left top noenhanced\n"
		   "set grid\n"
		   "set logscale x 2\n"
		   "set logscale y 10\n"
		   "set title \"%s: 1 node, 4 geometry CPUs, %s\\n"
		   "(series that coincide show as nested markers)\" noenhanced\n"
		   "set xlabel \"%s\"\n"
		   "set ylabel \"%s\"\n",
		sr->file, sr->title, what, sr->xlabel, sr->ylabel);
	for (size_t i = 0; i < NR_DESIGNS; i++) {
		const char *name = shr_design_name((enum shr_design)i);

		if (!measured[i])
			continue;
		lab_plot_style(name, style, sizeof(style));
		fprintf(f, "%s\"%s.csv\" using 2:(strcol(1) eq \"%s\" ? $3 : 1/0) with linespoints "
			   "%s ps %.1f lw 1.5 title \"%s\"",
			first ? "plot " : ", \\\n     ", sr->file, name, style, ps, name);
		first = false;
		ps -= 0.3;
	}
	fputc('\n', f);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "writing %s.gp failed", sr->file);
		return -1;
	}
	return 0;
}

static int sweep_series(const char *dir, const struct series *sr, const struct lab_options *opt,
			bool *measured)
{
	char path[4096];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, sr->file);
	f = fopen(path, "w");
	if (!f) {
		shrinklab_error("sweep", "%s: %s", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "design,%s,%s\n", sr->x_is_cgroups ? "cgroups" : "mounts", sr->column);
	for (size_t di = 0; di < NR_DESIGNS && !ret; di++) {
		struct lab_design d = { .design = (enum shr_design)di };
		bool avail = true;

		for (int p = 0; p < NR_POINTS && avail && !ret; p++) {
			unsigned long base = sr->x_is_cgroups ? SWEEP_CGROUPS : SWEEP_MOUNTS;
			unsigned long x = (unsigned long)((double)(base << p) / 2 * opt->factor);
			double value = 0;

			x = x ? x : 1;
			ret = measure_point(&d, sr, x, opt, &value);
			if (ret == 1) {
				printf("%s: %s unavailable\n", sr->file, shr_design_name(d.design));
				avail = false;
				ret = 0;
			} else if (!ret) {
				measured[di] = true;
				fprintf(f, "%s,%lu,%.1f\n", shr_design_name(d.design), x, value);
			}
		}
	}
	if (ferror(f) | fclose(f)) {
		shrinklab_error("sweep", "writing %s failed", path);
		ret = ret ? ret : -EIO;
	}
	lab_progress_done();
	if (!ret)
		printf("wrote %s\n", path);
	else if (ret != -EIO)
		shrinklab_error("sweep", "%s: %s", sr->file, strerror(-ret));
	return ret;
}

int shrinklab_sweep(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
		{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "scale", required_argument, NULL, OPT_SCALE },
		{ "samples", required_argument, NULL, OPT_SAMPLES },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "no-plots", no_argument, NULL, OPT_NO_PLOTS },
		{ "series", required_argument, NULL, OPT_SERIES },
		{ NULL, 0, NULL, 0 },
	};
	static const int repeatable[] = { OPT_SERIES, 0 };
	bool wanted[sizeof(series) / sizeof(series[0])] = { false }, any = false;
	struct shrinklab_getopt g;
	struct lab_options opt;
	const char *dir = "sweep-out", *gnuplot = NULL;
	char err[512], gpbuf[4096];
	bool no_plots = false;
	unsigned long n;
	int c, ret = 0;

	lab_options_init(&opt);
	opt.scale_kind = LAB_SCALE_FACTOR;
	opt.factor = 1.0;
	shrinklab_getopt_init(&g, "sweep", ":h", longopts, repeatable, usage);
	while ((c = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		switch (c) {
		case OPT_QUIET:
			opt.quiet = true;
			break;
		case OPT_NO_PLOTS:
			no_plots = true;
			break;
		case OPT_OUT:
			dir = optarg;
			break;
		case OPT_SERIES: {
			size_t k = 0;

			while (k < sizeof(series) / sizeof(series[0]) && strcmp(optarg, series[k].file))
				k++;
			if (k == sizeof(series) / sizeof(series[0])) {
				shrinklab_bad_value("sweep", "--series", optarg,
						    "expected slab, walk or register");
				return SHRINKLAB_EXIT_USAGE;
			}
			wanted[k] = any = true;
			break;
		}
		case OPT_SCALE:
			if (lab_parse_scale(optarg, &opt) || opt.scale_kind != LAB_SCALE_FACTOR) {
				shrinklab_bad_value("sweep", "--scale", optarg,
						    "expected a number in [0.01, 3]");
				return SHRINKLAB_EXIT_USAGE;
			}
			break;
		case OPT_SAMPLES:
			if (shrinklab_count_value("sweep", "--samples", optarg, 5, LAB_MAX_SAMPLES,
						  NULL, &n))
				return SHRINKLAB_EXIT_USAGE;
			opt.samples = (unsigned int)n;
			break;
		default:
			return SHRINKLAB_EXIT_USAGE;
		}
	}
	if (c != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(c);
	if (optind < argc) {
		shrinklab_unexpected_argument("sweep", argv[optind]);
		return SHRINKLAB_EXIT_USAGE;
	}
	/* The outputs, before anything is measured. */
	if (lab_outdir_prepare(dir, err, sizeof(err))) {
		shrinklab_error("sweep", "--out '%.*s': %s", LAB_PATH_SHOWN, dir, err);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (!no_plots) {
		gnuplot = lab_gnuplot_find(gpbuf, sizeof(gpbuf), err, sizeof(err));
		if (!gnuplot) {
			shrinklab_error("sweep", "%s", err);
			return SHRINKLAB_EXIT_FAILED;
		}
	}
	lab_progress_enable(!opt.quiet);
	for (size_t s = 0; s < sizeof(series) / sizeof(series[0]) && !ret; s++) {
		bool measured[NR_DESIGNS] = { false };
		char script[64];

		if (any && !wanted[s])
			continue;
		ret = sweep_series(dir, &series[s], &opt, measured);
		if (ret || !gnuplot)
			continue;
		snprintf(script, sizeof(script), "%s.gp", series[s].file);
		if (write_script(dir, &series[s], measured, &opt, err, sizeof(err)) ||
		    lab_gnuplot_run(gnuplot, dir, script, err, sizeof(err))) {
			shrinklab_error("sweep", "plot %s: %s", series[s].file, err);
			ret = -1;
		} else {
			printf("wrote %s/%s.png (script %s)\n", dir, series[s].file, script);
		}
	}
	return ret ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}
