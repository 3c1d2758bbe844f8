/* SPDX-License-Identifier: MIT */
/*
 * pressure_cache: a cache shared by tenants that stays within a memory
 * budget and gives memory back when the kernel reports pressure, with
 * libshrinker's byte charges, pressure sources and reclaimer.
 *
 *   - Each tenant is a memory cgroup of the library (a tenant inside this
 *     process, not a kernel cgroup). Every entry is charged, in bytes, to
 *     the tenant that inserted it, and sits on that tenant's list of a
 *     memcg-aware list_lru; a shrinker frees the oldest entries of the
 *     tenant under reclaim and uncharges them.
 *   - The host's budget is the root cgroup's high boundary (--budget). When
 *     a charge leaves the cache over it, the library's reclaimer thread
 *     wakes and frees from every tenant in proportion to what it holds, as
 *     kswapd does; inserting never waits for it. If the reclaimer falls
 *     behind by more than an eighth of the budget, the inserting thread
 *     reclaims itself (the kernel's direct reclaim).
 *   - Pressure sources make it give memory back whatever the budget says:
 *     the service manager's $MEMORY_PRESSURE_WATCH (or, without it, a PSI
 *     trigger on this process's cgroup or the whole machine), and with
 *     --events a kernel cgroup's memory.events. After each round that freed
 *     something, malloc_trim() returns the freed heap pages to the kernel.
 *
 * It inserts --fill MiB of entries for three tenants (alice, bob and carol
 * at 3:2:1), prints memory over time, then per tenant what was inserted and
 * reclaimed, the reclaimer's rounds and their latency (event seen to first
 * byte freed, CLOCK_MONOTONIC), and checks what it can:
 *   - with a budget: the cache's peak stayed under the budget plus the
 *     direct-reclaim margin, and the reclaim took from each tenant in
 *     proportion to what it inserted (each tenant's share of its entries
 *     within half of the tenants' mean; see the check for why not closer);
 *   - the last line is "pressure_cache: ok" (exit 0), or a line saying
 *     what failed (exit 1). Bad arguments exit 2.
 *
 * Options: --budget MiB (default 8; 0: none), --fill MiB (32), --entry
 * BYTES (4000), --no-reclaimer (fill without one: the cache only grows),
 * --events FILE (watch a cgroup v2 memory.events), --no-systemd (no PSI
 * source), --every MiB (a timeline line each that many MiB inserted: 1),
 * --reader FILE (a thread reads FILE through the page cache during the
 * fill: what the cache leaves the rest of the cgroup), --stall FILE (the
 * PSI file whose "some" total the fill's stall is read from; default
 * /proc/pressure/memory), --compare (the fill twice, each in a child
 * process: with the --budget and the pressure sources, then with the
 * sources alone and no budget; a table of both at the end).
 *
 * Build against an installed libshrinker:
 *   cc -std=c11 pressure_cache.c $(pkg-config --cflags --libs libshrinker)
 *   cc -static -std=c11 pressure_cache.c $(pkg-config --static --cflags --libs libshrinker)
 * tests/pressure/cgroup_limit.c runs it in a kernel cgroup with memory.high
 * (docs/guides/PRESSURE.md has the figures).
 */
/* clock_gettime, sysconf, malloc_usable_size: POSIX and glibc, beyond C11. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <shrinker/host.h>
#include <shrinker/list_lru.h>
#include <shrinker/memcg.h>
#include <shrinker/pressure.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaimer.h>
#include <shrinker/shrinker.h>

#define MIB (1024UL * 1024UL)

/* One cached object: its bytes are charged to its owner. */
struct entry {
	struct shr_list_head lru;     /* on its owner's list; list lock */
	struct shr_mem_cgroup *owner; /* the tenant charged; a reference */
	size_t charged;               /* bytes charged (what malloc reserved) */
	unsigned long key;
	char value[];
};

#define entry_of(item) ((struct entry *)(void *)((char *)(item) - offsetof(struct entry, lru)))

enum { ALICE, BOB, CAROL, NR_TENANTS };

