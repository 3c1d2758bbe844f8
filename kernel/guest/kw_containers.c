// SPDX-License-Identifier: GPL-2.0
/*
 * containers: memory cgroups that hold objects, under real reclaim.
 *
 * A container is a memory cgroup (KW_CG/ct/c<i>) with mounts of its own
 * (the mix, default ext4+proc+tmpfs+tmpfs: a disk filesystem on a loop
 * device over a slot of the container disk, a procfs, two tmpfs) and what
 * a forked child that joined the cgroup made there: `files` files of
 * `bytes` bytes in `dirs` directories and `negative` lookups of missing
 * names on the ext4 (dentries, inodes, page cache, negative dentries: all
 * on the superblock's list_lrus, all reclaimable), a walk of the procfs
 * (dentries and inodes, reclaimable), `tmpfs_files` files on each tmpfs
 * (charged, pinned: tmpfs keeps nothing on its list_lrus, but its mounts
 * are shrinkers all the same). The files are synced, so their page cache
 * is clean. "Refill" walks a container again from inside (stat, read,
 * the same missing names, procfs): what reclaim freed comes back.
 *
 * At each background level (bg, default 0+20000 tmpfs mounts made by the
 * root memcg, each one more memcg-aware shrinker), `containers` new
 * containers are made and measured:
 *
 *   reclaim   memory.reclaim of one container, asking for its file and
 *             reclaimable slab bytes: latency, bytes, slab and file bytes
 *             freed (memory.stat), dentries and inodes freed (slabinfo),
 *             how often it said EAGAIN; then reclaim of 1 MiB from the
 *             drained container (what reclaim costs when there is little
 *             left: the walk).
 *   high      a writer at memory.high (set to the container's usage plus
 *             high_margin_kib) creating writer_files files: its wall and
 *             CPU time per file (the over-high penalty sleeps count in the
 *             wall time, not the CPU time), pgscan, pgsteal, memory.events
 *             high, slab at the end.
 *   balloon   global reclaim: a filler takes all free memory but a
 *             headroom, then an anonymous balloon takes what is free plus
 *             balloon_pct % of the containers' page cache, so that
 *             kswapd and direct reclaim must free it: the balloon's time
 *             and CPU time, kswapd's CPU time, allocstall, pgscan/pgsteal
 *             (kswapd, direct), slabs_scanned, memory PSI (stall time),
 *             reclaimable slab and objects freed.
 *   drop      echo 2 > drop_caches over the populated containers, and
 *             again right after (nothing left to free: the walk).
 *   teardown  per container: umount its mounts, rmdir its cgroup; then
 *             the wait until no container is dying (page cache is not
 *             reparented in 6.12: a container that used a disk stays dying
 *             until its cache goes; here the umount takes it).
 *
 * Metric names carry _no_mounts at background level 0, nothing at the last
 * level, _m<M> at a level between.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kwork.h"

#define CT_CG KW_CG "/ct"
#define CT_MNT KW_MNT "/ct"
#define BG_MNT KW_MNT "/bg"
#define MAX_MIX 8
#define MAX_LEVELS 8
#define MAX_CT 256
#define RELEASE_WAIT_MS 120000
#define EXP "containers"

enum kind { K_EXT4, K_PROC, K_TMPFS };

struct ct {
	char cg[128], mnt[MAX_MIX][160];
	enum kind kind[MAX_MIX];
	int nmnt;
	bool drained;   /* reclaim took its objects: refill before use */
	bool alive;
};

/* The experiment's parameters, read once. */
static struct {
	unsigned long containers, files, dirs, bytes, negative, tmpfs_files, samples;
	unsigned long writer_files, high_margin_kib, img_mib, proc_depth, headroom_mib;
	double balloon_pct;
	unsigned long bg[MAX_LEVELS];
	size_t nbg;
	enum kind mix[MAX_MIX];
	int nmix, next4;
	const char *disk, *phases;
} P;

static struct ct cts[MAX_CT];
static unsigned long bg_now;     /* background mounts made */
static unsigned long level;      /* index of the background level */
static char sfx[32];             /* metric suffix of the level */
static unsigned long long disk_bytes;

static bool phase_on(const char *name)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", P.phases);
	for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save))
		if (!strcmp(t, name) || !strcmp(t, "all"))
			return true;
	return false;
}

static void metric(char *m, size_t len, const char *base)
{
	snprintf(m, len, "%s%s", base, sfx);
}

static void scale(struct kscale *sc, const char *what)
{
	kw_scale(sc, bg_now, P.containers, "%s; %lu containers (%s: %lu files of %lu B in %lu "
		 "dirs, %lu missing names, procfs walked %lu deep, %lu files per tmpfs) beside "
		 "%lu background tmpfs mounts", what, P.containers, kw_str(&kw_exp_containers, "mix"),
		 P.files, P.bytes, P.dirs, P.negative, P.proc_depth, P.tmpfs_files, bg_now);
	sc->host_shrinkers = kw_boot_shrinkers > 0 ? (unsigned long)kw_boot_shrinkers : 0;
}

