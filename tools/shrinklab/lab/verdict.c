/* SPDX-License-Identifier: MIT */
/*
 * Verdicts (verdict.h): for each seed claim, does our measurement say the
 * same, judged on the measured spread rather than on the median alone.
 *
 * The seed's claims are ratios to its base design (the experiment's first),
 * "same within noise", bounds ("over 100 ms", "under 10 ms": the ratio of a
 * bound to a figure is a bound), or counts. Ours: the ratio of the medians,
 * and its spread, the range of the per-round ratios. Samples are taken in
 * rounds, every design once per round, so round k of a design and round k of
 * the base shared the machine's state; with n rounds the range of the n
 * paired ratios holds their median with probability 1 - 2^(1-n) (94% for 5
 * rounds; sign test). One reading (memory) has no spread. A kernel row
 * (claims.c: klab reproduce's) pairs only when its rounds are boots
 * interleaved with the base's (lab_result.unpaired otherwise: the widest
 * ratio the two ranges allow), and a timed figure of fewer than two
 * samples in all has no spread to judge: inconclusive.
 *
 * A ratio is "lower" below 0.8, "higher" above 1.25, "about the same" in
 * between. A verdict:
 *   agrees        our whole range falls where the seed's claim does;
 *   DISAGREES     our whole range falls elsewhere;
 *   inconclusive  our range straddles a boundary of the claim;
 *   not compared  we did not measure at the seed's geometry (the seed's
 *                 figure stays in the JSON, with both geometries);
 *   not measured  a design is unavailable, or the base measured zero.
 *
 * That is the direction. The size is a verdict of its own, beside it: for
 * a point claim (the seed's ratio, "the same" as a ratio of 1, a count) our
 * range over the seed's figure,
 *   agrees        the whole range within 0.5x..2x of the seed's;
 *   DISAGREES     the whole range beyond it;
 *   inconclusive  the range across 0.5x or 2x;
 *   -             not judged: a bound has no size, and neither has a claim
 *                 not compared or not measured.
 * A ratio can agree in direction and not in size (ours 640x lower, the
 * seed's 10x lower), or the other way round.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "seeds.h"
#include "verdict.h"

#define SAME_LO LAB_SAME_LO
#define SAME_HI LAB_SAME_HI

enum cls { LOWER = LAB_RATIO_LOWER, SAME = LAB_RATIO_SAME, HIGHER = LAB_RATIO_HIGHER,
	   STRADDLES = LAB_RATIO_STRADDLES };

const char *lab_size_name(enum lab_size_kind k)
{
	switch (k) {
	case LAB_SIZE_AGREES:
		return "agrees";
	case LAB_SIZE_DISAGREES:
		return "DISAGREES";
	case LAB_SIZE_INCONCLUSIVE:
		return "inconclusive";
	default:
		return "-";
	}
}

enum lab_size_kind lab_size_classify(double lo, double hi, double seed)
{
	if (!(seed > 0) || !(hi >= lo) || lo < 0)
		return LAB_SIZE_NOT_JUDGED;
	if (lo >= seed / LAB_SIZE_FACTOR && hi <= seed * LAB_SIZE_FACTOR)
		return LAB_SIZE_AGREES;
	if (hi < seed / LAB_SIZE_FACTOR || lo > seed * LAB_SIZE_FACTOR)
		return LAB_SIZE_DISAGREES;
	return LAB_SIZE_INCONCLUSIVE;
}

/* The size verdict of @v against the ratio (or count) @seed. */
static void judge_size(struct lab_verdict *v, double seed)
{
	v->size = lab_size_classify(v->lo, v->hi, seed);
	if (v->size != LAB_SIZE_NOT_JUDGED) {
		v->size_lo = v->lo / seed;
		v->size_hi = v->hi / seed;
	}
}

const char *lab_verdict_name(enum lab_verdict_kind k)
{
	switch (k) {
	case LAB_V_AGREES:
		return "agrees";
	case LAB_V_DISAGREES:
		return "DISAGREES";
	case LAB_V_INCONCLUSIVE:
		return "inconclusive";
	case LAB_V_NOT_COMPARED:
		return "not compared";
	default:
		return "not measured";
	}
}

enum lab_ratio_class lab_ratio_classify(double lo, double hi)
{
	if (hi < SAME_LO)
		return LAB_RATIO_LOWER;
	if (lo > SAME_HI)
		return LAB_RATIO_HIGHER;
	if (lo >= SAME_LO && hi <= SAME_HI)
		return LAB_RATIO_SAME;
	return LAB_RATIO_STRADDLES;
}

static enum cls classify(double lo, double hi)
{
	return (enum cls)lab_ratio_classify(lo, hi);
}

const char *lab_ratio_class_words(enum lab_ratio_class c)
{
	return c == LAB_RATIO_LOWER ? "lower" : c == LAB_RATIO_HIGHER ? "higher"
		: c == LAB_RATIO_SAME ? "about the same" : "across a boundary";
}

