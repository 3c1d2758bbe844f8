/* SPDX-License-Identifier: MIT */
/*
 * shrinklab containers: the kernel lab's container workload
 * (kernel/guest/kw_containers.c) in the model, at the guest's geometry
 * (container_experiment.h runs it): the options, which are the guest's
 * parameters under the same names (klab work passes the guest's own);
 * model_cmd.c checks the design configurations before anything runs and
 * writes the table, the JSON (schema shrinklab/2, experiment "containers")
 * that kernel/klab work puts beside the guest's, and the same rows as CSV.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "container_experiment.h"
#include "conventions.h"
#include "model_cmd.h"
#include "units.h"

#define SUB "containers"

enum {
	OPT_CONTAINERS = MODEL_OPT_FIRST_OWN,
	OPT_MIX,
	OPT_FILES,
	OPT_DIRS,
	OPT_NEGATIVE,
	OPT_TMPFS_FILES,
	OPT_PROC_FILES,
	OPT_BG,
	OPT_SAMPLES,
	OPT_WRITER_FILES,
	OPT_HIGH_MARGIN_KIB,
	OPT_PHASES,
	OPT_HOST_SHRINKERS,
	OPT_NODES,
	OPT_CPUS,
};

static const struct option ct_options[] = {
	{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
	{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
	{ "design", required_argument, NULL, MODEL_OPT_DESIGN },
	{ "containers", required_argument, NULL, OPT_CONTAINERS },
	{ "mix", required_argument, NULL, OPT_MIX },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "dirs", required_argument, NULL, OPT_DIRS },
	{ "negative", required_argument, NULL, OPT_NEGATIVE },
	{ "tmpfs-files", required_argument, NULL, OPT_TMPFS_FILES },
	{ "proc-files", required_argument, NULL, OPT_PROC_FILES },
	{ "bg", required_argument, NULL, OPT_BG },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "writer-files", required_argument, NULL, OPT_WRITER_FILES },
	{ "high-margin-kib", required_argument, NULL, OPT_HIGH_MARGIN_KIB },
	{ "phases", required_argument, NULL, OPT_PHASES },
	{ "host-shrinkers", required_argument, NULL, OPT_HOST_SHRINKERS },
	{ "nodes", required_argument, NULL, OPT_NODES },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "json", required_argument, NULL, MODEL_OPT_JSON },
	{ "csv", required_argument, NULL, MODEL_OPT_CSV },
	{ "rows", no_argument, NULL, MODEL_OPT_ROWS },
	{ "quiet", no_argument, NULL, MODEL_OPT_QUIET },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab containers --design D [--design D]... [geometry options]\n"
		"                            [--json FILE] [--csv FILE] [--rows] [--quiet]\n"
		"\n"
		"Run the kernel lab's container workload (kernel/guest/kw_containers.c) in\n"
		"the model, at the guest's geometry, one host per design configuration, side\n"
		"by side: containers (a cgroup with mounts of its own holding dentries and\n"
		"inodes on their list_lrus, charged to it) beside background mounts, under\n"
		"memory.reclaim, memory.high with a writer, drop_caches, and their teardown.\n"
		"Metric names are the guest's; kernel/klab work puts the two side by side.\n"
		"The model has no page cache and no kswapd: it covers the slab part.\n"
		"\n"
		"  --design D             a design configuration, as the lab labels it:\n"
		"                         DESIGN[+units=cache|kmalloc][+lru_reparent=all|index]\n"
		"                         [+root_bits=off][+expand_batch=N]; repeatable\n"
		"geometry (the guest's parameters; defaults: the guest's full geometry):\n"
		"  --containers N         containers at each background level, 1..%d (12)\n"
		"  --mix M                each container's mounts, ext4, proc, tmpfs joined\n"
		"                         by '+', at most %d (ext4+proc+tmpfs+tmpfs)\n"
		"  --files N              files per ext4 mount (2000)\n"
		"  --dirs N               directories they are spread over, >= 1 (8)\n"
		"  --negative N           missing names looked up per ext4 (2000)\n"
		"  --tmpfs-files N        files per tmpfs, pinned (16)\n"
		"  --proc-files N         objects the procfs walk leaves per proc mount (1000)\n"
		"  --bg L+L...            background tmpfs mounts at each level, rising, at\n"
		"                         most %d levels (0+20000)\n"
		"  --samples S            samples of each measurement per level, 1..%d (5)\n"
		"  --writer-files N       files the writer at memory.high creates, >= 1 (3000)\n"
		"  --high-margin-kib K    memory.high = usage + K KiB (2048)\n"
		"  --phases P             reclaim+high+drop, or all (teardown always runs;\n"
		"                         balloon is accepted and not modelled)\n"
		"  --host-shrinkers K     memcg-aware shrinker ids taken before the workload\n"
		"                         (the guest's boot shrinkers; 22)\n"
		"  --nodes K              NUMA nodes (4)\n"
		"  --cpus C               CPUs for the slab geometry; objects go to the first\n"
		"                         min(C, K) nodes (2)\n"
		"output:\n"
		"  --json FILE            the results as JSON (schema shrinklab/2); '-' writes\n"
		"                         it to standard output and the table to stderr\n"
		"  --csv FILE             every row as CSV, a line each ('-' as above)\n"
		"  --rows                 also print every row on a line of its own\n"
		"  --quiet                no progress line\n"
		"  --version, --help\n",
		LAB_CT_MAX_CONTAINERS, LAB_CT_MAX_MIX, LAB_CT_MAX_LEVELS, LAB_MAX_SAMPLES);
	shrinklab_print_exit_codes(out);
}

/* What the command line asked. */
struct ct_request {
	struct lab_ct_geometry g;
	struct model_cmd m;
	bool balloon;
};

