/* SPDX-License-Identifier: MIT */
/*
 * shrinklab reproduce / run: parse the options, check the scale against the
 * machine and the outputs (JSON file, plot directory, gnuplot) before
 * allocating anything, run the experiments of the table (all of them, or
 * one design on one experiment for "run"), attach the seeds' figures where
 * the geometry matches, judge the claims, and print the tables, the
 * verdicts, the JSON and the plots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "shrinklab.h"

#define DEFAULT_PLOT_DIR "shrinklab-plots"

struct cli {
	const char *sub;
	struct lab_options opt;
	const char *json;
	const char *data;
	const char *plots;
	bool no_plots;
	bool selected[16];
	bool any_selected;
	bool run_mode;
	bool have_design;
	struct lab_design design;
};

enum {
	OPT_SCALE = SHRINKLAB_OPT_FIRST_OWN,
	OPT_SAMPLES,
	OPT_MEM_BUDGET,
	OPT_JSON,
	OPT_DATA,
	OPT_QUIET,
	OPT_EXPERIMENT,
	OPT_PLOTS,
	OPT_NO_PLOTS,
	OPT_DESIGN,
	OPT_UNITS,
	OPT_EXPAND_BATCH,
	OPT_NONSLAB_IDS,
	OPT_LRU_REPARENT,
	OPT_NO_ROOT_BITS,
	OPT_NOKMEM,
	OPT_MOUNTS,
	OPT_CGROUPS,
	OPT_NODES,
	OPT_CPUS,
};

static const struct option common_options[] = {
	{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
	{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "mem-budget", required_argument, NULL, OPT_MEM_BUDGET },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "data", required_argument, NULL, OPT_DATA },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "experiment", required_argument, NULL, OPT_EXPERIMENT },
	{ "plots", required_argument, NULL, OPT_PLOTS },
	{ "no-plots", no_argument, NULL, OPT_NO_PLOTS },
};
#define NR_COMMON (sizeof(common_options) / sizeof(common_options[0]))

static const struct option run_options[] = {
	{ "design", required_argument, NULL, OPT_DESIGN },
	{ "units", required_argument, NULL, OPT_UNITS },
	{ "expand-batch", required_argument, NULL, OPT_EXPAND_BATCH },
	{ "nonslab-ids", no_argument, NULL, OPT_NONSLAB_IDS },
	{ "lru-reparent", required_argument, NULL, OPT_LRU_REPARENT },
	{ "no-root-bits", no_argument, NULL, OPT_NO_ROOT_BITS },
	{ "nokmem", no_argument, NULL, OPT_NOKMEM },
	{ "mounts", required_argument, NULL, OPT_MOUNTS },
	{ "cgroups", required_argument, NULL, OPT_CGROUPS },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "cpus", required_argument, NULL, OPT_CPUS },
};
#define NR_RUN (sizeof(run_options) / sizeof(run_options[0]))

static void usage(FILE *out, bool run_mode)
{
	char names[LAB_DESIGN_NAMES_LEN];

	lab_design_names(names, sizeof(names), ", ");
	if (run_mode)
		fprintf(out,
			"usage: shrinklab run --design D [design options] [scale options]\n"
			"                     [--experiment ID] [common options]\n"
			"\n"
			"Run one experiment (default seed000-vm) with one design configuration. A\n"
			"seed figure is shown, and judged, only where the run is at the seed's\n"
			"geometry; a custom scale prints its own geometry and no seed claims.\n"
			"\ndesign options:\n"
			"  --design D         %s\n"
			"  --units S          where units come from: cache (the seeds' dedicated\n"
			"                     cache) or kmalloc (kmalloc-1k); default: kmalloc for\n"
			"                     prealloc (mainline), cache for the others\n"
			"  --expand-batch N   ids per growth step (flat, prealloc), 1..65536\n"
			"  --nonslab-ids      second id space for NONSLAB shrinkers (needs --nokmem)\n"
			"  --lru-reparent M   how rmdir finds a cgroup's lists: all (visit every\n"
			"                     memcg-aware list_lru, the kernel's walk) or index (only\n"
			"                     the cgroup's own); default: index for indexed, else all\n"
			"  --no-root-bits     indexed: the mounts keep no root bits, so global reclaim\n"
			"                     calls each mount's shrinker at the root on every node,\n"
			"                     as a kernel without root bits does\n"
			"\nscale options (override the experiment's):\n"
			"  --mounts N         1..100000000\n"
			"  --cgroups M        1..60000\n"
			"  --nodes K          1..64\n"
			"  --cpus C           geometry CPUs (slab layout), 1..65536\n"
			"  --nokmem           kmem accounting off\n"
			"  --experiment ID    the workload (default seed000-vm)\n"
			"  --plots DIR        also write DIR/ID.gp and render DIR/ID.png\n",
			names);
	else
		fprintf(out,
			"usage: shrinklab reproduce [--experiment ID]... [common options]\n"
			"\n"
			"Run every seed experiment with every design side by side, compare with the\n"
			"seeds' published figures where we measured at the seeds' geometry, and\n"
			"judge each seed claim on the measured spread. A design whose host cannot\n"
			"be built (out of memory) is 'unavailable'.\n"
			"  --experiment ID    only this experiment (repeatable)\n"
			"  --plots DIR        where the plots go (default %s): DIR/ID.gp, a\n"
			"                     gnuplot script with its data, and DIR/ID.png\n"
			"  --no-plots         no plots (and no need for gnuplot)\n",
			DEFAULT_PLOT_DIR);
	fprintf(out,
		"\ncommon options (--opt value or --opt=value; each at most once unless said):\n"
		"  --scale S          default (each experiment at the seed's geometry where\n"
		"                     that fits minutes and memory; the tables say), seed,\n"
		"                     quick (x0.01, seconds), or a multiplier of the seeds'\n"
		"                     mounts and cgroups in (0, 3]\n"
		"  --samples N        timed samples after one warm-up, 5..64 (default 5)\n"
		"  --mem-budget B     memory for the hosts of one experiment, e.g. 8G; default:\n"
		"                     MemAvailable minus an eighth (at least 1 GiB); designs\n"
		"                     that do not fit run with fewer cgroups, said in the row\n"
		"  --json FILE        also write the results as JSON (schema shrinklab/2); '-'\n"
		"                     writes it to standard output and the tables to stderr\n"
		"  --data FILE        seed figures (default %s)\n"
		"  --quiet            no progress line\n"
		"  --version          the tool's version and git revision\n"
		"  --help             this help\n"
		"\nexperiments:",
		lab_seeds_default_path());
	for (size_t i = 0; i < lab_nr_experiments; i++)
		fprintf(out, " %s", lab_experiments[i].id);
	fputc('\n', out);
	shrinklab_print_exit_codes(out);
}

static int parse_value(struct cli *c, int opt, const char *v)
{
	const char *sub = c->sub;
	unsigned long n;

	switch (opt) {
	case OPT_SCALE:
		if (lab_parse_scale(v, &c->opt))
			return shrinklab_bad_value(sub, "--scale", v,
						   "expected seed, quick, default or a number in (0, 3]");
		return 0;
	case OPT_SAMPLES:
		if (lab_parse_ulong(v, 5, LAB_MAX_SAMPLES, &n))
			return shrinklab_bad_value(sub, "--samples", v, "expected a whole number 5..64");
		c->opt.samples = (unsigned int)n;
		return 0;
	case OPT_MEM_BUDGET:
		if (lab_parse_bytes(v, &c->opt.mem_budget))
			return shrinklab_bad_value(sub, "--mem-budget", v,
						   "expected bytes, e.g. 8G, 512M");
		c->opt.mem_budget_given = true;
		return 0;
	case OPT_JSON:
		c->json = v;
		return 0;
	case OPT_DATA:
		c->data = v;
		return 0;
	case OPT_PLOTS:
		c->plots = v;
		return 0;
	case OPT_EXPERIMENT: {
		const struct lab_experiment *e = lab_experiment_find(v);

		if (!e)
			return shrinklab_bad_value(sub, "--experiment", v, "unknown experiment");
		if (c->selected[e - lab_experiments])
			return shrinklab_bad_value(sub, "--experiment", v, "given twice");
		c->selected[e - lab_experiments] = true;
		c->any_selected = true;
		return 0;
	}
	case OPT_DESIGN:
		if (shr_design_parse(v, &c->design.design)) {
			char names[LAB_DESIGN_NAMES_LEN], what[LAB_DESIGN_NAMES_LEN + 16];

			lab_design_names(names, sizeof(names), " or ");
			snprintf(what, sizeof(what), "expected %s", names);
			return shrinklab_bad_value(sub, "--design", v, what);
		}
		c->have_design = true;
		return 0;
	case OPT_UNITS:
		if (!strcmp(v, "cache"))
			c->design.units = SHR_UNITS_CACHE;
		else if (!strcmp(v, "kmalloc"))
			c->design.units = SHR_UNITS_KMALLOC;
		else
			return shrinklab_bad_value(sub, "--units", v, "expected cache or kmalloc");
		return 0;
	case OPT_LRU_REPARENT:
		if (!strcmp(v, "all"))
			c->design.lru_reparent = SHR_LRU_REPARENT_ALL_LRUS;
		else if (!strcmp(v, "index"))
			c->design.lru_reparent = SHR_LRU_REPARENT_PER_CGROUP;
		else
			return shrinklab_bad_value(sub, "--lru-reparent", v, "expected all or index");
		return 0;
	case OPT_EXPAND_BATCH:
		if (lab_parse_ulong(v, 1, 65536, &n))
			return shrinklab_bad_value(sub, "--expand-batch", v,
						   "expected a whole number 1..65536");
		c->design.expand_batch = (unsigned int)n;
		return 0;
	case OPT_MOUNTS:
		if (lab_parse_ulong(v, 1, 100000000, &c->opt.mounts))
			return shrinklab_bad_value(sub, "--mounts", v,
						   "expected a whole number 1..100000000");
		return 0;
	case OPT_CGROUPS:
		if (lab_parse_ulong(v, 1, 60000, &c->opt.cgroups))
			return shrinklab_bad_value(sub, "--cgroups", v, "expected a whole number 1..60000");
		return 0;
	case OPT_NODES:
		if (lab_parse_ulong(v, 1, SHR_MAX_NUMNODES, &n))
			return shrinklab_bad_value(sub, "--nodes", v,
						   "expected a whole number 1..64 (SHR_MAX_NUMNODES)");
		c->opt.nodes = (int)n;
		return 0;
	case OPT_CPUS:
		if (lab_parse_ulong(v, 1, 65536, &n))
			return shrinklab_bad_value(sub, "--cpus", v, "expected a whole number 1..65536");
		c->opt.cpus = (unsigned int)n;
		return 0;
	default:
		return -1;
	}
}

/* Parse argv into @c; 1 = --help or --version printed, 0 = go, -1 = bad
 * usage (printed). */
