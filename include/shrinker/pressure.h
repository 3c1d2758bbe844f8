/* SPDX-License-Identifier: MIT */
/*
 * Pressure sources: the kernel's signals that memory is short, as file
 * descriptors a reclaimer (<shrinker/reclaimer.h>) or the program's own
 * event loop polls. Each is opt-in:
 *
 *   shr_pressure_open_psi()           a PSI trigger on /proc/pressure/memory
 *                                     or a cgroup v2 memory.pressure file
 *                                     (Documentation/accounting/psi.rst):
 *                                     "<some|full> <stall us> <window us>"
 *                                     written to the file, then POLLPRI;
 *   shr_pressure_open_systemd()       the service manager's protocol
 *                                     ($MEMORY_PRESSURE_WATCH and
 *                                     $MEMORY_PRESSURE_WRITE, as systemd's
 *                                     sd_event_add_memory_pressure() reads
 *                                     them), with its fallbacks;
 *   shr_pressure_open_memory_events() a cgroup v2 memory.events file: its
 *                                     "high" or "max" counter rose (the
 *                                     kernel notifies a modification, seen
 *                                     with inotify), or its cgroup was
 *                                     removed;
 *   shr_pressure_open_vmpressure()    a cgroup v1 memory cgroup reclaims
 *                                     (its memory.pressure_level events:
 *                                     where the memory controller is on
 *                                     cgroup v1, whose cgroups have no PSI
 *                                     and no memory.events).
 *
 * A program with its own signal calls shr_reclaimer_wake() or
 * shr_reclaimer_reclaim() instead.
 *
 * Using one: poll shr_pressure_fd() for shr_pressure_poll_events(); when
 * poll reports it ready, shr_pressure_check() with the events poll returned
 * says whether pressure was seen (and consumes what the fd had to read,
 * with bounded work: a check always returns).
 * A source is not thread-safe: one thread polls and checks it at a time (a
 * reclaimer owns the sources given to it).
 */
#ifndef SHRINKER_PRESSURE_H
#define SHRINKER_PRESSURE_H

#include <shrinker/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct shr_pressure;

/*
 * The trigger a source writes when none is given: a "some" stall of 200 ms
 * per 2 s window, the 10% share of systemd's documented default ("100ms per
 * 1s"), on the window the kernel lets unprivileged processes use (it
 * refuses them windows that are not a multiple of 2 s), as systemd's own
 * sd-event default does.
 */
#define SHR_PRESSURE_DEFAULT_TRIGGER "some 200000 2000000"

/*
 * The cgroup v1 vmpressure level a source watches when none is given:
 * "low", the cgroup is reclaiming (at its limit, every charge that does
 * not fit makes it reclaim: v2's memory.events "max"), the earliest of the
 * kernel's three levels (Documentation/admin-guide/cgroup-v1/memory.rst).
 */
#define SHR_PRESSURE_DEFAULT_VMPRESSURE "low"

/** enum shr_pressure_kind - what a source watches. */
enum shr_pressure_kind {
	SHR_PRESSURE_PSI = 1,       /* a PSI file (regular file): POLLPRI */
	SHR_PRESSURE_STREAM,        /* a FIFO, character device or AF_UNIX
				     * socket (systemd's other watches):
				     * POLLIN, what arrives is discarded
				     * (at most 64 KiB per check) */
	SHR_PRESSURE_MEMORY_EVENTS, /* memory.events: inotify IN_MODIFY */
	SHR_PRESSURE_VMPRESSURE,    /* cgroup v1 memory.pressure_level: an
				     * eventfd, POLLIN */
};

/**
 * struct shr_pressure_event - what shr_pressure_check() saw.
 * @kind:      the source's kind.
 * @high:      memory.events: how much "high" rose since the last check
 *             (or the open); 0 for the other kinds.
 * @max:       memory.events: how much "max" rose.
 * @over_high: memory.events: memory.current - memory.high of that cgroup
 *             when checked (bytes; 0 when under, without a high, or when
 *             the files cannot be read); 0 for the other kinds.
 */
struct shr_pressure_event {
	enum shr_pressure_kind kind;
	unsigned long high;
	unsigned long max;
	unsigned long over_high;
};

