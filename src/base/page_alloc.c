/* SPDX-License-Identifier: MIT */
/*
 * Page allocator: a binary buddy allocator per logical NUMA node over
 * mmap'd chunks.
 *
 * Layout. Memory comes from chunks of SHR_CHUNK_SIZE (64 MiB) bytes, each
 * aligned to its own size (we map twice the size and unmap the unaligned
 * ends) and owned by one node for its whole life. The chunk starts with a
 * struct shr_chunk header followed by the metadata array of all its pages
 * (like the kernel's mem_map); the pages holding that array are
 * SHR_PAGE_RESERVED and never handed out. Hence:
 *   address -> chunk:  addr & ~(SHR_CHUNK_SIZE - 1)
 *   address -> page:   &chunk->pages[(addr - chunk) >> SHR_PAGE_SHIFT]
 *   page -> chunk:     (uintptr_t)page & ~(SHR_CHUNK_SIZE - 1)
 * all O(1). Metadata is not handed out, so it is never counted as slab.
 *
 * Ownership check. shr_virt_to_page() must reject addresses that are not in
 * one of our chunks without touching them, so the chunk bases are also kept
 * in an open-addressing hash table of atomics. Entries are only inserted
 * (under chunk_lock, with release stores) and never removed before destroy,
 * so lookups are lock-free acquire loads.
 *
 * Buddy invariants, per node, under the node lock:
 *   - a free block of order k starts at a page index that is a multiple of
 *     2^k inside its chunk; its head page is SHR_PAGE_BUDDY, free_head, with order k and
 *     is linked on free[k]; every other page of it is SHR_PAGE_NONE;
 *   - two free buddies of the same order never both sit on the free lists
 *     (freeing coalesces them up to SHR_MAX_PAGE_ORDER);
 *   - reserved pages are never BUDDY, so coalescing stops at them.
 * A chunk is 2^14 pages, more than 2^SHR_MAX_PAGE_ORDER, so a block never
 * crosses a chunk.
 *
 * Locking: one mutex per node (leaf: nothing else is taken under it except
 * chunk_lock when a chunk is added). Counters of pages handed out are
 * atomics written under the node lock, read by anyone.
 *
 * Pages are handed out without being cleared unless asked. Under ASan free
 * blocks are poisoned and unpoisoned when handed out.
 *
 * Prefault (optional, per allocator): a chunk's pages are all mapped when
 * the chunk is added, before anything else touches it, so allocations never
 * take a first-touch page fault, as the kernel's slab pages (always in the
 * direct map) never do. The lab uses it: the cost of such a fault on a
 * large process is the environment's, not the design's.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <shrinker/slab.h>

#include "lock.h"
#include "page_alloc.h"

#ifdef SHR_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#define CHUNK_MAGIC 0x73687243686e6b31ULL /* "shrChnk1" */
/* At most this many chunks (128 GiB) per allocator. */
#define MAX_CHUNKS 2048u
/* Hash table of chunk bases: a power of two, at least 2 * MAX_CHUNKS. */
#define CHUNK_TABLE_SIZE 4096u

_Static_assert(SHR_CHUNK_PAGES > (1u << SHR_MAX_PAGE_ORDER), "block must fit a chunk");
_Static_assert(SHR_MAX_NUMNODES <= 256, "node number is stored in a byte");

/**
 * struct shr_chunk - header at the start of every chunk.
 * @magic:   CHUNK_MAGIC.
 * @node:    owning node. Sync: immutable after init.
 * @nr_meta: reserved pages at the start. Sync: immutable after init.
 * @pages:   metadata of every page of the chunk, reserved ones included.
 */
struct shr_chunk {
	uint64_t magic;
	int node;
	unsigned int nr_meta;
	struct shr_page pages[] __attribute__((aligned(SHR_CHUNK_META_OFFSET)));
};

_Static_assert(offsetof(struct shr_chunk, pages) == SHR_CHUNK_META_OFFSET,
	       "shr_page_address() relies on the metadata offset");

/**
 * struct pa_node - one logical NUMA node.
 * @lock:      protects @free and the pages of this node's free blocks.
 * @free:      free blocks per order. Sync: @lock.
 * @pages_out: pages handed out. Sync: atomic, written under @lock.
 */
