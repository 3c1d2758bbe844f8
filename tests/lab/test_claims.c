/* SPDX-License-Identifier: MIT */
/*
 * Seed claims judged for klab reproduce (tools/shrinklab/lab/claims.c,
 * shrinklab judge claims): on the seeds' own figures (bitmap-2018's flat
 * over nobitmap, a ratio of 0.0798 with the seed's nodes and CPUs
 * unknown), what a kernel row brings that a model row never has: one
 * boot's samples do not pair round for round with the base's, a figure of
 * one sample has no spread to judge, and a claim at another geometry keeps
 * the ratio it has there. The cells print the figures of klab reproduce's
 * tables as the lab prints them (klab formats none). A bad document is
 * refused with its reason and leaves the answer untouched.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "harness.h"
#include "jsonr.h"
#include "seeds.h"

static struct lab_seeds seeds;

/* A row of the drop_caches test at the seed's mounts and cgroups. */
#define ROW(value, samples, paired, per_boot, mounts)                                   \
	"{\"design\":\"kernel:x\",\"unit\":\"ns\",\"timed\":true,\"value\":" value       \
	",\"samples\":[" samples "],\"paired\":" paired ",\"samples_per_boot\":" per_boot \
	",\"geometry\":{\"mounts\":" mounts ",\"cgroups\":4001,\"nodes\":1,\"cpus\":4}}"

static int judge_one(const char *row, const char *base, struct lab_claims *out, char *why,
		     size_t len)
{
	char doc[2048];
	struct jsonr_value in;
	int err;

	snprintf(doc, sizeof(doc),
		 "{\"schema\":\"klab-claims/1\",\"claims\":[{\"experiment\":\"bitmap-2018\","
		 "\"design\":\"flat\",\"base\":\"nobitmap\",\"metric\":\"drop_caches_ns_first\","
		 "\"geometry\":[\"mounts\",\"cgroups\",\"nodes\",\"cpus\"],\"row\":%s,"
		 "\"base_row\":%s}]}", row, base);
	err = jsonr_parse(doc, strlen(doc), &in, why, len);
	assert_int_equal(err, 0);
	err = lab_claims_judge(&in, &seeds, out, why, len);
	jsonr_free(&in);
	return err;
}

/* The answer to the document @doc, which must be judged. */
static void judge_doc(const char *doc, struct lab_claims *out)
{
	struct jsonr_value in;
	char why[256];

	assert_int_equal(jsonr_parse(doc, strlen(doc), &in, why, sizeof(why)), 0);
	assert_int_equal(lab_claims_judge(&in, &seeds, out, why, sizeof(why)), 0);
	jsonr_free(&in);
}

static void test_rows_of_one_sample_are_inconclusive(void **state)
{
	struct lab_claims c;
	char why[256];

	(void)state;
	assert_int_equal(judge_one(ROW("8", "8", "false", "1", "4001"),
				   ROW("100", "100", "false", "1", "4001"), &c, why, sizeof(why)), 0);
	assert_int_equal(c.nr_claims, 1);
	assert_int_equal(c.claims[0].verdict.kind, LAB_V_INCONCLUSIVE);
	assert_non_null(strstr(c.claims[0].verdict.text, "one sample"));
	lab_claims_free(&c);
	/* The same figures over five samples a boot: lower, as the seed's. */
	assert_int_equal(judge_one(ROW("8", "8", "false", "5", "4001"),
				   ROW("100", "100", "false", "5", "4001"), &c, why, sizeof(why)), 0);
	assert_int_equal(c.claims[0].verdict.kind, LAB_V_AGREES);
	assert_true(c.claims[0].has_seed_ratio);
	assert_true(c.claims[0].seed_ratio > 0.079 && c.claims[0].seed_ratio < 0.08);
	lab_claims_free(&c);
}

