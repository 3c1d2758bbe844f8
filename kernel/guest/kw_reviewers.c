// SPDX-License-Identifier: GPL-2.0
/*
 * The reviewers' own tests, as their postings describe them.
 *
 * tkhai (seed 003, "Improve shrink_slab() scalability"): memcgs each with a
 * tmpfs of its own holding one file (a process that moves itself from
 * memcg to memcg mounts the tmpfs and creates the file there, as the
 * seed's shell loop did), then echo 3 > drop_caches several times in a
 * row: the first call frees what there is, the later ones only walk
 * (memcgs x nodes x shrinkers on a kernel without the bitmap, the set
 * bits only with it). Rows, in the lab's names (shrinklab's bitmap-2018
 * experiment): drop_caches_ns_first, drop_caches_ns_repeat (the later
 * calls), setup_ns_per_memcg.
 *
 * qizheng (the "slab shrink stress test" of Qi Zheng's lockless shrinker
 * series): the same memcgs under one parent with a memory limit (what the
 * farm itself holds when the writers start, plus headroom_mib), writers
 * in parallel writing a 1 MiB file into each memcg's tmpfs (a process per
 * file, at most `writers` at once, like the posting's dd's), so the
 * parent's limit reclaim runs and walks every memcg's shrinkers while it
 * swaps the written pages out (a swap device is needed: tmpfs pages are
 * not reclaimable without one; zero-filled pages cost swap no I/O, so
 * the walk, not the disk, is what the writers wait for). The limit is
 * relative because the farm's own charge is not the writers' to reclaim:
 * its memcgs' structures, mounts and files are kernel memory that reclaim
 * does not free (7.3-rc7's UML, 2 CPUs, 4000 memcgs: 80.0 MiB, 76.6 of it
 * kernel, 29.6 percpu and 38.2 slab), and a fixed 64 MiB limit was below
 * it: memory.max's write found nothing to reclaim and no process to kill,
 * and the writers were OOM-killed. Per round: the
 * writers' wall time and CPU time per MiB, kswapd's CPU time, the
 * parent's pgscan and pgsteal, memory PSI. The share of CPU in
 * shrink_slab itself would need a profiler in the guest; the writers'
 * CPU time (their direct reclaim) and kswapd's stand for it.
 *
 * ramfs (LKP's stress-ng.ramfs.ops_per_sec, the benchmark that reverted
 * the SRCU shrinker): stress-ng --ramfs N --ramfs-ops K, optionally beside
 * background tmpfs mounts and empty cgroups; per run the bogo ops, stress-ng's
 * own times and ours. stress-ng is Debian's (dynamic: the host puts it and
 * its libraries in the initramfs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kwork.h"

/* ---------------------------------------------------------------- farm */

static unsigned long farm_n;

unsigned long kw_farm_size(void)
{
	return farm_n;
}

struct farm_job {
	unsigned long first, n, files;
};

/* In the child: move from memcg to memcg, mount its tmpfs, make its files. */
static int farm_child(void *arg)
{
	const struct farm_job *j = arg;
	char cg[256], dir[256], path[320];

	for (unsigned long i = j->first; i < j->first + j->n; i++) {
		snprintf(cg, sizeof(cg), KW_FARM_CG "/%lu", i);
		if (kw_cg_join(cg))
			return 3;
		snprintf(dir, sizeof(dir), KW_FARM_MNT "/%lu", i);
		if (mount("kw", dir, "tmpfs", 0, "nr_inodes=1024"))
			return 4;
		for (unsigned long f = 0; f < j->files; f++) {
			int fd;

			snprintf(path, sizeof(path), "%s/file%lu", dir, f);
			fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
			if (fd < 0)
				return 5;
			close(fd);
		}
	}
	return 0;
}

unsigned long kw_farm_build(unsigned long n, unsigned long files, double *ns_per_memcg)
{
	struct farm_job job = { .first = farm_n, .files = files };
	char path[256];
	uint64_t t0;
	int st;

	*ns_per_memcg = 0;
	if (n <= farm_n)
		return farm_n;
	kw_cg_make(KW_FARM_CG, true);
	/* Mount points from here, the root memcg: only the mounts and files
	 * are the memcgs' own. */
	for (unsigned long i = farm_n; i < n; i++) {
		snprintf(path, sizeof(path), KW_FARM_MNT "/%lu", i);
		kw_mkdir_p(path);
	}
	say("farm: %lu memcgs, each its own tmpfs with %lu file(s)", n, files);
	t0 = now_ns();
	for (unsigned long i = farm_n; i < n; i++) {
		snprintf(path, sizeof(path), KW_FARM_CG "/%lu", i);
		kw_cg_make(path, false);
	}
	job.n = n - farm_n;
	/* A leaf to start from: cgroup2 lets no process sit in a cgroup that
	 * has controllers enabled for its children. */
	snprintf(path, sizeof(path), KW_FARM_CG "/%lu", farm_n);
	st = kw_in_cgroup(path, farm_child, &job, NULL);
	if (st)
		die("farm: the builder failed (%d: 3 join, 4 mount, 5 file)", st);
	*ns_per_memcg = (double)(now_ns() - t0) / (double)job.n;
	farm_n = n;
	return farm_n;
}

