/* SPDX-License-Identifier: MIT */
/*
 * shrinklab sweep: how each figure grows. Three series, one line per design:
 *   slab.csv      slab bytes per empty cgroup against mounts
 *   walk.csv      walk ns per empty cgroup against mounts
 *   register.csv  ns to register 640 mounts against cgroups alive
 * Every point is a fresh host measured like the experiments do. With
 * gnuplot on the PATH each CSV also becomes a PNG (pngcairo).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <shrinker/shrinker.h>

#include "lab.h"
#include "shrinklab.h"

#define NR_POINTS 5
#define SWEEP_CGROUPS 200
#define SWEEP_MOUNTS 2000
#define SWEEP_BATCH 640

static const enum shr_design sweep_designs[] = {
	SHR_DESIGN_PREALLOC, SHR_DESIGN_ARRAY_ONDEMAND, SHR_DESIGN_XARRAY, SHR_DESIGN_FLAT,
	SHR_DESIGN_NOBITMAP, SHR_DESIGN_INDEXED,
};
#define NR_DESIGNS (sizeof(sweep_designs) / sizeof(sweep_designs[0]))

struct series {
	const char *file, *title, *xlabel, *ylabel;
	bool x_is_cgroups;
};

static const struct series series[] = {
	{ "slab", "slab bytes per empty cgroup", "mounts", "bytes", false },
	{ "walk", "walk time per empty cgroup", "mounts", "ns", false },
	{ "register", "registering 640 mounts", "cgroups alive", "ns", true },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab sweep [--out DIR] [--scale S] [--samples N] [--quiet]\n"
		"\n"
		"Write DIR/{slab,walk,register}.csv (design,x,value) and, when gnuplot is\n"
		"installed, DIR/*.png: slab bytes per empty cgroup and walk time against\n"
		"mounts (%d cgroups), registration of %d mounts against cgroups alive\n"
		"(%d mounts). Points are multiples of the scale (default 1: up to %d mounts\n"
		"and %d cgroups). Unavailable designs are listed, not plotted.\n"
		"  --out DIR     output directory (default sweep-out)\n"
		"  --scale S     multiplier of the points, in (0, 3]\n"
		"  --samples N   timed samples after one warm-up, 5..64\n"
		"  --quiet       no progress line\n",
		SWEEP_CGROUPS, SWEEP_BATCH, SWEEP_MOUNTS, SWEEP_MOUNTS * 8, SWEEP_CGROUPS * 8);
}

/* 0 and *value, 1 when the design is unavailable, or -errno. */
static int measure_point(const struct lab_design *d, const struct series *sr, unsigned long x,
			 const struct lab_options *opt, double *value)
{
	struct lab_scale s = { .nodes = 1, .cpus = 4, .kmem = true };
	struct lab_bench b;
	double v[64];
	unsigned long before;
	int ret;

	ret = lab_bench_open(&b, d, &s);
	if (ret)
		return b.why ? 1 : ret; /* 1: not available in this build */
	ret = lab_bench_mount(&b, sr->x_is_cgroups ? SWEEP_MOUNTS : x);
	before = lab_bench_sunreclaim(&b);
	if (!ret)
		ret = lab_bench_mkcg(&b, sr->x_is_cgroups ? x : SWEEP_CGROUPS);
	for (unsigned int i = 0; !ret && i <= opt->samples; i++) {
		uint64_t t0 = lab_now_ns(), ns = 0;

		lab_progress("sweep %s: %s at %lu, sample %u", sr->file, b.label, x, i);
		if (!strcmp(sr->file, "slab")) {
			*value = (double)(lab_bench_sunreclaim(&b) - before) / (double)b.nr_cgs;
			break;
		} else if (!strcmp(sr->file, "walk")) {
			ret = lab_bench_walk(&b, SHR_DEF_PRIORITY, &ns);
			ns /= b.nr_cgs;
		} else {
			ret = lab_bench_mount(&b, SWEEP_BATCH);
			ns = lab_now_ns() - t0;
		}
		if (i)
			v[i - 1] = (double)ns;
	}
	if (!ret && strcmp(sr->file, "slab")) {
		struct lab_stats st;

		lab_stats_of(v, opt->samples, &st);
		*value = st.median;
	}
	lab_bench_close(&b);
	return ret;
}

