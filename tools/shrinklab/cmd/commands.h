/* SPDX-License-Identifier: MIT */
/*
 * The subcommands main.c dispatches to, one file each under cmd/: each has
 * the signature of main() (argv[0] is the subcommand's name) and returns
 * the exit code (conventions.h).
 */
#ifndef SHRINKLAB_COMMANDS_H
#define SHRINKLAB_COMMANDS_H

int shrinklab_reproduce(int argc, char **argv);
int shrinklab_run(int argc, char **argv);
int shrinklab_compare(int argc, char **argv);
int shrinklab_sweep(int argc, char **argv);
int shrinklab_slabinfo(int argc, char **argv);
int shrinklab_kernel(int argc, char **argv);
int shrinklab_containers(int argc, char **argv);
int shrinklab_experiments(int argc, char **argv);
int shrinklab_judge(int argc, char **argv);

#endif /* SHRINKLAB_COMMANDS_H */
