/* SPDX-License-Identifier: MIT */
/*
 * shrinklab: dispatch to a subcommand; --version, --help and
 * "help SUBCOMMAND" at the top level.
 *
 * Before anything else, the standard streams are made safe to write:
 * SIGPIPE is ignored, so that a reader of standard output that goes away
 * is an EPIPE the run reports (exit 1, the files it created removed), not
 * a silent death by signal with an empty file left behind; and a closed
 * descriptor 0, 1 or 2 is held by /dev/null opened read-only, so that no
 * output file opened later takes its number (every write to it then fails
 * with EBADF, which the run reports as it would a full disk).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <shrinker/rcu.h>

#include "commands.h"
#include "conventions.h"
#include "version.h"

struct subcommand {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct subcommand subcommands[] = {
	{ "reproduce", "every seed experiment, every design, side by side with the seeds",
	  shrinklab_reproduce },
	{ "run", "one experiment (or a custom scale) with one design", shrinklab_run },
	{ "compare", "designs side by side at a geometry you give, with the decision table",
	  shrinklab_compare },
	{ "sweep", "CSV and PNG plots of how the figures grow with scale", shrinklab_sweep },
	{ "slabinfo", "the cache, order, objects per slab and waste SLUB picks per size",
	  shrinklab_slabinfo },
	{ "kernel", "the kernel lab's guest experiments, in the model, at the guest's geometry",
	  shrinklab_kernel },
	{ "containers", "the kernel lab's container workload, in the model, at the guest's geometry",
	  shrinklab_containers },
	{ "experiments", "the experiments (ids, titles, designs, metrics), as text or JSON",
	  shrinklab_experiments },
	{ "judge", "the kernel lab's tables, kernel beside model, from both worlds' documents",
	  shrinklab_judge },
};
#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: shrinklab [--version] [--help] <subcommand> [options]\n"
		     "       shrinklab help <subcommand>\n\nsubcommands:\n");
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		fprintf(out, "  %-11s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'shrinklab <subcommand> --help' (or 'shrinklab help <subcommand>')\n"
		     "describes each one; man shrinklab has the details.\n");
	shrinklab_print_exit_codes(out);
}

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < NR_SUBCOMMANDS; i++)
		if (!strcmp(name, subcommands[i].name))
			return &subcommands[i];
	return NULL;
}

static int dispatch(const struct subcommand *sc, int argc, char **argv)
{
	int ret;

	shr_thread_register();
	ret = sc->run(argc, argv);
	shr_thread_unregister();
	/* The tables are an output too: a full disk or /dev/full must not
	 * pass for success. */
	errno = 0;
	if ((fflush(stdout) || ferror(stdout)) && ret == SHRINKLAB_EXIT_OK) {
		shrinklab_error(sc->name, "standard output could not be written: %s",
				strerror(errno ? errno : EIO));
		ret = SHRINKLAB_EXIT_FAILED;
	}
	return ret;
}

/* The header comment's two precautions; 0, or -errno when a closed
 * standard descriptor cannot be held. */
static int standard_streams_safe(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int held;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		held = open("/dev/null", O_RDONLY);
		if (held != fd) {
			if (held >= 0)
				close(held);
			return -EBADF;
		}
	}
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, SHRINKLAB_OPT_HELP },
		{ "version", no_argument, NULL, SHRINKLAB_OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	char shown[SHRINKLAB_SHOWN_LEN], shown2[SHRINKLAB_SHOWN_LEN];
	struct shrinklab_getopt g;
	const struct subcommand *sc;
	int c;

	if (standard_streams_safe()) {
		shrinklab_error(NULL, "cannot hold a closed standard stream: %s", strerror(EBADF));
		return SHRINKLAB_EXIT_FAILED;
	}
	shrinklab_set_command(argc, argv);
	/* "+": options end at the subcommand, whose own options follow it. */
	shrinklab_getopt_init(&g, NULL, "+:h", longopts, NULL, usage);
	c = shrinklab_getopt_next(&g, argc, argv);
	if (c != SHRINKLAB_GETOPT_DONE)
		return shrinklab_getopt_status(c);
	if (optind >= argc) {
		shrinklab_error(NULL, "no subcommand (see 'shrinklab --help')");
		return SHRINKLAB_EXIT_USAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		char help[] = "--help";
		char *args[3] = { NULL, help, NULL };

		if (optind + 1 >= argc) {
			usage(stdout);
			return SHRINKLAB_EXIT_OK;
		}
		if (optind + 2 < argc) {
			shrinklab_error("help", "one subcommand at a time, got '%s' after '%s'",
					shrinklab_shown(argv[optind + 2], shown, sizeof(shown)),
					shrinklab_shown(argv[optind + 1], shown2, sizeof(shown2)));
			return SHRINKLAB_EXIT_USAGE;
		}
		sc = find(argv[optind + 1]);
		if (!sc) {
			shrinklab_error("help", "unknown subcommand '%s' (see 'shrinklab --help')",
					shrinklab_shown(argv[optind + 1], shown, sizeof(shown)));
			return SHRINKLAB_EXIT_USAGE;
		}
		args[0] = argv[optind + 1];
		return dispatch(sc, 2, args);
	}
	sc = find(argv[optind]);
	if (!sc) {
		shrinklab_error(NULL, "unknown subcommand '%s' (see 'shrinklab --help')",
				shrinklab_shown(argv[optind], shown, sizeof(shown)));
		return SHRINKLAB_EXIT_USAGE;
	}
	return dispatch(sc, argc - optind, argv + optind);
}
