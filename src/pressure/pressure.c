/* SPDX-License-Identifier: MIT */
/*
 * Pressure sources: PSI triggers and their relays, cgroup v2
 * memory.events, cgroup v1 vmpressure.
 *
 * Design
 * ------
 * A source is one file descriptor and the poll events that mean "look at
 * me", chosen by what the watched path is, as the kernel and systemd define
 * it:
 *   - a regular file (a PSI file on procfs or cgroupfs): the trigger text
 *     is written to it, then POLLPRI reports that the trigger fired. The
 *     kernel consumes the event in its poll method (one event per poll), so
 *     shr_pressure_check() trusts the revents of the poll that woke the
 *     caller. POLLERR comes with POLLPRI both when the trigger is gone (its
 *     cgroup was removed: reads then fail with ENODEV) and for a plain
 *     kernfs notification of a file systemd may name instead (which a read
 *     acknowledges): a one-byte read tells them apart;
 *     Such a file must be on procfs or cgroupfs: a trigger written to any
 *     other regular file would overwrite it and never fire;
 *   - a FIFO or character device (systemd relays): opened read-write (a
 *     FIFO then never reports a hang-up for want of writers, and the open
 *     does not block), POLLIN; what arrives is read and discarded. A
 *     device gets the trigger written if there is one; a FIFO does not:
 *     its reader is this source, which would read the trigger back as
 *     pressure nobody signalled;
 *   - an AF_UNIX stream socket: connected, the trigger sent, POLLIN; end of
 *     file means the peer went away;
 *   - memory.events: the kernel notifies a modification of the file
 *     (kernfs_notify(), which also wakes POLLPRI pollers; inotify works on
 *     a plain file too, so tests drive it with real files): the source's fd
 *     is an inotify instance watching IN_MODIFY, and each check re-reads
 *     the counters and fires when "high" or "max" rose. Removing the cgroup
 *     sends nothing to the file's watchers or pollers (kernfs deactivates
 *     the node without a wake-up; a new poll or read would see it), so the
 *     instance also watches the cgroup's parent directory, whose IN_DELETE
 *     of the cgroup's name is the rmdir. The file is opened non-blocking
 *     and must be a regular file (a FIFO would block the open).
 * Bounded work: a stream check reads at most SHR_STREAM_READS_MAX buffers;
 * a stream still readable after them never runs dry (/dev/zero, or a
 * flood no relay sends) and is refused, at open (where a stream is drained
 * once, and one at end of file at once, /dev/null, is refused too) and at a
 * check (-ENOTTY), so that an always-readable fd is not endless pressure.
 * The kernel reads a trigger as one string per write of at most 32 bytes
 * (psi_write()) and overwrites the last byte of what it read with a NUL,
 * so a trigger has at most 31 characters and is written with its
 * terminating NUL (systemd does the same; MEMORY_PRESSURE_WRITE text
 * without one gets it added). The kernel refuses a window that is not a
 * multiple of 2 s to an opener without CAP_SYS_RESOURCE with the -EINVAL
 * of a malformed trigger; a trigger we found valid refused so, by a
 * process without that capability, is -EPERM.
 *
 * A cgroup v1 memory cgroup (the memory controller on v1: no PSI, no
 * memory.events) has vmpressure: an eventfd registered for a level on its
 * memory.pressure_level through cgroup.event_control, which the kernel
 * signals once per reclaim window of the cgroup, and also when the cgroup
 * is removed (its files then fail with ENODEV, which tells the two apart).
 * The eventfd is the source's fd (POLLIN, level-triggered: a reclaimer
 * without a thread can use it).
 *
 * The systemd protocol and the default watch are in pressure_systemd.c;
 * what both files share (the struct, the open of a watch) is in
 * pressure_internal.h.
 *
 * Thread-safety: a source has no lock. Open and close are the owner's; one
 * thread at a time polls and checks it (a reclaimer's own thread, or the
 * program's loop). Every field below is immutable after open except the
 * memory.events baseline, which only the checking thread touches.
 */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "pressure_internal.h"


