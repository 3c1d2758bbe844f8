/* SPDX-License-Identifier: MIT */
/*
 * shrinklab judge lab: the kernel lab's tables, kernel beside model, from
 * the documents both worlds wrote (beside.h). It measures nothing: klab
 * lab builds and boots the kernels, runs the model and hands the documents
 * here, so that the figures are judged and printed by one program, with
 * the verdicts' one rule (verdict.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "beside.h"
#include "beside_join.h"
#include "commands.h"
#include "conventions.h"
#include "datafiles.h"
#include "jsonr.h"

#define JUDGE_METRICS_FILE "kernel_metrics.tsv"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: shrinklab judge lab [--json FILE] DOC\n"
		"\n"
		"The kernel lab's tables, kernel beside model, from DOC (a klab-judge/1\n"
		"document, '-' for standard input: the guests' shrinklab/2 documents, the\n"
		"model's, each kernel design's model design and notes, the heading and\n"
		"the kernel's clock; klab lab writes it): each design's figure on both\n"
		"sides, model/kernel, and which design is better on each side with the\n"
		"verdicts' rule. Nothing is measured.\n"
		"\n"
		"  --json FILE  the comparison as JSON too (klab-lab/1's \"comparison\")\n"
		"  --version    the tool's version and git revision\n"
		"  --help       show this help\n");
	shrinklab_print_exit_codes(out);
}

enum { OPT_JSON = SHRINKLAB_OPT_FIRST_OWN };

/* The comparison into @path: 0, or the exit code. */
static int write_json(const char *path, const struct lab_beside *b)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f) {
		shrinklab_error("judge", "--json '%s': %s", path, strerror(errno));
		return SHRINKLAB_EXIT_USAGE;
	}
	lab_beside_write_json(f, b);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		shrinklab_error("judge", "%s could not be written: %s", path, strerror(err));
		return SHRINKLAB_EXIT_FAILED;
	}
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
	struct lab_beside *b;
	int c, err, ret;

	shrinklab_getopt_init(&g, "judge", ":h", longopts, NULL, usage);
	while ((c = shrinklab_getopt_next(&g, argc, argv)) >= 0) {
		if (c != OPT_JSON)
			return SHRINKLAB_EXIT_USAGE;
		json = optarg;
	}
	if (c != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(c);
	if (optind >= argc || strcmp(argv[optind], "lab")) {
		shrinklab_error("judge", optind < argc ? "no such table '%s' (lab is the one)" :
				"which tables? (lab)", optind < argc ? argv[optind] : "");
		return SHRINKLAB_EXIT_USAGE;
	}
	if (optind + 2 != argc) {
		if (optind + 2 > argc)
			shrinklab_error("judge", "lab: which document? (a path, or - for standard "
					"input)");
		else
			shrinklab_unexpected_argument("judge", argv[optind + 2]);
		return SHRINKLAB_EXIT_USAGE;
	}
	err = jsonr_read_file(argv[optind + 1], &in, why, sizeof(why));
	if (err) {
		shrinklab_error("judge", "%s", why);
		return err == -ENOMEM ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	err = lab_beside_join(&in, lab_data_path(JUDGE_METRICS_FILE, path, sizeof(path)), &b, why,
			      sizeof(why));
	if (err) {
		shrinklab_error("judge", "%s: %s", argv[optind + 1], why);
		jsonr_free(&in);
		return err == -ENOMEM ? SHRINKLAB_EXIT_FAILED : SHRINKLAB_EXIT_USAGE;
	}
	ret = json ? write_json(json, b) : SHRINKLAB_EXIT_OK;
	if (ret == SHRINKLAB_EXIT_OK)
		lab_beside_print(stdout, b);
	lab_beside_free(b);
	jsonr_free(&in);
	return ret;
}
