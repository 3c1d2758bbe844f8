/* SPDX-License-Identifier: MIT */
/*
 * Test harness: seed handling and PRNG. See harness.h.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/memcg.h>
#include <shrinker/race.h>
#include <shrinker/rcu.h>

#include "harness.h"

static uint64_t run_seed;
static int run_long;
/* --only: cmocka's test filter, checked to match at least one test. */
static const char *only;
static struct {
	const char *design;
	const char *units;
	unsigned int expand_batch;
	int nonslab_ids;
	int nokmem;
	int nodes;
	char name[128];
} cfg = { .design = "xarray", .nodes = 2 };

/* A bad command line: one line naming what was wrong, exit code 2. */
static void usage_error(const char *prog, const char *fmt, const char *what)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, what);
	fputs("\noptions: --seed N, --long, --only PATTERN, --design NAME, --units cache|kmalloc, "
	      "--expand-batch N, --nodes N, --nonslab-ids, --nokmem\n",
	      stderr);
	exit(2);
}

/* The value of option argv[*i] (the next argument), or a usage error. */
static const char *option_value(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage_error(argv[0], "option %s needs a value", argv[*i]);
	return argv[++*i];
}

/* A whole decimal or 0x number in [min, max], or a usage error. */
static unsigned long long option_number(const char *prog, const char *opt, const char *v,
					unsigned long long min, unsigned long long max)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || n < min || n > max)
		usage_error(prog, "bad value for %s", opt);
	return n;
}

/*
 * Every option the harness knows; anything else exits 2, so that a typo
 * (--desgin flat) cannot run and pass the default configuration.
 */
static void parse_arg(int argc, char **argv, int *i)
{
	const char *prog = argv[0];
	const char *a = argv[*i];
	enum shr_design design;

	if (!strcmp(a, "--seed")) {
		run_seed = option_number(prog, a, option_value(argc, argv, i), 0, UINT64_MAX);
	} else if (!strcmp(a, "--long")) {
		run_long = 1;
	} else if (!strcmp(a, "--only")) {
		only = option_value(argc, argv, i);
	} else if (!strcmp(a, "--design")) {
		cfg.design = option_value(argc, argv, i);
		if (shr_design_parse(cfg.design, &design))
			usage_error(prog, "unknown design '%s'", cfg.design);
	} else if (!strcmp(a, "--units")) {
		cfg.units = option_value(argc, argv, i);
		if (strcmp(cfg.units, "cache") && strcmp(cfg.units, "kmalloc"))
			usage_error(prog, "unknown units source '%s' (cache or kmalloc)", cfg.units);
	} else if (!strcmp(a, "--expand-batch")) {
		cfg.expand_batch = (unsigned int)option_number(prog, a, option_value(argc, argv, i),
							       1, UINT_MAX);
	} else if (!strcmp(a, "--nodes")) {
		cfg.nodes = (int)option_number(prog, a, option_value(argc, argv, i), 1, INT_MAX);
	} else if (!strcmp(a, "--nonslab-ids")) {
		cfg.nonslab_ids = 1;
		cfg.nokmem = 1;
	} else if (!strcmp(a, "--nokmem")) {
		cfg.nokmem = 1;
	} else {
		usage_error(prog, "unknown argument '%s'", a);
	}
}

static void build_config_name(void)
{
	int n = snprintf(cfg.name, sizeof(cfg.name), "%s", cfg.design);

	if (cfg.units && n > 0 && (size_t)n < sizeof(cfg.name))
		n += snprintf(cfg.name + n, sizeof(cfg.name) - (size_t)n, "+units=%s", cfg.units);
	if (cfg.expand_batch && n > 0 && (size_t)n < sizeof(cfg.name))
		n += snprintf(cfg.name + n, sizeof(cfg.name) - (size_t)n, "+expand_batch=%u",
			      cfg.expand_batch);
	if (cfg.nonslab_ids && n > 0 && (size_t)n < sizeof(cfg.name))
		n += snprintf(cfg.name + n, sizeof(cfg.name) - (size_t)n, "+nonslab_ids");
	else if (cfg.nokmem && n > 0 && (size_t)n < sizeof(cfg.name))
		snprintf(cfg.name + n, sizeof(cfg.name) - (size_t)n, "+nokmem");
}

void shr_test_host_params(struct shr_host_params *p)
{
	enum shr_design design;

	shr_host_params_init(p);
	if (shr_design_parse(cfg.design, &design)) {
		fprintf(stderr, "unknown design '%s'\n", cfg.design);
		exit(2);
	}
	p->design = design;
	p->nr_nodes = cfg.nodes;
	p->geometry_cpus = 2;
	if (cfg.units && !strcmp(cfg.units, "kmalloc"))
		p->units = SHR_UNITS_KMALLOC;
	else if (cfg.units && !strcmp(cfg.units, "cache"))
		p->units = SHR_UNITS_CACHE;
	p->expand_batch = cfg.expand_batch;
	p->nonslab_ids = cfg.nonslab_ids;
	p->kmem = !cfg.nokmem;
}

struct shr_mem_cgroup *shr_test_mkcg(struct shr_mem_cgroup *parent)
{
	struct shr_mem_cgroup *memcg = NULL;

	assert_int_equal(shr_mem_cgroup_create(parent, &memcg), 0);
	return memcg;
}

const char *shr_test_config_name(void)
{
	return cfg.name;
}

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
	for (int i = 1; i < argc; i++)
		parse_arg(argc, argv, &i);
	build_config_name();
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

void shr_test_expect_abort(void (*fn)(void *arg), void *arg, const char *needle)
{
	char out[4096];
	size_t len = 0;
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], STDERR_FILENO);
		alarm(60);
		fn(arg);
		_exit(0);
	}
	close(pipefd[1]);
	while (len < sizeof(out) - 1 &&
	       (n = read(pipefd[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(out, needle)) {
		print_error("child: %s %d, expected SIGABRT and \"%s\" on stderr; it wrote:\n%s",
			    WIFSIGNALED(status) ? "killed by signal" : "exited with",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), needle,
			    out);
		fail();
	}
}

bool shr_test_widen(void)
{
	static bool said;
	int ret;

	if (!shr_race_available())
		return false;
	ret = shr_race_delays_from_env(run_seed);
	if (ret < 0) {
		fprintf(stderr, "bad SHR_RACE_DELAYS (want max_us,permille[,seed] or 0)\n");
		exit(2);
	}
	if (ret == 0 && getenv("SHR_RACE_DELAYS"))
		return false; /* "0": widening off */
	if (ret == 0 && shr_race_delays_enable(SHR_RACE_ALL, run_seed, 20, 5))
		return false;
	if (!said) {
		printf("# window widening: delays armed at the race points of the threaded tests\n");
		said = true;
	}
	return true;
}

void shr_test_widen_end(void)
{
	shr_race_delays_disable();
}

int shr_test_run_group(const char *name, const struct CMUnitTest *tests, size_t count)
{
	size_t selected = 0;
	int ret;

	for (size_t i = 0; only && i < count; i++)
		selected += !fnmatch(only, tests[i].name, 0);
	if (only && !selected) {
		/* A misspelt --only must not pass by running nothing. */
		fprintf(stderr, "%s: no test matches --only '%s'\n", name, only);
		return 1;
	}
	if (only)
		cmocka_set_test_filter(only);

	printf("# %s [%s]: seed %llu (replay with --seed %llu)\n", name, cfg.name,
	       (unsigned long long)run_seed, (unsigned long long)run_seed);
	fflush(stdout);
	shr_thread_register();
	ret = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
	shr_rcu_barrier();
	shr_thread_unregister();
	return ret;
}