static void test_unpaired_rows_take_the_widest_range(void **state)
{
	struct lab_claims c;
	char why[256];

	(void)state;
	assert_int_equal(judge_one(ROW("5", "4,6", "true", "5", "4001"),
				   ROW("100", "80,120", "true", "5", "4001"), &c, why, sizeof(why)), 0);
	assert_true(c.claims[0].verdict.paired);
	assert_true(c.claims[0].verdict.lo == 0.05 && c.claims[0].verdict.hi == 0.05);
	lab_claims_free(&c);
	/* One boot's samples of the design, with their range: unpaired. */
	assert_int_equal(judge_one("{\"design\":\"kernel:x\",\"unit\":\"ns\",\"timed\":true,"
				   "\"value\":5,\"min\":4,\"max\":6,\"samples\":[4,6],"
				   "\"paired\":false,\"samples_per_boot\":5,\"geometry\":"
				   "{\"mounts\":4001,\"cgroups\":4001}}",
				   "{\"design\":\"kernel:x\",\"unit\":\"ns\",\"timed\":true,"
				   "\"value\":100,\"min\":80,\"max\":120,\"samples\":[80,120],"
				   "\"paired\":true,\"samples_per_boot\":5,\"geometry\":"
				   "{\"mounts\":4001,\"cgroups\":4001}}", &c, why, sizeof(why)), 0);
	assert_false(c.claims[0].verdict.paired);
	assert_true(c.claims[0].verdict.lo == 4.0 / 120 && c.claims[0].verdict.hi == 6.0 / 80);
	lab_claims_free(&c);
}

static void test_a_row_not_measured_says_so(void **state)
{
	struct lab_claims c;
	char why[256];

	(void)state;
	/* A guest that does not measure the metric: no row, on either side. */
	assert_int_equal(judge_one("null", "null", &c, why, sizeof(why)), 0);
	assert_int_equal(c.claims[0].verdict.kind, LAB_V_NOT_MEASURED);
	assert_string_equal(c.claims[0].verdict.text, "the design has no figure in this run");
	lab_claims_free(&c);
	assert_int_equal(judge_one(ROW("40", "40", "false", "5", "4001"), "null", &c, why,
				   sizeof(why)),
			 0);
	assert_int_equal(c.claims[0].verdict.kind, LAB_V_NOT_MEASURED);
	assert_string_equal(c.claims[0].verdict.text, "the base design has no figure in this run");
	lab_claims_free(&c);
}

static void test_other_geometry_keeps_its_ratio(void **state)
{
	struct lab_claims c;
	char why[256];

	(void)state;
	assert_int_equal(judge_one(ROW("40", "40", "false", "5", "1600"),
				   ROW("100", "100", "false", "5", "1600"), &c, why, sizeof(why)), 0);
	assert_int_equal(c.claims[0].verdict.kind, LAB_V_NOT_COMPARED);
	assert_non_null(strstr(c.claims[0].verdict.text, "ours at mounts=1600"));
	assert_true(c.claims[0].verdict.has_ours && c.claims[0].verdict.ours == 0.4);
	lab_claims_free(&c);
}

static void test_cells_print_figures_as_the_lab_does(void **state)
{
	static const char doc[] =
		"{\"schema\":\"klab-claims/1\",\"cells\":["
		"{\"value\":2764.8,\"unit\":\"B\"},"
		"{\"value\":36900000,\"unit\":\"ns\",\"min\":26000000,\"max\":69100000},"
		"{\"value\":5,\"unit\":\"ns\",\"min\":5,\"max\":5},"
		"{\"value\":1234.5678,\"unit\":\"\"},"
		"{\"ratio\":0.79612,\"lo\":0.7871,\"hi\":0.8564},"
		"{\"ratio\":0.0798},{\"count\":20003},"
		"{\"value\":20003,\"unit\":\"objects\",\"decimals\":2},"
		"{\"value\":1.54321,\"unit\":\"ratio\"},{\"percent\":0.1234}]}";
	static const char *const want[] = {
		"2.7 KiB", "36.90 ms [26.00 ms..69.10 ms]", "5 ns", "1235",
		"0.796 [0.787..0.856]", "0.0798", "20003", "20003.00", "1.54x", "12.3%",
	};
	struct lab_claims c;

	(void)state;
	judge_doc(doc, &c);
	assert_int_equal(c.nr_cells, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < c.nr_cells; i++)
		assert_string_equal(c.cells[i].text, want[i]);
	lab_claims_free(&c);
}

