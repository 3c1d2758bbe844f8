// SPDX-License-Identifier: GPL-2.0
/* Helpers of the workload programs (see kwlib.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kwlib.h"

void kw_mkdir_p(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				die("mkdir %s: %s", buf, strerror(errno));
			*p = '/';
		}
	if (mkdir(buf, 0755) && errno != EEXIST)
		die("mkdir %s: %s", buf, strerror(errno));
}

void kw_cg_make(const char *path, bool parent)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	if (parent)
		cg_enable_memory(path);
}

int kw_cg_write(const char *cg, const char *file, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return write_str(path, val);
}

long long kw_cg_read(const char *cg, const char *file)
{
	char path[512], buf[64] = "";
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && isdigit((unsigned char)buf[0]))
		v = strtoll(buf, NULL, 10);
	fclose(f);
	return v;
}

long long kw_cg_stat(const char *cg, const char *file, const char *key)
{
	char path[512], k[128];
	long long val, v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cg, file ? file : "memory.stat");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", k, &val) == 2)
		if (!strcmp(k, key)) {
			v = val;
			break;
		}
	fclose(f);
	return v;
}

int kw_cg_join(const char *cg)
{
	return kw_cg_write(cg, "cgroup.procs", "0");
}

pid_t kw_spawn_in_cgroup(const char *cg, int (*fn)(void *), void *arg)
{
	pid_t p;

	fflush(NULL);
	p = fork();
	if (p < 0)
		die("fork: %s", strerror(errno));
	if (!p) {
		int err = kw_cg_join(cg);

		if (err) {
			fprintf(stderr, "kwork: join %s: %s\n", cg, strerror(-err));
			_exit(125);
		}
		_exit(fn(arg) & 0xff);
	}
	return p;
}

int kw_wait(pid_t pid, uint64_t *cpu_ns)
{
	struct rusage ru;
	int st;

	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4 %d: %s", (int)pid, strerror(errno));
	if (cpu_ns)
		*cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) *
			  1000000000ull +
			  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int kw_in_cgroup(const char *cg, int (*fn)(void *), void *arg, uint64_t *cpu_ns)
{
	return kw_wait(kw_spawn_in_cgroup(cg, fn, arg), cpu_ns);
}

int kw_mount_tmpfs(const char *dir, const char *opts)
{
	kw_mkdir_p(dir);
	return mount("kw", dir, "tmpfs", 0, opts) ? -errno : 0;
}

int kw_mount_proc(const char *dir)
{
	kw_mkdir_p(dir);
	return mount("proc", dir, "proc", 0, NULL) ? -errno : 0;
}

int kw_mount_ext4(const char *dev, const char *dir)
{
	kw_mkdir_p(dir);
	return mount(dev, dir, "ext4", 0, NULL) ? -errno : 0;
}

int kw_umount(const char *dir)
{
	return umount(dir) ? -errno : 0;
}

int kw_loop_attach(const char *backing, unsigned long long offset, unsigned long long len,
		   char *dev, size_t devlen)
{
	struct loop_config cfg;
	int ctl, nr, fd, lfd, err = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	err = nr < 0 ? -errno : 0;
	close(ctl);
	if (err)
		return err;
	snprintf(dev, devlen, "/dev/loop%d", nr);
	fd = open(backing, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* devtmpfs makes the node; wait for it (it is made asynchronously). */
	for (int i = 0; (lfd = open(dev, O_RDWR | O_CLOEXEC)) < 0 && errno == ENOENT && i < 1000; i++)
		kw_sleep_ms(1);
	if (lfd < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned int)fd;
	cfg.info.lo_offset = offset;
	cfg.info.lo_sizelimit = len;
	/* Autoclear: the device detaches itself when the last user (the
	 * mount) goes away. */
	cfg.info.lo_flags = LO_FLAGS_DIRECT_IO | LO_FLAGS_AUTOCLEAR;
	if (ioctl(lfd, LOOP_CONFIGURE, &cfg)) {
		err = -errno;
		close(lfd);
	}
	close(fd);
	return err ? err : lfd;
}

