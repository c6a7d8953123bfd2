/* aclnnLogSoftmaxBackward (ops-nn activation/log_softmax_grad). */
#ifndef ACLNNOP_ACLNN_LOGSOFTMAX_BACKWARD_H_
#define ACLNNOP_ACLNN_LOGSOFTMAX_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogSoftmaxBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGSOFTMAX_BACKWARD_H_ */
