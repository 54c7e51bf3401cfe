#ifndef ALLOCATION_COUNTER_H
#define ALLOCATION_COUNTER_H

/// Counts the heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) the calling
/// thread makes between `allocation_counter_start` and `allocation_counter_stop`, which returns the
/// count. For tests that show a path allocates nothing: the test binary's own malloc family stands
/// in front of glibc's and forwards every call to it.
void allocation_counter_start(void);
long allocation_counter_stop(void);

#endif
