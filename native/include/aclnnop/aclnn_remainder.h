/* aclnnRemainderTensorTensor, aclnnRemainderTensorScalar, aclnnRemainderScalarTensor, aclnnInplaceRemainderTensorTensor, aclnnInplaceRemainderTensorScalar (ops-math math/floor_mod). */
#ifndef ACLNNOP_ACLNN_REMAINDER_H_
#define ACLNNOP_ACLNN_REMAINDER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRemainderTensorTensorGetWorkspaceSize(
    const aclTensor *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnRemainderTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnRemainderTensorScalarGetWorkspaceSize(
    const aclTensor *self, const aclScalar *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnRemainderTensorScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnRemainderScalarTensorGetWorkspaceSize(
    const aclScalar *self, const aclTensor *other, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnRemainderScalarTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceRemainderTensorTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceRemainderTensorTensor(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceRemainderTensorScalarGetWorkspaceSize(
    aclTensor *selfRef, const aclScalar *other, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceRemainderTensorScalar(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REMAINDER_H_ */
