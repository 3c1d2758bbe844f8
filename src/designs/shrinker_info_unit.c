/* SPDX-License-Identifier: MIT */
/*
 * The 520-byte unit (64 deferred counters + one map word), allocated from a
 * dedicated cache sized to it (seed 003's patch) or from kmalloc
 * (kmalloc-1k, before).
 */
#include "debug.h"
#include "rcu.h"
#include "shrinker_info_unit.h"

_Static_assert(sizeof(struct shr_info_unit) == 520, "unit is 64 counters + one map word");

int shr_info_units_init(struct shr_host *host)
{
	if (host->params.units == SHR_UNITS_KMALLOC)
		return 0;
	/* Not cache-line aligned, as in the seed's patch: alignment would grow
	 * the slot and eat part of the saving. */
	return shr_kmem_cache_create(host->slab, "shrinker_info_unit",
				     sizeof(struct shr_info_unit), 0, 0, &host->unit_cache);
}

void shr_info_units_exit(struct shr_host *host)
{
	if (host->unit_cache) {
		shr_rcu_barrier();
		if (shr_kmem_cache_destroy(host->unit_cache))
			SHR_BUG("units still allocated at host destroy");
		host->unit_cache = NULL;
	}
}

struct shr_info_unit *shr_info_unit_alloc(struct shr_host *host, int nid, shr_gfp_t gfp)
{
	struct shr_info_unit *unit;

	if (host->unit_cache)
		unit = shr_kmem_cache_alloc_node(host->unit_cache, nid, gfp | SHR_GFP_ZERO);
	else
		unit = shr_kzalloc_node(host->slab, sizeof(*unit), gfp, nid);
	if (unit)
		atomic_fetch_add_explicit(&host->stats.units_installed, 1, memory_order_relaxed);
	return unit;
}

void shr_info_unit_free(struct shr_host *host, struct shr_info_unit *unit)
{
	if (!unit)
		return;
	atomic_fetch_add_explicit(&host->stats.units_freed, 1, memory_order_relaxed);
	if (host->unit_cache)
		shr_kmem_cache_free(host->unit_cache, unit);
	else
		shr_kfree(host->slab, unit);
}

size_t shr_info_unit_bytes(struct shr_host *host)
{
	struct shr_slab_geometry geo;
	struct shr_kmem_cache *cache = host->unit_cache;

	if (!cache)
		cache = shr_kmalloc_cache_for(host->slab, sizeof(struct shr_info_unit));
	shr_kmem_cache_geometry(cache, &geo);
	return geo.object_size;
}
