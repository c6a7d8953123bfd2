/* aclnnMoeTokenPermuteWithEpGrad: backward of aclnnMoeTokenPermuteWithEp. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_GRAD_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithEpGradGetWorkspaceSize(
    const aclTensor *permutedTokensOutputGrad, const aclTensor *sortedIndices,
    const aclTensor *permutedProbsOutputGradOptional, int64_t numTopk, const aclIntArray *rangeOptional,
    bool paddedMode, const aclTensor *tokenGradOut, const aclTensor *probsGradOut, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithEpGrad(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_GRAD_H_ */
