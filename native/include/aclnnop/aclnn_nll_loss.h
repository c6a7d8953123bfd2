/* aclnnNLLLoss (ops-nn loss/nll_loss). */
#ifndef ACLNNOP_ACLNN_NLL_LOSS_H_
#define ACLNNOP_ACLNN_NLL_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                   const aclTensor *weight, int64_t reduction, int64_t ignoreIndex,
                                                   aclTensor *out, aclTensor *totalWeightOut,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNLLLoss(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NLL_LOSS_H_ */
