/* SPDX-License-Identifier: MIT */
/*
 * A doubly linked list whose forward links readers may follow under RCU.
 *
 * Writers serialise on a lock of the list's owner (named at each list's
 * declaration) and publish with shr_rcu_assign_pointer(), so that a reader
 * that sees a new element also sees it initialised (release here pairs with
 * the acquire/consume in shr_rcu_dereference() in the readers). A deleted
 * element keeps its next pointer, so a reader standing on it can go on; it
 * must not be freed before a grace period has passed.
 *
 * liburcu has rculist.h, but its stores are inline asm that ThreadSanitizer
 * cannot see; these go through the shim in rcu.h.
 */
#ifndef SHR_RCULIST_H
#define SHR_RCULIST_H

#include <stdbool.h>

#include "rcu.h"

struct shr_rcu_list {
	struct shr_rcu_list *next SHR_RCU;
	struct shr_rcu_list *prev; /* writers only */
};

static inline void shr_rcu_list_init(struct shr_rcu_list *head)
{
	SHR_RCU_INIT_POINTER(head->next, head);
	head->prev = head;
}

static inline bool shr_rcu_list_empty(const struct shr_rcu_list *head)
{
	return __atomic_load_n(&head->next, __ATOMIC_RELAXED) == head;
}

/* Append @node at the tail of @head. Context: the list's writer lock. */
static inline void shr_rcu_list_add_tail(struct shr_rcu_list *node, struct shr_rcu_list *head)
{
	struct shr_rcu_list *last = head->prev;

	SHR_RCU_INIT_POINTER(node->next, head);
	node->prev = last;
	/* Publish: pairs with shr_rcu_dereference() in shr_rcu_list_next(). */
	shr_rcu_assign_pointer(last->next, node);
	head->prev = node;
}

/* Unlink @node; readers on it can still move forward. Context: writer lock. */
static inline void shr_rcu_list_del(struct shr_rcu_list *node)
{
	struct shr_rcu_list *next = __atomic_load_n(&node->next, __ATOMIC_RELAXED);

	/*
	 * @next is already initialised; the release store still matters so that
	 * a reader reaching @next through this link synchronises with its
	 * initialisation (pairs with shr_rcu_dereference() in shr_rcu_list_next()).
	 */
	shr_rcu_assign_pointer(node->prev->next, next);
	next->prev = node->prev;
	node->prev = NULL;
}

/* Next element after @node (may be the head). Context: RCU or writer lock. */
static inline struct shr_rcu_list *shr_rcu_list_next(struct shr_rcu_list *node)
{
	return shr_rcu_dereference(node->next);
}

#endif /* SHR_RCULIST_H */
