/* SPDX-License-Identifier: MIT */
/*
 * The service manager's MEMORY_PRESSURE_WATCH protocol and, without it,
 * the default watch (pressure.h, shr_pressure_open_systemd()).
 *
 * The protocol follows sd_event_add_memory_pressure()'s documented
 * behaviour (man page and docs/MEMORY_PRESSURE.md), in our own code: the
 * environment's path wins over the defaults; "/dev/null" or an empty value
 * is -EHOSTDOWN; a relative or unnormalised path -EBADMSG; a regular file
 * outside procfs/cgroupfs -ENOTTY (pressure.c's open of a watch, shared
 * with shr_pressure_open_psi()). Without the variables, what bounds the
 * process's memory decides (open_default_watch()): its cgroup v2
 * memory.pressure; on a host whose memory controller is on cgroup v1 (a v1
 * or hybrid host), the vmpressure of its v1 memory cgroup with a limit,
 * v1's own signal, since v1 cgroups have no PSI and the machine's PSI
 * cannot see a cgroup's limit; else the machine's PSI.
 *
 * Thread-safety: reads the environment and /proc; no state of its own.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <shrinker/pressure.h>

#include "pressure_internal.h"

/* Value 0..63 of a base64 character, or -1. */
static int base64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Decode base64 @text (white space ignored, '=' padding optional at the
 * end) into a malloc'd buffer. Return: 0 with *@buf / *@len set, -EBADMSG
 * (not base64), -ENOMEM.
 */
static int base64_decode(const char *text, unsigned char **buf, size_t *len)
{
	size_t n = 0, cap = strlen(text) / 4 * 3 + 3;
	unsigned char *out = malloc(cap);
	unsigned int acc = 0, bits = 0;
	bool padding = false;

	if (!out)
		return -ENOMEM;
	for (const char *p = text; *p; p++) {
		int v;

		if (isspace((unsigned char)*p))
			continue;
		if (*p == '=') {
			padding = true;
			continue;
		}
		v = base64_value(*p);
		if (v < 0 || padding) {
			free(out);
			return -EBADMSG;
		}
		acc = (acc << 6) | (unsigned int)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[n++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	/* Leftover bits must be zero padding of the last group (and one
	 * character alone, 6 bits, is not a byte). */
	if (bits >= 6 || acc) {
		free(out);
		return -EBADMSG;
	}
	*buf = out;
	*len = n;
	return 0;
}

/* Whether @path is absolute and normalised: no empty, "." or ".."
 * component, no trailing slash (systemd's path_is_normalized()). */
static bool path_normalized(const char *path)
{
	const char *p = path;

	if (*p != '/')
		return false;
	while (*p) {
		const char *seg = ++p, *end = strchr(seg, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);

		if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && !strncmp(seg, "..", 2)))
			return false;
		p = seg + n;
	}
	return true;
}

