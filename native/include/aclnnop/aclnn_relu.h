/* aclnnRelu, aclnnInplaceRelu (ops-nn activation/relu). */
#ifndef ACLNNOP_ACLNN_RELU_H_
#define ACLNNOP_ACLNN_RELU_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReluGetWorkspaceSize(const aclTensor *self, const aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceReluGetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceRelu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RELU_H_ */
