/* aclnnBatchNormReduceBackward (ops-nn norm/sync_batch_norm_backward_reduce). */
#ifndef ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_
#define ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchNormReduceBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, const
    aclTensor *weight, const bool inputG, const bool weightG, const bool biasG, aclTensor *sumDy, aclTensor
    *sumDyXmu, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchNormReduceBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_NORM_BACKWARD_REDUCE_H_ */