/* Whether @list (comma-separated) has the token @name. */
static bool has_token(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Where the cgroup v1 memory hierarchy is mounted, into @buf. Return:
 * false when no v1 hierarchy has the memory controller. */
static bool memcg_v1_mount(char *buf, size_t size)
{
	char dev[64], dir[PATH_MAX], type[32], opts[512];
	bool found = false;
	FILE *f = fopen("/proc/self/mounts", "re");

	if (!f)
		return false;
	while (!found && fscanf(f, "%63s %4095s %31s %511s %*[^\n]", dev, dir, type, opts) == 4)
		found = !strcmp(type, "cgroup") && has_token(opts, "memory") &&
			(size_t)snprintf(buf, size, "%s", dir) < size;
	fclose(f);
	return found;
}

/* This process's cgroup v1 memory cgroup (its path under the hierarchy),
 * into @buf. Return: false when /proc/self/cgroup names none. */
static bool memcg_v1_path(char *buf, size_t size)
{
	char line[PATH_MAX + 64];
	bool found = false;
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *ctrl = strchr(line, ':'), *path = ctrl ? strchr(ctrl + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		path[strcspn(path, "\n")] = '\0';
		found = has_token(ctrl + 1, "memory") && (size_t)snprintf(buf, size, "%s", path) < size;
	}
	fclose(f);
	return found;
}

/*
 * The cgroup v1 memory cgroup whose limit bounds this process: its own or
 * the nearest ancestor with a memory.limit_in_bytes (the hierarchy counts
 * descendants' usage in their ancestors). Writes its directory into @buf.
 * Return: false when the memory controller is not on v1 or no cgroup on
 * the path has a limit (the root has none).
 */
static bool memcg_v1_limited_dir(char *buf, size_t size)
{
	char mnt[PATH_MAX], rel[PATH_MAX];
	size_t root_len;

	if (!memcg_v1_mount(mnt, sizeof(mnt)) || !memcg_v1_path(rel, sizeof(rel)))
		return false;
	if ((size_t)snprintf(buf, size, "%s%s", mnt, strcmp(rel, "/") ? rel : "") >= size)
		return false;
	root_len = strlen(mnt);
	while (strlen(buf) > root_len) {
		unsigned long limit;

		if (shr_pressure_memcg_v1_limit(buf, &limit) == 0)
			return true;
		*strrchr(buf, '/') = '\0';
	}
	return false;
}

/*
 * The default watch, by what bounds this process's memory:
 *  - /sys/fs/cgroup is a cgroup v2 mount: its cgroup's memory.pressure
 *    (PSI), when the file exists;
 *  - the memory controller is on cgroup v1 (a v1 or hybrid host) and the
 *    process's memory cgroup or an ancestor has a limit: that cgroup's
 *    vmpressure at the default level (v1's signal that the cgroup
 *    reclaims; its cgroups have no PSI, and system-wide PSI does not see a
 *    cgroup's limit);
 *  - else /proc/pressure/memory, the whole machine's PSI.
 * Return: 0 with *@out, -EOPNOTSUPP (none of them: no PSI), or the
 * opener's error.
 */
static int open_default_watch(struct shr_pressure **out)
{
	struct statfs sfs;
	char path[PATH_MAX + 64], line[PATH_MAX + 8];
	FILE *f;

	if (statfs("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == SHR_CGROUP2_SUPER_MAGIC &&
	    (f = fopen("/proc/self/cgroup", "re"))) {
		bool found = false;

		while (!found && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			if (strncmp(line, "0::", 3))
				continue;
			found = (size_t)snprintf(path, sizeof(path),
						 "/sys/fs/cgroup%s%smemory.pressure", line + 3,
						 line[3] && line[4] ? "/" : "") < sizeof(path);
		}
		fclose(f);
		if (found && access(path, F_OK) == 0)
			return shr_pressure_open_psi(path, NULL, out);
	} else if (memcg_v1_limited_dir(path, sizeof(path))) {
		return shr_pressure_open_vmpressure(path, NULL, out);
	}
	if (access("/proc/pressure/memory", F_OK) < 0)
		return -EOPNOTSUPP;
	return shr_pressure_open_psi("/proc/pressure/memory", NULL, out);
}

int shr_pressure_open_systemd(struct shr_pressure **out)
{
	const char *watch = getenv("MEMORY_PRESSURE_WATCH");
	const char *write_text = getenv("MEMORY_PRESSURE_WRITE");
	struct shr_pressure *src;
	unsigned char *buf = NULL;
	size_t len = 0;
	int ret;

	if (!out)
		return -EINVAL;
	if (!watch)
		return open_default_watch(out);
	if (!*watch || !strcmp(watch, "/dev/null"))
		return -EHOSTDOWN;
	if (!path_normalized(watch))
		return -EBADMSG;
	if (write_text) {
		ret = base64_decode(write_text, &buf, &len);
		if (ret)
			return ret;
	}
	src = shr_pressure_alloc(SHR_PRESSURE_PSI, watch);
	ret = src ? shr_pressure_open_watch(src, buf, len) : -ENOMEM;
	free(buf);
	if (ret) {
		shr_pressure_close(src);
		return ret;
	}
	*out = src;
	return 0;
}

