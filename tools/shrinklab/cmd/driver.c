/* SPDX-License-Identifier: MIT */
/*
 * The driver of reproduce and run (driver.h): parse the options (the
 * common ones here, the subcommand's through its spec), check the scale
 * against the machine and the outputs (JSON file, plot directory, gnuplot)
 * before allocating anything, run the experiments of the table (all of
 * them with their designs, or one design on the ones selected), attach the
 * seeds' figures where the geometry matches, judge the claims, and print
 * the tables, the verdicts, the JSON and the plots.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "design_label.h"
#include "driver.h"
#include "experiments.h"
#include "json.h"
#include "machine.h"
#include "outputs.h"
#include "plot.h"
#include "report.h"
#include "rows.h"
#include "seeds.h"
#include "stats.h"
#include "units.h"
#include "verdict.h"
#include "version.h"

static const struct option common_options[] = {
	{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
	{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
	{ "scale", required_argument, NULL, LAB_DRIVER_OPT_SCALE },
	{ "samples", required_argument, NULL, LAB_DRIVER_OPT_SAMPLES },
	{ "mem-budget", required_argument, NULL, LAB_DRIVER_OPT_MEM_BUDGET },
	{ "json", required_argument, NULL, LAB_DRIVER_OPT_JSON },
	{ "csv", required_argument, NULL, LAB_DRIVER_OPT_CSV },
	{ "markdown", required_argument, NULL, LAB_DRIVER_OPT_MARKDOWN },
	{ "rows", no_argument, NULL, LAB_DRIVER_OPT_ROWS },
	{ "data", required_argument, NULL, LAB_DRIVER_OPT_DATA },
	{ "quiet", no_argument, NULL, LAB_DRIVER_OPT_QUIET },
	{ "experiment", required_argument, NULL, LAB_DRIVER_OPT_EXPERIMENT },
	{ "plots", required_argument, NULL, LAB_DRIVER_OPT_PLOTS },
	{ "no-plots", no_argument, NULL, LAB_DRIVER_OPT_NO_PLOTS },
};
#define NR_COMMON (sizeof(common_options) / sizeof(common_options[0]))
static const struct option geometry_options[] = {
	{ "nokmem", no_argument, NULL, LAB_DRIVER_OPT_NOKMEM },
	{ "mounts", required_argument, NULL, LAB_DRIVER_OPT_MOUNTS },
	{ "cgroups", required_argument, NULL, LAB_DRIVER_OPT_CGROUPS },
	{ "nodes", required_argument, NULL, LAB_DRIVER_OPT_NODES },
	{ "cpus", required_argument, NULL, LAB_DRIVER_OPT_CPUS },
};
#define NR_GEOMETRY (sizeof(geometry_options) / sizeof(geometry_options[0]))
#define MAX_OWN 16

void lab_driver_usage_common(FILE *out)
{
	fprintf(out,
		"\ncommon options (--opt value or --opt=value; each at most once unless said):\n"
		"  --scale S          default (each experiment at the seed's geometry where\n"
		"                     that fits minutes and memory; the tables say), seed,\n"
		"                     quick (x0.01, seconds), or a multiplier of the seeds'\n"
		"                     mounts and cgroups in [0.01, 3]\n"
		"  --samples N        timed samples after one warm-up, 5..64 (default 5)\n"
		"  --mem-budget B     memory for the hosts of one experiment, e.g. 8G; default:\n"
		"                     MemAvailable minus an eighth (at least 1 GiB); designs\n"
		"                     that do not fit run with fewer cgroups, said in the row\n"
		"  --json FILE        also write the results as JSON (schema shrinklab/2); '-'\n"
		"                     writes it to standard output and the tables to stderr\n"
		"  --csv FILE         also write every row as CSV, a line each ('-' as above)\n"
		"  --markdown FILE    also write the decision tables as Markdown ('-' as above)\n"
		"  --rows             also print every row on a line of its own, with the\n"
		"                     seed's figure and the samples' range\n"
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

void lab_driver_usage_geometry(FILE *out)
{
	fprintf(out,
		"\ngeometry options (override the experiment's; a seed figure is shown and\n"
		"judged only where the run happens to be at the seed's geometry):\n"
		"  --mounts N         1..100000000\n"
		"  --cgroups M        1..60000\n"
		"  --nodes K          1..%d\n"
		"  --cpus C           geometry CPUs (slab layout), 1..65536\n"
		"  --nokmem           kmem accounting off\n", SHR_MAX_NUMNODES);
}

/* A geometry option: 0, or -1 printed; 1 when @opt is none. */
static int geometry_value(struct lab_request *r, int opt, const char *v)
{
	const char *sub = r->sub;
	unsigned long n;

	switch (opt) {
	case LAB_DRIVER_OPT_NOKMEM:
		r->opt.kmem = 0;
		return 0;
	case LAB_DRIVER_OPT_MOUNTS:
		return shrinklab_count_value(sub, "--mounts", v, 1, 100000000, NULL, &r->opt.mounts);
	case LAB_DRIVER_OPT_CGROUPS:
		return shrinklab_count_value(sub, "--cgroups", v, 1, 60000, NULL, &r->opt.cgroups);
	case LAB_DRIVER_OPT_NODES:
		if (shrinklab_count_value(sub, "--nodes", v, 1, SHR_MAX_NUMNODES,
					  " (SHR_MAX_NUMNODES)", &n))
			return -1;
		r->opt.nodes = (int)n;
		return 0;
	case LAB_DRIVER_OPT_CPUS:
		if (shrinklab_count_value(sub, "--cpus", v, 1, 65536, NULL, &n))
			return -1;
		r->opt.cpus = (unsigned int)n;
		return 0;
	default:
		return 1;
	}
}

