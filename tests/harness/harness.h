/* SPDX-License-Identifier: MIT */
/*
 * What the tests need beyond cmocka: a printed, replayable seed, a small
 * deterministic PRNG, and a run helper that registers the thread with RCU.
 *
 * Every randomised test prints "# seed: N" before it starts; run the test
 * binary with --seed N (or SHR_TEST_SEED=N) to replay it exactly.
 */
#ifndef SHR_TEST_HARNESS_H
#define SHR_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/*
 * 1 in builds configured with -Ddebug_checks=true (the build defines it for
 * every file), where API misuse aborts and the lock checker runs; 0
 * otherwise. Tests of the public API read it here, not from src/.
 */
#ifndef SHR_DEBUG_CHECKS
#define SHR_DEBUG_CHECKS 0
#endif

/*
 * Parse --seed/--long from argv (or the environment), and --only PATTERN
 * (run only the tests whose name matches; cmocka's * and ? wildcards), so
 * that one binary's long tests can be separate Meson tests. Call once from
 * main.
 */
void shr_test_init(int argc, char **argv);

/* The seed of this run (fixed by shr_test_init()). */
uint64_t shr_test_seed(void);

/* True if --long (or SHR_TEST_LONG=1) asked for longer randomized runs. */
int shr_test_long(void);

struct shr_host_params;
struct shr_mem_cgroup;

/*
 * Host parameters for design-parametrised tests: defaults, then what the
 * command line asked for: --design NAME, --units cache|kmalloc,
 * --expand-batch N, --nonslab-ids (implies kmem off), --nokmem, --nodes N.
 */
void shr_test_host_params(struct shr_host_params *params);

/* A new child of @parent; fails the test if creation fails. */
struct shr_mem_cgroup *shr_test_mkcg(struct shr_mem_cgroup *parent);

/* "design[+option=value...]" of this run, for messages. */
const char *shr_test_config_name(void);

/* splitmix64/xorshift PRNG state, seeded from the run seed and a stream id. */
struct shr_rng {
	uint64_t s;
};

void shr_rng_init(struct shr_rng *rng, uint64_t stream);
uint64_t shr_rng_next(struct shr_rng *rng);
/* Uniform in [0, bound), bound > 0. */
uint64_t shr_rng_below(struct shr_rng *rng, uint64_t bound);

/*
 * For misuse that debug builds abort on: run fn(arg) in a forked child with
 * its stderr captured, and fail the test unless the child dies of SIGABRT
 * having written @needle. @fn must not use cmocka's asserts (a failure
 * would unwind into the child's copy of the test runner) and should only
 * make the offending call: the child has no RCU callback thread. A child
 * still alive after 60 s is killed (SIGALRM): it hung instead of aborting.
 */
void shr_test_expect_abort(void (*fn)(void *arg), void *arg, const char *needle);

/*
 * Window widening for a multi-threaded test (<shrinker/race.h>): in builds
 * with race points, arm random delays at every race point, as the
 * environment's SHR_RACE_DELAYS says ("max_us,permille[,seed]", "0" = off)
 * or by default 20 us at 5/1000 of the hits (scaled per point) with the
 * run's seed. Call before starting the threads; shr_test_widen_end() after
 * joining them. Returns whether delays are armed (false in other builds).
 */
bool shr_test_widen(void);
void shr_test_widen_end(void);

/*
 * Run a cmocka group with the calling thread registered for RCU; prints the
 * seed first. Returns cmocka's result (the process exit code).
 */
int shr_test_run_group(const char *name, const struct CMUnitTest *tests, size_t count);

#define SHR_RUN_TESTS(name, tests) \
	shr_test_run_group((name), (tests), sizeof(tests) / sizeof((tests)[0]))

#endif /* SHR_TEST_HARNESS_H */
