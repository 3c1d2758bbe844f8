/* SPDX-License-Identifier: MIT */
/*
 * What the pressure source tests share: the machine's writable cgroup v2
 * mount, a listening AF_UNIX socket (a relay), a small file written whole,
 * a scratch directory, a wait for a source. Each fails the test (cmocka)
 * when the system refuses. Public API only.
 */
#ifndef SHR_TEST_PRESSURE_FIXTURES_H
#define SHR_TEST_PRESSURE_FIXTURES_H

#include <sys/types.h>

/*
 * What this machine lacks for a test: the test prints why and returns
 * (a per-test skip would read as a failure in Meson's TAP parser).
 */
#define SKIP_BECAUSE(...)                                        \
	do {                                                     \
		print_message("# skipped: " __VA_ARGS__);        \
		return;                                          \
	} while (0)

/* Longest wait for an event the test already caused (a guard: poll
 * returns as soon as it is there). */
#define FIX_WAIT_MS 20000

struct shr_pressure;

/* A scratch directory /tmp/@prefix-XXXXXX for the test program (0755, so
 * that a test dropped to nobody can reach it); removed by the teardown.
 * Return: 0 or -1. */
int fix_tmpdir_setup(const char *prefix);
int fix_tmpdir_teardown(void);
/* The directory, and a path in it (valid until the fourth call after). */
const char *fix_tmpdir(void);
const char *fix_tmp_path(const char *name);
/* Wait (at most FIX_WAIT_MS) for @src's fd to be ready; its revents. */
short fix_wait_ready(struct shr_pressure *src);

/* The first cgroup2 mount this process may write to, or NULL. */
const char *fix_cgroup2_mount(void);
/* The cgroup v1 hierarchy with the memory controller (where the memory
 * controller is on v1), or NULL. */
const char *fix_memcg_v1_mount(void);
/* A listening AF_UNIX stream socket bound at @path (backlog 16). */
int fix_listen_unix(const char *path);
/* Create or truncate @path with @mode and write @text. */
void fix_write_file(const char *path, const char *text, mode_t mode);

#endif /* SHR_TEST_PRESSURE_FIXTURES_H */