/* The kernel's limits on a PSI trigger's window (psi.rst; kernels before
 * 6.3 also refused windows under 500 ms, which we keep so that a trigger
 * means the same on every kernel). */
#define SHR_PSI_WINDOW_MIN_US 500000UL
#define SHR_PSI_WINDOW_MAX_US 10000000UL
/* Without CAP_SYS_RESOURCE the kernel takes only windows that are a
 * multiple of this (psi_trigger_create(), 6.12 and 7.3). */
#define SHR_PSI_WINDOW_UNPRIV_US 2000000UL
/* psi_write() copies at most this many bytes of a write into its buffer
 * and makes the last one a NUL (6.12 and 7.3): a trigger has at most
 * SHR_PSI_TRIGGER_MAX - 1 characters. */
#define SHR_PSI_TRIGGER_MAX 32
/* CAP_SYS_RESOURCE (linux/capability.h). */
#define SHR_CAP_SYS_RESOURCE 24
/* A stream source reads at most this many buffers per check; one still
 * readable after them never runs dry (/dev/zero), and is no relay. */
#define SHR_STREAM_READS_MAX 16
#define SHR_STREAM_READ_SIZE 4096

struct shr_pressure *shr_pressure_alloc(enum shr_pressure_kind kind, const char *path)
{
	struct shr_pressure *src = calloc(1, sizeof(*src));

