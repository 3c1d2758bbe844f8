/* SPDX-License-Identifier: MIT */
/*
 * shrinklab outputs, checked before anything is measured: a file is opened
 * for writing (created when missing, not truncated) at the start and written
 * at the end, so an unwritable path fails in a millisecond rather than after
 * minutes of measuring; a run that fails removes a file it created. An
 * output directory is created when missing (its parent must exist) and
 * proven writable by creating and removing a file in it.
 *
 * That a path opens for writing proves little: /dev/full and /proc/version
 * open, then refuse every write; a /proc/sys file takes a write and keeps
 * nothing of it. So every output also passes, up front, the probe its kind
 * allows without leaving a byte behind:
 *  - a block device is refused before it is opened;
 *  - a regular file on a filesystem that stores nothing written to it
 *    (procfs, sysfs, cgroupfs, debugfs, tracefs, ...: writing there talks to
 *    the kernel, and even a probe byte could change a setting) is refused
 *    without a write;
 *  - everything else gets a write(2) of zero bytes, which Linux hands to
 *    the file's own write method (vfs_write() calls it for a zero count
 *    too, and /dev/full answers ENOSPC) while no byte reaches a reader of
 *    /dev/stdout or a pipe (stdio's fwrite of nothing and fflush never call
 *    write(2), so they prove nothing);
 *  - a file we have just created also takes one byte, its size must then
 *    be 1, and it is truncated back to empty: the filesystem stores what is
 *    written and has room for it (an existing file keeps its contents until
 *    the end: a failed run must not lose them).
 * Standard output ("-") gets the probes of what it is. What passes can
 * still fail at the end (a disk that fills while measuring, a file size
 * limit, a reader that goes away): exit 1, and a file we created is removed.
 *
 * A set of outputs (struct lab_outputs: --json, --csv, --markdown) adds
 * what only the set can check: at most one of them on standard output, no
 * two of them the same file (by device and inode, so a second spelling or
 * a link is caught too), and a file we created stays only once every
 * output and standard output took all they were given (lab_outputs_finish():
 * a run whose tables could not be written is a failed run, and then no
 * output is written at all, so an existing file keeps its contents).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "outputs.h"

struct pseudo_fs {
	unsigned long magic;
	const char *name;
};

/* Filesystems whose files are the kernel's interfaces, not storage. */
static const struct pseudo_fs pseudo_filesystems[] = {
	{ PROC_SUPER_MAGIC, "procfs" },
	{ SYSFS_MAGIC, "sysfs" },
	{ CGROUP_SUPER_MAGIC, "cgroupfs" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ DEBUGFS_MAGIC, "debugfs" },
	{ TRACEFS_MAGIC, "tracefs" },
	{ SECURITYFS_MAGIC, "securityfs" },
	{ SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" },
	{ BPF_FS_MAGIC, "bpffs" },
	{ EFIVARFS_MAGIC, "efivarfs" },
	{ PSTOREFS_MAGIC, "pstore" },
	{ BINFMTFS_MAGIC, "binfmt_misc" },
	{ HUGETLBFS_MAGIC, "hugetlbfs" },
	{ NSFS_MAGIC, "nsfs" },
};

static const char *pseudo_fs_of(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return NULL;
	for (size_t i = 0; i < sizeof(pseudo_filesystems) / sizeof(pseudo_filesystems[0]); i++)
		if ((unsigned long)sfs.f_type == pseudo_filesystems[i].magic)
			return pseudo_filesystems[i].name;
	return NULL;
}

static int probe_failed(char *err, size_t len, const char *what, int e)
{
	snprintf(err, len, "%s: %s", what, strerror(e));
	return -e;
}

/* The probes of the header comment, on @fd (open for writing). */
static int probe_writable(int fd, bool created, char *err, size_t len)
{
	const char *pseudo;
	struct stat st;

	if (fstat(fd, &st))
		return probe_failed(err, len, "cannot stat", errno);
	if (S_ISBLK(st.st_mode)) {
		snprintf(err, len, "a block device: shrinklab writes no raw devices");
		return -EINVAL;
	}
	pseudo = S_ISREG(st.st_mode) ? pseudo_fs_of(fd) : NULL;
	if (pseudo) {
		snprintf(err, len, "a file of %s, which keeps nothing written to it", pseudo);
		return -EINVAL;
	}
	if (write(fd, "", 0) < 0)
		return probe_failed(err, len, "cannot write", errno);
	if (!created)
		return 0;
	errno = 0;
	if (pwrite(fd, "\n", 1, 0) != 1)
		return probe_failed(err, len, "cannot write", errno ? errno : EIO);
	if (fstat(fd, &st))
		return probe_failed(err, len, "cannot stat", errno);
	if (st.st_size != 1) {
		snprintf(err, len, "a byte written does not stay (size %lld)", (long long)st.st_size);
		return -EIO;
	}
	if (ftruncate(fd, 0))
		return probe_failed(err, len, "cannot truncate", errno);
	return 0;
}

static int clear_nonblock(int fd, char *err, size_t len)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		return probe_failed(err, len, "cannot set blocking writes", errno);
	return 0;
}

