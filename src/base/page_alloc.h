/* SPDX-License-Identifier: MIT */
/*
 * Internal page allocator: binary buddy allocator over mmap'd chunks, with
 * logical NUMA nodes. Used only by slab.c. See the design comment at the top
 * of page_alloc.c.
 */
#ifndef SHR_PAGE_ALLOC_H
#define SHR_PAGE_ALLOC_H

#include <stdint.h>

#include <urcu/list.h>

#include <shrinker/common.h>

/* A chunk is 2^SHR_CHUNK_SHIFT bytes, aligned to its size, owned by one node. */
#define SHR_CHUNK_SHIFT 26
#define SHR_CHUNK_SIZE (1UL << SHR_CHUNK_SHIFT)
#define SHR_CHUNK_PAGES (SHR_CHUNK_SIZE >> SHR_PAGE_SHIFT)
/* Offset of the page metadata array in a chunk (after its header). */
#define SHR_CHUNK_META_OFFSET 64

/* What a page currently is (struct shr_page.kind). */
enum shr_page_kind {
	SHR_PAGE_NONE = 0,      /* allocated but untyped, or inside a free block */
	SHR_PAGE_RESERVED,      /* holds the chunk's metadata; never allocated */
	SHR_PAGE_BUDDY,         /* first page of a free block in a buddy list */
	SHR_PAGE_SLAB,          /* first page of a slab */
	SHR_PAGE_SLAB_TAIL,     /* later page of a slab; head_delta finds the head */
	SHR_PAGE_LARGE,         /* first page of a large kmalloc */
};

/**
 * struct shr_page - metadata of one 4 KiB page (the kernel's struct page).
 * @lru:        buddy free list (page allocator) or a cache's partial list.
 * @owner:      slab and large pages: the struct shr_kmem_cache (slab) or
 *              NULL (large).
 * @freelist:   slab: first free object, NULL when the slab is full.
 * @inuse:      slab: objects allocated.
 * @head_delta: slab tail pages: this page's index minus the head's index.
 * @kind:       enum shr_page_kind.
 * @order:      buddy and allocated heads: order of the block.
 * @node:       node of the chunk (copied for speed).
 * @on_partial: slab: linked on its node's partial list.
 * @free_head:  1 when the page heads a block on a free list of its node.
 *
 * Sync: while a block is free, page allocator node lock. While allocated,
 * the owner's lock (slab: the cache's node lock). @kind, @owner, @order and
 * @head_delta of an allocated block are written before the block's memory is
 * handed out and are read without locks by whoever was handed a pointer into
 * it (the hand-over orders the accesses). @free_head is written and read
 * only under the page allocator's node lock, of free and allocated pages
 * alike: a free looks at its buddy's @free_head (and then @order) while the
 * buddy may be allocated and its owner writing @kind, so the buddy test
 * must not read @kind.
 */
struct shr_page {
	struct cds_list_head lru;
	void *owner;
	void *freelist;
	uint32_t inuse;
	uint32_t head_delta;
	uint8_t kind;
	uint8_t order;
	uint8_t node;
	uint8_t on_partial;
	uint8_t free_head;
};

struct shr_page_alloc;

/**
 * shr_page_alloc_create() - create a page allocator with @nr_nodes nodes;
 * with @prefault, every chunk's pages are mapped when it is added.
 *
 * Context: Any thread. Blocks.
 * Return: 0, -EINVAL (bad @nr_nodes), -ENOMEM.
 */
SHR_MUST_CHECK int shr_page_alloc_create(int nr_nodes, bool prefault,
				       struct shr_page_alloc **out);

/**
 * shr_page_alloc_destroy() - unmap every chunk; pages still out are lost.
 *
 * Context: No other thread may use @pa. Blocks.
 */
void shr_page_alloc_destroy(struct shr_page_alloc *pa);

/**
 * shr_alloc_pages_node() - allocate 2^@order contiguous pages on node @nid.
 * @zero: clear the memory (otherwise its contents are undefined).
 *
 * The head page's kind is SHR_PAGE_NONE and its order is @order; the caller
 * types it. Every other page of the block is SHR_PAGE_NONE.
 *
 * Context: Any thread; takes the node lock; may mmap a new chunk.
 * Return: the head page, or NULL (bad @nid or @order, out of memory).
 */
struct shr_page *shr_alloc_pages_node(struct shr_page_alloc *pa, int nid,
				      unsigned int order, bool zero);

/**
 * shr_free_pages() - give back a block from shr_alloc_pages_node().
 *
 * The caller must have reset every page of the block to SHR_PAGE_NONE
 * except the head, whose kind is overwritten here.
 *
 * Context: Any thread; takes the node lock.
 */
void shr_free_pages(struct shr_page_alloc *pa, struct shr_page *page, unsigned int order);

/**
 * shr_virt_to_page() - the page holding @addr.
 *
 * Context: Any thread; lock-free.
 * Return: the page's metadata, or NULL when @addr is not in a chunk of @pa.
 */
struct shr_page *shr_virt_to_page(struct shr_page_alloc *pa, const void *addr);

/** shr_page_address() - first byte of @page. Context: Any. */
static inline void *shr_page_address(const struct shr_page *page)
{
	uintptr_t chunk = (uintptr_t)page & ~(SHR_CHUNK_SIZE - 1);
	/* The metadata array starts SHR_CHUNK_META_OFFSET bytes into the chunk. */
	uintptr_t idx = ((uintptr_t)page - chunk - SHR_CHUNK_META_OFFSET) / sizeof(*page);

	return (void *)(chunk + (idx << SHR_PAGE_SHIFT));
}

/** shr_page_alloc_node_pages() - pages handed out from node @nid. Context: Any. */
unsigned long shr_page_alloc_node_pages(struct shr_page_alloc *pa, int nid);

#if defined(__SANITIZE_ADDRESS__)
#define SHR_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHR_ASAN 1
#endif
#endif

#ifdef SHR_ASAN
#include <sanitizer/asan_interface.h>
#endif

/* ASan poisoning helpers shared with slab.c; no-ops without ASan. */
static inline void shr_mem_poison(const void *addr, size_t len)
{
#ifdef SHR_ASAN
	ASAN_POISON_MEMORY_REGION(addr, len);
#else
	(void)addr;
	(void)len;
#endif
}

/* True if ASan knows @addr as poisoned (a free object); false without ASan. */
static inline bool shr_mem_is_poisoned(const void *addr)
{
#ifdef SHR_ASAN
	return __asan_address_is_poisoned(addr) != 0;
#else
	(void)addr;
	return false;
#endif
}

static inline void shr_mem_unpoison(const void *addr, size_t len)
{
#ifdef SHR_ASAN
	ASAN_UNPOISON_MEMORY_REGION(addr, len);
#else
	(void)addr;
	(void)len;
#endif
}

#endif /* SHR_PAGE_ALLOC_H */