static void row(const char *base, const char *unit, const double *v, size_t n, const char *what)
{
	char m[96];
	struct kscale sc;

	metric(m, sizeof(m), base);
	scale(&sc, what);
	kw_row(EXP, m, unit, v, n, &sc);
}

static void row1(const char *base, const char *unit, double v, const char *what)
{
	row(base, unit, &v, 1, what);
}

/* ------------------------------------------------------------ making */

static void bg_to(unsigned long target)
{
	char path[128];

	if (target > bg_now)
		say("containers: background tmpfs mounts %lu -> %lu", bg_now, target);
	for (; bg_now < target; bg_now++) {
		int err;

		snprintf(path, sizeof(path), BG_MNT "/m%lu", bg_now);
		err = kw_mount_tmpfs(path, "size=1m,nr_inodes=64");
		if (err)
			die("mount %s: %s", path, strerror(-err));
	}
}

static void ct_make(unsigned long i)
{
	struct ct *c = &cts[i];
	int e4 = 0;

	memset(c, 0, sizeof(*c));
	snprintf(c->cg, sizeof(c->cg), CT_CG "/c%lu", i);
	kw_cg_make(c->cg, false);
	for (int k = 0; k < P.nmix; k++) {
		const char *names[] = { "ext4", "proc", "tmpfs" };
		char dev[64];
		int err = 0;

		c->kind[k] = P.mix[k];
		snprintf(c->mnt[k], sizeof(c->mnt[k]), CT_MNT "/c%lu/%s%d", i, names[P.mix[k]], k);
		switch (P.mix[k]) {
		case K_EXT4: {
			unsigned long slot = (level * P.containers + i) * (unsigned long)P.next4 +
					     (unsigned long)e4++;
			unsigned long long off = (unsigned long long)slot * P.img_mib << 20;

			if (off + ((unsigned long long)P.img_mib << 20) > disk_bytes)
				die("containers: %s has %llu MiB, slot %lu needs %llu (the host "
				    "makes %lu levels x %lu containers x %d images of %lu MiB)",
				    P.disk, disk_bytes >> 20, slot, (off >> 20) + P.img_mib, P.nbg,
				    P.containers, P.next4, P.img_mib);
			int lfd = kw_loop_attach(P.disk, off, (unsigned long long)P.img_mib << 20,
						 dev, sizeof(dev));

			if (lfd < 0)
				die("containers: loop over %s at %llu MiB: %s", P.disk, off >> 20,
				    strerror(-lfd));
			err = kw_mount_ext4(dev, c->mnt[k]);
			close(lfd);
			break;
		}
		case K_PROC:
			err = kw_mount_proc(c->mnt[k]);
			break;
		case K_TMPFS:
			err = kw_mount_tmpfs(c->mnt[k], "size=16m,nr_inodes=4096");
			break;
		}
		if (err)
			die("containers: mount %s: %s", c->mnt[k], strerror(-err));
		c->nmnt++;
	}
	c->alive = true;
}

/* What a container's child does: make (or walk again) its objects. */
struct fill {
	const struct ct *c;
	bool refill;
	long walked;
};

static int fill_ext4(const char *mnt, bool refill)
{
	static char data[65536];
	char dir[256], path[320];
	struct stat st;

	if (!data[0])
		memset(data, 'k', sizeof(data));
	snprintf(dir, sizeof(dir), "%s/L%lu", mnt, level);
	if (!refill) {
		if (mkdir(dir, 0755) && errno != EEXIST)
			return 3;
		for (unsigned long d = 0; d < P.dirs; d++) {
			snprintf(path, sizeof(path), "%s/d%lu", dir, d);
			if (mkdir(path, 0755) && errno != EEXIST)
				return 3;
		}
	}
	for (unsigned long f = 0; f < P.files; f++) {
		int fd;

		snprintf(path, sizeof(path), "%s/d%lu/f%lu", dir, f % P.dirs, f);
		fd = open(path, refill ? O_RDONLY | O_CLOEXEC : O_CREAT | O_WRONLY | O_CLOEXEC,
			  0644);
		if (fd < 0)
			return 4;
		if (P.bytes) {
			size_t left = P.bytes;

			while (left) {
				size_t chunk = left < sizeof(data) ? left : sizeof(data);
				ssize_t n = refill ? read(fd, data, chunk) : write(fd, data, chunk);

				if (n <= 0)
					break;
				left -= (size_t)n;
			}
		}
		close(fd);
	}
	for (unsigned long j = 0; j < P.negative; j++) {
		snprintf(path, sizeof(path), "%s/d%lu/missing%lu", dir, j % P.dirs, j);
		stat(path, &st);
	}
	return 0;
}

static int fill_tmpfs(const char *mnt)
{
	char path[320];

	for (unsigned long f = 0; f < P.tmpfs_files; f++) {
		int fd;

		snprintf(path, sizeof(path), "%s/t%lu-%lu", mnt, level, f);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return 5;
		if (write(fd, path, strlen(path)) < 0) {
			close(fd);
			return 5;
		}
		close(fd);
	}
	return 0;
}

