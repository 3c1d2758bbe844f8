/* SPDX-License-Identifier: MIT */
/*
 * Hosts: one instance of the whole subsystem, with no globals.
 *
 * A host owns (or borrows) a slab allocator, creates its "radix_tree_node"
 * cache for every XArray it keeps, its id allocators, the design's state and
 * the root cgroup. Parameters are validated once, here, and resolved
 * (defaults filled in), so the rest of the code reads host->params as final.
 *
 * The host structure itself is not modelled kernel memory (the kernel keeps
 * these as globals), so it comes from malloc; everything a cgroup, shrinker
 * or list_lru allocates comes from the slab allocator.
 *
 * Locking: creation and destruction are single-threaded; the three mutexes
 * are described in host_state.h.
 */
#include <string.h>
#include <unistd.h>

#include "memcg_internal.h"
#include "rcu.h"
#include "shrinker_info.h"
#include "shrinker_internal.h"

static const char *const design_names[SHR_NR_DESIGNS] = {
	[SHR_DESIGN_XARRAY] = "xarray",
	[SHR_DESIGN_PREALLOC] = "prealloc",
	[SHR_DESIGN_ARRAY_ONDEMAND] = "array-ondemand",
	[SHR_DESIGN_FLAT] = "flat",
	[SHR_DESIGN_NOBITMAP] = "nobitmap",
	[SHR_DESIGN_INDEXED] = "indexed",
};

const char *shr_design_name(enum shr_design design)
{
	if ((unsigned int)design >= SHR_NR_DESIGNS)
		return NULL;
	return design_names[design];
}

int shr_design_parse(const char *name, enum shr_design *out)
{
	if (!name || !out)
		return -EINVAL;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		if (!strcmp(name, design_names[d])) {
			*out = (enum shr_design)d;
			return 0;
		}
	}
	return -EINVAL;
}

void shr_host_params_init(struct shr_host_params *params)
{
	memset(params, 0, sizeof(*params));
	params->nr_nodes = 1;
	params->kmem = true;
	params->design = SHR_DESIGN_XARRAY;
	params->units = SHR_UNITS_DEFAULT;
	params->lru_reparent = SHR_LRU_REPARENT_DEFAULT;
}

static bool design_grows_arrays(enum shr_design design)
{
	return design == SHR_DESIGN_FLAT || design == SHR_DESIGN_PREALLOC;
}

static bool design_has_units(enum shr_design design)
{
	return design != SHR_DESIGN_FLAT;
}

