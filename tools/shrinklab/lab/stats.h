/* SPDX-License-Identifier: MIT */
/*
 * The clock, sample statistics and the progress line.
 */
#ifndef SHRINKLAB_STATS_H
#define SHRINKLAB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* CLOCK_MONOTONIC in ns. */
uint64_t lab_now_ns(void);

/*
 * The resolution of @clock as measured on this machine, in ns: the smallest
 * step two back-to-back readings show (the finer of the tick the clock
 * advances by and the cost of reading it), over LAB_CLOCK_PROBES pairs;
 * measured once, on first use. A sample that timed less than this cannot
 * be told from zero.
 */
#define LAB_CLOCK_PROBES 2000
double lab_clock_resolution_ns(enum lab_clock clock);
/* "CLOCK_MONOTONIC", "process CPU time". */
const char *lab_clock_name(enum lab_clock clock);

struct lab_stats {
	double median, min, max;
	unsigned long n;
};
/* Median (mean of the middle two for an even count), min, max of @v. */
void lab_stats_of(const double *v, size_t n, struct lab_stats *out);
/* Its median alone. */
double lab_median(const double *v, size_t n);

/*
 * Progress on stderr when it is a terminal (and @on): one line, redrawn,
 * "<wall time since lab_progress_enable()> so far, <experiment> k/n,
 * <the caller's words>", cut to the terminal's width; never on stdout, so
 * the outputs there are the same with it or without.
 */
void lab_progress_enable(bool on);
/* The experiment the run is at: @id, @k of @n (1-based); the next
 * lab_progress_enable() forgets it. */
void lab_progress_experiment(const char *id, size_t k, size_t n);
void lab_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clear the line. */
void lab_progress_done(void);

#endif /* SHRINKLAB_STATS_H */
