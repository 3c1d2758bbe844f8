/* SPDX-License-Identifier: MIT */
/*
 * A host is one instance of the whole shrinker subsystem: its memory cgroup
 * tree, its shrinker registry, its list_lrus and the per-cgroup shrinker
 * bookkeeping of one design. There are no globals, so hosts of different
 * designs live side by side in one process (that is how the lab compares
 * them on the same workload).
 */
#ifndef SHRINKER_HOST_H
#define SHRINKER_HOST_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_host;
struct shr_mem_cgroup;
struct shr_slab_allocator;

/**
 * enum shr_design - how each cgroup keeps, per node, its shrinker bits and
 * deferred counters (the thing the seeds argue about).
 */
enum shr_design {
	/* Units (64 deferred counters + a 64-bit map) allocated on demand and
	 * kept in an XArray per cgroup and node; the root keeps all units. */
	SHR_DESIGN_XARRAY = 0,
	/* Mainline 6.7+: pointer array sized for shrinker_nr_max and every unit
	 * allocated at online; expansion reallocates every cgroup's array. Its
	 * units come from kmalloc-1k as in mainline unless units=cache asks for
	 * the seeds' dedicated cache. */
	SHR_DESIGN_PREALLOC,
	/* The same pointer array, units allocated on demand. */
	SHR_DESIGN_ARRAY_ONDEMAND,
	/* 5.13-6.6: one contiguous bitmap + counter array per cgroup and node. */
	SHR_DESIGN_FLAT,
	/* Before 4.19: no bits; non-root reclaim calls every memcg-aware shrinker. */
	SHR_DESIGN_NOBITMAP,
	/* Ours: costs follow only what cgroups hold. */
	SHR_DESIGN_INDEXED,
	SHR_NR_DESIGNS,
};

/**
 * enum shr_units_source - where 520-byte units come from.
 * @SHR_UNITS_DEFAULT: the design's own choice: kmalloc for prealloc (what
 *                     mainline does), the dedicated cache for the others
 *                     (the seeds' designs sit on top of the cache patch).
 * @SHR_UNITS_CACHE:   a dedicated cache sized to the unit (the seeds'
 *                     proposal, 31 per order-2 slab); ignored by flat.
 * @SHR_UNITS_KMALLOC: kmalloc (kmalloc-1k, 16 per order-2 slab).
 */
enum shr_units_source {
	SHR_UNITS_DEFAULT = 0,
	SHR_UNITS_CACHE,
	SHR_UNITS_KMALLOC,
};

/** enum shr_lru_reparent - how offline finds the lists of a cgroup. */
enum shr_lru_reparent {
	SHR_LRU_REPARENT_DEFAULT = 0, /* the design's choice */
	SHR_LRU_REPARENT_ALL_LRUS,    /* kernel: visit every memcg-aware list_lru */
	SHR_LRU_REPARENT_PER_CGROUP,  /* visit only the lists the cgroup owns */
};

/**
 * struct shr_host_params - host parameters; start from shr_host_params_init().
 * @nr_nodes:      logical NUMA nodes (1..SHR_MAX_NUMNODES).
 * @geometry_cpus: CPUs for slab geometry; 0 = this machine. Ignored when
 *                 @slab is given (the allocator's own value is used).
 * @kmem:          kmem accounting on (false = cgroup.memory=nokmem).
 * @design:        bookkeeping design.
 * @units:         unit source, for designs with units; SHR_UNITS_DEFAULT
 *                 resolves to the design's own (shr_host_get_params()).
 * @expand_batch:  ids per growth step of shrinker_nr_max for designs that
 *                 grow arrays (flat: default 1; prealloc: default 64);
 *                 0 = the design's default. Must be 0 for other designs.
 * @nonslab_ids:   with @kmem false, non-root cgroups keep bookkeeping only
 *                 for NONSLAB shrinkers, in a second id space.
 * @lru_reparent:  how offline finds a cgroup's lists.
 * @slab:          allocator to use (shared, not owned), or NULL to have the
 *                 host create and own one with @nr_nodes and @geometry_cpus.
 */
struct shr_host_params {
	int nr_nodes;
	unsigned int geometry_cpus;
	bool kmem;
	enum shr_design design;
	enum shr_units_source units;
	unsigned int expand_batch;
	bool nonslab_ids;
	enum shr_lru_reparent lru_reparent;
	struct shr_slab_allocator *slab;
};

