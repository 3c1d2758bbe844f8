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
 *
 * The host is the composition root: it picks the design's row from the
 * table (designs/designs.h) and wires its ops into the core, so it sits
 * above the designs (src/host/), and nothing in src/ below calls into it.
 */
#include <string.h>
#include <unistd.h>

#include "designs.h"
#include "memcg_internal.h"
#include "rcu.h"
#include "shrinker_info.h"
#include "shrinker_internal.h"

void shr_host_params_init(struct shr_host_params *params)
{
	memset(params, 0, sizeof(*params));
	params->nr_nodes = 1;
	params->kmem = true;
	params->design = SHR_DESIGN_XARRAY;
	params->units = SHR_UNITS_DEFAULT;
	params->lru_reparent = SHR_LRU_REPARENT_DEFAULT;
}

int shr_host_params_check(const struct shr_host_params *p, const char **why)
{
	const struct shr_design_info *d = NULL;
	const char *msg = NULL;

	if (!p)
		msg = "no parameters";
	else if (p->nr_nodes < 1 || p->nr_nodes > SHR_MAX_NUMNODES)
		msg = "nr_nodes must be 1..64";
	else if (!(d = shr_design_info_of(p->design)))
		msg = "unknown design";
	else if ((unsigned int)p->units > SHR_UNITS_KMALLOC)
		msg = "unknown units source";
	else if (p->units == SHR_UNITS_KMALLOC && !d->units)
		msg = "units=kmalloc needs a design with units (this one has none)";
	else if (p->expand_batch && !d->expand_batch)
		msg = "expand_batch applies only to designs that grow arrays (not this one)";
	else if (p->expand_batch > 65536)
		msg = "expand_batch must be at most 65536";
	else if (p->nonslab_ids && p->kmem)
		msg = "nonslab_ids needs kmem accounting off";
	else if (p->nonslab_ids && !d->nonslab_ids)
		msg = "nonslab_ids does not apply to this design";
	else if ((unsigned int)p->lru_reparent > SHR_LRU_REPARENT_PER_CGROUP)
		msg = "unknown lru_reparent mode";
	else if (p->slab && shr_slab_nr_nodes(p->slab) < p->nr_nodes)
		msg = "the given slab allocator has fewer nodes than the host";
	if (why)
		*why = msg;
	return msg ? -EINVAL : 0;
}

/* Fill in the design's defaults (its row of the table). */
static void resolve_params(struct shr_host_params *p, const struct shr_design_info *d)
{
	if (!p->geometry_cpus)
		p->geometry_cpus = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	if (p->slab)
		p->geometry_cpus = shr_slab_geometry_cpus(p->slab);
	if (!p->expand_batch)
		p->expand_batch = d->expand_batch;
	if (p->units == SHR_UNITS_DEFAULT)
		p->units = d->default_units;
	if (p->lru_reparent == SHR_LRU_REPARENT_DEFAULT)
		p->lru_reparent = d->default_lru_reparent;
}

/* The growth step of shrinker_nr_max: the row's id step, or expand_batch
 * rounded up to a multiple of it. */
static int id_step(const struct shr_host_params *p, const struct shr_design_info *d)
{
	unsigned int ids = p->expand_batch > d->id_step ? p->expand_batch : d->id_step;

	return (int)((ids + d->id_step - 1) / d->id_step * d->id_step);
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
	shr_mutex_destroy(&host->cgroup_mutex);
	shr_mutex_destroy(&host->shrinker_mutex);
	shr_mutex_destroy(&host->list_lrus_mutex);
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
	host->design = &shr_designs[params->design];
	host->info_ops = host->design->ops;
	host->params = *params;
	resolve_params(&host->params, &host->design->info);
	host->id_step = id_step(&host->params, &host->design->info);
	host->params.slab = NULL;
	host->nr_nodes = params->nr_nodes;
	shr_mutex_init(&host->cgroup_mutex, SHR_LOCK_CGROUP);
	shr_mutex_init(&host->shrinker_mutex, SHR_LOCK_SHRINKER);
	shr_mutex_init(&host->list_lrus_mutex, SHR_LOCK_LIST_LRUS);
	shr_rcu_list_init(&host->shrinker_list);
	shr_rcu_list_init(&host->root_walk_list);
	shr_rcu_list_init(&host->list_lrus);
	host->next_ino = 1;
	atomic_init(&host->high_eventfd, -1);
	atomic_init(&host->high_pending, false);
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
	ret = shr_design_host_init(host);
	if (ret)
		goto fail_idr;
	ret = shr_memcg_create_root(host);
	if (ret)
		goto fail_info;
	*out = host;
	return 0;
fail_info:
	shr_design_host_exit(host);
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
	shr_mutex_lock(&host->shrinker_mutex);
	if (host->nr_shrinkers ||
	    atomic_load_explicit(&host->high_eventfd, memory_order_relaxed) >= 0 ||
	    atomic_load_explicit(&host->nr_list_lrus, memory_order_relaxed) ||
	    atomic_load_explicit(&host->nr_memcgs, memory_order_relaxed) != 1) {
		shr_mutex_unlock(&host->shrinker_mutex);
		return -EBUSY;
	}
	shr_mutex_unlock(&host->shrinker_mutex);
	shr_shrinker_quarantine_flush(host);
	shr_memcg_destroy_root(host);
	shr_design_host_exit(host);
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
	shr_mutex_lock(&host->shrinker_mutex);
	out->mutex_hold_ns_total = host->stats.mutex_hold_ns_total;
	out->mutex_hold_ns_max = host->stats.mutex_hold_ns_max;
	shr_mutex_unlock(&host->shrinker_mutex);
}

size_t shr_host_registration_hold_ns(struct shr_host *host, unsigned long long *buf,
				     size_t len)
{
	size_t n;

	shr_mutex_lock(&host->shrinker_mutex);
	n = host->stats.hold_ns_len;
	if (buf)
		memcpy(buf, host->stats.hold_ns, (n < len ? n : len) * sizeof(*buf));
	shr_mutex_unlock(&host->shrinker_mutex);
	return n;
}
