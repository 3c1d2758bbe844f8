/* SPDX-License-Identifier: MIT */
/*
 * Clock, statistics and progress (stats.h): the monotonic clock every timed
 * figure is read from, the median and range of samples, and the one-line
 * progress shown on a terminal (never in a log or a pipe).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

uint64_t lab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lab_stats_of(const double *v, size_t n, struct lab_stats *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
}

static bool progress_on;
static bool progress_dirty;

void lab_progress_enable(bool on)
{
	progress_on = on && isatty(STDERR_FILENO);
}

void lab_progress(const char *fmt, ...)
{
	va_list ap;

	if (!progress_on)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_dirty = true;
}

void lab_progress_done(void)
{
	if (progress_on && progress_dirty)
		fputs("\r\033[K", stderr);
	progress_dirty = false;
}
