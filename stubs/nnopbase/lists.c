/*
 * aclTensorList and aclScalarList: a list holds the handles of its elements, as nnopbase does, and owns them:
 * destroying a list destroys its tensors or scalars (the caller must not destroy them again). A NULL element
 * stands for an absent entry and is allowed; any other element must be live when the list is created.
 */
#include <stdlib.h>
#include <string.h>

#include "meta_vector.h"

static MetaVectorKind tensor_lists = META_VECTOR_KIND(HANDLE_TENSOR_LIST, "aclTensorList", aclTensor *, NULL);
static MetaVectorKind scalar_lists = META_VECTOR_KIND(HANDLE_SCALAR_LIST, "aclScalarList", aclScalar *, NULL);

__attribute__((constructor)) static void register_list_kinds(void) {
    meta_vector_register_fork_safety(&tensor_lists);
    meta_vector_register_fork_safety(&scalar_lists);
}

/* How a list treats its elements, by element kind. */
typedef struct {
    MetaVectorKind *kind;
    const char *elem_type; /* "aclTensor" */
    bool (*is_live)(const void *elem);
    aclnnStatus (*destroy)(const void *elem);
} ListKind;

static bool tensor_is_live(const void *t) { return aclStubTensorIsLive(t); }
static bool scalar_is_live(const void *s) { return aclStubScalarIsLive(s); }
static aclnnStatus destroy_tensor(const void *t) { return aclDestroyTensor(t); }
static aclnnStatus destroy_scalar(const void *s) { return aclDestroyScalar(s); }

static const ListKind TENSOR_LIST = {&tensor_lists, "aclTensor", tensor_is_live, destroy_tensor};
static const ListKind SCALAR_LIST = {&scalar_lists, "aclScalar", scalar_is_live, destroy_scalar};

/* The i-th handle of an array of element handles (read bytewise: the array's type is the element's). */
static const void *handle_at(const void *handles, uint64_t i) {
    const void *h;
    memcpy(&h, (const unsigned char *)handles + i * sizeof h, sizeof h);
    return h;
}

static void *create_list(const ListKind *lk, const char *fn, const void *value, uint64_t size) {
    /* meta_vector_create rejects a NULL value with a size and an implausible size before any element is read. */
    if (value != NULL && size <= META_VECTOR_MAX_SIZE) {
        for (uint64_t i = 0; i < size; i++) {
            const void *elem = handle_at(value, i);
            if (elem != NULL && !lk->is_live(elem)) {
                aclStubSetErrMsg("%s: element %llu of argument 'value' (%p) is not a live %s (never created or "
                                 "already destroyed)", fn, (unsigned long long)i, elem, lk->elem_type);
                return NULL;
            }
        }
    }
    return meta_vector_create(lk->kind, fn, value, size);
}

/*
 * Destroy the list and every element it holds. An element that is no longer live (destroyed on its own,
 * listed twice, or in two destroyed lists: a double free on a device) is reported after the list and its
 * other elements are gone, so nothing leaks.
 */
static aclnnStatus destroy_list(const ListKind *lk, const char *fn, const void *list) {
    if (list == NULL) return OK;
    MetaVector *v = meta_vector_take(lk->kind, fn, list);
    if (v == NULL) return ACLNN_ERR_PARAM_INVALID;
    uint64_t dead = 0, first_dead = 0;
    for (uint64_t i = 0; i < v->size; i++) {
        const void *elem = handle_at(v->elems, i);
        if (elem != NULL && lk->destroy(elem) != OK && dead++ == 0) first_dead = i;
    }
    uint64_t size = v->size;
    free(v);
    if (dead) {
        aclStubSetErrMsg("%s: %llu of the %llu elements of argument 'array' were no longer live %s objects (first: "
                         "element %llu); a list owns its elements, which must not be destroyed separately, listed "
                         "twice or put in two lists that are both destroyed",
                         fn, (unsigned long long)dead, (unsigned long long)size, lk->elem_type,
                         (unsigned long long)first_dead);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return OK;
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
    return create_list(&TENSOR_LIST, "aclCreateTensorList", value, size);
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
    return create_list(&SCALAR_LIST, "aclCreateScalarList", value, size);
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
    return destroy_list(&TENSOR_LIST, "aclDestroyTensorList", array);
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array) {
    return destroy_list(&SCALAR_LIST, "aclDestroyScalarList", array);
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) {
    return meta_vector_get_size(&tensor_lists, "aclGetTensorListSize", "tensorList", tensorList, size);
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size) {
    return meta_vector_get_size(&scalar_lists, "aclGetScalarListSize", "scalarList", scalarList, size);
}

bool aclStubTensorListElements(const aclTensorList *list, const aclTensor **elements, uint64_t capacity,
                               uint64_t *size) {
    return meta_vector_copy(&tensor_lists, list, elements, capacity, size);
}

bool aclStubScalarListElements(const aclScalarList *list, const aclScalar **elements, uint64_t capacity,
                               uint64_t *size) {
    return meta_vector_copy(&scalar_lists, list, elements, capacity, size);
}

uint64_t aclStubLiveTensorLists(void) { return meta_vector_count(&tensor_lists); }
uint64_t aclStubLiveScalarLists(void) { return meta_vector_count(&scalar_lists); }
