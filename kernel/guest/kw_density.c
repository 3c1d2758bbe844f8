// SPDX-License-Identifier: GPL-2.0
/*
 * density: a container host's pod churn, the scenario a reviewer asks for
 * before an on-demand shrinker_info can be called worth an XArray.
 *
 * A pod is a memory cgroup (KW_CG/density/p<i>) with one container cgroup
 * below it (c0, where its processes run) and five superblocks of its own,
 * each a memcg-aware shrinker: a tmpfs holding the overlay's upper and
 * work directories, the overlay (its root filesystem: one lower layer
 * shared by every pod, an "image" on an ext4 disk), a procfs, and two
 * tmpfs (/dev and /dev/shm). Its process walks its root (lstat and read:
 * overlay dentries and inodes, the image's page cache and ext4 objects for
 * the first pod that touches them), writes upper_files files into it
 * (copied up to the upper tmpfs), walks its procfs and writes a file on
 * each other tmpfs.
 *
 * The churn: `creators` processes make pods one after another (pod i by
 * creator i % creators) and each tears down its oldest pod once it holds
 * more than alive / creators: `pods` pods made and all but `alive` torn
 * down (umount, rmdir), the way a node's pods come and go. Every
 * sample_every pods a creator asks one of its live pods, populated, for
 * memory.reclaim of its reclaimable bytes, and lowers another's
 * memory.high to half its usage (the write reclaims down to it before it
 * returns): those are the latencies. Meanwhile the mutex contention
 * tracepoints (lock:contention_begin/end, filtered on the address of
 * shrinker_mutex the host read from System.map) record who waited for
 * the mutex and how long.
 *
 * Then, with `alive` pods up and whatever the churn left dying: SUnreclaim
 * and nr_dying_descendants, echo 2 > drop_caches (the walk kswapd does
 * over every memcg), and a global reclaim (an anonymous balloon that takes
 * the free memory and half the page cache: kswapd's CPU time, pgscan,
 * pgsteal, slabs_scanned); at the end every pod torn down and the wait
 * for the dying ones.
 *
 * Everything is bounded by counts (pods, samples); the only timed waits
 * are the release of dying cgroups (gives up after release_ms and says so)
 * and kswapd going back to sleep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kwork.h"

#define EXP "density"
#define DEN_CG KW_CG "/density"
#define DEN_MNT KW_MNT "/density"
#define LOWER DEN_MNT "/image"
#define TRACEFS KW_MNT "/tracing"
#define NR_SB 5 /* superblocks per pod */
#define MAX_CREATORS 8

static const char *const sb_names[NR_SB] = { "upper", "root", "proc", "dev", "shm" };

/* The parameters, read once. */
static struct {
	unsigned long pods, alive, creators, sample_every, layer_files, layer_dirs, layer_bytes;
	unsigned long upper_files, proc_depth, release_ms;
	unsigned long long mutex_addr;
	const char *disk;
} P;

/*
 * What the creators measure, in memory shared with the parent (each pod's
 * slot is written by the one creator that owns the pod, read by the parent
 * after every creator has exited: wait() orders them).
 */
struct pod_rec {
	double create_ns, teardown_ns, slab, slab_unrecl, current;
	double mount_ns[NR_SB], umount_ns[NR_SB];
	int alive;      /* still up when its creator exited */
	int torn;       /* torn down by its creator */
};

struct sample_rec {
	double reclaim_ns, high_ns;
	int have_reclaim, have_high;
};

static struct pod_rec *recs;
static struct sample_rec *samples;
static unsigned long nr_samples_max;

static void pod_paths(unsigned long i, char *cg, size_t cglen, char *dir, size_t dirlen)
{
	snprintf(cg, cglen, DEN_CG "/p%lu", i);
	snprintf(dir, dirlen, DEN_MNT "/p%lu", i);
}

static void sb_path(unsigned long i, int k, char *out, size_t len)
{
	snprintf(out, len, DEN_MNT "/p%lu/%s", i, sb_names[k]);
}