static void plot(const char *dir, const struct series *sr, const bool *measured)
{
	char cmd[4096];
	int n = snprintf(cmd, sizeof(cmd),
			 "gnuplot -e \"set terminal pngcairo size 900,600; set output '%s/%s.png';"
			  " set datafile separator ','; set key left top; set grid; set logscale x 2;"
			 " set logscale y 10;"
			 " set title '%s'; set xlabel '%s'; set ylabel '%s';"
			 " plot for [d in '",
			 dir, sr->file, sr->title, sr->xlabel, sr->ylabel);

	for (size_t i = 0; i < NR_DESIGNS && n > 0 && (size_t)n < sizeof(cmd); i++)
		if (measured[i])
			n += snprintf(cmd + n, sizeof(cmd) - (size_t)n, "%s ",
			      shr_design_name(sweep_designs[i]));
	if (n > 0 && (size_t)n < sizeof(cmd))
		snprintf(cmd + n, sizeof(cmd) - (size_t)n,
			 "'] '%s/%s.csv' using 2:(strcol(1) eq d ? \\$3 : 1/0) with linespoints"
			 " title d\" 2>/dev/null",
			 dir, sr->file);
	if (system(cmd))
		fprintf(stderr, "shrinklab sweep: gnuplot failed for %s\n", sr->file);
}

static int sweep_series(const char *dir, const struct series *sr, const struct lab_options *opt,
			bool *measured)
{
	char path[1024];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s.csv", dir, sr->file);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "shrinklab sweep: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	fprintf(f, "design,%s,%s\n", sr->x_is_cgroups ? "cgroups" : "mounts", sr->ylabel);
	for (size_t di = 0; di < NR_DESIGNS && !ret; di++) {
		struct lab_design d = { .design = sweep_designs[di] };
		bool avail = true;

		for (int p = 0; p < NR_POINTS && avail && !ret; p++) {
			unsigned long base = sr->x_is_cgroups ? SWEEP_CGROUPS : SWEEP_MOUNTS;
			unsigned long x = (unsigned long)((double)(base << p) / 2 * opt->factor);
			double value = 0;

			x = x ? x : 1;
			ret = measure_point(&d, sr, x, opt, &value);
			if (ret == 1) {
				printf("%s: %s unavailable in this build\n", sr->file,
				       shr_design_name(d.design));
				avail = false;
				ret = 0;
			} else if (!ret) {
				measured[di] = true;
				fprintf(f, "%s,%lu,%.1f\n", shr_design_name(d.design), x, value);
			}
		}
	}
	fclose(f);
	lab_progress_done();
	if (!ret)
		printf("wrote %s\n", path);
	return ret;
}

static bool have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

int shrinklab_sweep(int argc, char **argv)
{
	struct lab_options opt;
	const char *dir = "sweep-out";
	unsigned long n;
	int ret = 0;

	lab_options_init(&opt);
	opt.factor = 1.0;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--quiet")) {
			opt.quiet = true;
			continue;
		} else if (!v) {
			fprintf(stderr, "shrinklab sweep: %s: unknown or missing its value\n", argv[i]);
			return SHRINKLAB_EXIT_USAGE;
		} else if (!strcmp(argv[i], "--out")) {
			dir = v;
		} else if (!strcmp(argv[i], "--scale")) {
			if (lab_parse_scale(v, &opt) || !strcmp(v, "seed") || !strcmp(v, "quick") ||
			    !strcmp(v, "default")) {
				fprintf(stderr, "shrinklab sweep: --scale '%s': expected a number in (0, 3]\n", v);
				return SHRINKLAB_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--samples")) {
			if (lab_parse_ulong(v, 5, 64, &n)) {
				fprintf(stderr, "shrinklab sweep: --samples '%s': expected 5..64\n", v);
				return SHRINKLAB_EXIT_USAGE;
			}
			opt.samples = (unsigned int)n;
		} else {
			fprintf(stderr, "shrinklab sweep: unknown option '%s'\n", argv[i]);
			return SHRINKLAB_EXIT_USAGE;
		}
		i++;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "shrinklab sweep: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	lab_progress_enable(!opt.quiet);
	for (size_t s = 0; s < sizeof(series) / sizeof(series[0]) && !ret; s++) {
		bool measured[NR_DESIGNS] = { false };

		ret = sweep_series(dir, &series[s], &opt, measured);
		if (!ret && have_gnuplot())
			plot(dir, &series[s], measured);
	}
	return ret ? 1 : 0;
}
