/* SPDX-License-Identifier: MIT */
/*
 * XArray: a radix tree of SHR_XA_CHUNK_SIZE-slot nodes with lockless readers.
 *
 * Coding conventions in this file: @xa is the array, @node a tree node,
 * @off a slot offset inside a node, @index an array index, @mark a mark
 * number (0..SHR_XA_MAX_MARKS-1), @entry what a slot holds.
 *
 * 1. Entry encoding (low two bits of a slot or of xa_head)
 *    x1  value entry (shr_xa_mk_value), user data;
 *    00  pointer entry, user data (NULL = empty);
 *    10  internal entry, never user data:
 *        - a node pointer: the node address (at least 8-byte aligned, above
 *          4096) with bit 1 set;
 *        - RETRY (internal value 256): written into every slot of a node
 *          that leaves the tree, so a reader still inside it restarts;
 *        - error entries (negative errno << 2 | 2), only ever returned by
 *          store-like functions, never stored.
 *    The store functions reject internal entries with -EINVAL.
 *
 * 2. Shape and invariants (all under xa_lock)
 *    - xa_head is NULL, a user entry (then it is the entry at index 0 and
 *      there is no node), or the root node.
 *    - A node at height h has shift = h * SHR_XA_CHUNK_SHIFT; slot @off of a
 *      node covers indices [base + (off << shift), base + ((off + 1) << shift)).
 *      Slots of a shift-0 node (a leaf) hold user entries; slots of higher
 *      nodes hold NULL or child nodes, never user entries.
 *    - node->count is the number of non-NULL slots. A node with count 0
 *      exists only inside one writer's critical section: it is removed (and
 *      its parents, if they become empty) before xa_lock is dropped.
 *    - The root never has count == 1 with only slot 0 used once a writer
 *      is done (it collapses: slot 0's content becomes the head), so an
 *      index is always reached through the minimum number of nodes.
 *    - node->parent/offset locate the node in its parent (NULL/0 for the
 *      root). Only writers read them; readers only go down the tree.
 *    - node->shift never changes after publication; readers rely on that.
 *
 * 3. Publication order (readers: rcu_dereference of xa_head and slots)
 *    A new node is fully initialised (shift, marks, slots with
 *    SHR_RCU_INIT_POINTER, which is fine because nobody can see it yet) and
 *    only then published with shr_rcu_assign_pointer(), whose release
 *    ordering pairs with the shr_rcu_dereference() by which a reader loads
 *    the slot or head that points to it. The same release/dependency pair
 *    publishes user entries, so a reader that finds an entry also sees the
 *    caller's initialisation of the object it points to.
 *
 * 4. Node removal and concurrent readers
 *    A node leaves the tree in two ways: it became empty (its parent slot is
 *    set to NULL), or it was the root with only slot 0 in use (the head now
 *    points to slot 0's content). In both cases the writer first makes the
 *    node unreachable for new readers, then stores RETRY into each of its
 *    slots ("poisoning" it), then queues it with shr_call_rcu(). A reader
 *    that entered the node before that sees either the old slot contents
 *    (still valid: nothing they point to is freed before the grace period)
 *    or RETRY, on which it restarts its walk from xa_head. Readers never
 *    follow parent pointers, so a node that is gone from the tree can only
 *    be left downward, and the walk from xa_head is always of the current
 *    tree. Nodes are freed in the RCU callback, never earlier, so a reader's
 *    node pointer stays dereferenceable for its whole read-side section.
 *    The callback frees to node->free_cache, so it does not touch the
 *    shr_xarray itself, which may be gone by then.
 *
 * 5. Marks
 *    Each node has one bitmap per mark. Bit @off of mark m is set iff slot
 *    @off is a leaf entry with mark m, or a child node with any bit of mark
 *    m set ("summarised upward"). For the head, bit m of xa_flags
 *    (XA_FLAGS_HEAD_MARK) holds the same summary: the root has any bit of m,
 *    or, for a lone entry at index 0, that entry has mark m. Writers change
 *    bits with relaxed atomics under xa_lock and fix the summaries upward
 *    until a level does not change. Readers read marks with relaxed atomic
 *    loads; no ordering is needed beyond the slot dereference that follows,
 *    because a mark read concurrently with its change may legitimately see
 *    either value, and the entry is re-read from its slot before use.
 *    Marks of a removed node are left as they were: a marked walk inside it
 *    then reads the slot and finds RETRY.
 *
 * 6. Free tracking (SHR_XA_FLAGS_ALLOC)
 *    Mark 0 becomes the "free" mark: in a leaf, bit set iff the slot is
 *    NULL; in a higher node, bit set iff the slot is NULL or the child has
 *    any free bit. New nodes start with every free bit set; storing into a
 *    NULL slot clears its bit, erasing sets it, both propagated with the
 *    same "any child bit" rule as user marks. The head bit says whether the
 *    range the head covers has a free index (an empty array: yes; a lone
 *    entry at 0: no). Indices beyond the root's range are free by
 *    definition, so shr_xa_alloc() looks in the tree first and otherwise
 *    takes the first index past its capacity.
 *
 * 7. Memory and -ENOMEM
 *    Nodes come from the slab cache given at init, allocated with xa_lock
 *    held (xa_lock ranks above the slab locks). A store first computes
 *    exactly how many nodes it needs (tree growth on top plus the missing
 *    nodes on the path down, nodes_needed()) and allocates them all into a
 *    private pool before touching the tree. If one allocation fails, the
 *    pool is freed (those nodes were never visible) and -ENOMEM returned:
 *    the array is unchanged. Otherwise the update cannot fail.
 *    xa_nr_nodes counts nodes in the tree, for memory attribution.
 */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include <shrinker/slab.h>
