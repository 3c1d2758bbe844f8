// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: the smallest guest program. Prints the kernel release, the online
 * CPUs and NUMA nodes, and whether memory cgroups and tmpfs mounts work;
 * exits 0 when they do, 1 otherwise. Build: gcc -static -O2 -o smoke smoke.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void print_file(const char *label, const char *path)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	printf("%s: %s\n", label, buf);
}

int main(void)
{
	struct utsname u;
	int bad = 0;

	uname(&u);
	printf("release: %s\n", u.release);
	print_file("cpus online", "/sys/devices/system/cpu/online");
	print_file("nodes online", "/sys/devices/system/node/online");
	print_file("cgroup controllers", "/sys/fs/cgroup/cgroup.controllers");
	if (mkdir("/tmp/smoke-mnt", 0755) ||
	    mount("none", "/tmp/smoke-mnt", "tmpfs", 0, NULL) ||
	    umount("/tmp/smoke-mnt")) {
		printf("tmpfs mount: %s\n", strerror(errno));
		bad = 1;
	}
	if (mkdir("/sys/fs/cgroup/smoke", 0755) || rmdir("/sys/fs/cgroup/smoke")) {
		printf("cgroup mkdir/rmdir: %s\n", strerror(errno));
		bad = 1;
	}
	printf("smoke: %s\n", bad ? "FAIL" : "ok");
	return bad;
}
