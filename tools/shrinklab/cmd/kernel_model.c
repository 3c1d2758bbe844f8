/* SPDX-License-Identifier: MIT */
/*
 * shrinklab kernel: the kernel lab's guest experiments (kernel/guest/
 * klab-guest.c) in the model, at the guest's geometry
 * (kernel_experiments.h runs them): the options, which are the guest's own
 * (klab passes the guest's own document, --like, and the model reads from it
 * the guest's options and the N each step really used); model_cmd.c
 * checks the design configurations before anything runs and writes the
 * decision tables, the JSON (schema shrinklab/2) that kernel/klab lab joins
 * with the guest's, and the same rows as CSV.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "conventions.h"
#include "jsonr.h"
#include "kernel_experiments.h"
#include "model_cmd.h"
#include "units.h"

enum {
	OPT_LADDER = MODEL_OPT_FIRST_OWN,
	OPT_CGROUPS,
	OPT_REGISTER_CGROUPS,
	OPT_TOP_CGROUPS,
	OPT_UNITS_CGROUPS,
	OPT_CHURN_CGROUPS,
	OPT_SAMPLES,
	OPT_CHURN_SAMPLES,
	OPT_REGISTER_BATCH,
	OPT_REGISTER_SAMPLES,
	OPT_HIGHWATER_MOUNTS,
	OPT_WALK_POINTS,
	OPT_HOST_SHRINKERS,
	OPT_NODES,
	OPT_CPUS,
	OPT_LIKE,
	OPT_PRINT_OPTIONS,
};

static const struct option kernel_options[] = {
	{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
	{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
	{ "design", required_argument, NULL, MODEL_OPT_DESIGN },
	{ "ladder", required_argument, NULL, OPT_LADDER },
	{ "cgroups", required_argument, NULL, OPT_CGROUPS },
	{ "register-cgroups", required_argument, NULL, OPT_REGISTER_CGROUPS },
	{ "top-cgroups", required_argument, NULL, OPT_TOP_CGROUPS },
	{ "units-cgroups", required_argument, NULL, OPT_UNITS_CGROUPS },
	{ "churn-cgroups", required_argument, NULL, OPT_CHURN_CGROUPS },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "churn-samples", required_argument, NULL, OPT_CHURN_SAMPLES },
	{ "register-batch", required_argument, NULL, OPT_REGISTER_BATCH },
	{ "register-samples", required_argument, NULL, OPT_REGISTER_SAMPLES },
	{ "highwater-mounts", required_argument, NULL, OPT_HIGHWATER_MOUNTS },
	{ "walk-points", required_argument, NULL, OPT_WALK_POINTS },
	{ "host-shrinkers", required_argument, NULL, OPT_HOST_SHRINKERS },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "like", required_argument, NULL, OPT_LIKE },
	{ "print-options", no_argument, NULL, OPT_PRINT_OPTIONS },
	{ "json", required_argument, NULL, MODEL_OPT_JSON },
	{ "csv", required_argument, NULL, MODEL_OPT_CSV },
	{ "rows", no_argument, NULL, MODEL_OPT_ROWS },
	{ "quiet", no_argument, NULL, MODEL_OPT_QUIET },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab kernel --design D [--design D]... [geometry options]\n"
		"                        [--json FILE] [--csv FILE] [--rows] [--quiet]\n"
		"\n"
		"Run the kernel lab's guest experiments (kernel/guest/klab-guest.c) in the\n"
		"model, at the guest's geometry, one host per design configuration, side by\n"
		"side: memory of empty cgroups up the unit ladder, high water after unmount,\n"
		"registration of a batch of mounts with and without cgroups, drop_caches with\n"
		"and without cgroups and its slope, mkdir/rmdir/release of cgroups; a decision\n"
		"table per experiment, the first design the base. Metric names are the\n"
		"guest's; kernel/klab lab puts the two side by side.\n"
		"\n"
		"  --design D            a design configuration, as the lab labels it:\n"
		"                        DESIGN[+units=cache|kmalloc][+lru_reparent=all|index]\n"
		"                        [+root_bits=off][+expand_batch=N]; repeatable\n"
		"geometry (the guest's options; defaults: the guest's full geometry):\n"
		"  --ladder U,U,...      units per node of the rungs, from 1, rising\n"
		"                        (1,35,126,314); every rung after the first at\n"
		"                        least the units the high water leaves\n"
		"                        ((--host-shrinkers + --highwater-mounts) / 64)\n"
		"  --cgroups N           empty cgroups for drop_caches at 0 mounts (2000)\n"
		"  --register-cgroups N  cgroups alive during registration (--cgroups)\n"
		"  --top-cgroups N       cgroups at the top rung's drop_caches (--cgroups)\n"
		"  --units-cgroups N     cgroups per memory figure (200)\n"
		"  --churn-cgroups N     cgroups per mkdir/rmdir/release sample (1000)\n"
		"  --samples S           drop_caches samples after a warm-up, 1..64 (5)\n"
		"  --churn-samples S     1..64 (3)\n"
		"  --register-batch B    mounts per registration sample (640)\n"
		"  --register-samples S  batches without and with cgroups, 1..64 (5)\n"
		"  --highwater-mounts H  mounts made and unmounted again (2000)\n"
		"  --walk-points P       points of the drop_caches slope, 2..32 (5)\n"
		"  --host-shrinkers K    memcg-aware shrinker ids taken before the workload\n"
		"                        (the guest's boot shrinkers + 4; default 22); at\n"
		"                        most the first rung's ids (64 per unit)\n"
		"  --nodes K             NUMA nodes (4)\n"
		"  --cpus C              CPUs for the slab geometry (2)\n"
		"  --like GUEST.json     the geometry a guest really ran, from its klab-guest\n"
		"                        document: its own options, the cgroups each step\n"
		"                        used (the guest cuts them to its memory), its\n"
		"                        shrinker ids, nodes and CPUs; before any other\n"
		"                        geometry option, which then overrides it\n"
		"  --print-options       print the geometry as options and exit\n"
		"output:\n"
		"  --json FILE           the results as JSON (schema shrinklab/2); '-' writes\n"
		"                        it to standard output and the tables to stderr\n"
		"  --csv FILE            every row as CSV, a line each ('-' as above)\n"
		"  --rows                also print every row on a line of its own\n"
		"  --quiet               no progress line\n"
		"  --version, --help\n");
	shrinklab_print_exit_codes(out);
}

static int parse_ladder(const char *s, struct kl_geometry *g, const char **why)
{
	char buf[128], *item[KL_MAX_RUNGS];
	unsigned int ladder[KL_MAX_RUNGS];
	int n = lab_list_split(s, ',', false, buf, sizeof(buf), item, KL_MAX_RUNGS, why);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		unsigned long u;

		if (lab_parse_ulong(item[i], 1, 100000, &u)) {
			*why = "a rung that is not a whole number 1..100000";
			return -EINVAL;
		}
		if ((!i && u != 1) || (i && u <= ladder[i - 1])) {
			*why = "rungs that do not rise from 1";
			return -EINVAL;
		}
		ladder[i] = (unsigned int)u;
	}
	memcpy(g->ladder, ladder, (size_t)n * sizeof(ladder[0]));
	g->nr_ladder = n;
	return 0;
}

/* What the command line asked. */
struct kernel_request {
	struct kl_geometry g;
	bool register_given, top_given;
	bool geometry_given; /* a geometry option seen: --like may not follow */
	bool print_options;
	struct model_cmd m;
};

