/* SPDX-License-Identifier: MIT */
/*
 * Verdicts: for each seed claim of a run, whether our measurement says the
 * same (verdict.c says how it is judged).
 */
#ifndef SHRINKLAB_VERDICT_H
#define SHRINKLAB_VERDICT_H

#include "types.h"

/* "agrees", "DISAGREES", "inconclusive", "not compared", "not measured". */
const char *lab_verdict_name(enum lab_verdict_kind k);
/* One verdict per seed claim of @run (fills run->verdicts). */
void lab_verdicts_compute(struct lab_run *run);

#endif /* SHRINKLAB_VERDICT_H */
