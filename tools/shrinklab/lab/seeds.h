/* SPDX-License-Identifier: MIT */
/*
 * The seeds' published figures (seeds.c says the file's format), and
 * whether a row of ours was measured at a figure's geometry.
 */
#ifndef SHRINKLAB_SEEDS_H
#define SHRINKLAB_SEEDS_H

#include <stdbool.h>
#include <stddef.h>

#include "types.h"

struct lab_seeds {
	struct lab_seed_figure *v;
	size_t n;
};
/* Load @path (NULL = the default data file): 0; -errno when it cannot be opened
 * or read (a directory); -EINVAL for a bad or overlong line or no figure at all. */
int lab_seeds_load(struct lab_seeds *s, const char *path, char *err, size_t errlen);
const char *lab_seeds_default_path(void);
const struct lab_seed_figure *lab_seeds_find(const struct lab_seeds *s, const char *exp,
					     const char *design, const char *metric);
void lab_seeds_free(struct lab_seeds *s);
/* Attach each row's seed figure and decide whether it is comparable. */
void lab_seeds_attach(const struct lab_seeds *s, struct lab_run *run);
/* Is @s at @g in every key of @mask? @why says where it differs, or which
 * keys the seed leaves unknown (then it counts as a match). */
bool lab_seed_geometry_matches(const struct lab_scale *s, unsigned int mask,
			       const struct lab_seed_geometry *g, char *why, size_t len);
/* Thread @id of threads.tsv (beside the seeds' figures): its subject,
 * author and date as people cite it, "[PATCH v9 00/17] Improve ... (Kirill
 * Tkhai, 2018-07-09)". False when there is no such file or line. */
bool lab_thread_describe(const char *id, char *buf, size_t len);
/* "mounts=20000 units=314 cgroups=2000 nodes=1 cpus=4". */
void lab_seed_geometry_format(const struct lab_seed_geometry *g, char *buf, size_t len);

#endif /* SHRINKLAB_SEEDS_H */
