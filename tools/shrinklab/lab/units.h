/* SPDX-License-Identifier: MIT */
/*
 * Units: how figures are printed and how counts, byte sizes and lists are
 * read.
 */
#ifndef SHRINKLAB_UNITS_H
#define SHRINKLAB_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/* @v in @unit ("B", "ns", "count") as people read it: "1.30 MiB",
 * "2.17 us", "31". */
void lab_fmt_value(char *buf, size_t len, double v, const char *unit);
/* A decimal whole number in [@min, @max]: 0, or -EINVAL (nothing stored). */
int lab_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out);
/* Bytes with an optional K, M or G (KiB, MiB, GiB; "B"/"iB" after it),
 * more than 0: 0, or -EINVAL. */
int lab_parse_bytes(const char *s, unsigned long long *out);

/*
 * A list option's value ("ext4+proc", "1,2,4"), with the one rule every
 * list option follows: split at @sep into at most @max items, each a
 * pointer into @buf (a copy of @s, @buflen bytes), none empty (no
 * leading, trailing or doubled @sep) and, unless @repeats, none twice.
 * Return: the number of items, or -EINVAL with @why saying what is wrong.
 */
int lab_list_split(const char *s, char sep, bool repeats, char *buf, size_t buflen,
		   char **items, size_t max, const char **why);

/* Is @metric named by @pattern (at most one '*', standing for a number:
 * "register_*_mounts_ns_cgroups_alive")? Context: any. */
bool lab_metric_matches(const char *metric, const char *pattern);

#endif /* SHRINKLAB_UNITS_H */