struct count_option {
	int opt;
	const char *name;
	unsigned long min, max;
	size_t offset; /* of an unsigned long in struct lab_ct_geometry */
};

static const struct count_option counts[] = {
	{ OPT_CONTAINERS, "--containers", 1, LAB_CT_MAX_CONTAINERS,
	  offsetof(struct lab_ct_geometry, containers) },
	{ OPT_FILES, "--files", 0, 10000000, offsetof(struct lab_ct_geometry, files) },
	{ OPT_DIRS, "--dirs", 1, 1000000, offsetof(struct lab_ct_geometry, dirs) },
	{ OPT_NEGATIVE, "--negative", 0, 10000000, offsetof(struct lab_ct_geometry, negative) },
	{ OPT_TMPFS_FILES, "--tmpfs-files", 0, 1000000,
	  offsetof(struct lab_ct_geometry, tmpfs_files) },
	{ OPT_PROC_FILES, "--proc-files", 0, 10000000,
	  offsetof(struct lab_ct_geometry, proc_files) },
	{ OPT_SAMPLES, "--samples", 1, LAB_MAX_SAMPLES, offsetof(struct lab_ct_geometry, samples) },
	{ OPT_WRITER_FILES, "--writer-files", 1, 10000000,
	  offsetof(struct lab_ct_geometry, writer_files) },
	{ OPT_HIGH_MARGIN_KIB, "--high-margin-kib", 0, 1ul << 30,
	  offsetof(struct lab_ct_geometry, high_margin_kib) },
	{ OPT_HOST_SHRINKERS, "--host-shrinkers", 0, 100000,
	  offsetof(struct lab_ct_geometry, host_shrinkers) },
	{ OPT_NODES, "--nodes", 1, SHR_MAX_NUMNODES, offsetof(struct lab_ct_geometry, nodes) },
	{ OPT_CPUS, "--cpus", 1, 65536, offsetof(struct lab_ct_geometry, cpus) },
};

/* "0+20000": rising levels of background mounts. */
static int parse_bg(const char *s, struct lab_ct_geometry *g, const char **why)
{
	char buf[128], *item[LAB_CT_MAX_LEVELS];
	unsigned long bg[LAB_CT_MAX_LEVELS];
	int n = lab_list_split(s, '+', false, buf, sizeof(buf), item, LAB_CT_MAX_LEVELS, why);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		if (lab_parse_ulong(item[i], 0, 10000000, &bg[i])) {
			*why = "a count that is not a whole number 0..10000000";
			return -EINVAL;
		}
		if (i && bg[i] <= bg[i - 1]) {
			*why = "a level not above the one before";
			return -EINVAL;
		}
	}
	memcpy(g->bg, bg, (size_t)n * sizeof(bg[0]));
	g->nbg = (size_t)n;
	return 0;
}

