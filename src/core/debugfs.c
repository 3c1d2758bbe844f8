/* SPDX-License-Identifier: MIT */
/*
 * The shrinker debugfs files (CONFIG_SHRINKER_DEBUG) as functions: the
 * directory name, the "count" file's text and the "scan" file's write.
 *
 * Design
 * ------
 * Only registered shrinkers have files. Each operation pins the shrinker
 * with shr_shrinker_try_get() (increment unless zero) for its whole
 * duration, which stands in for the kernel's "debugfs removal waits for
 * in-flight file operations": shr_shrinker_free() waits for the pin. A
 * shrinker that cannot be pinned (never registered, or being freed) gets
 * -EINVAL.
 *
 * count: cgroups come from a full iterator walk (root first); offline ones
 * are skipped. As in the kernel, count_objects runs inside an RCU
 * read-side section (one per cgroup: the iterator itself may not be called
 * under RCU here). Non-memcg-aware shrinkers are counted once, for the
 * root's line, with sc->memcg = NULL.
 *
 * scan: the input is parsed strictly (see parse_scan_input()); the kernel's
 * sscanf is laxer (it accepts signs and ignores trailing text); this is a
 * deliberate tightening. scan_objects is called exactly once; no count,
 * batching or deferred work.
 *
 * Locking: none held by this file; the pins above and the cgroup
 * references from the iterator / from_ino keep everything alive.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>

#include "memcg_internal.h"
#include "rcu.h"
#include "shrinker_internal.h"

/**
 * debugfs_pin() - pin a registered shrinker for one debugfs operation.
 * @shrinker: the public shrinker (may be NULL).
 *
 * Context: Registered thread.
 * Return: the pinned shrinker, or NULL (NULL argument, not ours, not
 *         registered or being freed).
 */
static struct shr_shrinker_impl *debugfs_pin(const struct shr_shrinker *shrinker)
{
	struct shr_shrinker_impl *s;

	if (!shrinker)
		return NULL;
	s = to_impl((struct shr_shrinker *)shrinker);
	if (s->magic != SHR_SHRINKER_MAGIC || !shr_shrinker_try_get(s))
		return NULL;
	return s;
}

int shr_shrinker_debugfs_name(const struct shr_shrinker *shrinker, char *buf, size_t len)
{
	struct shr_shrinker_impl *s = debugfs_pin(shrinker);
	int n;

	if (!s || !buf) {
		if (s)
			shr_shrinker_put(s);
		return -EINVAL;
	}
	n = snprintf(buf, len, "%s-%d", s->name ? s->name : "", s->debugfs_id);
	shr_shrinker_put(s);
	return (n < 0 || (size_t)n >= len) ? -ENOSPC : 0;
}

/**
 * count_one_memcg() - the per-node counts of @s in @memcg.
 * @s:      the shrinker, pinned.
 * @memcg:  the cgroup (pinned), or NULL for a non-memcg-aware shrinker.
 * @counts: receives one count per node (SHRINK_EMPTY as 0).
 * @nr_nodes: node count.
 *
 * Node 0 only unless the shrinker is NUMA-aware; other nodes get 0.
 *
 * Context: Registered thread, no RCU section (enters one around the calls).
 * Return: the sum of @counts.
 */
static unsigned long count_one_memcg(struct shr_shrinker_impl *s, struct shr_mem_cgroup *memcg,
				     unsigned long *counts, int nr_nodes)
{
	unsigned long total = 0;

	shr_rcu_read_lock();
	for (int nid = 0; nid < nr_nodes; nid++) {
		struct shr_shrink_control sc = {
			.gfp_mask = SHR_GFP_KERNEL, .nid = nid, .memcg = memcg,
		};
		unsigned long c = 0;

		if (nid == 0 || (s->flags & SHR_SHRINKER_NUMA_AWARE))
			c = shr_call_count(s, &sc);
		if (c == SHR_SHRINK_EMPTY)
			c = 0;
		counts[nid] = c;
		total += c;
	}
	shr_rcu_read_unlock();
	return total;
}

/**
 * print_line() - "<ino> <c0> <c1> ...\n".
 * @out: the stream.
 * @ino: the cgroup's inode number.
 * @counts: per-node counts; @nr_nodes their number.
 *
 * Context: Any.
 * Return: 0 or -EIO.
 */
static int print_line(FILE *out, unsigned long ino, const unsigned long *counts, int nr_nodes)
{
	if (fprintf(out, "%lu", ino) < 0)
		return -EIO;
	for (int nid = 0; nid < nr_nodes; nid++)
		if (fprintf(out, " %lu", counts[nid]) < 0)
			return -EIO;
	return fputc('\n', out) == EOF ? -EIO : 0;
}

/**
 * count_memcg_aware() - the count file of a memcg-aware shrinker.
 * @s: the shrinker, pinned. @out: the stream.
 *
 * Context: Registered thread, no RCU section.
 * Return: 0 or -EIO.
 */
static int count_memcg_aware(struct shr_shrinker_impl *s, FILE *out)
{
	struct shr_host *host = s->host;
	unsigned long counts[SHR_MAX_NUMNODES];
	struct shr_mem_cgroup *memcg = NULL;
	int ret = 0;

	while ((memcg = shr_mem_cgroup_iter(host, NULL, memcg))) {
		if (!shr_memcg_online(memcg))
			continue;
		if (!count_one_memcg(s, memcg, counts, host->nr_nodes))
			continue;
		ret = print_line(out, memcg->ino, counts, host->nr_nodes);
		if (ret) {
			shr_mem_cgroup_iter_break(NULL, memcg);
			break;
		}
	}
	return ret;
}

