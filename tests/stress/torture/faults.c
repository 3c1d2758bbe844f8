/* SPDX-License-Identifier: MIT */
/*
 * Window widening at the race points (debug builds) and allocation
 * failures injected while the workers run.
 */
#include "torture.h"

bool widening(void)
{
	return T.cfg.delay_max_us && shr_race_available();
}

/* Arm (@on) or disarm the delays; a no-op when widening is off. */
void widen(bool on, uint64_t phase)
{
	int ret;

	if (!widening())
		return;
	if (!on) {
		shr_race_delays_disable();
		return;
	}
	ret = shr_race_delays_enable(T.cfg.delay_mask, T.cfg.seed ^ (phase * 0x9e3779b97f4a7c15ULL),
				     T.cfg.delay_max_us, T.cfg.delay_permille);
	if (ret)
		violation("shr_race_delays_enable: %d", ret);
}

/* Print this design's race-point hits and add them to the run's totals. */
void report_race_hits(const struct shr_host_params *params)
{
	int unreached = 0;

	if (!shr_race_available())
		return;
	printf("  race points (hits%s):", widening() ? ", delays armed" : "");
	for (int p = 0; p < SHR_RACE_NR; p++) {
		unsigned long h = shr_race_hits((enum shr_race_point)p);
		bool reachable = shr_race_point_reachable((enum shr_race_point)p, params);

		T.race_hits[p] += h;
		T.race_reachable[p] |= reachable;
		if (h)
			printf(" %s=%lu", shr_race_point_name((enum shr_race_point)p), h);
		else if (reachable)
			unreached++;
	}
	printf("\n");
	if (unreached) {
		printf("  race points of this design not reached in this run:");
		for (int p = 0; p < SHR_RACE_NR; p++)
			if (!shr_race_hits((enum shr_race_point)p) &&
			    shr_race_point_reachable((enum shr_race_point)p, params))
				printf(" %s", shr_race_point_name((enum shr_race_point)p));
		printf("\n");
	}
}

/* After every design: each point some design could reach was reached. */
void check_race_coverage(void)
{
	if (!shr_race_available())
		return;
	for (int p = 0; p < SHR_RACE_NR; p++)
		if (T.race_reachable[p] && !T.race_hits[p])
			violation("race point %s was never reached by the designs run",
				  shr_race_point_name((enum shr_race_point)p));
	printf("torture: every race point reachable by the designs run was reached\n");
}

static const char *const fault_sites[] = {
	"radix_tree_node", "kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96",
	"kmalloc-128", "kmalloc-192", "kmalloc-256", "kmalloc-512", "kmalloc-1k",
	"shrinker_info_unit", "dentry", "shmem_inode_cache", "tq_obj", "large", "vmalloc",
};

/*
 * Replace the armed rule (the workers keep running): mostly fail one
 * allocation among the next few hundred, whoever makes it; sometimes every
 * allocation of one cache until the next rule; sometimes none. Every call
 * of the workers must then return 0 or -ENOMEM, and the checks (run with
 * faults off) must still hold.
 */
void arm_fault(uint64_t *rng)
{
	unsigned int r = rng_below(rng, 10);

	if (!T.cfg.faults)
		return;
	if (r < 7)
		shr_slab_fail_nth(T.sa, 1 + rng_below(rng, 300), false);
	else if (r < 9)
		(void)shr_slab_fail_site(T.sa, fault_sites[rng_below(rng, sizeof(fault_sites) /
								   sizeof(fault_sites[0]))]);
	else
		shr_slab_fault_clear(T.sa);
}