#include <shrinker/xarray.h>

#include "debug.h"
#include "lock.h"
#include "race.h"
#include "rcu.h"

#ifndef SHR_XA_CHUNK_SHIFT
#define SHR_XA_CHUNK_SHIFT 6
#endif

#define SHR_XA_CHUNK_SIZE (1UL << SHR_XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK (SHR_XA_CHUNK_SIZE - 1)
#define XA_BITS_PER_LONG ((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define XA_MARK_LONGS ((SHR_XA_CHUNK_SIZE + XA_BITS_PER_LONG - 1) / XA_BITS_PER_LONG)
/* Most nodes on one root-to-leaf path. */
#define XA_MAX_HEIGHT ((XA_BITS_PER_LONG + SHR_XA_CHUNK_SHIFT - 1) / SHR_XA_CHUNK_SHIFT)
/* Most nodes one store can need: growth on top plus a new path below. */
#define XA_MAX_PREALLOC (2 * XA_MAX_HEIGHT)

_Static_assert(SHR_XA_CHUNK_SHIFT >= 2 && SHR_XA_CHUNK_SHIFT <= 6,
	      "SHR_XA_CHUNK_SHIFT must be in [2, 6]");
_Static_assert(SHR_XA_CHUNK_SIZE <= 255, "node count/offset are unsigned char");
_Static_assert(SHR_XA_MAX_MARKS <= 8, "head mark bits must fit in xa_flags");

/* Head-level summary of mark m in xa_flags. */
#define XA_FLAGS_HEAD_MARK(m) (1u << (16u + (m)))
#define XA_FLAGS_HEAD_MARKS (((1u << SHR_XA_MAX_MARKS) - 1u) << 16u)
/* Mark used for free tracking in SHR_XA_FLAGS_ALLOC arrays. */
#define XA_FREE_MARK SHR_XA_MARK_0

/* Internal values 0..4095 are reserved for special entries (below nodes). */
#define XA_RETRY_VALUE 256UL
#define XA_NODE_MIN_ADDR 4096UL
/* Written over ->parent of a retired node, to catch use after removal. */
#define XA_PARENT_POISON ((struct xa_node *)(uintptr_t)0xdead4ead0000a000ULL)

/**
 * struct xa_node - one node of the tree.
 */
struct xa_node {
	/* Bits of the index below this node's slots. Sync: immutable once
	 * published (readers use it). */
	unsigned char shift;
	/* Slot of this node in its parent. Sync: xa_lock. */
	unsigned char offset;
	/* Non-NULL slots. Sync: xa_lock. */
	unsigned char count;
	/* Parent node, NULL for the root. Sync: xa_lock (readers never use it). */
	struct xa_node *parent;
	union {
		/* Owning array while in the tree. Sync: xa_lock. */
		struct shr_xarray *array;
		/* Cache to free to, once retired. Sync: set before call_rcu. */
		struct shr_kmem_cache *free_cache;
	};
	/* For the deferred free. */
	struct rcu_head rcu;
	/* Entries or child nodes. Sync: RCU; written under xa_lock. */
	void *SHR_RCU slots[SHR_XA_CHUNK_SIZE];
	/* Mark bitmaps. Sync: atomic; written under xa_lock. */
	atomic_ulong marks[SHR_XA_MAX_MARKS][XA_MARK_LONGS];
};

/* Nodes allocated ahead of an update, so the update itself cannot fail. */
struct node_pool {
	unsigned int nr;
	struct xa_node *nodes[XA_MAX_PREALLOC];
};

/* ---- entry encoding ---------------------------------------------------- */

static inline void *mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2UL);
}

static inline bool is_internal(const void *entry)
{
	return ((uintptr_t)entry & 3UL) == 2UL;
}

static inline void *retry_entry(void)
{
	return mk_internal(XA_RETRY_VALUE);
}

static inline bool is_retry(const void *entry)
{
	return entry == retry_entry();
}

static inline bool is_node(const void *entry)
{
	return is_internal(entry) && (uintptr_t)entry > XA_NODE_MIN_ADDR;
}

static inline struct xa_node *to_node(const void *entry)
{
	return (struct xa_node *)((uintptr_t)entry - 2UL);
}

static inline void *mk_node(const struct xa_node *node)
{
	return (void *)((uintptr_t)node | 2UL);
}

/* -@err must be in 1..4095; computed in unsigned arithmetic (no UB). */
static inline void *mk_err(int err)
{
	return (void *)((((unsigned long)0 - (unsigned long)(-err)) << 2) | 2UL);
}

/* ---- index arithmetic -------------------------------------------------- */

/* Mask of the index bits covered by a node of @shift (its span - 1). */
static unsigned long node_span_mask(unsigned int shift)
{
	if (shift + SHR_XA_CHUNK_SHIFT >= XA_BITS_PER_LONG)
		return ULONG_MAX;
	return (1UL << (shift + SHR_XA_CHUNK_SHIFT)) - 1;
}

/* Whether @index lies within the range a root of @shift covers. */
static bool index_fits(unsigned long index, unsigned int shift)
{
	return (index >> shift) <= XA_CHUNK_MASK;
}

static unsigned int index_offset(unsigned long index, unsigned int shift)
{
	return (unsigned int)((index >> shift) & XA_CHUNK_MASK);
}

/* Number of tree levels needed so that @index is reachable (>= 1). */
static unsigned int levels_for(unsigned long index)
{
	unsigned int h = 1;

	while (h * SHR_XA_CHUNK_SHIFT < XA_BITS_PER_LONG &&
	       (index >> (h * SHR_XA_CHUNK_SHIFT)) != 0)
		h++;
	return h;
}