/* --------------------------------------------------------------- image */

static void image_make(void)
{
	static char data[65536];
	char path[256];
	int err;

	memset(data, 'i', sizeof(data));
	err = kw_mount_ext4(P.disk, LOWER);
	if (err)
		die("density: mount %s on " LOWER ": %s (the image layer's disk: kernel/boot "
		    "--disk)", P.disk, strerror(-err));
	for (unsigned long d = 0; d < P.layer_dirs; d++) {
		snprintf(path, sizeof(path), LOWER "/layer/d%lu", d);
		kw_mkdir_p(path);
	}
	for (unsigned long f = 0; f < P.layer_files; f++) {
		size_t left = P.layer_bytes;
		int fd;

		snprintf(path, sizeof(path), LOWER "/layer/d%lu/f%lu", f % P.layer_dirs, f);
		fd = open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("density: %s: %s", path, strerror(errno));
		while (left) {
			size_t chunk = left < sizeof(data) ? left : sizeof(data);
			ssize_t n = write(fd, data, chunk);

			if (n <= 0)
				die("density: write %s: %s", path, strerror(errno));
			left -= (size_t)n;
		}
		close(fd);
	}
	sync();
	/* The image cold: the first pods that read it take its objects. */
	drop_caches(3);
	say("density: image of %lu files of %lu B in %lu dirs on %s", P.layer_files,
	    P.layer_bytes, P.layer_dirs, P.disk);
}

/* ----------------------------------------------------------------- pod */

static int pod_mount(unsigned long i, int k)
{
	char path[200], upper[256], opts[768];

	sb_path(i, k, path, sizeof(path));
	switch (k) {
	case 0: { /* the upper tmpfs */
		int err = kw_mount_tmpfs(path, "size=8m,nr_inodes=4096");

		if (err)
			return err;
		snprintf(upper, sizeof(upper), "%s/up", path);
		kw_mkdir_p(upper);
		snprintf(upper, sizeof(upper), "%s/work", path);
		kw_mkdir_p(upper);
		return 0;
	}
	case 1: /* the overlay root */
		sb_path(i, 0, upper, sizeof(upper));
		snprintf(opts, sizeof(opts), "lowerdir=" LOWER "/layer,upperdir=%s/up,workdir=%s/work",
			 upper, upper);
		kw_mkdir_p(path);
		return mount("overlay", path, "overlay", 0, opts) ? -errno : 0;
	case 2:
		return kw_mount_proc(path);
	default:
		return kw_mount_tmpfs(path, "size=1m,nr_inodes=256");
	}
}

struct pod_job {
	unsigned long i;
};