static const char *const tenant_name[NR_TENANTS] = { "alice", "bob", "carol" };
static const unsigned int tenant_weight[NR_TENANTS] = { 3, 2, 1 };

struct cache {
	struct shr_host *host;
	struct shr_shrinker *shrinker;
	struct shr_list_lru *lru;
	struct shr_mem_cgroup *tenant[NR_TENANTS];
	/* Counters per tenant, written by the inserting thread (inserted) and
	 * by the thread that reclaims (reclaimed). */
	atomic_ulong inserted[NR_TENANTS];
	atomic_ulong reclaimed[NR_TENANTS];
};

/* Latencies of the reclaimer's rounds, by why they ran (report callback,
 * on the reclaimer's thread or the thread reclaiming directly). */
#define MAX_ROUNDS 4096
struct latencies {
	pthread_mutex_t lock;
	unsigned long n_high, n_pressure;
	double first_ms[MAX_ROUNDS]; /* event seen -> first byte freed */
	double done_ms[MAX_ROUNDS];  /* event seen -> reclaim done */
	double trim_ms[MAX_ROUNDS];  /* event seen -> memory back (trimmed) */
	double cpu_ms[MAX_ROUNDS];   /* the round's CPU time */
	unsigned int reason[MAX_ROUNDS];
	unsigned int sources[MAX_ROUNDS];
	size_t n;
};

static struct cache cache;
static struct latencies lat = { .lock = PTHREAD_MUTEX_INITIALIZER };
/* The largest charge of one entry (the inserting thread's). */
static size_t max_charged;

static size_t charged_size(void *p, size_t requested)
{
#ifdef __GLIBC__
	(void)requested;
	return malloc_usable_size(p);
#else
	return requested;
#endif
}

static int tenant_of(struct shr_mem_cgroup *memcg)
{
	for (int i = 0; i < NR_TENANTS; i++)
		if (cache.tenant[i] == memcg)
			return i;
	return -1;
}

/* Free a private dispose list: uncharge, unpin, free. */
static unsigned long dispose(struct shr_list_head *head)
{
	unsigned long n = 0;

	while (!shr_list_head_empty(head)) {
		struct shr_list_head *item = head->next;
		struct entry *e = entry_of(item);
		int t = tenant_of(e->owner);

		shr_list_del_init(item);
		/* Uncharge here, in the scan: the reclaimer counts its progress by
		 * the bytes its thread uncharges. */
		(void)shr_mem_cgroup_uncharge(e->owner, e->charged);
		if (t >= 0)
			atomic_fetch_add(&cache.reclaimed[t], 1);
		shr_mem_cgroup_put(e->owner);
		free(e);
		n++;
	}
	return n;
}

static enum shr_lru_status isolate(struct shr_list_head *item, struct shr_list_lru_one *list,
				   void *arg)
{
	shr_list_lru_isolate_move(list, item, arg);
	return SHR_LRU_REMOVED;
}

static unsigned long cache_count(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	unsigned long n = shr_list_lru_shrink_count(cache.lru, sc);

	(void)s;
	return n ? n : SHR_SHRINK_EMPTY;
}

static unsigned long cache_scan(struct shr_shrinker *s, struct shr_shrink_control *sc)
{
	struct shr_list_head head;

	(void)s;
	shr_list_head_init(&head);
	shr_list_lru_shrink_walk(cache.lru, sc, isolate, &head);
	return dispose(&head);
}

static int cache_init(void)
{
	struct shr_host_params params;
	int ret;

	shr_host_params_init(&params);
	ret = shr_host_create(&params, &cache.host);
	if (ret)
		return ret;
	ret = shr_shrinker_alloc(cache.host, SHR_SHRINKER_MEMCG_AWARE, "pressure-cache",
				 &cache.shrinker);
	if (ret)
		return ret;
	cache.shrinker->count_objects = cache_count;
	cache.shrinker->scan_objects = cache_scan;
	ret = shr_list_lru_init_memcg(cache.host, cache.shrinker, &cache.lru);
	if (ret == 0)
		ret = shr_shrinker_register(cache.shrinker);
	for (int i = 0; i < NR_TENANTS && ret == 0; i++)
		ret = shr_mem_cgroup_create(shr_host_root_mem_cgroup(cache.host), &cache.tenant[i]);
	return ret;
}