/**
 * shr_pressure_open_psi() - arm a PSI trigger.
 * @path:    /proc/pressure/memory, a cgroup v2 memory.pressure file (a
 *           regular file must be on procfs or cgroupfs), or (as systemd
 *           allows) a FIFO, character device or AF_UNIX stream socket that
 *           relays such events.
 * @trigger: "some|full <stall us> <window us>" (stall 1..window, window
 *           500000..10000000 us; at most 31 characters, what the kernel's
 *           psi_write() reads of a write); NULL for
 *           SHR_PRESSURE_DEFAULT_TRIGGER. Checked here first, then by the
 *           kernel when written. Without CAP_SYS_RESOURCE the kernel takes
 *           only windows that are a multiple of 2 s.
 * @out:     the source.
 *
 * Opens @path non-blocking (read-write, for the trigger), writes @trigger
 * with its terminating NUL (the kernel reads one string per write), and
 * returns a source that polls for POLLPRI (POLLIN for a FIFO, device or
 * socket). A device or socket gets @trigger written too; a FIFO does not
 * (its only reader is this source, which would read it back as pressure).
 * A FIFO, device or socket is drained at open. One trigger per source: the
 * kernel needs a file descriptor per trigger.
 *
 * Context: Any thread.
 * Return: 0; -EINVAL (NULL, a malformed, out-of-range or too long trigger,
 *         or one the kernel refused); -EPERM (the kernel refused a window
 *         that is not a multiple of 2 s because this process lacks
 *         CAP_SYS_RESOURCE); -ENOTTY (a regular file outside procfs and
 *         cgroupfs, or a stream that is at end of file at once or never
 *         runs dry, like /dev/null or /dev/zero); -EISDIR (a directory);
 *         -errno of open(), write() or connect() (-ENOENT without PSI or
 *         without that cgroup, -EOPNOTSUPP when PSI is disabled at boot,
 *         -EACCES); -ENOMEM. Nothing is left open on error.
 */
SHR_API SHR_MUST_CHECK int shr_pressure_open_psi(const char *path, const char *trigger,
						 struct shr_pressure **out);

/**
 * shr_pressure_open_systemd() - the MEMORY_PRESSURE_WATCH protocol.
 * @out: receives the source.
 *
 * With $MEMORY_PRESSURE_WATCH set (by a service manager: systemd's
 * MemoryPressureWatch=), it names what to watch: an absolute, normalised
 * path to a PSI file (a regular file, which must be on procfs or cgroupfs:
 * POLLPRI), or a FIFO, character device or AF_UNIX socket (POLLIN); if
 * $MEMORY_PRESSURE_WRITE is set too, its base64 text is decoded and written
 * to it once, after opening (usually a trigger): to a PSI file with a
 * terminating NUL (added if the text has none: the kernel overwrites the
 * last byte of a write with one), to a device or socket as it is, to a
 * FIFO not at all (as for shr_pressure_open_psi()). An empty value or
 * "/dev/null" means the manager turned pressure handling off.
 *
 * Without it, the default, by what bounds the process's memory:
 *   - /sys/fs/cgroup is a cgroup v2 mount: the memory.pressure file of the
 *     process's own cgroup, with SHR_PRESSURE_DEFAULT_TRIGGER;
 *   - the memory controller is on cgroup v1 (a v1 or hybrid host) and the
 *     process's v1 memory cgroup or an ancestor has a memory.limit_in_bytes:
 *     shr_pressure_open_vmpressure() on the nearest such cgroup at
 *     SHR_PRESSURE_DEFAULT_VMPRESSURE (a source of kind
 *     SHR_PRESSURE_VMPRESSURE: v1 cgroups have no PSI, and the machine's
 *     PSI does not see a cgroup's limit);
 *   - else (no limit, or no such file) /proc/pressure/memory, the
 *     machine's PSI, with SHR_PRESSURE_DEFAULT_TRIGGER.
 * shr_pressure_kind() and shr_pressure_path() say which it chose.
 *
 * Context: Any thread (reads the environment: not while another thread
 *          changes it).
 * Return: 0; -EHOSTDOWN (turned off: empty or /dev/null); -EBADMSG (not an
 *         absolute normalised path, or $MEMORY_PRESSURE_WRITE is not
 *         base64); -ENOTTY (a regular file outside procfs and cgroupfs, or
 *         a stream that ends at once or never runs dry); -EPERM (as for
 *         shr_pressure_open_psi(), when the written text is a trigger);
 *         -EISDIR; -EOPNOTSUPP (no variable set and no PSI on this kernel);
 *         the errors of shr_pressure_open_psi() otherwise.
 */
SHR_API SHR_MUST_CHECK int shr_pressure_open_systemd(struct shr_pressure **out);

/**
 * shr_pressure_open_memory_events() - watch a cgroup v2 memory.events file.
 * @path: the file (memory.events or memory.events.local of a cgroup); its
 *        directory's memory.current and memory.high are read at each event
 *        when present, to report how far the cgroup is over its high.
 * @out:  the source.
 *
 * The counters are read at open; an event is a rise of "high" (a charge
 * went over memory.high: the kernel throttles the cgroup and reclaims) or of
 * "max" (a charge hit memory.max) since the last check. Other lines (low,
 * oom, oom_kill) are read but do not fire. The cgroup's removal (an rmdir
 * of the file's directory, seen in its parent directory: kernfs notifies
 * nothing on the file itself) makes the source gone: shr_pressure_check()
 * returns -ENODEV.
 *
 * Context: Any thread.
 * Return: 0, -EINVAL (NULL, or the file has no "high" line), -EISDIR,
 *         -ENOTTY (not a regular file: a FIFO, device or socket, refused
 *         without opening it), -errno of open() or inotify (-ENOENT,
 *         -EACCES), -ENOMEM. Nothing is left open on error.
 */
