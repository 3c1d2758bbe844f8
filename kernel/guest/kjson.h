/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's JSON writer: the rows of every experiment are collected while
 * the experiments run and written once at the end, in the schema of
 * shrinklab's --json output ("shrinklab/1": experiments, each with its scale
 * and rows of design, metric, value, unit, samples, min, max, scale). The
 * kernel's facts (release, accelerator) go in a top-level "guest" object.
 */
#ifndef KLAB_KJSON_H
#define KLAB_KJSON_H

#include <stdio.h>

struct kscale {
	unsigned long mounts, cgroups;
	int nodes;
	unsigned int cpus;
	char note[512];
};

struct krow {
	const char *exp;
	char metric[96];
	const char *unit; /* "B", "ns" or "count" */
	double value, min, max;
	unsigned long samples;
	struct kscale scale;
};

struct kguest {
	const char *design; /* "kernel:mainline", ... */
	const char *release, *accel;
	unsigned int cpus;
	int nodes;
	unsigned long mem_kb;
};

/* Record one row (a copy); an experiment's scale is that of its last row. */
void kjson_row(const struct krow *r);
/* Write every row recorded so far as one document. */
void kjson_write(FILE *f, const struct kguest *g);

#endif