static unsigned int node_height(const struct xa_node *node)
{
	return node->shift / SHR_XA_CHUNK_SHIFT + 1;
}

/* ---- mark bitmaps ------------------------------------------------------ */

static bool node_get_mark(const struct xa_node *node, unsigned int off, shr_xa_mark_t mark)
{
	unsigned long w = atomic_load_explicit(&node->marks[mark][off / XA_BITS_PER_LONG],
					       memory_order_relaxed);

	return (w >> (off % XA_BITS_PER_LONG)) & 1UL;
}

static void node_set_mark(struct xa_node *node, unsigned int off, shr_xa_mark_t mark)
{
	atomic_fetch_or_explicit(&node->marks[mark][off / XA_BITS_PER_LONG],
				 1UL << (off % XA_BITS_PER_LONG), memory_order_relaxed);
}

static void node_clear_mark(struct xa_node *node, unsigned int off, shr_xa_mark_t mark)
{
	atomic_fetch_and_explicit(&node->marks[mark][off / XA_BITS_PER_LONG],
				  ~(1UL << (off % XA_BITS_PER_LONG)), memory_order_relaxed);
}

static void node_assign_mark(struct xa_node *node, unsigned int off, shr_xa_mark_t mark,
			     bool on)
{
	if (on)
		node_set_mark(node, off, mark);
	else
		node_clear_mark(node, off, mark);
}

/* A node of an allocating array, not yet visible to readers: every slot free. */
static void node_mark_all_free(struct xa_node *node)
{
	for (unsigned int i = 0; i < XA_MARK_LONGS; i++) {
		unsigned int first = i * XA_BITS_PER_LONG;
		unsigned int bits = SHR_XA_CHUNK_SIZE - first;
		unsigned long w = bits >= XA_BITS_PER_LONG ? ~0UL : (1UL << bits) - 1;

		atomic_store_explicit(&node->marks[XA_FREE_MARK][i], w, memory_order_relaxed);
	}
}

static bool node_any_mark(const struct xa_node *node, shr_xa_mark_t mark)
{
	for (unsigned int i = 0; i < XA_MARK_LONGS; i++)
		if (atomic_load_explicit(&node->marks[mark][i], memory_order_relaxed))
			return true;
	return false;
}

/* First offset >= @off whose @mark bit is set, or SHR_XA_CHUNK_SIZE. */
static unsigned int node_next_mark(const struct xa_node *node, unsigned int off,
				   shr_xa_mark_t mark)
{
	while (off < SHR_XA_CHUNK_SIZE) {
		unsigned int bit = off % XA_BITS_PER_LONG;
		unsigned long w = atomic_load_explicit(&node->marks[mark][off / XA_BITS_PER_LONG],
						       memory_order_relaxed) >> bit;

		if (w)
			return off + (unsigned int)__builtin_ctzl(w);
		off += XA_BITS_PER_LONG - bit;
	}
	return SHR_XA_CHUNK_SIZE;
}

/* xa_flags, as readers (any thread) and the writer (xa_lock) read it. */
static unsigned int xa_flags(const struct shr_xarray *xa)
{
	return atomic_load_explicit(&xa->xa_flags, memory_order_relaxed);
}

/* Writers only (xa_lock): readers may load xa_flags concurrently. */
static void xa_flags_set(struct shr_xarray *xa, unsigned int flags)
{
	atomic_store_explicit(&xa->xa_flags, flags, memory_order_relaxed);
}

/* Writers only (xa_lock): one node more (@delta 1) or fewer (-1). */
static void xa_nr_nodes_add(struct shr_xarray *xa, long delta)
{
	unsigned long nr = atomic_load_explicit(&xa->xa_nr_nodes, memory_order_relaxed);

	atomic_store_explicit(&xa->xa_nr_nodes, nr + (unsigned long)delta, memory_order_relaxed);
}

static bool is_alloc_array(const struct shr_xarray *xa)
{
	return (xa_flags(xa) & SHR_XA_FLAGS_ALLOC) != 0;
}

static bool head_get_mark(const struct shr_xarray *xa, shr_xa_mark_t mark)
{
	return (xa_flags(xa) & XA_FLAGS_HEAD_MARK(mark)) != 0;
}

/* Writers only (xa_lock). */
static void head_assign_mark(struct shr_xarray *xa, shr_xa_mark_t mark, bool on)
{
	unsigned int flags = xa_flags(xa);

	if (on)
		flags |= XA_FLAGS_HEAD_MARK(mark);
	else
		flags &= ~XA_FLAGS_HEAD_MARK(mark);
	xa_flags_set(xa, flags);
}

/* Whether @mark is a user mark the caller may set, clear or search for. */
static bool user_mark_ok(const struct shr_xarray *xa, shr_xa_mark_t mark)
{
	if (mark >= SHR_XA_MAX_MARKS)
		return false;
	return !(mark == XA_FREE_MARK && is_alloc_array(xa));
}

/*
 * Re-derive the summary of @mark above @node after a bit of @node changed:
 * walk up while the parent's bit disagrees with "any bit in the child".
 */
static void mark_propagate(struct shr_xarray *xa, struct xa_node *node, shr_xa_mark_t mark)
{
	while (node) {
		bool any = node_any_mark(node, mark);
		struct xa_node *parent = node->parent;

		if (!parent) {
			head_assign_mark(xa, mark, any);
			return;
		}
		if (node_get_mark(parent, node->offset, mark) == any)
			return;
		node_assign_mark(parent, node->offset, mark, any);
		node = parent;
	}
}

