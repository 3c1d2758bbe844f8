/* SPDX-License-Identifier: MIT */
/*
 * shrinklab compare: several design configurations side by side on the
 * workload of one or more experiments, at the experiment's scale or at a
 * geometry the user gives (mounts, cgroups, nodes, CPUs, kmem), through the
 * driver (driver.h): the first design is the base of every ratio, and each
 * experiment ends with its decision table. Each configuration is checked
 * against the library (shr_host_params_check()) at each experiment's scale
 * before any host exists.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <shrinker/host.h>

#include "commands.h"
#include "design_label.h"
#include "driver.h"
#include "experiments.h"
#include "units.h"

#define DEFAULT_EXPERIMENT "xarray-2026-vm"

enum {
	OPT_DESIGN = LAB_DRIVER_OPT_END,
};

static const struct option compare_options[] = {
	{ "design", required_argument, NULL, OPT_DESIGN },
};

static void usage(FILE *out)
{
	char names[LAB_DESIGN_NAMES_LEN];

	lab_design_names(names, sizeof(names), ", ");
	fprintf(out,
		"usage: shrinklab compare --design A,B[,...] [geometry options]\n"
		"                         [--experiment ID]... [common options]\n"
		"\n"
		"Run design configurations side by side, in lockstep rounds in one process,\n"
		"on an experiment's workload (default " DEFAULT_EXPERIMENT ") at its scale or at\n"
		"the geometry given, and print the decision table: a row per metric, a column\n"
		"per design, the best marked, each ratio to the first design in words.\n"
		"\n"
		"  --design A,B,...   design configurations as the lab labels them,\n"
		"                     DESIGN[+units=cache|kmalloc][+expand_batch=N]\n"
		"                     [+nonslab_ids][+lru_reparent=all|index][+root_bits=off];\n"
		"                     comma-separated, repeatable; at least two; the first is\n"
		"                     the base. Designs: %s\n"
		"  --experiment ID    the workload (repeatable; default " DEFAULT_EXPERIMENT ")\n"
		"  --plots DIR        also write DIR/ID.gp and render DIR/ID.png\n",
		names);
	lab_driver_usage_geometry(out);
	lab_driver_usage_common(out);
}

/* One or more comma-separated labels (lab_list_split()'s rule): 0, or -1
 * printed. */
static int design_value(struct lab_request *r, const char *v)
{
	char copy[1024], why[160], *item[LAB_MAX_DESIGNS];
	const char *list_why = NULL;
	int n = lab_list_split(v, ',', false, copy, sizeof(copy), item, LAB_MAX_DESIGNS,
			       &list_why);

	if (n < 0)
		return shrinklab_bad_list(r->sub, "--design", v, list_why,
					  "design labels joined by ',', at most 16");
	for (int i = 0; i < n; i++) {
		struct lab_design *d = &r->designs[r->nr_designs];
		char label[LAB_LABEL_LEN];

		if (r->nr_designs == LAB_MAX_DESIGNS)
			return shrinklab_bad_value(r->sub, "--design", v, "more than 16 designs");
		if (lab_design_parse_label(item[i], d, why, sizeof(why)))
			return shrinklab_bad_value(r->sub, "--design", item[i], why);
		lab_design_label(d, label, sizeof(label));
		for (size_t k = 0; k < r->nr_designs; k++) {
			char other[LAB_LABEL_LEN];

			lab_design_label(&r->designs[k], other, sizeof(other));
			if (!strcmp(other, label))
				return shrinklab_bad_value(r->sub, "--design", item[i],
							   "given twice");
		}
		r->nr_designs++;
	}
	return 0;
}

static int own_value(struct lab_request *r, int opt, const char *v)
{
	return opt == OPT_DESIGN ? design_value(r, v) : -1;
}

static int check(struct lab_request *r)
{
	if (r->nr_designs < 2) {
		shrinklab_error(r->sub, "--design: two designs at least, the first the base (see "
				"'shrinklab compare --help')");
		return -1;
	}
	if (!r->any_selected)
		r->selected[lab_experiment_find(DEFAULT_EXPERIMENT) - lab_experiments] =
			r->any_selected = true;
	return 0;
}

/* Every design configuration at the experiment's scale, before any host. */
static int check_scale(const struct lab_request *r, const struct lab_scale *s)
{
	for (size_t i = 0; i < r->nr_designs; i++) {
		struct shr_host_params p;
		char label[LAB_LABEL_LEN];
		const char *why = NULL;

		lab_design_host_params(&r->designs[i], s, &p);
		if (shr_host_params_check(&p, &why)) {
			lab_design_label(&r->designs[i], label, sizeof(label));
			shrinklab_error(r->sub, "--design %s: %s", label, why);
			return -EINVAL;
		}
	}
	return 0;
}

int shrinklab_compare(int argc, char **argv)
{
	static const int repeatable[] = { OPT_DESIGN, LAB_DRIVER_OPT_EXPERIMENT, 0 };
	static const struct lab_driver_spec spec = {
		.sub = "compare",
		.own = compare_options,
		.nr_own = sizeof(compare_options) / sizeof(compare_options[0]),
		.repeatable = repeatable,
		.geometry = true,
		.usage = usage,
		.own_value = own_value,
		.check = check,
		.check_scale = check_scale,
	};

	return lab_driver_main(argc, argv, &spec);
}
