/* aclnnKlDivTargetBackward (ops-nn loss/kl_div_target_loss_grad). */
#ifndef ACLNNOP_ACLNN_KL_DIV_TARGET_BACKWARD_H_
#define ACLNNOP_ACLNN_KL_DIV_TARGET_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnKlDivTargetBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target, int64_t reduction, bool
    logTarget, aclTensor *gradTarget, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnKlDivTargetBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_KL_DIV_TARGET_BACKWARD_H_ */
