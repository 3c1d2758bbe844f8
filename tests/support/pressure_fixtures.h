/* SPDX-License-Identifier: MIT */
/*
 * What the pressure source tests share: the machine's writable cgroup v2
 * mount, a listening AF_UNIX socket (a relay), a small file written whole.
 * Each fails the test (cmocka) when the system refuses. libc only.
 */
#ifndef SHR_TEST_PRESSURE_FIXTURES_H
#define SHR_TEST_PRESSURE_FIXTURES_H

#include <sys/types.h>

/* The first cgroup2 mount this process may write to, or NULL. */
const char *fix_cgroup2_mount(void);
/* A listening AF_UNIX stream socket bound at @path (backlog 16). */
int fix_listen_unix(const char *path);
/* Create or truncate @path with @mode and write @text. */
void fix_write_file(const char *path, const char *text, mode_t mode);

#endif /* SHR_TEST_PRESSURE_FIXTURES_H */
