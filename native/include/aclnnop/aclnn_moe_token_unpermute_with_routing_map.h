/* aclnnMoeTokenUnpermuteWithRoutingMap: combine the permuted rows of a routing-map dispatch back into tokens. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithRoutingMapGetWorkspaceSize(
    const aclTensor *permutedTokens, const aclTensor *sortedIndices, const aclTensor *routingMapOptional,
    const aclTensor *probsOptional, bool paddedMode, const aclIntArray *restoreShapeOptional,
    aclTensor *unpermutedTokens, aclTensor *outIndex, aclTensor *permuteTokenId, aclTensor *permuteProbs,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteWithRoutingMap(void *workspace, uint64_t workspaceSize,
                                                           aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_WITH_ROUTING_MAP_H_ */
