/* aclnnMoeTokenUnpermuteWithEpGrad: backward of aclnnMoeTokenUnpermuteWithEp. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_GRAD_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithEpGradGetWorkspaceSize(
    const aclTensor *unpermutedTokensGrad, const aclTensor *sortedIndices, const aclTensor *permutedTokensOptional,
    const aclTensor *probsOptional, bool paddedMode, const aclIntArray *restoreShapeOptional,
    const aclIntArray *rangeOptional, int64_t topkNum, const aclTensor *permutedTokensGradOut,
    const aclTensor *probsGradOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithEpGrad(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_GRAD_H_ */