/* Set or clear @mark on slot @off of @node (or on the head if !@node). */
static void slot_assign_mark(struct shr_xarray *xa, struct xa_node *node, unsigned int off,
			     shr_xa_mark_t mark, bool on)
{
	if (!node) {
		head_assign_mark(xa, mark, on);
		return;
	}
	if (node_get_mark(node, off, mark) == on)
		return;
	node_assign_mark(node, off, mark, on);
	mark_propagate(xa, node, mark);
}

/* ---- node allocation and retirement ------------------------------------ */

size_t shr_xa_node_size(void)
{
	return sizeof(struct xa_node);
}

static void pool_free(struct shr_xarray *xa, struct node_pool *pool)
{
	while (pool->nr)
		shr_kmem_cache_free(xa->xa_node_cache, pool->nodes[--pool->nr]);
}

/* Allocate @nr zeroed nodes into @pool; on failure free them all. */
static int pool_fill(struct shr_xarray *xa, struct node_pool *pool, unsigned int nr,
		     shr_gfp_t gfp)
{
	SHR_BUG_ON(nr > XA_MAX_PREALLOC);
	pool->nr = 0;
	while (pool->nr < nr) {
		struct xa_node *node = shr_kmem_cache_alloc_node(xa->xa_node_cache, xa->xa_nid,
								 gfp | SHR_GFP_ZERO);

		if (!node) {
			pool_free(xa, pool);
			return -ENOMEM;
		}
		pool->nodes[pool->nr++] = node;
	}
	return 0;
}

/*
 * Take a node from @pool and initialise it as an empty node of @shift whose
 * parent will be @parent at @off. Not yet visible to readers.
 */
static struct xa_node *node_take(struct shr_xarray *xa, struct node_pool *pool,
				 unsigned int shift, struct xa_node *parent, unsigned int off)
{
	struct xa_node *node;

	SHR_BUG_ON(pool->nr == 0);
	node = pool->nodes[--pool->nr];
	node->shift = (unsigned char)shift;
	node->offset = (unsigned char)off;
	node->count = 0;
	node->parent = parent;
	node->array = xa;
	if (is_alloc_array(xa))
		node_mark_all_free(node);
	xa_nr_nodes_add(xa, 1);
	return node;
}

static void node_free_rcu(struct rcu_head *head)
{
	struct xa_node *node;

	shr_rcu_callback_enter(head);
	node = caa_container_of(head, struct xa_node, rcu);
	shr_kmem_cache_free(node->free_cache, node);
	shr_rcu_callback_exit();
}

/*
 * @node is already unreachable from xa_head: poison its slots with RETRY so
 * readers still inside restart, and free it after a grace period.
 */
static void node_retire(struct shr_xarray *xa, struct xa_node *node)
{
	/* Readers already inside still see the old slots. */
	shr_race_point(SHR_RACE_XA_NODE_RETIRE);
	/* Pairs with the shr_rcu_dereference() of a slot in walk_rcu() and
	 * scan_node(): a reader sees the old content or RETRY. */
	for (unsigned int i = 0; i < SHR_XA_CHUNK_SIZE; i++)
		shr_rcu_assign_pointer(node->slots[i], retry_entry());
	node->parent = XA_PARENT_POISON;
	node->free_cache = xa->xa_node_cache;
	xa_nr_nodes_add(xa, -1);
	shr_call_rcu(&node->rcu, node_free_rcu);
}

/* ---- init / destroy / trivial queries ---------------------------------- */

void shr_xa_init(struct shr_xarray *xa, struct shr_kmem_cache *node_cache, int nid,
		 unsigned int flags)
{
	flags &= SHR_XA_FLAGS_ALLOC;
	/* An empty array: index 0 is free. */
	if (flags)
		flags |= XA_FLAGS_HEAD_MARK(XA_FREE_MARK);
	pthread_mutex_init(&xa->xa_lock, NULL);
	xa->xa_head = NULL;
	atomic_init(&xa->xa_flags, flags);
	atomic_init(&xa->xa_nr_nodes, 0);
	xa->xa_node_cache = node_cache;
	xa->xa_nid = nid;
}

/* xa_lock is a plain mutex (the public struct has one layout in every
 * build); the checker still knows it as SHR_LOCK_XA (lock.h). */
void shr_xa_lock(struct shr_xarray *xa)
{
	shr_lockdep_acquire(&xa->xa_lock, SHR_LOCK_XA, false);
	pthread_mutex_lock(&xa->xa_lock);
}

void shr_xa_unlock(struct shr_xarray *xa)
{
	shr_lockdep_release(&xa->xa_lock);
	pthread_mutex_unlock(&xa->xa_lock);
}

/* Retire @node and every node below it (already unreachable). */
static void subtree_retire(struct shr_xarray *xa, struct xa_node *node)
{
	if (node->shift > 0) {
		for (unsigned int i = 0; i < SHR_XA_CHUNK_SIZE; i++) {
			void *entry = node->slots[i];

			if (is_node(entry))
				subtree_retire(xa, to_node(entry));
		}
	}
	node_retire(xa, node);
}

/* Empty head: user marks clear, index 0 free. */
static void head_reset_marks(struct shr_xarray *xa)
{
	unsigned int flags = xa_flags(xa) & ~XA_FLAGS_HEAD_MARKS;

	if (flags & SHR_XA_FLAGS_ALLOC)
		flags |= XA_FLAGS_HEAD_MARK(XA_FREE_MARK);
	xa_flags_set(xa, flags);
}

void shr_xa_destroy(struct shr_xarray *xa)
{
	void *head;

	shr_xa_lock(xa);
	head = xa->xa_head;
	/* Unpublish first (pairs with the readers' shr_rcu_dereference of
	 * xa_head), then poison and queue the nodes. */
	shr_rcu_assign_pointer(xa->xa_head, NULL);
	head_reset_marks(xa);
	if (is_node(head))
		subtree_retire(xa, to_node(head));
	shr_xa_unlock(xa);
}

