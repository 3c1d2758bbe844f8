/* SPDX-License-Identifier: MIT */
/*
 * IDR and IDA on top of an SHR_XA_FLAGS_ALLOC XArray.
 *
 * The XArray's free tracking (mark 0 summarised up the tree) gives the
 * lowest free index in a range in O(height), so both allocators hand out
 * the lowest free id and a freed id is the next one returned. The IDR
 * stores the caller's pointer; the IDA stores one constant value entry
 * (IDA_ENTRY), so that "allocated" is just "present" and no memory beyond
 * the nodes is used. All locking
 * is the XArray's: lookups are RCU readers, updates take xa_lock.
 */
#include <limits.h>

#include <shrinker/idr.h>

/* What an IDA stores for every allocated id. */
#define IDA_ENTRY shr_xa_mk_value(0)

void shr_idr_init(struct shr_idr *idr, struct shr_kmem_cache *node_cache)
{
	shr_xa_init(&idr->idr_xa, node_cache, SHR_NUMA_NO_NODE, SHR_XA_FLAGS_ALLOC);
}

void shr_idr_destroy(struct shr_idr *idr)
{
	shr_xa_destroy(&idr->idr_xa);
}

/* -EBUSY from shr_xa_alloc() means the range is full. */
static int alloc_errno(int ret)
{
	return ret == -EBUSY ? -ENOSPC : ret;
}

int shr_idr_alloc(struct shr_idr *idr, void *ptr, int start, int end, shr_gfp_t gfp)
{
	uint32_t max = end > 0 ? (uint32_t)end - 1 : SHR_IDR_MAX;
	uint32_t id;
	int ret;

	if (!ptr || start < 0 || (end > 0 && end <= start))
		return -EINVAL;
	ret = shr_xa_alloc(&idr->idr_xa, &id, ptr, (uint32_t)start, max, gfp);
	if (ret)
		return alloc_errno(ret);
	return (int)id;
}

void *shr_idr_find(struct shr_idr *idr, unsigned long id)
{
	return shr_xa_load(&idr->idr_xa, id);
}

void *shr_idr_replace(struct shr_idr *idr, void *ptr, unsigned long id)
{
	struct shr_xarray *xa = &idr->idr_xa;
	void *old = NULL;

	if (!ptr)
		return NULL;
	shr_xa_lock(xa);
	if (shr_xa_load(xa, id)) {
		/* The slot exists, so this store allocates nothing. */
		old = shr_xa_store_locked(xa, id, ptr, SHR_GFP_KERNEL);
		if (shr_xa_is_err(old))
			old = NULL;
	}
	shr_xa_unlock(xa);
	return old;
}

void *shr_idr_remove(struct shr_idr *idr, unsigned long id)
{
	return shr_xa_erase(&idr->idr_xa, id);
}

void *shr_idr_get_next(struct shr_idr *idr, int *idp)
{
	unsigned long index = *idp < 0 ? 0 : (unsigned long)*idp;
	void *entry = shr_xa_find(&idr->idr_xa, &index, SHR_IDR_MAX, SHR_XA_PRESENT);

	if (entry)
		*idp = (int)index;
	return entry;
}

bool shr_idr_is_empty(const struct shr_idr *idr)
{
	return shr_xa_empty(&idr->idr_xa);
}

void shr_ida_init(struct shr_ida *ida, struct shr_kmem_cache *node_cache)
{
	shr_idr_init(&ida->ida_idr, node_cache);
}

void shr_ida_destroy(struct shr_ida *ida)
{
	shr_idr_destroy(&ida->ida_idr);
}

int shr_ida_alloc_range(struct shr_ida *ida, unsigned int min, unsigned int max,
			shr_gfp_t gfp)
{
	uint32_t id;
	int ret;

	if (min > max || max > SHR_IDR_MAX)
		return -EINVAL;
	ret = shr_xa_alloc(&ida->ida_idr.idr_xa, &id, IDA_ENTRY, min, max, gfp);
	if (ret)
		return alloc_errno(ret);
	return (int)id;
}

int shr_ida_free(struct shr_ida *ida, unsigned int id)
{
	return shr_xa_erase(&ida->ida_idr.idr_xa, id) ? 0 : -ENOENT;
}

bool shr_ida_exists(struct shr_ida *ida, unsigned int id)
{
	return shr_xa_load(&ida->ida_idr.idr_xa, id) != NULL;
}