static int parse(int argc, char **argv, struct cli *c)
{
	struct option longopts[NR_COMMON + NR_RUN + 1];
	static const int repeatable[] = { OPT_EXPERIMENT, 0 };
	struct shrinklab_getopt g;
	size_t n = 0;
	int opt;

	for (size_t i = 0; i < NR_COMMON; i++)
		longopts[n++] = common_options[i];
	for (size_t i = 0; c->run_mode && i < NR_RUN; i++)
		longopts[n++] = run_options[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));
	shrinklab_getopt_init(&g, c->sub, ":h", longopts, c->run_mode ? NULL : repeatable);
	while ((opt = shrinklab_getopt_next(&g, argc, argv)) != -1) {
		switch (opt) {
		case -2:
			return -1;
		case SHRINKLAB_OPT_HELP:
			usage(stdout, c->run_mode);
			return 1;
		case SHRINKLAB_OPT_VERSION:
			shrinklab_print_version(stdout);
			return 1;
		case OPT_QUIET:
			c->opt.quiet = true;
			break;
		case OPT_NO_PLOTS:
			c->no_plots = true;
			break;
		case OPT_NONSLAB_IDS:
			c->design.nonslab_ids = true;
			break;
		case OPT_NO_ROOT_BITS:
			c->design.no_root_bits = true;
			break;
		case OPT_NOKMEM:
			c->opt.kmem = 0;
			break;
		default:
			if (parse_value(c, opt, optarg))
				return -1;
			break;
		}
	}
	if (optind < argc) {
		shrinklab_error(c->sub, "unexpected argument '%s' (see 'shrinklab %s --help')",
				argv[optind], c->sub);
		return -1;
	}
	if (c->run_mode && !c->have_design) {
		shrinklab_error(c->sub, "--design is required (see 'shrinklab run --help')");
		return -1;
	}
	if (c->design.no_root_bits && c->design.design != SHR_DESIGN_INDEXED) {
		shrinklab_error(c->sub, "--no-root-bits: only indexed keeps root bits");
		return -1;
	}
	if (c->plots && c->no_plots) {
		shrinklab_error(c->sub, "--plots and --no-plots contradict each other");
		return -1;
	}
	if (!c->run_mode && !c->no_plots && !c->plots)
		c->plots = DEFAULT_PLOT_DIR;
	return 0;
}

