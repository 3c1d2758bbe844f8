/* SPDX-License-Identifier: MIT */
/*
 * The designs' table and the design's part of host create/destroy
 * (designs.c), for the host (src/host/host.c), which picks its row. The
 * row's type is the core's (struct shr_design_row, shrinker_info.h): the
 * core reads the chosen row through host->design and never the table.
 */
#ifndef SHR_DESIGNS_H
#define SHR_DESIGNS_H

#include <shrinker/host.h>

#include "shrinker_info.h"

/* The designs' table, indexed by enum shr_design. */
extern const struct shr_design_row shr_designs[SHR_NR_DESIGNS];

/*
 * Host create/destroy part of the host's design: the unit cache when the
 * row has units, then ops->host_init / ops->host_exit.
 * Context: host create/destroy, single-threaded.
 * Return: (init) 0 or -ENOMEM, nothing left allocated.
 */
int shr_design_host_init(struct shr_host *host);
void shr_design_host_exit(struct shr_host *host);

#endif /* SHR_DESIGNS_H */
