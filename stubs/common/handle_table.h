/*
 * Never-reused handles. What the stub hands out for a tensor, array, scalar, list, executor, stream, event
 * or context is a token, not the object's address: a 64-bit serial that is never issued twice, placed in
 * a range no mapping can occupy. A handle destroyed once therefore stays invalid forever, whatever the
 * allocator does with the memory behind it, and a token is never dereferenced: it is looked up.
 *
 * Lookups return the object with the table read-locked (handle_acquire ... handle_release), so an object
 * cannot be freed by a concurrent destroy while a caller reads it; handle_remove takes the write lock, and
 * of two racing removals exactly one gets the object.
 */
#ifndef ACLNN_STUB_HANDLE_TABLE_H_
#define ACLNN_STUB_HANDLE_TABLE_H_

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One table per kind of object; the kind is part of every token, so a stream token is never a tensor. */
typedef enum {
    HANDLE_TENSOR = 1,
    HANDLE_SCALAR,
    HANDLE_INT_ARRAY,
    HANDLE_FLOAT_ARRAY,
    HANDLE_BOOL_ARRAY,
    HANDLE_TENSOR_LIST,
    HANDLE_SCALAR_LIST,
    HANDLE_EXECUTOR,
    HANDLE_STREAM,
    HANDLE_EVENT,
    HANDLE_CONTEXT,
    HANDLE_COMM, /* HCCL communicators (libhccl) */
    HANDLE_KIND_COUNT
} HandleKind;

typedef struct {
    uint64_t serial; /* 0: empty; HANDLE_DELETED: deleted */
    void *object;
} HandleSlot;

typedef struct {
    pthread_rwlock_t lock;
    HandleKind kind;
    HandleSlot *slots; /* open addressing on the serial */
    size_t capacity;   /* power of two, or 0 before the first insert */
    size_t count;
    size_t used; /* count + deleted slots */
} HandleTable;

#define HANDLE_TABLE_INIT(k) {PTHREAD_RWLOCK_INITIALIZER, (k), NULL, 0, 0, 0}

/* Register obj and return its new token (NULL when out of memory). */
void *handle_insert(HandleTable *table, void *obj);

/* The object behind a live token, with the table read-locked; NULL (and unlocked) for anything else.
 * Every non-NULL result must be paired with handle_release. */
void *handle_acquire(HandleTable *table, const void *token);
void handle_release(HandleTable *table);

/* true when token is live now (no object access: the answer may be stale by the time it is used). */
bool handle_is_live(HandleTable *table, const void *token);

/* Unregister token and return its object for the caller to free; NULL when the token is not live. */
void *handle_remove(HandleTable *table, const void *token);

size_t handle_count(HandleTable *table);

/* Call fn(object, ctx) for every live object, under the read lock (introspection and leak reports). */
void handle_for_each(HandleTable *table, void (*fn)(const void *token, void *object, void *ctx), void *ctx);

/* In a child after fork(): the lock may have been held by a thread that no longer exists. */
void handle_table_reset_after_fork(HandleTable *table);

#endif /* ACLNN_STUB_HANDLE_TABLE_H_ */
