// SPDX-License-Identifier: GPL-2.0
/*
 * kwork: workloads where cgroups hold objects and reclaim really runs, in
 * the guest; one JSON document (schema shrinklab/2, kjson.c) on stdout,
 * progress on stderr.
 *
 *   kwork [--design D] [--accel A] [--scale NAME] [--date ISO] [--clock C]
 *         EXP[:key=value,...] [EXP[:...] ...]
 *
 * runs the experiments in the order given, each with its parameters
 * (kwork --help lists them with their defaults):
 *
 *   containers  memory cgroups holding dentries, inodes and page cache on
 *               mounts of their own (ext4 on a loop device, procfs, tmpfs)
 *               beside M background mounts: memory.reclaim, a writer at
 *               memory.high, global reclaim by an anonymous balloon
 *               (kswapd), drop_caches, teardown (kw_containers.c)
 *   tkhai       seed 003's test: memcgs each with its own tmpfs holding one
 *               file, then echo 3 > drop_caches, several times
 *   qizheng     Qi Zheng's slab-shrink stress: the same memcgs under one
 *               limited parent, parallel writers of 1 MiB files into them
 *   ramfs       stress-ng --ramfs (the LKP case that reverted a shrinker
 *               change): mount/umount churn, bogo ops (kw_reviewers.c)
 *   pods        seed 001's pod creation: a cgroup plus its mounts, pod
 *               after pod (boot with cgroup.memory=nokmem) (kw_pods.c)
 *   density     a container host's pod churn: overlay, tmpfs and procfs per
 *               pod, created and torn down (kw_density.c)
 *   tar         Kairui Song's multi-cgroup tar of small files (kw_tar.c)
 *
 * Every experiment is bounded by counts. Times are the guest's
 * CLOCK_MONOTONIC; under QEMU's -icount it counts guest instructions, so
 * --clock names which clock the host gave the guest (it goes in the JSON).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kwork.h"

long kw_boot_shrinkers = -1;

static struct kw_exp *const exps[] = {
	&kw_exp_containers, &kw_exp_tkhai, &kw_exp_qizheng, &kw_exp_ramfs, &kw_exp_pods,
	&kw_exp_density, &kw_exp_tar,
};
#define NR_EXPS (sizeof(exps) / sizeof(exps[0]))

static struct kw_param *param(struct kw_exp *e, const char *name)
{
	for (struct kw_param *p = e->params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	die("%s: no parameter %s", e->name, name);
}

const char *kw_str(struct kw_exp *e, const char *name)
{
	struct kw_param *p = param(e, name);

	return p->val ? p->val : p->def;
}

unsigned long kw_ul(struct kw_exp *e, const char *name)
{
	const char *s = kw_str(e, name);
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (end == s || *end)
		die("%s: %s=%s is not a count", e->name, name, s);
	return v;
}

double kw_dbl(struct kw_exp *e, const char *name)
{
	const char *s = kw_str(e, name);
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end)
		die("%s: %s=%s is not a number", e->name, name, s);
	return v;
}

size_t kw_ul_list(struct kw_exp *e, const char *name, unsigned long *out, size_t max)
{
	const char *s = kw_str(e, name);
	size_t n = 0;

	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || n == max || (*end && *end != '+' && *end != '/'))
			die("%s: %s=%s is not a list of counts (a+b+c, at most %zu)", e->name,
			    name, kw_str(e, name), max);
		out[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n;
}

static void usage(int status)
{
	fputs("usage: kwork [--design D] [--accel A] [--scale NAME] [--date ISO8601] "
	      "[--clock C]\n             EXP[:key=value,...] ...\n\nexperiments and their "
	      "parameters (default in brackets):\n", stderr);
	for (size_t i = 0; i < NR_EXPS; i++) {
		fprintf(stderr, "\n  %s: %s\n", exps[i]->name, exps[i]->help);
		for (struct kw_param *p = exps[i]->params; p->name; p++)
			fprintf(stderr, "    %-16s [%s] %s\n", p->name, p->def, p->help);
	}
	exit(status);
}

/* "name:k=v,k=v" -> the experiment, its parameters set. */
static struct kw_exp *parse_exp(char *spec)
{
	char *colon = strchr(spec, ':'), *kv, *save = NULL;
	struct kw_exp *e = NULL;