/* The geometry's counts: option, name, range, field. */
struct count_option {
	int opt;
	const char *name;
	unsigned long min, max;
	size_t offset; /* of an unsigned long in struct kl_geometry */
};

static const struct count_option counts[] = {
	{ OPT_CGROUPS, "--cgroups", 1, 60000, offsetof(struct kl_geometry, cgroups) },
	{ OPT_REGISTER_CGROUPS, "--register-cgroups", 1, 60000,
	  offsetof(struct kl_geometry, register_cgroups) },
	{ OPT_TOP_CGROUPS, "--top-cgroups", 1, 60000,
	  offsetof(struct kl_geometry, top_cgroups) },
	{ OPT_UNITS_CGROUPS, "--units-cgroups", 1, 60000,
	  offsetof(struct kl_geometry, units_cgroups) },
	{ OPT_CHURN_CGROUPS, "--churn-cgroups", 1, 60000,
	  offsetof(struct kl_geometry, churn_cgroups) },
	{ OPT_REGISTER_BATCH, "--register-batch", 1, 1000000,
	  offsetof(struct kl_geometry, register_batch) },
	{ OPT_HIGHWATER_MOUNTS, "--highwater-mounts", 1, 10000000,
	  offsetof(struct kl_geometry, highwater_mounts) },
	{ OPT_SAMPLES, "--samples", 1, LAB_MAX_SAMPLES,
	  offsetof(struct kl_geometry, samples) },
	{ OPT_CHURN_SAMPLES, "--churn-samples", 1, LAB_MAX_SAMPLES,
	  offsetof(struct kl_geometry, churn_samples) },
	{ OPT_REGISTER_SAMPLES, "--register-samples", 1, LAB_MAX_SAMPLES,
	  offsetof(struct kl_geometry, register_samples) },
	{ OPT_WALK_POINTS, "--walk-points", 2, KL_MAX_POINTS,
	  offsetof(struct kl_geometry, walk_points) },
	{ OPT_HOST_SHRINKERS, "--host-shrinkers", 0, 100000,
	  offsetof(struct kl_geometry, host_shrinkers) },
	{ OPT_NODES, "--nodes", 1, SHR_MAX_NUMNODES, offsetof(struct kl_geometry, nodes) },
	{ OPT_CPUS, "--cpus", 1, 65536, offsetof(struct kl_geometry, cpus) },
};

