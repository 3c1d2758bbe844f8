/* SPDX-License-Identifier: MIT */
/* Placeholder: implemented by the issue #2 work. */
typedef int shr_placeholder_slab;
