/* aclnnMseLossOut (ops-nn loss/mse_loss). */
#ifndef ACLNNOP_ACLNN_MSE_LOSS_OUT_H_
#define ACLNNOP_ACLNN_MSE_LOSS_OUT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMseLossOutGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                      int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMseLossOut(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MSE_LOSS_OUT_H_ */
