/* SPDX-License-Identifier: MIT */
/*
 * The shared part of shrinklab kernel and shrinklab containers
 * (model_cmd.h): a subcommand parses its own options into its geometry and
 * hands --design, --json, --csv, --rows and --quiet to struct model_cmd;
 * model_cmd_begin() refuses a design the library would not accept (or one
 * given twice) and opens the outputs before anything is measured, so every
 * usage error exits 2 with nothing written; model_cmd_finish() prints the
 * tables and writes the outputs, or abandons them (a file we created is
 * removed) when the run failed. Single-threaded, no state of its own.
 */
#include <errno.h>
#include <string.h>

#include <shrinker/host.h>

#include "conventions.h"
#include "csv.h"
#include "json.h"
#include "machine.h"
#include "model_cmd.h"
#include "report.h"
#include "scale.h"
#include "stats.h"
#include "table.h"
#include "version.h"

/* --design LABEL: one more design configuration (0, or -1 printed). */
static int design_value(struct model_cmd *m, const char *v)
{
	char why[160];

	if (m->nr_designs == LAB_MAX_DESIGNS)
		return shrinklab_bad_value(m->sub, "--design", v, "too many designs");
	if (lab_design_parse_label(v, &m->designs[m->nr_designs], why, sizeof(why)))
		return shrinklab_bad_value(m->sub, "--design", v, why);
	m->nr_designs++;
	return 0;
}

/* One of the MODEL_OPT_* options: 0, or -1 printed. */
static int common_value(struct model_cmd *m, int opt, const char *v)
{
	switch (opt) {
	case MODEL_OPT_DESIGN:
		return design_value(m, v);
	case MODEL_OPT_JSON:
		m->json = v;
		return 0;
	case MODEL_OPT_CSV:
		m->csv = v;
		return 0;
	case MODEL_OPT_ROWS:
		m->rows = true;
		return 0;
	default:
		m->quiet = true;
		return 0;
	}
}

int model_cmd_parse(struct model_cmd *m, int argc, char **argv, const struct option *longopts,
		    void (*usage)(FILE *out), int (*own)(void *ctx, int opt, const char *v),
		    void *ctx)
{
	static const int repeatable[] = { MODEL_OPT_DESIGN, 0 };
	struct shrinklab_getopt g;
	int opt;

	shrinklab_getopt_init(&g, m->sub, ":h", longopts, repeatable, usage);
	while ((opt = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		int err = opt < MODEL_OPT_FIRST_OWN ? common_value(m, opt, optarg)
						    : own(ctx, opt, optarg);

		if (err)
			return -1;
	}
	if (opt != SHRINKLAB_GETOPT_DONE)
		return opt == SHRINKLAB_GETOPT_EXIT ? 1 : -1;
	if (optind < argc) {
		shrinklab_unexpected_argument(m->sub, argv[optind]);
		return -1;
	}
	if (!m->nr_designs) {
		shrinklab_error(m->sub, "--design is required (see 'shrinklab %s --help')", m->sub);
		return -1;
	}
	return 0;
}

/* Each design configuration must be one this library accepts, once. */
static int check_designs(const struct model_cmd *m, int nodes)
{
	struct lab_scale s = { .nodes = nodes, .kmem = true };

	for (size_t i = 0; i < m->nr_designs; i++) {
		const struct lab_design *d = &m->designs[i];
		struct shr_host_params p;
		char label[LAB_LABEL_LEN];
		const char *why = NULL;

		lab_design_host_params(d, &s, &p);
		lab_design_label(d, label, sizeof(label));
		if (shr_host_params_check(&p, &why)) {
			shrinklab_error(m->sub, "--design %s: %s", label, why);
			return -EINVAL;
		}
		for (size_t k = 0; k < i; k++) {
			char other[LAB_LABEL_LEN];

			lab_design_label(&m->designs[k], other, sizeof(other));
			if (!strcmp(other, label)) {
				shrinklab_error(m->sub, "--design %s given twice", label);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int model_cmd_begin(struct model_cmd *m, int nodes)
{
	const char *path[LAB_NR_OUTS] = { m->json, m->csv, NULL };
	char err[768];

	m->t0 = lab_now_ns();
	if (check_designs(m, nodes))
		return SHRINKLAB_EXIT_USAGE;
	if (lab_outputs_open(&m->outs, path, err, sizeof(err))) {
		shrinklab_error(m->sub, "%s", err);
		return SHRINKLAB_EXIT_USAGE;
	}
	m->out = lab_outputs_on_stdout(&m->outs) ? stderr : stdout;
	return 0;
}

void model_cmd_heading(struct model_cmd *m, const char *title, const char *about)
{
	lab_progress_enable(!m->quiet);
	fprintf(m->out, "%s\n%s\n", title, about);
	shrinklab_print_version(m->out);
	lab_report_machine(m->out, "machine", lab_machine_at_start(), "at the start");
}

/* What the writers of the outputs are given. */
struct outs_arg {
	const struct lab_run *runs;
	size_t n;
	const struct lab_json_context *ctx;
};

static int write_json(FILE *f, const void *arg)
{
	const struct outs_arg *a = arg;

	return lab_json_write(f, a->runs, a->n, a->ctx);
}

static int write_csv(FILE *f, const void *arg)
{
	const struct outs_arg *a = arg;

	return lab_csv_write(f, a->runs, a->n);
}

/* The end of a run (lab_outputs_finish()): 0 or -errno (printed). */
static int write_outs(struct model_cmd *m, const struct lab_run *runs, size_t n,
		      unsigned int samples)
{
	static const lab_output_writer writers[LAB_NR_OUTS] = { write_json, write_csv, NULL };
	struct lab_options opt;
	struct lab_json_context ctx = { .subcommand = m->sub, .opt = &opt };
	struct outs_arg arg = { .runs = runs, .n = n, .ctx = &ctx };
	char err[768];
	int ret;

	lab_options_init(&opt);
	snprintf(opt.scale_name, sizeof(opt.scale_name), "custom");
	opt.samples = samples;
	ctx.argc = shrinklab_command(&ctx.argv);
	ctx.elapsed_ns = lab_now_ns() - m->t0;
	ret = lab_outputs_finish(&m->outs, m->out, writers, &arg, err, sizeof(err));
	if (ret)
		shrinklab_error(m->sub, "%s", err);
	return ret;
}

int model_cmd_finish(struct model_cmd *m, int ret, const struct lab_run *runs, size_t n,
		     unsigned int samples)
{
	if (ret) {
		shrinklab_error(m->sub, "the run failed: %s", strerror(-ret));
		lab_outputs_abandon(&m->outs);
		return SHRINKLAB_EXIT_FAILED;
	}
	for (size_t e = 0; e < n; e++) {
		fprintf(m->out, "\n== %s (model)\n", runs[e].exp->id);
		lab_table_print(m->out, &runs[e], LAB_TABLE_TEXT);
		if (m->rows)
			lab_report_rows(m->out, &runs[e], "model, every row");
	}
	lab_report_end(m->out, lab_now_ns() - m->t0);
	return write_outs(m, runs, n, samples) ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}
