/* aclnnMoeGatingTopKSoftmax (ops-transformer moe/moe_gating_top_k_softmax). */
#ifndef ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_H_
#define ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeGatingTopKSoftmaxGetWorkspaceSize(
    const aclTensor *x, const aclTensor *finishedOptional, int64_t k, const aclTensor *yOut, const aclTensor
    *expertIdxOut, const aclTensor *rowIdxOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeGatingTopKSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_H_ */
