/* SPDX-License-Identifier: MIT */
/*
 * libshrinker: conventions shared by every public header.
 *
 * Errors are returned as 0 or a negative errno; allocators return NULL.
 * Every public symbol starts with shr_ (macros SHR_), followed where one
 * exists by the Linux kernel's own name for the same thing. Every function
 * declared in a public header carries SHR_API, and every public header
 * compiles on its own as C11 and as C++ (extern "C").
 */
#ifndef SHRINKER_COMMON_H
#define SHRINKER_COMMON_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHR_MUST_CHECK __attribute__((warn_unused_result))

/*
 * SHR_API marks the functions of the public API, the only symbols the
 * shared library exports: the library is compiled with -fvisibility=hidden,
 * and its version script (src/libshrinker.map) gives them the version
 * LIBSHRINKER_1 (docs/design/ABI.md).
 */
#define SHR_API __attribute__((visibility("default")))

/* Logical page geometry of the modelled kernel (x86-64). */
#define SHR_PAGE_SHIFT 12
#define SHR_PAGE_SIZE (1UL << SHR_PAGE_SHIFT)

/* Upper bound on logical NUMA nodes of one host. */
#define SHR_MAX_NUMNODES 64
/* "Any node": let the allocator choose (it picks node 0). */
#define SHR_NUMA_NO_NODE (-1)

/*
 * Allocation flags, the userspace subset of gfp_t that the library needs.
 * SHR_GFP_KERNEL: may block. SHR_GFP_ZERO: return zeroed memory.
 * SHR_GFP_NOWAIT: must not block (the fault injector can fail these alone).
 */
typedef unsigned int shr_gfp_t;
#define SHR_GFP_KERNEL 0u
#define SHR_GFP_ZERO (1u << 0)
#define SHR_GFP_NOWAIT (1u << 1)

#ifdef __cplusplus
}
#endif

#endif /* SHRINKER_COMMON_H */
