/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's JSON writer: the rows of every experiment are collected while
 * the experiments run and written once at the end as one document of schema
 * "shrinklab/2" (data/shrinklab.schema.json, the schema of shrinklab's
 * --json), so that the kernel's figures and the model's (shrinklab kernel)
 * are read by one tool. The guest's facts (kernel, accelerator, shrinkers
 * at boot) go in "machine"; the host adds its own there ("host") when it
 * saves the document.
 */
#ifndef KLAB_KJSON_H
#define KLAB_KJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where a figure was measured: the state when its measurement began. */
struct kscale {
	unsigned long mounts, cgroups;
	unsigned long host_shrinkers; /* ids the ladder assumes taken at boot */
	long units;                   /* units per node the ids span; -1 unknown */
	int nodes;
	unsigned int cpus;
	bool nokmem;                  /* cgroup.memory=nokmem (geometry kmem false) */
	char note[512];
};

struct krow {
	const char *exp;
	char metric[96];
	const char *unit;   /* "B", "ns" or "count" */
	bool timed;         /* clock samples (else one reading, or a fit) */
	double value, min, max;
	const double *raw;  /* the samples in the order taken (copied) */
	size_t n;
	struct kscale scale;
};

struct kguest {
	const char *design;   /* "kernel:mainline", ... */
	const char *accel;
	const char *scale;    /* the geometry's name ("full", "short", "custom") */
	const char *describe; /* the geometry in words (every option) */
	const char *date;     /* UTC, ISO 8601; NULL: the guest's clock */
	int argc;
	char **argv;
	unsigned int cpus;
	int nodes;
	unsigned long mem_kb, mem_available_kb;
	long boot_shrinkers;  /* entries of debugfs/shrinker at start */
	unsigned int samples; /* drop_caches samples */
	uint64_t elapsed_ns;
};

/* Record one row (a copy, samples included); an experiment's geometry is
 * that of its last row. */
void kjson_row(const struct krow *r);
/* Add @ns to experiment @exp's elapsed time. */
void kjson_elapsed(const char *exp, uint64_t ns);
/* Write every row recorded so far as one document; 0 or -1 (write error). */
int kjson_write(FILE *f, const struct kguest *g);

#endif
