/* SPDX-License-Identifier: MIT */
/*
 * The tool's identity (version.h): the version and git revision come from
 * the build (shrinklab_version.h, made by meson's vcs_tag at every build),
 * the command line from main().
 */
#include "shrinklab_version.h"
#include "version.h"

#ifndef SHRINKLAB_VERSION
#define SHRINKLAB_VERSION "unknown"
#endif

static int command_argc;
static char **command_argv;

void shrinklab_set_command(int argc, char **argv)
{
	command_argc = argc;
	command_argv = argv;
}

int shrinklab_command(char ***argv)
{
	*argv = command_argv;
	return command_argc;
}

const char *shrinklab_version(void)
{
	return SHRINKLAB_VERSION;
}

const char *shrinklab_git_revision(void)
{
	return SHRINKLAB_GIT_REVISION;
}

void shrinklab_print_version(FILE *out)
{
	if (shrinklab_git_revision()[0])
		fprintf(out, "shrinklab %s (git %s)\n", shrinklab_version(), shrinklab_git_revision());
	else
		fprintf(out, "shrinklab %s\n", shrinklab_version());
}