/*
 * Insert an entry of @len value bytes for tenant @t. Return: the charge's
 * result (0, or 1: a budget is exceeded and the reclaimer was told), or
 * -errno.
 */
static int cache_insert(int t, unsigned long key, size_t len)
{
	struct entry *e = malloc(sizeof(*e) + len);
	int ret;

	if (!e)
		return -ENOMEM;
	shr_list_head_init(&e->lru);
	e->key = key;
	memset(e->value, (int)(key & 0x7f), len); /* really resident */
	e->charged = charged_size(e, sizeof(*e) + len);
	if (e->charged > max_charged)
		max_charged = e->charged;
	shr_mem_cgroup_get(cache.tenant[t]);
	e->owner = cache.tenant[t];
	ret = shr_mem_cgroup_charge(e->owner, e->charged);
	if (ret < 0) {
		shr_mem_cgroup_put(e->owner);
		free(e);
		return ret;
	}
	if (shr_list_lru_add(cache.lru, &e->lru, 0, e->owner) != 1)
		abort(); /* a new entry is on no list */
	atomic_fetch_add(&cache.inserted[t], 1);
	return ret;
}

static void cache_destroy(void)
{
	struct shr_list_head head;

	shr_list_head_init(&head);
	shr_list_lru_walk(cache.lru, isolate, &head, ~0UL);
	dispose(&head);
	shr_shrinker_free(cache.shrinker);
	(void)shr_list_lru_destroy(cache.lru);
	for (int i = 0; i < NR_TENANTS; i++)
		(void)shr_mem_cgroup_offline(cache.tenant[i]);
	shr_rcu_barrier();
	(void)shr_host_destroy(cache.host);
}

static double ms_between(uint64_t from, uint64_t to)
{
	return to >= from ? (double)(to - from) / 1e6 : 0;
}

/* The reclaimer's report of every round (its thread or ours). */
static void on_round(const struct shr_reclaim_report *rep, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lat.lock);
	if (rep->reasons & SHR_RECLAIM_PRESSURE)
		lat.n_pressure++;
	if (rep->reasons & SHR_RECLAIM_HIGH)
		lat.n_high++;
	if (lat.n < MAX_ROUNDS && rep->first_freed_ns) {
		lat.first_ms[lat.n] = ms_between(rep->woken_ns, rep->first_freed_ns);
		lat.done_ms[lat.n] = ms_between(rep->woken_ns, rep->done_ns);
		lat.trim_ms[lat.n] = ms_between(rep->woken_ns, rep->trimmed_ns);
		lat.cpu_ms[lat.n] = (double)rep->cpu_ns / 1e6;
		lat.reason[lat.n] = rep->reasons;
		lat.sources[lat.n] = rep->sources;
		lat.n++;
	}
	pthread_mutex_unlock(&lat.lock);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, min and max of the rounds with any of @reasons and, for
 * pressure rounds, any of the source kinds @sources. */