static const char *cls_word(enum cls c)
{
	return lab_ratio_class_words((enum lab_ratio_class)c);
}

bool lab_ratio_of(const struct lab_result *r, const struct lab_result *b, struct lab_ratio *q)
{
	memset(q, 0, sizeof(*q));
	if (!r || !b || r->unavailable || b->unavailable || b->value == 0)
		return false;
	q->median = r->value / b->value;
	if (r->timed && b->timed && !r->unpaired && !b->unpaired && r->n == b->n && r->n) {
		q->lo = INFINITY;
		q->hi = -INFINITY;
		for (size_t k = 0; k < r->n; k++) {
			double x;

			if (b->raw[k] <= 0)
				continue;
			x = r->raw[k] / b->raw[k];
			q->lo = x < q->lo ? x : q->lo;
			q->hi = x > q->hi ? x : q->hi;
			q->rounds++;
		}
		if (q->rounds) {
			q->paired = true;
			return true;
		}
	}
	/* Unpaired: the widest ratio the two ranges allow. */
	q->lo = b->max > 0 ? r->min / b->max : q->median;
	q->hi = b->min > 0 ? r->max / b->min : q->median;
	q->rounds = r->n < b->n ? r->n : b->n;
	return true;
}

void lab_verdict_set_ratio(struct lab_verdict *v, const struct lab_ratio *q)
{
	v->has_ours = true;
	v->ours = q->median;
	v->lo = q->lo;
	v->hi = q->hi;
	v->rounds = q->rounds;
	v->paired = q->paired;
}

/* Ratio of medians and the range of the per-round ratios. */
static void ratio_of(const struct lab_result *r, const struct lab_result *b,
		     struct lab_verdict *v)
{
	struct lab_ratio q;

	lab_ratio_of(r, b, &q);
	lab_verdict_set_ratio(v, &q);
}

/* The samples behind @r: its rounds, times what each stands for. */
static size_t sample_count(const struct lab_result *r)
{
	return r->n * (r->samples_per_round ? r->samples_per_round : 1);
}

static void judge_point(struct lab_verdict *v)
{
	enum cls cs = classify(v->seed, v->seed), co = classify(v->lo, v->hi);

	if (v->seed == 0) {
		v->kind = v->hi == 0 ? LAB_V_AGREES : LAB_V_DISAGREES;
		snprintf(v->text, sizeof(v->text), "%s", v->hi == 0 ? "both zero"
			 : "the seed has none, we have some");
		return;
	}
	if (v->hi == 0) {
		v->kind = LAB_V_DISAGREES;
		snprintf(v->text, sizeof(v->text), "we measured none, the seed some");
		return;
	}
	if (co == STRADDLES) {
		v->kind = LAB_V_INCONCLUSIVE;
		snprintf(v->text, sizeof(v->text), "the seed's ratio is %s; ours spans %.3g..%.3g, "
			 "across the 0.8/1.25 boundary", cls_word(cs), v->lo, v->hi);
		return;
	}
	v->kind = co == cs ? LAB_V_AGREES : LAB_V_DISAGREES;
	snprintf(v->text, sizeof(v->text), "ours %s, the seed's %s", cls_word(co), cls_word(cs));
}

static void judge_same(struct lab_verdict *v)
{
	enum cls co = classify(v->lo, v->hi);

	v->kind = co == SAME ? LAB_V_AGREES : co == STRADDLES ? LAB_V_INCONCLUSIVE
							      : LAB_V_DISAGREES;
	snprintf(v->text, sizeof(v->text), "%s",
		 co == SAME ? "every round within 0.8..1.25"
		 : co == STRADDLES ? "the rounds span the 0.8/1.25 boundary"
		 : co == LOWER ? "every round lower than 0.8" : "every round higher than 1.25");
}

static void judge_bound(struct lab_verdict *v)
{
	bool below = v->relation == '<';

	if (below ? v->hi < v->seed : v->lo > v->seed)
		v->kind = LAB_V_AGREES;
	else if (below ? v->lo >= v->seed : v->hi <= v->seed)
		v->kind = LAB_V_DISAGREES;
	else
		v->kind = LAB_V_INCONCLUSIVE;
	snprintf(v->text, sizeof(v->text), "the seed's figures bound the ratio %s %.3g; ours "
		 "spans %.3g..%.3g", below ? "below" : "above", v->seed, v->lo, v->hi);
}

char lab_seed_relation(const struct lab_seed_figure *f, const struct lab_seed_figure *bf)
{
	if (f->relation == '=' && bf->relation == '=')
		return '=';
	if (f->relation != '>' && bf->relation != '<')
		return '<';
	if (f->relation != '<' && bf->relation != '>')
		return '>';
	return 0;
}