/* In the pod's container cgroup: what a container does when it starts. */
static int pod_child(void *arg)
{
	const struct pod_job *j = arg;
	char path[320], dir[256];

	sb_path(j->i, 1, dir, sizeof(dir));
	kw_walk(dir, 3, 4096);
	for (unsigned long f = 0; f < P.upper_files; f++) {
		int fd;

		/* new files and one changed file of the image: copy-up */
		if (f == 0)
			snprintf(path, sizeof(path), "%s/d0/f0", dir);
		else
			snprintf(path, sizeof(path), "%s/d%lu/new%lu", dir, f % P.layer_dirs, f);
		fd = open(path, O_CREAT | O_WRONLY | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0)
			return 3;
		if (write(fd, path, strlen(path)) < 0) {
			close(fd);
			return 3;
		}
		close(fd);
	}
	sb_path(j->i, 2, dir, sizeof(dir));
	kw_walk(dir, (int)P.proc_depth, 0);
	for (int k = 3; k < NR_SB; k++) {
		int fd;

		sb_path(j->i, k, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/pod", dir);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return 4;
		close(fd);
	}
	return 0;
}

static void pod_create(unsigned long i)
{
	struct pod_rec *r = &recs[i];
	struct pod_job job = { .i = i };
	char cg[128], dir[128], ct[160];
	uint64_t t0 = now_ns();
	int st;

	pod_paths(i, cg, sizeof(cg), dir, sizeof(dir));
	kw_cg_make(cg, true);
	snprintf(ct, sizeof(ct), "%s/c0", cg);
	kw_cg_make(ct, false);
	for (int k = 0; k < NR_SB; k++) {
		uint64_t m0 = now_ns();
		int err = pod_mount(i, k);

		r->mount_ns[k] = (double)(now_ns() - m0);
		if (err)
			die("density: pod %lu: mount %s: %s", i, sb_names[k], strerror(-err));
	}
	st = kw_in_cgroup(ct, pod_child, &job, NULL);
	if (st)
		die("density: pod %lu's process failed (%d: 3 overlay file, 4 tmpfs file)", i, st);
	r->create_ns = (double)(now_ns() - t0);
	r->slab = (double)kw_cg_stat(cg, NULL, "slab");
	r->slab_unrecl = (double)kw_cg_stat(cg, NULL, "slab_unreclaimable");
	r->current = (double)kw_cg_read(cg, "memory.current");
}

static void pod_teardown(unsigned long i)
{
	struct pod_rec *r = &recs[i];
	char cg[128], dir[128], ct[160];
	uint64_t t0 = now_ns();

	pod_paths(i, cg, sizeof(cg), dir, sizeof(dir));
	for (int k = NR_SB - 1; k >= 0; k--) {
		char path[256];
		uint64_t m0 = now_ns();
		int err;

		sb_path(i, k, path, sizeof(path));
		err = kw_umount(path);
		r->umount_ns[k] = (double)(now_ns() - m0);
		if (err)
			die("density: pod %lu: umount %s: %s", i, sb_names[k], strerror(-err));
	}
	snprintf(ct, sizeof(ct), "%s/c0", cg);
	if (rmdir(ct) || rmdir(cg))
		die("density: pod %lu: rmdir: %s", i, strerror(errno));
	r->teardown_ns = (double)(now_ns() - t0);
}

/* ------------------------------------------------------------- samples */

static double timed_write(const char *cg, const char *file, const char *val, int *err)
{
	uint64_t t0 = now_ns();

	*err = kw_cg_write(cg, file, val);
	return (double)(now_ns() - t0);
}

/* memory.reclaim of pod @a's reclaimable bytes; memory.high of pod @b at
 * half its usage (the write reclaims before it returns), then max. */
static void sample(unsigned long a, unsigned long b, struct sample_rec *s)
{
	char cg[128], dir[128], amount[32];
	long long want;
	int err;

	pod_paths(a, cg, sizeof(cg), dir, sizeof(dir));
	want = kw_cg_stat(cg, NULL, "file") + kw_cg_stat(cg, NULL, "slab_reclaimable");
	if (want > 0) {
		snprintf(amount, sizeof(amount), "%lld", want);
		s->reclaim_ns = timed_write(cg, "memory.reclaim", amount, &err);
		if (err && err != -EAGAIN)
			die("density: memory.reclaim of %s: %s", cg, strerror(-err));
		s->have_reclaim = 1;
	}
	pod_paths(b, cg, sizeof(cg), dir, sizeof(dir));
	snprintf(amount, sizeof(amount), "%lld", kw_cg_read(cg, "memory.current") / 2);
	s->high_ns = timed_write(cg, "memory.high", amount, &err);
	if (err)
		die("density: memory.high of %s: %s", cg, strerror(-err));
	s->have_high = 1;
	if (kw_cg_write(cg, "memory.high", "max"))
		die("density: memory.high of %s back to max", cg);
}

/* ------------------------------------------------------------ creators */

static int creator(unsigned long c)
{
	unsigned long window = P.alive / P.creators, *fifo, head = 0, len = 0, made = 0;
	unsigned long slot = c;

	if (!window)
		window = 1;
	fifo = calloc(window + 1, sizeof(*fifo));
	if (!fifo)
		return 2;
	for (unsigned long i = c; i < P.pods; i += P.creators) {
		pod_create(i);
		fifo[(head + len++) % (window + 1)] = i;
		if (len > window) {
			pod_teardown(fifo[head]);
			recs[fifo[head]].torn = 1;
			head = (head + 1) % (window + 1);
			len--;
		}
		made++;
		if (made % P.sample_every == 0 && len >= 2 && slot < nr_samples_max) {
			/* the oldest live pod and the one in the middle */
			sample(fifo[head], fifo[(head + len / 2) % (window + 1)], &samples[slot]);
			slot += P.creators;
		}
		if (c == 0 && (i / P.creators + 1) % 50 == 0)
			say("density: %lu pods made", i + 1);
	}
	for (unsigned long k = 0; k < len; k++)
		recs[fifo[(head + k) % (window + 1)]].alive = 1;
	free(fifo);
	return 0;
}

/* ------------------------------------------------------------- tracing */

static bool trace_on;

static void trace_write(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/%s", file);
	if (write_str(path, val))
		die("density: %s: cannot write %s (tracefs: CONFIG_ENABLE_DEFAULT_TRACERS, "
		    "kernel/config/density.config)", path, val);
}

static void trace_start(void)
{
	char filter[64];

	kw_mkdir_p(TRACEFS);
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL))
		die("density: mount tracefs: %s (the density config has tracing: klab build "
		    "--config uml-density)", strerror(errno));
	trace_write("tracing_on", "0");
	trace_write("buffer_size_kb", "8192");
	trace_write("trace", "");
	/* The kernel's filter keeps the buffer to shrinker_mutex where it
	 * takes a pointer field; trace_read() checks the address anyway. */
	snprintf(filter, sizeof(filter), "lock_addr == 0x%llx", P.mutex_addr);
	if (P.mutex_addr) {
		write_str(TRACEFS "/events/lock/contention_begin/filter", filter);
		write_str(TRACEFS "/events/lock/contention_end/filter", filter);
	}
	trace_write("events/lock/contention_begin/enable", "1");
	trace_write("events/lock/contention_end/enable", "1");
	trace_write("tracing_on", "1");
	trace_on = true;
}

