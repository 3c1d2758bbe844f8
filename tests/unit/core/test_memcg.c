/* SPDX-License-Identifier: MIT */
/*
 * Memory cgroups (src/core/memcg.c) through <shrinker/memcg.h>: the life
 * cycle's states and the calls each state refuses, the pre-order iterator
 * (dying cgroups included until they are released, a subtree alone, an
 * early stop), references and release, ids reused and inos never, the
 * kmemcg id, and descendants. Public API only.
 */
#include <errno.h>
#include <stdlib.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>

#include "harness.h"

static struct shr_host *host_new(bool kmem)
{
	struct shr_host_params p;
	struct shr_host *host;

	shr_test_host_params(&p);
	p.kmem = kmem;
	if (kmem)
		p.nonslab_ids = false;
	assert_int_equal(shr_host_create(&p, &host), 0);
	return host;
}

/* The walk of @root's subtree, as a list of cgroups (references dropped). */
static size_t walk(struct shr_host *host, struct shr_mem_cgroup *root,
		   struct shr_mem_cgroup **seen, size_t max)
{
	struct shr_mem_cgroup *pos = NULL;
	size_t n = 0;

	while ((pos = shr_mem_cgroup_iter(host, root, pos))) {
		assert_true(n < max);
		seen[n++] = pos;
	}
	return n;
}

/* alloc links a cgroup that iterators see but that is not online; online
 * gives it its kmemcg id; neither step may be repeated. */