static void init_verdict(struct lab_verdict *v, const struct lab_result *r,
			 const struct lab_result *b, const char *claim)
{
	memset(v, 0, sizeof(*v));
	v->metric = r->metric;
	v->claim = claim;
	v->relation = '=';
	snprintf(v->design, sizeof(v->design), "%s", r->design);
	if (b)
		snprintf(v->base, sizeof(v->base), "%s", b->design);
}

static void count_claim(const struct lab_result *r, struct lab_verdict *v)
{
	init_verdict(v, r, NULL, "count");
	v->has_seed = true;
	v->seed = r->seed->value;
	if (r->unavailable) {
		v->kind = LAB_V_NOT_MEASURED;
		snprintf(v->text, sizeof(v->text), "%s", r->seed_why);
		return;
	}
	if (!r->seed_comparable) {
		v->kind = LAB_V_NOT_COMPARED;
		snprintf(v->text, sizeof(v->text), "%s", r->seed_why);
		return;
	}
	v->has_ours = true;
	v->ours = v->lo = v->hi = r->value;
	v->rounds = r->n;
	v->kind = r->value == r->seed->value ? LAB_V_AGREES : LAB_V_DISAGREES;
	judge_size(v, v->seed);
	snprintf(v->text, sizeof(v->text), "%s", v->kind == LAB_V_AGREES ? "exactly" : "differs");
}

static void ratio_claim(const struct lab_result *r, const struct lab_result *b,
			struct lab_verdict *v)
{
	const struct lab_seed_figure *f = r->seed, *bf = b ? b->seed : NULL;
	char why[LAB_NOTE_LEN];

	init_verdict(v, r, b, f->same_as_base ? "same" : "ratio");

	if (r->unavailable || !b || b->unavailable) {
		v->kind = LAB_V_NOT_MEASURED;
		snprintf(v->text, sizeof(v->text), "%s has no figure in this run",
			 r->unavailable ? r->design : b ? b->design : "the base design");
		return;
	}
	if (!r->seed_comparable) {
		v->kind = LAB_V_NOT_COMPARED;
		snprintf(v->text, sizeof(v->text), "%s", r->seed_why);
		return;
	}
	if (!lab_seed_geometry_matches(&b->scale, b->geo_mask, &f->geo, why, sizeof(why))) {
		v->kind = LAB_V_NOT_COMPARED;
		snprintf(v->text, sizeof(v->text), "the base, %s: %s", b->design, why);
		return;
	}
	if (!f->same_as_base) {
		char rel = bf ? lab_seed_relation(f, bf) : 0;

		if (!bf || bf->same_as_base || !rel || bf->value == 0) {
			v->kind = LAB_V_NOT_COMPARED;
			snprintf(v->text, sizeof(v->text), "%s",
				 !bf || bf->same_as_base ? "the seed gives no figure for the base"
				 : !rel ? "the seed's two bounds point the same way"
					: "the seed's base figure is zero");
			return;
		}
		v->has_seed = true;
		v->seed = f->value / bf->value;
		v->relation = rel;
		v->claim = rel == '=' ? "ratio" : "bound";
	}
	if (b->value == 0) {
		v->kind = LAB_V_NOT_MEASURED;
		snprintf(v->text, sizeof(v->text), "the base measured 0: no ratio");
		return;
	}
	ratio_of(r, b, v);
	if (r->timed && (sample_count(r) < 2 || sample_count(b) < 2)) {
		/* The model never has fewer than 5 rounds; a kernel figure of one
		 * boot's one sample has no spread to judge. */
		v->kind = LAB_V_INCONCLUSIVE;
		snprintf(v->text, sizeof(v->text), "one sample: no spread to judge (more boots)");
		return;
	}
	if (f->same_as_base) {
		judge_same(v);
		judge_size(v, 1);
	} else if (v->relation == '=') {
		judge_point(v);
		judge_size(v, v->seed);
	} else {
		judge_bound(v);
	}
	if (r->seed_why[0] && v->kind != LAB_V_NOT_COMPARED) {
		size_t used = strlen(v->text);

		snprintf(v->text + used, sizeof(v->text) - used, " (%s)", r->seed_why);
	}
}

void lab_verdict_judge(const struct lab_result *r, const struct lab_result *b,
		       struct lab_verdict *v)
{
	if (!strcmp(r->unit, "count"))
		count_claim(r, v);
	else
		ratio_claim(r, b, v);
}

void lab_verdicts_compute(struct lab_run *run)
{
	free(run->verdicts);
	run->verdicts = NULL;
	run->nr_verdicts = 0;
	for (size_t i = 0; i < run->nr_rows; i++) {
		const struct lab_result *r = &run->rows[i];
		const struct lab_result *b = lab_run_base_row(run, r->metric);
		struct lab_verdict *nv;

		if (!r->seed || (b == r && strcmp(r->unit, "count")))
			continue;
		nv = realloc(run->verdicts, (run->nr_verdicts + 1) * sizeof(*nv));
		if (!nv)
			abort();
		run->verdicts = nv;
		lab_verdict_judge(r, b, &nv[run->nr_verdicts++]);
	}
}
