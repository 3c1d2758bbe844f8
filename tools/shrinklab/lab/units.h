/* SPDX-License-Identifier: MIT */
/*
 * Units: how figures are printed and how counts and byte sizes are read.
 */
#ifndef SHRINKLAB_UNITS_H
#define SHRINKLAB_UNITS_H

#include <stddef.h>

/* @v in @unit ("B", "ns", "count") as people read it: "1.30 MiB",
 * "2.17 us", "31". */
void lab_fmt_value(char *buf, size_t len, double v, const char *unit);
/* A decimal whole number in [@min, @max]: 0, or -EINVAL (nothing stored). */
int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* Bytes with an optional K, M or G (KiB, MiB, GiB; "B"/"iB" after it),
 * more than 0: 0, or -EINVAL. */
int lab_parse_bytes(const char *s, unsigned long long *out);

#endif /* SHRINKLAB_UNITS_H */
