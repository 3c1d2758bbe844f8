// SPDX-License-Identifier: GPL-2.0
/*
 * klab-guest: the kernel lab's experiments (memory of empty cgroups up the
 * shrinker-unit ladder, high water after unmounting, registration of a
 * batch of mounts, drop_caches against empty cgroups, mkdir/rmdir/release),
 * run inside the guest: the script is tools/shrinklab/scripts/kernel_lab.c,
 * the one shrinklab kernel runs in the model, here on the kernel's world
 * (world_kernel.c: tmpfs mounts, memory cgroups, /proc and /sys).
 *
 * This file is the program around it: the options (the geometry), the
 * machine, and the JSON (kjson.c, schema shrinklab/2) on stdout; progress
 * goes to stderr. Everything is bounded by work: counts, not durations.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/shrinklab/scripts/kernel_lab.h"
#include "kjson.h"
#include "kutil.h"
#include "world_kernel.h"

static struct kl_geometry geo;

static int parse_units(const char *s)
{
	char *end;

	geo.nr_ladder = 0;
	while (*s && geo.nr_ladder < KL_MAX_RUNGS) {
		unsigned long u = strtoul(s, &end, 10);

		if (end == s || u < 1 || (geo.nr_ladder && u <= geo.ladder[geo.nr_ladder - 1]))
			return -1;
		geo.ladder[geo.nr_ladder++] = (unsigned int)u;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return geo.nr_ladder && geo.ladder[0] == 1 ? 0 : -1;
}

static void usage(void)
{
	fputs("usage: klab-guest [--design NAME] [--accel NAME] [--scale NAME] [--date ISO8601]\n"
	      "  [--ladder 1,35,126,314] [--cgroups N] [--units-cgroups Nu]\n"
	      "  [--churn-cgroups Nr] [--samples S] [--churn-samples S] [--register-batch B]\n"
	      "  [--register-samples S] [--highwater-mounts H] [--walk-points P]\n"
	      "  [--mem-fraction F]\n"
	      "The unit ladder must start at 1 and rise; samples are 1..64, walk points\n"
	      "2..32.\n", stderr);
	exit(2);
}

/* The geometry in words, for the JSON. */
static void describe(const struct kworld *kw, char *buf, size_t len)
{
	int n = snprintf(buf, len, "kernel guest: ladder");

	for (int i = 0; i < geo.nr_ladder && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%u", i ? "," : " ", geo.ladder[i]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " units per node (%lu host shrinker ids), "
			 "N=%lu, Nu=%lu, Nr=%lu, H=%lu, B=%lu, %d nodes, %u CPUs",
			 kw->host_ids, geo.cgroups, geo.units_cgroups, geo.churn_cgroups,
			 geo.highwater_mounts, geo.register_batch, kw->nodes, kw->cpus);
}

static bool samples_ok(unsigned long n)
{
	return n >= 1 && n <= WORLD_MAX_SAMPLES;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "design", 1, 0, 'd' }, { "accel", 1, 0, 'a' }, { "ladder", 1, 0, 'u' },
		{ "cgroups", 1, 0, 'n' }, { "units-cgroups", 1, 0, 'U' },
		{ "churn-cgroups", 1, 0, 'r' }, { "samples", 1, 0, 's' },
		{ "churn-samples", 1, 0, 'S' }, { "register-batch", 1, 0, 'b' },
		{ "register-samples", 1, 0, 'B' }, { "highwater-mounts", 1, 0, 'H' },
		{ "walk-points", 1, 0, 'p' }, { "mem-fraction", 1, 0, 'f' },
		{ "scale", 1, 0, 'g' }, { "date", 1, 0, 't' }, { 0, 0, 0, 0 }
	};
	struct kguest g = { .design = "kernel:unknown", .accel = "unknown", .scale = "custom",
			    .argc = argc, .argv = argv };
	uint64_t t_start = now_ns();
	double mem_fraction = 0.7;
	static struct kworld kw;
	char words[512];
	int opt;

	kl_geometry_full(&geo);
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': g.design = optarg; break;
		case 'a': g.accel = optarg; break;
		case 'g': g.scale = optarg; break;
		case 't': g.date = optarg; break;
		case 'u': if (parse_units(optarg)) usage(); break;
		case 'n': geo.cgroups = strtoul(optarg, NULL, 10); break;
		case 'U': geo.units_cgroups = strtoul(optarg, NULL, 10); break;
		case 'r': geo.churn_cgroups = strtoul(optarg, NULL, 10); break;
		case 's': geo.samples = strtoul(optarg, NULL, 10); break;
		case 'S': geo.churn_samples = strtoul(optarg, NULL, 10); break;
		case 'b': geo.register_batch = strtoul(optarg, NULL, 10); break;
		case 'B': geo.register_samples = strtoul(optarg, NULL, 10); break;
		case 'H': geo.highwater_mounts = strtoul(optarg, NULL, 10); break;
		case 'p': geo.walk_points = strtoul(optarg, NULL, 10); break;
		case 'f': mem_fraction = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || !geo.cgroups || !geo.units_cgroups || !geo.churn_cgroups ||
	    !samples_ok(geo.samples) || !samples_ok(geo.churn_samples) || !geo.register_batch ||
	    !samples_ok(geo.register_samples) || geo.walk_points > KL_MAX_POINTS ||
	    mem_fraction <= 0 || mem_fraction > 0.95)
		usage();

	kworld_open(&kw, g.design, mem_fraction);
	geo.register_cgroups = geo.top_cgroups = geo.cgroups;
	geo.host_shrinkers = kw.host_ids;
	geo.nodes = (unsigned long)kw.nodes;
	geo.cpus = kw.cpus;
	g.cpus = kw.cpus;
	g.nodes = kw.nodes;
	g.mem_kb = (unsigned long)meminfo_kb("MemTotal");
	g.samples = (unsigned int)geo.samples;
	g.boot_shrinkers = kw.boot_shrinkers;
	say("%s: %u cpus, %d nodes, %lu MiB, %ld shrinkers at boot", g.design, kw.cpus, kw.nodes,
	    g.mem_kb / 1024, kw.boot_shrinkers);

	if (kl_run(&kw.w, &geo))
		die("the script failed");

	describe(&kw, words, sizeof(words));
	g.describe = words;
	g.mem_available_kb = (unsigned long)meminfo_kb("MemAvailable");
	g.elapsed_ns = now_ns() - t_start;
	if (kjson_write(stdout, &g))
		die("writing the JSON failed");
	say("done: %lu mounts", kw.mounts);
	return 0;
}
