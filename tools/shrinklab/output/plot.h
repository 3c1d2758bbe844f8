/* SPDX-License-Identifier: MIT */
/*
 * Plots: gnuplot scripts with their data inline, run without a shell.
 */
#ifndef SHRINKLAB_PLOT_H
#define SHRINKLAB_PLOT_H

#include <stddef.h>

#include "types.h"

/* The gnuplot to run: $SHRINKLAB_GNUPLOT or "gnuplot" on the PATH. NULL
 * when it cannot be found (@why says what was looked for). */
const char *lab_gnuplot_find(char *buf, size_t len, char *why, size_t whylen);
/* Run gnuplot on @script inside @dir; 0 or -1 with @err set. */
int lab_gnuplot_run(const char *gnuplot, const char *dir, const char *script, char *err,
		    size_t errlen);
/* Write DIR/<id>.gp (data inline) and render DIR/<id>.png. 0 or -1. */
int lab_plot_run(const char *gnuplot, const char *dir, const struct lab_run *run,
		 const struct lab_options *opt, char *err, size_t errlen);
/* Line style of a design in every plot: colour, point and dash types. */
void lab_plot_style(const char *design, char *buf, size_t len);

#endif /* SHRINKLAB_PLOT_H */
