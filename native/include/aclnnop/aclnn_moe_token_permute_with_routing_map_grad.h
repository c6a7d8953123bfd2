/* aclnnMoeTokenPermuteWithRoutingMapGrad: backward of aclnnMoeTokenPermuteWithRoutingMap. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithRoutingMapGradGetWorkspaceSize(
    const aclTensor *permutedTokenOutputGrad, const aclTensor *permutedProbsOutputGradOptional,
    const aclTensor *sortedIndices, const aclTensor *routingMapOptional, int64_t numExperts, int64_t tokensNum,
    bool dropAndPad, aclTensor *tokensGradOut, aclTensor *probsGradOutOptional, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenPermuteWithRoutingMapGrad(void *workspace, uint64_t workspaceSize,
                                                             aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_WITH_ROUTING_MAP_GRAD_H_ */