static void print_latency(const char *what, unsigned int reasons, unsigned int sources)
{
	static double first[MAX_ROUNDS], done[MAX_ROUNDS], trim[MAX_ROUNDS], cpu[MAX_ROUNDS];
	size_t n = 0, slow = 0;

	pthread_mutex_lock(&lat.lock);
	for (size_t i = 0; i < lat.n; i++) {
		if (!(lat.reason[i] & reasons) || (sources && !(lat.sources[i] & sources)))
			continue;
		first[n] = lat.first_ms[i];
		done[n] = lat.done_ms[i];
		cpu[n] = lat.cpu_ms[i];
		trim[n++] = lat.trim_ms[i];
	}
	pthread_mutex_unlock(&lat.lock);
	if (!n)
		return;
	/* Rounds whose thread was off the CPU for most of it (it waited). */
	for (size_t i = 0; i < n; i++)
		slow += trim[i] > 10.0 && cpu[i] < trim[i] / 2;
	qsort(first, n, sizeof(first[0]), cmp_double);
	qsort(done, n, sizeof(done[0]), cmp_double);
	qsort(trim, n, sizeof(trim[0]), cmp_double);
	qsort(cpu, n, sizeof(cpu[0]), cmp_double);
	printf("latency %s: %zu rounds; from the event seen to the first byte freed %.2f ms "
	       "[%.2f..%.2f], to the reclaim done %.2f ms [%.2f..%.2f], to the memory given back "
	       "(trim done) %.2f ms [%.2f..%.2f] (median [min..max], CLOCK_MONOTONIC); CPU per "
	       "round %.2f ms [%.2f..%.2f]; %zu rounds over 10 ms spent most of it off the CPU\n",
	       what, n, first[n / 2], first[0], first[n - 1], done[n / 2], done[0], done[n - 1],
	       trim[n / 2], trim[0], trim[n - 1], cpu[n / 2], cpu[0], cpu[n - 1], slow);
}

static unsigned long rss_kib(void)
{
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%lu %lu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (unsigned long)sysconf(_SC_PAGESIZE) / 1024;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct options {
	unsigned long budget, fill, entry, every;
	bool reclaimer, systemd, compare;
	const char *events, *reader, *stall_file;
};

static int parse_options(int argc, char **argv, struct options *o)
{
	*o = (struct options){ 8 * MIB, 32 * MIB, 4000, 1 * MIB, true, true, false, NULL, NULL,
			       "/proc/pressure/memory" };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		unsigned long v;

		if (!strcmp(a, "--no-reclaimer")) {
			o->reclaimer = false;
			continue;
		}
		if (!strcmp(a, "--no-systemd")) {
			o->systemd = false;
			continue;
		}
		if (!strcmp(a, "--compare")) {
			o->compare = true;
			continue;
		}
		if (i + 1 >= argc)
			goto bad;
		if (!strcmp(a, "--events") || !strcmp(a, "--reader") || !strcmp(a, "--stall")) {
			const char **dst = a[2] == 'e' ? &o->events
					   : a[2] == 'r' ? &o->reader : &o->stall_file;

			*dst = argv[++i];
			continue;
		}
		errno = 0;
		v = strtoul(argv[i + 1], &end, 10);
		if (errno || *end || end == argv[i + 1])
			goto bad;
		i++;
		if (!strcmp(a, "--budget") && v <= 1024 * 1024)
			o->budget = v * MIB;
		else if (!strcmp(a, "--fill") && v >= 1 && v <= 1024 * 1024)
			o->fill = v * MIB;
		else if (!strcmp(a, "--entry") && v >= 1 && v <= 1024 * 1024)
			o->entry = v;
		else if (!strcmp(a, "--every") && v >= 1 && v <= 1024 * 1024)
			o->every = v * MIB;
		else
			goto bad;
	}
	return 0;
bad:
	fprintf(stderr, "pressure_cache: bad arguments (see the comment at the top of "
			"pressure_cache.c)\n");
	return -1;
}

/* Arm the sources the options ask for; print what was armed. */
static void arm_sources(struct shr_reclaimer *r, const struct options *o)
{
	struct shr_pressure *src;
	int ret;

	if (o->systemd) {
		static const char *const kind_name[] = {
			[SHR_PRESSURE_PSI] = "PSI",
			[SHR_PRESSURE_STREAM] = "a relay",
			[SHR_PRESSURE_MEMORY_EVENTS] = "memory.events",
			[SHR_PRESSURE_VMPRESSURE] = "cgroup v1 vmpressure",
		};

		src = NULL;
		ret = shr_pressure_open_systemd(&src);
		if (ret == 0)
			printf("armed: %s on %s\n", kind_name[shr_pressure_kind(src)],
			       shr_pressure_path(src));
		/* The reclaimer owns the source from here on. */
		if (ret == 0 && (ret = shr_reclaimer_add_source(r, src)) != 0)
			shr_pressure_close(src);
		if (ret)
			printf("armed: no pressure source from shr_pressure_open_systemd() (%s)\n",
			       strerror(-ret));
	}
	if (o->events) {
		src = NULL;
		ret = shr_pressure_open_memory_events(o->events, &src);
		if (ret == 0)
			ret = shr_reclaimer_add_source(r, src);
		printf("armed: %s%s%s\n", o->events, ret ? ": " : "", ret ? strerror(-ret) : "");
		if (ret && src)
			shr_pressure_close(src);
	}
}

