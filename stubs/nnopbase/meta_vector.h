/*
 * The one implementation behind aclFloatArray, aclBoolArray, aclTensorList and aclScalarList: an immutable
 * vector of fixed-size elements, copied at creation, registered under a never-reused handle token of its own
 * kind. The four public types differ only in their element type and in what a list does with its elements
 * (arrays.c, lists.c).
 */
#ifndef ACLNN_STUB_META_VECTOR_H_
#define ACLNN_STUB_META_VECTOR_H_

#include "handle_table.h"
#include "stub_internal.h"

typedef struct {
    HandleTable table;
    const char *type_name; /* "aclFloatArray", for messages */
    size_t elem_size;
    /* How meta_vector_copy hands out n stored elements; NULL: as stored (memcpy). */
    void (*copy_out)(void *out, const unsigned char *elems, uint64_t n);
} MetaVectorKind;

#define META_VECTOR_KIND(kind, name, elem_type, copy_out) \
    {HANDLE_TABLE_INIT(kind), (name), sizeof(elem_type), (copy_out)}

/* Largest element count accepted, the same bound as aclCreateIntArray's. */
#define META_VECTOR_MAX_SIZE ((uint64_t)1 << 40)

typedef struct {
    uint64_t size;
    _Alignas(max_align_t) unsigned char elems[];
} MetaVector;

/*
 * Validate (fn names the caller in messages; value NULL only with size 0), copy size elements of value and
 * register the copy. Returns its token, or NULL with the error message set.
 */
void *meta_vector_create(MetaVectorKind *kind, const char *fn, const void *value, uint64_t size);

/* Unregister a live token and hand its vector to the caller, who frees it with free(). NULL, with the error
 * message set, for anything else (NULL included: callers treat NULL as a no-op before calling). */
MetaVector *meta_vector_take(MetaVectorKind *kind, const char *fn, const void *token);

/* aclGetXxxSize (arg: the parameter's name): ACLNN_ERR_PARAM_NULLPTR for a NULL argument,
 * ACLNN_ERR_PARAM_INVALID for a dead token. */
aclnnStatus meta_vector_get_size(MetaVectorKind *kind, const char *fn, const char *arg, const void *token,
                                 uint64_t *size);

/* Copy min(capacity, size) elements into out and the element count into *size; false for a dead token. */
bool meta_vector_copy(MetaVectorKind *kind, const void *token, void *out, uint64_t capacity, uint64_t *size);

uint64_t meta_vector_count(MetaVectorKind *kind);

/* Keep kinds consistent across fork(): every table is write-locked while the process forks. */
void meta_vector_register_fork_safety(MetaVectorKind *kind);

#endif /* ACLNN_STUB_META_VECTOR_H_ */
