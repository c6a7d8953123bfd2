/* aclnnFastBatchNormBackward (ops-nn norm/batch_norm_grad_v3). */
#ifndef ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_
#define ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFastBatchNormBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight, const aclTensor *runningMean, const
    aclTensor *runningVar, const aclTensor *saveMean, const aclTensor *saveInvstd, bool training, double eps,
    const aclBoolArray *outputMask, int version, aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFastBatchNormBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FAST_BATCH_NORM_BACKWARD_H_ */
