/* aclnnSmoothL1Loss (ops-nn loss/smooth_l1_loss_v2). */
#ifndef ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_
#define ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSmoothL1LossGetWorkspaceSize(const aclTensor *self, const aclTensor *target,
                                                        int64_t reduction, float beta, aclTensor *result,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSmoothL1Loss(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SMOOTH_L1_LOSS_H_ */