/* A common option with a value: 0, or -1 printed. */
static int common_value(struct lab_request *r, int opt, const char *v)
{
	const char *sub = r->sub;
	unsigned long n;

	switch (opt) {
	case LAB_DRIVER_OPT_SCALE:
		if (lab_parse_scale(v, &r->opt))
			return shrinklab_bad_value(sub, "--scale", v,
						   "expected seed, quick, default or a number in "
						   "[0.01, 3]");
		return 0;
	case LAB_DRIVER_OPT_SAMPLES:
		if (shrinklab_count_value(sub, "--samples", v, 5, LAB_MAX_SAMPLES, NULL, &n))
			return -1;
		r->opt.samples = (unsigned int)n;
		return 0;
	case LAB_DRIVER_OPT_MEM_BUDGET:
		if (lab_parse_bytes(v, &r->opt.mem_budget))
			return shrinklab_bad_value(sub, "--mem-budget", v,
						   "expected bytes, e.g. 8G, 512M");
		r->opt.mem_budget_given = true;
		return 0;
	case LAB_DRIVER_OPT_JSON:
		r->json = v;
		return 0;
	case LAB_DRIVER_OPT_CSV:
		r->csv = v;
		return 0;
	case LAB_DRIVER_OPT_MARKDOWN:
		r->markdown = v;
		return 0;
	case LAB_DRIVER_OPT_ROWS:
		r->rows = true;
		return 0;
	case LAB_DRIVER_OPT_DATA:
		r->data = v;
		return 0;
	case LAB_DRIVER_OPT_PLOTS:
		r->plots = v;
		return 0;
	case LAB_DRIVER_OPT_EXPERIMENT: {
		const struct lab_experiment *e = lab_experiment_find(v);

		if (!e) {
			char known[512];
			int n = snprintf(known, sizeof(known), "unknown experiment; expected one of");

			for (size_t i = 0; i < lab_nr_experiments && n > 0 &&
					   (size_t)n < sizeof(known); i++)
				n += snprintf(known + n, sizeof(known) - (size_t)n, "%s %s",
					      i ? "," : "", lab_experiments[i].id);
			return shrinklab_bad_value(sub, "--experiment", v, known);
		}
		if (r->selected[e - lab_experiments])
			return shrinklab_bad_value(sub, "--experiment", v, "given twice");
		r->selected[e - lab_experiments] = true;
		r->any_selected = true;
		return 0;
	}
	case LAB_DRIVER_OPT_QUIET:
		r->opt.quiet = true;
		return 0;
	case LAB_DRIVER_OPT_NO_PLOTS:
		r->no_plots = true;
		return 0;
	default:
		return 1;
	}
}

