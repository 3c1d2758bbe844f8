/* SPDX-License-Identifier: MIT */
/*
 * Units (units.h): figures printed with the unit that fits them (B, KiB,
 * MiB, GiB; ns, us, ms, s; counts), numbers read from the command line
 * whole, decimal and in range, or refused (never clamped), list values
 * split by one rule for every list option, and a metric's name matched
 * against a pattern with one number left open (judge lab's ratio rows,
 * shrinklab kernel --like).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

void lab_fmt_value(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v); /* a delta may be negative: its size picks the unit */

	if (!strcmp(unit, "B")) {
		if (a >= 1073741824.0)
			snprintf(buf, len, "%.2f GiB", v / 1073741824.0);
		else if (a >= 1048576)
			snprintf(buf, len, "%.2f MiB", v / 1048576);
		else if (a >= 1024)
			snprintf(buf, len, "%.1f KiB", v / 1024);
		else
			snprintf(buf, len, "%.0f B", v);
	} else if (!strcmp(unit, "ns")) {
		if (a >= 1e9)
			snprintf(buf, len, "%.3f s", v / 1e9);
		else if (a >= 1e6)
			snprintf(buf, len, "%.2f ms", v / 1e6);
		else if (a >= 1e3)
			snprintf(buf, len, "%.2f us", v / 1e3);
		else
			snprintf(buf, len, "%.0f ns", v);
	} else {
		snprintf(buf, len, "%.0f", v);
	}
}

int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = (unsigned long)v;
	return 0;
}

int lab_parse_bytes(const char *s, unsigned long long *out)
{
	unsigned long long mult = 1;
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end == 'K' || *end == 'k')
		mult = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mult = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mult = 1ull << 30;
	else if (*end)
		return -EINVAL;
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (!v || v > (~0ull) / mult)
		return -EINVAL;
	*out = v * mult;
	return 0;
}

int lab_list_split(const char *s, char sep, bool repeats, char *buf, size_t buflen,
		   char **items, size_t max, const char **why)
{
	size_t n = 0;
	char *p;

	if (!s || !s[0]) {
		*why = "an empty list";
		return -EINVAL;
	}
	if (strlen(s) >= buflen) {
		*why = "too long";
		return -EINVAL;
	}
	memcpy(buf, s, strlen(s) + 1);
	for (p = buf;; p++) {
		char *end = strchr(p, sep);

		if (end)
			*end = '\0';
		if (!p[0]) {
			*why = "an empty item (a leading, trailing or doubled separator)";
			return -EINVAL;
		}
		if (n == max) {
			*why = "too many items";
			return -EINVAL;
		}
		for (size_t i = 0; !repeats && i < n; i++) {
			if (!strcmp(items[i], p)) {
				*why = "an item given twice";
				return -EINVAL;
			}
		}
		items[n++] = p;
		if (!end)
			return (int)n;
		p = end;
	}
}

bool lab_metric_matches(const char *metric, const char *pattern)
{
	const char *star = strchr(pattern, '*');
	size_t len = strlen(metric), pre, post;

	if (!star)
		return !strcmp(metric, pattern);
	pre = (size_t)(star - pattern);
	post = strlen(star + 1);
	if (len <= pre + post || strncmp(metric, pattern, pre) ||
	    strcmp(metric + len - post, star + 1))
		return false;
	for (size_t i = pre; i < len - post; i++)
		if (metric[i] < '0' || metric[i] > '9')
			return false;
	return true;
}
