/* SPDX-License-Identifier: MIT */
/*
 * Queue caches: memcg-aware NONSLAB caches with their own per-cgroup
 * queues, setting their bits with shr_set_shrinker_bit() (the kernel's THP
 * deferred split queue).
 */
#include "torture.h"

/* The entry of @memcg, created if @create. Context: q->lock. */
static struct tq_cg *tq_find(struct tq *q, struct shr_mem_cgroup *memcg, bool create)
{
	unsigned long ino = shr_mem_cgroup_ino(memcg);
	struct tq_cg **b = &q->buckets[ino % TQ_BUCKETS], *c;

	for (c = *b; c; c = c->next)
		if (c->ino == ino)
			return c;
	if (!create)
		return NULL;
	c = calloc(1, sizeof(*c)); /* test bookkeeping, not modelled memory */
	if (!c)
		violation("out of memory for the queue table");
	c->memcg = memcg;
	c->ino = ino;
	shr_mem_cgroup_get(memcg);
	for (int n = 0; n < SHR_MAX_NUMNODES; n++)
		shr_list_head_init(&c->items[n]);
	c->next = *b;
	*b = c;
	return c;
}

static void tq_link(struct tq_cg *c, struct tq_obj *o, int nid)
{
	struct shr_list_head *head = &c->items[nid], *item = &o->base.lru;

	shr_list_add_tail(item, head);
	o->owner = c;
	c->nr[nid]++;
}

static void tq_unlink(struct tq_obj *o)
{
	struct shr_list_head *item = &o->base.lru;

	shr_list_del_init(item);
	o->owner->nr[o->base.nid]--;
}

static void tq_obj_free(struct tq_obj *o, enum sb_free_reason why)
{
	struct shr_mem_cgroup *memcg = o->base.memcg;

	ledger_on_free(&o->base, why, NULL);
	shr_kmem_cache_free(T.tq_cache, o);
	shr_mem_cgroup_put(memcg);
}

static unsigned long tq_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct tq *q = s->private_data;
	struct tq_cg *c;
	long n = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, sc->memcg ? sc->memcg : shr_host_root_mem_cgroup(T.host), false);
	if (c)
		n = c->nr[sc->nid];
	pthread_mutex_unlock(&q->lock);
	return n ? (unsigned long)n : SHR_SHRINK_EMPTY;
}

static unsigned long tq_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct tq *q = s->private_data;
	struct tq_obj *dispose[64];
	unsigned long freed = 0, looked = 0;
	struct tq_cg *c;

	do {
		int nr = 0;

		pthread_mutex_lock(&q->lock);
		c = tq_find(q, sc->memcg ? sc->memcg : shr_host_root_mem_cgroup(T.host), false);
		if (c) {
			struct shr_list_head *head = &c->items[sc->nid], *item = head->next, *next;

			for (; item != head && nr < 64 && looked < sc->nr_to_scan; item = next) {
				struct tq_obj *o = (struct tq_obj *)(void *)item;

				next = item->next;
				looked++;
				if (!ledger_may_isolate(&o->base, NULL))
					continue; /* its deleter takes it */
				tq_unlink(o);
				dispose[nr++] = o;
			}
		}
		pthread_mutex_unlock(&q->lock);
		for (int i = 0; i < nr; i++)
			tq_obj_free(dispose[i], SB_FREE_SCAN);
		freed += (unsigned long)nr;
		if (nr < 64)
			break;
	} while (looked < sc->nr_to_scan);
	return freed;
}

int tq_mount(unsigned int flags, struct tq **out)
{
	struct tq *q = calloc(1, sizeof(*q));
	int ret;

	if (!q)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	ret = shr_shrinker_alloc(T.host, flags, "tq", &q->shrinker);
	if (ret) {
		pthread_mutex_destroy(&q->lock);
		free(q);
		return ret;
	}
	q->shrinker->count_objects = tq_count;
	q->shrinker->scan_objects = tq_scan;
	q->shrinker->batch = 64;
	q->shrinker->private_data = q;
	ret = shr_shrinker_register(q->shrinker);
	if (ret)
		violation("shr_shrinker_register: %d", ret);
	*out = q;
	return 0;
}

void tq_umount(struct tq *q)
{
	shr_shrinker_free(q->shrinker);
	for (int b = 0; b < TQ_BUCKETS; b++) {
		while (q->buckets[b]) {
			struct tq_cg *c = q->buckets[b];

			for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
				while (!shr_list_head_empty(&c->items[n])) {
					struct tq_obj *o = (struct tq_obj *)(void *)c->items[n].next;

					if (!ledger_may_isolate(&o->base, NULL))
						violation("queue object being deleted during its unmount");
					tq_unlink(o);
					tq_obj_free(o, SB_FREE_UMOUNT);
				}
			}
			q->buckets[b] = c->next;
			shr_mem_cgroup_put(c->memcg);
			free(c);
		}
	}
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/*
 * Add an object charged to @memcg on @nid to the queue of @memcg, or of its
 * nearest live ancestor if it is dying (a dying cgroup's queues have been
 * or are about to be moved). Returns 0 or -ENOMEM (nothing added).
 */