static int fill_child(void *arg)
{
	struct fill *f = arg;
	int err = 0;

	for (int k = 0; k < f->c->nmnt && !err; k++)
		switch (f->c->kind[k]) {
		case K_EXT4:
			err = fill_ext4(f->c->mnt[k], f->refill);
			break;
		case K_PROC: {
			long n = kw_walk(f->c->mnt[k], (int)P.proc_depth, 0);

			if (!f->refill && f->c == &cts[0])
				say("containers: procfs walk: %ld entries", n);
			break;
		}
		case K_TMPFS:
			if (!f->refill)
				err = fill_tmpfs(f->c->mnt[k]);
			break;
		}
	return err;
}

static void ct_fill(unsigned long i, bool refill)
{
	struct fill f = { .c = &cts[i], .refill = refill };
	int st = kw_in_cgroup(cts[i].cg, fill_child, &f, NULL);

	if (st)
		die("containers: %s of %s failed (%d: 3 mkdir, 4 file, 5 tmpfs)",
		    refill ? "refill" : "populate", cts[i].cg, st);
	cts[i].drained = false;
}

static void refill_all(void)
{
	uint64_t t0 = now_ns();

	for (unsigned long i = 0; i < P.containers; i++)
		ct_fill(i, true);
	sync();
	say("containers: refilled %lu containers in %.2f s", P.containers,
	    (double)(now_ns() - t0) / 1e9);
}

/* ---------------------------------------------------------- measuring */

struct ctsnap {
	long long current, slab, slab_r, file;
};

static void ct_snap(const struct ct *c, struct ctsnap *s)
{
	s->current = kw_cg_read(c->cg, "memory.current");
	s->slab = kw_cg_stat(c->cg, NULL, "slab");
	s->slab_r = kw_cg_stat(c->cg, NULL, "slab_reclaimable");
	s->file = kw_cg_stat(c->cg, NULL, "file");
}

static void populate(void)
{
	double cur[MAX_CT], slab[MAX_CT], file[MAX_CT];
	struct kw_objs o0, o1;

	say("containers: making and populating %lu containers (level %lu, %lu background "
	    "mounts)", P.containers, level, bg_now);
	kw_objs_read(&o0);
	for (unsigned long i = 0; i < P.containers; i++) {
		ct_make(i);
		ct_fill(i, false);
	}
	sync();
	kw_objs_read(&o1);
	for (unsigned long i = 0; i < P.containers; i++) {
		struct ctsnap s;

		ct_snap(&cts[i], &s);
		cur[i] = (double)s.current;
		slab[i] = (double)s.slab;
		file[i] = (double)s.file;
	}
	row("ct_memory_bytes", "B", cur, P.containers, "memory.current of each container, "
	    "populated");
	row("ct_slab_bytes", "B", slab, P.containers, "memory.stat slab of each container");
	row("ct_file_bytes", "B", file, P.containers, "memory.stat file of each container");
	row1("ct_dentries", "count", (double)(o1.dentry - o0.dentry) / (double)P.containers,
	     "dentries made per container (slabinfo)");
	row1("ct_inodes", "count", (double)(o1.inodes - o0.inodes) / (double)P.containers,
	     "inodes made per container (slabinfo: ext4, proc, shmem, plain)");
	say("containers: %.0f kB, %.0f kB slab, %.0f kB file, %.0f dentries per container",
	    cur[0] / 1024, slab[0] / 1024, file[0] / 1024,
	    (double)(o1.dentry - o0.dentry) / (double)P.containers);
}

