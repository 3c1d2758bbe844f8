/* SPDX-License-Identifier: MIT */
/*
 * shrinklab judge lab|work|claims: the kernel lab's tables, kernel beside
 * model, from the documents both worlds wrote (beside.h), and the seed
 * claims klab reproduce asks about (claims.h). It measures nothing: klab
 * lab, work and reproduce build and boot the kernels, run the model and
 * hand the documents here, so that the figures are judged by one program,
 * with the verdicts' one rule (verdict.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "beside.h"
#include "beside_join.h"
#include "commands.h"
#include "conventions.h"
#include "datafiles.h"
#include "json.h"
#include "jsonr.h"
#include "seeds.h"
#include "work_join.h"

#define JUDGE_METRICS_FILE "kernel_metrics.tsv"
#define JUDGE_WORKLOADS_FILE "kernel_workloads.tsv"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab judge lab|work [--json FILE] DOC\n"
		"       shrinklab judge claims DOC\n"
		"\n"
		"The kernel lab's tables, kernel beside model, from DOC (a klab-judge/1\n"
		"document, '-' for standard input: the guests' shrinklab/2 documents, the\n"
		"model's, each kernel design's model design and notes, the heading and\n"
		"the kernel's clock; klab lab and klab work write it). lab: each design's\n"
		"figure on both sides, model/kernel, and which design is better on each\n"
		"side with the verdicts' rule; work: each workload metric's kernel cells,\n"
		"their ratios to mainline, the best, the model's line. claims: DOC is a\n"
		"klab-claims/1 document (klab reproduce's: each seed claim's seed design,\n"
		"its base, the metric, its geometry keys and the two rows), each claim\n"
		"judged against data/seed_figures.tsv with the verdicts' rule, and its\n"
		"cells (figures and ratios) printed as the lab prints them, and each\n"
		"design's rows over boots merged as judge lab merges them; the answer\n"
		"as JSON on standard output (shrinklab-claims/1). Nothing is measured.\n"
		"\n"
		"  --json FILE  the comparison as JSON too (klab-lab/1's \"comparison\")\n"
		"  --version    the tool's version and git revision\n"
		"  --help       show this help\n");
	shrinklab_print_exit_codes(out);
}

enum { OPT_JSON = SHRINKLAB_OPT_FIRST_OWN };

/* The two tables judge prints: their join, tables and JSON. */
struct judged {
	struct lab_beside *lab;
	struct lab_work *work;
};

static void print_tables(FILE *out, const struct judged *j)
{
	if (j->lab)
		lab_beside_print(out, j->lab);
	else
		lab_work_print(out, j->work);
}

/* The comparison into @path: 0, or the exit code. */
static int write_json(const char *path, const struct judged *j)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f) {
		shrinklab_error("judge", "--json '%s': %s", path, strerror(errno));
		return SHRINKLAB_EXIT_USAGE;
	}
	if (j->lab)
		lab_beside_write_json(f, j->lab);
	else
		lab_work_write_json(f, j->work);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		shrinklab_error("judge", "%s could not be written: %s", path, strerror(err));
		return SHRINKLAB_EXIT_FAILED;
	}
	return SHRINKLAB_EXIT_OK;
}

/* judge claims DOC: the verdicts as JSON on standard output. */
static int judge_claims(const char *doc)
{
	struct lab_claims claims;
	struct lab_seeds seeds;
	struct jsonr_value in;
	char why[512];
	int err;

	err = lab_seeds_load(&seeds, NULL, why, sizeof(why));
	if (err) {
		shrinklab_error("judge", "%s", why);
		return SHRINKLAB_EXIT_FAILED;
	}
	err = jsonr_read_file(doc, &in, why, sizeof(why));
	if (!err) {
		err = lab_claims_judge(&in, &seeds, &claims, why, sizeof(why));
		jsonr_free(&in);
		if (err)
			shrinklab_error("judge", "claims: %s: %s", doc, why);
	} else {
		shrinklab_error("judge", "%s", why);
	}
	if (!err) {
		err = lab_json_write_claims(stdout, &claims);
		lab_claims_free(&claims);
		if (err) {
			shrinklab_error("judge", "standard output: %s", strerror(-err));
			lab_seeds_free(&seeds);
			return SHRINKLAB_EXIT_FAILED;
		}
	}
	lab_seeds_free(&seeds);
	if (err)
		return err == -ENOMEM ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	return SHRINKLAB_EXIT_OK;
}

int shrinklab_judge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
		{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
		{ "json", required_argument, NULL, OPT_JSON },
		{ NULL, 0, NULL, 0 },
	};
	struct shrinklab_getopt g;
	const char *json = NULL;
	char why[512], path[4096];
	struct jsonr_value in;
	struct judged j = { NULL, NULL };
	bool lab;
	int c, err, ret;

	shrinklab_getopt_init(&g, "judge", ":h", longopts, NULL, usage);
	while ((c = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		if (c != OPT_JSON)
			return SHRINKLAB_EXIT_USAGE;
		json = optarg;
	}
	if (c != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(c);
	if (optind >= argc || (strcmp(argv[optind], "lab") && strcmp(argv[optind], "work") &&
			       strcmp(argv[optind], "claims"))) {
		shrinklab_error("judge", optind < argc ? "no such tables '%s' (lab, work or claims)"
				: "which tables? (lab, work or claims)",
				optind < argc ? argv[optind] : "");
		return SHRINKLAB_EXIT_USAGE;
	}
	lab = !strcmp(argv[optind], "lab");
	if (optind + 2 != argc) {
		if (optind + 2 > argc)
			shrinklab_error("judge", "%s: which document? (a path, or - for standard "
					"input)", argv[optind]);
		else
			shrinklab_unexpected_argument("judge", argv[optind + 2]);
		return SHRINKLAB_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "claims")) {
		if (json) {
			shrinklab_error("judge", "claims: --json: the answer is JSON on standard "
					"output");
			return SHRINKLAB_EXIT_USAGE;
		}
		return judge_claims(argv[optind + 1]);
	}
	err = jsonr_read_file(argv[optind + 1], &in, why, sizeof(why));
	if (err) {
		shrinklab_error("judge", "%s", why);
		return err == -ENOMEM ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	if (lab)
		err = lab_beside_join(&in, lab_data_path(JUDGE_METRICS_FILE, path, sizeof(path)),
				      &j.lab, why, sizeof(why));
	else
		err = lab_work_join(&in, lab_data_path(JUDGE_WORKLOADS_FILE, path, sizeof(path)),
				    &j.work, why, sizeof(why));
	if (err) {
		shrinklab_error("judge", "%s: %s", argv[optind + 1], why);
		jsonr_free(&in);
		return err == -ENOMEM ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	ret = json ? write_json(json, &j) : SHRINKLAB_EXIT_OK;
	if (ret == SHRINKLAB_EXIT_OK)
		print_tables(stdout, &j);
	lab_beside_free(j.lab);
	lab_work_free(j.work);
	jsonr_free(&in);
	return ret;
}