/**
 * shr_host_params_init() - defaults: 1 node, this machine's CPUs, kmem on,
 * design xarray, the design's unit source, default batch, no nonslab ids,
 * the design's reparent walk, a private allocator.
 * @params: filled in with the defaults.
 * Context: Any.
 */
SHR_API void shr_host_params_init(struct shr_host_params *params);

/**
 * shr_host_create() - create a host and its root memory cgroup (online).
 * @params: the parameters (shr_host_params_init(), then changed).
 * @out:    receives the host.
 *
 * Context: Registered thread. Blocks.
 * Return: 0; -EINVAL for a bad parameter or combination (the message can be
 *         read with shr_host_params_check()); -ENOMEM.
 */
SHR_API SHR_MUST_CHECK int shr_host_create(const struct shr_host_params *params,
					   struct shr_host **out);

/**
 * shr_host_params_check() - validate @params without creating anything.
 * @params: the parameters to check.
 * @why:    if not NULL, receives a static string naming the problem.
 * Context: Any.
 * Return: 0 or -EINVAL.
 */
SHR_API int shr_host_params_check(const struct shr_host_params *params, const char **why);

/**
 * shr_host_destroy() - destroy an idle host.
 * @host: the host; NULL is refused.
 *
 * Every shrinker must have been freed, every list_lru destroyed and every
 * non-root cgroup taken offline and released; otherwise nothing is done.
 * Waits for deferred frees. A host-owned allocator is destroyed too.
 *
 * Context: Registered thread; no other thread uses @host. Blocks.
 * Return: 0, -EINVAL (NULL), -EBUSY (still in use, or a reclaimer
 *         (<shrinker/reclaimer.h>) still runs on it).
 */
SHR_API int shr_host_destroy(struct shr_host *host);

/**
 * shr_host_root_mem_cgroup() - the root cgroup (never freed before the host).
 * @host: the host.
 *
 * Context: Any.
 * Return: the root cgroup, or NULL for a NULL @host.
 */
SHR_API struct shr_mem_cgroup *shr_host_root_mem_cgroup(struct shr_host *host);

/**
 * shr_host_slab() - the host's slab allocator.
 * @host: the host.
 *
 * Context: Any.
 * Return: the allocator (the host's own, or the one its parameters gave), or
 *         NULL for a NULL @host.
 */
SHR_API struct shr_slab_allocator *shr_host_slab(struct shr_host *host);

/**
 * shr_host_nr_nodes() - the host's node count.
 * @host: the host.
 *
 * Context: Any.
 * Return: the number of nodes (1..SHR_MAX_NUMNODES).
 */
SHR_API int shr_host_nr_nodes(const struct shr_host *host);

/**
 * shr_host_design() - the host's design.
 * @host: the host (not NULL).
 *
 * Context: Any.
 * Return: the design it was created with.
 */
SHR_API enum shr_design shr_host_design(const struct shr_host *host);

/**
 * shr_host_get_params() - the parameters the host runs with (defaults resolved).
 * @host: the host (not NULL).
 * @out:  receives the parameters; its slab is NULL when the host owns its
 *        allocator.
 *
 * Context: Any.
 */
SHR_API void shr_host_get_params(const struct shr_host *host, struct shr_host_params *out);

/**
 * struct shr_design_info - what a design is: its row of the library's
 * design table, which nothing else in the library second-guesses.
 * @name:          "xarray", "prealloc", ... (shr_design_parse() reads it).
 * @units:         keeps bits and deferred counters in 520-byte units, so
 *                 accepts the @units parameter; @default_units says where
 *                 they come from by default (SHR_UNITS_CACHE or
 *                 SHR_UNITS_KMALLOC).
 * @default_units: see @units.
 * @expand_batch:  accepts the expand_batch parameter (it grows per-cgroup
 *                 arrays as shrinker_nr_max grows); its default, in ids.
 *                 0: the parameter does not apply.
 * @id_step:       shrinker_nr_max grows in multiples of this many ids
 *                 (expand_batch, where it applies, is rounded up to it).
 * @nonslab_ids:   accepts the nonslab_ids parameter.
 * @bits:          keeps per-cgroup shrinker bits, so reclaim of a cgroup
 *                 calls only the shrinkers whose bit is set (false: it
 *                 calls every memcg-aware shrinker, as before 4.19).
 * @root_bits:     global reclaim finds SHR_SHRINKER_ROOT_BITS shrinkers
 *                 through the root's bits (docs/design/INDEXED.md).
 * @scrubs_reused_ids: a freed shrinker's bits and deferred work go with it,
 *                 so the next owner of its id starts clean (the kernel
 *                 hands them over: docs/upstream/kernel-bug-id-reuse.md).
 * @default_lru_reparent: how offline finds a cgroup's lists by default
 *                 (SHR_LRU_REPARENT_ALL_LRUS or SHR_LRU_REPARENT_PER_CGROUP).
 */