static void phase_reclaim(void)
{
	unsigned long n = P.samples;
	double *v = calloc(n * 8, sizeof(double));
	double *ns, *freed, *slabf, *filef, *den, *ino, *drained;
	unsigned long eagain = 0, eagain_drained = 0;

	if (!v)
		die("out of memory");
	ns = v; freed = ns + n; slabf = freed + n; filef = slabf + n; den = filef + n;
	ino = den + n; drained = ino + n;
	for (unsigned long s = 0; s < n; s++) {
		unsigned long k = s % P.containers;
		struct ct *c = &cts[k];
		struct ctsnap a, b;
		struct kw_objs o0, o1;
		char amount[32];
		uint64_t t0;
		int err;

		if (c->drained) {
			ct_fill(k, true);
			sync();
		}
		ct_snap(c, &a);
		kw_objs_read(&o0);
		snprintf(amount, sizeof(amount), "%lld", a.file + a.slab_r);
		t0 = now_ns();
		err = kw_cg_write(c->cg, "memory.reclaim", amount);
		ns[s] = (double)(now_ns() - t0);
		if (err == -EAGAIN)
			eagain++;
		else if (err)
			die("containers: memory.reclaim of %s: %s", c->cg, strerror(-err));
		kw_objs_read(&o1); /* waits for the frees behind RCU */
		ct_snap(c, &b);
		freed[s] = (double)(a.current - b.current);
		slabf[s] = (double)(a.slab - b.slab);
		filef[s] = (double)(a.file - b.file);
		den[s] = (double)(o0.dentry - o1.dentry);
		ino[s] = (double)(o0.inodes - o1.inodes);
		/* What it costs when little is left: 1 MiB more from the drained one. */
		t0 = now_ns();
		err = kw_cg_write(c->cg, "memory.reclaim", "1048576");
		drained[s] = (double)(now_ns() - t0);
		if (err == -EAGAIN)
			eagain_drained++;
		c->drained = true;
		say("containers: reclaim %s: %.2f ms, %.0f kB freed (%.0f slab, %.0f file), %.0f "
		    "dentries%s; drained: %.2f ms", c->cg, ns[s] / 1e6, freed[s] / 1024,
		    slabf[s] / 1024, filef[s] / 1024, den[s], err == -EAGAIN ? "" : "",
		    drained[s] / 1e6);
	}
	row("reclaim_ns", "ns", ns, n, "memory.reclaim of one populated container, asking for "
	    "its file + slab_reclaimable bytes");
	row("reclaim_freed_bytes", "B", freed, n, "memory.current before - after");
	row("reclaim_slab_freed_bytes", "B", slabf, n, "memory.stat slab before - after");
	row("reclaim_file_freed_bytes", "B", filef, n, "memory.stat file before - after");
	row("reclaim_dentries_freed", "count", den, n, "slabinfo dentry before - after");
	row("reclaim_inodes_freed", "count", ino, n, "slabinfo inode caches before - after");
	row1("reclaim_eagain", "count", (double)eagain, "memory.reclaim calls (of the samples) "
	     "that returned EAGAIN: it could not reclaim all it was asked for");
	row("reclaim_drained_ns", "ns", drained, n, "memory.reclaim of 1 MiB from the container "
	    "just reclaimed");
	row1("reclaim_drained_eagain", "count", (double)eagain_drained, "of those, EAGAIN");
	free(v);
}

struct writer {
	char dir[256];
	unsigned long files, bytes;
};

static int writer_child(void *arg)
{
	static char data[65536];
	const struct writer *w = arg;
	char path[320];
	struct stat st;

	memset(data, 'w', sizeof(data));
	if (mkdir(w->dir, 0755) && errno != EEXIST)
		return 3;
	for (unsigned long f = 0; f < w->files; f++) {
		size_t left = w->bytes;
		int fd;

		snprintf(path, sizeof(path), "%s/f%lu", w->dir, f);
		fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		if (fd < 0)
			return 4;
		while (left) {
			size_t chunk = left < sizeof(data) ? left : sizeof(data);
			ssize_t n = write(fd, data, chunk);

			if (n <= 0)
				break;
			left -= (size_t)n;
		}
		close(fd);
		snprintf(path, sizeof(path), "%s/missing%lu", w->dir, f);
		stat(path, &st);
	}
	return 0;
}

static void phase_high(void)
{
	unsigned long n = P.samples;
	double *v = calloc(n * 6, sizeof(double));
	double *ns, *cpu, *scan, *steal, *slab, *events;

	if (!v)
		die("out of memory");
	ns = v; cpu = ns + n; scan = cpu + n; steal = scan + n; slab = steal + n;
	events = slab + n;
	for (unsigned long s = 0; s < n; s++) {
		unsigned long k = (P.containers - 1 - s % P.containers);
		struct ct *c = &cts[k];
		struct writer w = { .files = P.writer_files, .bytes = P.bytes };
		long long scan0, steal0, ev0;
		char high[32];
		uint64_t t0, cpu_ns = 0;
		int st, target = 0;

		if (c->drained) {
			ct_fill(k, true);
			sync();
		}
		for (int m = c->nmnt - 1; m >= 0; m--)
			if (c->kind[m] != K_PROC && (c->kind[m] == K_EXT4 ||
						     c->kind[target] != K_EXT4))
				target = m;
		snprintf(w.dir, sizeof(w.dir), "%s/w%lu-%lu", c->mnt[target], level, s);
		snprintf(high, sizeof(high), "%lld",
			 kw_cg_read(c->cg, "memory.current") +
			 (long long)(P.high_margin_kib << 10));
		if (kw_cg_write(c->cg, "memory.high", high))
			die("containers: memory.high of %s", c->cg);
		scan0 = kw_cg_stat(c->cg, NULL, "pgscan");
		steal0 = kw_cg_stat(c->cg, NULL, "pgsteal");
		ev0 = kw_cg_stat(c->cg, "memory.events", "high");
		t0 = now_ns();
		st = kw_in_cgroup(c->cg, writer_child, &w, &cpu_ns);
		ns[s] = (double)(now_ns() - t0) / (double)w.files;
		if (st)
			die("containers: the writer in %s failed (%d)", c->cg, st);
		cpu[s] = (double)cpu_ns / (double)w.files;
		scan[s] = (double)(kw_cg_stat(c->cg, NULL, "pgscan") - scan0) / (double)w.files;
		steal[s] = (double)(kw_cg_stat(c->cg, NULL, "pgsteal") - steal0) / (double)w.files;
		events[s] = (double)(kw_cg_stat(c->cg, "memory.events", "high") - ev0);
		slab[s] = (double)kw_cg_stat(c->cg, NULL, "slab");
		kw_cg_write(c->cg, "memory.high", "max");
		c->drained = true;
		say("containers: writer at memory.high in %s: %.1f us per file (%.1f us CPU), "
		    "%.1f pages scanned per file, %.0f high events", c->cg, ns[s] / 1e3,
		    cpu[s] / 1e3, scan[s], events[s]);
	}
	row("high_ns_per_file", "ns", ns, n, "a writer creating files (and looking up a "
	    "missing name each) in a container held at memory.high = its usage + the margin: "
	    "wall time per file");
	row("high_cpu_ns_per_file", "ns", cpu, n, "the writer's CPU time per file");
	row("high_pgscan_per_file", "count", scan, n, "memory.stat pgscan per file");
	row("high_pgsteal_per_file", "count", steal, n, "memory.stat pgsteal per file");
	row("high_events", "count", events, n, "memory.events high during the writer");
	row("high_slab_bytes", "B", slab, n, "memory.stat slab when the writer ended");
	free(v);
}

