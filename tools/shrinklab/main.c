/* SPDX-License-Identifier: MIT */
/*
 * shrinklab: dispatch to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include <shrinker/rcu.h>

#include "shrinklab.h"

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct subcommand subcommands[] = {
	{ "slabinfo", "the cache, order, objects per slab and waste SLUB picks per size",
	  shrinklab_slabinfo },
	{ "reproduce", "every seed experiment, every design, side by side with the seeds",
	  shrinklab_reproduce },
	{ "run", "one experiment (or a custom scale) with one design", shrinklab_run },
	{ "sweep", "CSV (and PNG plots) of how the figures grow with scale", shrinklab_sweep },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: shrinklab <subcommand> [options]\n\nsubcommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'shrinklab <subcommand> --help' describes each one.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++) {
		if (!strcmp(argv[1], subcommands[i].name)) {
			int ret;

			shr_thread_register();
			ret = subcommands[i].run(argc - 1, argv + 1);
			shr_thread_unregister();
			return ret;
		}
	}
	fprintf(stderr, "shrinklab: unknown subcommand '%s'\n\n", argv[1]);
	usage(stderr);
	return SHRINKLAB_EXIT_USAGE;
}