struct pa_node {
	struct shr_mutex lock; /* SHR_LOCK_PAGE_NODE */
	struct cds_list_head free[SHR_MAX_PAGE_ORDER + 1];
	atomic_ulong pages_out;
} __attribute__((aligned(64)));

/**
 * struct shr_page_alloc - one page allocator.
 * @nr_nodes:   Sync: immutable after init.
 * @chunk_lock: serialises adding chunks.
 * @nr_chunks:  Sync: @chunk_lock.
 * @chunks:     every chunk, for destroy. Sync: @chunk_lock.
 * @table:      chunk bases, open addressing. Sync: atomic; inserted under
 *              @chunk_lock with release, read with acquire.
 * @nodes:      per node state.
 */
struct shr_page_alloc {
	int nr_nodes;
	bool prefault; /* Sync: immutable. */
	struct shr_mutex chunk_lock; /* SHR_LOCK_PAGE_CHUNK */
	unsigned int nr_chunks;
	struct shr_chunk *chunks[MAX_CHUNKS];
	_Atomic uintptr_t table[CHUNK_TABLE_SIZE];
	struct pa_node nodes[];
};

static inline struct shr_chunk *page_chunk(const struct shr_page *page)
{
	return (struct shr_chunk *)((uintptr_t)page & ~(SHR_CHUNK_SIZE - 1));
}

static inline size_t page_index(const struct shr_page *page)
{
	return (size_t)(page - page_chunk(page)->pages);
}

static inline unsigned int table_hash(uintptr_t base)
{
	uint64_t h = (uint64_t)(base >> SHR_CHUNK_SHIFT) * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> 40) & (CHUNK_TABLE_SIZE - 1);
}

static bool table_contains(struct shr_page_alloc *pa, uintptr_t base)
{
	unsigned int i = table_hash(base);

	for (;;) {
		uintptr_t e = atomic_load_explicit(&pa->table[i], memory_order_acquire);

		if (e == base)
			return true;
		if (e == 0)
			return false;
		i = (i + 1) & (CHUNK_TABLE_SIZE - 1);
	}
}

/* Caller holds chunk_lock; the table is never more than half full. */
static void table_insert(struct shr_page_alloc *pa, uintptr_t base)
{
	unsigned int i = table_hash(base);

	shr_lock_assert_held(&pa->chunk_lock);
	while (atomic_load_explicit(&pa->table[i], memory_order_relaxed) != 0)
		i = (i + 1) & (CHUNK_TABLE_SIZE - 1);
	/* Pairs with the acquire load in table_contains(). */
	atomic_store_explicit(&pa->table[i], base, memory_order_release);
}

struct shr_page *shr_virt_to_page(struct shr_page_alloc *pa, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	uintptr_t base = a & ~(SHR_CHUNK_SIZE - 1);
	struct shr_chunk *chunk = (struct shr_chunk *)base;
	size_t idx;

	if (base == 0 || !table_contains(pa, base))
		return NULL;
	idx = (a - base) >> SHR_PAGE_SHIFT;
	if (idx < chunk->nr_meta)
		return NULL;
	return &chunk->pages[idx];
}

/* Caller holds the node lock. */
static void add_free_block(struct pa_node *n, struct shr_page *page, unsigned int order)
{
	shr_lock_assert_held(&n->lock);
	page->kind = SHR_PAGE_BUDDY;
	page->order = (uint8_t)order;
	page->free_head = 1;
	cds_list_add(&page->lru, &n->free[order]);
}

/* Map an aligned chunk; NULL on failure. */
static void *map_aligned_chunk(void)
{
	size_t len = 2 * SHR_CHUNK_SIZE;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t start, aligned;

	if (p == MAP_FAILED)
		return NULL;
	start = (uintptr_t)p;
	aligned = (start + SHR_CHUNK_SIZE - 1) & ~(SHR_CHUNK_SIZE - 1);
	if (aligned > start)
		munmap(p, aligned - start);
	if (aligned + SHR_CHUNK_SIZE < start + len)
		munmap((void *)(aligned + SHR_CHUNK_SIZE), start + len - aligned - SHR_CHUNK_SIZE);
	return (void *)aligned;
}

/*
 * Map every page of [@start, @start + @len) now. MADV_POPULATE_WRITE
 * (Linux 5.14+); where it is missing, write one byte per page (the memory
 * is fresh and zero, the write keeps it so). Runs before the range is
 * poisoned for ASan.
 */