/* The anonymous memory of the filler and of the balloon. */
struct anon {
	size_t bytes;
	int fd; /* the filler reports "touched" on it, then waits to be killed */
};

static int anon_child(void *arg)
{
	const struct anon *a = arg;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	/* The OOM killer, if reclaim ever falls short, takes the balloon and
	 * never the filler. */
	write_str("/proc/self/oom_score_adj", a->fd >= 0 ? "-1000" : "1000");
	p = mmap(NULL, a->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return 3;
	/* The filler is set-up, not measured: huge pages fill it 512 times
	 * faster under emulation. The balloon faults page by page, as an
	 * application does. */
	if (a->fd >= 0)
		madvise(p, a->bytes, MADV_HUGEPAGE);
	for (size_t off = 0; off < a->bytes; off += (size_t)page)
		p[off] = 1;
	if (a->fd >= 0) {
		char c = 1;

		if (write(a->fd, &c, 1) != 1)
			return 4;
		for (;;)
			pause();
	}
	return 0;
}

/* The containers' page cache and reclaimable slab, summed. */
static void reclaimable_total(long long *file, long long *slab_r)
{
	*file = *slab_r = 0;
	for (unsigned long i = 0; i < P.containers; i++) {
		struct ctsnap s;

		ct_snap(&cts[i], &s);
		*file += s.file;
		*slab_r += s.slab_r;
	}
}

static long long ct_current_total(void)
{
	long long sum = 0;

	for (unsigned long i = 0; i < P.containers; i++)
		sum += kw_cg_read(cts[i].cg, "memory.current");
	return sum;
}

static long long vm_allocstall(void)
{
	static const char *const keys[] = { "allocstall_dma", "allocstall_dma32",
					    "allocstall_normal", "allocstall_movable" };
	long long sum = 0;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		long long v = kw_vmstat(keys[i]);

		sum += v > 0 ? v : 0;
	}
	return sum;
}

