/* aclOpExecutor handles: the registry, repeatable executors and aclDestroyAclOpExecutor. The executor's
 * contents and both phases are the operator SDK's (sdk/). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"
#include "sdk_internal.h"

HandleTable sdk_executors = HANDLE_TABLE_INIT(HANDLE_EXECUTOR);

/* The executor pool: freed blocks by size class (powers of two from 1 KiB to 256 KiB), at most SPARE_BLOCKS a
 * class; larger blocks come from malloc. Phase 1's snapshot, the work item of a repeatable executor and the
 * executor a one-shot run consumes all cycle through it. */
#define POOL_MIN_SHIFT 10
#define POOL_CLASSES 9
#define SPARE_BLOCKS 16

typedef struct PoolBlock {
    struct PoolBlock *next;
} PoolBlock;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static PoolBlock *pool_free[POOL_CLASSES];
static int pool_count[POOL_CLASSES];

static int pool_class(size_t bytes) {
    int c = 0;
    while (c < POOL_CLASSES && ((size_t)1 << (POOL_MIN_SHIFT + c)) < bytes) c++;
    return c; /* POOL_CLASSES: too large for the pool */
}

aclOpExecutor *sdk_executor_alloc(size_t bytes) {
    int c = pool_class(bytes);
    size_t capacity = c < POOL_CLASSES ? (size_t)1 << (POOL_MIN_SHIFT + c) : bytes;
    aclOpExecutor *ex = NULL;
    if (c < POOL_CLASSES) {
        pthread_mutex_lock(&pool_lock);
        PoolBlock *b = pool_free[c];
        if (b != NULL) {
            pool_free[c] = b->next;
            pool_count[c]--;
        }
        pthread_mutex_unlock(&pool_lock);
        if (b != NULL) {
            ex = (aclOpExecutor *)(void *)b;
            memset(ex, 0, bytes);
        }
    }
    if (ex == NULL && (ex = calloc(1, capacity)) == NULL) return NULL;
    ex->capacity = capacity;
    return ex;
}

void sdk_executor_free(void *block) {
    aclOpExecutor *ex = block;
    if (ex == NULL) return;
    int c = pool_class(ex->capacity);
    if (c < POOL_CLASSES && ex->capacity == (size_t)1 << (POOL_MIN_SHIFT + c)) {
        pthread_mutex_lock(&pool_lock);
        bool keep = pool_count[c] < SPARE_BLOCKS;
        if (keep) {
            PoolBlock *b = block;
            b->next = pool_free[c];
            pool_free[c] = b;
            pool_count[c]++;
        }
        pthread_mutex_unlock(&pool_lock);
        if (keep) return;
    }
    free(ex);
}

static void reset_after_fork(void) {
    handle_table_reset_after_fork(&sdk_executors);
    pthread_mutex_init(&pool_lock, NULL);
}
__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

