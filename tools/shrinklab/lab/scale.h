/* SPDX-License-Identifier: MIT */
/*
 * Scales: the geometry keys a figure depends on, the run options (how big
 * to run), each experiment's scale under them, and whether the machine and
 * the memory budget can hold it.
 */
#ifndef SHRINKLAB_SCALE_H
#define SHRINKLAB_SCALE_H

#include <stddef.h>

#include "types.h"

/* Cgroups made first on every bench; their measured cost decides how many
 * more each bench can afford (lockstep.h, lab_lockstep_populate()). */
#define LAB_PILOT_CGROUPS 20

/* "mounts", "units", "cgroups", "nodes", "cpus". */
const char *lab_geo_name(enum lab_geo_key k);
/* The value of key @k in @s (units < 0, unknown, reads 0). */
unsigned long lab_scale_geo(const struct lab_scale *s, enum lab_geo_key k);

/* The defaults: scale "default", 5 samples, no custom geometry. */
void lab_options_init(struct lab_options *opt);
/* Does @opt ask for a custom geometry (run's --mounts, --cgroups, --nodes,
 * --cpus, --nokmem)? */
bool lab_options_custom(const struct lab_options *opt);
/* "seed", "quick" (x0.01), "default" or a multiplier in [0.01, 3]: 0, or
 * -EINVAL with @opt unchanged. */
int lab_parse_scale(const char *s, struct lab_options *opt);

/* Scale of @exp under @opt (factor and custom overrides applied). */
void lab_experiment_scale(const struct lab_experiment *exp, const struct lab_options *opt,
			  struct lab_scale *out);
/* "the seed's scale", "x0.4 of the seed's mounts and cgroups", ... */
void lab_scale_describe(const struct lab_experiment *exp, const struct lab_scale *s,
			char *buf, size_t len);
/* Rough lower bound of the bytes @scale needs on @designs hosts. */
unsigned long long lab_scale_floor_bytes(const struct lab_scale *scale, size_t designs);
/* Reject scales and budgets the machine cannot hold: 0, or a message in
 * @err and -EINVAL. */
int lab_check_feasible(const struct lab_options *opt, const struct lab_scale *s,
		       size_t designs, char *err, size_t errlen);
/*
 * Under an address-space limit (RLIMIT_AS), the memory budget must fit what
 * it leaves, less the address space @designs hosts on @s's nodes map beyond
 * their slabs (scale.c: LAB_AS_CHUNK): a default budget is lowered to that
 * (its note says so), a given one above it is refused, and a limit that
 * cannot hold the scale's floor is refused. No limit: nothing to do.
 * Return: 0, or -EINVAL with @err saying why.
 */
int lab_budget_fit_as(struct lab_options *opt, const struct lab_scale *s, size_t designs,
		      char *err, size_t errlen);

#endif /* SHRINKLAB_SCALE_H */
