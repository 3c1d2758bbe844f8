/* SPDX-License-Identifier: MIT */
/*
 * Data files (datafiles.h): the seeds' figures, the threads, the memory
 * cgroup calibration. An installed shrinklab finds them relative to its own
 * location (<bindir>/SHRINKLAB_DATA_FROM_BINDIR), so an install under
 * --destdir or a moved prefix works too; the build-tree binary reads the
 * source tree's data/.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datafiles.h"

/* The build sets these (tools/shrinklab/meson.build). */
#ifndef SHRINKLAB_DATA_DIR
#define SHRINKLAB_DATA_DIR "data"
#endif
#ifndef SHRINKLAB_DATA_FROM_BINDIR
#define SHRINKLAB_DATA_FROM_BINDIR ""
#endif
#ifndef SHRINKLAB_INSTALLED_DATA_DIR
#define SHRINKLAB_INSTALLED_DATA_DIR SHRINKLAB_DATA_DIR
#endif

/*
 * The file @name beside an installed binary: <directory of this
 * executable>/SHRINKLAB_DATA_FROM_BINDIR/@name, if it is readable. Written
 * to @buf; false when there is none (the build-tree binary: nothing is
 * installed next to it).
 */
static bool installed_beside_binary(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX], joined[PATH_MAX];
	ssize_t n;
	char *slash;

	if (!SHRINKLAB_DATA_FROM_BINDIR[0])
		return false;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	*slash = '\0';
	if (snprintf(joined, sizeof(joined), "%s/%s/%s", exe, SHRINKLAB_DATA_FROM_BINDIR, name) >=
		    (int)sizeof(joined) ||
	    access(joined, R_OK) != 0)
		return false;
	/* Without the "bin/.." for messages and --help. */
	if (!realpath(joined, exe) || strlen(exe) >= len)
		return false;
	strcpy(buf, exe);
	return true;
}

const char *lab_data_path(const char *name, char *buf, size_t len)
{
	if (installed_beside_binary(name, buf, len))
		return buf;
	snprintf(buf, len, "%s/%s", SHRINKLAB_DATA_DIR, name);
	if (access(buf, R_OK) != 0)
		snprintf(buf, len, "%s/%s", SHRINKLAB_INSTALLED_DATA_DIR, name);
	return buf;
}
