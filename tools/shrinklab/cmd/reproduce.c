/* SPDX-License-Identifier: MIT */
/*
 * shrinklab reproduce: every seed experiment (or those --experiment names)
 * with every design of its table, side by side, through the driver
 * (driver.h), with plots by default.
 */
#include <stdio.h>

#include "commands.h"
#include "driver.h"

#define DEFAULT_PLOT_DIR "shrinklab-plots"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab reproduce [--experiment ID]... [common options]\n"
		"\n"
		"Run every seed experiment with every design side by side, compare with the\n"
		"seeds' published figures where we measured at the seeds' geometry, and\n"
		"judge each seed claim on the measured spread. A design whose host cannot\n"
		"be built (out of memory) is 'unavailable'.\n"
		"  --experiment ID    only this experiment (repeatable)\n"
		"  --plots DIR        where the plots go (default %s): DIR/ID.gp, a\n"
		"                     gnuplot script with its data, and DIR/ID.png\n"
		"  --no-plots         no plots (and no need for gnuplot)\n",
		DEFAULT_PLOT_DIR);
	lab_driver_usage_common(out);
}

static int own_value(struct lab_request *r, int opt, const char *v)
{
	(void)r;
	(void)opt;
	(void)v;
	return -1; /* reproduce has no options of its own */
}

static int check(struct lab_request *r)
{
	if (!r->no_plots && !r->plots)
		r->plots = DEFAULT_PLOT_DIR;
	return 0;
}

int shrinklab_reproduce(int argc, char **argv)
{
	static const int repeatable[] = { LAB_DRIVER_OPT_EXPERIMENT, 0 };
	static const struct lab_driver_spec spec = {
		.sub = "reproduce",
		.repeatable = repeatable,
		.usage = usage,
		.own_value = own_value,
		.check = check,
	};

	return lab_driver_main(argc, argv, &spec);
}
