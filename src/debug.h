/* SPDX-License-Identifier: MIT */
/*
 * Internal assertions and debug-build switches, usable from every layer
 * (includes nothing of the library).
 *
 * SHR_BUG()/SHR_BUG_ON() report a broken internal invariant and abort, in
 * every build (the kernel's BUG()). SHR_DEBUG_CHECKS is 1 in builds
 * configured with -Ddebug_checks=true (the ASan, TSan and fuzz builds of
 * `make check`): checks too costly or too strict for production (misuse
 * detection, lock ranks, race-window widening) compile only there.
 */
#ifndef SHR_DEBUG_H
#define SHR_DEBUG_H

#include <stdio.h>
#include <stdlib.h>

#ifndef SHR_DEBUG_CHECKS
#define SHR_DEBUG_CHECKS 0
#endif

/* Report a broken internal invariant and abort (the kernel's BUG()). */
#define SHR_BUG(msg)                                                                    \
	do {                                                                            \
		fprintf(stderr, "libshrinker BUG at %s:%d: %s\n", __FILE__, __LINE__, msg); \
		abort();                                                                \
	} while (0)
#define SHR_BUG_ON(cond)                  \
	do {                              \
		if (cond)                 \
			SHR_BUG(#cond);   \
	} while (0)

#endif /* SHR_DEBUG_H */
