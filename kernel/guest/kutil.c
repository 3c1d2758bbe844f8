// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the guest programs (see kutil.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kutil.h"

#define MNT_BASE "/mnt/klab"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("klab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void say(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	fprintf(stderr, "[klab %6ld.%02ld] ", (long)ts.tv_sec, ts.tv_nsec / 10000000);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t len = (ssize_t)strlen(s), n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, (size_t)len);
	if (n != len) {
		int err = n < 0 ? -errno : -EIO;

		close(fd);
		return err;
	}
	return close(fd) ? -errno : 0;
}

long meminfo_kb(const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

long slab_objs(const char *name)
{
	char line[512], cache[128];
	long active, v = -1;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld", cache, &active) == 2 && !strcmp(cache, name)) {
			v = active;
			break;
		}
	fclose(f);
	return v;
}

long keyed_value(const char *path, const char *key)
{
	char k[128];
	long val, v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld", k, &val) == 2)
		if (!strcmp(k, key)) {
			v = val;
			break;
		}
	fclose(f);
	return v;
}

long debugfs_shrinkers(void)
{
	DIR *d = opendir("/sys/kernel/debug/shrinker");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

void slab_shrink_all(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[300];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", e->d_name);
			write_str(path, "1");
		}
	closedir(d);
}

void cg_enable_memory(const char *dir)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
	err = write_str(path, "+memory");
	if (err)
		die("%s: +memory: %s", path, strerror(-err));
}

void cg_mkdir_range(const char *dir, unsigned long first, unsigned long n)
{
	char path[512];

	for (unsigned long i = first; i < first + n; i++) {
		snprintf(path, sizeof(path), "%s/c%lu", dir, i);
		if (mkdir(path, 0755))
			die("mkdir %s: %s", path, strerror(errno));
	}
}

void cg_rmdir_range(const char *dir, unsigned long first, unsigned long n)
{
	char path[512];

	for (unsigned long i = first; i < first + n; i++) {
		snprintf(path, sizeof(path), "%s/c%lu", dir, i);
		if (rmdir(path))
			die("rmdir %s: %s", path, strerror(errno));
	}
}

/* What still holds dying cgroups: the charges left under @dir. */
static void dump_stat(const char *dir)
{
	char path[512], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strtol(strchr(line, ' ') ? strchr(line, ' ') : line, NULL, 10))
			fprintf(stderr, "  %s: %s", path, line);
	fclose(f);
}

void cg_wait_released(const char *dir, unsigned int timeout_s)
{
	char path[512];
	uint64_t t0 = now_ns(), next = t0 + 10000000000ull;
	long dying;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	while ((dying = keyed_value(path, "nr_dying_descendants")) != 0) {
		uint64_t t = now_ns();

		if (dying < 0)
			die("%s: no nr_dying_descendants", path);
		if (t - t0 > (uint64_t)timeout_s * 1000000000ull)
			die("%s: %ld cgroups still dying after %u s", dir, dying, timeout_s);
		if (t > next) {
			say("%s: %ld cgroups still dying after %.0f s", dir, dying,
			    (double)(t - t0) / 1e9);
			if (next == t0 + 10000000000ull)
				dump_stat(dir);
			next = t + 10000000000ull;
		}
		usleep(500);
	}
}

static void mkdir_p(const char *path)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(buf, 0755);
			*p = '/';
		}
	if (mkdir(buf, 0755) && errno != EEXIST)
		die("mkdir %s: %s", buf, strerror(errno));
}

void tmpfs_mkpoints(unsigned long first, unsigned long n)
{
	char path[256];

	mkdir_p(MNT_BASE);
	for (unsigned long i = first; i < first + n; i++) {
		snprintf(path, sizeof(path), MNT_BASE "/m%lu", i);
		if (mkdir(path, 0755) && errno != EEXIST)
			die("mkdir %s: %s", path, strerror(errno));
	}
}

int tmpfs_mount(unsigned long i)
{
	char path[256];

	snprintf(path, sizeof(path), MNT_BASE "/m%lu", i);
	return mount("klab", path, "tmpfs", 0, "size=1m,nr_inodes=64") ? -errno : 0;
}

int tmpfs_umount(unsigned long i)
{
	char path[256];

	snprintf(path, sizeof(path), MNT_BASE "/m%lu", i);
	return umount(path) ? -errno : 0;
}

uint64_t drop_caches(int what)
{
	char s[8];
	uint64_t t0;
	int err;

	snprintf(s, sizeof(s), "%d", what);
	t0 = now_ns();
	err = write_str("/proc/sys/vm/drop_caches", s);
	if (err)
		die("drop_caches: %s", strerror(-err));
	return now_ns() - t0;
}

unsigned int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

int online_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			n++;
	closedir(d);
	return n ? n : 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_of(const double *v, size_t n, struct kstats *out)
{
	double s[64];

	if (n > 64)
		n = 64;
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = n ? s[0] : 0;
	out->max = n ? s[n - 1] : 0;
	out->median = !n ? 0 : n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double median_of(const double *v, size_t n)
{
	struct kstats s;

	stats_of(v, n, &s);
	return s.median;
}
