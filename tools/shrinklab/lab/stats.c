/* SPDX-License-Identifier: MIT */
/*
 * Clock, statistics and progress (stats.h): the monotonic clock every timed
 * figure is read from, the resolution of the clocks as measured here, the median and range of samples, and the one-line
 * progress shown on a terminal (never in a log or a pipe).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

uint64_t lab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The smallest positive step between back-to-back readings of @id. */
static double probe_resolution(clockid_t id)
{
	double best = INFINITY;
	struct timespec res;

	for (int i = 0; i < LAB_CLOCK_PROBES; i++) {
		double a = read_ns(id), b = read_ns(id);

		while (b <= a)
			b = read_ns(id);
		if (b - a < best)
			best = b - a;
	}
	/* Never finer than what the clock says it resolves. */
	if (!clock_getres(id, &res)) {
		double stated = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;

		best = best > stated ? best : stated;
	}
	return best;
}

double lab_clock_resolution_ns(enum lab_clock clock)
{
	static double measured[LAB_NR_CLOCKS];

	if (clock >= LAB_NR_CLOCKS)
		return 0;
	if (measured[clock] == 0)
		measured[clock] = probe_resolution(clock == LAB_CLOCK_WALL ? CLOCK_MONOTONIC
									     : CLOCK_PROCESS_CPUTIME_ID);
	return measured[clock];
}

const char *lab_clock_name(enum lab_clock clock)
{
	return clock == LAB_CLOCK_WALL ? "CLOCK_MONOTONIC" : "process CPU time";
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

double lab_median(const double *v, size_t n)
{
	struct lab_stats st;

	lab_stats_of(v, n, &st);
	return st.median;
}

/*
 * The progress line: what the run is at (the experiment, k of n, set by
 * lab_progress_experiment()), the wall time since lab_progress_enable(),
 * then the caller's words; cut to the terminal's width so that the
 * carriage return redraws one line. Only the main thread draws it.
 */
static bool progress_on;
static bool progress_dirty;
static uint64_t progress_t0;
static char progress_where[96];

void lab_progress_enable(bool on)
{
	progress_on = on && isatty(STDERR_FILENO);
	progress_t0 = lab_now_ns();
	progress_where[0] = '\0';
}

void lab_progress_experiment(const char *id, size_t k, size_t n)
{
	snprintf(progress_where, sizeof(progress_where), "%s %zu/%zu, ", id, k, n);
}

/* The terminal's width on stderr, 80 when it does not say. */
static size_t progress_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) || ws.ws_col < 20)
		return 80;
	return ws.ws_col;
}

void lab_progress(const char *fmt, ...)
{
	unsigned long long s;
	char line[512];
	size_t len, width;
	va_list ap;
	int n;

	if (!progress_on)
		return;
	s = (lab_now_ns() - progress_t0) / 1000000000ull;
	if (s >= 60)
		n = snprintf(line, sizeof(line), "%llu min %02llu s so far, %s", s / 60, s % 60,
			     progress_where);
	else
		n = snprintf(line, sizeof(line), "%llu s so far, %s", s, progress_where);
	len = n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	va_start(ap, fmt);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	width = progress_width();
	if (strlen(line) >= width)
		line[width - 1] = '\0';
	fputs("\r\033[K", stderr);
	fputs(line, stderr);
	fflush(stderr);
	progress_dirty = true;
}

void lab_progress_done(void)
{
	if (progress_on && progress_dirty)
		fputs("\r\033[K", stderr);
	progress_dirty = false;
}