int lab_output_open(struct lab_output *o, const char *path, char *err, size_t len)
{
	struct stat st;
	int ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->path = path;
	if (!path)
		return 0;
	if (!strcmp(path, "-")) {
		o->fd = STDOUT_FILENO;
		ret = probe_writable(o->fd, false, err, len);
		if (ret)
			o->fd = -1;
		return ret;
	}
	if (!path[0]) {
		snprintf(err, len, "an empty path");
		return -EINVAL;
	}
	/* Before open(): opening some devices already does something. */
	if (!stat(path, &st) && S_ISBLK(st.st_mode)) {
		snprintf(err, len, "a block device: shrinklab writes no raw devices");
		return -EINVAL;
	}
	/* O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of
	 * blocking the check for ever; the flag is cleared once open. */
	o->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK, 0666);
	if (o->fd >= 0)
		o->created = true;
	else if (errno == EEXIST)
		o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (o->fd < 0 && errno == ENXIO) {
		snprintf(err, len, "a FIFO with no reader (start its reader first)");
		return -ENXIO;
	}
	if (o->fd < 0)
		return probe_failed(err, len, "cannot write", errno);
	ret = clear_nonblock(o->fd, err, len);
	if (!ret)
		ret = probe_writable(o->fd, o->created, err, len);
	if (ret)
		lab_output_abandon(o);
	return ret;
}

/* Truncate (a regular file) and hand out the stream; NULL on failure. */
static FILE *output_begin(struct lab_output *o)
{
	FILE *f;

	struct stat st;

	if (o->fd == STDOUT_FILENO)
		return stdout;
	/* Only a regular file has contents to replace (a device or a pipe
	 * takes no ftruncate()). */
	if (o->fd < 0 || fstat(o->fd, &st) || (S_ISREG(st.st_mode) && ftruncate(o->fd, 0)))
		return NULL;
	f = fdopen(o->fd, "w");
	if (f)
		o->fd = -1; /* the FILE owns it now */
	return f;
}

/* Flush and close the stream: 0 or -errno. A file we created stays marked
 * so until the set is committed: lab_output_abandon() still removes it. */