int shr_host_params_check(const struct shr_host_params *p, const char **why)
{
	const char *msg = NULL;

	if (!p)
		msg = "no parameters";
	else if (p->nr_nodes < 1 || p->nr_nodes > SHR_MAX_NUMNODES)
		msg = "nr_nodes must be 1..64";
	else if ((unsigned int)p->design >= SHR_NR_DESIGNS)
		msg = "unknown design";
	else if (!shr_info_ops_for(p->design))
		msg = "design not available in this build";
	else if ((unsigned int)p->units > SHR_UNITS_KMALLOC)
		msg = "unknown units source";
	else if (p->units == SHR_UNITS_KMALLOC && !design_has_units(p->design))
		msg = "units=kmalloc needs a design with units (not flat)";
	else if (p->expand_batch && !design_grows_arrays(p->design))
		msg = "expand_batch applies only to flat and prealloc";
	else if (p->expand_batch > 65536)
		msg = "expand_batch must be at most 65536";
	else if (p->nonslab_ids && p->kmem)
		msg = "nonslab_ids needs kmem accounting off";
	else if (p->nonslab_ids && p->design != SHR_DESIGN_FLAT &&
		 p->design != SHR_DESIGN_PREALLOC && p->design != SHR_DESIGN_ARRAY_ONDEMAND)
		msg = "nonslab_ids applies only to flat, prealloc and array-ondemand";
	else if ((unsigned int)p->lru_reparent > SHR_LRU_REPARENT_PER_CGROUP)
		msg = "unknown lru_reparent mode";
	else if (p->slab && shr_slab_nr_nodes(p->slab) < p->nr_nodes)
		msg = "the given slab allocator has fewer nodes than the host";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

static void resolve_params(struct shr_host_params *p)
{
	if (!p->geometry_cpus)
		p->geometry_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (p->slab)
		p->geometry_cpus = shr_slab_geometry_cpus(p->slab);
	if (!p->expand_batch && p->design == SHR_DESIGN_FLAT)
		p->expand_batch = 1;
	if (!p->expand_batch && p->design == SHR_DESIGN_PREALLOC)
		p->expand_batch = 64; /* one unit of ids */
	/* Mainline (prealloc) takes its units from kmalloc-1k; the seeds'
	 * designs run on top of the dedicated-cache patch. */
	if (p->units == SHR_UNITS_DEFAULT)
		p->units = p->design == SHR_DESIGN_PREALLOC ? SHR_UNITS_KMALLOC : SHR_UNITS_CACHE;
	if (p->lru_reparent == SHR_LRU_REPARENT_DEFAULT)
		p->lru_reparent = p->design == SHR_DESIGN_INDEXED ? SHR_LRU_REPARENT_PER_CGROUP
								  : SHR_LRU_REPARENT_ALL_LRUS;
}

static int host_create_slab(struct shr_host *host)
{
	struct shr_slab_params sp = {
		.nr_nodes = host->params.nr_nodes,
		.geometry_cpus = host->params.geometry_cpus,
	};

	if (host->params.slab) {
		host->slab = host->params.slab;
		return 0;
	}
	host->owns_slab = true;
	return shr_slab_allocator_create(&sp, &host->slab);
}

static void host_free(struct shr_host *host)
{
	if (host->xa_node_cache) {
		shr_rcu_barrier();
		(void)shr_kmem_cache_destroy(host->xa_node_cache);
	}
	if (host->owns_slab && host->slab)
		shr_slab_allocator_destroy(host->slab);
	pthread_mutex_destroy(&host->cgroup_mutex);
	pthread_mutex_destroy(&host->shrinker_mutex);
	pthread_mutex_destroy(&host->list_lrus_mutex);
	free(host->stats.hold_ns);
	free(host);
}

int shr_host_create(const struct shr_host_params *params, struct shr_host **out)
{
	struct shr_host *host;
	int ret;

	if (!out || shr_host_params_check(params, NULL))
		return -EINVAL;
	host = calloc(1, sizeof(*host));
	if (!host)
		return -ENOMEM;
	host->params = *params;
	resolve_params(&host->params);
	host->params.slab = NULL;
	host->nr_nodes = params->nr_nodes;
	pthread_mutex_init(&host->cgroup_mutex, NULL);
	pthread_mutex_init(&host->shrinker_mutex, NULL);
	pthread_mutex_init(&host->list_lrus_mutex, NULL);
	shr_rcu_list_init(&host->shrinker_list);
	shr_rcu_list_init(&host->root_walk_list);
	shr_rcu_list_init(&host->list_lrus);
	host->next_ino = 1;
	host->info_ops = shr_info_ops_for(host->params.design);
	host->info_node_size = (host->info_ops->memcg_node_size + 15) & ~(size_t)15;
	host->params.slab = params->slab;
	ret = host_create_slab(host);
	host->params.slab = NULL;
	if (ret)
		goto fail;
	ret = shr_kmem_cache_create(host->slab, "radix_tree_node", shr_xa_node_size(), 0, 0,
				    &host->xa_node_cache);
	if (ret)
		goto fail;
	shr_idr_init(&host->memcg_idr, host->xa_node_cache);
	shr_idr_init(&host->shrinker_idr, host->xa_node_cache);
	shr_ida_init(&host->debugfs_ida, host->xa_node_cache);
	ret = host->info_ops->host_init(host);
	if (ret)
		goto fail_idr;
	ret = shr_memcg_create_root(host);
	if (ret)
		goto fail_info;
	*out = host;
	return 0;
fail_info:
	host->info_ops->host_exit(host);
fail_idr:
	shr_idr_destroy(&host->memcg_idr);
	shr_idr_destroy(&host->shrinker_idr);
	shr_ida_destroy(&host->debugfs_ida);
fail:
	host_free(host);
	return ret;
}

int shr_host_destroy(struct shr_host *host)
{
	if (!host)
		return -EINVAL;
	/* Let deferred releases of cgroups finish before judging. */
	shr_rcu_barrier();
	pthread_mutex_lock(&host->shrinker_mutex);
	if (host->nr_shrinkers || __atomic_load_n(&host->nr_list_lrus, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&host->nr_memcgs, __ATOMIC_RELAXED) != 1) {
		pthread_mutex_unlock(&host->shrinker_mutex);
		return -EBUSY;
	}
	pthread_mutex_unlock(&host->shrinker_mutex);
	shr_shrinker_quarantine_flush(host);
	shr_memcg_destroy_root(host);
	host->info_ops->host_exit(host);
	shr_idr_destroy(&host->memcg_idr);
	shr_idr_destroy(&host->shrinker_idr);
	shr_ida_destroy(&host->debugfs_ida);
	shr_rcu_barrier();
	host_free(host);
	return 0;
}

struct shr_mem_cgroup *shr_host_root_mem_cgroup(struct shr_host *host)
{
	return host ? host->root : NULL;
}

struct shr_slab_allocator *shr_host_slab(struct shr_host *host)
{
	return host ? host->slab : NULL;
}

int shr_host_nr_nodes(const struct shr_host *host)
{
	return host ? host->nr_nodes : 0;
}

enum shr_design shr_host_design(const struct shr_host *host)
{
	return host->params.design;
}

void shr_host_get_params(const struct shr_host *host, struct shr_host_params *out)
{
	*out = host->params;
	out->slab = host->owns_slab ? NULL : host->slab;
}

int shr_shrinker_nr_max(struct shr_host *host)
{
	return __atomic_load_n(&host->shrinker_nr_max, __ATOMIC_RELAXED);
}

void shr_host_bookkeeping_stats(struct shr_host *host, struct shr_bookkeeping_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->expansions = atomic_load(&host->stats.expansions);
	out->arrays_reallocated = atomic_load(&host->stats.arrays_reallocated);
	out->bytes_copied = atomic_load(&host->stats.bytes_copied);
	out->cgroups_visited_by_registration =
		atomic_load(&host->stats.cgroups_visited_by_registration);
	out->registrations = atomic_load(&host->stats.registrations);
	out->walks = atomic_load(&host->stats.walks);
	out->units_visited = atomic_load(&host->stats.units_visited);
	out->words_visited = atomic_load(&host->stats.words_visited);
	out->units_installed = atomic_load(&host->stats.units_installed);
	out->units_freed = atomic_load(&host->stats.units_freed);
	out->lru_reparent_visits = atomic_load(&host->stats.lru_reparent_visits);
	out->reclaim_cgroups_visited = atomic_load(&host->stats.reclaim_cgroups_visited);
	pthread_mutex_lock(&host->shrinker_mutex);
	out->mutex_hold_ns_total = host->stats.mutex_hold_ns_total;
	out->mutex_hold_ns_max = host->stats.mutex_hold_ns_max;
	pthread_mutex_unlock(&host->shrinker_mutex);
}

size_t shr_host_registration_hold_ns(struct shr_host *host, unsigned long long *buf,
				     size_t len)
{
	size_t n;

	pthread_mutex_lock(&host->shrinker_mutex);
	n = host->stats.hold_ns_len;
	if (buf)
		memcpy(buf, host->stats.hold_ns, (n < len ? n : len) * sizeof(*buf));
	pthread_mutex_unlock(&host->shrinker_mutex);
	return n;
}
