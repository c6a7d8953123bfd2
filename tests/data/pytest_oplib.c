/* Operators of the header-driven mirror's tests (headers in op_headers/): each records what it received,
 * as text read back with pytest_oplib_last(), and returns OK or the official status for a bad argument.
 * Built twice by the tests, with PYTEST_OPLIB_NAME telling the copies apart. */
#include <inttypes.h>
#include <stdio.h>

#include "aclnn/aclnn_base.h"
#include "aclnn/opdev/op_errno.h"

#ifndef PYTEST_OPLIB_NAME
#define PYTEST_OPLIB_NAME "oplib"
#endif

static char last[1024];
static int executor_token;
#define TOKEN ((aclOpExecutor *)&executor_token)
#define ADDR(p) ((uintptr_t)(const void *)(p))

const char *pytest_oplib_last(void) { return last; }

static aclnnStatus plan(uint64_t *workspaceSize, aclOpExecutor **executor, uint64_t size) {
    if (!workspaceSize || !executor) return ACLNN_ERR_PARAM_NULLPTR;
    *workspaceSize = size;
    *executor = TOKEN;
    return ACLNN_SUCCESS;
}

static aclnnStatus run(const char *op, void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                       aclrtStream stream) {
    snprintf(last, sizeof last, "lib=%s op=%s workspace=%" PRIuPTR " workspaceSize=%" PRIu64
             " executor_ok=%d stream=%" PRIuPTR, PYTEST_OPLIB_NAME, op, ADDR(workspace), workspaceSize,
             executor == TOKEN, ADDR(stream));
    return executor == TOKEN ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus aclnnPytestEveryTypeGetWorkspaceSize(
    const aclTensor *self, const aclTensorList *tensors, const aclScalar *alpha, const aclIntArray *dims,
    const aclBoolArray *mask, const aclFloatArray *weights, double eps, const char *reduction, int64_t groups,
    bool keepDim, aclDataType dtype, int mode, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=every self=%" PRIuPTR " tensors=%" PRIuPTR " alpha=%" PRIuPTR
             " dims=%" PRIuPTR " mask=%" PRIuPTR " weights=%" PRIuPTR " eps=%.17g reduction=%s groups=%" PRId64
             " keepDim=%d dtype=%d mode=%d out=%" PRIuPTR, PYTEST_OPLIB_NAME, ADDR(self), ADDR(tensors),
             ADDR(alpha), ADDR(dims), ADDR(mask), ADDR(weights), eps, reduction ? reduction : "(null)", groups,
             keepDim, (int)dtype, mode, ADDR(out));
    if (!self || !out) return ACLNN_ERR_PARAM_NULLPTR;
    if (groups < 0) return ACLNN_ERR_PARAM_INVALID;
    return plan(workspaceSize, executor, 256);
}

aclnnStatus aclnnPytestEveryType(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream) {
    return run("every", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnPytestOldGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=old self=%" PRIuPTR " out=%" PRIuPTR, PYTEST_OPLIB_NAME,
             ADDR(self), ADDR(out));
    return plan(workspaceSize, executor, 0);
}

aclnnStatus aclnnPytestOld(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {
    return run("old", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnPytestDupGetWorkspaceSize(const aclTensor *self, int64_t times, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=dup self=%" PRIuPTR " times=%" PRId64 " out=%" PRIuPTR,
             PYTEST_OPLIB_NAME, ADDR(self), times, ADDR(out));
    return plan(workspaceSize, executor, 0);
}

aclnnStatus aclnnPytestDupV2GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                             aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=dupv2 self=%" PRIuPTR " out=%" PRIuPTR, PYTEST_OPLIB_NAME,
             ADDR(self), ADDR(out));
    return plan(workspaceSize, executor, 0);
}