static void print_timeline(uint64_t t0, unsigned long inserted_bytes)
{
	printf("t=%7.1f ms  inserted %5.1f MiB  cache %7lu KiB  rss %7lu KiB ",
	       ms_between(t0, now_ns()), (double)inserted_bytes / MIB,
	       shr_mem_cgroup_usage(shr_host_root_mem_cgroup(cache.host)) / 1024, rss_kib());
	for (int i = 0; i < NR_TENANTS; i++)
		printf(" %s %lu", tenant_name[i], shr_mem_cgroup_usage(cache.tenant[i]) / 1024);
	printf("\n");
	fflush(stdout);
}

/* What one run measured (--compare prints two side by side). */
struct run_result {
	unsigned long peak_kib, rounds;
	double fill_mib_s, stall_ms, wall_ms, reader_mib_s;
};

/*
 * The file reader beside the cache (--reader): reads the file in 1 MiB
 * pieces through the page cache, over and over, until told to stop; its
 * throughput is what the cache leaves the rest of the cgroup.
 */
struct reader {
	pthread_t thread;
	int fd;
	atomic_bool stop;
	unsigned long bytes;
};

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	static char buf[1024 * 1024];
	off_t off = 0;

	while (!atomic_load_explicit(&rd->stop, memory_order_relaxed)) {
		ssize_t n = pread(rd->fd, buf, sizeof(buf), off);

		if (n <= 0) {
			off = 0;
			if (n < 0)
				break;
			continue;
		}
		rd->bytes += (unsigned long)n;
		off += n;
	}
	return NULL;
}

/* "some ... total=N" of a PSI file, in microseconds (0 if unreadable). */
static unsigned long long stall_total_us(const char *path)
{
	unsigned long long total = 0;
	char line[256];
	FILE *f = path ? fopen(path, "re") : NULL;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		const char *t = strstr(line, "total=");

		if (!strncmp(line, "some", 4) && t)
			total = strtoull(t + 6, NULL, 10);
	}
	fclose(f);
	return total;
}

static int run(const struct options *opts, struct run_result *res);

/*
 * --compare: the same fill twice, each in a child process of its own (a
 * fresh heap and page cache share): with the library's byte budget and
 * the pressure sources, then with the pressure sources alone (no budget).
 */
static int compare(const struct options *o)
{
	static const char *const way[2] = { "budget + sources", "sources alone" };
	struct run_result res[2] = { { 0 } };

	for (int i = 0; i < 2; i++) {
		struct options oi = *o;
		int fds[2], status;
		pid_t pid;

		oi.compare = false;
		oi.budget = i == 0 ? o->budget : 0;
		if (pipe(fds))
			return 1;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			int ret = run(&oi, &res[i]);

			fflush(stdout);
			_exit(write(fds[1], &res[i], sizeof(res[i])) == sizeof(res[i]) ? ret : 1);
		}
		close(fds[1]);
		if (read(fds[0], &res[i], sizeof(res[i])) != sizeof(res[i]))
			memset(&res[i], 0, sizeof(res[i]));
		close(fds[0]);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			printf("compare: the %s run died (%s)\n", way[i],
			       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "?");
	}
	printf("\n%-18s %10s %7s %10s %18s %12s\n", "way", "peak KiB", "rounds", "fill MiB/s",
	       "stall ms (% wall)", "reader MiB/s");
	for (int i = 0; i < 2; i++)
		printf("%-18s %10lu %7lu %10.1f %10.0f (%4.1f%%) %12.1f\n", way[i], res[i].peak_kib,
		       res[i].rounds, res[i].fill_mib_s, res[i].stall_ms,
		       res[i].wall_ms > 0 ? 100 * res[i].stall_ms / res[i].wall_ms : 0,
		       res[i].reader_mib_s);
	printf("compare: stall from %s (some, over the fill)\n", o->stall_file);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct run_result res;

	if (parse_options(argc, argv, &o))
		return 2;
	if (o.compare)
		return compare(&o);
	return run(&o, &res);
}