/* --------------------------------------------------------------- tkhai */

static void run_tkhai(struct kw_exp *e)
{
	unsigned long n = kw_ul(e, "memcgs"), files = kw_ul(e, "files");
	unsigned long calls = kw_ul(e, "calls"), what = kw_ul(e, "what");
	double setup, *v;
	struct kscale sc;
	struct kw_objs o0, o1;
	long shr;

	if (calls < 2 || !n || what < 1 || what > 3)
		die("tkhai: memcgs >= 1, calls >= 2 and what in 1..3");
	v = calloc(calls, sizeof(*v));
	if (!v)
		die("out of memory");
	KW_PHASE("tkhai", kw_farm_build(n, files, &setup));
	shr = debugfs_shrinkers();
	kw_scale(&sc, n, n, "%lu memcgs below one parent, each with its own tmpfs holding %lu "
		 "file(s), made from inside the memcg; %ld shrinkers registered; echo %lu > "
		 "drop_caches %lu times in a row", n, files, shr, what, calls);
	sc.host_shrinkers = shr > 0 && (unsigned long)shr > n ? (unsigned long)shr - n : 0;
	kw_objs_read(&o0);
	for (unsigned long c = 0; c < calls; c++) {
		v[c] = (double)drop_caches((int)what);
		say("tkhai: drop_caches #%lu: %.2f ms", c, v[c] / 1e6);
	}
	kjson_elapsed("tkhai", 0);
	kw_objs_read(&o1);
	if (setup > 0)
		kw_row1("tkhai", "setup_ns_per_memcg", "ns", setup, &sc);
	kw_row1("tkhai", "drop_caches_ns_first", "ns", v[0], &sc);
	kw_row("tkhai", "drop_caches_ns_repeat", "ns", v + 1, calls - 1, &sc);
	kw_row1("tkhai", "dentries_freed", "count", (double)(o0.dentry - o1.dentry), &sc);
	free(v);
}

static struct kw_param tkhai_params[] = {
	{ "memcgs", "4000", "memcgs, each with its own tmpfs (seed 003: 4000)", NULL },
	{ "files", "1", "files per tmpfs, created from inside its memcg", NULL },
	{ "calls", "5", "echo WHAT > drop_caches calls in a row (the seed: 5)", NULL },
	{ "what", "3", "what drop_caches drops (the seed: 3)", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_tkhai = {
	.name = "tkhai",
	.help = "seed 003: memcgs each with a tmpfs of its own and a file, drop_caches timed",
	.params = tkhai_params,
	.run = run_tkhai,
};

/* ------------------------------------------------------------- qizheng */

struct qz_write {
	unsigned long memcg, mib;
};

static int qz_writer(void *arg)
{
	static char zero[1 << 20];
	const struct qz_write *w = arg;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), KW_FARM_MNT "/%lu/data", w->memcg);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return 3;
	for (unsigned long i = 0; i < w->mib; i++)
		if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
			close(fd);
			return 4;
		}
	return close(fd) ? 5 : 0;
}

struct qz_round {
	double wall, cpu, kswapd, pgscan, pgsteal, psi_some;
	unsigned long failed;
};