	if (colon)
		*colon = 0;
	for (size_t i = 0; i < NR_EXPS; i++)
		if (!strcmp(exps[i]->name, spec))
			e = exps[i];
	if (!e) {
		fprintf(stderr, "kwork: no experiment %s\n", spec);
		usage(2);
	}
	if (!colon)
		return e;
	for (kv = strtok_r(colon + 1, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq) {
			fprintf(stderr, "kwork: %s: %s is not key=value\n", e->name, kv);
			usage(2);
		}
		*eq = 0;
		param(e, kv)->val = eq + 1;
	}
	return e;
}

/* The geometry in words: every experiment with every parameter. */
static void describe(char *buf, size_t len, struct kw_exp **run, int n, const char *clock)
{
	size_t used = 0;

	used += (size_t)snprintf(buf, len, "kwork (%s clock):", clock);
	for (int i = 0; i < n && used < len; i++) {
		used += (size_t)snprintf(buf + used, len - used, " %s", run[i]->name);
		for (struct kw_param *p = run[i]->params; p->name && used < len; p++)
			used += (size_t)snprintf(buf + used, len - used, "%s%s=%s",
						 p == run[i]->params ? ":" : ",", p->name,
						 p->val ? p->val : p->def);
	}
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "design", 1, 0, 'd' }, { "accel", 1, 0, 'a' }, { "scale", 1, 0, 'g' },
		{ "date", 1, 0, 't' }, { "clock", 1, 0, 'c' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct kguest g = { .design = "kernel:unknown", .accel = "unknown", .scale = "custom",
			    .argc = argc, .argv = argv };
	struct kw_exp *run[NR_EXPS * 2];
	const char *clock = "wall";
	uint64_t t_start = now_ns();
	static char words[4096];
	int opt, n = 0;

	while ((opt = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (opt) {
		case 'd': g.design = optarg; break;
		case 'a': g.accel = optarg; break;
		case 'g': g.scale = optarg; break;
		case 't': g.date = optarg; break;
		case 'c': clock = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind == argc)
		usage(2);
	for (int i = optind; i < argc; i++) {
		if (n == (int)(sizeof(run) / sizeof(run[0])))
			die("too many experiments");
		char *spec = strdup(argv[i]); /* parsing cuts it up; argv goes in the JSON */

		if (!spec)
			die("out of memory");
		run[n++] = parse_exp(spec);
	}
	g.cpus = online_cpus();
	g.nodes = online_nodes();
	g.mem_kb = (unsigned long)meminfo_kb("MemTotal");
	g.samples = 1;
	kw_boot_shrinkers = debugfs_shrinkers();
	g.boot_shrinkers = kw_boot_shrinkers;
	cg_enable_memory(CG_ROOT);
	kw_cg_make(KW_CG, true);
	kw_mkdir_p(KW_MNT);
	say("kwork %s: %u cpus, %d nodes, %lu MiB, %ld shrinkers, %s, %s clock", g.design,
	    g.cpus, g.nodes, g.mem_kb / 1024, kw_boot_shrinkers,
	    kw_nokmem() ? "cgroup.memory=nokmem" : "kmem accounted", clock);
	for (int i = 0; i < n; i++) {
		say("== %s", run[i]->name);
		run[i]->run(run[i]);
	}
	describe(words, sizeof(words), run, n, clock);
	g.describe = words;
	g.mem_available_kb = (unsigned long)meminfo_kb("MemAvailable");
	g.elapsed_ns = now_ns() - t_start;
	if (kjson_write(stdout, &g))
		die("writing the JSON failed");
	say("kwork: done in %.1f s", (double)g.elapsed_ns / 1e9);
	return 0;
}
