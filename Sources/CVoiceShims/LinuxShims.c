// Linux calls Swift cannot reach through the Glibc module: eventfd (its header is not in the
// module) and pthread_clockjoin_np (a GNU extension, declared only under _GNU_SOURCE).
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <time.h>
#include "CVoiceShims.h"

int ve_eventfd_open(void) {
    int descriptor = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return descriptor < 0 ? -errno : descriptor;
}

int ve_thread_join_within(pthread_t thread, int64_t timeoutNanoseconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    // Bounded to a day so the sum cannot overflow whatever the caller passed.
    int64_t timeout = timeoutNanoseconds < 0 ? 0 : (timeoutNanoseconds > 86400000000000LL ? 86400000000000LL : timeoutNanoseconds);
    int64_t nanoseconds = (int64_t)deadline.tv_nsec + timeout;
    deadline.tv_sec += (time_t)(nanoseconds / 1000000000);
    deadline.tv_nsec = (long)(nanoseconds % 1000000000);
    return -pthread_clockjoin_np(thread, NULL, CLOCK_MONOTONIC, &deadline);
}
