// SPDX-License-Identifier: GPL-2.0
/*
 * knomemcg: the guest check of a kernel without memory cgroups (issue 31):
 * CONFIG_MEMCG=n, or the controller disabled at boot (cgroup_disable=memory,
 * which leaves its /proc/cgroups line with enabled 0). Without memory
 * cgroups every shrinker is global: shrink_slab() runs with memcg NULL, the
 * memcg-aware shrinkers fall back to their node-wide lists. It checks that
 * the kernel has no enabled memory controller, that every registered
 * shrinker's debugfs count reads, that the negative dentries it makes under
 * /sys (kernfs keeps them) are reclaimed by drop_caches (the dcache
 * shrinker's global path) and that a second drop_caches still works.
 * Prints what it saw; exits 0 when all hold, 1 otherwise (kutil's
 * drop_caches() exits 1 itself when the write fails).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kutil.h"

#define NEGATIVE 20000

/* The number of shrinkers whose debugfs count reads; -1 without the dir. */
static int shrinker_counts(long *total)
{
	DIR *d = opendir("/sys/kernel/debug/shrinker");
	struct dirent *e;
	int n = 0;

	*total = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[512], buf[256];
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/shrinker/%s/count", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(buf, sizeof(buf), f)) {
			long id, c;

			/* memcg id then one count per node; with MEMCG=n id 0 */
			if (sscanf(buf, "%ld %ld", &id, &c) == 2) {
				*total += c;
				if (c >= NEGATIVE / 2)
					printf("  %s: %ld\n", e->d_name, c);
			}
		}
		fclose(f);
		n++;
	}
	closedir(d);
	return n;
}

int main(void)
{
	char path[64];
	struct stat st;
	long before, made, after, total;
	int bad = 0, i, n;
	FILE *f;

	f = fopen("/proc/cgroups", "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f)) {
			int hierarchy, cgroups, enabled;

			if (strncmp(line, "memory\t", 7))
				continue;
			if (sscanf(line + 7, "%d %d %d", &hierarchy, &cgroups, &enabled) == 3 &&
			    !enabled) {
				printf("memory controller disabled at boot: %s", line);
				continue;
			}
			printf("memory controller present: %s", line);
			bad = 1;
		}
		fclose(f);
	}
	n = shrinker_counts(&total);
	printf("shrinkers with a readable count: %d (objects %ld)\n", n, total);
	if (n <= 0)
		bad = 1;
	/* the shrinkers' own counts: without memcg a merged slab cache may
	 * hide "dentry" from /proc/slabinfo (no SLAB_ACCOUNT to keep it apart) */
	before = total;
	for (i = 0; i < NEGATIVE; i++) {
		snprintf(path, sizeof(path), "/sys/knomemcg-neg-%d", i);
		stat(path, &st);
	}
	shrinker_counts(&made);
	drop_caches(2);
	sleep(1);	/* dentries are freed after an RCU grace period */
	shrinker_counts(&after);
	printf("shrinkers' objects: %ld before, %ld after %d negative lookups, %ld after drop_caches"
	       " (dentry slab %ld)\n", before, made, NEGATIVE, after, slab_objs("dentry"));
	if (made - before < NEGATIVE / 2 || after > made - NEGATIVE / 2)
		bad = 1;
	drop_caches(2);
	n = shrinker_counts(&total);
	printf("after two drop_caches: %d shrinkers, objects %ld\n", n, total);
	printf("knomemcg: %s\n", bad ? "FAIL" : "ok");
	return bad;
}