bool shr_xa_empty(const struct shr_xarray *xa)
{
	return shr_rcu_access_pointer(xa->xa_head) == NULL;
}

unsigned long shr_xa_nr_nodes(const struct shr_xarray *xa)
{
	return atomic_load_explicit(&xa->xa_nr_nodes, memory_order_relaxed);
}

bool shr_xa_marked(const struct shr_xarray *xa, shr_xa_mark_t mark)
{
	if (!user_mark_ok(xa, mark))
		return false;
	return head_get_mark(xa, mark);
}

/* ---- readers ----------------------------------------------------------- */

/*
 * Walk down to the leaf slot of @index. Caller holds the RCU read lock.
 * Returns the entry (NULL if none) and, through @nodep/@offp, where it is
 * (*@nodep NULL: the head). Restarts from xa_head on RETRY.
 *
 * Each shr_rcu_dereference() pairs with the shr_rcu_assign_pointer() that
 * published what it reads: a node in grow_locked()/descend_create(), an
 * entry in store_prepared(), RETRY in node_retire(). The node it leads to
 * is therefore seen fully initialised (shift, slots, marks).
 */
static void *walk_rcu(struct shr_xarray *xa, unsigned long index, struct xa_node **nodep,
		      unsigned int *offp)
{
	void *entry;

restart:
	entry = shr_rcu_dereference(xa->xa_head);
	*nodep = NULL;
	*offp = 0;
	if (!is_node(entry))
		return index == 0 ? entry : NULL;
	if (!index_fits(index, to_node(entry)->shift))
		return NULL;
	while (is_node(entry)) {
		struct xa_node *node = to_node(entry);
		unsigned int off = index_offset(index, node->shift);

		/* The node may be retired meanwhile: its slot then reads RETRY. */
		shr_race_point(SHR_RACE_XA_READER_DESCEND);
		entry = shr_rcu_dereference(node->slots[off]);
		if (is_retry(entry))
			goto restart;
		*nodep = node;
		*offp = off;
	}
	return entry;
}

void *shr_xa_load(struct shr_xarray *xa, unsigned long index)
{
	struct xa_node *node;
	unsigned int off;
	void *entry;

	shr_rcu_read_lock();
	entry = walk_rcu(xa, index, &node, &off);
	shr_rcu_read_unlock();
	return entry;
}

bool shr_xa_get_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark)
{
	struct xa_node *node;
	unsigned int off;
	bool ret = false;

	if (!user_mark_ok(xa, mark))
		return false;
	shr_rcu_read_lock();
	if (walk_rcu(xa, index, &node, &off))
		ret = node ? node_get_mark(node, off, mark) : head_get_mark(xa, mark);
	shr_rcu_read_unlock();
	return ret;
}

/*
 * What a scan looks for: entries (present or with a mark), or, for
 * shr_xa_alloc(), free indices.
 */
struct scan {
	unsigned long max;
	shr_xa_mark_t filter; /* a mark, or SHR_XA_PRESENT */
	bool want_free;       /* filter is the free mark; hits are NULL slots */
	unsigned long index;  /* result */
	void *entry;          /* result (NULL for a free hit) */
};

enum scan_step {
	SCAN_FOUND,   /* result in the scan */
	SCAN_NONE,    /* nothing at or after the index, up to max */
	SCAN_DESCEND, /* continue in a child node */
	SCAN_NEXT,    /* node exhausted: restart from the head at *indexp */
	SCAN_RETRY,   /* hit a retired node: restart at the same index */
};

/*
 * Next slot of @node at or after @off that may hold a hit. For present
 * entries, NULL slots are stepped over here, a load each: a NULL slot is
 * no hit, no child and no RETRY, and the bounds scan_node() checks for the
 * slot it gets back end the scan as they would have at the first NULL
 * (past them every slot is past them too). A slot that turns NULL after
 * this test is read again by scan_node() and is no hit there either.
 */
static unsigned int scan_next_slot(const struct xa_node *node, unsigned int off,
				   const struct scan *sc)
{
	if (sc->filter != SHR_XA_PRESENT)
		return node_next_mark(node, off, sc->filter);
	while (off < SHR_XA_CHUNK_SIZE && !shr_rcu_access_pointer(node->slots[off]))
		off++;
	return off;
}

/*
 * Scan @node from the slot of *@indexp. On SCAN_DESCEND, *@nodep is the
 * child and *@indexp the first index of interest in it; on SCAN_NEXT,
 * *@indexp is the first index after @node's range.
 */
static enum scan_step scan_node(struct xa_node **nodep, unsigned long *indexp,
				struct scan *sc)
{
	struct xa_node *node = *nodep;
	unsigned int shift = node->shift;
	unsigned long span = node_span_mask(shift);
	unsigned long base = *indexp & ~span;
	unsigned int off = index_offset(*indexp, shift);

	for (off = scan_next_slot(node, off, sc); off < SHR_XA_CHUNK_SIZE;
	     off = scan_next_slot(node, off + 1, sc)) {
		unsigned long first;
		void *entry;

		if (off > (ULONG_MAX >> shift))
			return SCAN_NONE; /* root slots past the index space */
		first = base + ((unsigned long)off << shift);
		if (first < *indexp)
			first = *indexp;
		if (first > sc->max)
			return SCAN_NONE;
		entry = shr_rcu_dereference(node->slots[off]);
		if (is_retry(entry))
			return SCAN_RETRY;
		if (is_node(entry)) {
			*nodep = to_node(entry);
			*indexp = first;
			return SCAN_DESCEND;
		}
		if (sc->want_free ? entry == NULL : entry != NULL) {
			sc->index = first;
			sc->entry = entry;
			return SCAN_FOUND;
		}
	}
	if (span == ULONG_MAX || base + span == ULONG_MAX)
		return SCAN_NONE;
	*indexp = base + span + 1;
	return SCAN_NEXT;
}

