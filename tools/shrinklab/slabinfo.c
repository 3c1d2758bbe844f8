/* SPDX-License-Identifier: MIT */
/*
 * shrinklab slabinfo: for each requested size, the kmalloc cache that would
 * serve it (or large kmalloc) and the layout a dedicated cache of exactly
 * that size would get, in /proc/slabinfo's column terms.
 *
 * Everything printed comes from a real allocator instance created with the
 * requested geometry CPU count, so the tool shows what the library does, not
 * a second copy of the rule. Bad input is reported and never clamped.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shrinker/slab.h>

#include "shrinklab.h"

#define MAX_SIZE (SHR_PAGE_SIZE << SHR_MAX_PAGE_ORDER)
#define MAX_CPUS 65536UL

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab slabinfo [--cpus N] SIZE...\n"
		"\n"
		"For each SIZE (bytes, 1..%lu) print the kmalloc cache that serves it\n"
		"(or large kmalloc and its page order) and the geometry SLUB gives a\n"
		"dedicated cache of exactly that size.\n"
		"\n"
		"  --cpus N   compute geometry for N CPUs (1..%lu; default: online CPUs)\n"
		"  --help     show this help\n",
		MAX_SIZE, MAX_CPUS);
}

/* Parse a decimal number in [1, max]; 0 on success, -EINVAL otherwise. */
static int parse_count(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

static void print_row(const char *req, const char *name, const struct shr_slab_geometry *g)
{
	printf("%-8s %-18s %8u %10u %12u %5u %6u\n", req, name, g->object_size,
	       g->objects_per_slab, 1u << g->order, g->order, g->waste_bytes);
}

static unsigned int order_for(size_t size)
{
	unsigned int order = 0;

	while ((SHR_PAGE_SIZE << order) < size)
		order++;
	return order;
}

static int show_size(struct shr_slab_allocator *sa, size_t size)
{
	struct shr_kmem_cache *c = shr_kmalloc_cache_for(sa, size);
	struct shr_slab_geometry g;
	char req[32], name[64];

	snprintf(req, sizeof(req), "%zu", size);
	if (c) {
		shr_kmem_cache_geometry(c, &g);
		print_row(req, shr_kmem_cache_name(c), &g);
	} else {
		unsigned int order = order_for(size);

		g.object_size = (unsigned int)(SHR_PAGE_SIZE << order);
		g.objects_per_slab = 1;
		g.order = order;
		g.waste_bytes = (unsigned int)((SHR_PAGE_SIZE << order) - size);
		snprintf(name, sizeof(name), "large (order %u)", order);
		print_row(req, name, &g);
	}
	if (shr_slab_calculate_geometry(size, 0, shr_slab_geometry_cpus(sa), &g)) {
		fprintf(stderr, "shrinklab slabinfo: no geometry for size %zu\n", size);
		return 1;
	}
	snprintf(name, sizeof(name), "dedicated-%zu", size);
	print_row(req, name, &g);
	return 0;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "shrinklab slabinfo: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'shrinklab slabinfo --help'.\n");
	return SHRINKLAB_EXIT_USAGE;
}

/* Parse argv into @params and @sizes; returns 0, or the exit code to return. */
static int parse_args(int argc, char **argv, struct shr_slab_params *params, size_t *sizes,
		      int *nr_sizes)
{
	bool only_sizes = false;
	unsigned long v;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!only_sizes && (!strcmp(a, "--help") || !strcmp(a, "-h"))) {
			usage(stdout);
			return -1;
		}
		if (!only_sizes && (!strcmp(a, "--cpus") || !strncmp(a, "--cpus=", 7))) {
			const char *val = a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);

			if (!val)
				return bad_usage("--cpus needs a value%s", "");
			if (parse_count(val, MAX_CPUS, &v))
				return bad_usage("bad CPU count '%s' (want 1..65536)", val);
			params->geometry_cpus = (unsigned int)v;
			continue;
		}
		if (!only_sizes && !strcmp(a, "--")) {
			only_sizes = true;
			continue;
		}
		if (!only_sizes && a[0] == '-' && a[1] != '\0')
			return bad_usage("unknown option '%s'", a);
		if (parse_count(a, MAX_SIZE, &v))
			return bad_usage("bad size '%s' (want a byte count 1..4194304)", a);
		sizes[(*nr_sizes)++] = v;
	}
	if (*nr_sizes == 0)
		return bad_usage("missing SIZE%s", "");
	return 0;
}

int shrinklab_slabinfo(int argc, char **argv)
{
	struct shr_slab_params params = { .nr_nodes = 1, .geometry_cpus = 0 };
	struct shr_slab_allocator *sa;
	size_t *sizes = calloc((size_t)argc + 1, sizeof(*sizes));
	int nr_sizes = 0, ret;

	if (!sizes) {
		fprintf(stderr, "shrinklab slabinfo: out of memory\n");
		return 1;
	}
	ret = parse_args(argc, argv, &params, sizes, &nr_sizes);
	if (ret) {
		free(sizes);
		return ret < 0 ? 0 : ret;
	}
	if (shr_slab_allocator_create(&params, &sa)) {
		fprintf(stderr, "shrinklab slabinfo: cannot create the allocator\n");
		free(sizes);
		return 1;
	}
	printf("# geometry for %u CPUs\n", shr_slab_geometry_cpus(sa));
	printf("%-8s %-18s %8s %10s %12s %5s %6s\n", "# size", "name", "objsize", "objperslab",
	       "pagesperslab", "order", "waste");
	for (int i = 0; i < nr_sizes && !ret; i++)
		ret = show_size(sa, sizes[i]);
	shr_slab_allocator_destroy(sa);
	free(sizes);
	return ret;
}
