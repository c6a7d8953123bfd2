/* aclnnGeGluBackward, aclnnGeGluV3Backward (ops-nn activation/ge_glu_grad_v2). */
#ifndef ACLNNOP_ACLNN_GEGLU_BACKWARD_H_
#define ACLNNOP_ACLNN_GEGLU_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGeGluBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                         const aclTensor *gelu, int64_t dim, int64_t approximate,
                                                         aclTensor *gradInput, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGeGluV3BackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                           const aclTensor *gelu, int64_t dim, int64_t approximate,
                                                           bool activateLeft, aclTensor *gradInput,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGeGluBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

ACLNN_API aclnnStatus aclnnGeGluV3Backward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GEGLU_BACKWARD_H_ */