	if (!src)
		return NULL;
	src->path = strdup(path);
	if (!src->path) {
		free(src);
		return NULL;
	}
	src->kind = kind;
	src->fd = -1;
	src->events_fd = -1;
	src->current_fd = -1;
	src->high_fd = -1;
	src->cgroup_wd = -1;
	return src;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void shr_pressure_close(struct shr_pressure *src)
{
	if (!src)
		return;
	close_fd(src->fd);
	close_fd(src->events_fd);
	close_fd(src->current_fd);
	close_fd(src->high_fd);
	free(src->path);
	free(src);
}

/* Parse an unsigned decimal at *@p (advanced past it). Return: false if
 * there is none or it does not fit. */
static bool parse_ulong(const char **p, unsigned long *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned long d = (unsigned long)(*s - '0');

		if (v > (ULONG_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

/*
 * Whether @trigger is "some|full <stall us> <window us>" with the kernel's
 * ranges (stall 1..window, window 500 ms..10 s, both fitting 32 bits),
 * followed by nothing but white space, in at most SHR_PSI_TRIGGER_MAX - 1
 * characters (what the kernel reads of it). *@window_us receives the
 * window. Context: Any.
 */
static bool trigger_parse(const char *trigger, unsigned long *window_us)
{
	const char *p = trigger;
	unsigned long stall, window;

	if (strnlen(trigger, SHR_PSI_TRIGGER_MAX) >= SHR_PSI_TRIGGER_MAX)
		return false;
	if (!strncmp(p, "some ", 5) || !strncmp(p, "full ", 5))
		p += 5;
	else
		return false;
	while (*p == ' ')
		p++;
	if (!parse_ulong(&p, &stall) || *p != ' ')
		return false;
	while (*p == ' ')
		p++;
	if (!parse_ulong(&p, &window))
		return false;
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return false;
	if (window > UINT32_MAX || window < SHR_PSI_WINDOW_MIN_US || window > SHR_PSI_WINDOW_MAX_US)
		return false;
	*window_us = window;
	return stall >= 1 && stall <= window;
}

static bool trigger_valid(const char *trigger)
{
	unsigned long window;

	return trigger_parse(trigger, &window);
}

/* Whether this process's effective set has CAP_SYS_RESOURCE (what the
 * kernel checks on the opener's credentials). Context: Any. */
static bool has_cap_sys_resource(void)
{
	char line[128];
	bool cap = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long eff;

		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			cap = (eff >> SHR_CAP_SYS_RESOURCE) & 1;
			break;
		}
	}
	fclose(f);
	return cap;
}

/*
 * The error for a PSI file's refusal (-EINVAL) of @buf (@len bytes): -EPERM
 * when @buf is a trigger we find valid whose window only a process with
 * CAP_SYS_RESOURCE may use (not a multiple of 2 s) and this process has
 * not that capability; else @err. Context: Any.
 */
static int refusal_errno(int err, const void *buf, size_t len)
{
	char text[SHR_PSI_TRIGGER_MAX];
	unsigned long window;

	if (err != -EINVAL || !len || len > sizeof(text))
		return err;
	memcpy(text, buf, len);
	text[len - 1] = '\0';
	if (!trigger_parse(text, &window) || window % SHR_PSI_WINDOW_UNPRIV_US == 0)
		return err;
	return has_cap_sys_resource() ? err : -EPERM;
}

/*
 * Write @len bytes of @buf to @fd at once (a trigger is one write).
 * Return: 0 or -errno (-EINVAL for a short write, which the kernel would
 * have read as a different trigger).
 */
static int write_all_once(int fd, const void *buf, size_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EINVAL;
}

/* Connect a non-blocking AF_UNIX stream socket to @path. Return: the fd
 * or -errno. */
static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	do
		ret = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	while (ret < 0 && errno == EINTR);
	/* A listener that has not accepted yet: the connection is queued. */
	if (ret < 0 && errno != EINPROGRESS) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * After POLLERR on a regular file: whether the file is still there. A
 * removed cgroup's files fail every read with ENODEV (its PSI trigger was
 * destroyed); a live kernfs file reports POLLERR|POLLPRI for a
 * notification (kernfs_notify()) until it is read again, which this read
 * does. Context: the checking thread.
 */
static bool kernfs_file_alive(const struct shr_pressure *src)
{
	char c;

	return pread(src->fd, &c, 1, 0) >= 0 || errno != ENODEV;
}

/* poll(@src->fd) without waiting. Return: its revents, or -errno. */
static int poll_now(const struct shr_pressure *src)
{
	struct pollfd pfd = { .fd = src->fd, .events = src->events };
	int n;

	do
		n = poll(&pfd, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? pfd.revents : 0;
}

/*
 * Read and discard what a FIFO, device or socket holds, at most
 * SHR_STREAM_READS_MAX reads (a check does bounded work). Return: 1 (data),
 * 0 (nothing), -ENODEV (end of file), -ENOTTY (still readable after them:
 * a stream that never runs dry, like /dev/zero), -errno.
 */
static int drain_stream(const struct shr_pressure *src)
{
	char buf[SHR_STREAM_READ_SIZE];
	int ret = 0, ret_still;

	for (int reads = 0; reads < SHR_STREAM_READS_MAX;) {
		ssize_t n = read(src->fd, buf, sizeof(buf));

		if (n > 0) {
			ret = 1;
			reads++;
			continue;
		}
		if (n == 0)
			return -ENODEV;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return ret;
		return -errno;
	}
	ret_still = poll_now(src);
	if (ret_still < 0)
		return ret_still;
	return ret_still & POLLIN ? -ENOTTY : ret;
}

/*
 * Write the trigger @buf (@len bytes) to the PSI file @fd, with a
 * terminating NUL: the kernel overwrites the last byte it reads with one,
 * so text without it would lose its last character. The kernel's -EINVAL
 * for want of CAP_SYS_RESOURCE is -EPERM (refusal_errno()).
 * Return: 0 or -errno.
 */
static int write_psi_trigger(int fd, const void *buf, size_t len)
{
	char *text;
	int ret;

	if (((const char *)buf)[len - 1] == '\0')
		return refusal_errno(write_all_once(fd, buf, len), buf, len);
	text = malloc(len + 1);
	if (!text)
		return -ENOMEM;
	memcpy(text, buf, len);
	text[len] = '\0';
	ret = refusal_errno(write_all_once(fd, text, len + 1), text, len + 1);
	free(text);
	return ret;
}

/* Whether the open file @fd is on procfs or cgroupfs (where PSI files
 * and kernfs notifications are). */
static bool on_pressure_fs(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 &&
	       (sfs.f_type == SHR_PROC_SUPER_MAGIC || sfs.f_type == SHR_CGROUP2_SUPER_MAGIC);
}

/*
 * Open the regular file, FIFO or character device @path (of mode @mode)
 * non-blocking: read-write for a PSI file given a trigger and for a FIFO
 * (which then never reports a hang-up for want of writers). Fills @src's
 * kind and events. Return: the fd or -errno (-ENOTTY: a regular file
 * outside procfs and cgroupfs).
 */
static int open_file_watch(struct shr_pressure *src, const char *path, mode_t mode, bool writes)
{
	int flags = O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	int fd;

	flags |= writes || S_ISFIFO(mode) ? O_RDWR : O_RDONLY;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	src->kind = S_ISREG(mode) ? SHR_PRESSURE_PSI : SHR_PRESSURE_STREAM;
	src->events = S_ISREG(mode) ? POLLPRI : POLLIN;
	if (S_ISREG(mode) && !on_pressure_fs(fd)) {
		close(fd);
		return -ENOTTY;
	}
	return fd;
}

/*
 * Open what @path names as a watch and write @buf (@len bytes, 0 for
 * none) to it: a regular file on procfs or cgroupfs (POLLPRI), a FIFO or
 * character device (POLLIN), an AF_UNIX socket (POLLIN). A FIFO gets
 * nothing written: it carries events to its reader, which is this source,
 * so whatever we wrote would come back as pressure nobody signalled. A
 * stream is drained at open: one that ends at once or never runs dry
 * (/dev/null, /dev/zero) is refused. Fills @src's fd, events and kind.
 * Context: Any thread. Return: 0 or -errno; nothing left open on error.
 */
int shr_pressure_open_watch(struct shr_pressure *src, const void *buf, size_t len)
{
	const char *path = src->path;
	struct stat st;
	int fd, ret = 0;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISSOCK(st.st_mode)) {
		fd = connect_unix(path);
		src->kind = SHR_PRESSURE_STREAM;
		src->events = POLLIN;
	} else if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		fd = open_file_watch(src, path, st.st_mode, len);
	} else {
		return -EBADF;
	}
	if (fd < 0)
		return fd;
	src->fd = fd;
	if (len && S_ISREG(st.st_mode))
		ret = write_psi_trigger(fd, buf, len);
	else if (len && !S_ISFIFO(st.st_mode))
		ret = write_all_once(fd, buf, len);
	if (!ret && src->kind == SHR_PRESSURE_STREAM) {
		ret = drain_stream(src);
		ret = ret == -ENODEV || ret == -ENOTTY ? -ENOTTY : ret < 0 ? ret : 0;
	}
	if (ret) {
		close(fd);
		src->fd = -1;
		return ret;
	}
	/* A kernfs file polls as notified until its first read (sysfs's "read,
	 * then poll"); reading arms it (a PSI file's trigger polls on its own:
	 * the read is harmless there). Regular files only. */
	if (src->kind == SHR_PRESSURE_PSI)
		(void)kernfs_file_alive(src);
	return 0;
}