/* "comm-pid [cpu] flags ts: contention_begin: 0xADDR (...)" -> pid, ts
 * (ns), which event, the lock's address */
static bool trace_line(const char *line, long *pid, double *ts, bool *begin,
		       unsigned long long *addr)
{
	const char *p = line, *ev;
	char *end;

	while (*p == ' ')
		p++;
	ev = strstr(p, ": contention_");
	if (!ev)
		return false;
	*begin = !strncmp(ev, ": contention_begin", 18);
	p = strchr(ev + 2, ':');
	if (!p)
		return false;
	*addr = strtoull(p + 1, &end, 16);
	/* the timestamp ends at ev; it starts after the last space before it */
	for (p = ev; p > line && p[-1] != ' '; p--)
		;
	*ts = strtod(p, &end) * 1e9;
	if (end != ev)
		return false;
	/* the pid ends at the first " [" */
	p = strstr(line, " [");
	if (!p)
		return false;
	while (p > line && p[-1] != '-')
		p--;
	*pid = strtol(p, &end, 10);
	return *pid > 0;
}

struct waiting {
	long pid;
	double since;
};

/* The waits on shrinker_mutex: their count, total and longest, ns; the
 * waits on any mutex in *@all. */
static void trace_read(unsigned long *waits, double *total, double *longest, long *lost,
		       unsigned long *all)
{
	struct waiting w[64];
	size_t nw = 0;
	char line[512];
	FILE *f;

	*waits = *all = 0;
	*total = *longest = 0;
	*lost = 0;
	trace_write("tracing_on", "0");
	f = fopen(TRACEFS "/trace", "r");
	if (!f)
		die("density: " TRACEFS "/trace: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		long pid;
		double ts;
		bool begin;

		if (line[0] == '#') {
			const char *e = strstr(line, "entries-in-buffer/entries-written:");

			if (e) {
				long in = 0, written = 0;

				if (sscanf(e + 34, " %ld/%ld", &in, &written) == 2)
					*lost = written - in;
			}
			continue;
		}
		if (!trace_line(line, &pid, &ts, &begin, &addr))
			continue;
		if (begin)
			(*all)++;
		if (P.mutex_addr && addr != P.mutex_addr)
			continue;
		if (begin) {
			if (nw < sizeof(w) / sizeof(w[0]))
				w[nw++] = (struct waiting){ pid, ts };
			continue;
		}
		for (size_t k = 0; k < nw; k++)
			if (w[k].pid == pid) {
				double d = ts - w[k].since;

				(*waits)++;
				*total += d;
				if (d > *longest)
					*longest = d;
				w[k] = w[--nw];
				break;
			}
	}
	fclose(f);
	trace_write("events/lock/contention_begin/enable", "0");
	trace_write("events/lock/contention_end/enable", "0");
}