struct shr_design_info {
	const char *name;
	bool units;
	enum shr_units_source default_units;
	unsigned int expand_batch;
	unsigned int id_step;
	bool nonslab_ids;
	bool bits;
	bool root_bits;
	bool scrubs_reused_ids;
	enum shr_lru_reparent default_lru_reparent;
};

/**
 * shr_design_info_of() - the table row of @design: name, capabilities and
 * defaults. Designs are numbered 0..SHR_NR_DESIGNS-1.
 * @design: a design.
 * Context: Any.
 * Return: the row (static storage), or NULL when @design is out of range.
 */
SHR_API const struct shr_design_info *shr_design_info_of(enum shr_design design);

/**
 * shr_design_name() - the name of @design: "xarray", "prealloc", ...
 * @design: a design.
 *
 * Context: Any.
 * Return: the name (static storage), or NULL if @design is out of range.
 */
SHR_API const char *shr_design_name(enum shr_design design);

/**
 * shr_design_parse() - the design named @name.
 * @name: a design's name, as shr_design_name() gives it.
 * @out:  receives the design.
 *
 * Context: Any.
 * Return: 0 or -EINVAL (NULL, unknown name; *@out unchanged).
 */
SHR_API int shr_design_parse(const char *name, enum shr_design *out);

/**
 * shr_shrinker_nr_max() - the host's shrinker_nr_max (high-water mark of
 * memcg-aware ids, rounded up to the growth step).
 * @host: the host.
 *
 * Context: Any.
 * Return: shrinker_nr_max.
 */
SHR_API int shr_shrinker_nr_max(struct shr_host *host);

/**
 * struct shr_bookkeeping_stats - counters the lab reads. Cumulative since
 * host creation; read with shr_host_bookkeeping_stats().
 * @expansions:            registrations that grew per-cgroup bookkeeping.
 * @arrays_reallocated:    cgroup-node arrays/maps reallocated by growth.
 * @bytes_copied:          bytes copied from old arrays/maps into new ones.
 * @cgroups_visited_by_registration: cgroups whose bookkeeping a
 *                         registration touched (root included).
 * @mutex_hold_ns_total:   time the registry mutex was held by registration.
 * @mutex_hold_ns_max:     longest single hold by a registration.
 * @registrations:         memcg-aware shrinker id allocations.
 * @walks:                 non-root shrink_slab walks.
 * @units_visited:         units (or map words) looked at by walks.
 * @words_visited:         bitmap words read by walks.
 * @units_installed:       on-demand unit installs.
 * @units_freed:           units released (memcg free or indexed reuse).
 * @lru_reparent_visits:   list_lrus looked at by cgroup offlines.
 * @reclaim_cgroups_visited: cgroups drop_caches and memory.reclaim passes
 *                         called shrink_slab for (per node).
 */
struct shr_bookkeeping_stats {
	unsigned long expansions;
	unsigned long arrays_reallocated;
	unsigned long bytes_copied;
	unsigned long cgroups_visited_by_registration;
	unsigned long long mutex_hold_ns_total;
	unsigned long long mutex_hold_ns_max;
	unsigned long registrations;
	unsigned long walks;
	unsigned long units_visited;
	unsigned long words_visited;
	unsigned long units_installed;
	unsigned long units_freed;
	unsigned long lru_reparent_visits;
	unsigned long reclaim_cgroups_visited;
};

/**
 * shr_host_bookkeeping_stats() - snapshot of the counters.
 * @host: the host.
 * @out:  receives the counters.
 *
 * Context: Registered thread; takes the registry mutex (for the hold times).
 */
SHR_API void shr_host_bookkeeping_stats(struct shr_host *host, struct shr_bookkeeping_stats *out);

/**
 * shr_host_registration_hold_ns() - copy out the registry-mutex hold time of
 * each registration so far (in order), for medians.
 * @host: the host.
 * @buf:  receives up to @len values (may be NULL to ask for the count).
 * @len:  room in @buf.
 *
 * Context: Registered thread; takes the registry mutex.
 * Return: number of registrations recorded (may exceed @len).
 */
SHR_API size_t shr_host_registration_hold_ns(struct shr_host *host, unsigned long long *buf,
					     size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_HOST_H */
