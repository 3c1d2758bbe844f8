/* SPDX-License-Identifier: MIT */
/*
 * Hosts (src/host/host.c) through <shrinker/host.h>: the defaults of
 * shr_host_params_init(), every refusal of shr_host_params_check() with
 * the reason it names (and create refusing the same), what a new host
 * holds (an online root, its allocator, its parameters resolved), a
 * borrowed allocator reported and outliving the host, and destroy refusing a host that
 * is still in use. What the design table makes of the parameters is
 * tests/unit/designs/test_designs.c's. Public API only.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/slab.h>

#include "fake_shrinker.h"
#include "fixtures.h"
#include "harness.h"

static void test_params_init_defaults(void **state)
{
	struct shr_host_params p;

	(void)state;
	memset(&p, 0x5a, sizeof(p));
	shr_host_params_init(&p);
	assert_int_equal(p.nr_nodes, 1);
	assert_int_equal(p.geometry_cpus, 0);
	assert_true(p.kmem);
	assert_int_equal(p.design, SHR_DESIGN_XARRAY);
	assert_int_equal(p.units, SHR_UNITS_DEFAULT);
	assert_int_equal(p.expand_batch, 0);
	assert_false(p.nonslab_ids);
	assert_int_equal(p.lru_reparent, SHR_LRU_REPARENT_DEFAULT);
	assert_null(p.slab);
	assert_int_equal(shr_host_params_check(&p, NULL), 0);
}

/* One bad parameter at a time: check names it, create refuses it. */
static void expect_refused(const struct shr_host_params *p, const char *needle)
{
	struct shr_host *host = (struct shr_host *)&host;
	const char *why = NULL;

	assert_int_equal(shr_host_params_check(p, &why), -EINVAL);
	assert_non_null(why);
	if (!strstr(why, needle))
		fail_msg("reason '%s' does not name '%s'", why, needle);
	assert_int_equal(shr_host_create(p, &host), -EINVAL);
	assert_ptr_equal(host, (struct shr_host *)&host);
}

static void test_params_check_names_each_refusal(void **state)
{
	struct shr_slab_params sp = { .nr_nodes = 1, .geometry_cpus = 4 };
	struct shr_slab_allocator *small;
	struct shr_host_params p;
	const char *why = "unset";

	(void)state;
	shr_host_params_init(&p);
	p.nr_nodes = 0;
	expect_refused(&p, "nr_nodes");
	p.nr_nodes = SHR_MAX_NUMNODES + 1;
	expect_refused(&p, "nr_nodes");

	shr_host_params_init(&p);
	p.design = SHR_NR_DESIGNS;
	expect_refused(&p, "design");
	shr_host_params_init(&p);
	p.units = (enum shr_units_source)(SHR_UNITS_KMALLOC + 1);
	expect_refused(&p, "units");
	shr_host_params_init(&p);
	p.design = SHR_DESIGN_FLAT;
	p.units = SHR_UNITS_KMALLOC;
	expect_refused(&p, "units=kmalloc");
	shr_host_params_init(&p);
	p.expand_batch = 8; /* xarray does not grow arrays */
	expect_refused(&p, "expand_batch");
	p.design = SHR_DESIGN_FLAT;
	p.expand_batch = 65537;
	expect_refused(&p, "65536");
	shr_host_params_init(&p);
	p.design = SHR_DESIGN_FLAT;
	p.nonslab_ids = true; /* kmem is on */
	expect_refused(&p, "kmem");
	shr_host_params_init(&p);
	p.lru_reparent = (enum shr_lru_reparent)(SHR_LRU_REPARENT_PER_CGROUP + 1);
	expect_refused(&p, "lru_reparent");

	assert_int_equal(shr_slab_allocator_create(&sp, &small), 0);
	shr_host_params_init(&p);
	p.nr_nodes = 2;
	p.slab = small;
	expect_refused(&p, "fewer nodes");
	shr_slab_allocator_destroy(small);

	assert_int_equal(shr_host_params_check(NULL, &why), -EINVAL);
	assert_non_null(why);
	shr_host_params_init(&p);
	assert_int_equal(shr_host_params_check(&p, &why), 0);
	assert_null(why);
	assert_int_equal(shr_host_create(&p, NULL), -EINVAL);
}

/* A new host: its root online and alone, its own allocator, the getters
 * answering what was asked, and the defaults resolved. */
