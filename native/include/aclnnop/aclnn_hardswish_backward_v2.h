/* aclnnHardswishBackwardV2 (ops-nn activation/hard_swish_grad_v2). */
#ifndef ACLNNOP_ACLNN_HARDSWISH_BACKWARD_V2_H_
#define ACLNNOP_ACLNN_HARDSWISH_BACKWARD_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHardswishBackwardV2GetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnHardswishBackwardV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HARDSWISH_BACKWARD_V2_H_ */