/* ------------------------------------------------------------- reading */

static long dying_now(void)
{
	return keyed_value(DEN_CG "/cgroup.stat", "nr_dying_descendants");
}

static long long sunreclaim_bytes(void)
{
	return meminfo_kb("SUnreclaim") * 1024LL;
}

struct vm {
	long long scan, steal, slabs;
	uint64_t kswapd;
};

static void vm_read(struct vm *v)
{
	v->scan = kw_vmstat("pgscan_kswapd") + kw_vmstat("pgscan_direct");
	v->steal = kw_vmstat("pgsteal_kswapd") + kw_vmstat("pgsteal_direct");
	v->slabs = kw_vmstat("slabs_scanned");
	v->kswapd = kw_kswapd_cpu_ns(NULL);
}

static struct kscale SC;

static void row(const char *m, const char *unit, const double *v, size_t n)
{
	kw_row(EXP, m, unit, v, n, &SC);
}

static void row1(const char *m, const char *unit, double v)
{
	kw_row1(EXP, m, unit, v, &SC);
}

/* The 99th percentile (nearest rank) of @n values. */
static double p99(const double *v, size_t n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));
	double out;
	size_t rank;

	if (!s)
		die("out of memory");
	memcpy(s, v, n * sizeof(*s));
	for (size_t i = 1; i < n; i++) /* insertion sort: n is the pods' count */
		for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
			double t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	rank = n ? (size_t)((double)n * 0.99 + 0.999999) : 0;
	out = n ? s[(rank ? rank : 1) - 1] : 0;
	free(s);
	return out;
}

/* A sampled latency: its samples (median, range) and its p99. */
static void row_p99(const char *m, const double *v, size_t n)
{
	char name[96];

	row(m, "ns", v, n);
	snprintf(name, sizeof(name), "%s_p99", m);
	row1(name, "ns", p99(v, n));
}

/* --------------------------------------------------------------- phases */

struct anon {
	size_t bytes;
};

static int balloon_child(void *arg)
{
	const struct anon *a = arg;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	write_str("/proc/self/oom_score_adj", "1000");
	p = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	for (size_t off = 0; off < a->bytes; off += (size_t)page)
		p[off] = 1;
	return 0;
}

static int refill_child(void *arg)
{
	const struct pod_job *j = arg;
	char dir[256];

	sb_path(j->i, 1, dir, sizeof(dir));
	kw_walk(dir, 3, 4096);
	return 0;
}

/* Global reclaim: a balloon of the free memory above the low watermarks
 * and half the file pages, after every live pod walked its root again. */
