/* SPDX-License-Identifier: MIT */
/*
 * shrinklab measurement helpers: the monotonic clock, sample statistics,
 * the bench (one host of one design carrying the superblock workload), the
 * memory-budget fit and the progress line.
 *
 * Single-threaded: the lab drives every bench from the main thread, which
 * main.c registered with the library. A bench owns everything it created
 * and lab_bench_close() returns it all (umount, rmdir, deferred frees, host
 * destroy), so consecutive experiments do not add up in memory.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shrinker/memcg.h>
#include <shrinker/rcu.h>
#include <shrinker/reclaim.h>
#include <shrinker/slab.h>

#include "lab.h"

uint64_t lab_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void lab_stats_of(const double *v, size_t n, struct lab_stats *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	s = malloc(n * sizeof(*s));
	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	out->n = n;
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
}

/* The defaults come from the design's row of the library's table. */
bool lab_design_units_option(const struct lab_design *d)
{
	const struct shr_design_info *info = shr_design_info_of(d->design);

	if (!info->units || d->units == SHR_UNITS_DEFAULT)
		return false;
	return d->units != info->default_units;
}

static bool lru_reparent_option(const struct lab_design *d)
{
	const struct shr_design_info *info = shr_design_info_of(d->design);

	return d->lru_reparent != SHR_LRU_REPARENT_DEFAULT &&
	       d->lru_reparent != info->default_lru_reparent;
}