static void phase_balloon(void)
{
	enum { NS, CPU, KSW, STALL, SCANK, SCAND, STEALK, STEALD, SLABS, SOME, FULL, SLABF,
	       DEN, INO, CTF, NR };
	static const char *const names[NR] = {
		"balloon_ns", "balloon_cpu_ns", "balloon_kswapd_cpu_ns", "balloon_allocstall",
		"balloon_pgscan_kswapd", "balloon_pgscan_direct", "balloon_pgsteal_kswapd",
		"balloon_pgsteal_direct", "balloon_slabs_scanned", "balloon_psi_some_ns",
		"balloon_psi_full_ns", "balloon_slab_freed_bytes", "balloon_dentries_freed",
		"balloon_inodes_freed", "balloon_ct_freed_bytes",
	};
	static const char *const units[NR] = { "ns", "ns", "ns", "count", "count", "count",
		"count", "count", "count", "ns", "ns", "B", "count", "count", "B" };
	static const char *const what[NR] = {
		"the balloon's wall time to touch its pages",
		"the balloon's CPU time (its direct reclaim is in it)",
		"CPU time of the kswapd threads during the balloon (until they sleep)",
		"/proc/vmstat allocstall_* (direct reclaim entries)",
		"/proc/vmstat pgscan_kswapd", "/proc/vmstat pgscan_direct",
		"/proc/vmstat pgsteal_kswapd", "/proc/vmstat pgsteal_direct",
		"/proc/vmstat slabs_scanned",
		"/proc/pressure/memory some total (stall time of any task)",
		"/proc/pressure/memory full total",
		"/proc/meminfo SReclaimable before - after",
		"slabinfo dentry before - after", "slabinfo inode caches before - after",
		"the containers' memory.current, before - after",
	};
	unsigned long n = P.samples;
	double *v = calloc(n * NR, sizeof(double));
	struct anon filler = { .fd = -1 };
	int pfd[2];
	pid_t fpid;
	char cg[128];
	long long file, slab_r;
	unsigned long oom = 0;
	char c;

	if (!v)
		die("out of memory");
	refill_all();
	reclaimable_total(&file, &slab_r);
	/* The filler: all that is free but the containers' reclaimable memory
	 * and a headroom, so the balloon starts from the same free memory on
	 * every design and stays small. */
	filler.bytes = (size_t)(meminfo_kb("MemFree") * 1024LL - kw_watermark_bytes("high") -
				file - slab_r - (long long)(P.headroom_mib << 20));
	snprintf(cg, sizeof(cg), KW_CG "/filler");
	kw_cg_make(cg, false);
	if (pipe(pfd))
		die("pipe: %s", strerror(errno));
	filler.fd = pfd[1];
	say("containers: filler of %zu MiB; the containers hold %lld MiB of page cache and "
	    "%lld MiB of reclaimable slab", filler.bytes >> 20, file >> 20, slab_r >> 20);
	fpid = kw_spawn_in_cgroup(cg, anon_child, &filler);
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1)
		die("containers: the filler died");
	close(pfd[0]);
	for (unsigned long s = 0; s < n; s++) {
		struct anon b = { .fd = -1 };
		struct kw_objs o0, o1;
		long long some0, full0, some1, full1, sr0, ct0;
		long long st0, sk0, sd0, tk0, td0, sl0;
		uint64_t t0, k0, cpu = 0;
		int st;

		if (s)
			refill_all();
		/* What is free above the zones' low watermarks (an allocation
		 * wakes kswapd only once every zone is below its low mark; the
		 * per-CPU free lists are free too), and
		 * balloon_pct of the page cache: freed slab
		 * objects give back whole pages only now and then, so the slab
		 * is what reclaim frees beside the page cache, not what the
		 * balloon counts on. */
		reclaimable_total(&file, &slab_r);
		b.bytes = (size_t)(meminfo_kb("MemFree") * 1024LL + kw_pcp_bytes() -
				   kw_watermark_bytes("low") +
				   (long long)((double)file * P.balloon_pct / 100));
		kw_objs_read(&o0);
		sr0 = meminfo_kb("SReclaimable");
		ct0 = ct_current_total();
		st0 = vm_allocstall();
		sk0 = kw_vmstat("pgscan_kswapd");
		sd0 = kw_vmstat("pgscan_direct");
		tk0 = kw_vmstat("pgsteal_kswapd");
		td0 = kw_vmstat("pgsteal_direct");
		sl0 = kw_vmstat("slabs_scanned");
		kw_psi_memory(&some0, &full0);
		k0 = kw_kswapd_cpu_ns(NULL);
		snprintf(cg, sizeof(cg), KW_CG "/balloon");
		kw_cg_make(cg, false);
		t0 = now_ns();
		st = kw_in_cgroup(cg, anon_child, &b, &cpu);
		v[NS * n + s] = (double)(now_ns() - t0);
		if (st < 0)
			oom++; /* killed: reclaim fell short; the sample still counts */
		else if (st)
			die("containers: the balloon failed (%d)", st);
		kw_kswapd_settle(2000);
		v[KSW * n + s] = (double)(kw_kswapd_cpu_ns(NULL) - k0);
		v[CPU * n + s] = (double)cpu;
		v[STALL * n + s] = (double)(vm_allocstall() - st0);
		v[SCANK * n + s] = (double)(kw_vmstat("pgscan_kswapd") - sk0);
		v[SCAND * n + s] = (double)(kw_vmstat("pgscan_direct") - sd0);
		v[STEALK * n + s] = (double)(kw_vmstat("pgsteal_kswapd") - tk0);
		v[STEALD * n + s] = (double)(kw_vmstat("pgsteal_direct") - td0);
		v[SLABS * n + s] = (double)(kw_vmstat("slabs_scanned") - sl0);
		kw_psi_memory(&some1, &full1);
		v[SOME * n + s] = (double)(some1 - some0) * 1000;
		v[FULL * n + s] = (double)(full1 - full0) * 1000;
		v[SLABF * n + s] = (double)(sr0 - meminfo_kb("SReclaimable")) * 1024;
		kw_objs_read(&o1);
		v[DEN * n + s] = (double)(o0.dentry - o1.dentry);
		v[INO * n + s] = (double)(o0.inodes - o1.inodes);
		v[CTF * n + s] = (double)(ct0 - ct_current_total());
		say("containers: balloon of %zu MiB: %.2f s, kswapd %.2f s CPU, %.0f allocstalls, "
		    "%.0f kB slab freed, %.0f dentries freed", b.bytes >> 20,
		    v[NS * n + s] / 1e9, v[KSW * n + s] / 1e9, v[STALL * n + s],
		    v[SLABF * n + s] / 1024, v[DEN * n + s]);
	}
	kill(fpid, SIGKILL);
	kw_wait(fpid, NULL);
	for (unsigned long s = 0; s < P.containers; s++)
		cts[s].drained = true;
	for (int m = 0; m < NR; m++) {
		char w[256];

		snprintf(w, sizeof(w), "%s; global reclaim: an anonymous balloon takes the free "
			 "memory and %.0f%% of the containers' page cache", what[m],
			 P.balloon_pct);
		row(names[m], units[m], v + m * n, n, w);
	}
	row1("balloon_oom_kills", "count", (double)oom, "balloons the OOM killer took (reclaim "
	     "fell short of the balloon)");
	free(v);
}

