/* SPDX-License-Identifier: MIT */
/*
 * shrinklab reproduce / run: parse the options, check the scale against the
 * machine before allocating anything, run the experiments of the table (all
 * of them, or one design on one experiment for "run"), attach the seeds'
 * figures and print the tables, the claims and optionally the JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "shrinklab.h"

struct cli {
	struct lab_options opt;
	const char *json;
	const char *data;
	const char *experiment;
	bool run_mode;
	bool have_design;
	struct lab_design design;
};

static void usage(FILE *out, bool run_mode)
{
	if (run_mode)
		fprintf(out,
			"usage: shrinklab run --design D [--units cache|kmalloc] [--expand-batch N]\n"
			"                     [--nonslab-ids] [--nokmem] [--mounts N] [--cgroups M]\n"
			"                     [--nodes K] [--cpus C] [--experiment ID] [common options]\n"
			"\n"
			"Run one experiment (default seed000-vm) with one design configuration.\n"
			"  --design D        xarray, prealloc, array-ondemand, flat, nobitmap, indexed\n"
			"  --units S         where units come from: cache (the seeds' dedicated cache)\n"
			"                    or kmalloc (kmalloc-1k); default: kmalloc for prealloc\n"
			"                    (mainline), cache for the others\n"
			"  --expand-batch N  ids per growth step (flat, prealloc), 1..65536\n"
			"  --nonslab-ids     second id space for NONSLAB shrinkers (needs --nokmem)\n"
			"  --nokmem          kmem accounting off\n"
			"  --mounts/--cgroups/--nodes/--cpus  override the experiment's scale\n");
	else
		fprintf(out,
			"usage: shrinklab reproduce [--experiment ID] [common options]\n"
			"\n"
			"Run every seed experiment with every design side by side and compare with\n"
			"the seeds' published figures. A design this build lacks is 'unavailable'.\n"
			"  --experiment ID   only this experiment\n");
	fprintf(out,
		"\ncommon options:\n"
		"  --scale S         seed (the seeds' scale), quick (seconds), default (x0.4,\n"
		"                    about 3 minutes for everything), or a multiplier of the\n"
		"                    seeds' mounts and cgroups in (0, 3]\n"
		"  --samples N       timed samples after one warm-up, 5..64 (default 5)\n"
		"  --mem-budget B    memory for the hosts of one experiment, e.g. 12G (default);\n"
		"                    designs that do not fit run with fewer cgroups, said in the row\n"
		"  --json FILE       also write the results as JSON (schema shrinklab/1)\n"
		"  --data FILE       seed figures (default %s)\n"
		"  --quiet           no progress line\n"
		"  --help            this help\n"
		"\nexperiments:",
		lab_seeds_default_path());
	for (size_t i = 0; i < lab_nr_experiments; i++)
		fprintf(out, " %s", lab_experiments[i].id);
	fputc('\n', out);
}

static int bad(const char *prog, const char *opt, const char *val, const char *what)
{
	fprintf(stderr, "%s: %s '%s': %s (see --help)\n", prog, opt, val ? val : "", what);
	return -EINVAL;
}

/* Parse argv into @c; 1 = --help printed, 0 = go, -EINVAL = bad usage. */
static int parse(int argc, char **argv, struct cli *c)
{
	const char *prog = c->run_mode ? "shrinklab run" : "shrinklab reproduce";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long n;
		bool takes = true;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout, c->run_mode);
			return 1;
		} else if (!strcmp(a, "--quiet")) {
			c->opt.quiet = true;
			takes = false;
		} else if (c->run_mode && !strcmp(a, "--nonslab-ids")) {
			c->design.nonslab_ids = true;
			takes = false;
		} else if (c->run_mode && !strcmp(a, "--nokmem")) {
			c->opt.kmem = 0;
			takes = false;
		} else if (!v && a[0] == '-' && a[1] == '-') {
			return bad(prog, a, NULL, "unknown option, or its value is missing");
		} else if (!strcmp(a, "--scale")) {
			if (lab_parse_scale(v, &c->opt))
				return bad(prog, a, v, "expected seed, quick, default or a number in (0, 3]");
		} else if (!strcmp(a, "--samples")) {
			if (lab_parse_ulong(v, 5, 64, &n))
				return bad(prog, a, v, "expected a whole number 5..64");
			c->opt.samples = (unsigned int)n;
		} else if (!strcmp(a, "--mem-budget")) {
			if (lab_parse_bytes(v, &c->opt.mem_budget))
				return bad(prog, a, v, "expected bytes, e.g. 12G, 512M");
		} else if (!strcmp(a, "--json")) {
			c->json = v;
		} else if (!strcmp(a, "--data")) {
			c->data = v;
		} else if (!strcmp(a, "--experiment")) {
			if (!lab_experiment_find(v))
				return bad(prog, a, v, "unknown experiment");
			c->experiment = v;
		} else if (c->run_mode && !strcmp(a, "--design")) {
			if (shr_design_parse(v, &c->design.design))
				return bad(prog, a, v, "unknown design");
			c->have_design = true;
		} else if (c->run_mode && !strcmp(a, "--units")) {
			if (!strcmp(v, "cache"))
				c->design.units = SHR_UNITS_CACHE;
			else if (!strcmp(v, "kmalloc"))
				c->design.units = SHR_UNITS_KMALLOC;
			else
				return bad(prog, a, v, "expected cache or kmalloc");
		} else if (c->run_mode && !strcmp(a, "--expand-batch")) {
			if (lab_parse_ulong(v, 1, 65536, &n))
				return bad(prog, a, v, "expected a whole number 1..65536");
			c->design.expand_batch = (unsigned int)n;
		} else if (c->run_mode && !strcmp(a, "--mounts")) {
			if (lab_parse_ulong(v, 1, 100000000, &c->opt.mounts))
				return bad(prog, a, v, "expected a whole number 1..100000000");
		} else if (c->run_mode && !strcmp(a, "--cgroups")) {
			if (lab_parse_ulong(v, 1, 60000, &c->opt.cgroups))
				return bad(prog, a, v, "expected a whole number 1..60000");
		} else if (c->run_mode && !strcmp(a, "--nodes")) {
			if (lab_parse_ulong(v, 1, SHR_MAX_NUMNODES, &n))
				return bad(prog, a, v, "expected a whole number 1..64 (SHR_MAX_NUMNODES)");
			c->opt.nodes = (int)n;
		} else if (c->run_mode && !strcmp(a, "--cpus")) {
			if (lab_parse_ulong(v, 1, 65536, &n))
				return bad(prog, a, v, "expected a whole number 1..65536");
			c->opt.cpus = (unsigned int)n;
		} else {
			return bad(prog, a, NULL, "unknown option");
		}
		i += takes;
	}
	if (c->run_mode && !c->have_design)
		return bad(prog, "--design", NULL, "is required");
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
	p.kmem = s->kmem;
	p.nr_nodes = s->nodes;
	if (shr_host_params_check(&p, &why) && strcmp(why, "design not available in this build")) {
		fprintf(stderr, "shrinklab run: %s\n", why);
		return -EINVAL;
	}
	return 0;
}

