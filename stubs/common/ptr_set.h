/* A thread-safe set of live handles, so the stub can reject unknown or freed pointers without touching them. */
#ifndef ACLNN_STUB_PTR_SET_H_
#define ACLNN_STUB_PTR_SET_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    pthread_mutex_t lock;
    const void **slots; /* open addressing; NULL = empty, TOMBSTONE = deleted */
    size_t capacity;    /* power of two, or 0 before the first insert */
    size_t count;
    size_t used;        /* count + tombstones */
} PtrSet;

#define PTR_SET_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0}

bool ptr_set_insert(PtrSet *set, const void *ptr); /* false: out of memory */
bool ptr_set_remove(PtrSet *set, const void *ptr); /* false: was not in the set */
bool ptr_set_contains(PtrSet *set, const void *ptr);
size_t ptr_set_count(PtrSet *set);

#endif /* ACLNN_STUB_PTR_SET_H_ */
