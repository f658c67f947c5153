// SPDX-License-Identifier: Apache-2.0
#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own main (compiler-rt FuzzerDriver.cpp):
/// parses libFuzzer's flags from argv and runs `callback` on every input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
