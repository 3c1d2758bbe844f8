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

#include "commands.h"
#include "conventions.h"
#include "units.h"

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
		"  --version  the tool's version and git revision\n"
		"  --help     show this help\n",
		MAX_SIZE, MAX_CPUS);
	shrinklab_print_exit_codes(out);
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
		shrinklab_error("slabinfo", "no geometry for size %zu", size);
		return 1;
	}
	snprintf(name, sizeof(name), "dedicated-%zu", size);
	print_row(req, name, &g);
	return 0;
}

enum { OPT_CPUS = SHRINKLAB_OPT_FIRST_OWN };

/* Parse argv into @params and @sizes; returns 0, 1 (help or version
 * printed) or -1 (bad usage, printed). */
static int parse_args(int argc, char **argv, struct shr_slab_params *params, size_t *sizes,
		      int *nr_sizes)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
		{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ NULL, 0, NULL, 0 },
	};
	struct shrinklab_getopt g;
	unsigned long v;
	int c;

	shrinklab_getopt_init(&g, "slabinfo", ":h", longopts, NULL, usage);
	while ((c = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		if (c != OPT_CPUS)
			return -1;
		if (lab_parse_ulong(optarg, 1, MAX_CPUS, &v))
			return shrinklab_bad_value("slabinfo", "--cpus", optarg,
						   "expected a CPU count 1..65536");
		params->geometry_cpus = (unsigned int)v;
	}
	if (c == SHRINKLAB_GETOPT_EXIT)
		return 1;
	if (c != SHRINKLAB_GETOPT_DONE)
		return -1;
	for (int i = optind; i < argc; i++) {
		if (lab_parse_ulong(argv[i], 1, MAX_SIZE, &v)) {
			char shown[SHRINKLAB_SHOWN_LEN];

			shrinklab_error("slabinfo", "size '%s': expected a byte count 1..%lu",
					shrinklab_shown(argv[i], shown, sizeof(shown)),
					(unsigned long)MAX_SIZE);
			return -1;
		}
		sizes[(*nr_sizes)++] = v;
	}
	if (*nr_sizes == 0) {
		shrinklab_error("slabinfo", "no SIZE given (see 'shrinklab slabinfo --help')");
		return -1;
	}
	return 0;
}

int shrinklab_slabinfo(int argc, char **argv)
{
	struct shr_slab_params params = { .nr_nodes = 1, .geometry_cpus = 0 };
	struct shr_slab_allocator *sa;
	size_t *sizes = calloc((size_t)argc + 1, sizeof(*sizes));
	int nr_sizes = 0, ret;

	if (!sizes) {
		shrinklab_error("slabinfo", "out of memory");
		return 1;
	}
	ret = parse_args(argc, argv, &params, sizes, &nr_sizes);
	if (ret) {
		free(sizes);
		return ret > 0 ? SHRINKLAB_EXIT_OK : SHRINKLAB_EXIT_USAGE;
	}
	if (shr_slab_allocator_create(&params, &sa)) {
		shrinklab_error("slabinfo", "cannot create the allocator");
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
