/* SPDX-License-Identifier: MIT */
/*
 * Scales (scale.h): the geometry keys a figure depends on, the options that
 * say how big to run (a multiplier of the seeds' scale, each experiment's
 * default, or a custom geometry for "run"), the scale each experiment gets
 * from them, and the check, before anything is allocated, that the machine
 * and the memory budget can hold it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/common.h>

#include "machine.h"
#include "scale.h"
#include "units.h"

#define LAB_QUICK_FACTOR 0.01
#define LAB_MAX_FACTOR 3.0
/* Below the quick scale every experiment would sit at its floor of mounts
 * and cgroups (scaled()): a smaller multiplier would be silently raised. */
#define LAB_MIN_FACTOR LAB_QUICK_FACTOR
/* memcg ids run out at 65535; leave room for the churn samples. */
#define LAB_MAX_CGROUPS 60000UL
/* The library's page allocator maps a host's memory per node in chunks of
 * 64 MiB (SHR_CHUNK_SIZE, src/base/page_alloc.c), and maps twice that for
 * a moment while it aligns one. */
#define LAB_AS_CHUNK (64ull << 20)

const char *lab_geo_name(enum lab_geo_key k)
{
	static const char *const names[LAB_NR_GEO] = { "mounts", "units", "cgroups", "nodes",
						       "cpus" };

	return (unsigned int)k < LAB_NR_GEO ? names[k] : "?";
}

unsigned long lab_scale_geo(const struct lab_scale *s, enum lab_geo_key k)
{
	switch (k) {
	case LAB_GEO_MOUNTS:
		return s->mounts;
	case LAB_GEO_UNITS:
		return s->units < 0 ? 0 : (unsigned long)s->units;
	case LAB_GEO_CGROUPS:
		return s->cgroups;
	case LAB_GEO_NODES:
		return (unsigned long)s->nodes;
	case LAB_GEO_CPUS:
		return s->cpus;
	default:
		return 0;
	}
}

void lab_options_init(struct lab_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->scale_kind = LAB_SCALE_DEFAULT;
	opt->factor = 0;
	snprintf(opt->scale_name, sizeof(opt->scale_name), "default");
	opt->samples = 5;
	opt->kmem = -1;
}

bool lab_options_custom(const struct lab_options *opt)
{
	return opt->mounts || opt->cgroups || opt->nodes || opt->cpus || opt->kmem >= 0;
}

