/* SPDX-License-Identifier: MIT */
/*
 * Seed claims judged for a caller that measured the rows itself: klab
 * reproduce hands the kernel's rows (and the model's, of the design that
 * does the kernel's work) in a klab-claims/1 document, and each claim is
 * judged with the verdicts' one rule (verdict.h) against the seeds'
 * figures (seeds.h). claims.c says what the document holds; shrinklab
 * judge claims is the command, output/json.h writes the answer.
 */
#ifndef SHRINKLAB_CLAIMS_H
#define SHRINKLAB_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "beside_join.h"
#include "jsonr.h"
#include "seeds.h"
#include "types.h"
#include "verdict.h"

/* One claim judged: the verdict, and the seed's ratio of the design's
 * figure to the base's as the seed states it (for the reader). */
struct lab_claim {
	char metric[64];
	struct lab_verdict verdict;
	bool has_seed_ratio;
	double seed_ratio;
	char seed_relation; /* '=', '<', '>', or '?' when the bounds say nothing */
};

/* One row over another, outside any claim. */
struct lab_claim_ratio {
	bool has_ratio; /* false: a row is missing, or the base measured zero */
	struct lab_ratio q;
	enum lab_ratio_class cls;
};

/* One figure as klab reproduce's tables print it (claims.c, "cells"). */
struct lab_claim_cell {
	char text[128];
};

/* One design's metric over boots (claims.c, "boots"): the kernel lab's
 * cell (lab_bs_cell()) of the boots' rows. */
struct lab_claim_boots {
	struct lab_bs_fig fig; /* its key is NULL: the rows are the document's */
	bool within_target;    /* a boot spread at most LAB_BOOT_SPREAD_TARGET */
};

struct lab_claims {
	struct lab_claim *claims;
	size_t nr_claims;
	struct lab_claim_ratio *ratios;
	size_t nr_ratios;
	enum lab_size_kind *sizes; /* a range's size against another ratio */
	size_t nr_sizes;
	enum lab_ratio_class *classes; /* a range's class */
	size_t nr_classes;
	struct lab_claim_cell *cells; /* the figures asked to be printed */
	size_t nr_cells;
	struct lab_claim_boots *boots; /* rows merged over boots */
	size_t nr_boots;
};

/*
 * Judge every claim and ratio of the klab-claims/1 document @in against
 * @seeds into @out, and print every figure of its cells.
 * Context: process context; allocates.
 * Return: 0; -EINVAL with @why (@len bytes) naming the claim and what is
 * wrong with it (a field missing or of the wrong type, a geometry key or a
 * seed figure that does not exist, a cell of no kind, boots that are not
 * a list of rows with figures); -ENOMEM. @out is untouched on error.
 */
int lab_claims_judge(const struct jsonr_value *in, const struct lab_seeds *seeds,
		     struct lab_claims *out, char *why, size_t len);
/* Free what @c holds. Context: any. */
void lab_claims_free(struct lab_claims *c);

#endif /* SHRINKLAB_CLAIMS_H */