long kw_walk(const char *dir, int depth, size_t read_bytes)
{
	static char buf[65536];
	char path[1024];
	struct dirent *e;
	struct stat st;
	long n = 0;
	DIR *d;

	if (depth < 0)
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		n++;
		if (S_ISDIR(st.st_mode)) {
			n += kw_walk(path, depth - 1, read_bytes);
		} else if (S_ISREG(st.st_mode) && read_bytes) {
			int fd = open(path, O_RDONLY | O_CLOEXEC);

			if (fd >= 0) {
				size_t want = read_bytes < sizeof(buf) ? read_bytes : sizeof(buf);

				if (read(fd, buf, want) < 0)
					n += 0; /* procfs files may refuse; the walk goes on */
				close(fd);
			}
		}
	}
	closedir(d);
	return n;
}

long long kw_vmstat(const char *key)
{
	return kw_cg_stat("/proc", "vmstat", key);
}

void kw_psi_memory(long long *some_us, long long *full_us)
{
	char line[256];
	FILE *f = fopen("/proc/pressure/memory", "r");

	*some_us = *full_us = -1;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *t = strstr(line, "total=");

		if (!t)
			continue;
		if (!strncmp(line, "some", 4))
			*some_us = strtoll(t + 6, NULL, 10);
		else if (!strncmp(line, "full", 4))
			*full_us = strtoll(t + 6, NULL, 10);
	}
	fclose(f);
}

long long kw_watermark_bytes(const char *which)
{
	char line[256], key[64];
	long long sum = 0, v;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	/* "        low      7878" per zone (the per-CPU pagesets' "high:" has a
	 * colon and does not match) */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %63s %lld", key, &v) == 2 && !strcmp(key, which))
			sum += v;
	fclose(f);
	return sum * sysconf(_SC_PAGESIZE);
}

long long kw_pcp_bytes(void)
{
	char line[256];
	long long sum = 0, v;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	/* "              count: 378" of every CPU's pageset of every zone */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &v) == 1)
			sum += v;
	fclose(f);
	return sum * sysconf(_SC_PAGESIZE);
}

uint64_t kw_task_cpu_ns(pid_t pid)
{
	char path[64], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "se.sum_exec_runtime", 19)) {
			char *colon = strchr(line, ':');
			unsigned long long ms = 0, frac = 0;
			char *dot;

			/* "ms.nnnnnn": the value in ms with ns precision */
			if (!colon)
				break;
			ms = strtoull(colon + 1, &dot, 10);
			if (*dot == '.') {
				char digits[7] = "000000";

				for (int i = 0; i < 6 && isdigit((unsigned char)dot[1 + i]); i++)
					digits[i] = dot[1 + i];
				frac = strtoull(digits, NULL, 10);
			}
			v = ms * 1000000ull + frac;
			break;
		}
	fclose(f);
	return v;
}

/* Calls @fn with each kswapd thread's pid. */
static int for_each_kswapd(void (*fn)(pid_t, void *), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "kswapd", 6)) {
			fn((pid_t)atoi(e->d_name), arg);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

static void add_cpu(pid_t pid, void *arg)
{
	*(uint64_t *)arg += kw_task_cpu_ns(pid);
}

uint64_t kw_kswapd_cpu_ns(int *nr)
{
	uint64_t sum = 0;
	int n = for_each_kswapd(add_cpu, &sum);

	if (nr)
		*nr = n;
	return sum;
}

static void count_running(pid_t pid, void *arg)
{
	char path[64], buf[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f)) {
		char *p = strrchr(buf, ')');

		if (p && p[1] == ' ' && p[2] == 'R')
			(*(int *)arg)++;
	}
	fclose(f);
}

void kw_kswapd_settle(unsigned int max_ms)
{
	for (unsigned int t = 0; t < max_ms; t += 5) {
		int running = 0;

		for_each_kswapd(count_running, &running);
		if (!running)
			return;
		kw_sleep_ms(5);
	}
}