static void phase_drop(void)
{
	unsigned long n = P.samples;
	double *v = calloc(n * 4, sizeof(double));
	double *ns, *den, *ino, *empty;

	if (!v)
		die("out of memory");
	ns = v; den = ns + n; ino = den + n; empty = ino + n;
	for (unsigned long s = 0; s < n; s++) {
		struct kw_objs o0, o1;

		refill_all();
		kw_objs_read(&o0);
		ns[s] = (double)drop_caches(2);
		kw_objs_read(&o1);
		empty[s] = (double)drop_caches(2);
		den[s] = (double)(o0.dentry - o1.dentry);
		ino[s] = (double)(o0.inodes - o1.inodes);
		say("containers: drop_caches %.2f ms (%.0f dentries freed), again %.2f ms",
		    ns[s] / 1e6, den[s], empty[s] / 1e6);
	}
	for (unsigned long s = 0; s < P.containers; s++)
		cts[s].drained = true;
	row("drop_caches_ns", "ns", ns, n, "echo 2 > drop_caches over the populated containers");
	row("drop_dentries_freed", "count", den, n, "slabinfo dentry before - after");
	row("drop_inodes_freed", "count", ino, n, "slabinfo inode caches before - after");
	row("drop_caches_empty_ns", "ns", empty, n, "echo 2 > drop_caches right after (nothing "
	    "left to free)");
	free(v);
}

/* nr_dying_descendants of @cg reaching 0, at most @max_ms: what is left. */
static long wait_dying(const char *cg, unsigned int max_ms, double *ns)
{
	char path[256];
	uint64_t t0 = now_ns();
	long dying;

	snprintf(path, sizeof(path), "%s/cgroup.stat", cg);
	while ((dying = keyed_value(path, "nr_dying_descendants")) > 0 &&
	       now_ns() - t0 < (uint64_t)max_ms * 1000000ull)
		usleep(500);
	*ns = (double)(now_ns() - t0);
	return dying;
}

static void phase_teardown(void)
{
	unsigned long n = P.containers;
	double *v = calloc(n * 2, sizeof(double)), *um, *rm, rel;
	long dying;

	if (!v)
		die("out of memory");
	um = v;
	rm = um + n;
	sync();
	for (unsigned long i = 0; i < n; i++) {
		struct ct *c = &cts[i];
		uint64_t t0 = now_ns(), t1;

		for (int k = c->nmnt - 1; k >= 0; k--) {
			int err = kw_umount(c->mnt[k]);

			if (err)
				die("containers: umount %s: %s", c->mnt[k], strerror(-err));
		}
		t1 = now_ns();
		if (rmdir(c->cg))
			die("containers: rmdir %s: %s", c->cg, strerror(errno));
		um[i] = (double)(t1 - t0);
		rm[i] = (double)(now_ns() - t1);
		c->alive = false;
	}
	dying = wait_dying(CT_CG, RELEASE_WAIT_MS, &rel);
	row("teardown_umount_ns", "ns", um, n, "umount of one container's mounts (objects on "
	    "them)");
	row("teardown_rmdir_ns", "ns", rm, n, "rmdir of one container's cgroup, its mounts gone");
	row1("teardown_release_ns", "ns", rel / (double)n, "per container: from the last rmdir "
	     "until nr_dying_descendants is 0 (or the wait gives up)");
	row1("teardown_dying", "count", (double)dying, "containers still dying when the wait "
	     "ended");
	say("containers: teardown: umount %.1f ms, rmdir %.1f ms per container, release %.2f s "
	    "(%ld still dying)", um[0] / 1e6, rm[0] / 1e6, rel / 1e9, dying);
	free(v);
}

/* ------------------------------------------------------------- driver */

static void parse_mix(void)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", kw_str(&kw_exp_containers, "mix"));
	P.nmix = P.next4 = 0;
	for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
		if (P.nmix == MAX_MIX)
			die("containers: at most %d mounts per container", MAX_MIX);
		if (!strcmp(t, "ext4")) {
			P.mix[P.nmix++] = K_EXT4;
			P.next4++;
		} else if (!strcmp(t, "proc")) {
			P.mix[P.nmix++] = K_PROC;
		} else if (!strcmp(t, "tmpfs")) {
			P.mix[P.nmix++] = K_TMPFS;
		} else {
			die("containers: mix kind %s is not ext4, proc or tmpfs", t);
		}
	}
}

static void disk_size(void)
{
	int fd;

	disk_bytes = 0;
	if (!P.next4)
		return;
	fd = open(P.disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &disk_bytes))
		die("containers: %s: %s (the containers' ext4 images live there: kernel/boot "
		    "--disk)", P.disk, strerror(errno));
	close(fd);
}

