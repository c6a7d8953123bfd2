/* aclnnMoeTokenUnpermuteWithEp: the expert-parallel combine, inverse of aclnnMoeTokenPermuteWithEp on one
 * rank's window of sorted rows (a partial sum per token). */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_H_

#include "aclnn/acl_meta.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithEpGetWorkspaceSize(
    const aclTensor *permutedTokens, const aclTensor *sortedIndices, const aclTensor *probsOptional,
    int64_t numTopk, const aclIntArray *rangeOptional, bool paddedMode, const aclIntArray *restoreShapeOptional,
    const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithEp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_EP_H_ */