int shr_shrinker_debugfs_count(struct shr_shrinker *shrinker, FILE *out)
{
	struct shr_shrinker_impl *s = debugfs_pin(shrinker);
	unsigned long counts[SHR_MAX_NUMNODES];
	int ret = 0;

	if (!s || !out) {
		if (s)
			shr_shrinker_put(s);
		return -EINVAL;
	}
	if (s->flags & SHR_SHRINKER_MEMCG_AWARE)
		ret = count_memcg_aware(s, out);
	else if (count_one_memcg(s, NULL, counts, s->host->nr_nodes))
		ret = print_line(out, s->host->root->ino, counts, s->host->nr_nodes);
	if (!ret && fflush(out) == EOF)
		ret = -EIO;
	shr_shrinker_put(s);
	return ret;
}

/**
 * parse_ulong() - a decimal unsigned number: digits only (no sign, no base
 * prefix), at least one, no overflow.
 * @p:   in: where to start; out: the first character after the digits.
 * @out: the value.
 *
 * Context: Any.
 * Return: 0 or -EINVAL.
 */
static int parse_ulong(const char **p, unsigned long *out)
{
	const char *s = *p;
	unsigned long v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned long d = (unsigned long)(*s - '0');

		if (v > (ULONG_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

/* Skip spaces and tabs. Return: the first other character. */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/**
 * parse_scan_input() - "<ino> <nid> <nr_to_scan>": optional leading blanks,
 * fields separated by one or more blanks, optional trailing blanks and one
 * optional newline (echo's), nothing else.
 * @input: NUL-terminated text.
 * @ino, @nid, @nr: the fields.
 *
 * Context: Any.
 * Return: 0 or -EINVAL (syntax, sign, overflow, nid above INT_MAX).
 */
static int parse_scan_input(const char *input, unsigned long *ino, int *nid, unsigned long *nr)
{
	const char *p = skip_blanks(input);
	unsigned long n;

	if (parse_ulong(&p, ino) || (*p != ' ' && *p != '\t'))
		return -EINVAL;
	p = skip_blanks(p);
	if (parse_ulong(&p, &n) || n > INT_MAX || (*p != ' ' && *p != '\t'))
		return -EINVAL;
	*nid = (int)n;
	p = skip_blanks(p);
	if (parse_ulong(&p, nr))
		return -EINVAL;
	p = skip_blanks(p);
	if (*p == '\n')
		p++;
	return *p ? -EINVAL : 0;
}

/**
 * scan_resolve_memcg() - the cgroup a scan write names.
 * @s:   the shrinker, pinned.
 * @ino: the inode number written.
 * @out: receives the cgroup with a reference (memcg-aware), or NULL.
 *
 * Context: Registered thread.
 * Return: 0, -ENOENT (no online cgroup with @ino), -EINVAL (non-zero @ino
 *         for a shrinker that is not memcg-aware).
 */
static int scan_resolve_memcg(struct shr_shrinker_impl *s, unsigned long ino,
			      struct shr_mem_cgroup **out)
{
	struct shr_mem_cgroup *memcg;

	*out = NULL;
	if (!(s->flags & SHR_SHRINKER_MEMCG_AWARE))
		return ino ? -EINVAL : 0;
	memcg = shr_mem_cgroup_from_ino(s->host, ino);
	if (!memcg)
		return -ENOENT;
	if (!shr_memcg_online(memcg)) {
		shr_mem_cgroup_put(memcg);
		return -ENOENT;
	}
	*out = memcg;
	return 0;
}

/**
 * debugfs_scan_pinned() - the scan write for a pinned shrinker.
 * @s: the shrinker. @input: the text.
 *
 * Context: Registered thread, no RCU section.
 * Return: as shr_shrinker_debugfs_scan().
 */
static int debugfs_scan_pinned(struct shr_shrinker_impl *s, const char *input)
{
	struct shr_shrink_control sc = { .gfp_mask = SHR_GFP_KERNEL };
	struct shr_mem_cgroup *memcg;
	unsigned long ino, nr;
	int nid, ret;

	ret = parse_scan_input(input, &ino, &nid, &nr);
	if (ret)
		return ret;
	if (nid >= s->host->nr_nodes)
		return -EINVAL;
	if (!nr)
		return 0;
	ret = scan_resolve_memcg(s, ino, &memcg);
	if (ret)
		return ret;
	sc.nid = nid;
	sc.memcg = memcg;
	sc.nr_to_scan = nr;
	sc.nr_scanned = nr;
	(void)shr_call_scan(s, &sc);
	shr_mem_cgroup_put(memcg);
	return 0;
}

int shr_shrinker_debugfs_scan(struct shr_shrinker *shrinker, const char *input)
{
	struct shr_shrinker_impl *s = debugfs_pin(shrinker);
	int ret;

	if (!s)
		return -EINVAL;
	ret = input ? debugfs_scan_pinned(s, input) : -EINVAL;
	shr_shrinker_put(s);
	return ret;
}
