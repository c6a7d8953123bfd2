/* Operators of the header-driven mirror's tests (headers in op_headers/): each records what it received,
 * as text read back with pytest_oplib_last(), and returns OK or the official status for a bad argument.
 * Built several times by the tests, with PYTEST_OPLIB_NAME telling the copies apart. */
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

#ifndef PYTEST_OPLIB_COMPUTE_ONLY /* a build with only the computing operators shadows none of these */
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

#endif

/* ---- operators that compute, for the generic call (aclnn_py.run) ------------------------------------------ */

#include <stdlib.h>
#include <string.h>

#include "aclnn/acl_meta.h"

#define MAX_RANK 8

/* A float32 view read through the public tensor meta API. */
typedef struct {
    float *data;
    int64_t numel, offset;
    uint64_t ndim;
    int64_t dims[MAX_RANK], strides[MAX_RANK];
} View;

static aclnnStatus view_of(const aclTensor *t, View *v) {
    int64_t *dims = NULL, *strides = NULL;
    uint64_t ndim = 0, nstrides = 0;
    aclDataType dtype;
    void *addr = NULL;
    aclnnStatus status = aclGetViewShape(t, &dims, &ndim);
    if (status == OK) status = aclGetViewStrides(t, &strides, &nstrides);
    if (status == OK) status = aclGetViewOffset(t, &v->offset);
    if (status == OK) status = aclGetDataType(t, &dtype);
    if (status == OK) status = aclGetRawTensorAddr(t, &addr);
    if (status == OK && (dtype != ACL_FLOAT || ndim > MAX_RANK || nstrides != ndim)) status = ACLNN_ERR_PARAM_INVALID;
    if (status == OK) {
        v->data = addr;
        v->ndim = ndim;
        v->numel = 1;
        for (uint64_t d = 0; d < ndim; d++) {
            v->dims[d] = dims[d];
            v->strides[d] = strides[d];
            v->numel *= dims[d];
        }
    }
    free(dims);
    free(strides);
    return status;
}

/* Element i (row-major) of a view. */
static float *element(const View *v, int64_t i) {
    int64_t off = v->offset;
    for (uint64_t d = v->ndim; d-- > 0;) {
        off += (i % v->dims[d]) * v->strides[d];
        i /= v->dims[d];
    }
    return v->data + off;
}

static struct {
    View self, out;
    float scale, bias;
} pending;

static int64_t size_or_minus_one(aclnnStatus (*get)(const void *, uint64_t *), const void *h) {
    uint64_t n = 0;
    return h && get(h, &n) == OK ? (int64_t)n : -1;
}
#define SIZE_OF(getter, h) size_or_minus_one((aclnnStatus(*)(const void *, uint64_t *))(getter), (h))

/* out = sign * (self * scale + bias), sign -1 when negate or mode "neg"; the list and array parameters are
 * recorded by their sizes (-1 for NULL) and the scalar by its presence. */
aclnnStatus aclnnPytestComputeGetWorkspaceSize(
    const aclTensor *self, const aclTensorList *others, const aclScalar *alpha, const aclScalarList *betas,
    const aclIntArray *dims, const aclBoolArray *mask, const aclFloatArray *weights, double scale, bool negate,
    int64_t bias, const char *mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=compute others=%" PRId64 " alpha=%d betas=%" PRId64 " dims=%" PRId64
             " mask=%" PRId64 " weights=%" PRId64 " mode=%s", PYTEST_OPLIB_NAME, SIZE_OF(aclGetTensorListSize, others),
             alpha != NULL, SIZE_OF(aclGetScalarListSize, betas), SIZE_OF(aclGetIntArraySize, dims),
             SIZE_OF(aclGetBoolArraySize, mask), SIZE_OF(aclGetFloatArraySize, weights), mode ? mode : "(null)");
    if (!self || !out) return ACLNN_ERR_PARAM_NULLPTR;
    if (view_of(self, &pending.self) != OK || view_of(out, &pending.out) != OK ||
        pending.self.numel != pending.out.numel)
        return ACLNN_ERR_PARAM_INVALID;
    float sign = negate || (mode && strcmp(mode, "neg") == 0) ? -1.0f : 1.0f;
    pending.scale = sign * (float)scale;
    pending.bias = sign * (float)bias;
    return plan(workspaceSize, executor, 64);
}

aclnnStatus aclnnPytestCompute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream) {
    (void)stream; /* computed at once: the caller synchronises before reading, and the record stays phase 1's */
    if (executor != TOKEN || (workspaceSize && !workspace)) return ACLNN_ERR_PARAM_INVALID;
    for (int64_t i = 0; i < pending.out.numel; i++)
        *element(&pending.out, i) = *element(&pending.self, i) * pending.scale + pending.bias;
    return OK;
}

/* selfRef *= factor: a tensor that is read and written (not const, not named as an output). */
aclnnStatus aclnnPytestInplaceScaleGetWorkspaceSize(aclTensor *selfRef, double factor, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor) {
    snprintf(last, sizeof last, "lib=%s op=inplace factor=%.17g", PYTEST_OPLIB_NAME, factor);
    if (!selfRef) return ACLNN_ERR_PARAM_NULLPTR;
    if (view_of(selfRef, &pending.out) != OK) return ACLNN_ERR_PARAM_INVALID;
    pending.self = pending.out;
    pending.scale = (float)factor;
    pending.bias = 0.0f;
    return plan(workspaceSize, executor, 0);
}

aclnnStatus aclnnPytestInplaceScale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream) {
    return aclnnPytestCompute(workspace, workspaceSize, executor, stream);
}
