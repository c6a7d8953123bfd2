/* aclnnPreluBackward (ops-nn activation/p_relu_grad_update). */
#ifndef ACLNNOP_ACLNN_PRELU_BACKWARD_H_
#define ACLNNOP_ACLNN_PRELU_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPreluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                         const aclTensor *weight, aclTensor *gradInput,
                                                         aclTensor *gradWeight, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnPreluBackward(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_PRELU_BACKWARD_H_ */