/* Validate the design configuration of "run" before anything is allocated. */
static int check_design(const struct cli *c, const struct lab_scale *s)
{
	struct shr_host_params p;
	const char *why = NULL;

	shr_host_params_init(&p);
	p.design = c->design.design;
	p.units = c->design.units;
	p.expand_batch = c->design.expand_batch;
	p.nonslab_ids = c->design.nonslab_ids;
	p.lru_reparent = c->design.lru_reparent;
	p.kmem = s->kmem;
	p.nr_nodes = s->nodes;
	if (shr_host_params_check(&p, &why)) {
		shrinklab_error(c->sub, "--design %s: %s", shr_design_name(c->design.design), why);
		return -EINVAL;
	}
	return 0;
}

static bool selected(const struct cli *c, size_t i)
{
	return !c->any_selected || c->selected[i];
}

/* Everything that can be wrong with the request, before the first host. */
static int preflight(struct cli *c, struct lab_output *json, const char **gnuplot, char *gpbuf,
		     size_t gplen)
{
	char err[512];

	lab_budget_default(&c->opt);
	for (size_t i = 0; i < lab_nr_experiments; i++) {
		struct lab_scale s;
		size_t designs = c->run_mode ? 1 : lab_experiments[i].nr_designs;

		if (!selected(c, i))
			continue;
		lab_experiment_scale(&lab_experiments[i], &c->opt, &s);
		if (lab_check_feasible(&c->opt, &s, designs, err, sizeof(err))) {
			shrinklab_error(c->sub, "%s: %s", lab_experiments[i].id, err);
			return -EINVAL;
		}
		if (c->run_mode && check_design(c, &s))
			return -EINVAL;
	}
	if (lab_output_open(json, c->json, err, sizeof(err))) {
		shrinklab_error(c->sub, "--json '%s': %s", c->json, err);
		return -EINVAL;
	}
	*gnuplot = NULL;
	if (c->plots) {
		if (lab_outdir_prepare(c->plots, err, sizeof(err))) {
			shrinklab_error(c->sub, "--plots '%s': %s", c->plots, err);
			lab_output_abandon(json);
			return -EINVAL;
		}
		*gnuplot = lab_gnuplot_find(gpbuf, gplen, err, sizeof(err));
		if (!*gnuplot) {
			shrinklab_error(c->sub, "%s", err);
			lab_output_abandon(json);
			return -ENOENT;
		}
	}
	return 0;
}

