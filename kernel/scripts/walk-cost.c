// SPDX-License-Identifier: GPL-2.0
/*
 * walk-cost: the instructions of one shrink_slab_memcg() unit walk (one
 * memcg and node with no bit set: memcg reclaim's common case), on the
 * kernel's own lib/xarray.c, built with tools/testing/radix-tree's shims
 * (kernel/scripts/walk-cost builds and runs it under callgrind).
 *
 *   walk-cost NR_MAX_UNITS HIGH WALKS
 *
 * walk_array():       6.12's: every unit below shrinker_nr_max
 *                     (NR_MAX_UNITS of them, allocated), one word of
 *                     bitmap each, the info re-read under RCU per unit
 *                     (array-ondemand walks the same array)
 * walk_xa():          the XArray designs' xa_for_each() over a memcg's
 *                     units: index 0 and HIGH (on demand: the THP queue's
 *                     and the boot's shrinkers, and the memcg's own mount)
 * walk_xa_marked():   xa_for_each_marked(), every unit marked at insertion
 * walk_xas_marked():  one xa_state under the RCU read lock, left
 *                     (xas_pause()) only for a unit with a bit set
 * Each is called WALKS times; callgrind's inclusive Ir of each, divided by
 * WALKS, is the instructions of one walk. The kernel's rcu_read_lock() with
 * CONFIG_PREEMPT_NONE (the lab's config) costs no instruction: so here.
 */
#include <stdio.h>
#include <stdlib.h>
#include "xarray-shared.h"
#include <linux/xarray.h>

void radix_tree_init(void);

#define UNIT_BITS 64
#define MAX_UNITS 1024

struct unit {
	long nr_deferred[UNIT_BITS];
	unsigned long map[1];
};

struct info_array {
	int map_nr_max;
	struct unit *unit[MAX_UNITS];
};

static unsigned long sink;

static void visit(struct unit *u)
{
	unsigned long off;

	for (off = find_first_bit(u->map, UNIT_BITS); off < UNIT_BITS;
	     off = find_next_bit(u->map, UNIT_BITS, off + 1))
		sink += off;
}

noinline void walk_array(struct info_array *info)
{
	int index = 0;

	for (;;) {
		struct unit *u;

		rcu_read_lock();
		if (index >= info->map_nr_max / UNIT_BITS) {
			rcu_read_unlock();
			break;
		}
		u = info->unit[index];
		rcu_read_unlock();
		visit(u);
		index++;
	}
}

noinline void walk_xa(struct xarray *xa)
{
	unsigned long index;
	struct unit *u;

	xa_for_each(xa, index, u)
		visit(u);
}

noinline void walk_xa_marked(struct xarray *xa)
{
	unsigned long index;
	struct unit *u;

	xa_for_each_marked(xa, index, u, XA_MARK_0)
		visit(u);
}

noinline void walk_xas_marked(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	struct unit *u;

	rcu_read_lock();
	xas_for_each_marked(&xas, u, ULONG_MAX, XA_MARK_0) {
		if (xas_retry(&xas, u))
			continue;
		if (find_first_bit(u->map, UNIT_BITS) >= UNIT_BITS)
			continue;
		xas_pause(&xas);
		rcu_read_unlock();
		visit(u);
		rcu_read_lock();
	}
	rcu_read_unlock();
}

int main(int argc, char **argv)
{
	struct info_array *arr = calloc(1, sizeof(*arr));
	struct xarray xa, xm;
	int nr, high, walks, i;

	if (argc != 4 || !arr)
		return 2;
	nr = atoi(argv[1]);
	high = atoi(argv[2]);
	walks = atoi(argv[3]);
	if (nr < 1 || nr > MAX_UNITS || high < 0 || high >= nr || walks < 1)
		return 2;
	radix_tree_init();
	xa_init_flags(&xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&xm, XA_FLAGS_LOCK_IRQ);
	arr->map_nr_max = nr * UNIT_BITS;
	for (i = 0; i < nr; i++)
		arr->unit[i] = calloc(1, sizeof(struct unit));
	xa_store(&xa, 0, arr->unit[0], GFP_KERNEL);
	xa_store(&xa, high, arr->unit[high], GFP_KERNEL);
	xa_store(&xm, 0, arr->unit[0], GFP_KERNEL);
	xa_store(&xm, high, arr->unit[high], GFP_KERNEL);
	xa_set_mark(&xm, 0, XA_MARK_0);
	xa_set_mark(&xm, high, XA_MARK_0);
	for (i = 0; i < walks; i++) {
		walk_array(arr);
		walk_xa(&xa);
		walk_xa_marked(&xm);
		walk_xas_marked(&xm);
	}
	printf("%lu\n", sink);
	return 0;
}