static void phase_balloon(void)
{
	struct anon b;
	struct vm v0, v1;
	long long file;
	uint64_t t0;
	char cg[128], dir[128], ct[160];
	int st;

	for (unsigned long i = 0; i < P.pods; i++) {
		struct pod_job j = { .i = i };

		if (!recs[i].alive)
			continue;
		pod_paths(i, cg, sizeof(cg), dir, sizeof(dir));
		snprintf(ct, sizeof(ct), "%s/c0", cg);
		if (kw_in_cgroup(ct, refill_child, &j, NULL))
			die("density: refill of pod %lu failed", i);
	}
	file = (meminfo_kb("Active(file)") + meminfo_kb("Inactive(file)")) * 1024LL;
	b.bytes = (size_t)(meminfo_kb("MemFree") * 1024LL + kw_pcp_bytes() -
			   kw_watermark_bytes("low") + file / 2);
	kw_cg_make(KW_CG "/density-balloon", false);
	vm_read(&v0);
	t0 = now_ns();
	st = kw_in_cgroup(KW_CG "/density-balloon", balloon_child, &b, NULL);
	row1("balloon_ns", "ns", (double)(now_ns() - t0));
	kw_kswapd_settle(2000);
	vm_read(&v1);
	row1("balloon_kswapd_cpu_ns", "ns", (double)(v1.kswapd - v0.kswapd));
	row1("balloon_pgscan", "count", (double)(v1.scan - v0.scan));
	row1("balloon_pgsteal", "count", (double)(v1.steal - v0.steal));
	row1("balloon_slabs_scanned", "count", (double)(v1.slabs - v0.slabs));
	row1("balloon_oom_kills", "count", st < 0 ? 1 : 0);
	if (st > 0)
		die("density: the balloon failed (%d)", st);
	say("density: balloon of %zu MiB: kswapd %.2f s CPU, %lld pages scanned, %lld slab "
	    "objects scanned", b.bytes >> 20, (double)(v1.kswapd - v0.kswapd) / 1e9,
	    v1.scan - v0.scan, v1.slabs - v0.slabs);
}