/* Head is NULL or a lone entry at index 0: look at @start there. */
static bool scan_head_entry(struct shr_xarray *xa, void *head, unsigned long start,
			    struct scan *sc)
{
	if (sc->want_free) {
		if (head && start == 0)
			start = 1;
		if (start > sc->max || (head && start == 0))
			return false;
		sc->index = start;
		sc->entry = NULL;
		return true;
	}
	if (!head || start != 0)
		return false;
	if (sc->filter != SHR_XA_PRESENT && !head_get_mark(xa, sc->filter))
		return false;
	sc->index = 0;
	sc->entry = head;
	return true;
}

/* Past the tree: nothing there, except free indices for shr_xa_alloc(). */
static bool scan_beyond(unsigned long start, struct scan *sc)
{
	if (!sc->want_free || start > sc->max)
		return false;
	sc->index = start;
	sc->entry = NULL;
	return true;
}

/*
 * Find the first hit at or after @start, up to sc->max. Readers call it
 * under the RCU read lock; shr_xa_alloc() under xa_lock (then RETRY is never
 * seen). Every restart begins at xa_head, with an index that only grows
 * (except for RETRY, which keeps it), so the scan always looks at the
 * current tree.
 */
static bool scan_from(struct shr_xarray *xa, unsigned long start, struct scan *sc)
{
	unsigned long index;
	struct xa_node *node;
	void *head;

restart:
	index = start;
	head = shr_rcu_dereference(xa->xa_head);
	if (!is_node(head))
		return scan_head_entry(xa, head, start, sc);
	node = to_node(head);
	if (!index_fits(index, node->shift))
		return scan_beyond(start, sc);
	for (;;) {
		switch (scan_node(&node, &index, sc)) {
		case SCAN_FOUND:
			return true;
		case SCAN_NONE:
			return false;
		case SCAN_DESCEND:
			break;
		case SCAN_NEXT:
			if (index > sc->max)
				return false;
			start = index;
			goto restart;
		case SCAN_RETRY:
			start = index;
			goto restart;
		}
	}
}

static bool filter_ok(const struct shr_xarray *xa, shr_xa_mark_t filter)
{
	return filter == SHR_XA_PRESENT || user_mark_ok(xa, filter);
}

void *shr_xa_find(struct shr_xarray *xa, unsigned long *indexp, unsigned long max,
		  shr_xa_mark_t filter)
{
	struct scan sc = { .max = max, .filter = filter };
	void *entry = NULL;

	if (*indexp > max || !filter_ok(xa, filter))
		return NULL;
	shr_rcu_read_lock();
	if (scan_from(xa, *indexp, &sc)) {
		*indexp = sc.index;
		entry = sc.entry;
	}
	shr_rcu_read_unlock();
	return entry;
}

void *shr_xa_find_after(struct shr_xarray *xa, unsigned long *indexp, unsigned long max,
			shr_xa_mark_t filter)
{
	unsigned long index;
	void *entry;

	if (*indexp >= max || *indexp == ULONG_MAX)
		return NULL;
	index = *indexp + 1;
	entry = shr_xa_find(xa, &index, max, filter);
	if (entry)
		*indexp = index;
	return entry;
}

/* ---- writers: locating, growing, shrinking ----------------------------- */

/*
 * Leaf position of @index, with xa_lock held: returns false if no slot
 * exists for it. *@nodep NULL means the head.
 */
static bool locate_locked(struct shr_xarray *xa, unsigned long index, struct xa_node **nodep,
			  unsigned int *offp)
{
	void *entry = xa->xa_head;

	*nodep = NULL;
	*offp = 0;
	if (!is_node(entry))
		return index == 0;
	if (!index_fits(index, to_node(entry)->shift))
		return false;
	for (;;) {
		struct xa_node *node = to_node(entry);
		unsigned int off = index_offset(index, node->shift);

		if (node->shift == 0) {
			*nodep = node;
			*offp = off;
			return true;
		}
		entry = node->slots[off];
		if (!entry)
			return false;
	}
}

static void *slot_get(struct shr_xarray *xa, struct xa_node *node, unsigned int off)
{
	return node ? node->slots[off] : xa->xa_head;
}

static void *load_locked(struct shr_xarray *xa, unsigned long index)
{
	struct xa_node *node;
	unsigned int off;

	if (!locate_locked(xa, index, &node, &off))
		return NULL;
	return slot_get(xa, node, off);
}

/* Nodes a store at @index needs (see section 7 of the essay). */
static unsigned int nodes_needed(struct shr_xarray *xa, unsigned long index)
{
	unsigned int want = levels_for(index), have;
	void *entry = xa->xa_head;

	if (!is_node(entry)) {
		if (index == 0)
			return 0;
		/* An entry at 0 goes into a new chain of nodes first; the
		 * path to @index leaves that chain at the new root. */
		return entry ? 2 * want - 1 : want;
	}
	have = node_height(to_node(entry));
	if (want > have)
		return (want - have) + (want - 1);
	for (;;) {
		struct xa_node *node = to_node(entry);

		if (node->shift == 0)
			return 0;
		entry = node->slots[index_offset(index, node->shift)];
		if (!entry)
			return node->shift / SHR_XA_CHUNK_SHIFT;
	}
}

/*
 * Put @child (the old head: a lone entry or the old root) into slot 0 of a
 * new node one level above @child_shift's level, with slot 0's marks
 * summarising @child. Returns the new, unpublished node.
 */
