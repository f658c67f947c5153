// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign,
/// valloc) made by the calling thread since it started. Test- and benchmark-only: linking
/// this target interposes the process's allocator.
int64_t ve_thread_allocation_count(void);

/// Frees made by the calling thread since it started.
int64_t ve_thread_free_count(void);

/// 1 when allocations are counted; 0 in sanitizer builds, where the sanitizer owns the
/// allocator and the counters stay at 0.
int ve_allocation_counting_available(void);
