/* aclOpExecutor handles: the registry, repeatable executors and aclDestroyAclOpExecutor. The executor's
 * contents and both phases are the operator SDK's (sdk/). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sdk_internal.h"

HandleTable sdk_executors = HANDLE_TABLE_INIT(HANDLE_EXECUTOR);

static void reset_after_fork(void) { handle_table_reset_after_fork(&sdk_executors); }
__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

aclOpExecutor *sdk_block_copy(const aclOpExecutor *ex) {
    aclOpExecutor *copy = malloc(ex->bytes);
    if (!copy) return NULL;
    memcpy(copy, ex, ex->bytes);
    /* Rebase every pointer that points into the block. */
    const char *old_lo = (const char *)ex, *old_hi = old_lo + ex->bytes;
    ptrdiff_t delta = (char *)copy - (const char *)ex;
#define REBASE(p)                                                                              \
    do {                                                                                       \
        if ((p) && (const char *)(p) >= old_lo && (const char *)(p) < old_hi)                  \
            (p) = (__typeof__(p))(void *)((char *)(uintptr_t)(p) + delta);                     \
    } while (0)
    REBASE(copy->handles);
    REBASE(copy->values);
    REBASE(copy->call.plan);
    copy->call.v = copy->values;
    for (size_t i = 0; i < ex->op->num_params; i++) {
        REBASE(copy->values[i].tensor);
        REBASE(copy->values[i].ints);
        REBASE(copy->values[i].s);
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
    free(ex);
    return OK;
}

uint64_t aclStubLiveExecutors(void) { return handle_count(&sdk_executors); }

/* The stub has no operator packages or debug configuration to load. */
aclnnStatus aclnnInit(const char *configPath) {
    (void)configPath;
    return OK;
}

aclnnStatus aclnnFinalize(void) { return OK; }
