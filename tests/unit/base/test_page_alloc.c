/* SPDX-License-Identifier: MIT */
/*
 * The buddy page allocator (src/base/page_alloc.c) that slab.c sits on:
 * blocks are aligned to their size and disjoint, map back to their page
 * metadata and node, are counted per node, come from a new chunk only when
 * the old ones are used up, are cleared when asked, and coalesce again when
 * freed (every order-10 block of a chunk is whole after a random mix of
 * allocations was freed in random order). Bad nodes and orders are
 * refused. Replay with --seed N.
 *
 * Internal test (tests/meson.build): page_alloc.h is a src/base header.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/slab.h>

#include "harness.h"
#include "page_alloc.h"

#define MAX_BLOCKS 4096

struct block {
	struct shr_page *page;
	unsigned int order;
};

static uintptr_t chunk_of(const void *addr)
{
	return (uintptr_t)addr & ~(SHR_CHUNK_SIZE - 1);
}

static int cmp_addr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)shr_page_address(((const struct block *)a)->page);
	uintptr_t y = (uintptr_t)shr_page_address(((const struct block *)b)->page);

	return (x > y) - (x < y);
}

static void test_refusals(void **state)
{
	struct shr_page_alloc *pa;
	int local;

	(void)state;
	assert_int_equal(shr_page_alloc_create(0, false, &pa), -EINVAL);
	assert_int_equal(shr_page_alloc_create(SHR_MAX_NUMNODES + 1, false, &pa), -EINVAL);
	assert_int_equal(shr_page_alloc_create(2, false, &pa), 0);
	assert_null(shr_alloc_pages_node(pa, 2, 0, false));
	assert_null(shr_alloc_pages_node(pa, -1, 0, false));
	assert_null(shr_alloc_pages_node(pa, 0, SHR_MAX_PAGE_ORDER + 1, false));
	assert_null(shr_virt_to_page(pa, &local));
	assert_int_equal(shr_page_alloc_node_pages(pa, 2), 0);
	assert_int_equal(shr_page_alloc_node_pages(pa, 0), 0);
	shr_page_alloc_destroy(pa);
}

/* A random mix of orders on two nodes: each block aligned to its size in
 * its chunk, on its node, mapped back to its head page, disjoint from every
 * other; the per-node counters are the pages handed out. */
static void test_blocks_are_aligned_disjoint_and_counted(void **state)
{
	static struct block b[MAX_BLOCKS];
	struct shr_rng rng;
	struct shr_page_alloc *pa;
	unsigned long want[2] = { 0, 0 };
	size_t n = 600;

	(void)state;
	shr_rng_init(&rng, 1);
	assert_int_equal(shr_page_alloc_create(2, false, &pa), 0);
	for (size_t i = 0; i < n; i++) {
		int nid = (int)shr_rng_below(&rng, 2);
		unsigned int order = (unsigned int)shr_rng_below(&rng, 6);
		char *addr;

		b[i].order = order;
		b[i].page = shr_alloc_pages_node(pa, nid, order, false);
		assert_non_null(b[i].page);
		assert_int_equal(b[i].page->order, order);
		assert_int_equal(b[i].page->node, nid);
		assert_int_equal(b[i].page->kind, SHR_PAGE_NONE);
		addr = shr_page_address(b[i].page);
		assert_int_equal(((uintptr_t)addr - chunk_of(addr)) % (SHR_PAGE_SIZE << order), 0);
		assert_ptr_equal(shr_virt_to_page(pa, addr), b[i].page);
		assert_ptr_equal(shr_virt_to_page(pa, addr + (SHR_PAGE_SIZE << order) - 1),
				 b[i].page + (1UL << order) - 1);
		memset(addr, (int)i, SHR_PAGE_SIZE << order); /* it is real memory */
		want[nid] += 1UL << order;
	}
	assert_int_equal(shr_page_alloc_node_pages(pa, 0), want[0]);
	assert_int_equal(shr_page_alloc_node_pages(pa, 1), want[1]);
	qsort(b, n, sizeof(b[0]), cmp_addr);
	for (size_t i = 1; i < n; i++) {
		uintptr_t end = (uintptr_t)shr_page_address(b[i - 1].page) +
				(SHR_PAGE_SIZE << b[i - 1].order);

		if (end > (uintptr_t)shr_page_address(b[i].page))
			fail_msg("blocks %zu and %zu overlap", i - 1, i);
	}
	for (size_t i = 0; i < n; i++)
		shr_free_pages(pa, b[i].page, b[i].order);
	assert_int_equal(shr_page_alloc_node_pages(pa, 0), 0);
	assert_int_equal(shr_page_alloc_node_pages(pa, 1), 0);
	shr_page_alloc_destroy(pa);
}

/* Order-10 blocks the allocator hands out before it maps a chunk other
 * than @c[0..n) (each block is freed again at once). */
