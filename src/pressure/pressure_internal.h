/* SPDX-License-Identifier: MIT */
/*
 * What the pressure module's files share (pressure.c: the sources and
 * their checks; pressure_systemd.c: the MEMORY_PRESSURE_WATCH protocol and
 * the default watch). The design comment is in pressure.c.
 */
#ifndef SHR_PRESSURE_INTERNAL_H
#define SHR_PRESSURE_INTERNAL_H

#include <limits.h>
#include <stddef.h>

#include <shrinker/pressure.h>

/* Filesystem magics (linux/magic.h) of the files a source may watch. */
#define SHR_PROC_SUPER_MAGIC 0x9fa0
#define SHR_CGROUP_SUPER_MAGIC 0x27e0eb
#define SHR_CGROUP2_SUPER_MAGIC 0x63677270

/*
 * struct shr_pressure - one source. Sync: immutable after open, except
 * @high_seen and @max_seen (the checking thread's).
 * @kind:       what it watches.
 * @path:       the file it watches (shr_pressure_path()), malloc'd.
 * @fd:         the descriptor to poll (an inotify instance for
 *              memory.events).
 * @events:     POLLPRI or POLLIN.
 * @events_fd:  memory.events: the file, read at each check; vmpressure:
 *              memory.pressure_level (read to tell removal).
 * @cgroup_wd:  memory.events: the inotify watch of the cgroup's parent
 *              directory (its IN_DELETE of @cgroup_name is the cgroup's
 *              removal), or -1.
 * @cgroup_name: memory.events: the cgroup directory's name.
 * @current_fd: memory.events: the directory's memory.current, or -1.
 * @high_fd:    memory.events: the directory's memory.high, or -1.
 * @high_seen:  memory.events: the counters at the last check.
 * @max_seen:
 */
struct shr_pressure {
	enum shr_pressure_kind kind;
	char *path;
	int fd;
	short events;
	int events_fd;
	int current_fd;
	int high_fd;
	int cgroup_wd;
	unsigned long high_seen;
	unsigned long max_seen;
	char cgroup_name[NAME_MAX + 1];
};

/* A source of @kind watching @path, nothing open yet. Return: NULL when
 * out of memory. */
struct shr_pressure *shr_pressure_alloc(enum shr_pressure_kind kind, const char *path);

/*
 * Open @src->path as a watch (a PSI file, FIFO, device or socket) and
 * write @buf (@len bytes, 0 for none) to it; fills @src's fd, events and
 * kind. Context: Any thread. Return: 0 or -errno; nothing left open on
 * error (shr_pressure_close() frees @src).
 */
int shr_pressure_open_watch(struct shr_pressure *src, const void *buf, size_t len);

/*
 * The memory.limit_in_bytes of the cgroup v1 memory cgroup @dir, into
 * *@limit. Return: 0, -ERANGE (no limit: v1 reads an unlimited cgroup as
 * PAGE_COUNTER_MAX pages), -errno of reading it (-ENOENT: not a v1
 * memory cgroup).
 */
int shr_pressure_memcg_v1_limit(const char *dir, unsigned long *limit);

#endif /* SHR_PRESSURE_INTERNAL_H */
