/* SPDX-License-Identifier: MIT */
/*
 * The tool's identity, for every report's first line and the JSON: meson's
 * project version, the git revision the tool was built from, and the
 * command line it is running.
 */
#ifndef SHRINKLAB_VERSION_H
#define SHRINKLAB_VERSION_H

#include <stdio.h>

/* "0.1.0" (meson's project version) and the git revision the tool was built
 * from ("7a8cefc1a2b3-dirty"), or "" when it was not built from git. */
const char *shrinklab_version(void);
const char *shrinklab_git_revision(void);
/* "shrinklab 0.1.0 (git 7a8cefc1a2b3)\n". */
void shrinklab_print_version(FILE *out);
/* The whole command line, as main() got it (for the JSON). */
void shrinklab_set_command(int argc, char **argv);
int shrinklab_command(char ***argv);

#endif /* SHRINKLAB_VERSION_H */