static void test_new_host_holds_an_online_root(void **state)
{
	struct shr_host_params p, got;
	struct shr_mem_cgroup *root, *pos;
	struct shr_host *host;
	int n = 0;

	(void)state;
	shr_host_params_init(&p);
	p.nr_nodes = 3;
	p.design = SHR_DESIGN_INDEXED;
	assert_int_equal(shr_host_create(&p, &host), 0);
	root = shr_host_root_mem_cgroup(host);
	assert_non_null(root);
	assert_true(shr_mem_cgroup_is_root(root));
	assert_true(shr_mem_cgroup_is_online(root));
	assert_null(shr_mem_cgroup_parent(root));
	assert_ptr_equal(shr_mem_cgroup_host(root), host);
	for (pos = NULL; (pos = shr_mem_cgroup_iter(host, NULL, pos));)
		n++;
	assert_int_equal(n, 1);
	assert_int_equal(shr_host_nr_nodes(host), 3);
	assert_int_equal(shr_host_design(host), SHR_DESIGN_INDEXED);
	assert_non_null(shr_host_slab(host));
	assert_int_equal(shr_slab_nr_nodes(shr_host_slab(host)), 3);
	shr_host_get_params(host, &got);
	assert_int_equal(got.nr_nodes, 3);
	assert_int_equal(got.geometry_cpus, (unsigned int)sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(got.units != SHR_UNITS_DEFAULT);
	assert_true(got.lru_reparent != SHR_LRU_REPARENT_DEFAULT);
	assert_null(got.slab);
	assert_int_equal(shr_shrinker_nr_max(host), 0);
	assert_null(shr_host_root_mem_cgroup(NULL));
	assert_null(shr_host_slab(NULL));
	assert_int_equal(shr_host_destroy(host), 0);
	assert_int_equal(shr_host_destroy(NULL), -EINVAL);
}

/* A borrowed allocator serves the host (its CPUs win over the host's
 * geometry_cpus) and stays usable after the host is gone. */
static void test_borrowed_allocator_outlives_the_host(void **state)
{
	struct shr_slab_params sp = { .nr_nodes = 2, .geometry_cpus = 48 };
	struct shr_slab_allocator *sa;
	struct shr_host_params p, got;
	struct shr_host *host;
	void *obj;

	(void)state;
	assert_int_equal(shr_slab_allocator_create(&sp, &sa), 0);
	shr_host_params_init(&p);
	p.slab = sa;
	p.geometry_cpus = 2;
	assert_int_equal(shr_host_create(&p, &host), 0);
	assert_ptr_equal(shr_host_slab(host), sa);
	shr_host_get_params(host, &got);
	assert_int_equal(got.geometry_cpus, 48);
	assert_ptr_equal(got.slab, sa);
	assert_int_equal(shr_host_destroy(host), 0);
	obj = shr_kmalloc(sa, 100, SHR_GFP_KERNEL);
	assert_non_null(obj);
	shr_kfree(sa, obj);
	shr_slab_allocator_destroy(sa);
}

/* destroy refuses (and changes nothing) while a cgroup, a shrinker or a
 * list_lru is left; each refusal is undone by removing that one thing. */
static void test_destroy_refuses_a_host_in_use(void **state)
{
	struct shr_host *host = fix_host(1, true);
	struct shr_mem_cgroup *cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	struct shr_list_lru *lru;
	struct fake f;

	(void)state;
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);

	fake_init(&f, 0);
	fake_make(host, &f, SHR_SHRINKER_MEMCG_AWARE, "left", true);
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_list_lru_init_memcg(host, f.shrinker, &lru), 0);
	fake_free(&f);
	assert_int_equal(shr_host_destroy(host), -EBUSY);
	assert_int_equal(shr_list_lru_destroy(lru), 0);
	/* Still whole after three refusals: a cgroup comes and goes. */
	cg = shr_test_mkcg(shr_host_root_mem_cgroup(host));
	assert_int_equal(shr_mem_cgroup_offline(cg), 0);
	assert_int_equal(shr_host_destroy(host), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_init_defaults),
		cmocka_unit_test(test_params_check_names_each_refusal),
		cmocka_unit_test(test_new_host_holds_an_online_root),
		cmocka_unit_test(test_borrowed_allocator_outlives_the_host),
		cmocka_unit_test(test_destroy_refuses_a_host_in_use),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("host", tests);
}
