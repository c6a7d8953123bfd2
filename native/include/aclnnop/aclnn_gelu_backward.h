/* aclnnGeluBackward (ops-nn activation/gelu_grad). */
#ifndef ACLNNOP_ACLNN_GELU_BACKWARD_H_
#define ACLNNOP_ACLNN_GELU_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                        const aclTensor *gradInput, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGeluBackward(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GELU_BACKWARD_H_ */
