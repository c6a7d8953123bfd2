/* aclnnMoeTokenUnpermuteGrad: backward of aclnnMoeTokenUnpermute. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteGradGetWorkspaceSize(
    const aclTensor *permuteTokens, const aclTensor *unpermutedTokensGrad, const aclTensor *sortedIndices,
    const aclTensor *probsOptional, bool paddedMode, const aclIntArray *restoreShapeOptional,
    aclTensor *permutedTokensGradOut, aclTensor *probsGradOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_GRAD_H_ */
