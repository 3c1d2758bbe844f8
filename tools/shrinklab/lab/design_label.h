/* SPDX-License-Identifier: MIT */
/*
 * Design labels: a design configuration as the lab names it, parsed back,
 * and as the library's host parameters.
 */
#ifndef SHRINKLAB_DESIGN_LABEL_H
#define SHRINKLAB_DESIGN_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include <shrinker/host.h>

#include "types.h"

/* "prealloc+units=cache", "flat+expand_batch=64", "xarray+lru_reparent=index",
 * "indexed+root_bits=off": the design and its options that differ from the
 * design's defaults (prealloc, mainline, takes units from kmalloc; the
 * others from the dedicated cache; indexed reparents through its index, the
 * others visit every list_lru; indexed keeps root bits for the mounts). */
void lab_design_label(const struct lab_design *d, char *buf, size_t len);
/*
 * The inverse of lab_design_label(): "design[+option]...", options
 * units=cache|kmalloc, expand_batch=N, nonslab_ids, lru_reparent=all|index,
 * root_bits=on|off (indexed only). 0, or -EINVAL with @why saying what is
 * wrong (the design's own checks come later, from shr_host_params_check()).
 */
int lab_design_parse_label(const char *s, struct lab_design *d, char *why, size_t len);
/* Room for lab_design_names(). */
#define LAB_DESIGN_NAMES_LEN 256
/*
 * The designs of the library's table, in table order: "xarray, prealloc,
 * ...<last_sep>indexed" (@last_sep ", " or " or "), for messages and usage.
 */
void lab_design_names(char *buf, size_t len, const char *last_sep);
/* Does @d's unit source differ from its design's default? */
bool lab_design_units_option(const struct lab_design *d);
/* The host parameters of @d at the nodes, geometry CPUs and kmem of @s,
 * the library's defaults otherwise (check them with
 * shr_host_params_check()). */
void lab_design_host_params(const struct lab_design *d, const struct lab_scale *s,
			    struct shr_host_params *p);

#endif /* SHRINKLAB_DESIGN_LABEL_H */
