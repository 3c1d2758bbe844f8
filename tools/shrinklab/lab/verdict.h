/* SPDX-License-Identifier: MIT */
/*
 * Verdicts: for each seed claim of a run, whether our measurement says the
 * same (verdict.c says how it is judged).
 */
#ifndef SHRINKLAB_VERDICT_H
#define SHRINKLAB_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

/* A ratio is lower below LAB_SAME_LO, higher above LAB_SAME_HI, about the
 * same in between (within the noise of a shared machine). */
#define LAB_SAME_LO 0.8
#define LAB_SAME_HI 1.25
enum lab_ratio_class {
	LAB_RATIO_LOWER,     /* the whole range below 0.8 */
	LAB_RATIO_SAME,      /* the whole range in 0.8..1.25 */
	LAB_RATIO_HIGHER,    /* the whole range above 1.25 */
	LAB_RATIO_STRADDLES, /* across a boundary */
};
enum lab_ratio_class lab_ratio_classify(double lo, double hi);
/* "lower", "higher", "about the same", "across a boundary". Context: any. */
const char *lab_ratio_class_words(enum lab_ratio_class c);

/* One row over another of the same metric. */
struct lab_ratio {
	double median; /* the ratio of the medians */
	double lo, hi; /* the range of the per-round ratios (paired), else the
			* widest the two rows' ranges allow */
	size_t rounds;
	bool paired;
};
/* @r over @b: true, or false when there is none (either missing or
 * unavailable, or @b measured zero). */
bool lab_ratio_of(const struct lab_result *r, const struct lab_result *b, struct lab_ratio *q);
/* @q as @v's ratio (ours, its range, rounds, pairing). Context: any. */
void lab_verdict_set_ratio(struct lab_verdict *v, const struct lab_ratio *q);

/* A ratio agrees in size with the seed's when our whole range is within
 * this factor of it, either way. */
#define LAB_SIZE_FACTOR 2.0
/* The size verdict of our range @lo..@hi against the seed's ratio @seed
 * (> 0; else not judged). */
enum lab_size_kind lab_size_classify(double lo, double hi, double seed);
/* "agrees", "DISAGREES", "inconclusive", "-" (not judged). */
const char *lab_size_name(enum lab_size_kind k);
/* "agrees", "DISAGREES", "inconclusive", "not compared", "not measured":
 * the direction. */
const char *lab_verdict_name(enum lab_verdict_kind k);
/*
 * The verdict on the seed claim of @r (r->seed, with r->seed_comparable and
 * r->seed_why: lab_seeds_attach(), or the caller's) against @b, the row of
 * the claim's base design (NULL: not measured; unused for a count), into @v.
 * Context: any.
 */
void lab_verdict_judge(const struct lab_result *r, const struct lab_result *b,
		       struct lab_verdict *v);
/* The seed's ratio of @f to @bf: '=', '<', '>', or 0 when the two bounds
 * point the same way and say nothing about the ratio. Context: any. */
char lab_seed_relation(const struct lab_seed_figure *f, const struct lab_seed_figure *bf);
/* One verdict per seed claim of @run (fills run->verdicts). */
void lab_verdicts_compute(struct lab_run *run);

#endif /* SHRINKLAB_VERDICT_H */
