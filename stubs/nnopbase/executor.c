/* Executors: the plan of one operator call between phase 1 and phase 2, and the generic phase-2 checks. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ptr_set.h"
#include "tensor_util.h"

enum { EXECUTOR_MAGIC = 0x45584543u };

struct aclOpExecutor {
    uint32_t magic;
    bool repeatable;
    const char *op;
    aclStubRunFn run; /* NULL: nothing to do (every output empty) */
    void *state;      /* points into storage */
    size_t num_tensors;
    aclStubTensorRef *tensors; /* points into storage */
    max_align_t storage[];     /* tensor refs, then the state: one allocation per executor */
};

static PtrSet live_executors = PTR_SET_INIT;

static void executor_free(aclOpExecutor *ex) {
    ex->magic = 0;
    free(ex);
}

aclOpExecutor *aclStubExecutorCreate(const char *op, aclStubRunFn run, void *state, size_t stateSize,
                                     const aclStubTensorRef *tensors, size_t numTensors) {
    size_t refs = numTensors * sizeof *tensors;
    size_t state_at = (refs + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    aclOpExecutor *ex = malloc(sizeof *ex + state_at + stateSize);
    if (!ex) goto oom;
    ex->magic = EXECUTOR_MAGIC;
    ex->repeatable = false;
    ex->op = op;
    ex->run = run;
    ex->num_tensors = numTensors;
    ex->tensors = (aclStubTensorRef *)ex->storage;
    ex->state = (char *)ex->storage + state_at;
    if (refs) memcpy(ex->tensors, tensors, refs);
    if (stateSize) memcpy(ex->state, state, stateSize);
    if (!ptr_set_insert(&live_executors, ex)) goto oom; /* published only once complete */
    return ex;
oom:
    free(ex);
    aclStubSetErrMsg("%sGetWorkspaceSize: out of host memory for the executor", op);
    return NULL;
}

aclOpExecutor *aclStubExecutorCreateEmpty(const char *op) { return aclStubExecutorCreate(op, NULL, NULL, 0, NULL, 0); }

/* Each tensor recorded in phase 1 must still be usable: live, with data, inside device memory. */
static aclnnStatus check_tensors(const char *op, const aclOpExecutor *ex) {
    for (size_t i = 0; i < ex->num_tensors; i++) {
        const aclStubTensorRef *ref = &ex->tensors[i];
        const aclTensor *t = ref->tensor;
        if (t == NULL) continue;
        if (!aclStubTensorIsLive(t)) {
            aclStubSetErrMsg("%s: tensor '%s' (%p) was destroyed after %sGetWorkspaceSize", op, ref->name,
                             (const void *)t, op);
            return ACLNN_ERR_PARAM_INVALID;
        }
        if (stub_numel(t) == 0) continue;
        if (t->data == NULL) {
            aclStubSetErrMsg("%s: tensor '%s' is not empty but its data pointer is NULL", op, ref->name);
            return ACLNN_ERR_PARAM_NULLPTR;
        }
        size_t esize = aclDataTypeSize(t->dtype);
        if (esize > 1 && esize <= 16 && (uintptr_t)t->data % esize != 0) {
            aclStubSetErrMsg("%s: tensor '%s' data pointer %p is not aligned to its %zu-byte elements", op,
                             ref->name, t->data, esize);
            return ACLNN_ERR_PARAM_INVALID;
        }
        int64_t lo = 0, hi = 0;
        if (!stub_tensor_byte_range(t, &lo, &hi) || (intptr_t)t->data + lo < 0 ||
            !aclStubIsDeviceSpan((const char *)t->data + lo, (size_t)(hi - lo))) {
            aclStubSetErrMsg("%s: tensor '%s' addresses bytes [%p%+lld, %p%+lld) that are not inside one "
                             "aclrtMalloc block (host memory, freed memory, or a view larger than its buffer)",
                             op, ref->name, t->data, (long long)lo, t->data, (long long)hi);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    return OK;
}

aclnnStatus aclStubExecutorRun(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream) {
    if (executor == NULL) {
        aclStubSetErrMsg("%s: argument 'executor' is NULL", op);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (workspaceSize > 0 && workspace == NULL) {
        aclStubSetErrMsg("%s: argument 'workspace' is NULL but 'workspaceSize' is %llu", op,
                         (unsigned long long)workspaceSize);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!ptr_set_contains(&live_executors, executor)) {
        aclStubSetErrMsg("%s: argument 'executor' (%p) is not a live executor (already consumed by a previous "
                         "call, destroyed, or never created)", op, (void *)executor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (executor->op != op && strcmp(executor->op, op) != 0) {
        aclStubSetErrMsg("%s: argument 'executor' was created by %sGetWorkspaceSize, not by %sGetWorkspaceSize", op,
                         executor->op, op);
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (!aclStubStreamIsLive(stream)) {
        aclStubSetErrMsg("%s: argument 'stream' (%p) is not a live stream", op, stream);
        return ACLNN_ERR_PARAM_INVALID;
    }
    /* Claiming a one-shot executor by removing it makes a concurrent second run fail cleanly. */
    if (!executor->repeatable && !ptr_set_remove(&live_executors, executor)) {
        aclStubSetErrMsg("%s: argument 'executor' (%p) was consumed concurrently", op, (void *)executor);
        return ACLNN_ERR_PARAM_INVALID;
    }
    aclnnStatus status = check_tensors(op, executor);
    if (status == OK && executor->run) status = executor->run(executor->state);
    if (!executor->repeatable) executor_free(executor);
    return status;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    if (executor == NULL) {
        aclStubSetErrMsg("aclSetAclOpExecutorRepeatable: argument 'executor' is NULL");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (!ptr_set_contains(&live_executors, executor)) {
        aclStubSetErrMsg("aclSetAclOpExecutorRepeatable: argument 'executor' (%p) is not a live executor",
                         (void *)executor);
        return ACLNN_ERR_INNER;
    }
    executor->repeatable = true;
    return OK;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    if (executor == NULL) {
        aclStubSetErrMsg("aclDestroyAclOpExecutor: argument 'executor' is NULL");
        return ACLNN_ERR_INNER_NULLPTR;
    }
    if (!ptr_set_remove(&live_executors, executor)) {
        aclStubSetErrMsg("aclDestroyAclOpExecutor: argument 'executor' (%p) is not a live executor (already "
                         "consumed or destroyed)", (void *)executor);
        return ACLNN_ERR_INNER;
    }
    executor_free(executor);
    return OK;
}

uint64_t aclStubLiveExecutors(void) { return ptr_set_count(&live_executors); }

/* The stub has no operator packages or debug configuration to load. */
aclnnStatus aclnnInit(const char *configPath) {
    (void)configPath;
    return OK;
}

aclnnStatus aclnnFinalize(void) { return OK; }
