/* SPDX-License-Identifier: MIT */
/* The differential fuzz target's entry point, shared by libFuzzer and replay. */
#ifndef SHR_FUZZ_OPS_H
#define SHR_FUZZ_OPS_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* SHR_FUZZ_OPS_H */
