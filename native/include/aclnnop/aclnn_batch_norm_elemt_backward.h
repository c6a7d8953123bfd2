/* aclnnBatchNormElemtBackward (ops-nn norm/sync_batch_norm_backward_elemt). */
#ifndef ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_
#define ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchNormElemtBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, const
    aclTensor *weight, const aclTensor *sumDy, const aclTensor *sumDyXmu, aclTensor *counter, aclTensor
    *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchNormElemtBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_NORM_ELEMT_BACKWARD_H_ */