static struct xa_node *grow_one(struct shr_xarray *xa, struct node_pool *pool, void *child,
				unsigned int shift)
{
	struct xa_node *node = node_take(xa, pool, shift, NULL, 0);

	for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++) {
		bool on = is_node(child) ? node_any_mark(to_node(child), m) : head_get_mark(xa, m);

		node_assign_mark(node, 0, m, on);
	}
	if (is_node(child)) {
		to_node(child)->parent = node;
		to_node(child)->offset = 0;
	}
	SHR_RCU_INIT_POINTER(node->slots[0], child);
	node->count = 1;
	return node;
}

/*
 * Make the tree tall enough for @index. The new nodes form a chain whose
 * slot 0 leads to the old head; it is published with one release store of
 * xa_head (pairs with shr_rcu_dereference(xa_head) in the readers), so a
 * reader sees either the old head or the complete chain.
 */
static void grow_locked(struct shr_xarray *xa, struct node_pool *pool, unsigned long index)
{
	unsigned int want = levels_for(index), level;
	void *top = xa->xa_head;

	if (!top)
		return; /* the descent creates the root */
	if (!is_node(top)) {
		if (index == 0)
			return;
		level = 0;
	} else {
		level = node_height(to_node(top));
	}
	if (level >= want)
		return;
	for (; level < want; level++)
		top = mk_node(grow_one(xa, pool, top, level * SHR_XA_CHUNK_SHIFT));
	for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++)
		head_assign_mark(xa, m, node_any_mark(to_node(top), m));
	shr_rcu_assign_pointer(xa->xa_head, top);
}

/*
 * Create the missing nodes from the head down to @index's leaf; returns the
 * leaf (NULL if @index lives in the head). Each new node is empty and fully
 * initialised before the release store that links it (pairs with the
 * readers' shr_rcu_dereference of that slot). An empty child needs no mark
 * update: its parent slot was NULL, so user marks were clear and the free
 * bit set, which is what an empty child summarises to.
 */
static struct xa_node *descend_create(struct shr_xarray *xa, struct node_pool *pool,
				      unsigned long index)
{
	struct xa_node *node;

	if (!xa->xa_head) {
		if (index == 0)
			return NULL;
		node = node_take(xa, pool, (levels_for(index) - 1) * SHR_XA_CHUNK_SHIFT, NULL,
				 0);
		shr_rcu_assign_pointer(xa->xa_head, mk_node(node));
	} else if (!is_node(xa->xa_head)) {
		return NULL; /* index 0: nodes_needed() made no growth */
	}
	node = to_node(xa->xa_head);
	while (node->shift > 0) {
		unsigned int off = index_offset(index, node->shift);
		void *child = node->slots[off];

		if (!child) {
			struct xa_node *c = node_take(xa, pool, node->shift - SHR_XA_CHUNK_SHIFT,
						      node, off);

			shr_rcu_assign_pointer(node->slots[off], mk_node(c));
			node->count++;
			child = mk_node(c);
		}
		node = to_node(child);
	}
	return node;
}

/*
 * While the root uses only slot 0, make slot 0's content the head (one
 * level less). The head is switched first (release store, pairs with the
 * readers' shr_rcu_dereference(xa_head)); then the old root is retired, its
 * slots becoming RETRY for readers still inside it.
 */
static void shrink_locked(struct shr_xarray *xa)
{
	while (is_node(xa->xa_head)) {
		struct xa_node *root = to_node(xa->xa_head);
		void *child = root->slots[0];

		if (root->count != 1 || !child)
			return;
		for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++)
			head_assign_mark(xa, m, node_get_mark(root, 0, m));
		if (is_node(child)) {
			to_node(child)->parent = NULL;
			to_node(child)->offset = 0;
		}
		shr_rcu_assign_pointer(xa->xa_head, child);
		node_retire(xa, root);
	}
}

/* Slot @off of @node (or the head) just became NULL: marks follow. */
static void slot_cleared_marks(struct shr_xarray *xa, struct xa_node *node, unsigned int off)
{
	bool alloc = is_alloc_array(xa);

	for (shr_xa_mark_t m = 0; m < SHR_XA_MAX_MARKS; m++)
		slot_assign_mark(xa, node, off, m, alloc && m == XA_FREE_MARK);
}

/*
 * Remove empty nodes from @node upward: each one is unlinked from its
 * parent (a NULL store, which readers may see or not: both are correct),
 * then retired. Marks of the parent slot follow the NULL slot.
 */
static void delete_empty_nodes(struct shr_xarray *xa, struct xa_node *node)
{
	while (node && node->count == 0) {
		struct xa_node *parent = node->parent;
		unsigned int off = node->offset;

		if (!parent) {
			shr_rcu_assign_pointer(xa->xa_head, NULL);
			head_reset_marks(xa);
		} else {
			shr_rcu_assign_pointer(parent->slots[off], NULL);
			parent->count--;
			slot_cleared_marks(xa, parent, off);
		}
		node_retire(xa, node);
		node = parent;
	}
}

/* ---- writers: the operations ------------------------------------------- */

void *shr_xa_erase_locked(struct shr_xarray *xa, unsigned long index)
{
	struct xa_node *node;
	unsigned int off;
	void *old;

	shr_lock_assert_held(&xa->xa_lock);
	if (!locate_locked(xa, index, &node, &off))
		return NULL;
	old = slot_get(xa, node, off);
	if (!old)
		return NULL;
	if (!node) {
		shr_rcu_assign_pointer(xa->xa_head, NULL);
		head_reset_marks(xa);
		return old;
	}
	shr_rcu_assign_pointer(node->slots[off], NULL);
	node->count--;
	slot_cleared_marks(xa, node, off);
	delete_empty_nodes(xa, node);
	shrink_locked(xa);
	return old;
}