static void test_boots_merge_as_the_kernel_lab_does(void **state)
{
	/* Boot medians 3, 1, 2.5: their median 2.5, the farthest 1.5 / 2.5
	 * = 0.6 from it (beyond the 0.10 target); every sample 1..4 (a row
	 * without min and max ranges over its value). Boots 100, 104, 96:
	 * 0.04, within. */
	static const char doc[] =
		"{\"schema\":\"klab-claims/1\",\"boots\":["
		"[{\"value\":3,\"min\":2,\"max\":4,\"unit\":\"ns\"},"
		"{\"value\":1,\"min\":1,\"max\":1,\"unit\":\"ns\"},{\"value\":2.5}],"
		"[{\"value\":100,\"unit\":\"B\"},{\"value\":104},{\"value\":96}],"
		"[{\"value\":7,\"min\":6,\"max\":8,\"unit\":\"B\"}]]}";
	struct lab_claims c;

	(void)state;
	judge_doc(doc, &c);
	assert_int_equal(c.nr_boots, 3);
	assert_true(c.boots[0].fig.value == 2.5);
	assert_true(c.boots[0].fig.lo == 1 && c.boots[0].fig.hi == 4);
	assert_true(c.boots[0].fig.vlo == 1 && c.boots[0].fig.vhi == 3);
	assert_true(c.boots[0].fig.has_boot_spread);
	assert_true(fabs(c.boots[0].fig.boot_spread - 0.6) < 1e-12);
	assert_false(c.boots[0].within_target);
	assert_true(c.boots[1].fig.value == 100 && c.boots[1].within_target);
	assert_true(fabs(c.boots[1].fig.boot_spread - 0.04) < 1e-12);
	/* One boot: its own samples' range, no spread, so not within. */
	assert_true(c.boots[2].fig.value == 7 && c.boots[2].fig.vlo == 6);
	assert_int_equal(c.boots[2].fig.boots, 1);
	assert_false(c.boots[2].fig.has_boot_spread);
	assert_false(c.boots[2].within_target);
	lab_claims_free(&c);
}

static void test_a_bad_document_is_refused_untouched(void **state)
{
	static const char *const bad[] = {
		"{\"schema\":\"klab-lab/1\"}",
		"{\"schema\":\"klab-claims/1\",\"ratios\":3}",
		"{\"schema\":\"klab-claims/1\",\"claims\":[{\"experiment\":\"bitmap-2018\"}]}",
		("{\"schema\":\"klab-claims/1\",\"claims\":[{\"experiment\":\"bitmap-2018\","
		 "\"design\":\"flat\",\"metric\":\"nothing\",\"geometry\":[]}]}"),
		"{\"schema\":\"klab-claims/1\",\"sizes\":[{\"lo\":1}]}",
		"{\"schema\":\"klab-claims/1\",\"cells\":[{\"count\":1},{\"value\":1}]}",
		"{\"schema\":\"klab-claims/1\",\"cells\":{}}",
		"{\"schema\":\"klab-claims/1\",\"cells\":[{\"value\":1,\"unit\":\"\","
		"\"decimals\":1.5}]}",
		"{\"schema\":\"klab-claims/1\",\"boots\":[[]]}",
		"{\"schema\":\"klab-claims/1\",\"boots\":[[{\"value\":1}],[{\"unit\":\"B\"}]]}",
		"{\"schema\":\"klab-claims/1\",\"boots\":[{\"value\":1}]}",
	};
	struct lab_claims c;
	char why[256];

	(void)state;
	memset(&c, 0, sizeof(c));
	c.claims = (void *)&c;
	c.nr_claims = 7;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jsonr_value in;

		assert_int_equal(jsonr_parse(bad[i], strlen(bad[i]), &in, why, sizeof(why)), 0);
		why[0] = '\0';
		assert_int_equal(lab_claims_judge(&in, &seeds, &c, why, sizeof(why)), -EINVAL);
		assert_true(why[0] != '\0');
		assert_true(c.claims == (void *)&c && c.nr_claims == 7);
		jsonr_free(&in);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_of_one_sample_are_inconclusive),
		cmocka_unit_test(test_unpaired_rows_take_the_widest_range),
		cmocka_unit_test(test_a_row_not_measured_says_so),
		cmocka_unit_test(test_other_geometry_keeps_its_ratio),
		cmocka_unit_test(test_cells_print_figures_as_the_lab_does),
		cmocka_unit_test(test_boots_merge_as_the_kernel_lab_does),
		cmocka_unit_test(test_a_bad_document_is_refused_untouched),
	};

	char why[256];
	int ret;

	shr_test_init(argc, argv);
	if (lab_seeds_load(&seeds, NULL, why, sizeof(why))) {
		fprintf(stderr, "test_lab_claims: %s\n", why);
		return 1;
	}
	ret = SHR_RUN_TESTS("lab_claims", tests);
	lab_seeds_free(&seeds);
	return ret;
}