/* Parse argv into @r: -1 = go, else the exit code to return now (0 after
 * --help or --version). */
static int parse(int argc, char **argv, const struct lab_driver_spec *spec,
		 struct lab_request *r)
{
	struct option longopts[NR_COMMON + NR_GEOMETRY + MAX_OWN + 1];
	struct shrinklab_getopt g;
	size_t n = 0;
	int opt, ret;

	for (size_t i = 0; i < NR_COMMON; i++)
		longopts[n++] = common_options[i];
	for (size_t i = 0; spec->geometry && i < NR_GEOMETRY; i++)
		longopts[n++] = geometry_options[i];
	for (size_t i = 0; i < spec->nr_own && i < MAX_OWN; i++)
		longopts[n++] = spec->own[i];
	memset(&longopts[n], 0, sizeof(longopts[n]));
	shrinklab_getopt_init(&g, spec->sub, ":h", longopts, spec->repeatable, spec->usage);
	while ((opt = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		ret = common_value(r, opt, optarg);
		if (ret > 0)
			ret = geometry_value(r, opt, optarg);
		if (ret > 0)
			ret = spec->own_value(r, opt, optarg);
		if (ret)
			return SHRINKLAB_EXIT_USAGE;
	}
	if (opt != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(opt);
	if (optind < argc) {
		shrinklab_unexpected_argument(spec->sub, argv[optind]);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (spec->check(r))
		return SHRINKLAB_EXIT_USAGE;
	if (r->plots && r->no_plots) {
		shrinklab_error(spec->sub, "--plots and --no-plots contradict each other");
		return SHRINKLAB_EXIT_USAGE;
	}
	return -1;
}

static bool selected(const struct lab_request *r, size_t i)
{
	return !r->any_selected || r->selected[i];
}

/* Open every output asked for: 0, or -EINVAL (printed, none left open). */
static int outs_open(const struct lab_request *r, struct lab_outputs *o)
{
	const char *path[LAB_NR_OUTS] = { r->json, r->csv, r->markdown };
	char err[768];

	if (lab_outputs_open(o, path, err, sizeof(err))) {
		shrinklab_error(r->sub, "%s", err);
		return -EINVAL;
	}
	return 0;
}

/* The designs each experiment will run with. */
static size_t designs_of(const struct lab_request *r, size_t i)
{
	return r->one_design ? 1 : r->nr_designs ? r->nr_designs : lab_experiments[i].nr_designs;
}

/* Everything that can be wrong with the request, before the first host. */
static int preflight(const struct lab_driver_spec *spec, struct lab_request *r,
		     struct lab_outputs *outs, const char **gnuplot, char *gpbuf, size_t gplen)
{
	char err[512];

	lab_budget_default(&r->opt);
	for (size_t i = 0; i < lab_nr_experiments; i++) {
		struct lab_scale s;

		if (!selected(r, i))
			continue;
		lab_experiment_scale(&lab_experiments[i], &r->opt, &s);
		if (lab_budget_fit_as(&r->opt, &s, designs_of(r, i), err, sizeof(err)) ||
		    lab_check_feasible(&r->opt, &s, designs_of(r, i), err, sizeof(err))) {
			shrinklab_error(r->sub, "%s: %s", lab_experiments[i].id, err);
			return -EINVAL;
		}
		if (spec->check_scale && spec->check_scale(r, &s))
			return -EINVAL;
	}
	if (outs_open(r, outs))
		return -EINVAL;
	*gnuplot = NULL;
	if (r->plots) {
		if (lab_outdir_prepare(r->plots, err, sizeof(err))) {
			shrinklab_error(r->sub, "--plots '%.*s': %s", LAB_PATH_SHOWN, r->plots, err);
			lab_outputs_abandon(outs);
			return -EINVAL;
		}
		*gnuplot = lab_gnuplot_find(gpbuf, gplen, err, sizeof(err));
		if (!*gnuplot) {
			shrinklab_error(r->sub, "%s", err);
			lab_outputs_abandon(outs);
			return -ENOENT;
		}
	}
	return 0;
}

/* The run of experiment @e into @run, at the scale @r asks for. */
static int run_one(const struct lab_request *r, const struct lab_experiment *e,
		   struct lab_run *run)
{
	uint64_t e0;
	int ret;

	memset(run, 0, sizeof(*run));
	run->exp = e;
	lab_experiment_scale(e, &r->opt, &run->scale);
	lab_scale_describe(e, &run->scale, run->scale_desc, sizeof(run->scale_desc));
	if (r->one_design) {
		run->designs[0] = r->design;
		run->nr_designs = 1;
	} else if (r->nr_designs) {
		memcpy(run->designs, r->designs, r->nr_designs * sizeof(*r->designs));
		run->nr_designs = r->nr_designs;
	} else {
		memcpy(run->designs, e->designs, e->nr_designs * sizeof(*e->designs));
		run->nr_designs = e->nr_designs;
	}
	e0 = lab_now_ns();
	ret = e->run(run, &r->opt);
	run->elapsed_ns = lab_now_ns() - e0;
	lab_progress_done();
	return ret;
}

/* What the writers of the outputs are given. */
struct outs_arg {
	const struct lab_run *runs;
	size_t nr;
	const struct lab_json_context *ctx;
};

static int write_json(FILE *f, const void *arg)
{
	const struct outs_arg *a = arg;

	return lab_json_write(f, a->runs, a->nr, a->ctx);
}

static int write_csv(FILE *f, const void *arg)
{
	const struct outs_arg *a = arg;

	return lab_csv_write(f, a->runs, a->nr);
}

static int write_markdown(FILE *f, const void *arg)
{
	const struct outs_arg *a = arg;

	return lab_report_markdown(f, a->runs, a->nr);
}

/* The end of a run (lab_outputs_finish()): 0 or -errno (printed). */
static int write_outs(const struct lab_request *r, struct lab_outputs *outs, FILE *tables,
		      const struct lab_run *runs, size_t nr, uint64_t t0)
{
	static const lab_output_writer writers[LAB_NR_OUTS] = { write_json, write_csv,
								 write_markdown };
	struct lab_json_context ctx = { .subcommand = r->sub, .opt = &r->opt };
	struct outs_arg arg = { .runs = runs, .nr = nr, .ctx = &ctx };
	char err[768];
	int ret;

	ctx.argc = shrinklab_command(&ctx.argv);
	ctx.elapsed_ns = lab_now_ns() - t0;
	ret = lab_outputs_finish(outs, tables, writers, &arg, err, sizeof(err));
	if (ret)
		shrinklab_error(r->sub, "%s", err);
	return ret;
}

/* A run with seed figures none of whose rows is at the seed's geometry
 * compares nothing with the seed: say so, not only "not compared" per
 * claim (at --nodes 4, compare matched no seed and said nothing). */
static void report_no_seed_match(FILE *out, const struct lab_run *run)
{
	size_t with_seed = 0;

	for (size_t i = 0; i < run->nr_rows; i++) {
		if (run->rows[i].seed_comparable)
			return;
		with_seed += run->rows[i].seed != NULL;
	}
	if (with_seed)
		fprintf(out, "   no row is at the seed's geometry: none of the %zu rows with a seed "
			"figure is compared with it (the seed's geometry is above)\n", with_seed);
}

static int run_all(const struct lab_driver_spec *spec, struct lab_request *r)
{
	static struct lab_run runs[16];
	struct lab_seeds seeds;
	struct lab_outputs outs;
	char err[512], gpbuf[4096], label[LAB_LABEL_LEN];
	const char *gnuplot;
	bool plot_failed = false;
	FILE *out;
	uint64_t t0 = lab_now_ns();
	size_t nr = 0, nr_selected = 0;
	int ret;

	ret = lab_seeds_load(&seeds, r->data, err, sizeof(err));
	if (ret) {
		shrinklab_error(r->sub, "%s: %s", r->data ? "--data" : "seed figures", err);
		return r->data ? SHRINKLAB_EXIT_USAGE : SHRINKLAB_EXIT_FAILED;
	}
	ret = preflight(spec, r, &outs, &gnuplot, gpbuf, sizeof(gpbuf));
	if (ret) {
		lab_seeds_free(&seeds);
		return ret == -ENOENT ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	/* With an output on stdout, people read the tables on stderr. */
	out = lab_outputs_on_stdout(&outs) ? stderr : stdout;
	lab_progress_enable(!r->opt.quiet);
	for (size_t i = 0; i < lab_nr_experiments; i++)
		nr_selected += selected(r, i);
	lab_design_label(&r->design, label, sizeof(label));
	lab_report_header(out, r->sub, &r->opt, r->one_design ? label : NULL);
	for (size_t i = 0; i < lab_nr_experiments && !ret; i++) {
		const struct lab_experiment *e = &lab_experiments[i];
		struct lab_run *run = &runs[nr];

		if (!selected(r, i))
			continue;
		lab_progress_experiment(e->id, nr + 1, nr_selected);
		ret = run_one(r, e, run);
		nr++;
		if (ret) {
			unsigned long long unmapped, limit = lab_as_limit(&unmapped);

			shrinklab_error(r->sub, "%s failed: %s%s", e->id,
					run->error[0] ? run->error : strerror(-ret),
					ret == -ENOMEM && limit ? " (under an address-space limit: "
					"raise it or lower --scale)" : "");
			break;
		}
		lab_run_sort(run);
		lab_seeds_attach(&seeds, run);
		lab_verdicts_compute(run);
		lab_report_run(out, run, LAB_TABLE_TEXT);
		report_no_seed_match(out, run);
		lab_report_claims(out, run);
		if (r->rows)
			lab_report_run_rows(out, run);
		if (gnuplot && !plot_failed) {
			if (lab_plot_run(gnuplot, r->plots, run, &r->opt, err, sizeof(err))) {
				shrinklab_error(r->sub, "plot of %s: %s", e->id, err);
				plot_failed = true;
			} else {
				fprintf(out, "   plot: %s/%s.png (script %s.gp)\n", r->plots, e->id,
					e->id);
			}
		}
		/* A reader that went away: stop now, not after every experiment. */
		ret = lab_tables_written(out, err, sizeof(err));
		if (ret)
			shrinklab_error(r->sub, "%s", err);
	}
	if (!ret) {
		lab_report_decisions(out, runs, nr);
		lab_report_end(out, lab_now_ns() - t0);
		ret = write_outs(r, &outs, out, runs, nr, t0);
	}
	if (ret)
		lab_outputs_abandon(&outs);
	for (size_t i = 0; i < nr; i++)
		lab_run_free(&runs[i]);
	lab_seeds_free(&seeds);
	return ret || plot_failed ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}

int lab_driver_main(int argc, char **argv, const struct lab_driver_spec *spec)
{
	struct lab_request r;
	int ret;

	memset(&r, 0, sizeof(r));
	lab_options_init(&r.opt);
	r.sub = spec->sub;
	ret = parse(argc, argv, spec, &r);
	if (ret >= 0)
		return ret;
	return run_all(spec, &r);
}
