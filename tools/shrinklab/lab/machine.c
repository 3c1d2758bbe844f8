/* SPDX-License-Identifier: MIT */
/*
 * The machine (machine.h): MemTotal and MemAvailable from /proc/meminfo,
 * this process's peak resident set, and the default memory budget.
 *
 * The default memory budget is what the machine can give: MemAvailable
 * minus a margin (an eighth of it, at least 1 GiB) for the rest of the
 * system. It only decides how many cgroups a design that does not fit gets;
 * the scales' own needs are in docs/guides/LAB.md.
 *
 * An address-space limit (RLIMIT_AS, prlimit --as, ulimit -v) is read
 * here too: what it leaves unmapped. The budget that fits in it depends on
 * the run (how many hosts, on how many nodes): lab_budget_fit_as() in
 * scale.c.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"

#define LAB_BUDGET_MIN_MARGIN (1ull << 30)

/* The "KEY: N kB" line of @file (/proc/meminfo, /proc/self/status) in
 * bytes, 0 when unknown. */
static unsigned long long kb_field(const char *file, const char *key)
{
	FILE *f = fopen(file, "r");
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

static unsigned long long meminfo(const char *key)
{
	return kb_field("/proc/meminfo", key);
}

unsigned long long lab_mem_available(void)
{
	return meminfo("MemAvailable");
}

unsigned long long lab_mem_total(void)
{
	return meminfo("MemTotal");
}

unsigned long long lab_as_limit(unsigned long long *unmapped)
{
	struct rlimit rl;
	unsigned long long mapped;

	*unmapped = 0;
	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	mapped = kb_field("/proc/self/status", "VmSize");
	*unmapped = mapped < rl.rlim_cur ? rl.rlim_cur - mapped : 0;
	return rl.rlim_cur;
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

unsigned long long lab_peak_rss(void)
{
	return kb_field("/proc/self/status", "VmHWM");
}
