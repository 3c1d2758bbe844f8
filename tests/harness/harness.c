/* SPDX-License-Identifier: MIT */
/*
 * Test harness: seed handling and PRNG. See harness.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shrinker/rcu.h>

#include "harness.h"

static uint64_t run_seed;
static int run_long;

static uint64_t default_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec;
}

void shr_test_init(int argc, char **argv)
{
	const char *env = getenv("SHR_TEST_SEED");

	run_seed = env ? strtoull(env, NULL, 0) : default_seed();
	env = getenv("SHR_TEST_LONG");
	run_long = env && !strcmp(env, "1");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			run_seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--long"))
			run_long = 1;
	}
}

uint64_t shr_test_seed(void)
{
	return run_seed;
}

int shr_test_long(void)
{
	return run_long;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void shr_rng_init(struct shr_rng *rng, uint64_t stream)
{
	uint64_t x = run_seed ^ (stream * 0xd1342543de82ef95ULL);

	rng->s = splitmix64(&x);
}

uint64_t shr_rng_next(struct shr_rng *rng)
{
	return splitmix64(&rng->s);
}

uint64_t shr_rng_below(struct shr_rng *rng, uint64_t bound)
{
	return shr_rng_next(rng) % bound;
}

int shr_test_run_group(const char *name, const struct CMUnitTest *tests, size_t count)
{
	int ret;

	printf("# %s: seed %llu (replay with --seed %llu)\n", name,
	       (unsigned long long)run_seed, (unsigned long long)run_seed);
	fflush(stdout);
	shr_thread_register();
	ret = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
	shr_rcu_barrier();
	shr_thread_unregister();
	return ret;
}