/* One fill with @opts; what it measured into *@res. Return: the exit
 * status (0: its checks held). */
static int run(const struct options *opts, struct run_result *res)
{
	struct shr_reclaimer_params rp;
	struct shr_reclaimer *r = NULL;
	struct shr_memcg_memory_stat st;
	struct shr_reclaimer_stats rs = { 0 };
	struct options o = *opts;
	unsigned long inserted_bytes = 0, next_line = 0, key = 0, cap;
	double share[NR_TENANTS], mean = 0;
	struct reader rd = { .fd = -1 };
	unsigned long long stall0;
	int failures = 0, ret;
	uint64_t t0, t1;

	shr_thread_register();
	ret = cache_init();
	if (ret) {
		fprintf(stderr, "pressure_cache: cache_init: %s\n", strerror(-ret));
		return 1;
	}
	/* The direct-reclaim line: an eighth above the budget. */
	cap = o.budget + o.budget / 8;
	if (o.budget)
		(void)shr_mem_cgroup_set_high(shr_host_root_mem_cgroup(cache.host), o.budget);
	if (o.reclaimer) {
		shr_reclaimer_params_init(&rp);
		rp.thread = true;
		rp.malloc_trim = true;
		rp.report = on_round;
		ret = shr_reclaimer_create(cache.host, &rp, &r);
		if (ret) {
			fprintf(stderr, "pressure_cache: reclaimer: %s\n", strerror(-ret));
			return 1;
		}
		arm_sources(r, &o);
	}
	printf("budget %lu KiB, fill %lu MiB in entries of %lu bytes, reclaimer %s\n",
	       o.budget / 1024, o.fill / MIB, o.entry, o.reclaimer ? "on" : "off");

	if (o.reader) {
		rd.fd = open(o.reader, O_RDONLY | O_CLOEXEC);
		if (rd.fd < 0 || pthread_create(&rd.thread, NULL, reader_main, &rd)) {
			fprintf(stderr, "pressure_cache: reader %s: %s\n", o.reader, strerror(errno));
			return 1;
		}
	}
	stall0 = stall_total_us(o.stall_file);
	t0 = now_ns();
	while (inserted_bytes < o.fill) {
		for (int t = 0; t < NR_TENANTS; t++) {
			for (unsigned int w = 0; w < tenant_weight[t]; w++) {
				ret = cache_insert(t, key++, o.entry);
				if (ret < 0) {
					fprintf(stderr, "pressure_cache: insert: %s\n",
						strerror(-ret));
					return 1;
				}
				inserted_bytes += o.entry;
				/* Far over the budget: reclaim here rather than
				 * grow further (direct reclaim). */
				if (ret == 1 && r && o.budget &&
				    shr_mem_cgroup_usage(shr_host_root_mem_cgroup(cache.host)) >
					    cap)
					(void)shr_reclaimer_reclaim(r, 0, NULL);
			}
		}
		if (inserted_bytes >= next_line || inserted_bytes >= o.fill) {
			print_timeline(t0, inserted_bytes);
			next_line += o.every;
		}
	}

	t1 = now_ns();
	res->stall_ms = (double)(stall_total_us(o.stall_file) - stall0) / 1e3;
	res->wall_ms = (double)(t1 - t0) / 1e6;
	res->fill_mib_s = (double)inserted_bytes / MIB / ((double)(t1 - t0) / 1e9);
	if (o.reader) {
		atomic_store(&rd.stop, true);
		pthread_join(rd.thread, NULL);
		close(rd.fd);
		res->reader_mib_s = (double)rd.bytes / MIB / ((double)(now_ns() - t0) / 1e9);
		printf("reader: %.1f MiB/s from %s beside the fill\n", res->reader_mib_s, o.reader);
	}
	(void)shr_mem_cgroup_memory_stat(shr_host_root_mem_cgroup(cache.host), &st);
	res->peak_kib = st.peak / 1024;
	printf("cache: peak %lu KiB, now %lu KiB, budget %lu KiB, %lu charges over it\n",
	       st.peak / 1024, st.usage / 1024, o.budget / 1024, st.events_high);
	for (int t = 0; t < NR_TENANTS; t++) {
		unsigned long in = atomic_load(&cache.inserted[t]);
		unsigned long out = atomic_load(&cache.reclaimed[t]);

		share[t] = in ? (double)out / (double)in : 0;
		mean += share[t] / NR_TENANTS;
		printf("%s: inserted %lu, reclaimed %lu (%.1f%%), held %lu\n", tenant_name[t], in,
		       out, 100 * share[t], shr_list_lru_count_one(cache.lru, 0, cache.tenant[t]));
	}
	if (r) {
		(void)shr_reclaimer_get_stats(r, &rs);
		res->rounds = rs.rounds;
		printf("reclaimer: %lu rounds; woken %lu times for budgets, %lu by PSI, %lu by "
		       "memory.events, %lu by other sources, %lu direct; %lu KiB freed, %lu trims\n",
		       rs.rounds, rs.wakes_high, rs.wakes_psi, rs.wakes_memory_events,
		       rs.wakes_stream, rs.wakes_explicit, rs.freed_bytes / 1024, rs.trims);
		print_latency("budget", SHR_RECLAIM_HIGH | SHR_RECLAIM_EXPLICIT, 0);
		print_latency("PSI", SHR_RECLAIM_PRESSURE,
			      1u << SHR_PRESSURE_PSI | 1u << SHR_PRESSURE_STREAM);
		print_latency("memory.events", SHR_RECLAIM_PRESSURE, 1u << SHR_PRESSURE_MEMORY_EVENTS);
		print_latency("vmpressure", SHR_RECLAIM_PRESSURE, 1u << SHR_PRESSURE_VMPRESSURE);
		printf("summary: peak_kib=%lu budget_kib=%lu rounds=%lu wakes_high=%lu wakes_psi=%lu "
		       "wakes_events=%lu freed_kib=%lu\n",
		       st.peak / 1024, o.budget / 1024, rs.rounds, rs.wakes_high, rs.wakes_psi,
		       rs.wakes_memory_events, rs.freed_bytes / 1024);
		shr_reclaimer_destroy(r);
	}

	if (r && o.budget) {
		/* The charge that crosses the line lands before we reclaim. */
		if (st.peak > cap + max_charged) {
			printf("pressure_cache: FAILED: the cache peaked at %lu KiB, over the budget "
			       "and its margin (%lu KiB)\n", st.peak / 1024, cap / 1024);
			failures++;
		}
		/*
		 * Proportional, not equal: the kernel's arithmetic scans
		 * (count >> priority) of each list and defers what is below a
		 * batch, so carol's smaller lists reach their batch only at
		 * lower priorities, and how many rounds run at which priority
		 * depends on when the reclaimer thread runs beside the
		 * inserting one. Measured on 2 cores with a CPU hog beside it
		 * (2026-12-01): a tenant's share 0.65..1.2 of the mean, 2 runs
		 * of 30 below 0.75. Half the mean still fails a tenant that
		 * is spared or drained.
		 */
		for (int t = 0; t < NR_TENANTS; t++) {
			if (share[t] < mean * 0.5 || share[t] > mean * 1.5) {
				printf("pressure_cache: FAILED: %s lost %.1f%% of its entries, the "
				       "tenants %.1f%% on average\n", tenant_name[t],
				       100 * share[t], 100 * mean);
				failures++;
			}
		}
	}
	cache_destroy();
	shr_thread_unregister();
	if (failures)
		return 1;
	printf("pressure_cache: ok\n");
	return 0;
}