int shr_pressure_open_psi(const char *path, const char *trigger, struct shr_pressure **out)
{
	struct shr_pressure *src;
	int ret;

	if (!path || !out)
		return -EINVAL;
	if (!trigger)
		trigger = SHR_PRESSURE_DEFAULT_TRIGGER;
	if (!trigger_valid(trigger))
		return -EINVAL;
	src = shr_pressure_alloc(SHR_PRESSURE_PSI, path);
	if (!src)
		return -ENOMEM;
	ret = shr_pressure_open_watch(src, trigger, strlen(trigger) + 1);
	if (ret) {
		shr_pressure_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

/*
 * Read the whole of @fd from offset 0 into @buf (@size bytes, NUL
 * terminated). Return: bytes read or -errno.
 */
static ssize_t read_file_at_0(int fd, char *buf, size_t size)
{
	size_t n = 0;

	while (n < size - 1) {
		ssize_t r = pread(fd, buf + n, size - 1 - n, (off_t)n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return (ssize_t)n;
}

/* The value of line "@key N" of @text. Return: false when absent. */
static bool events_value(const char *text, const char *key, unsigned long *out)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *p = line + klen;

		if (!strncmp(line, key, klen) && *p == ' ') {
			while (*p == ' ')
				p++;
			return parse_ulong(&p, out);
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* A single number file (memory.current, memory.high). Return: false for
 * "max", unreadable or malformed. */
static bool read_number(int fd, unsigned long *out)
{
	char buf[64];
	const char *p = buf;

	if (fd < 0 || read_file_at_0(fd, buf, sizeof(buf)) <= 0)
		return false;
	return parse_ulong(&p, out);
}

/* memory.current - memory.high of the source's cgroup, 0 when not over. */
static unsigned long over_high(const struct shr_pressure *src)
{
	unsigned long current, high;

	if (!read_number(src->current_fd, &current) || !read_number(src->high_fd, &high))
		return 0;
	return current > high ? current - high : 0;
}

/* Open @name beside @events_path read-only, or -1. */
static int open_sibling(const char *events_path, const char *name)
{
	char path[PATH_MAX];
	const char *slash = strrchr(events_path, '/');
	int dir_len = slash ? (int)(slash - events_path) + 1 : 0;

	if (snprintf(path, sizeof(path), "%.*s%s", dir_len, events_path, name) >= (int)sizeof(path))
		return -1;
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Read the counters into @high and @max. Return: 0, -EINVAL (no "high"
 * line), -errno. */
static int events_read(const struct shr_pressure *src, unsigned long *high, unsigned long *max)
{
	char buf[1024];
	ssize_t n = read_file_at_0(src->events_fd, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	if (!events_value(buf, "high", high))
		return -EINVAL;
	if (!events_value(buf, "max", max))
		*max = 0;
	return 0;
}

/*
 * Open @path as a memory.events file: a regular file (kernfs's, or a plain
 * one a test writes), non-blocking so that nothing else can block the open.
 * Return: the fd, -EISDIR, -ENOTTY (not a regular file: a FIFO, device or
 * socket), -errno of open().
 */
static int events_open_file(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -ENOTTY;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* It may have been replaced between the stat and the open. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOTTY;
	}
	return fd;
}

/*
 * Watch the parent directory of @path's cgroup for the cgroup's removal:
 * kernfs sends no event to watchers of the removed cgroup's files or of
 * its directory, but its parent sees IN_DELETE of its name (the rmdir).
 * Return: 0 or -errno.
 */
static int watch_cgroup_removal(struct shr_pressure *src, const char *path)
{
	char real[PATH_MAX], *slash;

	if (!realpath(path, real))
		return -errno;
	slash = strrchr(real, '/');
	*slash = '\0'; /* real: the cgroup's directory */
	slash = strrchr(real, '/');
	if (!slash || !slash[1])
		return 0; /* the file is in "/": no cgroup to lose */
	if (strlen(slash + 1) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(src->cgroup_name, slash + 1);
	*slash = '\0';
	src->cgroup_wd = inotify_add_watch(src->fd, real[0] ? real : "/", IN_DELETE | IN_ONLYDIR);
	return src->cgroup_wd < 0 ? -errno : 0;
}

int shr_pressure_open_memory_events(const char *path, struct shr_pressure **out)
{
	struct shr_pressure *src;
	int ret;

	if (!path || !out)
		return -EINVAL;
	src = shr_pressure_alloc(SHR_PRESSURE_MEMORY_EVENTS, path);
	if (!src)
		return -ENOMEM;
	src->events = POLLIN;
	src->events_fd = events_open_file(path);
	if (src->events_fd < 0) {
		ret = src->events_fd;
		goto fail;
	}
	ret = events_read(src, &src->high_seen, &src->max_seen);
	if (ret)
		goto fail;
	src->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (src->fd < 0 || inotify_add_watch(src->fd, path, IN_MODIFY) < 0) {
		ret = -errno;
		goto fail;
	}
	ret = watch_cgroup_removal(src, path);
	if (ret)
		goto fail;
	src->current_fd = open_sibling(path, "memory.current");
	src->high_fd = open_sibling(path, "memory.high");
	*out = src;
	return 0;
fail:
	shr_pressure_close(src);
	return ret;
}

/* Any v1 limit at or above this is "no limit" (v1 reads an unlimited
 * cgroup as PAGE_COUNTER_MAX pages: LONG_MAX rounded down to a page). */
#define SHR_V1_UNLIMITED (1UL << 62)

/* Open @name in the directory @dir with @flags. Return: fd or -errno. */
static int open_in(const char *dir, const char *name, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Read the number in @fd (from offset 0). Return: 0 or -errno (-EINVAL
 * when it is not one). */
static int read_ulong_fd(int fd, unsigned long *out)
{
	char buf[64];
	const char *p = buf;
	ssize_t n = read_file_at_0(fd, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return parse_ulong(&p, out) ? 0 : -EINVAL;
}

int shr_pressure_memcg_v1_limit(const char *dir, unsigned long *limit)
{
	int fd = open_in(dir, "memory.limit_in_bytes", O_RDONLY), ret;

	if (fd < 0)
		return fd;
	ret = read_ulong_fd(fd, limit);
	close(fd);
	if (!ret && *limit >= SHR_V1_UNLIMITED)
		return -ERANGE;
	return ret;
}

/* Register @src's eventfd for @level on @src->events_fd
 * (memory.pressure_level) through @dir's cgroup.event_control. */
static int register_vmpressure(struct shr_pressure *src, const char *dir, const char *level)
{
	char line[96];
	int ctl = open_in(dir, "cgroup.event_control", O_WRONLY), ret;

	if (ctl < 0)
		return ctl;
	snprintf(line, sizeof(line), "%d %d %s", src->fd, src->events_fd, level);
	ret = write_all_once(ctl, line, strlen(line));
	close(ctl);
	return ret;
}

int shr_pressure_open_vmpressure(const char *dir, const char *level, struct shr_pressure **out)
{
	char path[PATH_MAX];
	struct shr_pressure *src;
	struct statfs sfs;
	int ret;

	if (!dir || !out)
		return -EINVAL;
	if (!level)
		level = SHR_PRESSURE_DEFAULT_VMPRESSURE;
	if (strcmp(level, "low") && strcmp(level, "medium") && strcmp(level, "critical"))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/memory.pressure_level", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	src = shr_pressure_alloc(SHR_PRESSURE_VMPRESSURE, path);
	if (!src)
		return -ENOMEM;
	src->events = POLLIN;
	src->events_fd = open(path, O_RDONLY | O_CLOEXEC);
	ret = src->events_fd < 0 ? -errno : 0;
	if (!ret && (fstatfs(src->events_fd, &sfs) < 0 || sfs.f_type != SHR_CGROUP_SUPER_MAGIC))
		ret = -ENOTTY;
	if (!ret) {
		src->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		ret = src->fd < 0 ? -errno : register_vmpressure(src, dir, level);
	}
	if (ret) {
		shr_pressure_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

/* vmpressure: the eventfd counts the kernel's events at the level (one per
 * reclaim window of the cgroup) and the cgroup's removal (v1 signals every
 * registered eventfd when the cgroup goes: its files then fail with
 * ENODEV). */
static int check_vmpressure(struct shr_pressure *src, short revents)
{
	eventfd_t n = 0;
	char c;

	if (!(revents & POLLIN))
		return 0;
	if (eventfd_read(src->fd, &n) < 0 && errno != EAGAIN)
		return -errno;
	if (pread(src->events_fd, &c, 1, 0) < 0 && errno == ENODEV)
		return -ENODEV;
	return n > 0;
}

const char *shr_pressure_path(const struct shr_pressure *src)
{
	return src ? src->path : NULL;
}

int shr_pressure_fd(const struct shr_pressure *src)
{
	return src ? src->fd : -EINVAL;
}

short shr_pressure_poll_events(const struct shr_pressure *src)
{
	return src ? src->events : 0;
}

enum shr_pressure_kind shr_pressure_kind(const struct shr_pressure *src)
{
	return src ? src->kind : (enum shr_pressure_kind)0;
}

/* Whether inotify event @e says the source's file or cgroup is gone. */
static bool inotify_gone(const struct shr_pressure *src, const struct inotify_event *e)
{
	if (e->mask & (IN_IGNORED | IN_DELETE_SELF | IN_UNMOUNT))
		return true;
	return e->wd == src->cgroup_wd && (e->mask & IN_DELETE) && e->len &&
	       !strcmp(e->name, src->cgroup_name);
}

/* Drain the inotify events, at most SHR_STREAM_READS_MAX reads. Return: 1
 * (a modification), 0 (none), -ENODEV (the file or its cgroup went away),
 * -errno. */
static int drain_inotify(const struct shr_pressure *src)
{
	_Alignas(struct inotify_event) char buf[SHR_STREAM_READ_SIZE];
	int ret = 0;

	for (int reads = 0; reads < SHR_STREAM_READS_MAX; reads++) {
		ssize_t n = read(src->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? ret : -errno;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)(void *)p;

			if (inotify_gone(src, e))
				return -ENODEV;
			if ((e->mask & IN_MODIFY) && e->wd != src->cgroup_wd)
				ret = 1;
			p += sizeof(*e) + e->len;
		}
	}
	return ret;
}

/* memory.events: re-read the counters; fire on a rise of high or max. */
static int check_memory_events(struct shr_pressure *src, struct shr_pressure_event *ev)
{
	unsigned long high, max;
	int ret = drain_inotify(src);

	if (ret <= 0)
		return ret;
	ret = events_read(src, &high, &max);
	if (ret)
		return ret == -EINVAL ? 0 : ret;
	ev->high = high > src->high_seen ? high - src->high_seen : 0;
	ev->max = max > src->max_seen ? max - src->max_seen : 0;
	src->high_seen = high;
	src->max_seen = max;
	if (!ev->high && !ev->max)
		return 0;
	ev->over_high = over_high(src);
	return 1;
}

int shr_pressure_check(struct shr_pressure *src, short revents, struct shr_pressure_event *ev)
{
	struct shr_pressure_event local;
	int r;

	if (!src)
		return -EINVAL;
	if (!ev)
		ev = &local;
	memset(ev, 0, sizeof(*ev));
	ev->kind = src->kind;
	if (src->kind == SHR_PRESSURE_MEMORY_EVENTS)
		return check_memory_events(src, ev);
	if (!revents) {
		r = poll_now(src);
		if (r < 0)
			return r;
		revents = (short)r;
	}
	if (src->kind == SHR_PRESSURE_VMPRESSURE)
		return check_vmpressure(src, revents);
	if (src->kind == SHR_PRESSURE_STREAM) {
		if (revents & POLLIN)
			return drain_stream(src);
		return revents & (POLLHUP | POLLERR | POLLNVAL) ? -ENODEV : 0;
	}
	if (revents & POLLNVAL)
		return -ENODEV;
	if ((revents & POLLERR) && !kernfs_file_alive(src))
		return -ENODEV;
	return revents & POLLPRI ? 1 : 0;
}
