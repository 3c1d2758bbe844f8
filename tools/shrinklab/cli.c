/* SPDX-License-Identifier: MIT */
/*
 * shrinklab option parsing shared by reproduce, run and sweep: numbers are
 * decimal, whole and in range or they are rejected (never clamped); scales
 * and memory budgets are checked against the machine before anything is
 * allocated.
 *
 * The default memory budget is what the machine can give: MemAvailable
 * minus a margin (an eighth of it, at least 1 GiB) for the rest of the
 * system. It only decides how many cgroups a design that does not fit gets;
 * the scales' own needs are in docs/LAB.md.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/common.h>

#include "lab.h"

#define LAB_QUICK_FACTOR 0.01
#define LAB_MAX_FACTOR 3.0
/* memcg ids run out at 65535; leave room for the churn samples. */
#define LAB_MAX_CGROUPS 60000UL
#define LAB_BUDGET_MIN_MARGIN (1ull << 30)

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
		if (errno || *end || !(f > 0) || f > LAB_MAX_FACTOR)
			return -EINVAL;
		opt->scale_kind = LAB_SCALE_FACTOR;
		opt->factor = f;
	}
	snprintf(opt->scale_name, sizeof(opt->scale_name), "%s", s);
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

static unsigned long long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t klen = strlen(key);
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			kb = strtoull(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb * 1024;
}

unsigned long long lab_mem_available(void)
{
	return meminfo("MemAvailable");
}

unsigned long long lab_mem_total(void)
{
	return meminfo("MemTotal");
}

void lab_budget_default(struct lab_options *opt)
{
	unsigned long long avail = lab_mem_available(), margin;

	if (opt->mem_budget_given)
		return;
	if (!avail) {
		opt->mem_budget = 12ull << 30;
		snprintf(opt->budget_note, sizeof(opt->budget_note),
			 "12 GiB: MemAvailable unknown");
		return;
	}
	margin = avail / 8 > LAB_BUDGET_MIN_MARGIN ? avail / 8 : LAB_BUDGET_MIN_MARGIN;
	opt->mem_budget = avail > margin ? avail - margin : avail / 2;
	snprintf(opt->budget_note, sizeof(opt->budget_note),
		 "MemAvailable %.1f GiB minus %.1f GiB for the rest of the system",
		 (double)avail / (1ull << 30), (double)(avail > margin ? margin : avail / 2) /
		 (1ull << 30));
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

unsigned long long lab_peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

int lab_parse_design(const char *s, struct lab_design *d)
{
	return shr_design_parse(s, &d->design);
}