static int run_all(struct cli *c)
{
	const char *prog = c->run_mode ? "shrinklab run" : "shrinklab reproduce";
	struct lab_run runs[16];
	struct lab_seeds seeds;
	char err[512];
	size_t nr = 0;
	int ret;

	if (c->run_mode && !c->experiment)
		c->experiment = "seed000-vm";
	/* Every check before the first allocation of a host. */
	for (size_t i = 0; i < lab_nr_experiments; i++) {
		struct lab_scale s;

		if (c->experiment && strcmp(c->experiment, lab_experiments[i].id))
			continue;
		lab_experiment_scale(&lab_experiments[i], &c->opt, &s);
		if (lab_check_feasible(&c->opt, &s, prog))
			return SHRINKLAB_EXIT_USAGE;
		if (c->run_mode && check_design(c, &s))
			return SHRINKLAB_EXIT_USAGE;
	}
	ret = lab_seeds_load(&seeds, c->data, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: seed figures: %s\n", prog, err);
		return c->data ? SHRINKLAB_EXIT_USAGE : 1;
	}
	lab_progress_enable(!c->opt.quiet);
	lab_report_header(stdout, &c->opt);
	for (size_t i = 0; i < lab_nr_experiments && !ret; i++) {
		const struct lab_experiment *e = &lab_experiments[i];
		struct lab_run *r = &runs[nr];

		if (c->experiment && strcmp(c->experiment, e->id))
			continue;
		memset(r, 0, sizeof(*r));
		r->exp = e;
		lab_experiment_scale(e, &c->opt, &r->scale);
		if (c->run_mode) {
			r->designs[0] = c->design;
			r->nr_designs = 1;
		} else {
			memcpy(r->designs, e->designs, e->nr_designs * sizeof(*e->designs));
			r->nr_designs = e->nr_designs;
		}
		uint64_t t0 = lab_now_ns();

		ret = e->run(r, &c->opt);
		r->elapsed_ns = lab_now_ns() - t0;
		lab_progress_done();
		nr++;
		if (ret) {
			fprintf(stderr, "%s: %s failed: %s\n", prog, e->id, strerror(-ret));
			break;
		}
		if (!c->run_mode || !(c->opt.mounts || c->opt.cgroups || c->opt.nodes || c->opt.cpus))
			snprintf(r->scale.note, sizeof(r->scale.note),
				 "x%g of the seed scale (%lu mounts, %lu cgroups)", c->opt.factor,
				 e->seed_scale.mounts, e->seed_scale.cgroups);
		else
			snprintf(r->scale.note, sizeof(r->scale.note), "custom scale");
		lab_run_sort(r);
		lab_seeds_attach(&seeds, r);
		lab_report_run(stdout, r);
		fflush(stdout);
	}
	if (!ret) {
		lab_report_claims(stdout, runs, nr, &seeds);
		if (c->json) {
			ret = lab_json_write(c->json, runs, nr, &c->opt);
			if (ret)
				fprintf(stderr, "%s: writing %s: %s\n", prog, c->json, strerror(-ret));
		}
	}
	for (size_t i = 0; i < nr; i++)
		lab_run_free(&runs[i]);
	lab_seeds_free(&seeds);
	return ret ? 1 : 0;
}

static int entry(int argc, char **argv, bool run_mode)
{
	struct cli c;
	int ret;

	memset(&c, 0, sizeof(c));
	lab_options_init(&c.opt);
	c.run_mode = run_mode;
	ret = parse(argc, argv, &c);
	if (ret)
		return ret > 0 ? 0 : SHRINKLAB_EXIT_USAGE;
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