static size_t whole_blocks_within(struct shr_page_alloc *pa, const uintptr_t *c, size_t n)
{
	static struct block got[MAX_BLOCKS];
	size_t k = 0;

	for (;;) {
		struct shr_page *p = shr_alloc_pages_node(pa, 0, SHR_MAX_PAGE_ORDER, false);
		uintptr_t base;
		bool known = false;

		assert_non_null(p);
		base = chunk_of(shr_page_address(p));
		for (size_t i = 0; i < n; i++)
			known |= base == c[i];
		if (!known) {
			shr_free_pages(pa, p, SHR_MAX_PAGE_ORDER);
			break;
		}
		assert_true(k < MAX_BLOCKS);
		got[k].page = p;
		got[k++].order = SHR_MAX_PAGE_ORDER;
	}
	for (size_t i = 0; i < k; i++)
		shr_free_pages(pa, got[i].page, got[i].order);
	return k;
}

/*
 * A fresh chunk holds W whole order-10 blocks (its metadata takes the first
 * pages). Split the first chunk into a random mix of orders until it is
 * full (the next block comes from a second chunk: free it again), free
 * everything in a random order, and both chunks are whole again: 2W
 * order-10 blocks before a third chunk is needed.
 */
static void test_freed_buddies_coalesce_back_to_whole_blocks(void **state)
{
	static struct block small[MAX_BLOCKS * 4];
	struct shr_rng rng;
	struct shr_page_alloc *pa;
	struct shr_page *first_page;
	uintptr_t chunks[2];
	size_t whole, nsmall = 0;

	(void)state;
	shr_rng_init(&rng, 2);
	assert_int_equal(shr_page_alloc_create(1, false, &pa), 0);
	first_page = shr_alloc_pages_node(pa, 0, 0, false);
	assert_non_null(first_page);
	chunks[0] = chunk_of(shr_page_address(first_page));
	shr_free_pages(pa, first_page, 0);
	whole = whole_blocks_within(pa, chunks, 1);
	assert_true(whole >= 8);
	shr_page_alloc_destroy(pa);

	assert_int_equal(shr_page_alloc_create(1, false, &pa), 0);
	for (;;) {
		unsigned int order = (unsigned int)shr_rng_below(&rng, 4);
		struct shr_page *p = shr_alloc_pages_node(pa, 0, order, false);

		assert_non_null(p);
		if (!nsmall)
			chunks[0] = chunk_of(shr_page_address(p));
		if (chunk_of(shr_page_address(p)) != chunks[0]) {
			chunks[1] = chunk_of(shr_page_address(p));
			shr_free_pages(pa, p, order);
			break;
		}
		assert_true(nsmall < MAX_BLOCKS * 4);
		small[nsmall].page = p;
		small[nsmall++].order = order;
	}
	for (size_t i = nsmall; i > 1; i--) {
		size_t j = (size_t)shr_rng_below(&rng, i);
		struct block t = small[i - 1];

		small[i - 1] = small[j];
		small[j] = t;
	}
	for (size_t i = 0; i < nsmall; i++)
		shr_free_pages(pa, small[i].page, small[i].order);
	assert_int_equal(shr_page_alloc_node_pages(pa, 0), 0);
	if (whole_blocks_within(pa, chunks, 2) != 2 * whole)
		fail_msg("after %zu blocks were freed, the two chunks do not hold %zu whole "
			 "order-10 blocks: buddies were not merged", nsmall, 2 * whole);
	shr_page_alloc_destroy(pa);
}

/* Every page of a chunk written, freed, then handed out again cleared when
 * asked (and the allocator grows a new chunk once the first is full). */
static void test_zeroed_blocks_are_clear(void **state)
{
	static struct block pages[SHR_CHUNK_PAGES];
	struct shr_page_alloc *pa;
	uintptr_t first = 0;
	size_t n = 0;
	unsigned char *z;

	(void)state;
	assert_int_equal(shr_page_alloc_create(1, true, &pa), 0);
	for (;;) {
		struct shr_page *p = shr_alloc_pages_node(pa, 0, 0, false);

		assert_non_null(p);
		if (!first)
			first = chunk_of(shr_page_address(p));
		if (chunk_of(shr_page_address(p)) != first) {
			shr_free_pages(pa, p, 0);
			break;
		}
		assert_true(n < SHR_CHUNK_PAGES);
		memset(shr_page_address(p), 0xa5, SHR_PAGE_SIZE);
		pages[n++].page = p;
	}
	assert_true(n > SHR_CHUNK_PAGES / 2);
	for (size_t i = 0; i < n; i++)
		shr_free_pages(pa, pages[i].page, 0);
	for (unsigned int order = 0; order <= 4; order++) {
		struct shr_page *p = shr_alloc_pages_node(pa, 0, order, true);

		assert_non_null(p);
		assert_int_equal(chunk_of(shr_page_address(p)), first);
		z = shr_page_address(p);
		for (size_t k = 0; k < (SHR_PAGE_SIZE << order); k++)
			if (z[k])
				fail_msg("order %u block byte %zu is 0x%02x", order, k, z[k]);
		shr_free_pages(pa, p, order);
	}
	shr_page_alloc_destroy(pa);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_blocks_are_aligned_disjoint_and_counted),
		cmocka_unit_test(test_freed_buddies_coalesce_back_to_whole_blocks),
		cmocka_unit_test(test_zeroed_blocks_are_clear),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("page_alloc", tests);
}