static int run_all(struct cli *c)
{
	struct lab_run runs[16];
	struct lab_seeds seeds;
	struct lab_output json;
	struct lab_json_context ctx = { .subcommand = c->sub };
	char err[512], gpbuf[4096], label[LAB_LABEL_LEN];
	const char *gnuplot;
	bool plot_failed = false;
	FILE *out;
	uint64_t t0 = lab_now_ns();
	size_t nr = 0;
	int ret;

	if (c->run_mode && !c->any_selected)
		c->selected[lab_experiment_find("seed000-vm") - lab_experiments] = c->any_selected =
			true;
	ret = lab_seeds_load(&seeds, c->data, err, sizeof(err));
	if (ret) {
		shrinklab_error(c->sub, "%s: %s", c->data ? "--data" : "seed figures", err);
		return c->data ? SHRINKLAB_EXIT_USAGE : SHRINKLAB_EXIT_FAILED;
	}
	ret = preflight(c, &json, &gnuplot, gpbuf, sizeof(gpbuf));
	if (ret) {
		lab_seeds_free(&seeds);
		return ret == -ENOENT ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	/* With the JSON on stdout, people read the tables on stderr. */
	out = json.fd == 1 ? stderr : stdout;
	lab_progress_enable(!c->opt.quiet);
	lab_design_label(&c->design, label, sizeof(label));
	lab_report_header(out, c->sub, &c->opt, c->run_mode ? label : NULL);
	for (size_t i = 0; i < lab_nr_experiments && !ret; i++) {
		const struct lab_experiment *e = &lab_experiments[i];
		struct lab_run *r = &runs[nr];
		uint64_t e0;

		if (!selected(c, i))
			continue;
		memset(r, 0, sizeof(*r));
		r->exp = e;
		lab_experiment_scale(e, &c->opt, &r->scale);
		lab_scale_describe(e, &r->scale, r->scale_desc, sizeof(r->scale_desc));
		if (c->run_mode) {
			r->designs[0] = c->design;
			r->nr_designs = 1;
		} else {
			memcpy(r->designs, e->designs, e->nr_designs * sizeof(*e->designs));
			r->nr_designs = e->nr_designs;
		}
		e0 = lab_now_ns();
		ret = e->run(r, &c->opt);
		r->elapsed_ns = lab_now_ns() - e0;
		lab_progress_done();
		nr++;
		if (ret) {
			shrinklab_error(c->sub, "%s failed: %s", e->id,
					r->error[0] ? r->error : strerror(-ret));
			break;
		}
		lab_run_sort(r);
		lab_seeds_attach(&seeds, r);
		lab_verdicts_compute(r);
		lab_report_run(out, r);
		if (gnuplot && !plot_failed) {
			if (lab_plot_run(gnuplot, c->plots, r, &c->opt, err, sizeof(err))) {
				shrinklab_error(c->sub, "plot of %s: %s", e->id, err);
				plot_failed = true;
			} else {
				fprintf(out, "   plot: %s/%s.png (script %s.gp)\n", c->plots, e->id,
					e->id);
			}
		}
		fflush(out);
	}
	if (!ret) {
		lab_report_claims(out, runs, nr);
		fprintf(out, "\npeak RSS %.2f GiB, %.1f s in all\n",
			(double)lab_peak_rss() / (1ull << 30), (double)(lab_now_ns() - t0) / 1e9);
		if (json.path) {
			FILE *f = lab_output_begin(&json);

			ctx.opt = &c->opt;
			ctx.argc = shrinklab_command(&ctx.argv);
			ctx.elapsed_ns = lab_now_ns() - t0;
			ret = f ? lab_json_write(f, runs, nr, &ctx) : -errno;
			if (f) {
				int end = lab_output_end(&json, f);

				ret = ret ? ret : end;
			}
			if (ret)
				shrinklab_error(c->sub, "--json '%s': writing failed: %s", json.path,
						strerror(-ret));
		}
	}
	if (ret)
		lab_output_abandon(&json);
	for (size_t i = 0; i < nr; i++)
		lab_run_free(&runs[i]);
	lab_seeds_free(&seeds);
	return ret || plot_failed ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}

static int entry(int argc, char **argv, bool run_mode)
{
	struct cli c;
	int ret;

	memset(&c, 0, sizeof(c));
	lab_options_init(&c.opt);
	c.run_mode = run_mode;
	c.sub = run_mode ? "run" : "reproduce";
	ret = parse(argc, argv, &c);
	if (ret)
		return ret > 0 ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
	return run_all(&c);
}

int shrinklab_reproduce(int argc, char **argv)
{
	return entry(argc, argv, false);
}

int shrinklab_run(int argc, char **argv)
{
	return entry(argc, argv, true);
}
