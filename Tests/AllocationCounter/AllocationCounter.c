#include "AllocationCounter.h"

#include <errno.h>
#include <stddef.h>

// glibc's own entry points, which its malloc, free, ... are aliases of.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static _Thread_local int counting;
static _Thread_local long allocations;

void allocation_counter_start(void) {
    allocations = 0;
    counting = 1;
}

long allocation_counter_stop(void) {
    counting = 0;
    return allocations;
}

static inline void note(void) {
    if (counting) allocations += 1;
}

void *malloc(size_t size) {
    note();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) { __libc_free(pointer); }

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    note();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}