static void qz_round(unsigned long n, unsigned long writes, unsigned long writers,
		     unsigned long mib, struct qz_round *r)
{
	pid_t *pid = calloc(writers, sizeof(*pid));
	unsigned long next = 0, running = 0;
	long long scan0, steal0, some0, full;
	uint64_t t0, k0, cpu = 0;

	if (!pid)
		die("out of memory");
	memset(r, 0, sizeof(*r));
	scan0 = kw_cg_stat(KW_FARM_CG, NULL, "pgscan");
	steal0 = kw_cg_stat(KW_FARM_CG, NULL, "pgsteal");
	kw_psi_memory(&some0, &full);
	k0 = kw_kswapd_cpu_ns(NULL);
	t0 = now_ns();
	while (next < writes || running) {
		while (next < writes && running < writers) {
			struct qz_write w = { .memcg = next % n, .mib = mib };
			char cg[256];
			unsigned long slot = 0;

			while (pid[slot])
				slot++;
			snprintf(cg, sizeof(cg), KW_FARM_CG "/%lu", w.memcg);
			pid[slot] = kw_spawn_in_cgroup(cg, qz_writer, &w);
			running++;
			next++;
		}
		{
			uint64_t c = 0;
			pid_t done;
			int st;
			struct rusage ru;

			done = wait4(-1, &st, 0, &ru);
			if (done < 0)
				die("qizheng: wait: %s", strerror(errno));
			c = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
			    1000000000ull +
			    ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
			cpu += c;
			for (unsigned long s = 0; s < writers; s++)
				if (pid[s] == done) {
					pid[s] = 0;
					running--;
				}
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				r->failed++;
		}
	}
	r->wall = (double)(now_ns() - t0);
	r->kswapd = (double)(kw_kswapd_cpu_ns(NULL) - k0);
	r->cpu = (double)cpu;
	r->pgscan = (double)(kw_cg_stat(KW_FARM_CG, NULL, "pgscan") - scan0);
	r->pgsteal = (double)(kw_cg_stat(KW_FARM_CG, NULL, "pgsteal") - steal0);
	{
		long long some1;

		kw_psi_memory(&some1, &full);
		r->psi_some = (double)(some1 - some0) * 1000;
	}
	free(pid);
}

/* Swap on @dev, and say how much the guest has; dies without it. */
static void qz_swap_on(const char *dev)
{
	int err = kw_swap_on(dev);
	long long kib;

	if (err && err != -EBUSY)
		die("qizheng: swapon %s: %s (the writers' pages need swap to be reclaimed)", dev,
		    strerror(-err));
	kib = kw_swap_total_kib();
	if (kib <= 0)
		die("qizheng: no swap after swapon %s (SwapTotal %lld kB)", dev, kib);
	say("qizheng: swap on %s, %lld KiB", dev, kib);
}

static double mib_of(long long bytes)
{
	return (double)bytes / (1 << 20);
}

/*
 * Limits the farm's parent to what it holds now plus @headroom_mib MiB
 * (the header comment says why not a fixed limit); returns the bytes held.
 */
static long long qz_limit_parent(unsigned long headroom_mib)
{
	long long held = kw_cg_read(KW_FARM_CG, "memory.current");
	char max[32];

	if (held < 0)
		die("qizheng: memory.current of the parent");
	say("qizheng: the farm holds %.1f MiB (kernel %.1f, percpu %.1f, slab %.1f, shmem "
	    "%.1f): memory.max %.1f MiB", mib_of(held),
	    mib_of(kw_cg_stat(KW_FARM_CG, NULL, "kernel")),
	    mib_of(kw_cg_stat(KW_FARM_CG, NULL, "percpu")),
	    mib_of(kw_cg_stat(KW_FARM_CG, NULL, "slab")),
	    mib_of(kw_cg_stat(KW_FARM_CG, NULL, "shmem")), mib_of(held) + (double)headroom_mib);
	snprintf(max, sizeof(max), "%llu",
		 (unsigned long long)held + ((unsigned long long)headroom_mib << 20));
	if (kw_cg_write(KW_FARM_CG, "memory.max", max))
		die("qizheng: memory.max of the parent");
	return held;
}