/* "reclaim+high+drop" (each once) or "all" into @g's phases; @balloon set
 * when it was asked (accepted, not modelled). 0, or -EINVAL with @why. */
static int parse_phases(const char *text, struct lab_ct_geometry *g, bool *balloon,
			const char **why)
{
	static const char *const names[] = { "reclaim", "high", "drop", "balloon" };
	char buf[128], *item[5];
	bool on[4] = { false };
	int n = lab_list_split(text, '+', false, buf, sizeof(buf), item, 5, why);
	bool all = n == 1 && !strcmp(item[0], "all");

	if (all)
		on[0] = on[1] = on[2] = on[3] = true;
	for (int i = 0; i < n && !all; i++) {
		size_t k = 0;

		while (k < 4 && strcmp(item[i], names[k]))
			k++;
		if (k == 4) {
			*why = strcmp(item[i], "all") ? "an unknown phase" : "all and another phase";
			return -EINVAL;
		}
		on[k] = true;
	}
	if (n < 0)
		return n;
	g->phase_reclaim = on[0];
	g->phase_high = on[1];
	g->phase_drop = on[2];
	*balloon = on[3];
	return 0;
}

/* One of the geometry's options (model_cmd_parse()'s own): 0, or -1 printed. */
static int parse_value(void *ctx, int opt, const char *v)
{
	struct ct_request *c = ctx;
	const char *why = NULL;

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (counts[i].opt == opt)
			return shrinklab_count_value(SUB, counts[i].name, v, counts[i].min,
						     counts[i].max, NULL,
						     (unsigned long *)((char *)&c->g +
								       counts[i].offset));
	switch (opt) {
	case OPT_MIX:
		if (lab_ct_parse_mix(v, &c->g, &why))
			return shrinklab_bad_list(SUB, "--mix", v, why, "ext4, proc and tmpfs "
						  "joined by '+', at most 8");
		return 0;
	case OPT_BG:
		if (parse_bg(v, &c->g, &why))
			return shrinklab_bad_list(SUB, "--bg", v, why, "rising mount counts "
						  "joined by '+', e.g. 0+20000 (at most 8)");
		return 0;
	case OPT_PHASES:
		if (parse_phases(v, &c->g, &c->balloon, &why))
			return shrinklab_bad_list(SUB, "--phases", v, why, "reclaim, high, "
						  "balloon, drop joined by '+', each once, or all");
		return 0;
	default:
		return -1;
	}
}

static int run_containers(struct ct_request *c)
{
	static struct lab_ct_lab st;
	char about[512], heading[768];
	int ret;

	ret = model_cmd_begin(&c->m, (int)c->g.nodes);
	if (ret)
		return ret;
	lab_ct_init(&st, &c->g, c->m.designs, c->m.nr_designs);
	lab_ct_describe(&st.g, about, sizeof(about));
	snprintf(heading, sizeof(heading), "%s\nnot modelled: page cache (the guest's file bytes), "
		 "kswapd and the anonymous balloon%s, pgscan/pgsteal (pages)", about,
		 c->balloon ? " (--phases asked for it: no rows)" : "");
	model_cmd_heading(&c->m, "shrinklab containers: the kernel guest's container workload "
			  "in the model", heading);
	ret = lab_ct_run(&st);
	ret = model_cmd_finish(&c->m, ret, &st.run, 1, (unsigned int)st.g.samples);
	lab_ct_free(&st);
	return ret;
}

int shrinklab_containers(int argc, char **argv)
{
	struct ct_request c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.m.sub = SUB;
	lab_ct_geometry_full(&c.g);
	ret = model_cmd_parse(&c.m, argc, argv, ct_options, usage, parse_value, &c);
	if (ret)
		return ret > 0 ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
	return run_containers(&c);
}
