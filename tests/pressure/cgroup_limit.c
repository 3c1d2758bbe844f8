/* SPDX-License-Identifier: MIT */
/*
 * cgroup_limit: examples/pressure_cache under a real kernel's memory.high.
 *
 * Runs the example (a static build against the installed library, given as
 * the first argument) in a cgroup v2 with memory.high and memory.max set
 * below what it would use, three times:
 *   armed    with its byte budget (half of memory.high), its reclaimer, a
 *            PSI trigger on the cgroup's memory.pressure through systemd's
 *            $MEMORY_PRESSURE_WATCH / $MEMORY_PRESSURE_WRITE protocol, and
 *            the cgroup's memory.events: it must stay under memory.high
 *            (memory.peak, no "high" event) and finish;
 *   unarmed  without a reclaimer: it must exceed memory.high and be
 *            throttled (memory.events high, PSI stall) or killed at
 *            memory.max;
 *   psi      with the reclaimer and no budget, only the PSI trigger
 *            (through $MEMORY_PRESSURE_WATCH): only the kernel's signal can
 *            make it give memory back; the trigger must fire, and it must
 *            finish without an OOM kill;
 *   events   the same with only the cgroup's memory.events.
 * It samples memory.current every 10 ms (CLOCK_MONOTONIC of wherever it
 * runs: in the lab's QEMU guest, under TCG) and prints, per scenario, the
 * usage over time against the limit, peak (memory.peak) and mean, the
 * time above memory.high, the kernel's counters (memory.events,
 * memory.pressure totals), each excursion over memory.high (from the
 * first sample over it to the first back under: the kernel's view of the
 * time from breach to memory given back), the example's own lines (its
 * reclaim rounds and their latency), and a verdict.
 *
 * Needs root and a cgroup v2 hierarchy with the memory controller at
 * /sys/fs/cgroup; elsewhere (a cgroup v1 host) it prints why and exits 77,
 * which Meson reads as "skipped". scripts/check-pressure-guest.sh builds
 * both programs against the installed library and boots the lab's kernel
 * with them.
 *
 * Usage: cgroup_limit EXAMPLE [--high MiB] [--max MiB] [--fill MiB]
 *                     [--scenario armed|unarmed|psi|events|all]
 * Exit: 0 every verdict held, 1 one did not, 2 bad arguments, 77 skipped.
 */
/* clock_gettime, sysconf, malloc_usable_size: POSIX and glibc, beyond C11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP2_SUPER_MAGIC 0x63677270
#define SAMPLE_MS 10
#define MAX_SAMPLES 200000
#define SCENARIO_TIMEOUT_S 900
#define KIB 1024UL
#define MIB (1024UL * 1024UL)
/* The PSI trigger the armed and psi runs get through the environment:
 * a 50 ms stall in a 500 ms window (root may use any window). */
#define PSI_TRIGGER "some 50000 500000"

struct sample {
	double t_ms;
	unsigned long current;
};

struct outcome {
	const char *name;
	bool exited;
	int status;     /* exit status or signal */
	bool saw_ok;    /* the example's "pressure_cache: ok" */
	unsigned long wakes_psi, wakes_events, rounds;
	size_t excursions;
	double excursion_median_ms, excursion_max_ms;
	unsigned long peak, mean, max_sampled;
	double above_ms, total_ms;
	unsigned long ev_high, ev_max, ev_oom, ev_oom_kill;
	unsigned long some_us, full_us;
	size_t nr_samples;
};

static struct sample samples[MAX_SAMPLES];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	err = n < 0 ? errno : EIO;
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -err;
}

static int read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static unsigned long read_ulong(const char *path)
{
	char buf[64];

	return read_str(path, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 10);
}

/* The number after @key on the line of @path that starts with
 * @line_prefix ("high 3" in memory.events, "some ... total=N" in
 * memory.pressure); 0 when absent. */
