/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kwork: the workloads with objects under real reclaim, run in the guest
 * (kwork.c has the command line; one file per family of experiments).
 *
 * An experiment has named parameters with defaults (kwork EXP:k=v,k=v),
 * so the same program runs the geometry, CI's short one and the
 * seeds' own (kernel/klab reproduce passes the seeds' counts).
 */
#ifndef KLAB_KWORK_H
#define KLAB_KWORK_H

#include "kwlib.h"

struct kw_param {
	const char *name;
	const char *def;  /* default value (text) */
	const char *help;
	const char *val;  /* the value in force */
};

struct kw_exp {
	const char *name;
	const char *help;
	struct kw_param *params; /* ends with a NULL name */
	void (*run)(struct kw_exp *e);
};

/* A parameter's value; dies when @name is not one of @e's or is malformed. */
const char *kw_str(struct kw_exp *e, const char *name);
unsigned long kw_ul(struct kw_exp *e, const char *name);
double kw_dbl(struct kw_exp *e, const char *name);
/* A comma- or plus-separated list of unsigned numbers into @out (at most
 * @max); the count. */
size_t kw_ul_list(struct kw_exp *e, const char *name, unsigned long *out, size_t max);

/* Time a phase of experiment @exp (its elapsed time in the JSON). */
#define KW_PHASE(exp, call)                                  \
	do {                                                 \
		uint64_t t0_ = now_ns();                     \
		call;                                        \
		kjson_elapsed(exp, now_ns() - t0_);          \
	} while (0)

/* The experiments. */
extern struct kw_exp kw_exp_containers, kw_exp_tkhai, kw_exp_qizheng, kw_exp_ramfs, kw_exp_pods;
extern struct kw_exp kw_exp_density, kw_exp_tar;

/* The memcg farm that tkhai and qizheng share: @n memcgs below
 * KW_CG/farm, each with a tmpfs of its own (KW_MNT/farm/<i>) holding
 * @files files created from inside the memcg. Built once; a later call
 * with the same or a smaller @n reuses it. The time it took per memcg in
 * *@ns_per_memcg (0 when reused). */
#define KW_FARM_CG KW_CG "/farm"
#define KW_FARM_MNT KW_MNT "/farm"
unsigned long kw_farm_build(unsigned long n, unsigned long files, double *ns_per_memcg);
unsigned long kw_farm_size(void);

/* Shrinkers registered when the program started (debugfs entries). */
extern long kw_boot_shrinkers;

#endif
