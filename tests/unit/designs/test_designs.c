/* SPDX-License-Identifier: MIT */
/*
 * The design table (src/designs/designs.c, shr_design_info_of()) is what the rest of the library,
 * the tests and the lab go by, so check that it describes what the hosts do:
 * the names the build lists (argv: src/meson.build's shr_designs) are the
 * table's, each once; every parameter a row says a design takes is accepted
 * and every one it says it does not take is refused; a host made with the
 * defaults resolves them to the row's; shrinker_nr_max grows by the row's
 * id step. Public API only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shrinker/host.h>
#include <shrinker/rcu.h>
#include <shrinker/shrinker.h>

#include "fake_shrinker.h"
#include "harness.h"

static int build_argc;
static char **build_argv;

/* The build's list of designs is the table's, each name once. */
static void test_build_lists_every_design_of_the_table(void **state)
{
	int listed[SHR_NR_DESIGNS] = { 0 };

	(void)state;
	assert_int_equal(build_argc, SHR_NR_DESIGNS);
	for (int i = 0; i < build_argc; i++) {
		enum shr_design d;

		if (shr_design_parse(build_argv[i], &d))
			fail_msg("the build lists design '%s', which the table does not have",
				 build_argv[i]);
		listed[d]++;
	}
	for (int d = 0; d < SHR_NR_DESIGNS; d++)
		if (listed[d] != 1)
			fail_msg("design '%s' is listed %d times by the build",
				 shr_design_name((enum shr_design)d), listed[d]);
	assert_null(shr_design_info_of(SHR_NR_DESIGNS));
	assert_null(shr_design_name(SHR_NR_DESIGNS));
}

/* What a row says a design takes is accepted, the rest refused. */
static void test_parameters_follow_the_table(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		const struct shr_design_info *info = shr_design_info_of((enum shr_design)d);
		struct shr_host_params p;
		enum shr_design parsed;

		assert_non_null(info->name);
		assert_int_equal(shr_design_parse(info->name, &parsed), 0);
		assert_int_equal(parsed, d);
		assert_string_equal(shr_design_name((enum shr_design)d), info->name);
		assert_true(info->id_step > 0);
		assert_true(!info->root_bits || info->bits);

		shr_host_params_init(&p);
		p.design = (enum shr_design)d;
		assert_int_equal(shr_host_params_check(&p, NULL), 0);
		p.units = SHR_UNITS_KMALLOC;
		assert_int_equal(shr_host_params_check(&p, NULL), info->units ? 0 : -EINVAL);
		p.units = SHR_UNITS_DEFAULT;
		p.expand_batch = 8;
		assert_int_equal(shr_host_params_check(&p, NULL), info->expand_batch ? 0 : -EINVAL);
		p.expand_batch = 0;
		p.kmem = false;
		p.nonslab_ids = true;
		assert_int_equal(shr_host_params_check(&p, NULL), info->nonslab_ids ? 0 : -EINVAL);
	}
}

/* A host made with the defaults runs with the row's defaults, and its
 * shrinker_nr_max grows by the row's id step. */
static void test_hosts_resolve_the_rows_defaults(void **state)
{
	(void)state;
	for (int d = 0; d < SHR_NR_DESIGNS; d++) {
		const struct shr_design_info *info = shr_design_info_of((enum shr_design)d);
		struct shr_host_params p, got;
		struct shr_shrinker *s;
		struct shr_host *host;
		struct fake f;

		shr_host_params_init(&p);
		p.design = (enum shr_design)d;
		p.geometry_cpus = 2;
		assert_int_equal(shr_host_create(&p, &host), 0);
		shr_host_get_params(host, &got);
		assert_int_equal(shr_host_design(host), d);
		assert_int_equal(got.units, info->default_units);
		assert_int_equal(got.lru_reparent, info->default_lru_reparent);
		assert_int_equal(got.expand_batch, info->expand_batch);
		assert_int_equal(shr_shrinker_nr_max(host), 0);
		fake_init(&f, 0);
		s = fake_make(host, &f, SHR_SHRINKER_MEMCG_AWARE, "t", true);
		/* Id 0: one step, the expand_batch default rounded up to it. */
		assert_int_equal(shr_shrinker_nr_max(host),
				 (int)((info->expand_batch > info->id_step ? info->expand_batch
									  : info->id_step) +
				       info->id_step - 1) / (int)info->id_step * (int)info->id_step);
		shr_shrinker_free(s);
		shr_rcu_barrier();
		assert_int_equal(shr_host_destroy(host), 0);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_lists_every_design_of_the_table),
		cmocka_unit_test(test_parameters_follow_the_table),
		cmocka_unit_test(test_hosts_resolve_the_rows_defaults),
	};

	/* The arguments are the build's design names, not harness options. */
	build_argc = argc - 1;
	build_argv = argv + 1;
	shr_test_init(1, argv);
	return SHR_RUN_TESTS("designs", tests);
}
