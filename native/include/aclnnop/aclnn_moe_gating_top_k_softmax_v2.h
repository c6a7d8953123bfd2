/* aclnnMoeGatingTopKSoftmaxV2 (ops-transformer moe/moe_gating_top_k_softmax_v2). */
#ifndef ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_V2_H_
#define ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeGatingTopKSoftmaxV2GetWorkspaceSize(
    const aclTensor *x, const aclTensor *finishedOptional, int64_t k, int64_t renorm, bool
    outputSoftmaxResultFlag, const aclTensor *yOut, const aclTensor *expertIdxOut, const aclTensor
    *softmaxResultOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeGatingTopKSoftmaxV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_GATING_TOP_K_SOFTMAX_V2_H_ */