static void run_qizheng(struct kw_exp *e)
{
	unsigned long n = kw_ul(e, "memcgs"), writes = kw_ul(e, "writes");
	unsigned long writers = kw_ul(e, "writers"), mib = kw_ul(e, "mib");
	unsigned long headroom = kw_ul(e, "headroom_mib"), rounds = kw_ul(e, "rounds");
	const char *swap = kw_str(e, "swap");
	double *wall, *cpu, *ksw, *scan, *steal, *psi, setup, total;
	struct kscale sc;
	unsigned long failed = 0;
	long long held;
	long shr;

	if (!n || !writes || !writers || !mib || !headroom || !rounds)
		die("qizheng: every count must be at least 1");
	if (strcmp(swap, "none"))
		qz_swap_on(swap);
	KW_PHASE("qizheng", kw_farm_build(n, 1, &setup));
	if (writes > n)
		writes = n;
	held = qz_limit_parent(headroom);
	wall = calloc(rounds * 6, sizeof(double));
	if (!wall)
		die("out of memory");
	cpu = wall + rounds;
	ksw = cpu + rounds;
	scan = ksw + rounds;
	steal = scan + rounds;
	psi = steal + rounds;
	total = (double)(writes * mib);
	shr = debugfs_shrinkers();
	for (unsigned long i = 0; i < rounds; i++) {
		struct qz_round r;
		uint64_t t0 = now_ns();

		qz_round(n, writes, writers, mib, &r);
		kjson_elapsed("qizheng", now_ns() - t0);
		wall[i] = r.wall / total;
		cpu[i] = r.cpu / total;
		ksw[i] = r.kswapd / total;
		scan[i] = r.pgscan / total;
		steal[i] = r.pgsteal / total;
		psi[i] = r.psi_some / total;
		failed += r.failed;
		say("qizheng: round %lu: %.1f s, %.1f ms CPU per MiB, %.0f pages scanned per MiB%s",
		    i, r.wall / 1e9, cpu[i] / 1e6, scan[i], r.failed ? ", writers failed" : "");
	}
	kw_cg_write(KW_FARM_CG, "memory.max", "max");
	kw_scale(&sc, n, n, "%lu memcgs below one parent limited to what they held (%.1f MiB) "
		 "plus %lu MiB, each with its own tmpfs; per round %lu writes of %lu MiB (memcgs "
		 "0..%lu, one process each, %lu at once), swap on %s; %ld shrinkers; per MiB "
		 "written; %lu writers failed", n, mib_of(held), headroom, writes, mib, writes - 1,
		 writers, swap, shr, failed);
	sc.host_shrinkers = shr > 0 && (unsigned long)shr > n ? (unsigned long)shr - n : 0;
	kw_row("qizheng", "write_ns_per_mib", "ns", wall, rounds, &sc);
	kw_row("qizheng", "writer_cpu_ns_per_mib", "ns", cpu, rounds, &sc);
	kw_row("qizheng", "kswapd_cpu_ns_per_mib", "ns", ksw, rounds, &sc);
	kw_row("qizheng", "pgscan_per_mib", "count", scan, rounds, &sc);
	kw_row("qizheng", "pgsteal_per_mib", "count", steal, rounds, &sc);
	kw_row("qizheng", "psi_some_ns_per_mib", "ns", psi, rounds, &sc);
	kw_row1("qizheng", "writers_failed", "count", (double)failed, &sc);
	free(wall);
}

