/* SPDX-License-Identifier: MIT */
/*
 * The kernel lab's experiments in the model (kernel_experiments.h): the
 * guest's script (../scripts/kernel_lab.c, the one klab-guest runs in the
 * kernel) on one model host per design configuration, side by side through
 * the lockstep sampler (world_model.c), at the guest's geometry, so that
 * each kernel design can be put beside the same design in the model on the
 * same work (kernel/klab lab does the join; shrinklab kernel runs it).
 *
 * The geometry comes from the options, which are the guest's (klab passes
 * the guest's own, and the N each guest really used), plus the ids the
 * guest's ladder assumes taken before the workload (--host-shrinkers: the
 * model registers that many empty mounts first). Every figure is measured on
 * the model's hosts (their own prefaulted slab allocator): memory from the
 * allocator's counters, times from the clock. The metric names are the
 * script's, so a row of the model and a row of the kernel pair by name.
 */
#include <stdio.h>
#include <string.h>

#include "kernel_experiments.h"
#include "lockstep.h"
#include "rows.h"
#include "stats.h"

/* The caches the guest counts objects of, by their kernel names. */
static const char *const cache_names[] = {
	"kmalloc-1k", "radix_tree_node", "shrinker_info_unit", NULL,
};

void lab_kernel_describe(const struct kl_geometry *g, char *buf, size_t len)
{
	int n = snprintf(buf, len, "the kernel guest's geometry: ladder");

	for (int i = 0; i < g->nr_ladder && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%u", i ? "," : " ", g->ladder[i]);
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " units per node (%lu host shrinker ids), N=%lu "
			 "(register %lu, top %lu), Nu=%lu, Nr=%lu, H=%lu, B=%lu, %lu nodes, %lu CPUs",
			 g->host_shrinkers, g->cgroups, g->register_cgroups, g->top_cgroups,
			 g->units_cgroups, g->churn_cgroups, g->highwater_mounts, g->register_batch,
			 g->nodes, g->cpus);
}

void lab_kernel_init(struct lab_kernel_lab *st, const struct kl_geometry *g,
		     const struct lab_design *designs, size_t n)
{
	const struct lab_scale seed = { .nodes = (int)g->nodes, .cpus = (unsigned int)g->cpus,
					.kmem = true, .host_shrinkers = (unsigned int)g->host_shrinkers,
					.shrinker_nr_max = -1, .units = -1 };

	memset(st, 0, sizeof(*st));
	st->g = *g;
	st->n = n;
	memcpy(st->designs, designs, n * sizeof(*designs));
	for (int e = 0; e < KL_NR_EXP; e++) {
		st->exps[e].id = kl_exp_ids[e];
		st->exps[e].title = kl_exp_titles[e];
		st->exps[e].seed_scale = seed;
	}
	lab_world_init(&st->world, st->b, n, st->exps, st->runs, KL_NR_EXP, LAB_G_PER_CGROUP,
		       cache_names);
	kl_declare_metrics(&st->world.w, &st->g);
	for (int e = 0; e < KL_NR_EXP; e++) {
		struct lab_run *r = &st->runs[e];

		r->exp = &st->exps[e];
		r->scale = st->exps[e].seed_scale;
		r->scale.cgroups = e == KL_REGISTER ? st->g.register_cgroups : st->g.cgroups;
		lab_kernel_describe(&st->g, r->scale_desc, sizeof(r->scale_desc));
		memcpy(r->designs, st->designs, st->n * sizeof(st->designs[0]));
		r->nr_designs = st->n;
	}
}

int lab_kernel_run(struct lab_kernel_lab *st)
{
	struct lab_scale s = st->exps[0].seed_scale;
	uint64_t t0 = lab_now_ns();
	int ret;

	lab_lockstep_open(st->b, st->designs, st->n, &s);
	for (int e = 0; e < KL_NR_EXP; e++)
		lab_lockstep_unavailable(&st->runs[e], st->b, st->n, &s);
	ret = kl_run(&st->world.w, &st->g);
	lab_progress_done();
	for (int e = 0; e < KL_NR_EXP && !ret; e++)
		lab_lockstep_record_hosts(&st->runs[e], st->b, st->n);
	lab_lockstep_close(st->b, st->n);
	for (int e = 0; e < KL_NR_EXP; e++) {
		st->runs[e].elapsed_ns = lab_now_ns() - t0;
		if (!ret)
			lab_run_sort(&st->runs[e]);
	}
	return ret;
}

void lab_kernel_free(struct lab_kernel_lab *st)
{
	for (int e = 0; e < KL_NR_EXP; e++)
		lab_run_free(&st->runs[e]);
}