static const char *const inode_caches[] = {
	"ext4_inode_cache", "proc_inode_cache", "shmem_inode_cache", "inode_cache",
};

static long flushed_objs(const char *cache)
{
	char path[300];
	long n;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", cache);
	write_str(path, "1");
	n = slab_objs(cache);
	return n < 0 ? 0 : n;
}

static void objs_once(struct kw_objs *o)
{
	o->dentry = flushed_objs("dentry");
	o->inodes = 0;
	for (size_t i = 0; i < sizeof(inode_caches) / sizeof(inode_caches[0]); i++)
		o->inodes += flushed_objs(inode_caches[i]);
}

void kw_objs_read(struct kw_objs *o)
{
	struct kw_objs prev;

	/* Dentries and inodes are freed after an RCU grace period: read
	 * until two reads 10 ms apart agree (at most a second). */
	objs_once(&prev);
	for (int i = 0; i < 100; i++) {
		kw_sleep_ms(10);
		objs_once(o);
		if (o->dentry == prev.dentry && o->inodes == prev.inodes)
			return;
		prev = *o;
	}
}

int kw_swap_on(const char *dev)
{
	unsigned char page[4096];
	unsigned long long bytes = 0;
	unsigned int *info = (unsigned int *)(page + 1024);
	int fd = open(dev, O_RDWR | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKGETSIZE64, &bytes) || bytes < 16 * sizeof(page)) {
		close(fd);
		return -EINVAL;
	}
	/* The swap header: version 1, last page, no bad pages, the magic at
	 * the end of the first page. */
	memset(page, 0, sizeof(page));
	info[0] = 1;
	info[1] = (unsigned int)(bytes / sizeof(page) - 1);
	memcpy(page + sizeof(page) - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, page, sizeof(page), 0) != (ssize_t)sizeof(page) || fsync(fd))
		err = -errno;
	close(fd);
	if (!err && swapon(dev, 0))
		err = -errno;
	return err;
}

long long kw_swap_total_kib(void)
{
	char line[128];
	long long kib = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SwapTotal: %lld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void kw_stats(const double *v, size_t n, struct kstats *out)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		die("out of memory");
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = n ? s[0] : 0;
	out->max = n ? s[n - 1] : 0;
	out->median = !n ? 0 : n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
}

void kw_row(const char *exp, const char *metric, const char *unit, const double *v, size_t n,
	    const struct kscale *sc)
{
	struct krow r = { .exp = exp, .unit = unit, .timed = !strcmp(unit, "ns"), .raw = v,
			  .n = n, .scale = *sc };
	struct kstats s;

	kw_stats(v, n, &s);
	r.value = s.median;
	r.min = s.min;
	r.max = s.max;
	snprintf(r.metric, sizeof(r.metric), "%s", metric);
	kjson_row(&r);
}

void kw_row1(const char *exp, const char *metric, const char *unit, double v,
	     const struct kscale *sc)
{
	kw_row(exp, metric, unit, &v, 1, sc);
}

void kw_scale(struct kscale *sc, unsigned long mounts, unsigned long cgroups, const char *fmt, ...)
{
	va_list ap;

	memset(sc, 0, sizeof(*sc));
	sc->mounts = mounts;
	sc->cgroups = cgroups;
	sc->host_shrinkers = 0;
	sc->units = -1;
	sc->nodes = online_nodes();
	sc->cpus = online_cpus();
	sc->nokmem = kw_nokmem();
	va_start(ap, fmt);
	vsnprintf(sc->note, sizeof(sc->note), fmt, ap);
	va_end(ap);
}

void kw_sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool kw_nokmem(void)
{
	static int cached = -1;
	char buf[4096] = "";
	FILE *f;

	if (cached >= 0)
		return cached;
	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	cached = strstr(buf, "cgroup.memory=nokmem") != NULL;
	return cached;
}
