/* SPDX-License-Identifier: MIT */
/*
 * The readers the public headers call safe at any time: shrinker stats,
 * debugfs count and scan, bookkeeping, the iterator.
 */
#include "torture.h"

/*
 * Readers the API documents as safe while everything else runs, racing
 * rmdir and release: a shrinker's statistics and debugfs files (the mount
 * is held, as a file system holds its superblock), a cgroup's bookkeeping
 * bytes (a reference held), and full or broken-off iterator walks, looking
 * cgroups up by inode number. They check only what holds at any time.
 */

/* A mounted slot, read-locked, or NULL. */
static struct mount_slot *lock_some_mount(uint64_t *rng)
{
	for (int tries = 0; tries < 4; tries++) {
		struct mount_slot *m = &T.mounts[rng_below(rng, mount_limit())];

		pthread_rwlock_rdlock(&m->lock);
		if (mnt_mounted(m))
			return m;
		pthread_rwlock_unlock(&m->lock);
	}
	return NULL;
}

static void read_stats(uint64_t *rng)
{
	struct mount_slot *m = lock_some_mount(rng);
	struct shr_shrinker_stats st;
	int ret;

	if (!m)
		return;
	ret = shr_shrinker_get_stats(mnt_shrinker(m), &st);
	if (ret || st.deferred < 0)
		violation("shr_shrinker_get_stats: %d (calls %lu scanned %lu freed %lu deferred %ld)",
			  ret, st.calls, st.scanned, st.freed, st.deferred);
	pthread_rwlock_unlock(&m->lock);
	count_op(OP_READ_STATS);
}

/* The count file: lines of node count + 1 numbers, the first an inode
 * number (> 0; the root's is 1). The queue
 * caches are left out: their count takes a mutex, and the file counts under
 * RCU, where the kernel does not let a count sleep. */
static void read_debugfs_count(uint64_t *rng)
{
	struct mount_slot *m = lock_some_mount(rng);
	char *buf = NULL, *line, *save;
	size_t len = 0;
	FILE *f;
	int ret;

	if (!m)
		return;
	if (!m->sb) {
		pthread_rwlock_unlock(&m->lock);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		violation("open_memstream failed");
	ret = shr_shrinker_debugfs_count(mnt_shrinker(m), f);
	fclose(f);
	pthread_rwlock_unlock(&m->lock);
	if (ret)
		violation("shr_shrinker_debugfs_count: %d", ret);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int fields = 0;
		char *p = line, *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || !v)
			violation("debugfs count line without a cgroup: '%s'", line);
		for (; end != p; fields++) {
			p = end;
			(void)strtoul(p, &end, 10);
		}
		if (*p || fields != T.cfg.params.nr_nodes + 1)
			violation("debugfs count line '%s' has %d fields, %d expected", line, fields,
				  T.cfg.params.nr_nodes + 1);
	}
	free(buf);
	count_op(OP_READ_DEBUGFS_COUNT);
}

/* A scan write for a cgroup that may be going or gone: 0 or -ENOENT. */
static void read_debugfs_scan(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	struct mount_slot *m;
	unsigned long ino;
	char input[64];
	int ret;

	if (!memcg)
		return;
	ino = shr_mem_cgroup_ino(memcg);
	shr_mem_cgroup_put(memcg); /* it may go now: -ENOENT is fine */
	m = lock_some_mount(rng);
	if (!m)
		return;
	if (!mnt_memcg_aware(m))
		ino = 0;
	snprintf(input, sizeof(input), "%lu %u %u\n", ino,
		 rng_below(rng, (unsigned int)T.cfg.params.nr_nodes), 1 + rng_below(rng, 64));
	ret = shr_shrinker_debugfs_scan(mnt_shrinker(m), input);
	pthread_rwlock_unlock(&m->lock);
	if (ret && ret != -ENOENT)
		violation("shr_shrinker_debugfs_scan('%s'): %d", input, ret);
	count_op(OP_READ_DEBUGFS_SCAN);
}

static void read_bookkeeping(uint64_t *rng)
{
	struct shr_mem_cgroup *memcg = cg_pick(rng, true);
	struct shr_memcg_bookkeeping bk;
	int nid = (int)rng_below(rng, (unsigned int)T.cfg.params.nr_nodes + 1) - 1;
	int ret;

	if (!memcg)
		return;
	ret = shr_mem_cgroup_bookkeeping(memcg, nid, &bk);
	if (ret || !bk.inline_bytes || (bk.nr_units && !bk.unit_bytes))
		violation("shr_mem_cgroup_bookkeeping: %d (inline %lu, %lu units in %lu bytes)", ret,
			  bk.inline_bytes, bk.nr_units, bk.unit_bytes);
	shr_mem_cgroup_put(memcg);
	count_op(OP_READ_BOOKKEEPING);
}

/* A pre-order walk (maybe broken off), each cgroup checked against its
 * parent chain, and one found again by its inode number. */
static void read_iter(uint64_t *rng)
{
	struct shr_mem_cgroup *root = shr_host_root_mem_cgroup(T.host), *pos = NULL, *again;
	unsigned int stop = rng_below(rng, 64), seen = 0;
	unsigned long pick = 0;

	while ((pos = shr_mem_cgroup_iter(T.host, NULL, pos))) {
		if (!shr_mem_cgroup_is_descendant(pos, root) || shr_mem_cgroup_host(pos) != T.host ||
		    (pos != root && !shr_mem_cgroup_ino(pos)))
			violation("iterator returned a cgroup outside the host's tree");
		if (!rng_below(rng, ++seen))
			pick = shr_mem_cgroup_ino(pos);
		if (seen == stop) {
			shr_mem_cgroup_iter_break(NULL, pos);
			break;
		}
	}
	again = shr_mem_cgroup_from_ino(T.host, pick);
	if (again && shr_mem_cgroup_ino(again) != pick)
		violation("shr_mem_cgroup_from_ino(%lu) found %lu", pick, shr_mem_cgroup_ino(again));
	shr_mem_cgroup_put(again);
	count_op(OP_READ_ITER);
}

void op_read(uint64_t *rng)
{
	switch (rng_below(rng, 5)) {
	case 0:
		if (T.cfg.stats_readers)
			read_stats(rng);
		break;
	case 1:
		read_debugfs_count(rng);
		break;
	case 2:
		read_debugfs_scan(rng);
		break;
	case 3:
		if (T.cfg.stats_readers)
			read_bookkeeping(rng);
		break;
	default:
		read_iter(rng);
		break;
	}
}
