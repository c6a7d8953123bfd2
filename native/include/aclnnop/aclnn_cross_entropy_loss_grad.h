/* aclnnCrossEntropyLossGrad (ops-nn loss/cross_entropy_loss_grad). */
#ifndef ACLNNOP_ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_
#define ACLNNOP_ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnCrossEntropyLossGradGetWorkspaceSize(
    const aclTensor *gradLoss, const aclTensor *logProb, const aclTensor *target, const aclTensor *weightOptional,
    const aclTensor *gradZlossOptional, const aclTensor *lseForZlossOptional, char *reductionOptional, int64_t
    ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, const aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnCrossEntropyLossGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CROSS_ENTROPY_LOSS_GRAD_H_ */
