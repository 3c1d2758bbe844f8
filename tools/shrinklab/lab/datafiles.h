/* SPDX-License-Identifier: MIT */
/*
 * The lab's data files (data/ in the source tree, <datadir>/libshrinker/
 * installed): where one is.
 */
#ifndef SHRINKLAB_DATAFILES_H
#define SHRINKLAB_DATAFILES_H

#include <stddef.h>

/*
 * The path of data file @name in @buf: beside an installed binary first;
 * else the source tree this binary was built from (the build-tree binary);
 * else the configured install path (which an error opening it then names).
 * Return: @buf.
 */
const char *lab_data_path(const char *name, char *buf, size_t len);

#endif /* SHRINKLAB_DATAFILES_H */
