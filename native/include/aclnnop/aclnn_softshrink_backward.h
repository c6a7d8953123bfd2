/* aclnnSoftshrinkBackward (ops-nn activation/soft_shrink_grad). */
#ifndef ACLNNOP_ACLNN_SOFTSHRINK_BACKWARD_H_
#define ACLNNOP_ACLNN_SOFTSHRINK_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftshrinkBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclScalar *lambda, aclTensor *gradInput, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSoftshrinkBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFTSHRINK_BACKWARD_H_ */