static void run_churn(void)
{
	pid_t pid[MAX_CREATORS];
	unsigned long n = P.pods, waits, all_waits, torn = 0;
	double *create, *teardown, *slab, *slab_u, *cur, *mnt, *umnt, *rec, *high, total, wtot,
		wmax;
	size_t nm = 0, nu = 0, nr = 0, nh = 0;
	struct vm v0, v1;
	long long su0, su1, su_end;
	long lost, dying, dying_end;
	uint64_t t0;

	su0 = sunreclaim_bytes();
	vm_read(&v0);
	trace_start();
	t0 = now_ns();
	fflush(NULL);
	for (unsigned long c = 0; c < P.creators; c++) {
		pid[c] = fork();
		if (pid[c] < 0)
			die("density: fork: %s", strerror(errno));
		if (!pid[c])
			_exit(creator(c));
	}
	for (unsigned long c = 0; c < P.creators; c++)
		if (kw_wait(pid[c], NULL))
			die("density: creator %lu failed", c);
	total = (double)(now_ns() - t0);
	trace_read(&waits, &wtot, &wmax, &lost, &all_waits);
	vm_read(&v1);
	su1 = sunreclaim_bytes();
	dying = dying_now();

	create = calloc(n * (5 + 2 * NR_SB) + 2 * nr_samples_max, sizeof(double));
	if (!create)
		die("out of memory");
	teardown = create + n;
	slab = teardown + n;
	slab_u = slab + n;
	cur = slab_u + n;
	mnt = cur + n;
	umnt = mnt + n * NR_SB;
	rec = umnt + n * NR_SB;
	high = rec + nr_samples_max;
	for (unsigned long i = 0; i < n; i++) {
		create[i] = recs[i].create_ns;
		slab[i] = recs[i].slab;
		slab_u[i] = recs[i].slab_unrecl;
		cur[i] = recs[i].current;
		for (int k = 0; k < NR_SB; k++)
			mnt[nm++] = recs[i].mount_ns[k];
		if (recs[i].torn) {
			teardown[torn++] = recs[i].teardown_ns;
			for (int k = 0; k < NR_SB; k++)
				umnt[nu++] = recs[i].umount_ns[k];
		}
	}
	for (unsigned long s = 0; s < nr_samples_max; s++) {
		if (samples[s].have_reclaim)
			rec[nr++] = samples[s].reclaim_ns;
		if (samples[s].have_high)
			high[nh++] = samples[s].high_ns;
	}
	if (!torn || !nr || !nh)
		die("density: the churn tore down %lu pods and took %zu reclaim and %zu high "
		    "samples: pods must exceed alive, and sample_every fit", torn, nr, nh);
	row1("churn_ns", "ns", total);
	row_p99("pod_create_ns", create, n);
	row_p99("pod_teardown_ns", teardown, torn);
	row_p99("pod_mount_ns", mnt, nm);
	row_p99("pod_umount_ns", umnt, nu);
	row("pod_slab_bytes", "B", slab, n);
	row("pod_slab_unreclaimable_bytes", "B", slab_u, n);
	row("pod_memory_bytes", "B", cur, n);
	row_p99("reclaim_ns", rec, nr);
	row_p99("high_ns", high, nh);
	row1("shrinker_mutex_waits", "count", (double)waits);
	row1("shrinker_mutex_wait_total_ns", "ns", wtot);
	row1("shrinker_mutex_wait_max_ns", "ns", wmax);
	row1("mutex_waits_all", "count", (double)all_waits);
	row1("trace_lost_events", "count", (double)lost);
	row1("churn_kswapd_cpu_ns", "ns", (double)(v1.kswapd - v0.kswapd));
	row1("churn_pgscan", "count", (double)(v1.scan - v0.scan));
	row1("churn_pgsteal", "count", (double)(v1.steal - v0.steal));
	row1("churn_slabs_scanned", "count", (double)(v1.slabs - v0.slabs));
	row1("dying_after_churn", "count", (double)dying);
	row1("sunreclaim_delta_bytes", "B", (double)(su1 - su0));
	row1("sunreclaim_per_pod_bytes", "B", (double)(su1 - su0) / (double)(P.alive + dying));
	say("density: %lu pods in %.1f s (%lu alive, %ld dying): SUnreclaim +%lld kB, %lu waits "
	    "on shrinker_mutex (%.2f ms in all, longest %.2f ms)", n, total / 1e9, P.alive, dying,
	    (su1 - su0) >> 10, waits, wtot / 1e6, wmax / 1e6);

	{
		double d0 = (double)drop_caches(2), d1 = (double)drop_caches(2);

		row1("drop_caches_ns", "ns", d0);
		row1("drop_caches_empty_ns", "ns", d1);
	}
	phase_balloon();

	t0 = now_ns();
	for (unsigned long i = 0; i < n; i++)
		if (recs[i].alive)
			pod_teardown(i);
	row1("final_teardown_ns", "ns", (double)(now_ns() - t0));
	{
		double waited;
		uint64_t w0 = now_ns();

		while ((dying_end = dying_now()) > 0 &&
		       now_ns() - w0 < (uint64_t)P.release_ms * 1000000ull)
			usleep(1000);
		waited = (double)(now_ns() - w0);
		su_end = sunreclaim_bytes();
		row1("release_wait_ns", "ns", waited);
	}
	row1("dying_final", "count", (double)dying_end);
	row1("sunreclaim_left_bytes", "B", (double)(su_end - su0));
	say("density: every pod torn down: %ld still dying, SUnreclaim %+lld kB from the start",
	    dying_end, (su_end - su0) >> 10);
	free(create);
}

