/* SPDX-License-Identifier: MIT */
/*
 * shrinklab outputs, checked before anything is measured: a file is opened
 * for writing (created when missing, not truncated) at the start and written
 * at the end, so an unwritable path fails in a millisecond rather than after
 * minutes of measuring; a run that fails removes a file it created. An
 * output directory is created when missing (its parent must exist) and
 * proven writable by creating and removing a file in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"

int lab_output_open(struct lab_output *o, const char *path, char *err, size_t len)
{
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		return 0;
	}
	if (!path[0]) {
		snprintf(err, len, "an empty path");
		return -EINVAL;
	}
	o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (o->fd >= 0) {
		o->created = true;
		return 0;
	}
	if (errno == EEXIST)
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
	if (o->fd < 0) {
		int e = errno;

		snprintf(err, len, "cannot write: %s", strerror(e));
		return -e;
	}
	return 0;
}

FILE *lab_output_begin(struct lab_output *o)
{
	FILE *f;

	if (o->fd == STDOUT_FILENO)
		return stdout;
	if (o->fd < 0 || ftruncate(o->fd, 0))
		return NULL;
	f = fdopen(o->fd, "w");
	if (f)
		o->fd = -1; /* the FILE owns it now */
	return f;
}

int lab_output_end(struct lab_output *o, FILE *f)
{
	int ret = 0;

	if (f == stdout)
		return fflush(stdout) ? -errno : 0;
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	o->created = false;
	return ret;
}

void lab_output_abandon(struct lab_output *o)
{
	if (o->fd >= 0 && o->fd != STDOUT_FILENO)
		close(o->fd);
	o->fd = -1;
	if (o->created)
		(void)unlink(o->path);
	o->created = false;
}

int lab_outdir_prepare(const char *dir, char *err, size_t len)
{
	char probe[4096];
	struct stat st;
	int fd;

	if (!dir[0]) {
		snprintf(err, len, "an empty path");
		return -EINVAL;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		int e = errno;

		snprintf(err, len, "cannot create the directory: %s", strerror(e));
		return -e;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "not a directory");
		return -ENOTDIR;
	}
	if (snprintf(probe, sizeof(probe), "%s/.shrinklab-probe-XXXXXX", dir) >= (int)sizeof(probe)) {
		snprintf(err, len, "path too long");
		return -ENAMETOOLONG;
	}
	fd = mkstemp(probe);
	if (fd < 0) {
		int e = errno;

		snprintf(err, len, "cannot write in it: %s", strerror(e));
		return -e;
	}
	close(fd);
	unlink(probe);
	return 0;
}