static unsigned long read_key(const char *path, const char *line_prefix, const char *key)
{
	char buf[4096], *line = buf;

	if (read_str(path, buf, sizeof(buf)))
		return 0;
	while (line && *line) {
		char *eol = strchr(line, '\n'), *k;

		if (eol)
			*eol = '\0';
		k = strstr(line, key);
		if (!strncmp(line, line_prefix, strlen(line_prefix)) && k)
			return strtoul(k + strlen(key), NULL, 10);
		line = eol ? eol + 1 : NULL;
	}
	return 0;
}

static void base64(const unsigned char *in, size_t len, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < len; i += 3) {
		unsigned int v = (unsigned int)in[i] << 16;

		if (i + 1 < len)
			v |= (unsigned int)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		out[o++] = tab[(v >> 18) & 63];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < len ? tab[v & 63] : '=';
	}
	out[o] = '\0';
}

/* Why this machine cannot run the test, or NULL. */
static const char *unsupported(void)
{
	static char why[512];
	char ctl[256];
	struct statfs sfs;

	if (geteuid() != 0)
		return "not root";
	if (statfs(CGROUP_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return CGROUP_ROOT " is not a cgroup v2 mount (a cgroup v1 or hybrid host)";
	if (read_str(CGROUP_ROOT "/cgroup.controllers", ctl, sizeof(ctl)) || !strstr(ctl, "memory")) {
		snprintf(why, sizeof(why), "no memory controller on the cgroup v2 hierarchy "
			 "(controllers: %s)", ctl);
		why[strcspn(why, "\n")] = '\0';
		return why;
	}
	return NULL;
}

struct scenario {
	const char *name;
	const char *what;
	bool reclaimer, budget, psi, events;
};

static const struct scenario scenarios[] = {
	{ "armed", "budget, reclaimer, PSI via MEMORY_PRESSURE_WATCH, memory.events",
	  true, true, true, true },
	{ "unarmed", "no reclaimer, no budget", false, false, false, false },
	{ "psi", "no budget; reclaimer, PSI via MEMORY_PRESSURE_WATCH only", true, false, true,
	  false },
	{ "events", "no budget; reclaimer, memory.events only", true, false, false, true },
};
#define NR_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

struct limits {
	unsigned long high, max, fill;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The excursions over memory.high in the samples: each from its first
 * sample over to the first back under (one still over at the end counts
 * to the last sample). Fills @out's count, median and maximum.
 */
static void excursions(struct outcome *out, const struct limits *lim)
{
	static double len[MAX_SAMPLES];
	size_t n = 0;
	double start = -1;

	for (size_t i = 0; i < out->nr_samples; i++) {
		bool over = samples[i].current > lim->high;

		if (over && start < 0)
			start = samples[i].t_ms;
		if ((!over || i + 1 == out->nr_samples) && start >= 0) {
			len[n++] = samples[i].t_ms - start;
			start = -1;
		}
	}
	out->excursions = n;
	if (!n)
		return;
	qsort(len, n, sizeof(len[0]), cmp_double);
	out->excursion_median_ms = len[n / 2];
	out->excursion_max_ms = len[n - 1];
}

/* Run the example in @cg for @sc; fills @out. Return: 0 or -errno. */
static int run_one(const char *example, const char *cg, const struct scenario *sc,
		   const struct limits *lim, struct outcome *out)
{
	char path[512], budget[32], fill[32], events[512], watch[512], b64[128];
	char *argv[16];
	int pfd[2], argc = 0;
	double t0, next;
	pid_t pid;
	FILE *in;
	char line[1024];
	size_t n = 0;
	int wstatus;
	unsigned long sum = 0;

	snprintf(budget, sizeof(budget), "%lu", sc->budget ? lim->high / 2 / MIB : 0);
	snprintf(fill, sizeof(fill), "%lu", lim->fill / MIB);
	snprintf(events, sizeof(events), "%s/memory.events", cg);
	snprintf(watch, sizeof(watch), "%s/memory.pressure", cg);
	base64((const unsigned char *)PSI_TRIGGER, sizeof(PSI_TRIGGER), b64);
	argv[argc++] = (char *)example;
	argv[argc++] = "--fill";
	argv[argc++] = fill;
	argv[argc++] = "--every";
	argv[argc++] = "4";
	argv[argc++] = "--budget";
	argv[argc++] = budget;
	if (!sc->reclaimer)
		argv[argc++] = "--no-reclaimer";
	if (sc->events) {
		argv[argc++] = "--events";
		argv[argc++] = events;
	}
	if (!sc->psi)
		argv[argc++] = "--no-systemd";
	argv[argc] = NULL;

	if (pipe(pfd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
		if (write_str(path, "0")) {
			perror("cgroup_limit: joining the cgroup");
			_exit(126);
		}
		if (sc->psi) {
			setenv("MEMORY_PRESSURE_WATCH", watch, 1);
			setenv("MEMORY_PRESSURE_WRITE", b64, 1);
		}
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(example, argv);
		perror("cgroup_limit: exec");
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	in = fdopen(pfd[0], "r");
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	t0 = now_ms();
	next = t0;
	for (bool eof = false; !eof;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		double t = now_ms();

		if (t >= next) {
			if (n < MAX_SAMPLES) {
				samples[n].t_ms = t - t0;
				samples[n].current = read_ulong(path);
				sum += samples[n].current;
				n++;
			}
			next += SAMPLE_MS;
		}
		if (t - t0 > SCENARIO_TIMEOUT_S * 1000.0) {
			printf("  [%s] still running after %d s: killed\n", sc->name,
			       SCENARIO_TIMEOUT_S);
			kill(pid, SIGKILL);
		}
		if (poll(&p, 1, SAMPLE_MS) <= 0)
			continue;
		for (;;) {
			if (!fgets(line, sizeof(line), in)) {
				if (feof(in))
					eof = true;
				clearerr(in);
				break;
			}
			printf("  [%s] %s", sc->name, line);
			if (!strcmp(line, "pressure_cache: ok\n"))
				out->saw_ok = true;
			if (!strncmp(line, "summary:", 8)) {
				char *p = strstr(line, "wakes_psi="), *e = strstr(line, "wakes_events=");
				char *r = strstr(line, "rounds=");

				out->wakes_psi = p ? strtoul(p + 10, NULL, 10) : 0;
				out->wakes_events = e ? strtoul(e + 13, NULL, 10) : 0;
				out->rounds = r ? strtoul(r + 7, NULL, 10) : 0;
			}
		}
	}
	fclose(in);
	waitpid(pid, &wstatus, 0);
	out->total_ms = now_ms() - t0;
	out->exited = WIFEXITED(wstatus);
	out->status = out->exited ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus);
	out->nr_samples = n;
	out->mean = n ? sum / n : 0;
	for (size_t i = 0; i < n; i++) {
		if (samples[i].current > out->max_sampled)
			out->max_sampled = samples[i].current;
		if (samples[i].current > lim->high)
			out->above_ms += SAMPLE_MS;
	}
	excursions(out, lim);
	snprintf(path, sizeof(path), "%s/memory.peak", cg);
	out->peak = read_ulong(path);
	out->ev_high = read_key(events, "high ", "high ");
	out->ev_max = read_key(events, "max ", "max ");
	out->ev_oom = read_key(events, "oom ", "oom ");
	out->ev_oom_kill = read_key(events, "oom_kill ", "oom_kill ");
	out->some_us = read_key(watch, "some ", "total=");
	out->full_us = read_key(watch, "full ", "total=");
	return 0;
}

/* About 24 points of the usage curve, against the limit. */
static void print_curve(const char *name, const struct outcome *o, const struct limits *lim)
{
	size_t step = o->nr_samples / 24 + 1;

	printf("  [%s] memory.current over time (KiB; memory.high %lu, memory.max %lu):\n", name,
	       lim->high / KIB, lim->max / KIB);
	for (size_t i = 0; i < o->nr_samples; i += step) {
		unsigned long worst = 0;

		for (size_t j = i; j < i + step && j < o->nr_samples; j++)
			if (samples[j].current > worst)
				worst = samples[j].current;
		printf("  [%s]   t=%8.0f ms  max %7lu  %s\n", name, samples[i].t_ms, worst / KIB,
		       worst > lim->high ? "over high" : "");
	}
}

static int check(bool ok, const char *name, const char *what)
{
	printf("  [%s] %s: %s\n", name, ok ? "ok" : "FAILED", what);
	return ok ? 0 : 1;
}

/* The verdict of one scenario. Return: failures. */
static int judge(const struct scenario *sc, const struct outcome *o, const struct limits *lim)
{
	int f = 0;

	if (!strcmp(sc->name, "armed")) {
		f += check(o->exited && o->status == 0 && o->saw_ok, sc->name,
			   "the example finished and its own checks held");
		f += check(o->peak <= lim->high, sc->name, "memory.peak stayed under memory.high");
		f += check(o->ev_high == 0, sc->name, "the kernel never throttled it (no high event)");
	} else if (!strcmp(sc->name, "unarmed")) {
		f += check(o->peak > lim->high, sc->name, "without a reclaimer it exceeded memory.high");
		f += check(o->ev_high > 0 && (o->some_us > 0 || o->ev_oom_kill > 0), sc->name,
			   "and was throttled (high events, PSI stall) or OOM-killed");
	} else {
		f += check(o->exited && o->status == 0 && o->ev_oom_kill == 0, sc->name,
			   "it finished, never OOM-killed");
		if (sc->psi)
			f += check(o->wakes_psi > 0, sc->name,
				   "the PSI trigger fired and made the reclaimer run");
		if (sc->events)
			f += check(o->wakes_events > 0, sc->name,
				   "memory.events fired and made the reclaimer run");
	}
	return f;
}

static int parse_mib(const char *s, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v == 0 || v > 65536)
		return -1;
	*out = v * MIB;
	return 0;
}

int main(int argc, char **argv)
{
	struct limits lim = { 16 * MIB, 24 * MIB, 48 * MIB };
	struct outcome res[NR_SCENARIOS] = { { 0 } };
	const char *example, *which = "all", *why;
	char cg[256], path[320], val[32];
	int failures = 0, ran = 0, skipped = 0, ret;

	if (argc < 2 || argv[1][0] == '-')
		goto usage;
	example = argv[1];
	for (int i = 2; i < argc; i += 2) {
		if (i + 1 >= argc)
			goto usage;
		if (!strcmp(argv[i], "--high")) {
			if (parse_mib(argv[i + 1], &lim.high))
				goto usage;
		} else if (!strcmp(argv[i], "--max")) {
			if (parse_mib(argv[i + 1], &lim.max))
				goto usage;
		} else if (!strcmp(argv[i], "--fill")) {
			if (parse_mib(argv[i + 1], &lim.fill))
				goto usage;
		} else if (!strcmp(argv[i], "--scenario")) {
			which = argv[i + 1];
		} else {
			goto usage;
		}
	}
	if (lim.max <= lim.high || access(example, X_OK))
		goto usage;
	why = unsupported();
	if (why) {
		printf("SKIP: cgroup_limit needs a cgroup v2 memory controller: %s; the kernel lab "
		       "runs it in a guest (scripts/check-pressure-guest.sh)\n", why);
		return 77;
	}
	ret = write_str(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	if (ret) {
		/* E.g. a container's cgroup namespace whose root holds processes
		 * (the no-internal-process rule refuses it). */
		printf("SKIP: cgroup_limit cannot enable the memory controller in %s: %s\n",
		       CGROUP_ROOT "/cgroup.subtree_control", strerror(-ret));
		return 77;
	}
	if (read_str("/proc/version", cg, sizeof(cg)) == 0)
		printf("kernel: %s", cg);
	if (read_str("/sys/devices/system/clocksource/clocksource0/current_clocksource", cg,
		     sizeof(cg)) == 0)
		printf("clocksource: %s", cg);
	printf("limits: memory.high %lu KiB, memory.max %lu KiB, swap none; the example "
	       "inserts %lu MiB; samples every %d ms (CLOCK_MONOTONIC)\n",
	       lim.high / KIB, lim.max / KIB, lim.fill / MIB, SAMPLE_MS);
	for (size_t s = 0; s < NR_SCENARIOS; s++) {
		const struct scenario *sc = &scenarios[s];
		struct outcome *o = &res[s];

		if (strcmp(which, "all") && strcmp(which, sc->name))
			continue;
		memset(o, 0, sizeof(*o));
		o->name = sc->name;
		snprintf(cg, sizeof(cg), CGROUP_ROOT "/shr-%s-%d", sc->name, (int)getpid());
		if (mkdir(cg, 0755)) {
			printf("SKIP: cgroup_limit cannot make a cgroup: mkdir %s: %s\n", cg,
			       strerror(errno));
			return 77;
		}
		snprintf(path, sizeof(path), "%s/memory.high", cg);
		snprintf(val, sizeof(val), "%lu", lim.high);
		failures += write_str(path, val) != 0;
		snprintf(path, sizeof(path), "%s/memory.max", cg);
		snprintf(val, sizeof(val), "%lu", lim.max);
		failures += write_str(path, val) != 0;
		snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
		(void)write_str(path, "0");
		printf("scenario %s (%s)\n", sc->name, sc->what);
		fflush(stdout);
		snprintf(path, sizeof(path), "%s/memory.pressure", cg);
		if (sc->psi && !sc->budget && access(path, F_OK)) {
			/* A kernel built with PSI off by default (CONFIG_PSI_DEFAULT_
			 * DISABLED, Debian's) has no memory.pressure without psi=1. */
			printf("  [%s] skipped: %s does not exist (PSI disabled: boot with psi=1)\n",
			       sc->name, path);
			o->name = NULL;
			rmdir(cg);
			skipped++;
			continue;
		}
		ret = run_one(example, cg, sc, &lim, o);
		if (ret) {
			printf("cgroup_limit: cannot run %s: %s\n", example, strerror(-ret));
			return 1;
		}
		print_curve(sc->name, o, &lim);
		printf("  [%s] %s %d after %.0f ms; memory.peak %lu KiB, mean %lu KiB, %.0f ms of "
		       "%.0f over memory.high; memory.events high %lu max %lu oom %lu oom_kill "
		       "%lu; memory.pressure some %lu us full %lu us\n",
		       sc->name, o->exited ? "exit" : "signal", o->status, o->total_ms,
		       o->peak / KIB, o->mean / KIB, o->above_ms, o->total_ms, o->ev_high, o->ev_max,
		       o->ev_oom, o->ev_oom_kill, o->some_us, o->full_us);
		if (o->excursions)
			printf("  [%s] %zu excursions over memory.high, %.0f ms median, %.0f ms "
			       "longest (10 ms samples)\n", sc->name, o->excursions,
			       o->excursion_median_ms, o->excursion_max_ms);
		failures += judge(sc, o, &lim);
		ran++;
		for (int i = 0; i < 500 && rmdir(cg); i++)
			usleep(10000);
		fflush(stdout);
	}
	if (!ran && skipped) {
		printf("SKIP: cgroup_limit: every scenario asked for was skipped\n");
		return 77;
	}
	if (!ran)
		goto usage;
	printf("\n%-8s %8s %8s %8s %9s %9s %9s %8s %8s %11s %6s %6s\n", "scenario", "high KiB",
	       "peak KiB", "mean KiB", ">high ms", "time ms", "high evts", "oom_kill", "end",
	       "PSI some us", "w.psi", "w.evts");
	for (size_t s = 0; s < NR_SCENARIOS; s++) {
		const struct outcome *o = &res[s];
		char end[16];

		if (!o->name)
			continue;
		snprintf(end, sizeof(end), "%s %d", o->exited ? "exit" : "sig", o->status);
		printf("%-8s %8lu %8lu %8lu %9.0f %9.0f %9lu %8lu %8s %11lu %6lu %6lu\n", o->name,
		       lim.high / KIB, o->peak / KIB, o->mean / KIB, o->above_ms, o->total_ms,
		       o->ev_high, o->ev_oom_kill, end, o->some_us, o->wakes_psi, o->wakes_events);
	}
	if (failures) {
		printf("cgroup_limit: FAILED (%d)\n", failures);
		return 1;
	}
	printf("cgroup_limit: ok\n");
	return 0;
usage:
	fprintf(stderr, "usage: cgroup_limit EXAMPLE [--high MiB] [--max MiB] [--fill MiB] "
			"[--scenario armed|unarmed|psi|all]\n");
	return 2;
}