static int output_end(FILE *f)
{
	int ret = 0;

	if (f == stdout)
		return fflush(stdout) || ferror(stdout) ? -(errno ? errno : EIO) : 0;
	errno = 0;
	if (fflush(f) || ferror(f))
		ret = -(errno ? errno : EIO);
	if (fclose(f) && !ret)
		ret = -errno;
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

const char *const lab_out_option[LAB_NR_OUTS] = { "--json", "--csv", "--markdown" };

/* Two outputs that are one file: the second would overwrite the first. A
 * character device (/dev/null, a terminal) takes them one after the other. */
static int same_file(const struct lab_output *a, const struct lab_output *b)
{
	struct stat sa, sb;

	if (a->fd < 0 || b->fd < 0 || fstat(a->fd, &sa) || fstat(b->fd, &sb))
		return 0;
	return !S_ISCHR(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int lab_outputs_open(struct lab_outputs *s, const char *const path[LAB_NR_OUTS], char *err,
		     size_t len)
{
	char why[256];
	int dash = -1, ret;

	memset(s, 0, sizeof(*s));
	for (int k = 0; k < LAB_NR_OUTS; k++)
		s->o[k].fd = -1;
	for (int k = 0; k < LAB_NR_OUTS; k++) {
		if (!path[k] || strcmp(path[k], "-"))
			continue;
		if (dash >= 0) {
			snprintf(err, len, "%s - and %s -: one output at most on standard output",
				 lab_out_option[dash], lab_out_option[k]);
			return -EINVAL;
		}
		dash = k;
	}
	for (int k = 0; k < LAB_NR_OUTS; k++) {
		ret = lab_output_open(&s->o[k], path[k], why, sizeof(why));
		if (ret) {
			snprintf(err, len, "%s '%.*s': %s", lab_out_option[k], LAB_PATH_SHOWN,
				 path[k], why);
			lab_outputs_abandon(s);
			return ret;
		}
		for (int j = 0; j < k; j++) {
			if (!same_file(&s->o[j], &s->o[k]))
				continue;
			snprintf(err, len, "%s '%.*s' and %s '%.*s' are the same file: give each "
				 "its own", lab_out_option[j], LAB_PATH_SHOWN, path[j],
				 lab_out_option[k], LAB_PATH_SHOWN, path[k]);
			lab_outputs_abandon(s);
			return -EINVAL;
		}
	}
	return 0;
}

bool lab_outputs_on_stdout(const struct lab_outputs *s)
{
	for (int k = 0; k < LAB_NR_OUTS; k++)
		if (s->o[k].fd == STDOUT_FILENO)
			return true;
	return false;
}

/* Write output @k (nothing when it was not asked for): 0 or -errno with
 * @err the message. */
static int outputs_write(struct lab_outputs *s, int k, lab_output_writer write_fn,
			 const void *arg, char *err, size_t len)
{
	struct lab_output *o = &s->o[k];
	FILE *f;
	int ret;

	if (!o->path)
		return 0;
	f = output_begin(o);
	ret = f ? write_fn(f, arg) : -(errno ? errno : EIO);
	if (f) {
		int end = output_end(f);

		ret = ret ? ret : end;
	}
	if (ret)
		snprintf(err, len, "%s '%.*s': writing failed: %s", lab_out_option[k],
			 LAB_PATH_SHOWN, o->path, strerror(-ret));
	return ret;
}

int lab_tables_written(FILE *tables, char *err, size_t len)
{
	int e;

	errno = 0;
	if (!fflush(tables) && !ferror(tables) && !fflush(stdout) && !ferror(stdout))
		return 0;
	e = errno ? errno : EIO;
	snprintf(err, len, "%s could not be written: %s",
		 tables == stderr ? "standard error" : "standard output", strerror(e));
	return -e;
}

int lab_outputs_finish(struct lab_outputs *s, FILE *tables,
		       const lab_output_writer writers[LAB_NR_OUTS], const void *arg, char *err,
		       size_t len)
{
	int ret = lab_tables_written(tables, err, len);

	for (int k = 0; k < LAB_NR_OUTS && !ret; k++)
		if (writers[k])
			ret = outputs_write(s, k, writers[k], arg, err, len);
	if (ret) {
		lab_outputs_abandon(s);
		return ret;
	}
	for (int k = 0; k < LAB_NR_OUTS; k++)
		s->o[k].created = false;
	return 0;
}

void lab_outputs_abandon(struct lab_outputs *s)
{
	for (int k = 0; k < LAB_NR_OUTS; k++)
		lab_output_abandon(&s->o[k]);
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
