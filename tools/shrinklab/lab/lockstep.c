/* SPDX-License-Identifier: MIT */
/*
 * The lockstep sampler (lockstep.h): every subcommand that measures designs
 * side by side (reproduce, run, sweep, kernel) opens its benches, brings
 * them up and takes its samples through here, so every design of a run
 * shares the machine's noise the same way:
 *
 *   lab_lockstep_open()      one host per design, side by side, each with
 *                            the host's own memcg-aware shrinkers; a design
 *                            whose host cannot be built is closed again and
 *                            says why (lab_lockstep_unavailable() gives it
 *                            rows marked unavailable for every metric).
 *   lab_lockstep_populate()  mounts on every bench, then a pilot of cgroups
 *                            whose measured cost decides (lab_fit_cgroups())
 *                            how many cgroups each bench can afford, then
 *                            the rest.
 *   lab_lockstep_rounds()    warm-up rounds, then the measured rounds; each
 *                            round takes one sample of every bench in turn,
 *                            so designs share the machine's noise and a
 *                            round's samples can be compared as pairs
 *                            (verdict.c). Each sample starts after an RCU
 *                            barrier: no bench's deferred frees (call_rcu
 *                            callbacks of an earlier sample, e.g.
 *                            prealloc's replaced arrays) run on the other
 *                            core during another bench's sample.
 *
 * Every row records the geometry it was measured at (lab_lockstep_geometry()
 * when its phase starts). Nothing here fills a row of a bench that could not
 * run.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "lockstep.h"
#include "rows.h"
#include "scale.h"
#include "stats.h"
#include "units.h"

void lab_lockstep_open(struct lab_bench *b, const struct lab_design *designs, size_t n,
		       const struct lab_scale *s)
{
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_open(&b[i], &designs[i], s))
			continue;
		if (!b[i].why)
			b[i].why = "could not be created";
		lab_bench_close(&b[i]);
	}
}

void lab_lockstep_unavailable(struct lab_run *run, const struct lab_bench *b, size_t n,
			      const struct lab_scale *s)
{
	for (size_t i = 0; i < n; i++) {
		if (lab_bench_ok(&b[i]))
			continue;
		for (size_t m = 0; m < run->exp->nr_metrics; m++) {
			struct lab_result *r = lab_run_add(run, b[i].label,
							   run->exp->metrics[m].name);
			r->unavailable = true;
			r->scale = *s;
			r->scale.units = r->scale.shrinker_nr_max = -1;
			snprintf(r->scale.note, sizeof(r->scale.note), "unavailable: %s", b[i].why);
		}
		snprintf(run->hosts[i].label, sizeof(run->hosts[i].label), "%s", b[i].label);
		run->hosts[i].why = b[i].why;
	}
}

void lab_lockstep_open_run(struct lab_run *run, struct lab_bench *b, const struct lab_scale *s)
{
	lab_lockstep_open(b, run->designs, run->nr_designs, s);
	lab_lockstep_unavailable(run, b, run->nr_designs, s);
}

void lab_lockstep_close(struct lab_bench *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		lab_bench_close(&b[i]);
}

void lab_lockstep_geometry(const struct lab_bench *b, size_t n, struct lab_scale *geo)
{
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			lab_bench_geometry(&b[i], &geo[i]);
}

void lab_lockstep_record_hosts(struct lab_run *run, const struct lab_bench *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lab_host_info *h = &run->hosts[i];

		if (!lab_bench_ok(&b[i]))
			continue;
		snprintf(h->label, sizeof(h->label), "%s", b[i].label);
		h->available = true;
		h->why = NULL;
		lab_bench_geometry(&b[i], &h->geo);
	}
}

int lab_lockstep_populate(struct lab_run *run, struct lab_bench *b, size_t n,
			  const struct lab_scale *s, const struct lab_options *opt,
			  unsigned long *before)
{
	double per_cg[LAB_MAX_DESIGNS] = { 0 };
	unsigned long pilot = s->cgroups < LAB_PILOT_CGROUPS ? s->cgroups : LAB_PILOT_CGROUPS;
	unsigned long long used = 0;
	int ret;

	for (size_t i = 0; i < n; i++) {
		struct shr_slab_totals t;

		if (!lab_bench_ok(&b[i]))
			continue;
		lab_progress("mounting: design %zu/%zu, %lu mounts: %s", i + 1, n, s->mounts,
			     b[i].label);
		ret = lab_bench_mount(&b[i], s->mounts);
		if (ret)
			return ret;
		before[i] = lab_bench_sunreclaim(&b[i]);
		ret = lab_bench_mkcg(&b[i], pilot);
		if (ret)
			return ret;
		per_cg[i] = pilot ? (double)(lab_bench_sunreclaim(&b[i]) - before[i]) / pilot : 0;
		shr_slab_totals(shr_host_slab(b[i].host), &t);
		used += t.sunreclaim_bytes + t.sreclaimable_bytes + t.vmalloc_bytes;
	}
	if (used > opt->mem_budget) {
		char took[32], have[32];

		lab_fmt_value(took, sizeof(took), (double)used, "B");
		lab_fmt_value(have, sizeof(have), (double)opt->mem_budget, "B");
		snprintf(run->error, sizeof(run->error),
			 "the %lu mounts and %lu pilot cgroups alone take %s on %zu host(s), more "
			 "than the memory budget (%s): raise --mem-budget or lower --scale",
			 s->mounts, pilot, took, n, have);
		return -ENOSPC;
	}
	lab_fit_cgroups(b, n, per_cg, s->cgroups, pilot, opt->mem_budget - used);
	for (size_t i = 0; i < n; i++) {
		if (!lab_bench_ok(&b[i]))
			continue;
		if (b[i].cgroups_target < b[i].nr_cgs) {
			ret = lab_bench_rmcg(&b[i], b[i].nr_cgs - b[i].cgroups_target);
			if (ret)
				return ret;
			continue;
		}
		lab_progress("cgroups: design %zu/%zu, %lu cgroups: %s", i + 1, n,
			     b[i].cgroups_target, b[i].label);
		ret = lab_bench_mkcg(&b[i], b[i].cgroups_target - b[i].nr_cgs);
		if (ret)
			return ret;
	}
	return 0;
}

int lab_lockstep_rounds(struct lab_bench *b, size_t n, unsigned int warmup, unsigned int rounds,
			const char *what, lab_sample_fn fn, void *ctx, size_t nv, lab_samples_t *v)
{
	for (unsigned int s = 0; s < warmup + rounds; s++) {
		for (size_t i = 0; i < n; i++) {
			double x[LAB_MAX_VALUES] = { 0 };
			int ret;

			if (!lab_bench_ok(&b[i]))
				continue;
			lab_progress("%s: round %u/%u, design %zu/%zu, %zu/%zu done, %zu to do: %s",
				     what, s + 1, warmup + rounds, i + 1, n, s * n + i,
				     (size_t)(warmup + rounds) * n,
				     (size_t)(warmup + rounds) * n - s * n - i, b[i].label);
			shr_rcu_barrier();
			ret = fn(&b[i], ctx, x);
			if (ret)
				return ret;
			for (size_t k = 0; k < nv && k < LAB_MAX_VALUES && s >= warmup; k++)
				v[k][i][s - warmup] = x[k];
		}
	}
	return 0;
}

void lab_lockstep_add_samples(struct lab_run *run, const struct lab_bench *b, size_t n,
			      const char *metric, lab_samples_t v, unsigned int rounds,
			      const struct lab_scale *geo)
{
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			lab_run_add_samples(run, &b[i], metric, v[i], rounds, &geo[i]);
}

void lab_lockstep_resolution(struct lab_run *run, const struct lab_bench *b, size_t n,
			     const char *metric, enum lab_clock clock, const double *per,
			     double per1)
{
	for (size_t i = 0; i < n; i++)
		if (lab_bench_ok(&b[i]))
			lab_run_set_resolution(run, b[i].label, metric, clock, per ? per[i] : per1);
}

void lab_lockstep_note(struct lab_scale *geo, size_t n, const char *fmt, ...)
{
	char add[LAB_NOTE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(add, sizeof(add), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < n; i++) {
		size_t used = strlen(geo[i].note);

		snprintf(geo[i].note + used, sizeof(geo[i].note) - used, "%s%s", used ? "; " : "",
			 add);
	}
}

int lab_sample_drop_caches(struct lab_bench *b, void *ctx, double *value)
{
	uint64_t t0 = lab_now_ns();
	int ret = shr_drop_caches(b->host, NULL, NULL);

	(void)ctx;
	*value = (double)(lab_now_ns() - t0);
	return ret;
}

int lab_sample_mounts(struct lab_bench *b, void *ctx, double *value)
{
	unsigned long n = *(const unsigned long *)ctx;
	uint64_t t0 = lab_now_ns();
	int ret = lab_bench_mount(b, n);

	*value = (double)(lab_now_ns() - t0);
	return ret;
}

_Static_assert(LAB_CHURN_NR_VALUES <= LAB_MAX_VALUES, "a churn sample gives every value");

static double cpu_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int lab_sample_churn(struct lab_bench *b, void *ctx, double *v)
{
	unsigned long n = *(const unsigned long *)ctx;
	double p0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID), th0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t t0 = lab_now_ns(), t1, t2, t3;
	int ret = lab_bench_mkcg(b, n);

	t1 = lab_now_ns();
	if (!ret)
		ret = lab_bench_rmcg(b, n);
	t2 = lab_now_ns();
	shr_rcu_barrier();
	t3 = lab_now_ns();
	v[LAB_CHURN_MKDIR_RMDIR] = (double)(t2 - t0) / (double)n;
	v[LAB_CHURN_MKDIR] = (double)(t1 - t0) / (double)n;
	v[LAB_CHURN_RMDIR] = (double)(t2 - t1) / (double)n;
	v[LAB_CHURN_RELEASE_CPU] = ((cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - p0) -
				    (cpu_ns(CLOCK_THREAD_CPUTIME_ID) - th0)) / (double)n;
	if (v[LAB_CHURN_RELEASE_CPU] < 0)
		v[LAB_CHURN_RELEASE_CPU] = 0;
	v[LAB_CHURN_RELEASE] = (double)(t3 - t2) / (double)n;
	v[LAB_CHURN_RMDIR_RELEASE] = (double)(t3 - t1) / (double)n;
	return ret;
}
