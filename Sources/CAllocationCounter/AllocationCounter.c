// SPDX-License-Identifier: Apache-2.0
// Counts heap allocations per thread by defining the allocator entry points in the
// executable that links this target; the dynamic linker then resolves every library's
// malloc to these. Each forwards to glibc's own implementation (__libc_*), so behaviour is
// unchanged apart from the counting. The counters are thread-local so a test can measure
// the work of one thread while others (test runner, Dispatch) allocate freely.
#include "CAllocationCounter.h"
#include <errno.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VE_SANITIZED 1
#endif
#endif

#ifdef VE_SANITIZED
// A sanitizer replaces the allocator itself (and calls calloc from its own start-up through
// dlsym, before a replacement here could forward anywhere): counting is off in those builds.
int64_t ve_thread_allocation_count(void) { return 0; }
int64_t ve_thread_free_count(void) { return 0; }
int ve_allocation_counting_available(void) { return 0; }
#else
int ve_allocation_counting_available(void) { return 1; }

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);

static __thread int64_t allocations __attribute__((tls_model("initial-exec")));
static __thread int64_t frees __attribute__((tls_model("initial-exec")));

int64_t ve_thread_allocation_count(void) { return allocations; }
int64_t ve_thread_free_count(void) { return frees; }

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) frees++;
    __libc_free(pointer);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    allocations++;
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    allocations++;
    return __libc_valloc(size);
}
#endif