void lab_design_label(const struct lab_design *d, char *buf, size_t len)
{
	const char *name = shr_design_name(d->design);
	int n = snprintf(buf, len, "%s", name ? name : "?");

	if (lab_design_units_option(d) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+units=%s",
			      d->units == SHR_UNITS_KMALLOC ? "kmalloc" : "cache");
	if (d->expand_batch && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+expand_batch=%u", d->expand_batch);
	if (d->nonslab_ids && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+nonslab_ids");
	if (lru_reparent_option(d) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+lru_reparent=%s",
			      d->lru_reparent == SHR_LRU_REPARENT_PER_CGROUP ? "index" : "all");
	if (d->no_root_bits && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "+root_bits=off");
}

/* The keys of a design label (parse_label_option()). */
#define LAB_LABEL_KEYS 5

/* One "key=value" (or "nonslab_ids") option of a design label. */
static int parse_label_option(const char *opt, struct lab_design *d, char *why, size_t len)
{
	const char *eq = strchr(opt, '=');
	const char *v = eq ? eq + 1 : "";
	size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
	unsigned long n;

	if (klen == 11 && !strncmp(opt, "nonslab_ids", klen) && !eq) {
		d->nonslab_ids = true;
		return 0;
	}
	if (klen == 5 && !strncmp(opt, "units", klen)) {
		if (!strcmp(v, "cache") || !strcmp(v, "kmalloc")) {
			d->units = v[0] == 'c' ? SHR_UNITS_CACHE : SHR_UNITS_KMALLOC;
			return 0;
		}
		snprintf(why, len, "units=%s: expected cache or kmalloc", v);
		return -EINVAL;
	}
	if (klen == 12 && !strncmp(opt, "expand_batch", klen)) {
		if (!lab_parse_ulong(v, 1, 65536, &n)) {
			d->expand_batch = (unsigned int)n;
			return 0;
		}
		snprintf(why, len, "expand_batch=%s: expected 1..65536", v);
		return -EINVAL;
	}
	if (klen == 12 && !strncmp(opt, "lru_reparent", klen)) {
		if (!strcmp(v, "all") || !strcmp(v, "index")) {
			d->lru_reparent = v[0] == 'a' ? SHR_LRU_REPARENT_ALL_LRUS
						      : SHR_LRU_REPARENT_PER_CGROUP;
			return 0;
		}
		snprintf(why, len, "lru_reparent=%s: expected all or index", v);
		return -EINVAL;
	}
	if (klen == 9 && !strncmp(opt, "root_bits", klen)) {
		if (!strcmp(v, "on") || !strcmp(v, "off")) {
			d->no_root_bits = !strcmp(v, "off");
			return 0;
		}
		snprintf(why, len, "root_bits=%s: expected on or off", v);
		return -EINVAL;
	}
	snprintf(why, len, "unknown option '%.*s' (units, expand_batch, nonslab_ids, "
		 "lru_reparent, root_bits)", (int)klen, opt);
	return -EINVAL;
}

void lab_design_names(char *buf, size_t len, const char *last_sep)
{
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < SHR_NR_DESIGNS && n >= 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
			      !i ? "" : i == SHR_NR_DESIGNS - 1 ? last_sep : ", ",
			      shr_design_name((enum shr_design)i));
}

/* "unknown design 'NAME' (xarray, prealloc, ...)": the names of the table. */
static void unknown_design(const char *name, char *why, size_t len)
{
	char names[LAB_DESIGN_NAMES_LEN];

	lab_design_names(names, sizeof(names), ", ");
	snprintf(why, len, "unknown design '%s' (%s)", name, names);
}

/* A key given twice ("units=cache+units=kmalloc") is refused: which one
 * wins would be a guess. */
static int label_key_once(const char *tok, char (*seen)[16], size_t *nr, char *why, size_t len)
{
	size_t klen = strcspn(tok, "=");

	for (size_t i = 0; i < *nr; i++) {
		if (strlen(seen[i]) == klen && !strncmp(seen[i], tok, klen)) {
			snprintf(why, len, "%.*s given twice", (int)klen, tok);
			return -EINVAL;
		}
	}
	if (*nr < LAB_LABEL_KEYS && klen < sizeof(seen[0]))
		snprintf(seen[(*nr)++], sizeof(seen[0]), "%.*s", (int)klen, tok);
	return 0;
}

int lab_design_parse_label(const char *s, struct lab_design *d, char *why, size_t len)
{
	char buf[LAB_LABEL_LEN * 2], *save = NULL, *tok;
	char seen[LAB_LABEL_KEYS][16];
	size_t nr_seen = 0;

	memset(d, 0, sizeof(*d));
	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, len, "too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	tok = strtok_r(buf, "+", &save);
	if (!tok || s[0] == '+' || shr_design_parse(tok, &d->design)) {
		unknown_design(tok ? tok : "", why, len);
		return -EINVAL;
	}
	while ((tok = strtok_r(NULL, "+", &save)))
		if (parse_label_option(tok, d, why, len) ||
		    label_key_once(tok, seen, &nr_seen, why, len))
			return -EINVAL;
	if (strstr(s, "++") || s[strlen(s) - 1] == '+') {
		snprintf(why, len, "empty option");
		return -EINVAL;
	}
	if (d->no_root_bits && !shr_design_info_of(d->design)->root_bits) {
		snprintf(why, len, "root_bits=off: %s keeps no root bits",
			 shr_design_name(d->design));
		return -EINVAL;
	}
	return 0;
}

/* Grow an array of pointers to hold @need entries. */
static int reserve(void ***v, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 64;
	void **nv;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	nv = realloc(*v, c * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = c;
	return 0;
}

int lab_bench_open(struct lab_bench *b, const struct lab_design *d, const struct lab_scale *s)
{
	struct shr_slab_params sp = { 0 };
	struct shr_host_params p;
	int ret;

	memset(b, 0, sizeof(*b));
	b->cfg = *d;
	b->used = *s;
	lab_design_label(d, b->label, sizeof(b->label));
	shr_host_params_init(&p);
	p.design = d->design;
	p.units = d->units;
	p.expand_batch = d->expand_batch;
	p.nonslab_ids = d->nonslab_ids;
	p.lru_reparent = d->lru_reparent;
	p.nr_nodes = s->nodes;
	p.geometry_cpus = s->cpus;
	p.kmem = s->kmem;
	if (shr_host_params_check(&p, &b->why))
		return -EINVAL;
	/* Our own allocator, prefaulted: a timed section never pays a
	 * first-touch page fault, whose cost here grows with the size of the
	 * whole process (other benches' hosts) and would be charged to
	 * whichever design happened to need a fresh page. */
	sp.nr_nodes = s->nodes;
	sp.geometry_cpus = s->cpus;
	sp.prefault = true;
	ret = shr_slab_allocator_create(&sp, &b->slab);
	if (ret) {
		b->why = "slab allocator creation failed";
		return ret;
	}
	p.slab = b->slab;
	ret = shr_host_create(&p, &b->host);
	if (ret) {
		b->why = "host creation failed";
		shr_slab_allocator_destroy(b->slab);
		b->slab = NULL;
		return ret;
	}
	ret = sb_fs_init(&b->fs, b->host);
	if (ret) {
		b->why = "cache creation failed";
		(void)shr_host_destroy(b->host);
		b->host = NULL;
		shr_slab_allocator_destroy(b->slab);
		b->slab = NULL;
		return ret;
	}
	b->fs_ready = true;
	b->fs.no_root_bits = d->no_root_bits;
	/* The host's own memcg-aware shrinkers (root file systems, caches of
	 * other subsystems): empty mounts that take the lowest ids and stay. */
	if (s->host_shrinkers) {
		b->host_sbs = calloc(s->host_shrinkers, sizeof(*b->host_sbs));
		if (!b->host_sbs) {
			b->why = "out of memory";
			lab_bench_close(b);
			b->why = "out of memory";
			return -ENOMEM;
		}
	}
	for (unsigned int i = 0; i < s->host_shrinkers; i++) {
		ret = sb_mount(&b->fs, "hostfs", &b->host_sbs[b->nr_host_sbs]);
		if (ret) {
			lab_bench_close(b);
			b->why = "host shrinkers could not be registered";
			return ret;
		}
		b->nr_host_sbs++;
	}
	b->ids_hw = b->nr_host_sbs;
	return 0;
}

bool lab_bench_ok(const struct lab_bench *b)
{
	return b->host && !b->why;
}

int lab_bench_mount(struct lab_bench *b, unsigned long n)
{
	int ret = reserve((void ***)&b->sbs, &b->cap_sbs, b->nr_sbs + n);

	for (unsigned long i = 0; !ret && i < n; i++) {
		ret = sb_mount(&b->fs, "tmpfs", &b->sbs[b->nr_sbs]);
		if (!ret)
			b->nr_sbs++;
	}
	if (b->nr_host_sbs + b->nr_sbs > b->ids_hw)
		b->ids_hw = b->nr_host_sbs + b->nr_sbs;
	return ret;
}

void lab_bench_umount(struct lab_bench *b, unsigned long n)
{
	while (n-- && b->nr_sbs)
		sb_umount(b->sbs[--b->nr_sbs]);
}

int lab_bench_mkcg(struct lab_bench *b, unsigned long n)
{
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(b->host);
	int ret = reserve((void ***)&b->cgs, &b->cap_cgs, b->nr_cgs + n);

	for (unsigned long i = 0; !ret && i < n; i++) {
		ret = shr_mem_cgroup_create(root, &b->cgs[b->nr_cgs]);
		if (!ret)
			b->nr_cgs++;
	}
	return ret;
}

int lab_bench_rmcg(struct lab_bench *b, unsigned long n)
{
	int ret = 0;

	while (n-- && b->nr_cgs && !ret)
		ret = shr_mem_cgroup_offline(b->cgs[--b->nr_cgs]);
	return ret;
}

int lab_bench_file(struct lab_bench *b, size_t sb, size_t cg, int nid)
{
	if (sb >= b->nr_sbs || cg >= b->nr_cgs)
		return -EINVAL;
	return sb_create_file(b->sbs[sb], b->cgs[cg], nid);
}

unsigned long lab_bench_sunreclaim(struct lab_bench *b)
{
	shr_rcu_barrier();
	return shr_slab_unreclaimable_bytes(shr_host_slab(b->host));
}

int lab_bench_walk(struct lab_bench *b, int priority, uint64_t *ns)
{
	int nodes = shr_host_nr_nodes(b->host);
	uint64_t t0 = lab_now_ns();

	for (size_t i = 0; i < b->nr_cgs; i++) {
		for (int nid = 0; nid < nodes; nid++) {
			unsigned long freed;
			int ret = shr_shrink_slab(b->host, nid, b->cgs[i], priority, &freed);

			if (ret)
				return ret;
		}
	}
	*ns = lab_now_ns() - t0;
	return 0;
}

void lab_bench_geometry(const struct lab_bench *b, struct lab_scale *out)
{
	*out = b->used;
	out->mounts = b->nr_sbs;
	out->cgroups = b->nr_cgs;
	out->host_shrinkers = (unsigned int)b->nr_host_sbs;
	out->units = (long)((b->ids_hw + 63) / 64);
	/* A design without bits (nobitmap) keeps no shrinker_nr_max. */
	out->shrinker_nr_max = b->host && shr_design_info_of(b->cfg.design)->bits
				       ? shr_shrinker_nr_max(b->host) : -1;
}

void lab_bench_close(struct lab_bench *b)
{
	if (b->host) {
		while (b->nr_sbs)
			sb_umount(b->sbs[--b->nr_sbs]);
		while (b->nr_host_sbs)
			sb_umount(b->host_sbs[--b->nr_host_sbs]);
		(void)lab_bench_rmcg(b, b->nr_cgs);
		shr_rcu_barrier();
		if (b->fs_ready)
			sb_fs_destroy(&b->fs);
		if (shr_host_destroy(b->host))
			fprintf(stderr, "shrinklab: host %s still busy at destroy\n", b->label);
		else
			shr_slab_allocator_destroy(b->slab);
	}
	b->slab = NULL;
	free(b->sbs);
	free(b->cgs);
	free(b->host_sbs);
	b->sbs = NULL;
	b->cgs = NULL;
	b->host_sbs = NULL;
	b->host = NULL;
}

void lab_fit_cgroups(struct lab_bench *b, size_t n, const double *per_cgroup,
		     unsigned long target, unsigned long least, unsigned long long budget)
{
	bool done[LAB_MAX_DESIGNS] = { false };
	double left = (double)budget;
	size_t nr_left = 0;

	if (least > target)
		least = target;
	for (size_t i = 0; i < n && i < LAB_MAX_DESIGNS; i++) {
		done[i] = !lab_bench_ok(&b[i]);
		nr_left += !done[i];
	}
	while (nr_left) {
		size_t k = n;

		for (size_t i = 0; i < n && i < LAB_MAX_DESIGNS; i++)
			if (!done[i] && (k == n || per_cgroup[i] < per_cgroup[k]))
				k = i;
		/* What is left never goes below zero, so the share is a count
		 * of cgroups between @least and @target, never a wrapped one. */
		double share = left > 0 ? left / (double)nr_left : 0;
		double cost = per_cgroup[k] > 1 ? per_cgroup[k] : 1;
		double fits = floor(share / cost);
		unsigned long fit = fits >= (double)target ? target : (unsigned long)fits;

		if (fit < least)
			fit = least;
		if (fit < target)
			snprintf(b[k].used.note, sizeof(b[k].used.note),
				 "cut to %lu of %lu cgroups by the memory budget: %.0f B per cgroup "
				 "on the pilot; %.0f MiB left after the mounts for %zu design(s)",
				 fit, target, per_cgroup[k], (double)budget / (1ull << 20), n);
		b[k].cgroups_target = fit;
		b[k].used.cgroups = fit;
		left -= (double)fit * cost;
		if (left < 0)
			left = 0;
		done[k] = true;
		nr_left--;
	}
}

static bool progress_on;
static bool progress_dirty;

void lab_progress_enable(bool on)
{
	progress_on = on && isatty(STDERR_FILENO);
}

void lab_progress(const char *fmt, ...)
{
	va_list ap;

	if (!progress_on)
		return;
	fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	progress_dirty = true;
}

void lab_progress_done(void)
{
	if (progress_on && progress_dirty)
		fputs("\r\033[K", stderr);
	progress_dirty = false;
}