static void run_containers(struct kw_exp *e)
{
	char mfk[32];

	/* Writeback within a second or two, so a writer's pages and inodes
	 * become reclaimable while it runs (the same on every design). */
	write_str("/proc/sys/vm/dirty_expire_centisecs", "100");
	write_str("/proc/sys/vm/dirty_writeback_centisecs", "50");
	/* THP raised min_free_kbytes to ~11 pageblocks per zone (88 MiB at 4
	 * nodes); the balloon must reach below the low watermark to wake
	 * kswapd, so take the watermarks back to a small guest's and stop
	 * their boosting: reclaim then runs when the balloon asks for it. */
	snprintf(mfk, sizeof(mfk), "%lu", kw_ul(e, "min_free_kib"));
	if (kw_ul(e, "min_free_kib"))
		write_str("/proc/sys/vm/min_free_kbytes", mfk);
	write_str("/proc/sys/vm/watermark_boost_factor", "0");
	P.containers = kw_ul(e, "containers");
	P.files = kw_ul(e, "files");
	P.dirs = kw_ul(e, "dirs");
	P.bytes = kw_ul(e, "bytes");
	P.negative = kw_ul(e, "negative");
	P.tmpfs_files = kw_ul(e, "tmpfs_files");
	P.samples = kw_ul(e, "samples");
	P.writer_files = kw_ul(e, "writer_files");
	P.high_margin_kib = kw_ul(e, "high_margin_kib");
	P.img_mib = kw_ul(e, "img_mib");
	P.proc_depth = kw_ul(e, "proc_depth");
	P.headroom_mib = kw_ul(e, "headroom_mib");
	P.balloon_pct = kw_dbl(e, "balloon_pct");
	P.disk = kw_str(e, "disk");
	P.phases = kw_str(e, "phases");
	P.nbg = kw_ul_list(e, "bg", P.bg, MAX_LEVELS);
	parse_mix();
	if (!P.containers || P.containers > MAX_CT || !P.dirs || !P.samples || !P.nbg ||
	    !P.writer_files || P.balloon_pct < 0 || P.balloon_pct > 90)
		die("containers: 1 <= containers <= %d, dirs, samples, writer_files >= 1, bg "
		    "levels given, balloon_pct in 0..90", MAX_CT);
	for (size_t l = 1; l < P.nbg; l++)
		if (P.bg[l] < P.bg[l - 1])
			die("containers: background levels must not fall");
	disk_size();
	kw_cg_make(CT_CG, true);
	for (level = 0; level < P.nbg; level++) {
		if (P.bg[level] == 0)
			snprintf(sfx, sizeof(sfx), "_no_mounts");
		else if (level == P.nbg - 1)
			sfx[0] = 0;
		else
			snprintf(sfx, sizeof(sfx), "_m%lu", P.bg[level]);
		KW_PHASE(EXP, bg_to(P.bg[level]));
		KW_PHASE(EXP, populate());
		if (phase_on("reclaim"))
			KW_PHASE(EXP, phase_reclaim());
		if (phase_on("high"))
			KW_PHASE(EXP, phase_high());
		if (phase_on("balloon"))
			KW_PHASE(EXP, phase_balloon());
		if (phase_on("drop"))
			KW_PHASE(EXP, phase_drop());
		KW_PHASE(EXP, phase_teardown());
	}
}

static struct kw_param ct_params[] = {
	{ "containers", "12", "containers at each background level", NULL },
	{ "mix", "ext4+proc+tmpfs+tmpfs", "each container's mounts (ext4, proc, tmpfs)", NULL },
	{ "files", "2000", "files each container creates on each of its ext4 mounts", NULL },
	{ "dirs", "8", "directories they are spread over", NULL },
	{ "bytes", "1024", "bytes per file (page cache)", NULL },
	{ "negative", "2000", "lookups of missing names (negative dentries) per ext4", NULL },
	{ "tmpfs_files", "16", "files per tmpfs (charged, not reclaimable)", NULL },
	{ "proc_depth", "3", "how deep the procfs walk goes", NULL },
	{ "bg", "0+20000", "background tmpfs mounts at each level, +-separated, rising", NULL },
	{ "samples", "5", "samples of each measurement per level", NULL },
	{ "writer_files", "3000", "files the writer at memory.high creates", NULL },
	{ "high_margin_kib", "2048", "memory.high = usage + this when the writer starts", NULL },
	{ "balloon_pct", "60", "% of the containers' page cache the balloon takes", NULL },
	{ "headroom_mib", "64", "free memory the filler leaves beside the reclaimable", NULL },
	{ "min_free_kib", "8192", "vm.min_free_kbytes for the experiment (0: leave it)", NULL },
	{ "disk", "/dev/vda", "the disk of ext4 images (one slot per container and level)", NULL },
	{ "img_mib", "64", "size of an image slot on the disk, MiB", NULL },
	{ "phases", "all", "reclaim+high+balloon+drop (teardown always runs), or all", NULL },
	{ NULL, NULL, NULL, NULL },
};

struct kw_exp kw_exp_containers = {
	.name = "containers",
	.help = "cgroups holding dentries, inodes and page cache on their own mounts, under "
		"memory.reclaim, memory.high, kswapd, drop_caches, and their teardown",
	.params = ct_params,
	.run = run_containers,
};