static int like_value(struct kernel_request *c, const char *path);

/* One of the geometry's options (model_cmd_parse()'s own): 0, or -1 printed. */
static int parse_value(void *ctx, int opt, const char *v)
{
	struct kernel_request *c = ctx;
	const char *why = NULL;

	if (opt == OPT_PRINT_OPTIONS) {
		c->print_options = true;
		return 0;
	}
	if (opt == OPT_LIKE)
		return like_value(c, v);
	c->geometry_given = true;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (counts[i].opt != opt)
			continue;
		if (opt == OPT_REGISTER_CGROUPS)
			c->register_given = true;
		if (opt == OPT_TOP_CGROUPS)
			c->top_given = true;
		return shrinklab_count_value("kernel", counts[i].name, v, counts[i].min,
					     counts[i].max, NULL,
					     (unsigned long *)((char *)&c->g + counts[i].offset));
	}
	if (opt != OPT_LADDER)
		return -1;
	if (parse_ladder(v, &c->g, &why))
		return shrinklab_bad_list("kernel", "--ladder", v, why,
					  "rising units per node from 1, e.g. 1,35,126,314 "
					  "(at most 8)");
	return 0;
}

/* The guest's own options, which the model takes as they are (--like). */
static const int guest_options[] = {
	OPT_LADDER,	  OPT_UNITS_CGROUPS,	OPT_CHURN_CGROUPS,
	OPT_SAMPLES,	  OPT_CHURN_SAMPLES,	OPT_REGISTER_BATCH,
	OPT_REGISTER_SAMPLES, OPT_HIGHWATER_MOUNTS, OPT_WALK_POINTS,
};

/*
 * The cgroups a guest's step really used (the guest cuts them to its
 * memory): the option, and the experiment and metric of a row of that
 * step ('*' standing for a number), whose geometry holds them.
 */
static const struct guest_step {
	int opt;
	const char *exp, *metric;
} guest_steps[] = {
	{ OPT_CGROUPS, "drop_caches", "drop_caches_ns_no_mounts" },
	{ OPT_REGISTER_CGROUPS, "register", "register_*_mounts_ns_cgroups_alive" },
	{ OPT_TOP_CGROUPS, "drop_caches", "drop_caches_ns" },
};