static void prefault_range(char *start, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (!madvise(start, len, MADV_POPULATE_WRITE))
		return;
#endif
	for (size_t off = 0; off < len; off += SHR_PAGE_SIZE)
		((volatile char *)start)[off] = 0;
}

static unsigned int largest_block_order(size_t idx, size_t end)
{
	unsigned int order = SHR_MAX_PAGE_ORDER;

	while (order > 0 && ((idx & ((1UL << order) - 1)) || idx + (1UL << order) > end))
		order--;
	return order;
}

/* Add a new chunk to node @nid. Caller holds that node's lock. */
static int grow_node(struct shr_page_alloc *pa, int nid)
{
	struct pa_node *n = &pa->nodes[nid];
	size_t meta = offsetof(struct shr_chunk, pages) + SHR_CHUNK_PAGES * sizeof(struct shr_page);
	unsigned int nr_meta = (unsigned int)((meta + SHR_PAGE_SIZE - 1) >> SHR_PAGE_SHIFT);
	struct shr_chunk *chunk;
	size_t idx;

	shr_lock_assert_held(&n->lock);
	shr_mutex_lock(&pa->chunk_lock);
	if (pa->nr_chunks == MAX_CHUNKS) {
		shr_mutex_unlock(&pa->chunk_lock);
		return -ENOMEM;
	}
	chunk = map_aligned_chunk();
	if (!chunk) {
		shr_mutex_unlock(&pa->chunk_lock);
		return -ENOMEM;
	}
	if (pa->prefault)
		prefault_range((char *)chunk, SHR_CHUNK_SIZE);
	chunk->magic = CHUNK_MAGIC;
	chunk->node = nid;
	chunk->nr_meta = nr_meta;
	for (idx = 0; idx < SHR_CHUNK_PAGES; idx++)
		chunk->pages[idx].node = (uint8_t)nid;
	for (idx = 0; idx < nr_meta; idx++)
		chunk->pages[idx].kind = SHR_PAGE_RESERVED;
#ifdef SHR_ASAN
	__lsan_register_root_region((char *)chunk + ((size_t)nr_meta << SHR_PAGE_SHIFT),
				    SHR_CHUNK_SIZE - ((size_t)nr_meta << SHR_PAGE_SHIFT));
#endif
	shr_mem_poison((char *)chunk + ((size_t)nr_meta << SHR_PAGE_SHIFT),
		       SHR_CHUNK_SIZE - ((size_t)nr_meta << SHR_PAGE_SHIFT));
	for (idx = nr_meta; idx < SHR_CHUNK_PAGES;) {
		unsigned int order = largest_block_order(idx, SHR_CHUNK_PAGES);

		add_free_block(n, &chunk->pages[idx], order);
		idx += 1UL << order;
	}
	pa->chunks[pa->nr_chunks++] = chunk;
	table_insert(pa, (uintptr_t)chunk);
	shr_mutex_unlock(&pa->chunk_lock);
	return 0;
}

int shr_page_alloc_create(int nr_nodes, bool prefault, struct shr_page_alloc **out)
{
	struct shr_page_alloc *pa;

	if (nr_nodes < 1 || nr_nodes > SHR_MAX_NUMNODES)
		return -EINVAL;
	pa = aligned_alloc(64, sizeof(*pa) + (size_t)nr_nodes * sizeof(struct pa_node));
	if (!pa)
		return -ENOMEM;
	memset(pa, 0, sizeof(*pa) + (size_t)nr_nodes * sizeof(struct pa_node));
	pa->nr_nodes = nr_nodes;
	pa->prefault = prefault;
	shr_mutex_init(&pa->chunk_lock, SHR_LOCK_PAGE_CHUNK);
	for (int nid = 0; nid < nr_nodes; nid++) {
		struct pa_node *n = &pa->nodes[nid];

		shr_mutex_init(&n->lock, SHR_LOCK_PAGE_NODE);
		for (unsigned int o = 0; o <= SHR_MAX_PAGE_ORDER; o++)
			CDS_INIT_LIST_HEAD(&n->free[o]);
		atomic_init(&n->pages_out, 0);
	}
	*out = pa;
	return 0;
}

