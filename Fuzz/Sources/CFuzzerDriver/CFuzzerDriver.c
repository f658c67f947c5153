// SPDX-License-Identifier: Apache-2.0
// Header-only: LLVMFuzzerRunDriver lives in libclang_rt.fuzzer_no_main, linked by scripts/fuzz.
#include "CFuzzerDriver.h"