static const char *option_name(int opt)
{
	for (const struct option *o = kernel_options; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* The first row of experiment @exp whose metric @pattern names, or NULL. */
static const struct jsonr_value *guest_row(const struct jsonr_value *doc, const char *exp,
					   const char *pattern)
{
	const struct jsonr_value *exps = jsonr_get(doc, "experiments");

	for (size_t i = 0; i < jsonr_len(exps); i++) {
		const struct jsonr_value *e = jsonr_at(exps, i);
		const struct jsonr_value *rows = jsonr_get(e, "results");
		const char *id = jsonr_str(jsonr_get(e, "id"));

		if (!id || strcmp(id, exp))
			continue;
		for (size_t k = 0; k < jsonr_len(rows); k++) {
			const char *m = jsonr_str(jsonr_get(jsonr_at(rows, k), "metric"));

			if (m && lab_metric_matches(m, pattern))
				return jsonr_at(rows, k);
		}
	}
	return NULL;
}

/* The value the guest's command line @cmd gave option --@name last, or NULL. */
static const char *guest_option(const struct jsonr_value *cmd, const char *name)
{
	const char *v = NULL;

	for (size_t i = 0; i + 1 < jsonr_len(cmd); i++) {
		const char *a = jsonr_str(jsonr_at(cmd, i));

		if (a && a[0] == '-' && a[1] == '-' && !strcmp(a + 2, name))
			v = jsonr_str(jsonr_at(cmd, i + 1));
	}
	return v;
}

/* Option @opt set to the guest's number @v (@what names it): 0, or -1 printed. */
static int like_number(struct kernel_request *c, const char *path, int opt,
		       const struct jsonr_value *v, const char *what)
{
	char buf[32];
	double d;

	if (!jsonr_num(v, &d) || d < 0 || d > 1e9 || d != (double)(unsigned long)d) {
		shrinklab_error("kernel", "--like %s: %s is not a whole number", path, what);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)d);
	return parse_value(c, opt, buf);
}

/* The geometry of the guest @doc (read from @path): 0, or -1 printed. */
static int like_doc(struct kernel_request *c, const char *path, const struct jsonr_value *doc)
{
	const struct jsonr_value *cmd = jsonr_get(doc, "command");
	const struct jsonr_value *machine = jsonr_get(doc, "machine");
	const struct jsonr_value *first = jsonr_at(
		jsonr_get(jsonr_at(jsonr_get(doc, "experiments"), 0), "results"), 0);
	const char *tool = jsonr_str(jsonr_get(jsonr_get(doc, "tool"), "name"));
	char what[160];

	if (!tool || strcmp(tool, "klab-guest")) {
		shrinklab_error("kernel", "--like %s: not a klab-guest document", path);
		return -1;
	}
	for (size_t i = 0; i < sizeof(guest_options) / sizeof(guest_options[0]); i++) {
		const char *name = option_name(guest_options[i]);
		const char *v = guest_option(cmd, name);

		if (!v) {
			shrinklab_error("kernel", "--like %s: the guest's command line lacks --%s",
					path, name);
			return -1;
		}
		if (parse_value(c, guest_options[i], v))
			return -1;
	}
	for (size_t i = 0; i < sizeof(guest_steps) / sizeof(guest_steps[0]); i++) {
		const struct guest_step *st = &guest_steps[i];
		const struct jsonr_value *r = guest_row(doc, st->exp, st->metric);

		snprintf(what, sizeof(what), "the cgroups of %s/%s", st->exp, st->metric);
		if (!r) {
			shrinklab_error("kernel", "--like %s: the guest's document has no %s/%s row",
					path, st->exp, st->metric);
			return -1;
		}
		if (like_number(c, path, st->opt, jsonr_get(jsonr_get(r, "geometry"), "cgroups"),
				what))
			return -1;
	}
	if (like_number(c, path, OPT_HOST_SHRINKERS,
			jsonr_get(jsonr_get(first, "geometry"), "host_shrinkers"),
			"the first row's host_shrinkers") ||
	    like_number(c, path, OPT_NODES, jsonr_get(machine, "nodes"), "machine.nodes") ||
	    like_number(c, path, OPT_CPUS, jsonr_get(machine, "cpus"), "machine.cpus"))
		return -1;
	return 0;
}

/* --like GUEST.json: the geometry that guest really ran (0, or -1 printed). */
static int like_value(struct kernel_request *c, const char *path)
{
	struct jsonr_value doc;
	char why[256];
	int ret;

	if (c->geometry_given) {
		shrinklab_error("kernel", "--like %s: give it before the geometry options (they "
				"override it)", path);
		return -1;
	}
	if (jsonr_read_file(path, &doc, why, sizeof(why))) {
		shrinklab_error("kernel", "--like %s: %s", path, why);
		return -1;
	}
	ret = like_doc(c, path, &doc);
	jsonr_free(&doc);
	c->geometry_given = false; /* what follows overrides it */
	return ret;
}

static unsigned long count_of(const struct kl_geometry *g, int opt)
{
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i].opt == opt)
			return *(const unsigned long *)((const char *)g + counts[i].offset);
	return 0;
}