int lab_parse_scale(const char *s, struct lab_options *opt)
{
	char *end;
	double f;

	if (!strcmp(s, "seed")) {
		opt->scale_kind = LAB_SCALE_SEED;
		opt->factor = 1.0;
	} else if (!strcmp(s, "quick")) {
		opt->scale_kind = LAB_SCALE_QUICK;
		opt->factor = LAB_QUICK_FACTOR;
	} else if (!strcmp(s, "default")) {
		opt->scale_kind = LAB_SCALE_DEFAULT;
		opt->factor = 0;
	} else {
		if (!s[0] || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.'))
			return -EINVAL;
		errno = 0;
		f = strtod(s, &end);
		if (errno || *end || !(f >= LAB_MIN_FACTOR) || f > LAB_MAX_FACTOR)
			return -EINVAL;
		opt->scale_kind = LAB_SCALE_FACTOR;
		opt->factor = f;
	}
	snprintf(opt->scale_name, sizeof(opt->scale_name), "%s", s);
	return 0;
}

static unsigned long scaled(unsigned long seed, double factor, unsigned long floor)
{
	double x = round((double)seed * factor);

	return x < (double)floor ? floor : (unsigned long)x;
}

void lab_experiment_scale(const struct lab_experiment *exp, const struct lab_options *opt,
			  struct lab_scale *out)
{
	const struct lab_scale *seed = &exp->seed_scale;

	*out = *seed;
	out->note[0] = '\0';
	if (opt->scale_kind == LAB_SCALE_DEFAULT) {
		out->cgroups = exp->default_cgroups;
		out->mounts = exp->default_mounts;
	} else {
		out->cgroups = scaled(seed->cgroups, opt->factor, 4);
		out->mounts = scaled(seed->mounts, opt->factor, 128);
	}
	if (opt->cgroups)
		out->cgroups = opt->cgroups;
	if (opt->mounts)
		out->mounts = opt->mounts;
	if (exp->mounts_per_cgroup)
		out->mounts = out->cgroups * exp->mounts_per_cgroup;
	if (opt->nodes)
		out->nodes = opt->nodes;
	if (opt->cpus)
		out->cpus = opt->cpus;
	if (opt->kmem >= 0)
		out->kmem = opt->kmem;
}

void lab_scale_describe(const struct lab_experiment *exp, const struct lab_scale *s, char *buf,
			size_t len)
{
	const struct lab_scale *seed = &exp->seed_scale;
	bool same_host = s->nodes == seed->nodes && s->cpus == seed->cpus && s->kmem == seed->kmem;
	double fm = (double)s->mounts / (double)seed->mounts;
	double fc = (double)s->cgroups / (double)seed->cgroups;
	int n;

	if (same_host && s->mounts == seed->mounts && s->cgroups == seed->cgroups)
		n = snprintf(buf, len, "the seed's scale");
	else if (fabs(fm - fc) < 1e-9)
		n = snprintf(buf, len, "x%.3g of the seed's mounts and cgroups", fm);
	else
		n = snprintf(buf, len, "%lu of the seed's %lu mounts, %lu of its %lu cgroups",
			     s->mounts, seed->mounts, s->cgroups, seed->cgroups);
	if (!same_host && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; %d node(s), %u CPUs, kmem %s where the "
			 "seed had %d, %u, %s", s->nodes, s->cpus, s->kmem ? "on" : "off",
			 seed->nodes, seed->cpus, seed->kmem ? "on" : "off");
}

unsigned long long lab_scale_floor_bytes(const struct lab_scale *s, size_t designs)
{
	/* Admission only: a mount is at least a shrinker and two list_lrus
	 * (about 1 KiB), a pilot cgroup at least its structure per node
	 * (1 KiB); cgroups beyond the pilot are cut to the budget. */
	unsigned long pilot = s->cgroups < LAB_PILOT_CGROUPS ? s->cgroups : LAB_PILOT_CGROUPS;

	return (unsigned long long)designs *
	       ((unsigned long long)(s->mounts + s->host_shrinkers) * 1024ull +
		(unsigned long long)pilot * (unsigned long long)s->nodes * 1024ull);
}

int lab_check_feasible(const struct lab_options *opt, const struct lab_scale *s,
		       size_t designs, char *err, size_t errlen)
{
	unsigned long long avail = lab_mem_available();
	unsigned long long floor = lab_scale_floor_bytes(s, designs);

	if (s->nodes < 1 || s->nodes > SHR_MAX_NUMNODES) {
		snprintf(err, errlen, "%d nodes: must be 1..%d", s->nodes, SHR_MAX_NUMNODES);
		return -EINVAL;
	}
	if (s->cgroups > LAB_MAX_CGROUPS) {
		snprintf(err, errlen, "%lu cgroups: at most %lu (memcg ids run out at 65535)",
			 s->cgroups, LAB_MAX_CGROUPS);
		return -EINVAL;
	}
	if (avail && opt->mem_budget > avail) {
		snprintf(err, errlen, "memory budget %.1f GiB exceeds MemAvailable %.1f GiB",
			 (double)opt->mem_budget / (1ull << 30), (double)avail / (1ull << 30));
		return -EINVAL;
	}
	if (floor > opt->mem_budget) {
		char need[32], have[32];

		lab_fmt_value(need, sizeof(need), (double)floor, "B");
		lab_fmt_value(have, sizeof(have), (double)opt->mem_budget, "B");
		snprintf(err, errlen, "%lu mounts and %lu cgroups on %d node(s) for %zu design(s) "
			 "need at least %s, more than the memory budget (%s): lower --scale or "
			 "raise --mem-budget", s->mounts, s->cgroups, s->nodes, designs, need, have);
		return -EINVAL;
	}
	if (avail && floor > avail) {
		snprintf(err, errlen, "%lu mounts and %lu cgroups on %d nodes need more than "
			 "MemAvailable (%.1f GiB)", s->mounts, s->cgroups, s->nodes,
			 (double)avail / (1ull << 30));
		return -EINVAL;
	}
	return 0;
}

int lab_budget_fit_as(struct lab_options *opt, const struct lab_scale *s, size_t designs,
		      char *err, size_t errlen)
{
	unsigned long long unmapped, limit = lab_as_limit(&unmapped);
	unsigned long long chunks = (unsigned long long)designs * (unsigned long long)s->nodes;
	unsigned long long least = (chunks + 1) * LAB_AS_CHUNK + lab_scale_floor_bytes(s, designs);
	unsigned long long fits;

	if (!limit)
		return 0;
	if (least > unmapped) {
		snprintf(err, errlen, "the address-space limit (RLIMIT_AS %llu MiB) leaves %llu MiB "
			 "unmapped, and %zu host(s) on %d node(s) map %llu MiB at least (64 MiB "
			 "per node and host, 64 more while one is added, the scale's floor): "
			 "raise the limit or lower --scale", limit >> 20, unmapped >> 20, designs,
			 s->nodes, (least + (1ull << 20) - 1) >> 20);
		return -EINVAL;
	}
	/* Every chunk but the last of each node and host is full of slabs;
	 * a quarter is left for the rest (stacks, malloc, the chunks'
	 * metadata, what the experiment allocates after the cgroups are
	 * fitted to the budget). */
	fits = (unmapped - (chunks + 1) * LAB_AS_CHUNK) / 4 * 3;
	if (opt->mem_budget <= fits)
		return 0;
	if (opt->mem_budget_given) {
		snprintf(err, errlen, "memory budget %llu MiB exceeds what the address-space limit "
			 "(RLIMIT_AS %llu MiB) leaves for %zu host(s) on %d node(s) (%llu MiB)",
			 opt->mem_budget >> 20, limit >> 20, designs, s->nodes, fits >> 20);
		return -EINVAL;
	}
	opt->mem_budget = fits;
	snprintf(opt->budget_note, sizeof(opt->budget_note),
		 "what the address-space limit (%llu MiB) leaves for %zu host(s) on %d node(s)",
		 limit >> 20, designs, s->nodes);
	return 0;
}
