/* aclnnLogSigmoid, aclnnLogSigmoidForward (ops-nn activation/log_sigmoid). */
#ifndef ACLNNOP_ACLNN_LOGSIGMOID_H_
#define ACLNNOP_ACLNN_LOGSIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogSigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogSigmoidForwardGetWorkspaceSize(
    const aclTensor *self, aclTensor *out, aclTensor *buffer, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogSigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

ACLNN_API aclnnStatus aclnnLogSigmoidForward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGSIGMOID_H_ */
