/* aclnnFusedCrossEntropyLossWithMaxSum (ops-nn loss/fused_cross_entropy_loss_with_max_sum). */
#ifndef ACLNNOP_ACLNN_FUSED_CROSS_ENTROPY_LOSS_WITH_MAX_SUM_H_
#define ACLNNOP_ACLNN_FUSED_CROSS_ENTROPY_LOSS_WITH_MAX_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnFusedCrossEntropyLossWithMaxSumGetWorkspaceSize(
    const aclTensor *logitsMax, const aclTensor *sumExpLogits, const aclTensor *predictedLogits, float
    labelSmoothing, const aclTensor *inputOptional, const aclTensor *weightOptional, const aclTensor
    *vocabParallelLogitsOptional, aclTensor *lossOut, aclTensor *softMaxOutOptional, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnFusedCrossEntropyLossWithMaxSum(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FUSED_CROSS_ENTROPY_LOSS_WITH_MAX_SUM_H_ */
