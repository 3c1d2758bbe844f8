/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "harness.h"
#include "pressure_fixtures.h"

const char *fix_cgroup2_mount(void)
{
	static char mnt[256];
	char dev[64], dir[256], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return NULL;
	mnt[0] = '\0';
	while (fscanf(f, "%63s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2") && access(dir, W_OK) == 0) {
			strcpy(mnt, dir);
			break;
		}
	}
	fclose(f);
	return mnt[0] ? mnt : NULL;
}

const char *fix_memcg_v1_mount(void)
{
	static char mnt[256];
	char dev[64], dir[256], type[64], opts[512];
	FILE *f = fopen("/proc/self/mounts", "r");

	if (!f)
		return NULL;
	mnt[0] = '\0';
	while (fscanf(f, "%63s %255s %63s %511s %*[^\n]", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup") && strstr(opts, "memory")) {
			strcpy(mnt, dir);
			break;
		}
	}
	fclose(f);
	return mnt[0] ? mnt : NULL;
}

int fix_listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 16), 0);
	return fd;
}

void fix_write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static char tmpdir[96];

int fix_tmpdir_setup(const char *prefix)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/%s-XXXXXX", prefix);
	return mkdtemp(tmpdir) && chmod(tmpdir, 0755) == 0 ? 0 : -1;
}

int fix_tmpdir_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

const char *fix_tmpdir(void)
{
	return tmpdir;
}

const char *fix_tmp_path(const char *name)
{
	static char buf[4][160];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", tmpdir, name);
	return p;
}

short fix_wait_ready(struct shr_pressure *src)
{
	struct pollfd pfd = { .fd = shr_pressure_fd(src), .events = shr_pressure_poll_events(src) };

	assert_int_equal(poll(&pfd, 1, FIX_WAIT_MS), 1);
	return pfd.revents;
}