void shr_page_alloc_destroy(struct shr_page_alloc *pa)
{
	if (!pa)
		return;
	for (unsigned int i = 0; i < pa->nr_chunks; i++) {
		struct shr_chunk *chunk = pa->chunks[i];
		size_t meta_bytes = (size_t)chunk->nr_meta << SHR_PAGE_SHIFT;

		shr_mem_unpoison((char *)chunk + meta_bytes, SHR_CHUNK_SIZE - meta_bytes);
#ifdef SHR_ASAN
		__lsan_unregister_root_region((char *)chunk + meta_bytes,
					      SHR_CHUNK_SIZE - meta_bytes);
#endif
		munmap(chunk, SHR_CHUNK_SIZE);
	}
	for (int nid = 0; nid < pa->nr_nodes; nid++)
		shr_mutex_destroy(&pa->nodes[nid].lock);
	shr_mutex_destroy(&pa->chunk_lock);
	free(pa);
}

/* Caller holds the node lock. Returns NULL if no block of order >= @order. */
static struct shr_page *take_block(struct pa_node *n, unsigned int order)
{
	unsigned int o = order;
	struct shr_page *page;

	shr_lock_assert_held(&n->lock);
	while (o <= SHR_MAX_PAGE_ORDER && cds_list_empty(&n->free[o]))
		o++;
	if (o > SHR_MAX_PAGE_ORDER)
		return NULL;
	page = caa_container_of(n->free[o].next, struct shr_page, lru);
	cds_list_del(&page->lru);
	/* Split: the upper halves go back, the lower half is kept. */
	while (o > order) {
		o--;
		add_free_block(n, page + (1UL << o), o);
	}
	page->free_head = 0;
	page->kind = SHR_PAGE_NONE;
	page->order = (uint8_t)order;
	return page;
}

struct shr_page *shr_alloc_pages_node(struct shr_page_alloc *pa, int nid,
				      unsigned int order, bool zero)
{
	struct pa_node *n;
	struct shr_page *page;
	void *addr;

	if (nid < 0 || nid >= pa->nr_nodes || order > SHR_MAX_PAGE_ORDER)
		return NULL;
	n = &pa->nodes[nid];
	shr_mutex_lock(&n->lock);
	page = take_block(n, order);
	if (!page && grow_node(pa, nid) == 0)
		page = take_block(n, order);
	if (page)
		atomic_store_explicit(&n->pages_out,
				      atomic_load_explicit(&n->pages_out, memory_order_relaxed) +
				      (1UL << order), memory_order_relaxed);
	shr_mutex_unlock(&n->lock);
	if (!page)
		return NULL;
	addr = shr_page_address(page);
	shr_mem_unpoison(addr, SHR_PAGE_SIZE << order);
	if (zero)
		memset(addr, 0, SHR_PAGE_SIZE << order);
	return page;
}

void shr_free_pages(struct shr_page_alloc *pa, struct shr_page *page, unsigned int order)
{
	struct shr_chunk *chunk = page_chunk(page);
	struct pa_node *n = &pa->nodes[chunk->node];
	size_t idx = page_index(page);

	shr_mem_poison(shr_page_address(page), SHR_PAGE_SIZE << order);
	shr_mutex_lock(&n->lock);
	atomic_store_explicit(&n->pages_out,
			      atomic_load_explicit(&n->pages_out, memory_order_relaxed) -
			      (1UL << order), memory_order_relaxed);
	page->kind = SHR_PAGE_NONE;
	while (order < SHR_MAX_PAGE_ORDER) {
		struct shr_page *buddy = &chunk->pages[idx ^ (1UL << order)];

		/* free_head, not kind: see struct shr_page. */
		if (!buddy->free_head || buddy->order != order)
			break;
		cds_list_del(&buddy->lru);
		buddy->free_head = 0;
		buddy->kind = SHR_PAGE_NONE;
		idx &= ~(1UL << order);
		order++;
	}
	add_free_block(n, &chunk->pages[idx], order);
	shr_mutex_unlock(&n->lock);
}

unsigned long shr_page_alloc_node_pages(struct shr_page_alloc *pa, int nid)
{
	if (nid < 0 || nid >= pa->nr_nodes)
		return 0;
	return atomic_load_explicit(&pa->nodes[nid].pages_out, memory_order_relaxed);
}