int tq_add(struct tq *q, struct shr_mem_cgroup *memcg, int nid, unsigned long serial,
	   struct sb_object **out)
{
	struct tq_obj *o = shr_kmem_cache_alloc_node(T.tq_cache, nid, SHR_GFP_ZERO);
	struct shr_mem_cgroup *target = memcg;
	struct tq_cg *c;
	int ret = 0;

	if (!o)
		return -ENOMEM;
	shr_list_head_init(&o->base.lru);
	o->base.memcg = memcg;
	o->base.nid = nid;
	o->base.serial = serial;
	shr_mem_cgroup_get(memcg);
	*out = &o->base;
	pthread_mutex_lock(&q->lock);
	while (shr_mem_cgroup_is_dying(target))
		target = shr_mem_cgroup_parent(target);
	c = tq_find(q, target, true);
	tq_link(c, o, nid);
	/* The object first, then the bit (its barrier pairs with reclaim's
	 * clear / barrier / recount: docs/design/RACES.md R1). */
	if (c->nr[nid] == 1) {
		ret = shr_set_shrinker_bit(target, nid, q->shrinker);
		if (ret)
			tq_unlink(o);
	}
	pthread_mutex_unlock(&q->lock);
	if (ret) {
		shr_kmem_cache_free(T.tq_cache, o);
		shr_mem_cgroup_put(memcg);
	}
	return ret;
}

/* Remove and free @obj if it is queued: 1, or 0. */
int tq_delete(struct tq *q, struct sb_object *obj)
{
	struct tq_obj *o = (struct tq_obj *)(void *)obj;
	bool queued;

	pthread_mutex_lock(&q->lock);
	queued = !shr_list_head_empty(&o->base.lru);
	if (queued)
		tq_unlink(o);
	pthread_mutex_unlock(&q->lock);
	if (queued)
		tq_obj_free(o, SB_FREE_DELETE);
	return queued;
}

/* @memcg went offline: move its queues to its nearest live ancestor. */
void tq_reparent(struct tq *q, struct shr_mem_cgroup *memcg)
{
	struct shr_mem_cgroup *to = shr_mem_cgroup_parent(memcg);
	struct tq_cg *c, *pc, **link;
	unsigned long moved = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, memcg, false);
	if (!c) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	while (shr_mem_cgroup_is_dying(to))
		to = shr_mem_cgroup_parent(to);
	pc = tq_find(q, to, true);
	for (int n = 0; n < T.cfg.params.nr_nodes; n++) {
		long nr = c->nr[n];

		while (!shr_list_head_empty(&c->items[n])) {
			struct tq_obj *o = (struct tq_obj *)(void *)c->items[n].next;

			tq_unlink(o);
			tq_link(pc, o, n);
		}
		/* Every move sets the bit (as list_lru reparenting does); it can
		 * only fail for lack of memory (installing the ancestor's
		 * bookkeeping), and then the objects would be stranded: retry
		 * until the injector's rule changes (every few ms). */
		for (int tries = 0; nr && shr_set_shrinker_bit(to, n, q->shrinker); tries++) {
			if (tries > 20000)
				violation("shr_set_shrinker_bit keeps failing while reparenting");
			sleep_s(0.0001);
		}
		moved += (unsigned long)nr;
	}
	for (link = &q->buckets[c->ino % TQ_BUCKETS]; *link != c; link = &(*link)->next)
		;
	*link = c->next;
	pthread_mutex_unlock(&q->lock);
	shr_mem_cgroup_put(c->memcg);
	free(c);
	atomic_fetch_add_explicit(&T.ops[OP_QUEUE_REPARENT], moved, memory_order_relaxed);
}

/* Objects of @q on (@nid, @memcg)'s queue, or in all. Context: quiescent
 * or q->lock not held by the caller. */
unsigned long tq_count_one(struct tq *q, int nid, struct shr_mem_cgroup *memcg)
{
	struct tq_cg *c;
	long n = 0;

	pthread_mutex_lock(&q->lock);
	c = tq_find(q, memcg, false);
	if (c)
		n = c->nr[nid];
	pthread_mutex_unlock(&q->lock);
	return (unsigned long)n;
}

unsigned long tq_count_all(struct tq *q)
{
	unsigned long n = 0;

	pthread_mutex_lock(&q->lock);
	for (int b = 0; b < TQ_BUCKETS; b++)
		for (struct tq_cg *c = q->buckets[b]; c; c = c->next)
			for (int i = 0; i < T.cfg.params.nr_nodes; i++)
				n += (unsigned long)c->nr[i];
	pthread_mutex_unlock(&q->lock);
	return n;
}

/* Call @fn on every queued object (quiescent: no lock juggling needed). */
void tq_walk(struct tq *q, void (*fn)(struct sb_object *obj, void *arg), void *arg)
{
	pthread_mutex_lock(&q->lock);
	for (int b = 0; b < TQ_BUCKETS; b++)
		for (struct tq_cg *c = q->buckets[b]; c; c = c->next)
			for (int n = 0; n < T.cfg.params.nr_nodes; n++)
				for (struct shr_list_head *i = c->items[n].next; i != &c->items[n];
				     i = i->next)
					fn((struct sb_object *)(void *)i, arg);
	pthread_mutex_unlock(&q->lock);
}
