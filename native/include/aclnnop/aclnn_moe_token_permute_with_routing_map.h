/* aclnnMoeTokenPermuteWithRoutingMap: permute driven by a dense token-to-expert routing map. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithRoutingMapGetWorkspaceSize(
    const aclTensor *tokens, const aclTensor *routingMap, const aclTensor *probsOptional, int64_t numOutTokens,
    bool dropAndPad, aclTensor *permuteTokensOut, aclTensor *permuteProbsOutOptional, aclTensor *sortedIndicesOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithRoutingMap(void *workspace, uint64_t workspaceSize,
                                                         aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_H_ */
