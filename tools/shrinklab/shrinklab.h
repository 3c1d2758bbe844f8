/* SPDX-License-Identifier: MIT */
/*
 * shrinklab: the lab CLI. Each subcommand lives in its own file and has the
 * signature of main(); it prints its own --help and returns the exit code
 * (0 success, 1 failure at run time, 2 bad usage).
 */
#ifndef SHRINKLAB_H
#define SHRINKLAB_H

#define SHRINKLAB_EXIT_USAGE 2

int shrinklab_slabinfo(int argc, char **argv);
int shrinklab_reproduce(int argc, char **argv);
int shrinklab_run(int argc, char **argv);
int shrinklab_sweep(int argc, char **argv);

#endif /* SHRINKLAB_H */