SHR_API SHR_MUST_CHECK int shr_pressure_open_memory_events(const char *path,
							   struct shr_pressure **out);

/**
 * shr_pressure_open_vmpressure() - watch a cgroup v1 memory cgroup's
 * reclaim.
 * @dir:   the memory cgroup's directory on the cgroup v1 memory hierarchy
 *         (e.g. /sys/fs/cgroup/memory/app).
 * @level: "low" (the cgroup reclaims), "medium" (reclaim struggles:
 *         swapping, or most of what it scans cannot be freed) or
 *         "critical" (about to OOM); NULL for
 *         SHR_PRESSURE_DEFAULT_VMPRESSURE.
 * @out:   the source.
 *
 * Registers an eventfd for @level on the cgroup's memory.pressure_level
 * through its cgroup.event_control (the kernel's v1 vmpressure
 * notification, Documentation/admin-guide/cgroup-v1/memory.rst; the kernel
 * logs once that the file is deprecated, and has no v1 replacement: a
 * usage threshold on memory.usage_in_bytes falls silent while the page
 * cache keeps the usage at the limit). A check fires when the kernel sent
 * events since the last one, one per reclaim window (512 pages scanned).
 * The cgroup's removal makes the source gone (-ENODEV).
 *
 * Context: Any thread.
 * Return: 0; -EINVAL (NULL, an unknown level); -ENOTTY (the file is not on
 *         a cgroup v1 hierarchy); -errno of open() or of the registration
 *         (-ENOENT: not a v1 memory cgroup, -EACCES); -ENAMETOOLONG;
 *         -ENOMEM. Nothing is left open on error.
 */
SHR_API SHR_MUST_CHECK int shr_pressure_open_vmpressure(const char *dir, const char *level,
							struct shr_pressure **out);

/**
 * shr_pressure_path() - the file a source watches.
 * @src: the source.
 *
 * The path it was opened with: the PSI file, relay, memory.events file,
 * or the memory.pressure_level of a vmpressure source; for
 * shr_pressure_open_systemd(), $MEMORY_PRESSURE_WATCH or the default it
 * chose.
 *
 * Context: Any; valid until shr_pressure_close().
 * Return: the path, NULL for NULL.
 */
SHR_API const char *shr_pressure_path(const struct shr_pressure *src);

/**
 * shr_pressure_fd() - the descriptor to poll.
 * @src: the source.
 *
 * Context: Any.
 * Return: the descriptor, or -EINVAL for NULL.
 */
SHR_API int shr_pressure_fd(const struct shr_pressure *src);

/**
 * shr_pressure_poll_events() - the poll(2) events to wait for on
 * shr_pressure_fd().
 * @src: the source.
 *
 * Context: Any.
 * Return: POLLPRI or POLLIN; 0 for NULL.
 */
SHR_API short shr_pressure_poll_events(const struct shr_pressure *src);

/**
 * shr_pressure_kind() - the source's kind.
 * @src: the source.
 *
 * Context: Any.
 * Return: the kind, 0 for NULL.
 */
SHR_API enum shr_pressure_kind shr_pressure_kind(const struct shr_pressure *src);

/**
 * shr_pressure_check() - whether the source saw pressure.
 * @src:     the source.
 * @revents: the events poll(2) or epoll returned for its fd, or 0 to have
 *           the source poll it itself without waiting (a PSI trigger's
 *           event is consumed by the poll that reports it: pass what that
 *           poll returned).
 * @ev:      receives what was seen (may be NULL).
 *
 * Consumes what the fd has to read, with bounded work: the data of a
 * FIFO, device or socket (at most 16 reads of 4 KiB), the inotify events of
 * memory.events (whose counters it then re-reads).
 *
 * Context: The thread that polls @src.
 * Return: 1 (pressure), 0 (nothing: a spurious wake-up, or a memory.events
 *         change that was not high or max), -ENODEV (the source is gone:
 *         its cgroup was removed, or the peer closed the socket; poll it no
 *         more), -ENOTTY (a stream still readable after 64 KiB in one
 *         check never runs dry and carries no events: poll it no more),
 *         -EINVAL (NULL), -errno of read().
 */
SHR_API int shr_pressure_check(struct shr_pressure *src, short revents,
			       struct shr_pressure_event *ev);

/**
 * shr_pressure_close() - close and free a source.
 * @src: the source; NULL is a no-op.
 *
 * Context: Any; no other thread uses @src (remove it from a reclaimer first).
 */
SHR_API void shr_pressure_close(struct shr_pressure *src);

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_PRESSURE_H */
