/* aclnnNLLLossBackward (ops-nn loss/nll_loss_grad). */
#ifndef ACLNNOP_ACLNN_NLL_LOSS_BACKWARD_H_
#define ACLNNOP_ACLNN_NLL_LOSS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           const aclTensor *target, const aclTensor *weight,
                                                           int64_t reduction, int64_t ignoreIndex,
                                                           const aclTensor *totalWeight, aclTensor *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNLLLossBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NLL_LOSS_BACKWARD_H_ */
