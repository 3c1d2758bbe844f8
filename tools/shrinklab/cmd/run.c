/* SPDX-License-Identifier: MIT */
/*
 * shrinklab run: one experiment (default xarray-2026-vm) with one design
 * configuration, at the experiment's scale or a custom one, through the
 * driver (driver.h). The design and its options are checked against the
 * library (shr_host_params_check()) at each experiment's scale before any
 * host exists.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <shrinker/host.h>

#include "commands.h"
#include "design_label.h"
#include "driver.h"
#include "experiments.h"

enum {
	OPT_DESIGN = LAB_DRIVER_OPT_END,
	OPT_UNITS,
	OPT_EXPAND_BATCH,
	OPT_NONSLAB_IDS,
	OPT_LRU_REPARENT,
	OPT_NO_ROOT_BITS,
};

static const struct option run_options[] = {
	{ "design", required_argument, NULL, OPT_DESIGN },
	{ "units", required_argument, NULL, OPT_UNITS },
	{ "expand-batch", required_argument, NULL, OPT_EXPAND_BATCH },
	{ "nonslab-ids", no_argument, NULL, OPT_NONSLAB_IDS },
	{ "lru-reparent", required_argument, NULL, OPT_LRU_REPARENT },
	{ "no-root-bits", no_argument, NULL, OPT_NO_ROOT_BITS },
};

static void usage(FILE *out)
{
	char names[LAB_DESIGN_NAMES_LEN];

	lab_design_names(names, sizeof(names), ", ");
	fprintf(out,
		"usage: shrinklab run --design D [design options] [scale options]\n"
		"                     [--experiment ID] [common options]\n"
		"\n"
		"Run one experiment (default xarray-2026-vm) with one design configuration. A\n"
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
		"  --experiment ID    the workload (default xarray-2026-vm)\n"
		"  --plots DIR        also write DIR/ID.gp and render DIR/ID.png\n",
		names);
	lab_driver_usage_geometry(out);
	lab_driver_usage_common(out);
}

/* --design NAME: a design of the library's table. */
static int design_value(struct lab_request *r, const char *v)
{
	char names[LAB_DESIGN_NAMES_LEN], what[LAB_DESIGN_NAMES_LEN + 16];

	if (!shr_design_parse(v, &r->design.design)) {
		r->have_design = true;
		return 0;
	}
	lab_design_names(names, sizeof(names), " or ");
	snprintf(what, sizeof(what), "expected %s", names);
	return shrinklab_bad_value(r->sub, "--design", v, what);
}

static int own_value(struct lab_request *r, int opt, const char *v)
{
	const char *sub = r->sub;
	unsigned long n;

	switch (opt) {
	case OPT_DESIGN:
		return design_value(r, v);
	case OPT_UNITS:
		if (!strcmp(v, "cache"))
			r->design.units = SHR_UNITS_CACHE;
		else if (!strcmp(v, "kmalloc"))
			r->design.units = SHR_UNITS_KMALLOC;
		else
			return shrinklab_bad_value(sub, "--units", v, "expected cache or kmalloc");
		return 0;
	case OPT_LRU_REPARENT:
		if (!strcmp(v, "all"))
			r->design.lru_reparent = SHR_LRU_REPARENT_ALL_LRUS;
		else if (!strcmp(v, "index"))
			r->design.lru_reparent = SHR_LRU_REPARENT_PER_CGROUP;
		else
			return shrinklab_bad_value(sub, "--lru-reparent", v, "expected all or index");
		return 0;
	case OPT_EXPAND_BATCH:
		if (shrinklab_count_value(sub, "--expand-batch", v, 1, 65536, NULL, &n))
			return -1;
		r->design.expand_batch = (unsigned int)n;
		return 0;
	case OPT_NONSLAB_IDS:
		r->design.nonslab_ids = true;
		return 0;
	case OPT_NO_ROOT_BITS:
		r->design.no_root_bits = true;
		return 0;
	default:
		return -1;
	}
}

static int check(struct lab_request *r)
{
	r->one_design = true;
	if (!r->have_design) {
		shrinklab_error(r->sub, "--design is required (see 'shrinklab run --help')");
		return -1;
	}
	if (r->design.no_root_bits && r->design.design != SHR_DESIGN_INDEXED) {
		shrinklab_error(r->sub, "--no-root-bits: only indexed keeps root bits");
		return -1;
	}
	if (!r->any_selected)
		r->selected[lab_experiment_find("xarray-2026-vm") - lab_experiments] = r->any_selected =
			true;
	return 0;
}

/* The design configuration at the experiment's scale, before any host. */
static int check_scale(const struct lab_request *r, const struct lab_scale *s)
{
	struct shr_host_params p;
	const char *why = NULL;

	lab_design_host_params(&r->design, s, &p);
	if (shr_host_params_check(&p, &why)) {
		shrinklab_error(r->sub, "--design %s: %s", shr_design_name(r->design.design), why);
		return -EINVAL;
	}
	return 0;
}

int shrinklab_run(int argc, char **argv)
{
	static const struct lab_driver_spec spec = {
		.sub = "run",
		.own = run_options,
		.nr_own = sizeof(run_options) / sizeof(run_options[0]),
		.geometry = true,
		.usage = usage,
		.own_value = own_value,
		.check = check,
		.check_scale = check_scale,
	};

	return lab_driver_main(argc, argv, &spec);
}
