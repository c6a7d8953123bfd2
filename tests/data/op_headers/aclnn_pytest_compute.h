/* Test operators that compute (tests/data/pytest_oplib.c), for the generic call: every parameter type, and a
 * tensor the operator reads and writes. */
#ifndef PYTEST_ACLNN_COMPUTE_H_
#define PYTEST_ACLNN_COMPUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPytestComputeGetWorkspaceSize(
    const aclTensor *self, const aclTensorList *others, const aclScalar *alpha, const aclScalarList *betas,
    const aclIntArray *dims, const aclBoolArray *mask, const aclFloatArray *weights, double scale, bool negate,
    int64_t bias, const char *mode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestCompute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

ACLNN_API aclnnStatus aclnnPytestInplaceScaleGetWorkspaceSize(aclTensor *selfRef, double factor,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestInplaceScale(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