static void run_density(struct kw_exp *e)
{
	const char *addr = kw_str(e, "shrinker_mutex");
	char *end;
	long shr;

	P.pods = kw_ul(e, "pods");
	P.alive = kw_ul(e, "alive");
	P.creators = kw_ul(e, "creators");
	P.sample_every = kw_ul(e, "sample_every");
	P.layer_files = kw_ul(e, "layer_files");
	P.layer_dirs = kw_ul(e, "layer_dirs");
	P.layer_bytes = kw_ul(e, "layer_bytes");
	P.upper_files = kw_ul(e, "upper_files");
	P.proc_depth = kw_ul(e, "proc_depth");
	P.release_ms = kw_ul(e, "release_ms");
	P.disk = kw_str(e, "disk");
	P.mutex_addr = strtoull(addr, &end, 16);
	if (end == addr || *end)
		die("density: shrinker_mutex=%s is not a hex address (0: every mutex)", addr);
	if (!P.creators || P.creators > MAX_CREATORS || P.alive < 2 * P.creators ||
	    P.pods <= P.alive || !P.sample_every || !P.layer_dirs || !P.layer_files)
		die("density: 1 <= creators <= %d, alive >= 2 x creators, pods > alive, "
		    "sample_every, layer_dirs, layer_files >= 1", MAX_CREATORS);
	nr_samples_max = P.pods / P.sample_every + P.creators;
	recs = mmap(NULL, P.pods * sizeof(*recs) + nr_samples_max * sizeof(*samples),
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (recs == MAP_FAILED)
		die("density: mmap: %s", strerror(errno));
	samples = (struct sample_rec *)(recs + P.pods);
	KW_PHASE(EXP, image_make());
	kw_cg_make(DEN_CG, true);
	shr = debugfs_shrinkers();
	kw_scale(&SC, P.alive * NR_SB, P.alive * 2, "%lu pods made by %lu processes, %lu alive "
		 "at once (the rest torn down as they go), each a memcg with a container memcg "
		 "and %d superblocks: overlay root (a shared ext4 image of %lu files of %lu B), "
		 "its upper tmpfs, procfs, /dev and /dev/shm tmpfs; memory.reclaim and "
		 "memory.high sampled every %lu pods per process; %ld shrinkers at the start; "
		 "shrinker_mutex at %s", P.pods, P.creators, P.alive, NR_SB, P.layer_files,
		 P.layer_bytes, P.sample_every, shr, addr);
	SC.host_shrinkers = kw_boot_shrinkers > 0 ? (unsigned long)kw_boot_shrinkers : 0;
	say("density: %lu pods, %lu alive, %lu creators, %ld shrinkers registered", P.pods,
	    P.alive, P.creators, shr);
	KW_PHASE(EXP, run_churn());
	munmap(recs, P.pods * sizeof(*recs) + nr_samples_max * sizeof(*samples));
	if (trace_on)
		umount(TRACEFS);
}

static struct kw_param density_params[] = {
	{ "pods", "2000", "pods made over the churn", NULL },
	{ "alive", "400", "pods alive at once (the oldest torn down beyond)", NULL },
	{ "creators", "2", "processes making and tearing down pods at once", NULL },
	{ "sample_every", "10", "pods per process between memory.reclaim/memory.high samples",
	  NULL },
	{ "layer_files", "1000", "files of the shared image layer (the overlay's lower)", NULL },
	{ "layer_dirs", "20", "its directories", NULL },
	{ "layer_bytes", "4096", "bytes per image file", NULL },
	{ "upper_files", "8", "files each pod writes into its root (upper tmpfs)", NULL },
	{ "proc_depth", "1", "how deep each pod walks its procfs", NULL },
	{ "release_ms", "20000", "wait at most this for the dying pods at the end", NULL },
	{ "disk", "/dev/vda", "the image layer's ext4 disk", NULL },
	{ "shrinker_mutex", "0", "address of shrinker_mutex (System.map; 0: every mutex)", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_density = {
	.name = "density",
	.help = "pod churn on a container host: overlay, tmpfs and procfs per pod; slab, dying "
		"memcgs, create/teardown, shrinker_mutex waits, reclaim and high latency, kswapd",
	.params = density_params,
	.run = run_density,
};
