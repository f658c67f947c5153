#pragma once
// Benchmark-only: the same libopus / libsrtp calls the Swift API makes, made directly from C,
// so each benchmark row can print the Swift/C ratio measured in the same run.
#include <stdint.h>
