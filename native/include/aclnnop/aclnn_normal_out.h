/* aclnnNormalTensorTensor, aclnnNormalTensorFloat, aclnnNormalFloatTensor, aclnnNormalFloatFloat (ops-math random/stateless_random_normal_v2). */
#ifndef ACLNNOP_ACLNN_NORMAL_OUT_H_
#define ACLNNOP_ACLNN_NORMAL_OUT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNormalTensorTensorGetWorkspaceSize(
    const aclTensor *mean, const aclTensor *std, int64_t seed, int64_t offset, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNormalTensorFloatGetWorkspaceSize(
    const aclTensor *mean, float std, int64_t seed, int64_t offset, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNormalFloatTensorGetWorkspaceSize(
    float mean, const aclTensor *std, int64_t seed, int64_t offset, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNormalFloatFloatGetWorkspaceSize(float mean, float std, int64_t seed, int64_t offset,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNormalTensorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

ACLNN_API aclnnStatus aclnnNormalTensorFloat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

ACLNN_API aclnnStatus aclnnNormalFloatTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

ACLNN_API aclnnStatus aclnnNormalFloatFloat(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NORMAL_OUT_H_ */
