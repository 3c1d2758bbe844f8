/* SPDX-License-Identifier: MIT */
/*
 * The unit storage of the "xarray" design (shrinker_info_xarray.c), shared
 * with designs that keep their deferred counters the same way but find
 * shrinkers differently ("nobitmap"): units on demand in a per-cgroup,
 * per-node XArray keyed by id / 64; the root keeps every unit.
 *
 * Each function is the shr_info_ops member of the same name; contexts,
 * locking and return values are those of shrinker_info.h. A design using
 * them must set memcg_node_size to SHR_INFO_XA_NODE_SIZE.
 */
#ifndef SHR_SHRINKER_INFO_UNITS_H
#define SHR_SHRINKER_INFO_UNITS_H

#include <shrinker/xarray.h>

#include "shrinker_info.h"

/* Per-node area: one XArray of units. */
#define SHR_INFO_XA_NODE_SIZE sizeof(struct shr_xarray)

int shr_info_xa_host_init(struct shr_host *host);
void shr_info_xa_host_exit(struct shr_host *host);
int shr_info_xa_memcg_online(struct shr_host *host, struct shr_mem_cgroup *memcg);
void shr_info_xa_memcg_free(struct shr_host *host, struct shr_mem_cgroup *memcg);
void shr_info_xa_reparent_deferred(struct shr_host *host, struct shr_mem_cgroup *memcg,
				   struct shr_mem_cgroup *parent);
int shr_info_xa_shrinker_add(struct shr_host *host, struct shr_shrinker_impl *s);
void shr_info_xa_shrinker_remove(struct shr_host *host, struct shr_shrinker_impl *s);
int shr_info_xa_install(struct shr_mem_cgroup *memcg, int id, shr_gfp_t gfp);
void shr_info_xa_uninstall(struct shr_mem_cgroup *memcg, int id);
struct shr_shrinker_impl *shr_info_xa_lookup(struct shr_mem_cgroup *memcg, int id);
long shr_info_xa_xchg_deferred(struct shr_mem_cgroup *memcg, int nid,
			       struct shr_shrinker_impl *s);
long shr_info_xa_add_deferred(struct shr_mem_cgroup *memcg, int nid,
			      struct shr_shrinker_impl *s, long nr);
long shr_info_xa_read_deferred(struct shr_mem_cgroup *memcg, int nid,
			       struct shr_shrinker_impl *s);
void shr_info_xa_bytes(struct shr_mem_cgroup *memcg, int nid,
		       struct shr_memcg_bookkeeping *acc);

#endif /* SHR_SHRINKER_INFO_UNITS_H */
