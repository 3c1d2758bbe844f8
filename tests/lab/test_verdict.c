/* SPDX-License-Identifier: MIT */
/*
 * shrinklab's verdicts (tools/shrinklab/lab/verdict.c): the direction and
 * the size of a ratio are two verdicts. The direction classes a range
 * (below 0.8 lower, above 1.25 higher, the same between, across a boundary
 * inconclusive); the size agrees when the whole range is within 2x of the
 * seed's ratio. Issue 32's case: the model's 640x cut against the seed's
 * 10x agrees in direction and disagrees in size.
 */
#include "harness.h"
#include "verdict.h"

static void test_direction_classes_the_whole_range(void **state)
{
	(void)state;
	assert_int_equal(lab_ratio_classify(0.0015, 0.0016), LAB_RATIO_LOWER);
	assert_int_equal(lab_ratio_classify(0.81, 1.2), LAB_RATIO_SAME);
	assert_int_equal(lab_ratio_classify(1.3, 9), LAB_RATIO_HIGHER);
	assert_int_equal(lab_ratio_classify(0.7, 0.9), LAB_RATIO_STRADDLES);
}

static void test_size_is_a_verdict_of_its_own(void **state)
{
	(void)state;
	/* ours 640x lower, the seed's 10x: the same direction, not the size */
	assert_int_equal(lab_ratio_classify(1 / 640.0, 1 / 640.0),
			 lab_ratio_classify(0.0973, 0.0973));
	assert_int_equal(lab_size_classify(1 / 640.0, 1 / 640.0, 0.0973), LAB_SIZE_DISAGREES);
	/* the kernel's 0.053x against the seed's 0.0973x: within 2x */
	assert_int_equal(lab_size_classify(0.0513, 0.0547, 0.0973), LAB_SIZE_AGREES);
	/* a range across 2x of the seed's */
	assert_int_equal(lab_size_classify(0.04, 0.06, 0.0973), LAB_SIZE_INCONCLUSIVE);
	/* wholly above 2x */
	assert_int_equal(lab_size_classify(0.25, 0.3, 0.1), LAB_SIZE_DISAGREES);
	/* no seed ratio to size against */
	assert_int_equal(lab_size_classify(0.5, 0.6, 0), LAB_SIZE_NOT_JUDGED);
	assert_string_equal(lab_size_name(LAB_SIZE_NOT_JUDGED), "-");
	assert_string_equal(lab_size_name(LAB_SIZE_DISAGREES), "DISAGREES");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction_classes_the_whole_range),
		cmocka_unit_test(test_size_is_a_verdict_of_its_own),
	};

	shr_test_init(argc, argv);
	return SHR_RUN_TESTS("lab_verdict", tests);
}