void *shr_xa_erase(struct shr_xarray *xa, unsigned long index)
{
	void *old;

	shr_xa_lock(xa);
	old = shr_xa_erase_locked(xa, index);
	shr_xa_unlock(xa);
	return old;
}

/*
 * Store non-NULL @entry at @index; all nodes it needs are in @pool. The
 * entry is published with a release store (pairs with the readers'
 * shr_rcu_dereference of the slot).
 */
static void *store_prepared(struct shr_xarray *xa, struct node_pool *pool,
			    unsigned long index, void *entry)
{
	struct xa_node *node;
	unsigned int off;
	void *old;

	grow_locked(xa, pool, index);
	node = descend_create(xa, pool, index);
	SHR_BUG_ON(pool->nr != 0);
	/* Readers may walk the new, empty nodes before the entry lands. */
	shr_race_point(SHR_RACE_XA_NODE_PUBLISH);
	if (!node) {
		old = xa->xa_head;
		shr_rcu_assign_pointer(xa->xa_head, entry);
		if (is_alloc_array(xa) && !old)
			head_assign_mark(xa, XA_FREE_MARK, false);
		return old;
	}
	off = index_offset(index, 0);
	old = node->slots[off];
	shr_rcu_assign_pointer(node->slots[off], entry);
	if (!old) {
		node->count++;
		if (is_alloc_array(xa))
			slot_assign_mark(xa, node, off, XA_FREE_MARK, false);
	}
	return old;
}

void *shr_xa_store_locked(struct shr_xarray *xa, unsigned long index, void *entry,
			  shr_gfp_t gfp)
{
	struct node_pool pool;

	shr_lock_assert_held(&xa->xa_lock);
	if (is_internal(entry))
		return mk_err(-EINVAL);
	if (!entry)
		return shr_xa_erase_locked(xa, index);
	if (pool_fill(xa, &pool, nodes_needed(xa, index), gfp))
		return mk_err(-ENOMEM);
	return store_prepared(xa, &pool, index, entry);
}

void *shr_xa_store(struct shr_xarray *xa, unsigned long index, void *entry, shr_gfp_t gfp)
{
	void *old;

	shr_xa_lock(xa);
	old = shr_xa_store_locked(xa, index, entry, gfp);
	shr_xa_unlock(xa);
	return old;
}

int shr_xa_insert_locked(struct shr_xarray *xa, unsigned long index, void *entry,
			 shr_gfp_t gfp)
{
	void *old;

	shr_lock_assert_held(&xa->xa_lock);
	if (!entry || is_internal(entry))
		return -EINVAL;
	if (load_locked(xa, index))
		return -EBUSY;
	old = shr_xa_store_locked(xa, index, entry, gfp);
	return shr_xa_err(old);
}

int shr_xa_insert(struct shr_xarray *xa, unsigned long index, void *entry, shr_gfp_t gfp)
{
	int ret;

	shr_xa_lock(xa);
	ret = shr_xa_insert_locked(xa, index, entry, gfp);
	shr_xa_unlock(xa);
	return ret;
}

void *shr_xa_cmpxchg(struct shr_xarray *xa, unsigned long index, void *old, void *entry,
		     shr_gfp_t gfp)
{
	void *cur;

	if (is_internal(entry))
		return mk_err(-EINVAL);
	shr_xa_lock(xa);
	cur = load_locked(xa, index);
	if (cur == old) {
		void *ret = shr_xa_store_locked(xa, index, entry, gfp);

		if (shr_xa_is_err(ret))
			cur = ret;
	}
	shr_xa_unlock(xa);
	return cur;
}

/* Set or clear a user mark on a present entry; no-op otherwise. */
static void mark_locked(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark,
			bool on)
{
	struct xa_node *node;
	unsigned int off;

	shr_lock_assert_held(&xa->xa_lock);
	if (!user_mark_ok(xa, mark))
		return;
	if (!locate_locked(xa, index, &node, &off) || !slot_get(xa, node, off))
		return;
	slot_assign_mark(xa, node, off, mark, on);
}

void shr_xa_set_mark_locked(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark)
{
	mark_locked(xa, index, mark, true);
}

void shr_xa_clear_mark_locked(struct shr_xarray *xa, unsigned long index,
			      shr_xa_mark_t mark)
{
	mark_locked(xa, index, mark, false);
}

void shr_xa_set_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark)
{
	shr_xa_lock(xa);
	mark_locked(xa, index, mark, true);
	shr_xa_unlock(xa);
}

void shr_xa_clear_mark(struct shr_xarray *xa, unsigned long index, shr_xa_mark_t mark)
{
	shr_xa_lock(xa);
	mark_locked(xa, index, mark, false);
	shr_xa_unlock(xa);
}

int shr_xa_alloc(struct shr_xarray *xa, uint32_t *idp, void *entry, uint32_t min,
		 uint32_t max, shr_gfp_t gfp)
{
	struct scan sc = { .max = max, .filter = XA_FREE_MARK, .want_free = true };
	void *old;
	int ret = 0;

	if (!is_alloc_array(xa) || !entry || is_internal(entry) || min > max)
		return -EINVAL;
	shr_xa_lock(xa);
	if (!scan_from(xa, min, &sc)) {
		ret = -EBUSY;
		goto out;
	}
	old = shr_xa_store_locked(xa, sc.index, entry, gfp);
	ret = shr_xa_err(old);
	if (!ret)
		*idp = (uint32_t)sc.index;
out:
	shr_xa_unlock(xa);
	return ret;
}
