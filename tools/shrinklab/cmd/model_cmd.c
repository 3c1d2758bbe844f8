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

int model_cmd_design_value(struct model_cmd *m, const char *v)
{
	char why[160];

	if (m->nr_designs == LAB_MAX_DESIGNS)
		return shrinklab_bad_value(m->sub, "--design", v, "too many designs");
	if (lab_design_parse_label(v, &m->designs[m->nr_designs], why, sizeof(why)))
		return shrinklab_bad_value(m->sub, "--design", v, why);
	m->nr_designs++;
	return 0;
}

int model_cmd_check_request(const struct model_cmd *m)
{
	if (!m->nr_designs) {
		shrinklab_error(m->sub, "--design is required (see 'shrinklab %s --help')", m->sub);
		return -1;
	}
	if (m->json && m->csv && !strcmp(m->json, "-") && !strcmp(m->csv, "-")) {
		shrinklab_error(m->sub, "--json - and --csv -: one output at most on standard "
			       "output");
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
	char err[256];

	m->t0 = lab_now_ns();
	if (check_designs(m, nodes))
		return SHRINKLAB_EXIT_USAGE;
	if (lab_output_open(&m->json_out, m->json, err, sizeof(err))) {
		shrinklab_error(m->sub, "--json '%s': %s", m->json, err);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (lab_output_open(&m->csv_out, m->csv, err, sizeof(err))) {
		shrinklab_error(m->sub, "--csv '%s': %s", m->csv, err);
		lab_output_abandon(&m->json_out);
		return SHRINKLAB_EXIT_USAGE;
	}
	m->out = m->json_out.fd == 1 || m->csv_out.fd == 1 ? stderr : stdout;
	return 0;
}

/* The CSV of the run: 0 or -errno (printed, the output abandoned). */
static int write_csv(struct model_cmd *m, const struct lab_run *runs, size_t n)
{
	FILE *f = lab_output_begin(&m->csv_out);
	int ret = f ? lab_csv_write(f, runs, n) : -errno;

	if (f) {
		int end = lab_output_end(&m->csv_out, f);

		ret = ret ? ret : end;
	}
	if (ret) {
		shrinklab_error(m->sub, "--csv '%s': writing failed: %s", m->csv_out.path,
				strerror(-ret));
		lab_output_abandon(&m->csv_out);
	}
	return ret;
}

/* The JSON of the run: 0 or -errno (printed, the output abandoned). */
static int write_json(struct model_cmd *m, const struct lab_run *runs, size_t n,
		      unsigned int samples)
{
	struct lab_options opt;
	struct lab_json_context ctx = { .subcommand = m->sub, .opt = &opt };
	FILE *f = lab_output_begin(&m->json_out);
	int ret;

	lab_options_init(&opt);
	snprintf(opt.scale_name, sizeof(opt.scale_name), "custom");
	opt.samples = samples;
	ctx.argc = shrinklab_command(&ctx.argv);
	ctx.elapsed_ns = lab_now_ns() - m->t0;
	ret = f ? lab_json_write(f, runs, n, &ctx) : -errno;
	if (f) {
		int end = lab_output_end(&m->json_out, f);

		ret = ret ? ret : end;
	}
	if (ret) {
		shrinklab_error(m->sub, "--json '%s': writing failed: %s", m->json_out.path,
				strerror(-ret));
		lab_output_abandon(&m->json_out);
	}
	return ret;
}

int model_cmd_finish(struct model_cmd *m, int ret, const struct lab_run *runs, size_t n,
		     unsigned int samples)
{
	if (ret) {
		shrinklab_error(m->sub, "the run failed: %s", strerror(-ret));
		lab_output_abandon(&m->json_out);
		lab_output_abandon(&m->csv_out);
		return SHRINKLAB_EXIT_FAILED;
	}
	for (size_t e = 0; e < n; e++) {
		fprintf(m->out, "\n== %s (model)\n", runs[e].exp->id);
		lab_table_print(m->out, &runs[e], LAB_TABLE_TEXT);
		if (m->rows)
			lab_report_rows(m->out, &runs[e], "model, every row");
	}
	lab_report_end(m->out, lab_now_ns() - m->t0);
	if (m->json_out.path)
		ret = write_json(m, runs, n, samples);
	if (m->csv_out.path && !ret)
		ret = write_csv(m, runs, n);
	else if (m->csv_out.path)
		lab_output_abandon(&m->csv_out);
	return ret ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_OK;
}
