#include "meta_vector.h"

#include <stdlib.h>
#include <string.h>

void *meta_vector_create(MetaVectorKind *kind, const char *fn, const void *value, uint64_t size) {
    if (value == NULL && size > 0) {
        aclStubSetErrMsg("%s: argument 'value' is NULL but 'size' is %llu", fn, (unsigned long long)size);
        return NULL;
    }
    if (size > META_VECTOR_MAX_SIZE) {
        aclStubSetErrMsg("%s: argument 'size' (%llu) is above the limit of %llu elements", fn,
                         (unsigned long long)size, (unsigned long long)META_VECTOR_MAX_SIZE);
        return NULL;
    }
    size_t bytes = (size_t)size * kind->elem_size; /* no overflow: size <= 2^40, elem_size <= 8 */
    MetaVector *v = malloc(sizeof *v + bytes);
    if (v == NULL) {
        aclStubSetErrMsg("%s: out of host memory for %llu elements", fn, (unsigned long long)size);
        return NULL;
    }
    v->size = size;
    if (bytes) memcpy(v->elems, value, bytes);
    void *token = handle_insert(&kind->table, v);
    if (token == NULL) {
        free(v);
        aclStubSetErrMsg("%s: out of host memory", fn);
    }
    return token;
}

MetaVector *meta_vector_take(MetaVectorKind *kind, const char *fn, const void *token) {
    MetaVector *v = handle_remove(&kind->table, token);
    if (v == NULL)
        aclStubSetErrMsg("%s: argument 'array' (%p) is not a live %s (never created or already destroyed)", fn,
                         token, kind->type_name);
    return v;
}

aclnnStatus meta_vector_get_size(MetaVectorKind *kind, const char *fn, const char *arg, const void *token,
                                 uint64_t *size) {
    if (token == NULL || size == NULL) {
        aclStubSetErrMsg("%s: argument '%s' is NULL", fn, token == NULL ? arg : "size");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    MetaVector *v = handle_acquire(&kind->table, token);
    if (v == NULL) {
        aclStubSetErrMsg("%s: argument '%s' (%p) is not a live %s", fn, arg, token, kind->type_name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    *size = v->size;
    handle_release(&kind->table);
    return OK;
}

bool meta_vector_copy(MetaVectorKind *kind, const void *token, void *out, uint64_t capacity, uint64_t *size) {
    MetaVector *v = handle_acquire(&kind->table, token);
    if (v == NULL) return false;
    uint64_t n = capacity < v->size ? capacity : v->size;
    if (n && kind->copy_out)
        kind->copy_out(out, v->elems, n);
    else if (n)
        memcpy(out, v->elems, (size_t)n * kind->elem_size);
    if (size) *size = v->size;
    handle_release(&kind->table);
    return true;
}

uint64_t meta_vector_count(MetaVectorKind *kind) { return handle_count(&kind->table); }

/* Registered from constructors (single-threaded, at load time), read by the fork handlers. */
#define MAX_KINDS 8
static MetaVectorKind *registered[MAX_KINDS];
static size_t num_registered;

static void lock_all(void) {
    for (size_t i = 0; i < num_registered; i++) pthread_rwlock_wrlock(&registered[i]->table.lock);
}

static void unlock_all(void) {
    for (size_t i = num_registered; i-- > 0;) pthread_rwlock_unlock(&registered[i]->table.lock);
}

static void reset_all(void) {
    for (size_t i = 0; i < num_registered; i++) handle_table_reset_after_fork(&registered[i]->table);
}

void meta_vector_register_fork_safety(MetaVectorKind *kind) {
    if (num_registered == 0) pthread_atfork(lock_all, unlock_all, reset_all);
    if (num_registered < MAX_KINDS) registered[num_registered++] = kind;
}