/* --print-options: the geometry as the options that give it, on one line. */
static void print_options(const struct kl_geometry *g)
{
	static const int rest[] = { OPT_CGROUPS, OPT_REGISTER_CGROUPS, OPT_TOP_CGROUPS,
				    OPT_HOST_SHRINKERS, OPT_NODES, OPT_CPUS };

	printf("--ladder ");
	for (int i = 0; i < g->nr_ladder; i++)
		printf(i ? ",%u" : "%u", g->ladder[i]);
	/* guest_options[0] is the ladder, printed above. */
	for (size_t i = 1; i < sizeof(guest_options) / sizeof(guest_options[0]); i++)
		printf(" --%s %lu", option_name(guest_options[i]), count_of(g, guest_options[i]));
	for (size_t i = 0; i < sizeof(rest) / sizeof(rest[0]); i++)
		printf(" --%s %lu", option_name(rest[i]), count_of(g, rest[i]));
	putchar('\n');
}

/*
 * The high water runs at the first rung: its mounts raise the ids' high
 * water to (host shrinkers + H) / 64 units, which unmounting them does not
 * lower, so a later rung under it would be measured at the high water's
 * units and labelled with its own: refused (0, or -1 printed).
 */
static int check_ladder(const struct kl_geometry *g)
{
	unsigned long hw = (g->host_shrinkers + g->highwater_mounts + 63) / 64;

	for (int i = 1; i < g->nr_ladder; i++) {
		unsigned long most = g->ladder[i] * 64ul > g->host_shrinkers
					     ? g->ladder[i] * 64ul - g->host_shrinkers : 0;

		if (g->ladder[i] >= hw)
			continue;
		shrinklab_error("kernel", "--ladder: rung %u lies under the high water: %lu host "
				"shrinker ids and --highwater-mounts %lu leave the ids spanning %lu "
				"units per node, so rung %uu would be measured at %lu; give rungs "
				"of %lu units or more, or --highwater-mounts %lu or fewer",
				g->ladder[i], g->host_shrinkers, g->highwater_mounts, hw,
				g->ladder[i], hw, hw, most);
		return -1;
	}
	return 0;
}

/* 1 = --help/--version printed, 0 = go, -1 = bad usage (printed). */
static int parse(int argc, char **argv, struct kernel_request *c)
{
	int ret = model_cmd_parse(&c->m, argc, argv, kernel_options, usage, parse_value, c);

	if (ret)
		return ret;
	if (c->g.host_shrinkers > c->g.ladder[0] * 64ul) {
		/* The rung would be labelled with fewer units than its ids span. */
		shrinklab_error("kernel", "--host-shrinkers %lu: more ids than the ladder's first "
				"rung holds (%u unit(s) per node, %u ids); the host's shrinkers "
				"alone span %lu units", c->g.host_shrinkers, c->g.ladder[0],
				c->g.ladder[0] * 64u, (c->g.host_shrinkers + 63) / 64);
		return -1;
	}
	if (check_ladder(&c->g))
		return -1;
	if (!c->register_given)
		c->g.register_cgroups = c->g.cgroups;
	if (!c->top_given)
		c->g.top_cgroups = c->g.cgroups;
	return 0;
}

static int run_kernel(struct kernel_request *c)
{
	static struct lab_kernel_lab st;
	char about[512];
	int ret;

	ret = model_cmd_begin(&c->m, (int)c->g.nodes);
	if (ret)
		return ret;
	lab_kernel_init(&st, &c->g, c->m.designs, c->m.nr_designs);
	lab_kernel_describe(&st.g, about, sizeof(about));
	model_cmd_heading(&c->m, "shrinklab kernel: the kernel guest's experiments in the model",
			  about);
	ret = lab_kernel_run(&st);
	ret = model_cmd_finish(&c->m, ret, st.runs, KL_NR_EXP, (unsigned int)st.g.samples);
	lab_kernel_free(&st);
	return ret;
}

int shrinklab_kernel(int argc, char **argv)
{
	struct kernel_request c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.m.sub = "kernel";
	kl_geometry_full(&c.g);
	ret = parse(argc, argv, &c);
	if (ret)
		return ret > 0 ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
	if (c.print_options) {
		print_options(&c.g);
		return SHRINKLAB_EXIT_OK;
	}
	return run_kernel(&c);
}