static struct kw_param qz_params[] = {
	{ "memcgs", "4000", "memcgs below the limited parent, each its own tmpfs (the posting: 4000)",
	  NULL },
	{ "writes", "3000", "files written per round, one per memcg (the posting: 3000)", NULL },
	{ "mib", "1", "MiB per file (the posting: dd bs=1M count=1)", NULL },
	{ "writers", "16", "writer processes at once (the posting started all at once)", NULL },
	{ "headroom_mib", "256",
	  "the parent's memory.max above what the farm holds when the writers start, MiB", NULL },
	{ "rounds", "3", "rounds (samples); each rewrites every file", NULL },
	{ "swap", "/dev/vdb", "swap device (a swap header is written), or none", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_qizheng = {
	.name = "qizheng",
	.help = "Qi Zheng's slab-shrink stress: parallel writers into memcgs below a limited parent",
	.params = qz_params,
	.run = run_qizheng,
};

/* --------------------------------------------------------------- ramfs */

#define RAMFS_BG_MNT KW_MNT "/ramfsbg"
#define RAMFS_BG_CG KW_CG "/ramfsbg"

/* The number after "key:" in stress-ng's YAML for the ramfs stressor. */
static double yaml_value(const char *path, const char *key)
{
	char line[256];
	double v = -1;
	bool in = false;
	FILE *f = fopen(path, "r");
	size_t klen = strlen(key);

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (!strncmp(p, "- stressor:", 11))
			in = strstr(p, "ramfs") != NULL;
		else if (in && !strncmp(p, key, klen) && p[klen] == ':') {
			v = strtod(p + klen + 1, NULL);
			break;
		}
	}
	fclose(f);
	return v;
}

static void run_ramfs(struct kw_exp *e)
{
	unsigned long workers = kw_ul(e, "workers"), ops = kw_ul(e, "ops");
	unsigned long runs = kw_ul(e, "runs"), bgm = kw_ul(e, "bg_mounts");
	unsigned long bgc = kw_ul(e, "bg_cgroups");
	const char *bin = kw_str(e, "bin"), *yaml = "/tmp/kwork-stress-ng.yaml";
	double *ns_op, *cpu_op, *bogo, *sng_real;
	char path[256], w[32], o[32];
	struct kscale sc;

	if (!workers)
		workers = online_cpus();
	if (!ops || !runs)
		die("ramfs: ops and runs must be at least 1");
	if (access(bin, X_OK))
		die("ramfs: %s: %s (the host puts Debian's stress-ng and its libraries in the "
		    "initramfs)", bin, strerror(errno));
	kw_cg_make(RAMFS_BG_CG, true);
	for (unsigned long i = 0; i < bgc; i++) {
		snprintf(path, sizeof(path), RAMFS_BG_CG "/b%lu", i);
		kw_cg_make(path, false);
	}
	for (unsigned long i = 0; i < bgm; i++) {
		int err;

		snprintf(path, sizeof(path), RAMFS_BG_MNT "/m%lu", i);
		err = kw_mount_tmpfs(path, "size=1m,nr_inodes=64");
		if (err)
			die("ramfs: mount %s: %s", path, strerror(-err));
	}
	ns_op = calloc(runs * 4, sizeof(double));
	if (!ns_op)
		die("out of memory");
	cpu_op = ns_op + runs;
	bogo = cpu_op + runs;
	sng_real = bogo + runs;
	snprintf(w, sizeof(w), "%lu", workers);
	snprintf(o, sizeof(o), "%lu", ops);
	for (unsigned long r = 0; r < runs; r++) {
		uint64_t t0 = now_ns(), cpu = 0;
		pid_t p;
		int st;

		unlink(yaml);
		fflush(NULL);
		p = fork();
		if (p < 0)
			die("fork: %s", strerror(errno));
		if (!p) {
			int fd = open("/dev/null", O_WRONLY);

			/* stress-ng's chatter goes to the console, its figures to the YAML */
			if (fd >= 0)
				dup2(fd, 1);
			execl(bin, bin, "--ramfs", w, "--ramfs-ops", o, "--metrics-brief",
			      "--yaml", yaml, "--temp-path", "/tmp", "--timeout", "7200", NULL);
			fprintf(stderr, "kwork: exec %s: %s\n", bin, strerror(errno));
			_exit(127);
		}
		st = kw_wait(p, &cpu);
		if (st)
			die("ramfs: %s exited %d", bin, st);
		ns_op[r] = (double)(now_ns() - t0);
		kjson_elapsed("ramfs", (uint64_t)ns_op[r]);
		bogo[r] = yaml_value(yaml, "bogo-ops");
		sng_real[r] = yaml_value(yaml, "bogo-ops-per-second-real-time");
		if (bogo[r] <= 0)
			die("ramfs: no bogo-ops for ramfs in %s", yaml);
		ns_op[r] /= bogo[r];
		cpu_op[r] = (double)cpu / bogo[r];
		say("ramfs: run %lu: %.0f bogo ops, %.1f us per op, %.1f us CPU per op, stress-ng "
		    "says %.1f ops/s", r, bogo[r], ns_op[r] / 1e3, cpu_op[r] / 1e3, sng_real[r]);
	}
	kw_scale(&sc, bgm, bgc, "stress-ng --ramfs %lu --ramfs-ops %lu, %lu runs, beside %lu "
		 "tmpfs mounts and %lu empty cgroups; per bogo op (a ramfs mount and umount): "
		 "our wall and CPU time of the whole stress-ng run over its bogo ops", workers, ops,
		 runs, bgm, bgc);
	kw_row("ramfs", "ramfs_ns_per_op", "ns", ns_op, runs, &sc);
	kw_row("ramfs", "ramfs_cpu_ns_per_op", "ns", cpu_op, runs, &sc);
	kw_row("ramfs", "ramfs_bogo_ops", "count", bogo, runs, &sc);
	kw_row("ramfs", "ramfs_stress_ng_ops_per_s", "count", sng_real, runs, &sc);
	free(ns_op);
}

static struct kw_param ramfs_params[] = {
	{ "workers", "0", "stress-ng --ramfs N (0: one per CPU, as LKP's nr_threads=100%)", NULL },
	{ "ops", "2000", "--ramfs-ops (bogo ops per run, all workers together)", NULL },
	{ "runs", "3", "runs (samples)", NULL },
	{ "bg_mounts", "0", "tmpfs mounts made first (LKP: none)", NULL },
	{ "bg_cgroups", "0", "empty memory cgroups made first (LKP: none)", NULL },
	{ "bin", "/usr/bin/stress-ng", "the stress-ng binary", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_ramfs = {
	.name = "ramfs",
	.help = "stress-ng --ramfs (LKP's regression case): mount/umount churn, bogo ops",
	.params = ramfs_params,
	.run = run_ramfs,
};
