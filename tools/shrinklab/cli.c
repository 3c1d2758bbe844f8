/* SPDX-License-Identifier: MIT */
/*
 * shrinklab option parsing shared by reproduce, run and sweep: numbers are
 * decimal, whole and in range or they are rejected (never clamped); scales
 * and memory budgets are checked against the machine before anything is
 * allocated.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/common.h>

#include "lab.h"

/* Multiplier of the seed scale behind "default": chosen so that reproduce
 * over every experiment and design takes about three minutes on 2 cores. */
#define LAB_DEFAULT_FACTOR 0.4
#define LAB_QUICK_FACTOR 0.01
#define LAB_MAX_FACTOR 3.0
/* memcg ids run out at 65535; leave room for the churn samples. */
#define LAB_MAX_CGROUPS 60000UL

void lab_options_init(struct lab_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->factor = LAB_DEFAULT_FACTOR;
	opt->scale_name = "default";
	opt->mem_budget = 12ull << 30;
	opt->samples = 5;
	opt->kmem = -1;
}

int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

int lab_parse_scale(const char *s, struct lab_options *opt)
{
	char *end;
	double f;

	if (!strcmp(s, "seed")) {
		opt->factor = 1.0;
	} else if (!strcmp(s, "quick")) {
		opt->factor = LAB_QUICK_FACTOR;
	} else if (!strcmp(s, "default")) {
		opt->factor = LAB_DEFAULT_FACTOR;
	} else {
		if (!s[0] || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.'))
			return -EINVAL;
		errno = 0;
		f = strtod(s, &end);
		if (errno || *end || !(f > 0) || f > LAB_MAX_FACTOR)
			return -EINVAL;
		opt->factor = f;
	}
	opt->scale_name = s;
	return 0;
}

int lab_parse_bytes(const char *s, unsigned long long *out)
{
	unsigned long long mult = 1;
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	else if (*end)
		return -EINVAL;
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (!v || v > (~0ull) / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

unsigned long long lab_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int lab_check_feasible(const struct lab_options *opt, const struct lab_scale *s,
		       const char *prog)
{
	unsigned long long avail = lab_mem_available();

	if (s->nodes < 1 || s->nodes > SHR_MAX_NUMNODES) {
		fprintf(stderr, "%s: %d nodes: must be 1..%d\n", prog, s->nodes, SHR_MAX_NUMNODES);
		return -EINVAL;
	}
	if (s->cgroups > LAB_MAX_CGROUPS) {
		fprintf(stderr, "%s: %lu cgroups: at most %lu (memcg ids run out at 65535)\n", prog,
			s->cgroups, LAB_MAX_CGROUPS);
		return -EINVAL;
	}
	if (avail && opt->mem_budget > avail) {
		fprintf(stderr, "%s: memory budget %.1f GiB exceeds MemAvailable %.1f GiB\n", prog,
			(double)opt->mem_budget / (1ull << 30), (double)avail / (1ull << 30));
		return -EINVAL;
	}
	if (avail && lab_scale_floor_bytes(s) > avail) {
		fprintf(stderr, "%s: %lu mounts and %lu cgroups on %d nodes need more than "
				"MemAvailable (%.1f GiB)\n",
			prog, s->mounts, s->cgroups, s->nodes, (double)avail / (1ull << 30));
		return -EINVAL;
	}
	return 0;
}