aclOpExecutor *sdk_block_copy(const aclOpExecutor *ex) {
    aclOpExecutor *copy = sdk_executor_alloc(ex->bytes);
    if (!copy) return NULL;
    size_t capacity = copy->capacity;
    memcpy(copy, ex, ex->bytes);
    copy->capacity = capacity;
    /* Rebase every pointer that points into the block. */
    const char *old_lo = (const char *)ex, *old_hi = old_lo + ex->bytes;
    ptrdiff_t delta = (char *)copy - (const char *)ex;
#define REBASE(p)                                                                              \
    do {                                                                                       \
        if ((p) && (const char *)(p) >= old_lo && (const char *)(p) < old_hi)                  \
            (p) = (__typeof__(p))(void *)((char *)(uintptr_t)(p) + delta);                     \
    } while (0)
    REBASE(copy->handles);
    REBASE(copy->elems);
    REBASE(copy->values);
    REBASE(copy->call.plan);
    copy->call.v = copy->values;
    for (size_t i = 0; i < ex->op->num_params; i++) {
        REBASE(copy->values[i].tensor);
        REBASE(copy->values[i].ints);
        REBASE(copy->values[i].s);
        REBASE(copy->values[i].tensors);
        REBASE(copy->values[i].scalars);
        REBASE(copy->values[i].floats);
        REBASE(copy->values[i].bools);
        REBASE(copy->elems[i]);
    }
#undef REBASE
    return copy;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    if (executor == NULL) {
        aclStubSetErrMsg("aclSetAclOpExecutorRepeatable: argument 'executor' is NULL");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    aclOpExecutor *ex = handle_acquire(&sdk_executors, executor);
    if (!ex) {
        aclStubSetErrMsg("aclSetAclOpExecutorRepeatable: argument 'executor' (%p) is not a live executor",
                         (void *)executor);
        return ACLNN_ERR_INNER;
    }
    __atomic_store_n(&ex->repeatable, 1, __ATOMIC_RELAXED);
    handle_release(&sdk_executors);
    return OK;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == NULL) {
        aclStubSetErrMsg("aclDestroyAclOpExecutor: argument 'executor' is NULL");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    aclOpExecutor *ex = handle_remove(&sdk_executors, executor);
    if (!ex) {
        aclStubSetErrMsg("aclDestroyAclOpExecutor: argument 'executor' (%p) is not a live executor (already "
                         "consumed or destroyed)", (void *)executor);
        return ACLNN_ERR_INNER;
    }
    sdk_executor_free(ex);
    return OK;
}

/* Which tensor parameters an index counts: inputs, outputs, or all (inputs first, then outputs). */
typedef enum { COUNT_INPUTS, COUNT_OUTPUTS, COUNT_ALL } TensorCount;

/* An in-place tensor (selfRef) counts among the inputs and among the outputs. */
static bool is_input(aclStubRole r) { return r == ACLSTUB_INPUT || r == ACLSTUB_OPTIONAL_INPUT || r == ACLSTUB_INPLACE; }
static bool is_output(aclStubRole r) {
    return r == ACLSTUB_OUTPUT || r == ACLSTUB_OPTIONAL_OUTPUT || r == ACLSTUB_INPLACE;
}

/* The parameter of op that index designates, or -1. */
static int tensor_param(const aclStubOpDef *op, TensorCount which, size_t index) {
    for (int pass = 0; pass < 2; pass++) {
        bool inputs = pass == 0;
        if ((inputs && which == COUNT_OUTPUTS) || (!inputs && which == COUNT_INPUTS)) continue;
        for (size_t i = 0; i < op->num_params; i++)
            if (inputs ? is_input(op->params[i].role) : is_output(op->params[i].role))
                if (index-- == 0) return (int)i;
    }
    return -1;
}

/*
 * The executor address setters: phase 2 reads every tensor's data address afresh, so setting the tensor's
 * address is what updates the executor. The index must name one of the operator's tensors, and that tensor
 * must be the one phase 1 recorded there.
 */
static aclnnStatus set_tensor_addr(const char *fn, aclOpExecutor *executor, size_t index, aclTensor *tensor,
                                   void *addr, TensorCount which) {
    if (tensor == NULL || executor == NULL) {
        aclStubSetErrMsg("%s: argument '%s' is NULL", fn, tensor == NULL ? "tensor" : "executor");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    aclOpExecutor *ex = handle_acquire(&sdk_executors, executor);
    if (!ex) {
        aclStubSetErrMsg("%s: argument 'executor' (%p) is not a live executor", fn, (void *)executor);
        return ACLNN_ERR_INNER;
    }
    static const char *const KIND[] = {"input", "output", "tensor"};
    int p = tensor_param(ex->op, which, index);
    const void *recorded = p >= 0 ? ex->handles[p] : NULL;
    const char *op = ex->op->name, *name = p >= 0 ? ex->op->params[p].name : "";
    handle_release(&sdk_executors);
    if (p < 0) {
        aclStubSetErrMsg("%s: argument 'index' (%zu) is not an %s index of %s", fn, index, KIND[which], op);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (recorded && recorded != tensor) {
        aclStubSetErrMsg("%s: argument 'tensor' (%p) is not the tensor '%s' the executor recorded at %s index %zu",
                         fn, (void *)tensor, name, KIND[which], index);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return meta_tensor_set_data(fn, tensor, addr);
}

#define ADDR_SETTER(fn, which)                                                                   \
    aclnnStatus fn(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) { \
        return set_tensor_addr(#fn, executor, index, tensor, addr, which);                      \
    }

ADDR_SETTER(aclSetInputTensorAddr, COUNT_INPUTS)
ADDR_SETTER(aclSetOutputTensorAddr, COUNT_OUTPUTS)
ADDR_SETTER(aclSetTensorAddr, COUNT_ALL)
ADDR_SETTER(AclSetInputTensorAddr, COUNT_INPUTS)
ADDR_SETTER(AclSetOutputTensorAddr, COUNT_OUTPUTS)
ADDR_SETTER(AclSetTensorAddr, COUNT_ALL)

/*
 * The tensor-list address setters. CANN sets the address of element relativeIndex of the list, then
 * updates the executor when it recorded that list. Phase 2 reads every address afresh and no stub operator
 * records a tensor list, so the element's address is the whole effect; the checks keep CANN's order.
 */
static aclnnStatus set_list_addr(const char *fn, aclOpExecutor *executor, size_t relativeIndex,
                                 aclTensorList *tensors, void *addr) {
    uint64_t size = 0;
    if (tensors == NULL) {
        aclStubSetErrMsg("%s: argument 'tensors' is NULL", fn);
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (!aclStubTensorListElements(tensors, NULL, 0, &size)) {
        aclStubSetErrMsg("%s: argument 'tensors' (%p) is not a live aclTensorList", fn, (void *)tensors);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (relativeIndex >= size) {
        aclStubSetErrMsg("%s: argument 'relativeIndex' (%zu) is outside the list's %llu tensors", fn, relativeIndex,
                         (unsigned long long)size);
        return ACLNN_ERR_PARAM_INVALID;
    }
    const aclTensor **elements = malloc((relativeIndex + 1) * sizeof *elements);
    if (elements == NULL) {
        aclStubSetErrMsg("%s: out of host memory", fn);
        return ACLNN_ERR_INNER;
    }
    bool live = aclStubTensorListElements(tensors, elements, relativeIndex + 1, NULL);
    const aclTensor *element = live ? elements[relativeIndex] : NULL;
    free(elements);
    if (!live) {
        aclStubSetErrMsg("%s: argument 'tensors' (%p) was destroyed during the call", fn, (void *)tensors);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (element == NULL) {
        aclStubSetErrMsg("%s: element %zu of 'tensors' is NULL", fn, relativeIndex);
        return ACLNN_ERR_INNER_NULLPTR;
    }
    aclnnStatus status = meta_tensor_set_data(fn, element, addr);
    if (status != OK) return status;
    if (executor == NULL) {
        aclStubSetErrMsg("%s: argument 'executor' is NULL", fn);
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (!handle_is_live(&sdk_executors, executor)) {
        aclStubSetErrMsg("%s: argument 'executor' (%p) is not a live executor", fn, (void *)executor);
        return ACLNN_ERR_INNER;
    }
    return OK;
}

#define LIST_ADDR_SETTER(fn)                                                                          \
    aclnnStatus fn(aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex, aclTensorList *tensors, \
                   void *addr) {                                                                      \
        (void)irIndex; /* names the list among the operator's parameters: no stub operator has one */ \
        return set_list_addr(#fn, executor, relativeIndex, tensors, addr);                            \
    }

LIST_ADDR_SETTER(aclSetDynamicInputTensorAddr)
LIST_ADDR_SETTER(aclSetDynamicOutputTensorAddr)
LIST_ADDR_SETTER(aclSetDynamicTensorAddr)
LIST_ADDR_SETTER(AclSetDynamicInputTensorAddr)
LIST_ADDR_SETTER(AclSetDynamicOutputTensorAddr)
LIST_ADDR_SETTER(AclSetDynamicTensorAddr)

uint64_t aclStubLiveExecutors(void) { return handle_count(&sdk_executors); }

/* The stub has no operator packages or debug configuration to load. */
aclnnStatus aclnnInit(const char *configPath) {
    (void)configPath;
    return OK;
}

aclnnStatus aclnnFinalize(void) { return OK; }
