/* SPDX-License-Identifier: MIT */
/*
 * The designs' table: one row per enum shr_design, the only place that says
 * what a design is called, what it accepts, what it defaults to, how
 * shrinker_nr_max grows under it, which race points it has and which ops
 * run it. A new design is its file (the ops), a row here, its enum value
 * and a line in src/meson.build.
 */
#include <stdint.h>
#include <string.h>

#include <shrinker/race.h>

#include "designs.h"
#include "shrinker_info.h"
#include "shrinker_info_unit.h"

extern const struct shr_info_ops shr_info_xarray_ops;
extern const struct shr_info_ops shr_info_nobitmap_ops;
extern const struct shr_info_ops shr_info_prealloc_ops;
extern const struct shr_info_ops shr_info_array_ondemand_ops;
extern const struct shr_info_ops shr_info_flat_ops;
extern const struct shr_info_ops shr_info_indexed_ops;

#define POINT(p) (UINT64_C(1) << SHR_RACE_##p)
/* The bit protocol's points: every design that keeps bits has them. */
#define BIT_POINTS (POINT(SET_BIT_A) | POINT(EMPTY_CLEAR_B) | POINT(WALK_STALE_RECHECK))

const struct shr_design_row shr_designs[SHR_NR_DESIGNS] = {
	[SHR_DESIGN_XARRAY] = {
		.info = { .name = "xarray", .units = true, .default_units = SHR_UNITS_CACHE,
			  .id_step = SHR_UNIT_BITS, .bits = true,
			  .default_lru_reparent = SHR_LRU_REPARENT_ALL_LRUS },
		.race_points = BIT_POINTS,
		.ops = &shr_info_xarray_ops,
	},
	/* Mainline takes its units from kmalloc-1k; the seeds' designs run on
	 * top of the dedicated-cache patch. */
	[SHR_DESIGN_PREALLOC] = {
		.info = { .name = "prealloc", .units = true, .default_units = SHR_UNITS_KMALLOC,
			  .expand_batch = SHR_UNIT_BITS, .id_step = SHR_UNIT_BITS,
			  .nonslab_ids = true, .bits = true,
			  .default_lru_reparent = SHR_LRU_REPARENT_ALL_LRUS },
		.race_points = BIT_POINTS | POINT(ARR_GROW_COPY),
		.ops = &shr_info_prealloc_ops,
	},
	[SHR_DESIGN_ARRAY_ONDEMAND] = {
		.info = { .name = "array-ondemand", .units = true,
			  .default_units = SHR_UNITS_CACHE, .id_step = SHR_UNIT_BITS,
			  .nonslab_ids = true, .bits = true,
			  .default_lru_reparent = SHR_LRU_REPARENT_ALL_LRUS },
		.race_points = BIT_POINTS | POINT(ARR_INSTALL) | POINT(ARR_GROW_COPY),
		.ops = &shr_info_array_ondemand_ops,
	},
	/* One expansion per new id, as in 6.6. No units: default_units only
	 * fills in the parameters (shr_host_get_params()). */
	[SHR_DESIGN_FLAT] = {
		.info = { .name = "flat", .default_units = SHR_UNITS_CACHE, .expand_batch = 1,
			  .id_step = 1, .nonslab_ids = true, .bits = true,
			  .default_lru_reparent = SHR_LRU_REPARENT_ALL_LRUS },
		.race_points = BIT_POINTS | POINT(FLAT_GROW_G) | POINT(FLAT_WRITER_W),
		.ops = &shr_info_flat_ops,
	},
	/* Units only for deferred counters; no bits. */
	[SHR_DESIGN_NOBITMAP] = {
		.info = { .name = "nobitmap", .units = true, .default_units = SHR_UNITS_CACHE,
			  .id_step = SHR_UNIT_BITS,
			  .default_lru_reparent = SHR_LRU_REPARENT_ALL_LRUS },
		.race_points = 0,
		.ops = &shr_info_nobitmap_ops,
	},
	[SHR_DESIGN_INDEXED] = {
		.info = { .name = "indexed", .units = true, .default_units = SHR_UNITS_CACHE,
			  .id_step = SHR_UNIT_BITS, .bits = true, .root_bits = true,
			  .scrubs_reused_ids = true,
			  .default_lru_reparent = SHR_LRU_REPARENT_PER_CGROUP },
		.race_points = BIT_POINTS | POINT(IX_SET_M1_M2) | POINT(IX_UNMARK_C2) |
			       POINT(IX_UNIT_ERASED),
		.ops = &shr_info_indexed_ops,
	},
};

/* Points on per-cgroup list_lru lists, which exist only with kmem on. */
#define KMEM_POINTS (POINT(LRU_PUBLISH) | POINT(REPARENT_SPLICED) | POINT(IX_UNIT_ERASED))

const struct shr_design_info *shr_design_info_of(enum shr_design design)
{
	if ((unsigned int)design >= SHR_NR_DESIGNS)
		return NULL;
	return &shr_designs[design].info;
}

const char *shr_design_name(enum shr_design design)
{
	const struct shr_design_info *d = shr_design_info_of(design);

	return d ? d->name : NULL;
}

int shr_design_parse(const char *name, enum shr_design *out)
{
	if (!name || !out)
		return -EINVAL;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		if (!strcmp(name, shr_designs[d].info.name)) {
			*out = (enum shr_design)d;
			return 0;
		}
	}
	return -EINVAL;
}

bool shr_race_point_reachable(enum shr_race_point p, const struct shr_host_params *params)
{
	uint64_t bit, listed = 0;

	if (!params || (unsigned int)params->design >= SHR_NR_DESIGNS ||
	    (unsigned int)p >= SHR_RACE_NR)
		return false;
	bit = UINT64_C(1) << p;
	if ((KMEM_POINTS & bit) && !params->kmem)
		return false;
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		listed |= shr_designs[d].race_points;
	return !(listed & bit) || (shr_designs[params->design].race_points & bit);
}

int shr_design_host_init(struct shr_host *host)
{
	const struct shr_design_row *d = host->design;
	int ret;

	if (d->info.units) {
		ret = shr_info_units_init(host);
		if (ret)
			return ret;
	}
	if (!d->ops->host_init)
		return 0;
	ret = d->ops->host_init(host);
	if (ret && d->info.units)
		shr_info_units_exit(host);
	return ret;
}

void shr_design_host_exit(struct shr_host *host)
{
	const struct shr_design_row *d = host->design;

	if (d->ops->host_exit)
		d->ops->host_exit(host);
	if (d->info.units)
		shr_info_units_exit(host);
}