static void test_alloc_then_online(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *cg, *child, *seen[4];

	(void)state;
	assert_int_equal(shr_mem_cgroup_alloc(root, &cg), 0);
	assert_false(shr_mem_cgroup_is_online(cg));
	assert_false(shr_mem_cgroup_is_dying(cg));
	assert_ptr_equal(shr_mem_cgroup_parent(cg), root);
	assert_ptr_equal(shr_mem_cgroup_host(cg), host);
	assert_true(shr_mem_cgroup_id(cg) >= 1);
	assert_int_equal(shr_mem_cgroup_kmemcg_id(cg), -1);
	assert_int_equal(walk(host, NULL, seen, 4), 2);
	assert_ptr_equal(seen[1], cg);
	/* A child needs an online parent. */
	assert_int_equal(shr_mem_cgroup_alloc(cg, &child), -EINVAL);

	assert_int_equal(shr_mem_cgroup_online(cg), 0);
	assert_true(shr_mem_cgroup_is_online(cg));
	assert_true(shr_mem_cgroup_kmemcg_id(cg) >= 0);
	assert_int_equal(shr_mem_cgroup_online(cg), -EINVAL);
	assert_int_equal(shr_mem_cgroup_online(root), -EINVAL);
	assert_int_equal(shr_mem_cgroup_online(NULL), -EINVAL);
	assert_int_equal(shr_mem_cgroup_alloc(NULL, &child), -EINVAL);

	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* offline refuses the root, a cgroup with live children (changing
 * nothing) and a second offline; it releases a cgroup never brought online. */
static void test_offline_refusals_and_release_of_unonlined(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *a, *b, *never, *seen[8];

	(void)state;
	a = shr_test_mkcg(root);
	b = shr_test_mkcg(a);
	assert_int_equal(shr_mem_cgroup_offline(root), -EINVAL);
	assert_int_equal(shr_mem_cgroup_offline(NULL), -EINVAL);
	assert_int_equal(shr_mem_cgroup_offline(a), -EBUSY);
	assert_true(shr_mem_cgroup_is_online(a));
	assert_false(shr_mem_cgroup_is_dying(a));

	/* A dying child does not hold its parent back. */
	shr_mem_cgroup_get(b);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	assert_true(shr_mem_cgroup_is_dying(b));
	assert_false(shr_mem_cgroup_is_online(b));
	assert_int_equal(shr_mem_cgroup_offline(b), -EINVAL);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	shr_mem_cgroup_put(b);

	assert_int_equal(shr_mem_cgroup_alloc(root, &never), 0);
	assert_int_equal(shr_mem_cgroup_offline(never), 0);
	shr_rcu_barrier();
	assert_int_equal(walk(host, NULL, seen, 8), 1);
	assert_int_equal(shr_host_destroy(host), 0);
}

/*
 * Pre-order: the root, then each child before its own children, siblings
 * in creation order; a subtree walk starts at its root; a dying cgroup is
 * still visited while a reference keeps it, and gone once released.
 */
static void test_iterator_is_pre_order_and_keeps_dying_until_released(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *seen[8], *pos;
	struct shr_mem_cgroup *a, *a1, *a2, *b;

	(void)state;
	a = shr_test_mkcg(root);
	a1 = shr_test_mkcg(a);
	a2 = shr_test_mkcg(a);
	b = shr_test_mkcg(root);
	assert_int_equal(walk(host, NULL, seen, 8), 5);
	assert_ptr_equal(seen[0], root);
	assert_ptr_equal(seen[1], a);
	assert_ptr_equal(seen[2], a1);
	assert_ptr_equal(seen[3], a2);
	assert_ptr_equal(seen[4], b);
	assert_int_equal(walk(host, a, seen, 8), 3);
	assert_ptr_equal(seen[0], a);
	assert_ptr_equal(seen[2], a2);

	/* Stop after the first step: the break drops the walk's reference. */
	pos = shr_mem_cgroup_iter(host, a, NULL);
	pos = shr_mem_cgroup_iter(host, a, pos);
	assert_ptr_equal(pos, a1);
	shr_mem_cgroup_iter_break(a, pos);

	shr_mem_cgroup_get(a1);
	assert_int_equal(shr_mem_cgroup_offline(a1), 0);
	shr_rcu_barrier();
	assert_int_equal(walk(host, a, seen, 8), 3);
	assert_ptr_equal(seen[1], a1);
	assert_true(shr_mem_cgroup_is_dying(seen[1]));
	shr_mem_cgroup_put(a1);
	shr_rcu_barrier();
	assert_int_equal(walk(host, a, seen, 8), 2);
	assert_ptr_equal(seen[1], a2);

	assert_int_equal(shr_mem_cgroup_offline(a2), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/*
 * A reference outlives rmdir; tryget fails only once the count is 0; a
 * released cgroup's ino finds nothing; its id is handed out again (lowest
 * free) but its ino never is.
 */
static void test_references_ids_and_inos(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *a, *b, *found;
	unsigned long ino_a;
	int id_a;

	(void)state;
	assert_int_equal(shr_mem_cgroup_ino(root), 1);
	assert_true(shr_mem_cgroup_is_root(root));
	a = shr_test_mkcg(root);
	ino_a = shr_mem_cgroup_ino(a);
	id_a = shr_mem_cgroup_id(a);
	assert_false(shr_mem_cgroup_is_root(a));

	found = shr_mem_cgroup_from_ino(host, ino_a);
	assert_ptr_equal(found, a);
	assert_true(shr_mem_cgroup_tryget(a));
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	shr_mem_cgroup_put(found);
	shr_rcu_barrier();
	/* Still pinned by the tryget: dying, not released. */
	assert_true(shr_mem_cgroup_is_dying(a));
	assert_true(shr_mem_cgroup_tryget(a));
	shr_mem_cgroup_put(a);
	shr_mem_cgroup_put(a);
	shr_rcu_barrier();
	assert_null(shr_mem_cgroup_from_ino(host, ino_a));

	b = shr_test_mkcg(root);
	assert_int_equal(shr_mem_cgroup_id(b), id_a);
	assert_true(shr_mem_cgroup_ino(b) > ino_a);
	assert_null(shr_mem_cgroup_from_ino(host, 0));
	/* Root and NULL are no-ops for put. */
	shr_mem_cgroup_put(root);
	shr_mem_cgroup_put(NULL);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

static void test_descendants(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *a, *a1, *b;

	(void)state;
	a = shr_test_mkcg(root);
	a1 = shr_test_mkcg(a);
	b = shr_test_mkcg(root);
	assert_true(shr_mem_cgroup_is_descendant(a1, a));
	assert_true(shr_mem_cgroup_is_descendant(a1, root));
	assert_true(shr_mem_cgroup_is_descendant(a, a));
	assert_false(shr_mem_cgroup_is_descendant(a, a1));
	assert_false(shr_mem_cgroup_is_descendant(a1, b));
	assert_false(shr_mem_cgroup_is_descendant(root, a));
	assert_int_equal(shr_mem_cgroup_offline(a1), 0);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	assert_int_equal(shr_mem_cgroup_offline(b), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* With kmem off no cgroup gets a kmemcg id (no per-cgroup lists). */
static void test_kmem_off_gives_no_kmemcg_id(void **state)
{
	struct shr_host *host = host_new(false);
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(host), *a;

	(void)state;
	a = shr_test_mkcg(root);
	assert_true(shr_mem_cgroup_is_online(a));
	assert_int_equal(shr_mem_cgroup_kmemcg_id(a), -1);
	assert_int_equal(shr_mem_cgroup_kmemcg_id(root), -1);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

/* A host with a cgroup left alive cannot be destroyed. */
static void test_host_with_a_cgroup_is_busy(void **state)
{
	struct shr_host *host = host_new(true);
	struct shr_mem_cgroup *a = shr_test_mkcg(shr_host_root_mem_cgroup(host));

	(void)state;
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_mem_cgroup_offline(a), 0);
	shr_rcu_barrier();
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_then_online),
		cmocka_unit_test(test_offline_refusals_and_release_of_unonlined),
		cmocka_unit_test(test_iterator_is_pre_order_and_keeps_dying_until_released),
		cmocka_unit_test(test_references_ids_and_inos),
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_kmem_off_gives_no_kmemcg_id),
		cmocka_unit_test(test_host_with_a_cgroup_is_busy),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("memcg", tests);
}
