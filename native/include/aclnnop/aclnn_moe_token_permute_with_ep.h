/* aclnnMoeTokenPermuteWithEp: permute by expert id, keeping the sorted rows of an expert-parallel range. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithEpGetWorkspaceSize(
    const aclTensor *tokens, const aclTensor *indices, const aclTensor *probsOptional,
    const aclIntArray *rangeOptional, int64_t numOutTokens, bool paddedMode, const aclTensor *permuteTokensOut,
    const aclTensor *sortedIndicesOut, const aclTensor *permuteProbsOut, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithEp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_EP_H_ */
