/* SPDX-License-Identifier: MIT */
/*
 * shrinklab experiments: the experiment registry, lab_experiments[], as
 * text or as data (--json, schema shrinklab-experiments/1: json.h). It
 * measures nothing: what each experiment is (id, thread, title), which
 * designs it runs, which metrics it reports and on which geometry keys each
 * depends, and (--json) the seeds' figures of it (data/seed_figures.tsv,
 * read by seeds.c), so that another program (the kernel lab,
 * kernel/py/klab) reads the ids, titles, designs, metrics and seed figures
 * instead of keeping copies of them or parsing the seeds' file again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "conventions.h"
#include "design_label.h"
#include "experiments.h"
#include "json.h"
#include "scale.h"
#include "seeds.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab experiments [--json]\n"
		"\n"
		"The experiments reproduce, run and compare know: per experiment its id,\n"
		"thread and title, its designs and its metrics (unit, the geometry keys a\n"
		"figure depends on, what it is). Nothing is measured.\n"
		"\n"
		"  --json     the same as data on standard output, with the seeds'\n"
		"             figures of each experiment (schema shrinklab-experiments/1)\n"
		"  --version  the tool's version and git revision\n"
		"  --help     show this help\n");
	shrinklab_print_exit_codes(out);
}

static void print_text(const struct lab_experiment *e)
{
	char label[LAB_LABEL_LEN];

	printf("%s: %s (thread %s)\n  designs:", e->id, e->title, e->thread ? e->thread : "-");
	for (size_t i = 0; i < e->nr_designs; i++) {
		lab_design_label(&e->designs[i], label, sizeof(label));
		printf(" %s", label);
	}
	printf("\n");
	for (size_t i = 0; i < e->nr_metrics; i++) {
		const struct lab_metric *m = &e->metrics[i];
		bool first = true;

		printf("  %s (%s; depends on", m->name, m->unit);
		for (int k = 0; k < LAB_NR_GEO; k++) {
			if (!(m->geo & LAB_G(k)))
				continue;
			printf("%s %s", first ? "" : ",", lab_geo_name((enum lab_geo_key)k));
			first = false;
		}
		printf("%s): %s\n", first ? " nothing" : "", m->what);
	}
}

enum { OPT_JSON = SHRINKLAB_OPT_FIRST_OWN };

int shrinklab_experiments(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
		{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
		{ "json", no_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct shrinklab_getopt g;
	bool json = false;
	int c;

	shrinklab_getopt_init(&g, "experiments", ":h", longopts, NULL, usage);
	while ((c = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		if (c != OPT_JSON)
			return SHRINKLAB_EXIT_USAGE;
		json = true;
	}
	if (c != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(c);
	if (optind < argc) {
		shrinklab_unexpected_argument("experiments", argv[optind]);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (json) {
		struct lab_seeds seeds;
		char why[512];
		int err = lab_seeds_load(&seeds, NULL, why, sizeof(why));

		if (err) {
			shrinklab_error("experiments", "%s", why);
			return SHRINKLAB_EXIT_FAILED;
		}
		err = lab_json_write_registry(stdout, &seeds);
		lab_seeds_free(&seeds);
		if (err) {
			shrinklab_error("experiments", "standard output: %s", strerror(-err));
			return SHRINKLAB_EXIT_FAILED;
		}
		return SHRINKLAB_EXIT_OK;
	}
	for (size_t i = 0; i < lab_nr_experiments; i++)
		print_text(&lab_experiments[i]);
	return SHRINKLAB_EXIT_OK;
}
