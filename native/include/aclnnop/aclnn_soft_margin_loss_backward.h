/* aclnnSoftMarginLossBackward (ops-nn loss/soft_margin_loss_grad). */
#ifndef ACLNNOP_ACLNN_SOFT_MARGIN_LOSS_BACKWARD_H_
#define ACLNNOP_ACLNN_SOFT_MARGIN_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftMarginLossBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target, int64_t reduction, aclTensor
    *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSoftMarginLossBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFT_MARGIN_LOSS_BACKWARD_H_ */
