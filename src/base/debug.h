/* SPDX-License-Identifier: MIT */
/*
 * Internal assertions, debug-build switches and container_of, usable from
 * every layer (includes nothing of the library).
 *
 * SHR_BUG()/SHR_BUG_ON() report a broken internal invariant and abort, in
 * every build (the kernel's BUG()). SHR_MISUSE() reports a misuse of the
 * public API by the caller that the function cannot refuse with an error
 * code. SHR_DEBUG_CHECKS is 1 in builds
 * configured with -Ddebug_checks=true (the ASan, TSan and fuzz builds of
 * `make check`): checks too costly or too strict for production (misuse
 * detection, lock ranks, race-window widening) compile only there.
 */
#ifndef SHR_DEBUG_H
#define SHR_DEBUG_H

#include <stdarg.h>
#include <stddef.h>
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

/*
 * shr_misuse_report() - one line on stderr, "libshrinker: API misuse: ...";
 * then abort() in debug builds. In other builds it returns, and the caller
 * refuses the call (does nothing), which is all it can still do safely.
 * Use SHR_MISUSE(fmt, ...): the message names the public function.
 */
static inline void shr_misuse_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void shr_misuse_report(const char *fmt, ...)
{
	va_list ap;

	fputs("libshrinker: API misuse: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	if (SHR_DEBUG_CHECKS)
		abort();
}
#define SHR_MISUSE(...) shr_misuse_report(__VA_ARGS__)

/* The structure of type @type whose member @member is at @ptr. */
#define shr_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif /* SHR_DEBUG_H */
