/* SPDX-License-Identifier: MIT */
/*
 * The driver reproduce and run share (driver.c): their common options, the
 * checks made before anything is allocated, the run of the experiments of
 * the table, and the outputs. Each of the two adds its own options and
 * help through a struct lab_driver_spec.
 */
#ifndef SHRINKLAB_DRIVER_H
#define SHRINKLAB_DRIVER_H

#include <stdbool.h>
#include <stdio.h>

#include "conventions.h"
#include "scale.h"
#include "types.h"

/* What reproduce or run was asked. */
struct lab_request {
	const char *sub;          /* "reproduce" or "run" */
	struct lab_options opt;
	const char *json;         /* --json FILE, or NULL */
	const char *csv;          /* --csv FILE, or NULL */
	const char *markdown;     /* --markdown FILE, or NULL */
	bool rows;                /* --rows: every row too, a line each */
	const char *data;         /* --data FILE, or NULL: the default */
	const char *plots;        /* --plots DIR, or NULL: none */
	bool no_plots;
	bool selected[16];        /* by index in lab_experiments[] */
	bool any_selected;
	/* run: one design configuration on every experiment selected (instead
	 * of each experiment's designs), @design. */
	bool one_design;
	bool have_design;
	struct lab_design design;
	/* compare: these design configurations, the first the base, on every
	 * experiment selected (instead of each experiment's designs). */
	struct lab_design designs[LAB_MAX_DESIGNS];
	size_t nr_designs;
};

/* The common options' values; a subcommand numbers its own from
 * LAB_DRIVER_OPT_END. */
enum {
	LAB_DRIVER_OPT_SCALE = SHRINKLAB_OPT_FIRST_OWN,
	LAB_DRIVER_OPT_SAMPLES,
	LAB_DRIVER_OPT_MEM_BUDGET,
	LAB_DRIVER_OPT_JSON,
	LAB_DRIVER_OPT_CSV,
	LAB_DRIVER_OPT_MARKDOWN,
	LAB_DRIVER_OPT_ROWS,
	LAB_DRIVER_OPT_DATA,
	LAB_DRIVER_OPT_QUIET,
	LAB_DRIVER_OPT_EXPERIMENT,
	LAB_DRIVER_OPT_PLOTS,
	LAB_DRIVER_OPT_NO_PLOTS,
	/* The geometry options of run and compare (lab_driver_spec.geometry). */
	LAB_DRIVER_OPT_NOKMEM,
	LAB_DRIVER_OPT_MOUNTS,
	LAB_DRIVER_OPT_CGROUPS,
	LAB_DRIVER_OPT_NODES,
	LAB_DRIVER_OPT_CPUS,
	LAB_DRIVER_OPT_END,
};

/* How a subcommand extends the driver. */
struct lab_driver_spec {
	const char *sub;
	const struct option *own; /* its own options (not 0-terminated) */
	size_t nr_own;
	const int *repeatable;    /* 0-terminated, or NULL */
	bool geometry;            /* takes --mounts, --cgroups, --nodes, --cpus, --nokmem */
	void (*usage)(FILE *out);
	/* One of its own options (@v NULL for a flag): 0, or -1 printed. */
	int (*own_value)(struct lab_request *r, int opt, const char *v);
	/* After every option was read: 0, or -1 printed. */
	int (*check)(struct lab_request *r);
	/* For each experiment selected, at the scale it will run at, before
	 * any host exists: 0, or -EINVAL printed. NULL: nothing to check. */
	int (*check_scale)(const struct lab_request *r, const struct lab_scale *s);
};

/* Parse, check, run and write out: the subcommand's exit code. */
int lab_driver_main(int argc, char **argv, const struct lab_driver_spec *spec);
/* The help of the common options, the experiments' ids and the exit codes:
 * the end of reproduce's and run's --help. */
void lab_driver_usage_common(FILE *out);
/* The help of the geometry options. */
void lab_driver_usage_geometry(FILE *out);

#endif /* SHRINKLAB_DRIVER_H */
